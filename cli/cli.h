/* What the nvemu subcommands share. */
#ifndef NVEMU_CLI_H
#define NVEMU_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* True for -h and --help: every subcommand prints its usage on stdout and exits 0 for them. */
static inline bool cli_is_help(const char *arg)
{
    return strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0;
}

/*
 * Runs fn(arg, watch) in a child process and returns its exit status; fn hands watch to every emulator
 * or policy it creates (nvemu_config.policy_watch, hooks_env.watch), where their policy callbacks
 * record where they are. Returns -1
 * with a one-line reason in why when the child crashed, ended without
 * finishing, ran past timeout_s (0: no limit) or stayed inside one policy
 * callback longer than hook_limit_s: the reason names the policy, the hook,
 * the task and the virtual time when policy code was running, and
 * *stopped_ns (may be NULL) is that virtual time (0 when none is known).
 */
struct hooks_watch;
int cli_guarded(int (*fn)(void *, struct hooks_watch *), void *arg, double timeout_s, double hook_limit_s, char *why,
                size_t len, uint64_t *stopped_ns);

/* The scenario backend `--backend NAME` names (backend.h), or NULL after an error message naming the backends. */
struct sc_backend;
const struct sc_backend *cli_backend(const char *name);

/* "task" or "tasks" for n (the summary lines say "1 task", "2 tasks"). */
static inline const char *cli_plural(unsigned n, const char *one, const char *many)
{
    return n == 1 ? one : many;
}

/* dir without its trailing slashes ("results/" -> "results", "/" stays), in place: paths built from it as
 * "dir/file" then have one slash. */
static inline char *cli_trim_dir(char *dir)
{
    size_t n = strlen(dir);
    while (n > 1 && dir[n - 1] == '/')
        dir[--n] = '\0';
    return dir;
}

/*
 * Loads profile `name` (a built-in name or a file) and frees it: every command checks its --profile this way
 * before it starts anything, so an unknown profile is the same usage error everywhere. Returns 0, or 2 after
 * "nvemu CMD: MESSAGE" on stderr (cmd_profile.c).
 */
int cli_check_profile(const char *cmd, const char *name);

/*
 * `nvemu scenario run DIR|FILE... [--seeds N]` (cmd_scenario_suite.c): every scenario file (a directory gives
 * its *.yaml), each into OUT/NAME (with --seeds, or for a file with expectations over N seeds, a seed set:
 * OUT/NAME/seed-K for K = base..base+N-1, base --seed or 1, and OUT/NAME/seeds.json; one file as a seed set:
 * OUT is the set). Every file is loaded before anything runs (an invalid one: exit 2). Then a summary table,
 * OUT/junit.xml (and --junit FILE) with every run's test suite and the expectations over seeds,
 * OUT/suite.json. Returns the worst exit status of the runs (3, then 1, then 0).
 */
struct cli_suite {
    const char *const *files;
    size_t nfiles;
    unsigned seeds;                 /* 0: one run per file */
    const uint64_t *base_seed;      /* NULL: 1 */
    const char *out_dir, *junit;
    bool quiet;
    /* one run of file into out_dir (seed NULL: the file's own): its exit status */
    int (*run)(void *ctx, const char *file, const char *out_dir, const uint64_t *seed);
    /* 0 when file loads with the options, else 2 (message printed) */
    int (*check)(void *ctx, const char *file);
    /* the seeds file's expectations need (0: none over seeds) */
    unsigned (*seeds_needed)(void *ctx, const char *file);
    /* judges file's expectations over seeds on the seed set in dir (printing them, writing
     * dir/junit-seeds.xml): 0 all met, 1 one failed, 3 could not judge */
    int (*judge)(void *ctx, const char *file, const char *dir, uint64_t base_seed);
    void *ctx;
};
int cli_scenario_suite(const struct cli_suite *su);

/* `nvemu scenario sweep` and `sweep-merge` (cmd_scenario_sweep.c); argv[0] is the subcommand. */
int nvemu_scenario_sweep(int argc, char **argv);
int nvemu_scenario_sweep_merge(int argc, char **argv);

/* `nvemu profile from-trace` and `provenance` (cmd_profile_from_trace.c); argv[0] is the subcommand. */
int nvemu_profile_from_trace(int argc, char **argv);
int nvemu_profile_provenance(int argc, char **argv);

#endif
