/* `nvemu bench [--json] [--quick] [--check] [--filter SUBSTR] [--profile NAME|FILE]`: runs the bench rows (bench/). */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "bench.h"
#include "cli.h"
#include "bench_tables.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: nvemu bench [--json] [--quick] [--check] [--filter SUBSTR] [--profile NAME|FILE]\n"
               "  --json    machine-readable output\n"
               "  --profile the GPU profile the benchmarks' emulators use (default h200)\n"
               "  --quick   shorter runs (smoke test)\n"
               "  --check   exit 1 when a row misses its target (a row that cannot run always exits 1)\n");
}

int nvemu_cmd_bench(int argc, char **argv)
{
    bool json = false, check = false;
    const char *filter = NULL;
    struct bench_ctx ctx = {.seconds = 1.0, .profile = "h200"};
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--json") == 0)
            json = true;
        else if (strcmp(argv[i], "--quick") == 0)
            ctx.seconds = 0.1;
        else if (strcmp(argv[i], "--check") == 0)
            check = true;
        else if (strcmp(argv[i], "--filter") == 0 && i + 1 < argc)
            filter = argv[++i];
        else if (strcmp(argv[i], "--profile") == 0 && i + 1 < argc)
            ctx.profile = argv[++i];
        else if (cli_is_help(argv[i])) {
            usage(stdout);
            return 0;
        } else {
            usage(stderr);
            return 2;
        }
    }
    if (cli_check_profile("bench", ctx.profile))
        return 2;
    bool all_ok = true, first = true, any_error = false;
    if (json)
        printf("{\"rows\":[");
    else
        printf("%-32s %16s %-10s %14s %8s  %s\n", "row", "value", "unit", "target", "ratio", "note");
    for (const struct bench_row *const *t = bench_tables; *t; t++)
        for (const struct bench_row *r = *t; r->name; r++) {
            if (filter && !strstr(r->name, filter))
                continue;
            struct bench_result res = {0};
            int rc = r->run(&ctx, &res);
            double ratio = 0;
            bool ok = rc == 0;
            if (ok && r->target > 0) {
                ratio = r->higher_is_better ? res.value / r->target : r->target / (res.value > 0 ? res.value : 1e-300);
                ok = ratio >= 1.0;
            }
            all_ok = all_ok && ok;
            any_error = any_error || rc != 0;
            if (json) {
                printf("%s{\"name\":\"%s\",\"value\":%.6g,\"unit\":\"%s\",\"target\":%.6g,"
                       "\"higher_is_better\":%s,\"ratio\":%.4g,\"pass\":%s,\"error\":%s,\"note\":\"%s\"}",
                       first ? "" : ",", r->name, res.value, r->unit, r->target,
                       r->higher_is_better ? "true" : "false", ratio, ok ? "true" : "false",
                       rc ? "true" : "false", res.note);
            } else if (rc) {
                printf("%-32s %16s %-10s %14.6g %8s  %s\n", r->name, "ERROR", r->unit, r->target, "-", res.note);
            } else {
                printf("%-32s %16.6g %-10s %14.6g %8.3g  %s%s\n", r->name, res.value, r->unit, r->target, ratio,
                       r->target > 0 && !ok ? "MISSED " : "", res.note);
            }
            first = false;
            fflush(stdout); /* one row at a time, also into a pipe */
        }
    if (json)
        printf("],\"pass\":%s}\n", all_ok ? "true" : "false");
    /* A row that could not run is a failure; a missed target fails only with --check. */
    return any_error || (check && !all_ok) ? 1 : 0;
}
