/*
 * `nvemu policy FILE.so [KEY=VALUE...] [--profile NAME]`: loads a policy
 * plugin the way the daemon and the scenario runner would and says whether it
 * is accepted (API version, symbol, its own argument checks). Exit status 0
 * when accepted, 1 when refused, 2 on bad usage.
 */
#include <stdio.h>
#include <string.h>

#include "bpf/bpf_policy.h"
#include "bpf/bpf_report.h"
#include "hooks/hooks.h"
#include "hooks/policy_api.h"
#include "profile/profile.h"

static void policy_usage(FILE *out)
{
    fprintf(out, "usage: nvemu policy FILE.so [KEY=VALUE...] [--profile NAME|FILE]\n"
                 "       nvemu policy FILE.bpf.o\n"
                 "  loads the plugin (policy API version %u) with the arguments and reports whether it is accepted;\n"
                 "  for a gpu_ext struct_ops object: the ABI it was built for, callbacks, maps, kfuncs, helpers\n",
            NVEMU_POLICY_API_VERSION);
}

int nvemu_cmd_policy(int argc, char **argv)
{
    const char *path = NULL, *profile_name = "h200";
    const char *args[64];
    int nargs = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            policy_usage(stdout);
            return 0;
        }
        if (strcmp(argv[i], "--profile") == 0 && i + 1 < argc) {
            profile_name = argv[++i];
        } else if (!path) {
            path = argv[i];
        } else if (nargs < (int)(sizeof args / sizeof args[0])) {
            args[nargs++] = argv[i];
        } else {
            fprintf(stderr, "nvemu policy: too many arguments\n");
            return 2;
        }
    }
    if (!path) {
        policy_usage(stderr);
        return 2;
    }
    char err[512], found[1024];
    /* a struct_ops object without arguments: the full report (ABI, callbacks, maps, kfuncs, helpers) */
    if (nargs == 0 && hooks_find_policy(path, found, sizeof found, err, sizeof err) == 0 &&
        bpf_policy_is_object(found))
        return bpf_report_check(found, stdout);
    struct profile *p = profile_load(profile_name, err, sizeof err);
    if (!p) {
        fprintf(stderr, "nvemu policy: profile: %s\n", err);
        return 2;
    }
    struct hooks_env env = {.profile = p};
    struct hooks *h = hooks_create(&env);
    int rc = 1;
    if (!h) {
        fprintf(stderr, "nvemu policy: out of memory\n");
    } else if (hooks_load_policy(h, path, args, nargs, err, sizeof err) != 0) {
        printf("refused: %s\n", err);
    } else {
        printf("accepted: policy %s (API version %u), %d argument%s, profile %s (minimum timeslice %llu us)\n",
               hooks_policy_name(h), NVEMU_POLICY_API_VERSION, nargs, nargs == 1 ? "" : "s", p->name,
               (unsigned long long)p->min_timeslice_us);
        rc = 0;
    }
    hooks_destroy(h);
    profile_free(p);
    return rc;
}
