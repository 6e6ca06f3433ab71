/* `nvemu replay [--profile NAME|FILE] [--other-client-on-gpu] [--verbose] [--mismatch-file PATH] TRACE...` */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/log.h"
#include "cli.h"
#include "profile/profile.h"
#include "replay.h"

#define TRACE_FORMAT "an RM trace has one 'IOCTL ...' line per call, as 'nvemu record' writes (fixtures/replay/README.md)"

static int usage(FILE *out, int status)
{
    fprintf(out, "usage: nvemu replay [--profile NAME|FILE] [--driver 550|575|580] [--other-client-on-gpu]\n"
                    "                    [--verbose] [--mismatch-file PATH] TRACE [TRACE...]\n"
                    "  Re-issues every RM alloc/control/free and OS escape of a recorded trace against a fresh\n"
                    "  emulator and compares results; exits 0 when every call matches, 1 on any mismatch, 2 on\n"
                    "  a usage error or a TRACE that cannot be read or is not a trace. When calls differ, it\n"
                    "  tries the built-in profiles and says which one the trace matches better (a trace\n"
                    "  recorded on another board: fixtures/hw/ needs --profile h200-dev).\n"
                    "  Several TRACEs are the processes of one program (one trace each, as 'nvemu record'\n"
                    "  writes them): they are replayed together against one emulator, each with its own fds\n"
                    "  and pid, so that RM objects one exports through a file descriptor (OS_UNIX\n"
                    "  EXPORT_OBJECTS_TO_FD, as NCCL does) reach the one that imports them. Traces with call\n"
                    "  times (t=) go in the order the calls were issued; without, in the order given, and an\n"
                    "  answer only that order decides (a channel id, another process's memory) is counted\n"
                    "  apart as 'order', not as a mismatch.\n"
                    "  --profile         the GPU profile (default h200; built in: h200, h200-dev, h200-2b42,\n"
                    "                    h100, a100, l4, t4, v100) or a profile file.\n"
                    "  --driver          the driver release the trace was recorded on (default: the profile's\n"
                    "                    driver_version): its layouts and version strings answer.\n"
                    "  --other-client-on-gpu  before the first call, another process opens /dev/nvidiactl and\n"
                    "                    /dev/nvidia0 and allocates a client and a device on GPU 0, and holds\n"
                    "                    them until the end: for traces recorded while another program still\n"
                    "                    held the GPU (the driver then reports it in use, e.g. NV0000\n"
                    "                    GET_ID_INFO(_V2) gpuFlags bit 0, before the trace's own device exists).\n"
                    "  --verbose         one line per call.\n"
                    "  --mismatch-file   also writes the mismatch lines to PATH (each names the part of the\n"
                    "                    emulator that answers the call).\n");
    return status;
}

/*
 * The file must be a readable text file whose first line that is not blank or a '#' comment is a
 * recorded call; otherwise one message says why (rather than one parse error per line).
 */
static int check_trace_file(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
        return -1;
    }
    if (S_ISDIR(st.st_mode)) {
        fprintf(stderr, "replay: %s is a directory, not a trace file\n", path);
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        fprintf(stderr, "replay: %s is not a regular file (a pipe or device cannot be replayed)\n", path);
        return -1;
    }
    /* O_NONBLOCK: a file that only looks regular (/proc/kmsg) answers EAGAIN instead of blocking */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    FILE *f = fd >= 0 ? fdopen(fd, "r") : NULL;
    if (!f) {
        if (fd >= 0)
            close(fd);
        fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
        return -1;
    }
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    int lineno = 0, rc = 1;
    /* a gzip-compressed trace (magic 1f 8b) is decompressed, and checked, by the replay itself */
    int c0 = fgetc(f), c1 = fgetc(f);
    if (c0 == 0x1f && c1 == 0x8b)
        rc = 0;
    rewind(f);
    while (rc == 1 && (n = getline(&line, &cap, f)) > 0) {
        lineno++;
        size_t skip = strspn(line, " \t\r\n");
        if (memchr(line, '\0', (size_t)n)) {
            fprintf(stderr, "replay: %s is not an RM trace (binary data on line %d); " TRACE_FORMAT "\n", path,
                    lineno);
            rc = -1;
        } else if (line[skip] == '\0' || line[skip] == '#') {
            continue;
        } else if (strncmp(line, "IOCTL ", 6) != 0) {
            line[strcspn(line, "\r\n")] = '\0';
            fprintf(stderr, "replay: %s is not an RM trace (line %d starts '%.24s%s'); " TRACE_FORMAT "\n", path,
                    lineno, line, strlen(line) > 24 ? "..." : "");
            rc = -1;
        } else {
            rc = 0;
        }
    }
    if (rc == 1 && ferror(f)) {
        fprintf(stderr, "replay: %s: cannot be read (%s)\n", path, strerror(errno));
        rc = -1;
    }
    if (rc == 1)
        fprintf(stderr, "replay: %s is empty: no recorded call; " TRACE_FORMAT "\n", path);
    free(line);
    fclose(f);
    return rc == 0 ? 0 : -1;
}

/* A --profile that is neither a built-in name nor a file: say which names exist. */
static int check_profile(const char *name)
{
    struct stat st;
    if (!name || strchr(name, '/') || stat(name, &st) == 0)
        return 0;
    const char *const *names = profile_builtin_names();
    for (size_t i = 0; names[i]; i++)
        if (strcmp(names[i], name) == 0)
            return 0;
    fprintf(stderr, "replay: --profile %s: no built-in profile and no file of that name; built in:", name);
    for (size_t i = 0; names[i]; i++)
        fprintf(stderr, "%s %s", i ? "," : "", names[i]);
    fputc('\n', stderr);
    return -1;
}

/*
 * When calls differ, the trace may come from another board: replays it under every built-in profile,
 * with and without another client on the GPU, and names the setting with the fewest mismatches (then
 * the fewest board-identity differences) when it has fewer mismatches than this run.
 */
static void hint_better_profile(const char *trace, const struct replay_opts *given, uint32_t mismatches)
{
    FILE *sink = fopen("/dev/null", "w");
    if (!sink)
        return;
    /* the trial replays' warnings are not the user's business */
    nvemu_log_set_level(NVEMU_LOG_ERROR);
    const char *const *names = profile_builtin_names();
    struct replay_opts best = *given;
    uint32_t best_n = mismatches, best_board = UINT32_MAX;
    for (size_t i = 0; names[i]; i++) {
        for (int other = 0; other < 2; other++) {
            struct replay_opts o = {.profile = names[i], .other_client_on_gpu = other};
            struct replay_result res;
            /* among equally few mismatches, the board's own profile answers its per-board values too */
            if (replay_file(trace, &o, sink, &res) == 0 &&
                (res.mismatches < best_n || (res.mismatches == best_n && res.board_identity < best_board))) {
                best = o;
                best_n = res.mismatches;
                best_board = res.board_identity;
            }
        }
    }
    fclose(sink);
    if (best_n >= mismatches)
        return;
    fprintf(stderr,
            "hint: with --profile %s%s this trace replays with %u mismatch%s instead of %u: it was likely "
            "recorded on the GPU that profile describes%s\n",
            best.profile, best.other_client_on_gpu ? " --other-client-on-gpu" : "", best_n, best_n == 1 ? "" : "es",
            mismatches,
            best.other_client_on_gpu && !given->other_client_on_gpu
                ? ", while another program held the GPU"
                : "");
}

int nvemu_cmd_replay(int argc, char **argv)
{
    struct replay_opts opts = {0};
    const char *traces[REPLAY_MAX_PROCESSES], *mfile = NULL;
    uint32_t ntraces = 0;
    for (int i = 1; i < argc; i++) {
        bool valued = !strcmp(argv[i], "--profile") || !strcmp(argv[i], "--mismatch-file") ||
                      !strcmp(argv[i], "--driver");
        if (valued && i + 1 == argc) {
            fprintf(stderr, "replay: %s needs a value\n", argv[i]);
            return usage(stderr, 2);
        }
        if (!strcmp(argv[i], "--profile")) {
            opts.profile = argv[++i];
        } else if (!strcmp(argv[i], "--driver")) {
            opts.driver = argv[++i];
        } else if (!strcmp(argv[i], "--mismatch-file")) {
            mfile = argv[++i];
        } else if (!strcmp(argv[i], "--other-client-on-gpu")) {
            opts.other_client_on_gpu = true;
        } else if (!strcmp(argv[i], "--verbose")) {
            opts.verbose = true;
        } else if (cli_is_help(argv[i])) {
            return usage(stdout, 0);
        } else if (argv[i][0] == '-' && argv[i][1]) {
            fprintf(stderr, "replay: unknown option %s\n", argv[i]);
            return usage(stderr, 2);
        } else if (ntraces == REPLAY_MAX_PROCESSES) {
            fprintf(stderr, "replay: at most %u TRACEs are replayed together\n", REPLAY_MAX_PROCESSES);
            return usage(stderr, 2);
        } else {
            traces[ntraces++] = argv[i];
        }
    }
    if (ntraces == 0) {
        fprintf(stderr, "replay: no TRACE given\n");
        return usage(stderr, 2);
    }
    if (check_profile(opts.profile))
        return 2;
    for (uint32_t i = 0; i < ntraces; i++)
        if (check_trace_file(traces[i]))
            return 2;
    /* Mismatch lines go to a memory stream first so they can be copied to --mismatch-file too. */
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    if (!mem) {
        perror("replay");
        return 2;
    }
    struct replay_result res;
    int rc = replay_files(traces, ntraces, &opts, mem, &res);
    fclose(mem);
    fputs(text ? text : "", rc ? stderr : stdout);
    if (rc != 0) {
        free(text);
        return 2;
    }
    printf("replay: %u calls, %u mismatches (%u UVM ioctls replayed, %u recorded without parameter blocks skipped: "
           "%u UVM, %u RM allocs and calls on their objects, %u controls without their embedded lists; "
           "%u VA-space registrations inferred)\n",
           res.calls, res.mismatches, res.uvm_calls, res.skipped_uvm + res.skipped_rm + res.skipped_lists,
           res.skipped_uvm, res.skipped_rm, res.skipped_lists, res.uvm_inferred);
    if (res.board_identity)
        printf("board identity: %u calls answered with another board's values (UUID, serial, floorsweeping, ECC, PCI "
               "location): the trace came from another board of the same kind; 'nvemu profile from-trace' derives "
               "a profile of that board\n",
               res.board_identity);
    if (res.order)
        printf("order: %u answers depend on how the processes interleaved, which these traces do not record; a "
               "recorder with t= records it\n",
               res.order);
    fflush(stdout);
    if (mfile) {
        FILE *f = fopen(mfile, "w");
        if (!f) {
            perror(mfile);
            free(text);
            return 2;
        }
        fprintf(f, "# nvemu replay %s%s%s%s", opts.profile ? "--profile " : "", opts.profile ? opts.profile : "",
                opts.profile ? " " : "", opts.other_client_on_gpu ? "--other-client-on-gpu " : "");
        for (uint32_t i = 0; i < ntraces; i++)
            fprintf(f, "%s%s", i ? " " : "", traces[i]);
        fprintf(f, ": %u calls, %u mismatches ([MODULE]: the part of the emulator that answers the call)\n", res.calls,
                res.mismatches);
        if (text)
            fputs(text, f);
        fclose(f);
    }
    free(text);
    struct stat st;
    /* a pipe cannot be read again; processes replayed together are not tried one by one */
    if (res.mismatches && ntraces == 1 && stat(traces[0], &st) == 0 && S_ISREG(st.st_mode))
        hint_better_profile(traces[0], &opts, res.mismatches);
    return res.mismatches ? 1 : 0;
}
