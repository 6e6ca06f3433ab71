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

/* `nvemu scenario sweep` and `sweep-merge` (cmd_scenario_sweep.c); argv[0] is the subcommand. */
int nvemu_scenario_sweep(int argc, char **argv);
int nvemu_scenario_sweep_merge(int argc, char **argv);

#endif
