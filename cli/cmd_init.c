/*
 * `nvemu init [c|bpf] DIR`: writes a policy project that builds and passes as written: the policy's source,
 * a Makefile and a CMakeLists.txt against the installed SDK, a scenario with expectations, and a CI workflow
 * (the files of examples/c-policy or examples/bpf-policy, compiled into the tool).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "init_templates.h"

static void usage(FILE *out)
{
    fprintf(out, "usage: nvemu init [c|bpf] DIR [--force]\n"
                 "       writes a policy project into DIR (created when missing):\n"
                 "         c    a C plugin: my_policy.c against <nvemu/policy.h> and <nvemu/policy_util.h> (default)\n"
                 "         bpf  a gpu_ext struct_ops object: my_policy.bpf.c against <nvemu/nv_gpu_sched.bpf.h>\n"
                 "       with a Makefile (`make check`), a CMakeLists.txt (find_package(nvemu), one ctest test per\n"
                 "       scenario), scenario.yaml with expectations and .github/workflows/nvemu.yml.\n"
                 "       An existing file is kept and the command refused unless --force.\n"
                 "       exit 0: written; 2: usage, unknown kind or a file exists; 3: a file could not be written\n");
}

/* mkdir -p of the directories of path (everything before its last slash). */
static int make_parents(const char *path)
{
    char buf[4096];
    if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf)
        return -1;
    for (char *s = buf + 1; *s; s++) {
        if (*s != '/')
            continue;
        *s = '\0';
        if (mkdir(buf, 0777) != 0 && errno != EEXIST)
            return -1;
        *s = '/';
    }
    return 0;
}

static int write_file(const char *path, const char *text, size_t len)
{
    if (make_parents(path) != 0)
        return -1;
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    size_t w = fwrite(text, 1, len, f);
    return (fclose(f) != 0 || w != len) ? -1 : 0;
}

int nvemu_cmd_init(int argc, char **argv)
{
    const char *kind = NULL, *dir = NULL;
    int force = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(argv[i], "--force")) {
            force = 1;
        } else if (argv[i][0] == '-') {
            fprintf(stderr, "nvemu init: unknown option '%s'\n", argv[i]);
            usage(stderr);
            return 2;
        } else if (!dir && !kind && (!strcmp(argv[i], "c") || !strcmp(argv[i], "bpf"))) {
            kind = argv[i];
        } else if (!dir) {
            dir = argv[i];
        } else {
            fprintf(stderr, "nvemu init: unexpected argument '%s'\n", argv[i]);
            usage(stderr);
            return 2;
        }
    }
    if (!dir || !*dir) {
        usage(stderr);
        return 2;
    }
    if (!kind)
        kind = "c";
    char path[4096];
    /* every file is checked before any is written: a refused init leaves DIR as it was */
    for (const struct init_template *t = init_templates; t->kind; t++) {
        if (strcmp(t->kind, kind))
            continue;
        if (snprintf(path, sizeof path, "%s/%s", dir, t->path) >= (int)sizeof path) {
            fprintf(stderr, "nvemu init: %s: path too long\n", dir);
            return 2;
        }
        if (!force && access(path, F_OK) == 0) {
            fprintf(stderr, "nvemu init: %s exists (--force replaces it)\n", path);
            return 2;
        }
    }
    int n = 0;
    for (const struct init_template *t = init_templates; t->kind; t++) {
        if (strcmp(t->kind, kind))
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, t->path);
        if (write_file(path, t->text, t->len) != 0) {
            fprintf(stderr, "nvemu init: cannot write %s: %s\n", path, strerror(errno));
            return 3;
        }
        n++;
    }
    printf("%s: a %s policy project (%d files)\n"
           "  cd %s && make check          build it and run scenario.yaml (exit 1 if an expectation fails)\n"
           "  cmake -S %s -B %s/build && cmake --build %s/build && ctest --test-dir %s/build\n",
           dir, strcmp(kind, "c") ? "BPF (gpu_ext struct_ops)" : "C plugin", n, dir, dir, dir, dir, dir);
    return 0;
}
