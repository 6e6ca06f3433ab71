/*
 * `nvemu policy NAME|FILE [ARG...] [--profile NAME] [--task NAME]`: loads a
 * policy the way the daemon and the scenario runner would (its words parsed against the kind's argument
 * table, as `--policy-arg` is), says whether
 * it is accepted (API version, symbol, its own argument checks), then calls
 * every hook once for one compute channel group and prints each decision and
 * the host's verdict on it. All of it runs in a child process, so a plugin that
 * crashes or hangs is reported with the hook. A gpu_ext struct_ops object given
 * without arguments is described first (driver ABI generation, callbacks, maps).
 * Exit status 0 when accepted and every hook returned, 1 when refused or a hook
 * failed (a BPF program's fault included), 2 on bad usage.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "abi/nv_abi_desc.h"
#include "abi/nv_engine.h"
#include "bpf/bpf_policy.h"
#include "bpf/bpf_report.h"
#include "cli.h"
#include "hooks/hooks.h"
#include "hooks/policy_api.h"
#include "profile/profile.h"

#define CHECK_LIMIT_S 10.0

static void policy_usage(FILE *out)
{
    fprintf(out, "usage: nvemu policy NAME|FILE [KEY=VALUE...] [--profile NAME|FILE] [--task NAME]\n"
                 "       nvemu policy FILE.bpf.o [--driver 550|575|580] [--driver-abi K1|K2|K3|K4]\n"
                 "  loads the policy (policy API version %u; a bundled name or a plugin file) with the arguments,\n"
                 "  reports whether it is accepted, then calls every hook once for one compute channel group of a\n"
                 "  process named --task (default nvemu-check) and prints each decision;\n"
                 "  for a gpu_ext struct_ops object without arguments: first the driver ABI it was built for, the\n"
                 "  generations that load it, callbacks, maps, kfuncs, helpers; --driver-abi runs it as that\n"
                 "  generation's driver (default: the one the driver release carries, K4 for --driver 575 or a\n"
                 "  575.x profile; else the newest that loads it). Exit 1 when refused or a callback faults\n",
            NVEMU_POLICY_API_VERSION);
    size_t nkinds;
    const struct policy_loader *kinds = hooks_policy_loaders(&nkinds);
    for (size_t i = 0; i < nkinds; i++) {
        fprintf(out, "  arguments of a %s (*%s):\n", kinds[i].name, kinds[i].suffix);
        for (const struct arg_spec *a = kinds[i].args; a && a->name; a++) {
            char form[96];
            arg_spec_form(a, form, sizeof form);
            fprintf(out, "    %-24s %s\n", form, a->help);
        }
    }
}

static uint64_t no_time(void *ctx)
{
    (void)ctx;
    return 0;
}

static void print_decision(void *ctx, const char *hook, const struct hook_task *t, const char *field, uint64_t value,
                           const char *result, const char *reason)
{
    (void)ctx;
    (void)t;
    printf("  %-15s %-10s %-8llu %-6s %s\n", hook, field, (unsigned long long)value, result, reason);
}

struct check {
    const char *path, *task;
    const struct arg_list *args;
    const struct profile *p;
};

/* Loads the policy and drives each hook once, in the order a channel group meets them. */
static int check_policy(void *arg, struct hooks_watch *watch)
{
    const struct check *k = arg;
    const struct profile *p = k->p;
    char err[512];
    struct hooks_env env = {.profile = p, .now = no_time, .trace = print_decision, .watch = watch};
    struct hooks *h = hooks_create(&env);
    if (!h) {
        fprintf(stderr, "nvemu policy: out of memory\n");
        return 1;
    }
    if (hooks_load_policy(h, k->path, k->args, err, sizeof err) != 0) {
        printf("refused: %s\n", err);
        hooks_destroy(h);
        return 1;
    }
    printf("accepted: policy %s (API version %u), %d argument%s, profile %s (minimum timeslice %llu us)\n",
           hooks_policy_name(h), NVEMU_POLICY_API_VERSION, k->args->n, k->args->n == 1 ? "" : "s", p->name,
           (unsigned long long)p->min_timeslice_us);
    struct hook_task t = {.gpu = 0, .tsg_id = 1, .runlist_id = 0, .engine_type = NV2080_ENGINE_TYPE_GR0,
                          .hclient = 0xc1d00001u, .htsg = 0x5c000010u, .pid = 1000, .tid = 1000,
                          .timeslice_us = p->default_timeslice_us, .interleave = NVEMU_INTERLEAVE_MEDIUM,
                          .channel_count = 1};
    snprintf(t.comm, sizeof t.comm, "%s", k->task);
    printf("every hook once, channel group of process '%s' on GR0:\n  %-15s %-10s %-8s %-6s %s\n", t.comm, "hook",
           "field", "value", "result", "reason");
    uint64_t ts = t.timeslice_us;
    uint32_t il = t.interleave;
    hooks_task_init(h, &t, &ts, &il);
    t.timeslice_us = ts;
    t.interleave = il;
    hooks_bind(h, &t);
    hooks_work_submit_decide(h, &t, 0, HOOK_SUBMIT_WORK, &ts, &il);
    uint64_t requested = 2048; /* what libcuda asks for after creating its context */
    hooks_timeslice_set(h, &t, &requested);
    uint64_t entries[2] = {t.tsg_id, t.tsg_id + 1};
    hooks_runlist_update(h, t.gpu, t.runlist_id, entries, 2);
    hooks_task_destroy(h, &t);
    const char *failed = hooks_policy_error(h);
    int rc = 0;
    if (failed) {
        printf("failed: %s\n", failed);
        rc = 1;
    }
    hooks_destroy(h);
    return rc;
}

int nvemu_cmd_policy(int argc, char **argv)
{
    const char *path = NULL, *profile_name = "h200", *task = "nvemu-check", *driver_abi = NULL, *driver = NULL;
    const char *args[64];
    int nargs = 0;
    for (int i = 1; i < argc; i++) {
        if (cli_is_help(argv[i])) {
            policy_usage(stdout);
            return 0;
        }
        if (strcmp(argv[i], "--profile") == 0 && i + 1 < argc) {
            profile_name = argv[++i];
        } else if (strcmp(argv[i], "--task") == 0 && i + 1 < argc) {
            task = argv[++i];
        } else if (strcmp(argv[i], "--driver") == 0 && i + 1 < argc) {
            driver = argv[++i];
        } else if (strcmp(argv[i], "--driver-abi") == 0 && i + 1 < argc) {
            driver_abi = argv[++i];
            if (!bpf_abi_gen_parse(driver_abi)) {
                fprintf(stderr, "nvemu policy: --driver-abi '%s': one of K1, K2, K3, K4\n", driver_abi);
                return 2;
            }
        } else if (argv[i][0] == '-' && argv[i][1]) {
            fprintf(stderr, "nvemu policy: unknown option '%s'\n", argv[i]);
            policy_usage(stderr);
            return 2;
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
    /* the kernel keeps 15 bytes of a process name: a policy sees the cut name, as it would on the driver */
    if (strlen(task) > 15)
        fprintf(stderr, "nvemu policy: warning: --task '%s' is %zu bytes; a process name is cut to 15, the policy "
                        "sees '%.15s'\n", task, strlen(task), task);
    char err[512], found[1024];
    bool is_found = hooks_find_policy(path, found, sizeof found, err, sizeof err) == 0;
    bool object = is_found && hooks_policy_loader_for(found) == hooks_policy_loader_named("bpf");
    if (driver_abi && !object) {
        fprintf(stderr, "nvemu policy: --driver-abi applies to a gpu_ext struct_ops object only\n");
        return 2;
    }
    struct profile *p = profile_load(profile_name, err, sizeof err);
    if (!p) {
        fprintf(stderr, "nvemu policy: profile: %s\n", err);
        return 2;
    }
    if (driver && !profile_use_driver(p, driver, err, sizeof err)) {
        fprintf(stderr, "nvemu policy: --driver: %s\n", err);
        profile_free(p);
        return 2;
    }
    /* the generation the policy will run as: --driver-abi, else the one the profile's release carries */
    enum bpf_abi_gen gen = driver_abi ? bpf_abi_gen_parse(driver_abi) : bpf_release_abi(nv_release_info(p->release)->major);
    /* a struct_ops object without arguments: the full report (ABI, callbacks, maps, kfuncs, helpers) first */
    if (nargs == 0 && object && bpf_report_check(found, gen, stdout)) {
        profile_free(p);
        return 1;
    }
    /* the words parse against the found file's kind; a name that finds nothing is refused by the load */
    struct arg_list typed = {0};
    if ((is_found && hooks_policy_args_parse(found, args, nargs, &typed, err, sizeof err) != 0) ||
        (driver_abi && arg_list_add(&typed, hooks_policy_loader_named("bpf")->args, "driver_abi", NULL, NULL,
                                    driver_abi, err, sizeof err) != 0)) {
        printf("refused: %s\n", err);
        arg_list_free(&typed);
        profile_free(p);
        return 1;
    }
    struct check k = {path, task, &typed, p};
    int rc = cli_guarded(check_policy, &k, 0, CHECK_LIMIT_S, err, sizeof err, NULL);
    if (rc < 0) {
        printf("failed: %s\n", err);
        rc = 1;
    }
    profile_free(p);
    arg_list_free(&typed);
    return rc;
}
