/*
 * `nvemu scenario sweep FILE --set PATH=V1,V2,... [--set ...] [--seeds N] [--jobs N] [--shard I/N]
 *                        [--metric COLUMN]... --out DIR`
 * `nvemu scenario sweep-merge --out DIR SHARD_DIR...`
 * Exit status: 0 every point met its expectations; 1 a point failed one; 2 usage or an invalid
 * scenario; 3 a point could not run or the tables could not be written.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backends.h"
#include "base/util.h"
#include "cli.h"
#include "sweep.h"

#define MAX_METRICS 32

static void usage(FILE *f)
{
    fprintf(f,
            "usage: nvemu scenario sweep FILE --set PATH=V1,V2,... [--set ...] [--seeds N] [--jobs N]\n"
            "                            [--shard I/N] [--metric COLUMN]... [--backend emu|hw] [--hw] --out DIR\n"
            "       nvemu scenario sweep-merge --out DIR [--metric COLUMN]... SHARD_DIR...\n\n"
            "sweep        runs FILE at every point of the grid of --set values (times --seeds N seeds, 1..N),\n"
            "             each point in its own process, --jobs at a time (default: every core), and writes\n"
            "             DIR/sweep.csv and DIR/sweep.json (one row per point: parameters, seed, pass, every\n"
            "             metric) and DIR/sweep.html (each --metric, default every task's p99_us and rps,\n"
            "             against each parameter). PATH is a dotted path into the scenario: a sequence item\n"
            "             by index or by its name (tasks.be.count, policy.args.be_us, duration).\n"
            "             --shard I/N runs only points with index %% N == I-1 (I = 1..N), for CI matrices\n"
            "             or job arrays. --backend hw (or --hw) runs every point on the real GPU, one at a\n"
            "             time; --backend emu, the emulator, is the default.\n"
            "sweep-merge  joins the --out directories of every shard into DIR, identical to the unsharded\n"
            "             sweep's output.\n");
}

static int parse_u32(const char *opt, const char *v, uint32_t min, uint32_t max, uint32_t *out)
{
    char *end;
    errno = 0;
    unsigned long n = strtoul(v, &end, 10);
    if (!*v || *end || errno || v[0] == '-' || n < min || n > max) {
        fprintf(stderr, "nvemu scenario: %s needs a whole number in %u..%u, not '%s'\n", opt, min, max, v);
        return -1;
    }
    *out = (uint32_t)n;
    return 0;
}

/* DIR must be a directory (created with its missing parents, as run --out does); a regular file there is a
 * usage error. */
static int out_dir(const char *dir)
{
    struct stat st;
    char err[512];
    if (stat(dir, &st) == 0 && !S_ISDIR(st.st_mode)) {
        fprintf(stderr, "nvemu scenario: --out %s is not a directory\n", dir);
        return 2;
    }
    if (nvemu_mkdir_p(dir, err, sizeof err) != 0) {
        fprintf(stderr, "nvemu scenario: %s\n", err);
        return 3;
    }
    return 0;
}

static int finish(struct sweep *sw, const char *dir, const char *const *metrics, size_t nmetrics)
{
    char err[512];
    if (sweep_write(sw, dir, metrics, nmetrics, err, sizeof err) != 0) {
        fprintf(stderr, "nvemu scenario: %s\n", err);
        sweep_free(sw);
        return 3;
    }
    size_t failed, broken;
    sweep_outcome(sw, &failed, &broken);
    size_t rows = 0;
    for (size_t i = 0; i < sw->points; i++)
        rows += sw->rows[i] != NULL;
    printf("sweep: %zu points, %zu failed an expectation, %zu could not run: %s/{sweep.csv,sweep.json,sweep.html}\n",
           rows, failed, broken, dir);
    sweep_free(sw);
    return broken ? 3 : failed ? 1 : 0;
}

int nvemu_scenario_sweep(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"set", required_argument, NULL, 'S'},   {"seeds", required_argument, NULL, 'n'},
        {"jobs", required_argument, NULL, 'j'},  {"shard", required_argument, NULL, 'x'},
        {"metric", required_argument, NULL, 'm'}, {"out", required_argument, NULL, 'o'},
        {"backend", required_argument, NULL, 'b'}, {"hw", no_argument, NULL, 'w'},
        {"help", no_argument, NULL, 'h'},        {NULL, 0, NULL, 0},
    };
    struct sweep sw = {.backend = sc_backend_default()};
    const char *dir = NULL, *metrics[MAX_METRICS];
    size_t nmetrics = 0;
    uint32_t seeds = 0, jobs = 0;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    char err[512];
    int c, rc = 0;
    optind = 1;
    while (rc == 0 && (c = getopt_long(argc, argv, "ho:", longopts, NULL)) != -1) {
        switch (c) {
        case 'S':
            if (sweep_add_param(&sw, optarg, err, sizeof err) != 0) {
                fprintf(stderr, "nvemu scenario: %s\n", err);
                rc = 2;
            }
            break;
        case 'n': rc = parse_u32("--seeds", optarg, 1, 100000, &seeds) ? 2 : 0; break;
        case 'j': rc = parse_u32("--jobs", optarg, 1, 4096, &jobs) ? 2 : 0; break;
        case 'x':
            if (sscanf(optarg, "%u/%u", &sw.shard_i, &sw.shard_n) != 2 || sw.shard_n == 0 || sw.shard_i == 0 ||
                sw.shard_i > sw.shard_n) {
                fprintf(stderr, "nvemu scenario: --shard wants I/N with 1 <= I <= N, not '%s'\n", optarg);
                rc = 2;
            }
            break;
        case 'm':
            if (nmetrics < MAX_METRICS)
                metrics[nmetrics++] = optarg;
            break;
        case 'o': dir = cli_trim_dir(optarg); break;
        case 'b': rc = (sw.backend = cli_backend(optarg)) ? 0 : 2; break;
        case 'w': sw.backend = sc_backend_find("hw"); break;
        case 'h': usage(stdout); sweep_free(&sw); return 0;
        default: rc = 2; break;
        }
    }
    if (rc == 0 && (optind != argc - 1 || !dir || !sw.nparams)) {
        usage(stderr);
        rc = 2;
    }
    if (rc == 0 && (rc = out_dir(dir)) == 0 && sweep_prepare(&sw, argv[optind], seeds, err, sizeof err) != 0) {
        fprintf(stderr, "%s\n", err);
        rc = 2;
    }
    if (rc == 0 && sweep_run(&sw, jobs ? jobs : (unsigned)(cores > 0 ? cores : 1),
                             isatty(STDERR_FILENO) ? stderr : NULL, err, sizeof err) != 0) {
        fprintf(stderr, "nvemu scenario: sweep: %s\n", err);
        rc = 3;
    }
    if (rc != 0) {
        sweep_free(&sw);
        return rc;
    }
    return finish(&sw, dir, metrics, nmetrics);
}

int nvemu_scenario_sweep_merge(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"out", required_argument, NULL, 'o'}, {"metric", required_argument, NULL, 'm'},
        {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0},
    };
    const char *dir = NULL, *metrics[MAX_METRICS];
    size_t nmetrics = 0;
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "ho:", longopts, NULL)) != -1) {
        switch (c) {
        case 'o': dir = cli_trim_dir(optarg); break;
        case 'm':
            if (nmetrics < MAX_METRICS)
                metrics[nmetrics++] = optarg;
            break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (!dir || optind >= argc) {
        usage(stderr);
        return 2;
    }
    int rc = out_dir(dir);
    if (rc)
        return rc;
    struct sweep sw = {0};
    char err[512];
    if (sweep_merge(&sw, (const char *const *)argv + optind, (size_t)(argc - optind), err, sizeof err) != 0) {
        fprintf(stderr, "nvemu scenario: sweep-merge: %s\n", err);
        sweep_free(&sw);
        return 2;
    }
    return finish(&sw, dir, metrics, nmetrics);
}
