/*
 * `nvemu`: one executable, one subcommand per job. The subcommand table is
 * generated from the nvemu_add_command() registrations in the CMake files, so
 * adding a subcommand never touches this file.
 */
#include <stdio.h>
#include <string.h>

#include "nvemu_commands.h"

struct command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
};

static const struct command commands[] = {
    NVEMU_COMMAND_ROWS
    {NULL, NULL, NULL},
};

static void usage(FILE *out)
{
    fprintf(out, "usage: nvemu COMMAND [ARGS...]\n       nvemu --version\n\ncommands:\n");
    for (const struct command *c = commands; c->name; c++)
        fprintf(out, "  %-10s %s\n", c->name, c->summary);
    fprintf(out, "\n`nvemu COMMAND --help` describes each command.\n");
}

/* One command name per line: the man page and the shell completion are generated from it. */
static void list_commands(void)
{
    for (const struct command *c = commands; c->name; c++)
        printf("%s\t%s\n", c->name, c->summary);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "help") == 0) {
        usage(stdout);
        return 0;
    }
    if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0) {
        printf("nvemu %s\n", NVEMU_VERSION);
        return 0;
    }
    if (strcmp(argv[1], "--list-commands") == 0) {
        list_commands();
        return 0;
    }
    for (const struct command *c = commands; c->name; c++)
        if (strcmp(argv[1], c->name) == 0)
            return c->run(argc - 1, argv + 1);
    fprintf(stderr, "nvemu: unknown command '%s'\n", argv[1]);
    usage(stderr);
    return 2;
}
