/* What the nvemu subcommands share. */
#ifndef NVEMU_CLI_H
#define NVEMU_CLI_H

#include <stdbool.h>
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
 * callback longer than hook_limit_s: the reason names the policy, the hook
 * and the task when policy code was running.
 */
struct hooks_watch;
int cli_guarded(int (*fn)(void *, struct hooks_watch *), void *arg, double timeout_s, double hook_limit_s, char *why,
                size_t len);

/* The scenario backend `--backend NAME` names (backend.h), or NULL after an error message naming the backends. */
struct sc_backend;
const struct sc_backend *cli_backend(const char *name);

/* `nvemu scenario sweep` and `sweep-merge` (cmd_scenario_sweep.c); argv[0] is the subcommand. */
int nvemu_scenario_sweep(int argc, char **argv);
int nvemu_scenario_sweep_merge(int argc, char **argv);

#endif
