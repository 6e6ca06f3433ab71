/*
 * `nvemu profile list|show|check`: the GPU profiles a run can name. `list` says which built-in profiles share
 * the FIFO model's timing (they give the same scenario results), `show` prints what a profile resolves to
 * (a file with `base: NAME` included) and where its values come from, `check` validates profile files the way a
 * run would load them; `provenance` and `from-trace` are in cmd_profile_from_trace.c.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "profile/profile.h"
#include "profile/profile_builtin.h"

static void usage(FILE *out)
{
    fprintf(out, "usage: nvemu profile list [--names]     the built-in profiles (--names: one name a line)\n"
                 "       nvemu profile show NAME|FILE      what a profile resolves to (identity, engines, FIFO,\n"
                 "                                         timing), after its base: and overrides\n"
                 "       nvemu profile check FILE...       validates profile files (file:line:column: message)\n"
                 "       nvemu profile provenance NAME|FILE which parts are measured, derived or assumed\n"
                 "       nvemu profile from-trace TRACE    the profile of the board a recorded trace came from\n"
                 "       A profile file may start from another: `base: h200` (a built-in name, or a file relative\n"
                 "       to it) and give only the keys it changes; maps merge key by key, any other value replaces\n"
                 "       the base's. Installed profiles: share/nvemu/profiles/; guide: share/doc/nvemu/profiles.md.\n"
                 "       exit 0: done; 2: usage, unknown profile or an invalid file\n");
}

/* Index of the first built-in profile before `upto` whose timing equals p's, or -1. */
static int same_timing(struct profile *const *all, int upto, const struct profile *p)
{
    for (int i = 0; i < upto; i++)
        if (all[i] && !memcmp(&all[i]->timing, &p->timing, sizeof p->timing) &&
            all[i]->default_timeslice_us == p->default_timeslice_us &&
            all[i]->default_compute_preempt_mode == p->default_compute_preempt_mode)
            return i;
    return -1;
}

static int cmd_list(int argc, char **argv)
{
    int names = argc > 1 && !strcmp(argv[1], "--names");
    if (argc > 1 + names) {
        usage(stderr);
        return 2;
    }
    const char *const *list = profile_builtin_names();
    int n = 0;
    while (list[n])
        n++;
    if (names) {
        for (int i = 0; i < n; i++)
            printf("%s\n", list[i]);
        return 0;
    }
    struct profile **all = calloc((size_t)n + 1, sizeof *all);
    if (!all)
        return 3;
    int rc = 0;
    printf("%-12s %-8s %-8s %-12s %4s  %s\n", "NAME", "CHIP", "ARCH", "DRIVER", "GPUS", "TIMING");
    for (int i = 0; i < n; i++) {
        char err[512];
        all[i] = profile_load(list[i], err, sizeof err);
        if (!all[i]) {
            printf("%-12s (does not load: %s)\n", list[i], err);
            rc = 2;
            continue;
        }
        int same = same_timing(all, i, all[i]);
        char timing[64];
        if (same >= 0)
            snprintf(timing, sizeof timing, "same as %s", list[same]);
        else
            snprintf(timing, sizeof timing, "its own");
        printf("%-12s %-8s %-8s %-12s %4u  %s\n", list[i], all[i]->chip, all[i]->arch, all[i]->driver_version,
               all[i]->gpu_count, timing);
    }
    printf("\nProfiles with the same timing give the same scenario results; they differ in what the RM answers\n"
           "(identity, classes, engines). `nvemu profile show NAME` prints one.\n");
    for (int i = 0; i < n; i++)
        profile_free(all[i]);
    free(all);
    return rc;
}

static void show_us(const char *name, uint64_t ns)
{
    printf("  %-22s %.3f us\n", name, (double)ns / 1000.0);
}

static void show_flag(const char *name, bool on)
{
    printf("  %-22s %s\n", name, on ? "yes" : "no");
}

static int cmd_show(int argc, char **argv)
{
    if (argc != 2) {
        usage(stderr);
        return 2;
    }
    char err[512];
    struct profile *p = profile_load(argv[1], err, sizeof err);
    if (!p) {
        fprintf(stderr, "nvemu profile: %s\n", err);
        return 2;
    }
    printf("name: %s\nchip: %s\narch: %s\nmarketing_name: %s\ndriver_version: %s\ngpu_count: %u\n", p->name, p->chip,
           p->arch, p->marketing_name, p->driver_version, p->gpu_count);
    if (p->notes[0])
        printf("notes: %s\n", p->notes);
    printf("sm_count: %u (%u GPCs x %u TPCs x %u SMs)\nclasses: %u\nengines:", p->sm_count, p->gpc_count,
           p->tpc_per_gpc, p->sm_per_tpc, p->class_count);
    for (uint32_t e = 0; e < p->engine_count; e++)
        printf(" %s(runlist %u)", p->engines[e].name, p->engines[e].runlist_id);
    printf("\nfifo:\n  default_timeslice    %llu us\n  min_timeslice        %llu us\n"
           "  max_channel_groups   %u\n  compute_preempt_mode %s\n",
           (unsigned long long)p->default_timeslice_us, (unsigned long long)p->min_timeslice_us,
           p->max_channel_groups,
           p->default_compute_preempt_mode < 3 ? profile_preempt_mode_names[p->default_compute_preempt_mode] : "?");
    printf("timing:\n");
    const struct profile_timing *t = &p->timing;
    show_us("ctxsw", t->ctxsw_ns);
    show_us("runlist_update", t->runlist_update_ns);
    show_us("wfi_overhead", t->wfi_overhead_ns);
    show_us("cta_overhead", t->cta_overhead_ns);
    show_us("cilp_save", t->cilp_save_ns);
    show_us("preempt_timeout", t->preempt_timeout_ns);
    show_us("idle_save", t->idle_save_ns);
    show_us("restore_busy", t->restore_busy_ns);
    show_us("cilp_save_per_sm", t->cilp_save_per_sm_ns);
    show_us("cilp_resave", t->cilp_resave_ns);
    show_us("cilp_restore", t->cilp_restore_ns);
    show_us("cilp_restore_per_sm", t->cilp_restore_per_sm_ns);
    show_us("short_slice_restore", t->short_slice_restore_ns);
    show_us("short_slice_restore_per_us", t->short_slice_restore_per_us_ns);
    show_us("lock_left", t->lock_left_ns);
    show_us("lock_ran", t->lock_ran_ns);
    show_flag("wait_hides_gap", t->wait_hides_gap);
    show_us("save_per_kb", t->save_ns_per_kb);
    show_us("restore_per_kb", t->restore_ns_per_kb);
    show_us("restore_per_thread_kb", t->restore_ns_per_thread_kb);
    show_us("restore_per_sm_kb", t->restore_ns_per_sm_kb);
    printf("  %-22s %u bytes\n", "restore_thread_free", t->restore_thread_free_bytes);
    printf("  %-22s %llu ns\n", "timeslice_tick", (unsigned long long)(t->timeslice_tick_ns ? t->timeslice_tick_ns : 1000));
    show_flag("yield_skips_late", t->yield_skips_late_work);
    show_us("yield_skip_min_run", t->yield_skip_min_run_ns);
    show_flag("expiry_skips_late", t->expiry_skips_late_work);
    show_us("wake_after", t->wake_after_ns);
    show_us("wake_per_ms", t->wake_per_ms_ns);
    show_us("wake_max", t->wake_max_ns);
    show_us("kernel_gap", t->kernel_gap_ns);
    show_us("kernel_gap_overlap", t->kernel_gap_overlap_ns);
    show_us("overlap_wave", t->overlap_wave_ns);
    show_us("launch", t->launch_ns);
    show_us("completion", t->completion_ns);
    show_us("host_jitter", t->host_jitter_ns);
    profile_print_provenance(p, stdout);
    profile_free(p);
    return 0;
}

static int cmd_check(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    int rc = 0;
    for (int i = 1; i < argc; i++) {
        char err[512];
        struct profile *p = profile_load(argv[i], err, sizeof err);
        if (!p) {
            fprintf(stderr, "%s\n", err);
            rc = 2;
            continue;
        }
        printf("%s: ok (%s, %s, %u GPU%s)\n", argv[i], p->name, p->chip, p->gpu_count, p->gpu_count == 1 ? "" : "s");
        profile_free(p);
    }
    return rc;
}

int cli_check_profile(const char *cmd, const char *name)
{
    char err[512];
    struct profile *p = profile_load(name, err, sizeof err);
    if (!p) {
        fprintf(stderr, "nvemu %s: %s (built-in profiles: nvemu profile list)\n", cmd, err);
        return 2;
    }
    profile_free(p);
    return 0;
}

int nvemu_cmd_profile(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
        usage(stdout);
        return 0;
    }
    if (!strcmp(argv[1], "list"))
        return cmd_list(argc - 1, argv + 1);
    if (!strcmp(argv[1], "show"))
        return cmd_show(argc - 1, argv + 1);
    if (!strcmp(argv[1], "check"))
        return cmd_check(argc - 1, argv + 1);
    if (!strcmp(argv[1], "provenance"))
        return nvemu_profile_provenance(argc - 1, argv + 1);
    if (!strcmp(argv[1], "from-trace"))
        return nvemu_profile_from_trace(argc - 1, argv + 1);
    fprintf(stderr, "nvemu profile: unknown subcommand '%s'\n", argv[1]);
    usage(stderr);
    return 2;
}
