/* `nvemu daemon`: serves one emulator's nodes to other processes (FUSE mount or CUSE devices). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "front/front.h"

static void daemon_usage(FILE *out)
{
    fprintf(out, "usage: nvemu daemon (--mount DIR | --cuse) [options]\n"
                 "Serves nvidiactl, nvidia0..N-1 and nvidia-uvm from one emulator.\n\noptions:\n");
    front_opts_usage(out, true);
}

int nvemu_cmd_daemon(int argc, char **argv)
{
    struct front_opts o;
    front_opts_init(&o);
    for (int i = 1; i < argc;) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            daemon_usage(stdout);
            return 0;
        }
        int r = front_opts_parse(&o, argc, argv, &i);
        if (r < 0)
            return 2;
        if (r == 0) {
            fprintf(stderr, "nvemu daemon: unknown option '%s'\n", argv[i]);
            daemon_usage(stderr);
            return 2;
        }
    }
    if (!o.mount && !o.cuse) {
        daemon_usage(stderr);
        return 2;
    }
    if (o.cfg.profile && cli_check_profile("daemon", o.cfg.profile))
        return 2;
    return front_serve(&o);
}
