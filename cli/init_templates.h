/*
 * The policy projects `nvemu init` writes: the files of examples/c-policy and examples/bpf-policy, compiled in
 * at build time (cli/embed_templates.cmake), so the tool scaffolds a project without its source tree.
 */
#ifndef NVEMU_CLI_INIT_TEMPLATES_H
#define NVEMU_CLI_INIT_TEMPLATES_H

#include <stddef.h>

struct init_template {
    const char *kind;  /* "c" or "bpf" */
    const char *path;  /* inside the project ("Makefile", ".github/workflows/nvemu.yml") */
    const char *text;
    size_t len;
};

/* Terminated by a row with kind NULL. */
extern const struct init_template init_templates[];

#endif
