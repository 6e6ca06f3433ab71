/*
 * `nvemu profile from-trace TRACE [--profile BASE] [--name NAME] [-o FILE]`: the profile of the board a trace was
 * recorded on, so that its own board is reproduced exactly (tools/replay/derive.h); `nvemu profile provenance
 * NAME`: which parts of a profile are measured, derived or assumed (profile_print_provenance).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "cli.h"
#include "derive.h"
#include "profile/profile.h"
#include "profile/profile_builtin.h"
#include "replay.h"
#include "yaml/ytree.h"

static int usage(FILE *out, int status)
{
    fprintf(out, "usage: nvemu profile from-trace TRACE [--profile BASE] [--name NAME] [-o FILE]\n"
                 "  Writes a profile of the board TRACE was recorded on: the profile BASE (default: the built-in\n"
                 "  profile the trace replays against with the fewest mismatches) with the trace's per-board answers\n"
                 "  (GPU UUID, board serial, floorsweeping masks, ECC counters, PCI location) in place of BASE's.\n"
                 "  'nvemu replay --profile FILE TRACE' then reports neither mismatches nor board identity there.\n"
                 "  --profile  the base profile (a built-in name or a file)\n"
                 "  --name     the new profile's name (default BASE-board)\n"
                 "  -o         write to FILE instead of stdout\n");
    return status;
}

/* The built-in profile the trace replays against with the fewest mismatches (board identity not counted). */
static const char *best_builtin(const char *trace)
{
    const char *best = NULL;
    uint32_t best_n = UINT32_MAX;
    FILE *sink = fopen("/dev/null", "w");
    /* the trial replays' warnings are not the user's business */
    nvemu_log_set_level(NVEMU_LOG_ERROR);
    for (const struct profile_builtin *b = profile_builtins; sink && b->name; b++) {
        struct replay_opts o = {.profile = b->name};
        struct replay_result res;
        if (replay_file(trace, &o, sink, &res) == 0 && res.mismatches < best_n) {
            best = b->name;
            best_n = res.mismatches;
        }
    }
    if (sink)
        fclose(sink);
    return best;
}

int nvemu_profile_from_trace(int argc, char **argv)
{
    const char *trace = NULL, *base = NULL, *name = NULL, *outpath = NULL;
    for (int i = 1; i < argc; i++) {
        bool valued = !strcmp(argv[i], "--profile") || !strcmp(argv[i], "--name") || !strcmp(argv[i], "-o");
        if (valued && i + 1 == argc) {
            fprintf(stderr, "profile from-trace: %s needs a value\n", argv[i]);
            return usage(stderr, 2);
        }
        if (!strcmp(argv[i], "--profile"))
            base = argv[++i];
        else if (!strcmp(argv[i], "--name"))
            name = argv[++i];
        else if (!strcmp(argv[i], "-o"))
            outpath = argv[++i];
        else if (cli_is_help(argv[i]))
            return usage(stdout, 0);
        else if (argv[i][0] == '-' && argv[i][1])
            return fprintf(stderr, "profile from-trace: unknown option %s\n", argv[i]), usage(stderr, 2);
        else if (trace)
            return fprintf(stderr, "profile from-trace: one TRACE only\n"), usage(stderr, 2);
        else
            trace = argv[i];
    }
    if (!trace) {
        fprintf(stderr, "profile from-trace: no TRACE given\n");
        return usage(stderr, 2);
    }
    if (!base && !(base = best_builtin(trace))) {
        fprintf(stderr, "profile from-trace: %s does not replay against any built-in profile\n", trace);
        return 2;
    }
    const char *text = NULL;
    char *owned = NULL;
    size_t len = 0;
    for (const struct profile_builtin *b = profile_builtins; b->name && !text; b++)
        if (!strcmp(b->name, base)) {
            text = b->text;
            len = b->len;
        }
    char err[512] = "";
    if (!text && !(text = owned = ytree_read_file(base, 1u << 24, &len, err, sizeof err))) {
        fprintf(stderr, "profile from-trace: base profile %s: %s\n", base, err[0] ? err : "cannot be read");
        return 2;
    }
    char defname[40];
    snprintf(defname, sizeof defname, "%.24s-board", strrchr(base, '/') ? strrchr(base, '/') + 1 : base);
    FILE *out = outpath ? fopen(outpath, "w") : stdout;
    if (!out) {
        perror(outpath);
        free(owned);
        return 2;
    }
    int n = replay_derive_profile(trace, base, text, len, name ? name : defname, out, err, sizeof err);
    if (outpath && fclose(out) != 0 && n >= 0) {
        perror(outpath);
        n = -1;
    }
    free(owned);
    if (n < 0) {
        fprintf(stderr, "profile from-trace: %s\n", err);
        return 2;
    }
    fprintf(stderr, "profile from-trace: %d per-board answers of %s over the profile %s\n", n, trace, base);
    return 0;
}

int nvemu_profile_provenance(int argc, char **argv)
{
    if (argc != 2 || cli_is_help(argv[1])) {
        bool help = argc == 2;
        fprintf(help ? stdout : stderr, "usage: nvemu profile provenance NAME|FILE\n"
                                        "  Prints which parts of the profile are measured, derived or assumed.\n");
        return help ? 0 : 2;
    }
    char err[512];
    struct profile *p = profile_load(argv[1], err, sizeof err);
    if (!p) {
        fprintf(stderr, "nvemu profile: %s\n", err);
        return 2;
    }
    profile_print_provenance(p, stdout);
    profile_free(p);
    return 0;
}
