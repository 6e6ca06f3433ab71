/*
 * The per-kind code behind the rows of the policy-loader table (policy_loaders.c), private to the hook
 * framework: each kind's attach and file check live beside the state they touch.
 */
#ifndef NVEMU_HOOKS_POLICY_LOADER_ROWS_H
#define NVEMU_HOOKS_POLICY_LOADER_ROWS_H

#include <stddef.h>

#include "base/args.h"

struct hooks;

/* What a plugin takes: KEY=VALUE pairs handed to its init, which judges them. */
extern const struct arg_spec hooks_plugin_args[];

/* dlopen a shared object and attach its NVEMU_POLICY_SYMBOL ops; 0, or -1 with a reason naming path. */
int hooks_attach_plugin(struct hooks *h, const char *path, const struct arg_list *args, char *err, size_t errlen);

/* Attach a struct_ops BPF object through emu/bpf; 0, or -1 with the loader's reason. */
int hooks_attach_bpf(struct hooks *h, const char *path, const struct arg_list *args, char *err, size_t errlen);

/* The plugin's check from its ELF image on the open fd (hooks_check_plugin); closes nothing. */
int hooks_check_plugin_elf(int fd, const char *path, const struct arg_list *args, char *err, size_t errlen);

#endif
