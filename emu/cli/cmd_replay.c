/* `nvemu replay [--profile NAME|FILE] [--other-client-on-gpu] [--verbose] [--mismatch-file PATH] FILE` */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "replay.h"

static int usage(FILE *out, int status)
{
    fprintf(out, "usage: nvemu replay [--profile NAME|FILE] [--other-client-on-gpu] [--verbose]\n"
                    "                    [--mismatch-file PATH] TRACE\n"
                    "  Re-issues every RM alloc/control/free and OS escape of a recorded trace against a fresh\n"
                    "  emulator and compares results; exits 1 on any mismatch, 2 on usage/IO errors.\n"
                    "  --other-client-on-gpu  before the first call, another process opens /dev/nvidiactl and\n"
                    "                    /dev/nvidia0 and allocates a client and a device on GPU 0, and holds\n"
                    "                    them until the end: for traces recorded while another program still\n"
                    "                    held the GPU (the driver then reports it in use, e.g. NV0000\n"
                    "                    GET_ID_INFO(_V2) gpuFlags bit 0, before the trace's own device exists).\n"
                    "  --mismatch-file also writes the mismatch lines (with owners) to PATH.\n");
    return status;
}

int nvemu_cmd_replay(int argc, char **argv)
{
    struct replay_opts opts = {0};
    const char *trace = NULL, *mfile = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--profile") && i + 1 < argc)
            opts.profile = argv[++i];
        else if (!strcmp(argv[i], "--other-client-on-gpu"))
            opts.other_client_on_gpu = true;
        else if (!strcmp(argv[i], "--verbose"))
            opts.verbose = true;
        else if (!strcmp(argv[i], "--mismatch-file") && i + 1 < argc)
            mfile = argv[++i];
        else if (cli_is_help(argv[i]))
            return usage(stdout, 0);
        else if (argv[i][0] == '-' || trace)
            return usage(stderr, 2);
        else
            trace = argv[i];
    }
    if (!trace)
        return usage(stderr, 2);
    /* Mismatch lines go to a memory stream first so they can be copied to --mismatch-file too. */
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    if (!mem) {
        perror("replay");
        return 2;
    }
    struct replay_result res;
    int rc = replay_file(trace, &opts, mem, &res);
    fclose(mem);
    fputs(text ? text : "", stdout);
    if (rc != 0) {
        free(text);
        return 2;
    }
    printf("replay: %u calls, %u mismatches (%u UVM ioctls skipped)\n", res.calls, res.mismatches, res.skipped_uvm);
    if (mfile) {
        FILE *f = fopen(mfile, "w");
        if (!f) {
            perror(mfile);
            free(text);
            return 2;
        }
        fprintf(f, "# nvemu replay %s%s%s%s%s: %u calls, %u mismatches ([MODULE]: the module that"
                   " answers the call)\n",
                opts.profile ? "--profile " : "", opts.profile ? opts.profile : "", opts.profile ? " " : "",
                opts.other_client_on_gpu ? "--other-client-on-gpu " : "", trace, res.calls, res.mismatches);
        if (text)
            fputs(text, f);
        fclose(f);
    }
    free(text);
    return res.mismatches ? 1 : 0;
}
