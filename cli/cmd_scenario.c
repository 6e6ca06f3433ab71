/*
 * `nvemu scenario run FILE [--seed N] [--policy FILE [--policy-arg K=V]...] [--out DIR] [--junit FILE] [--quiet]`
 * `nvemu scenario check FILE...`
 * `nvemu scenario compare A B [--tolerance F] [--headline] [--html FILE]`
 * Exit status: 0 all expectations met; 1 an expectation failed; 2 usage or
 * validation error; 3 the scenario could not run.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "compare.h"
#include "report.h"
#include "backends.h"
#include "base/util.h"
#include "report_formats.h"
#include "runner.h"
#include "scenario.h"
#include "seeds.h"
#include "spool.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: nvemu scenario run FILE [--seed N] [--profile NAME|FILE] [--out DIR] [--csv] [--junit FILE]\n"
            "                           [--policy NAME|FILE.so|FILE.bpf.o [--policy-arg K=V]...] [--timeout SECONDS]\n"
            "                           [--quiet] [--no-color] [--backend emu|hw] [--hw]\n"
            "       nvemu scenario run DIR|FILE... [--seeds N] --out DIR [options above]\n"
            "       nvemu scenario check FILE...\n"
            "       nvemu scenario compare A B [--tolerance FRACTION] [--headline] [--html FILE] [--confidence C]\n"
            "       nvemu scenario compare FILE --backend A [--backend B] --out DIR [--tolerance ...]\n"
            "       nvemu scenario sweep FILE --set PATH=V1,V2,... [--seeds N] --out DIR   (sweep --help)\n"
            "       nvemu scenario sweep-merge --out DIR SHARD_DIR...\n\n"
            "run    runs a scenario in an in-process emulator, prints a summary and exits 1 when an\n"
            "       expectation fails. --profile runs it on another GPU profile than the file's gpu.profile.\n"
            "       --backend hw (or --hw) runs the tasks as processes on the real NVIDIA GPU 0 instead\n"
            "       (libcuda, Volta+; results marked backend hw; decisions it cannot apply are listed in\n"
            "       results.json); --backend emu, the emulator, is the default.\n"
            "       --policy replaces the file's policy (a plugin or a gpu_ext struct_ops object; its\n"
            "       arguments from --policy-arg: K=V for a plugin, rodata:NAME=V and map:NAME[KEY]=V for an object;\n"
            "       each kind's argument table: nvemu policy --help).\n"
            "       --out DIR writes the reports listed below; --csv adds trace.csv. A run that crashes, passes\n"
            "       --timeout or stays in one policy callback for 10 s fails (exit 3) naming the policy and\n"
            "       the hook; its results.json and junit.xml say so.\n"
            "       Several files or a directory (its *.yaml) run as a suite: each into DIR/NAME, then a table,\n"
            "       DIR/junit.xml (and --junit FILE) with every run's test suite and DIR/suite.json; every file\n"
            "       is checked before any runs. --seeds N runs each file with seeds --seed..--seed+N-1 (default\n"
            "       from 1) into a seed set, DIR/seed-K/ and seeds.json (per metric mean, sd, min, max); exit\n"
            "       status: the worst run's.\n"
            "check  validates scenario files without running them.\n"
            "compare  two runs (results.json files or --out directories) metric by metric: A, B and B/A;\n"
            "       exits 1 when a metric differs by more than --tolerance (default 0.10); --headline\n"
            "       judges only LC p50/p99 vs alone and BE requests/s. --html FILE also writes the comparison as\n"
            "       a page: both runs' headers (backend, GPU, driver, calibration), the table with a B/A bar\n"
            "       per metric, each task's latencies and requests/s side by side and, for --out\n"
            "       directories, their report.html next to each other (exit 2 when it cannot be written).\n"
            "       Two seed sets (DIRs of --seeds runs): per metric each side's mean and sd, B/A of the means\n"
            "       with its --confidence interval (default 0.95; bootstrap, fixed PRNG seed) and a verdict:\n"
            "       better, worse (higher, lower for counts) or no detectable change; exit 1 only when an\n"
            "       interval lies wholly outside 1 +- --tolerance.\n"
            "       With --backend, FILE runs on backend A and on B (one --backend B: emu and B) into\n"
            "       DIR/A and DIR/B, which are then compared (exit 3 when a run could not happen).\n"
            "The scenario format: PREFIX/share/doc/nvemu/scenarios.md of the installed tool (scenarios/README.md\n"
            "in its source); example scenarios: PREFIX/share/nvemu/examples/scenarios/; a policy project to start\n"
            "from: nvemu init [c|bpf] DIR (guide: PREFIX/share/doc/nvemu/policy-guide.md).\n"
            "Reports (run --out DIR):\n");
    size_t n;
    const struct report_format *rf = report_formats(&n);
    for (size_t i = 0; i < n; i++)
        fprintf(f, "  %-13s%s\n", rf[i].file, rf[i].what);
}

const struct sc_backend *cli_backend(const char *name)
{
    const struct sc_backend *b = sc_backend_find(name);
    if (!b) {
        char names[64];
        sc_backend_names(names, sizeof(names));
        fprintf(stderr, "nvemu scenario: --backend wants one of %s, not '%s'\n", names, name);
    }
    return b;
}

/* A scenario without expectations passes whatever the policy does: say so. */
static void warn_no_expectations(const struct scenario *s)
{
    if (!s->expect_count)
        fprintf(stderr, "%s: warning: no expectations ('expect:'): the run passes whenever it can start\n", s->path);
}

/* A file that does not load still gets a JUnit report: one failing testcase carrying the message. */
static void junit_load_error(const char *file, const char *junit, const char *msg)
{
    struct scenario *s = calloc(1, sizeof(*s));
    struct sc_results *r = calloc(1, sizeof(*r));
    char err[512];
    if (s && r) {
        const char *base = strrchr(file, '/') ? strrchr(file, '/') + 1 : file;
        size_t n = strcspn(base, ".");
        snprintf(s->name, sizeof(s->name), "%.*s", (int)(n ? n : strlen(base)), base);
        s->path = (char *)file;
        r->sc = s;
        snprintf(r->error, sizeof(r->error), "%.*s", (int)sizeof(r->error) - 1, msg);
        if (report_junit(r, junit, err, sizeof(err)) != 0)
            fprintf(stderr, "nvemu scenario: %s\n", err);
    }
    free(r);
    free(s);
}

static int check(int argc, char **argv)
{
    if (argc == 2 && cli_is_help(argv[1])) {
        usage(stdout);
        return 0;
    }
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    int rc = 0;
    for (int i = 1; i < argc; i++) {
        char err[512];
        struct scenario *s = scenario_load(argv[i], err, sizeof(err));
        if (!s) {
            fprintf(stderr, "%s\n", err);
            rc = 2;
            continue;
        }
        if (sc_check_deps(s, err, sizeof(err)) != 0) {
            fprintf(stderr, "%s\n", err);
            rc = 2;
            scenario_free(s);
            continue;
        }
        warn_no_expectations(s);
        printf("%s: ok (%u %s, %u %s, %u %s)\n", argv[i], s->task_count, cli_plural(s->task_count, "task", "tasks"),
               s->fault_count, cli_plural(s->fault_count, "fault", "faults"), s->expect_count,
               cli_plural(s->expect_count, "expectation", "expectations"));
        scenario_free(s);
    }
    return rc;
}

/* --out must be a directory or not exist yet. */
static bool out_is_usable(const char *dir)
{
    struct stat st;
    if (stat(dir, &st) == 0 && !S_ISDIR(st.st_mode)) {
        fprintf(stderr, "nvemu scenario: --out %s exists and is not a directory\n", dir);
        return false;
    }
    return true;
}

/* A report of a previous run that this run does not write goes away. */
static void remove_stale(const char *dir)
{
    char path[1024];
    size_t n;
    const struct report_format *rf = report_formats(&n);
    for (size_t i = 0; i < n; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, rf[i].file);
        if (unlink(path) != 0 && errno != ENOENT)
            fprintf(stderr, "nvemu scenario: cannot remove %s of an earlier run: %s\n", path, strerror(errno));
    }
}

/* mkdir -p, as sweep --out does (base/util.h) */
static int make_dir(const char *dir)
{
    char err[512];
    if (nvemu_mkdir_p(dir, err, sizeof(err)) == 0)
        return 0;
    fprintf(stderr, "nvemu scenario: %s\n", err);
    return -1;
}

static int write_outputs(const struct sc_results *r, const char *out_dir, const char *junit)
{
    char path[1024], err[512];
    int rc = 0;
    size_t n;
    const struct report_format *rf = report_formats(&n);
    for (size_t i = 0; out_dir && i < n; i++) {
        if (rf[i].write) {
            snprintf(path, sizeof(path), "%s/%s", out_dir, rf[i].file);
            if (rf[i].write(r, path, err, sizeof(err)) != 0) {
                fprintf(stderr, "nvemu scenario: %s\n", err);
                rc = -1;
            }
        }
    }
    if (junit && report_junit(r, junit, err, sizeof(err)) != 0) {
        fprintf(stderr, "nvemu scenario: %s\n", err);
        rc = -1;
    }
    return rc;
}

/* Most trace a run keeps for its reports in case it crashes (pages are only used as records arrive). */
#define SPOOL_BYTES ((size_t)256 << 20)

/* Longest a single policy callback may take before the run is declared hung. */
#define HOOK_LIMIT_S 10.0

struct run_job {
    const struct scenario *s;
    const struct sc_run_opts *opts;
    const char *out_dir, *junit;
    bool quiet, color, csv_wanted;
    const struct sc_backend *backend;
};

/* The run itself (in the guarded child): summary, reports, exit status. */
static int run_job(void *arg, struct hooks_watch *watch)
{
    const struct run_job *j = arg;
    struct sc_run_opts opts = *j->opts;
    opts.policy_watch = watch;
    const struct scenario *s = j->s;
    char err[512];
    struct sc_results res;
    int rc = j->backend->run(s, &opts, &res, err, sizeof(err));
    if (rc != 0 && !res.sc) {
        fprintf(stderr, "nvemu scenario: %s\n", err);
        return 3;
    }
    if (!j->quiet)
        report_console(&res, stdout, j->color);
    else if (rc != 0)
        fprintf(stderr, "nvemu scenario: %s: %s\n", s->name, err);
    else if (res.failed)
        fprintf(stderr, "nvemu scenario: %s: %u of %u expectations failed\n", s->name, res.failed, s->expect_count);
    int wrc = write_outputs(&res, j->out_dir, j->junit);
    if (j->out_dir && !j->quiet) {
        size_t n;
        const struct report_format *rf = report_formats(&n);
        printf("reports: %s/{", j->out_dir);
        for (size_t i = 0, first = 1; i < n; i++)
            if (rf[i].write || j->csv_wanted) {
                printf("%s%s", first ? "" : ",", rf[i].file);
                first = 0;
            }
        printf("}\n");
    }
    int status = rc != 0 ? 3 : res.failed ? 1 : wrc != 0 ? 3 : 0;
    sc_results_free(&res);
    return status;
}

/* A run that crashed or hung still leaves results.json, junit.xml and report.html saying why and where it stopped:
 * the trace it wrote up to then (kept in sp) analyzed as a run cut short at that virtual time. */
static void write_aborted(const struct run_job *j, const char *why, uint64_t stopped_ns, const struct sc_spool *sp)
{
    struct sc_results res;
    uint64_t seed = j->opts->has_seed ? j->opts->seed : j->s->seed;
    char err[512];
    if (!sp || sc_spool_count(sp) == 0 || sc_spool_results(sp, j->s, seed, stopped_ns, &res, err, sizeof err) != 0) {
        if (sp && sc_spool_count(sp) > 0)
            fprintf(stderr, "nvemu scenario: %s: the trace before the stop cannot be analyzed: %s\n", j->s->name, err);
        memset(&res, 0, sizeof res);
        res.sc = j->s;
        res.virtual_ns = stopped_ns;
        res.seed = seed;
    }
    res.stopped = true;
    if (sp && sc_spool_dropped(sp))
        snprintf(res.error, sizeof res.error, "%s (the trace is kept up to virtual time %.6f s: the rest did not fit)",
                 why, (double)res.virtual_ns / 1e9);
    else
        snprintf(res.error, sizeof res.error, "%s", why);
    sc_results_evaluate(&res);
    write_outputs(&res, j->out_dir, j->junit);
    sc_results_free(&res);
}

/* What the options of `scenario run` say, for each file and seed it runs. */
struct run_args {
    struct sc_run_opts opts;
    unsigned seeds;                 /* --seeds (0: not given) */
    double timeout;
    const char *profile, *policy;
    const char *policy_args[SC_MAX_ARGS];
    int policy_nargs;
    bool csv_wanted, color;
    const struct sc_backend *backend;
};

/* Loads FILE with the overrides of the options; NULL (message printed, junit written) when it is invalid. */
static struct scenario *load_with_args(const char *file, const struct run_args *a, const char *junit)
{
    char err[512];
    struct scenario *s = scenario_load(file, err, sizeof(err));
    if (!s) {
        fprintf(stderr, "%s\n", err);
        if (junit)
            junit_load_error(file, junit, err);
        return NULL;
    }
    if (a->profile) {
        if (strlen(a->profile) >= sizeof(s->gpu.profile)) {
            fprintf(stderr, "nvemu scenario: --profile name too long\n");
            scenario_free(s);
            return NULL;
        }
        snprintf(s->gpu.profile, sizeof(s->gpu.profile), "%s", a->profile);
        if (cli_check_profile("scenario", a->profile)) {
            if (junit)
                junit_load_error(file, junit, "unknown or invalid --profile");
            scenario_free(s);
            return NULL;
        }
    }
    if (a->policy && scenario_set_policy(s, a->policy, a->policy_args, a->policy_nargs, err, sizeof(err))) {
        fprintf(stderr, "nvemu scenario: %s\n", err);
        if (junit)
            junit_load_error(file, junit, err);
        scenario_free(s);
        return NULL;
    }
    return s;
}

/* One run of FILE (seed: the option's, or the one given) into out_dir: its exit status (0, 1, 2, 3). */
static int run_file(const char *file, const struct run_args *a, const char *out_dir, const char *junit, bool quiet,
                    const uint64_t *seed, bool warn)
{
    struct scenario *s = load_with_args(file, a, junit);
    if (!s)
        return 2;
    if (warn)
        warn_no_expectations(s);
    struct sc_run_opts opts = a->opts;
    /* a run of a seed set: the expectations over seeds are judged on the set (judge_seeds) */
    if (seed)
        seeds_strip_expectations(s);
    if (seed) {
        opts.seed = *seed;
        opts.has_seed = true;
    }
    char csv[1024];
    if (out_dir) {
        if (make_dir(out_dir) != 0) {
            scenario_free(s);
            return 3;
        }
        remove_stale(out_dir);
        snprintf(csv, sizeof(csv), "%s/trace.csv", out_dir);
        opts.trace_csv = a->csv_wanted ? csv : NULL;
    }
    if (!quiet && isatty(STDERR_FILENO))
        opts.progress = stderr;
    /* Policy code runs in a child: a crash or a hang inside a plugin fails the run with a reason instead of
     * taking the reports with it. */
    struct sc_spool *spool = sc_spool_create(SPOOL_BYTES);
    opts.trace_spool = spool;
    struct run_job job = {s, &opts, out_dir, junit, quiet, a->color, a->csv_wanted, a->backend};
    char why[512];
    uint64_t stopped_ns = 0;
    int status = cli_guarded(run_job, &job, a->timeout, HOOK_LIMIT_S, why, sizeof why, &stopped_ns);
    if (status < 0) {
        fprintf(stderr, "nvemu scenario: %s: %s\n", s->name, why);
        write_aborted(&job, why, stopped_ns, spool);
        status = 3;
    }
    sc_spool_free(spool);
    scenario_free(s);
    return status;
}

/* The suite and seed runners (cmd_scenario_suite.c) call back here for each run. */
static int run_one(void *ctx, const char *file, const char *out_dir, const uint64_t *seed)
{
    /* the suite warned when it checked its files */
    return run_file(file, ctx, out_dir, NULL, true, seed, false);
}

static int check_one(void *ctx, const char *file)
{
    const struct run_args *a = ctx;
    struct scenario *s = load_with_args(file, a, NULL);
    if (!s)
        return 2;
    warn_no_expectations(s);
    unsigned need = seeds_needed(s);
    scenario_free(s);
    if (a->seeds && need > a->seeds) {
        fprintf(stderr, "nvemu scenario: %s has an expectation over %u seeds; --seeds %u runs fewer\n", file, need,
                a->seeds);
        return 2;
    }
    return 0;
}

static unsigned needed_one(void *ctx, const char *file)
{
    struct scenario *s = load_with_args(file, ctx, NULL);
    unsigned need = s ? seeds_needed(s) : 0;
    scenario_free(s);
    return need;
}

/* The expectations over seeds of file, on the seed set in dir: printed, and dir/junit-seeds.xml. */
static int judge_seeds(void *ctx, const char *file, const char *dir, uint64_t base)
{
    struct scenario *s = load_with_args(file, ctx, NULL);
    if (!s)
        return 3;
    if (!seeds_needed(s)) {
        scenario_free(s);
        return 0;
    }
    struct seeds_verdict *v = malloc(sizeof(*v));
    char err[512], path[1100];
    if (!v || seeds_expect(s, dir, base, v, err, sizeof err)) {
        fprintf(stderr, "nvemu scenario: %s: expectations over seeds: %s\n", s->name, v ? err : "out of memory");
        free(v);
        scenario_free(s);
        return 3;
    }
    printf("expectations over seeds of %s\n", s->name);
    for (uint32_t i = 0; i < v->count; i++)
        printf("  %s %-52s %s\n", v->outcomes[i].pass ? "ok  " : "FAIL", v->outcomes[i].label, v->outcomes[i].actual);
    snprintf(path, sizeof path, "%s/junit-seeds.xml", dir);
    FILE *f = fopen(path, "w");
    int status = v->failed ? 1 : 0;
    if (f) {
        fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n  <testsuite name=\"scenario.");
        report_xml_escape(f, s->name);
        fprintf(f, " over seeds\" tests=\"%u\" failures=\"%u\" errors=\"0\">\n", v->count, v->failed);
        for (uint32_t i = 0; i < v->count; i++) {
            fputs("    <testcase classname=\"scenario.", f);
            report_xml_escape(f, s->name);
            fputs("\" name=\"", f);
            report_xml_escape(f, v->outcomes[i].label);
            fputs("\" file=\"", f);
            report_xml_escape(f, s->path);
            fprintf(f, "\" line=\"%u\">", v->lines[i]);
            if (!v->outcomes[i].pass) {
                fputs("<failure message=\"expected ", f);
                report_xml_escape(f, v->outcomes[i].label);
                fputs(", got ", f);
                report_xml_escape(f, v->outcomes[i].actual);
                fputs("\"/>", f);
            }
            fputs("</testcase>\n", f);
        }
        fputs("  </testsuite>\n</testsuites>\n", f);
    }
    if (!f || fclose(f) != 0) {
        fprintf(stderr, "nvemu scenario: cannot write %s\n", path);
        status = 3;
    }
    free(v);
    scenario_free(s);
    return status;
}

static int run(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"seed", required_argument, NULL, 's'}, {"out", required_argument, NULL, 'o'},
        {"profile", required_argument, NULL, 'p'},
        {"junit", required_argument, NULL, 'j'}, {"quiet", no_argument, NULL, 'q'},
        {"no-color", no_argument, NULL, 'n'}, {"csv", no_argument, NULL, 'c'}, {"help", no_argument, NULL, 'h'},
        {"hw", no_argument, NULL, 'w'}, {"backend", required_argument, NULL, 'b'},
        {"timeout", required_argument, NULL, 't'},
        {"policy", required_argument, NULL, 'P'}, {"policy-arg", required_argument, NULL, 'A'},
        {"seeds", required_argument, NULL, 'N'},
        {NULL, 0, NULL, 0},
    };
    struct run_args a = {.color = isatty(STDOUT_FILENO) && !getenv("NO_COLOR"), .backend = sc_backend_default()};
    const char *out_dir = NULL, *junit = NULL;
    bool quiet = false;
    unsigned long seeds = 0;
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "s:o:j:qp:h", longopts, NULL)) != -1) {
        switch (c) {
        case 's': {
            char *end = NULL;
            errno = 0;
            a.opts.seed = strtoull(optarg, &end, 0);
            if (!*optarg || *end || errno || optarg[0] == '-') {
                fprintf(stderr, "nvemu scenario: --seed needs a whole number, not '%s'\n", optarg);
                return 2;
            }
            a.opts.has_seed = true;
            break;
        }
        case 'N': {
            char *end = NULL;
            errno = 0;
            seeds = strtoul(optarg, &end, 10);
            if (!*optarg || *end || errno || optarg[0] == '-' || seeds < 2 || seeds > 1000) {
                fprintf(stderr, "nvemu scenario: --seeds needs a number of seeds in 2..1000, not '%s'\n", optarg);
                return 2;
            }
            a.seeds = (unsigned)seeds;
            break;
        }
        case 'o': out_dir = cli_trim_dir(optarg); break;
        case 'p': a.profile = optarg; break;
        case 'j': junit = optarg; break;
        case 'q': quiet = true; break;
        case 'n': a.color = false; break;
        case 'c': a.csv_wanted = true; break;
        case 'w': a.backend = sc_backend_find("hw"); break;
        case 'b':
            if (!(a.backend = cli_backend(optarg)))
                return 2;
            break;
        case 'P': a.policy = optarg; break;
        case 'A':
            if (!strchr(optarg, '=') || a.policy_nargs >= SC_MAX_ARGS) {
                fprintf(stderr, "nvemu scenario: --policy-arg wants KEY=VALUE (at most %d)\n", SC_MAX_ARGS);
                return 2;
            }
            a.policy_args[a.policy_nargs++] = optarg;
            break;
        case 't': {
            char *end = NULL;
            a.timeout = strtod(optarg, &end);
            if (!*optarg || *end || !(a.timeout > 0)) {
                fprintf(stderr, "nvemu scenario: --timeout needs a number of seconds > 0, not '%s'\n", optarg);
                return 2;
            }
            break;
        }
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (optind >= argc) {
        usage(stderr);
        return 2;
    }
    if (out_dir && !out_is_usable(out_dir))
        return 2;
    if (a.policy_nargs && !a.policy) {
        fprintf(stderr, "nvemu scenario: --policy-arg needs --policy\n");
        return 2;
    }
    if (a.csv_wanted && !out_dir) {
        fprintf(stderr, "nvemu scenario: --csv needs --out DIR\n");
        return 2;
    }
    struct stat st;
    bool suite = optind != argc - 1 || (stat(argv[optind], &st) == 0 && S_ISDIR(st.st_mode));
    /* one file with expectations over seeds runs as its seed set */
    if (!suite && !seeds && needed_one(&a, argv[optind]))
        suite = true;
    if (suite || seeds) {
        struct cli_suite su = {
            .files = (const char *const *)argv + optind, .nfiles = (size_t)(argc - optind), .seeds = (unsigned)seeds,
            .base_seed = a.opts.has_seed ? &a.opts.seed : NULL, .out_dir = out_dir, .junit = junit, .quiet = quiet,
            .run = run_one, .check = check_one, .seeds_needed = needed_one, .judge = judge_seeds, .ctx = &a,
        };
        return cli_scenario_suite(&su);
    }
    return run_file(argv[optind], &a, out_dir, junit, quiet, NULL, true);
}

/* Two seed sets (seeds.h): the verdict per metric at `confidence`; exit 1 when an interval lies wholly outside
 * the tolerance band. */
static int compare_seed_sets(const char *a, const char *b, double tol, double confidence, bool headline)
{
    struct seed_set sa, sb;
    char err[512];
    if (seeds_load(a, &sa, err, sizeof err)) {
        fprintf(stderr, "nvemu scenario compare: %s\n", err);
        return 2;
    }
    if (seeds_load(b, &sb, err, sizeof err)) {
        fprintf(stderr, "nvemu scenario compare: %s\n", err);
        seeds_free(&sa);
        return 2;
    }
    struct seed_cmp c;
    int status = 2;
    if (seeds_compare(&sa, &sb, tol, confidence, headline, &c, err, sizeof err) == 0) {
        seeds_compare_print(&c, &sa, &sb, tol, headline, stdout);
        status = c.passed == c.checked ? 0 : 1;
        seeds_compare_free(&c);
    } else {
        fprintf(stderr, "nvemu scenario compare: %s\n", err);
    }
    seeds_free(&sa);
    seeds_free(&sb);
    return status;
}

/*
 * compare FILE --backend A --backend B --out DIR: FILE run on each backend (as `run --out DIR/NAME`, in a
 * guarded child each), then the two runs compared. Returns run's status when a run could not happen (> 1).
 */
static int run_on_backends(const char *file, const char *const *backends, const char *dir, char *a, char *b,
                           size_t len)
{
    char *outs[2] = {a, b};
    for (int i = 0; i < 2; i++) {
        snprintf(outs[i], len, "%s/%s", dir, backends[i]);
        char *argv[] = {"run", (char *)file, "--backend", (char *)backends[i], "--quiet", "--out", outs[i], NULL};
        int st = run(7, argv);
        if (st > 1) {
            fprintf(stderr, "nvemu scenario compare: the run on backend %s failed (exit %d)\n", backends[i], st);
            return st;
        }
    }
    return 0;
}

static int compare(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"tolerance", required_argument, NULL, 't'}, {"headline", no_argument, NULL, 'H'},
        {"html", required_argument, NULL, 'W'}, {"help", no_argument, NULL, 'h'},
        {"confidence", required_argument, NULL, 'C'}, {"backend", required_argument, NULL, 'b'},
        {"out", required_argument, NULL, 'o'}, {NULL, 0, NULL, 0},
    };
    double tol = 0.10, confidence = 0.95;
    const char *html = NULL, *backends[2] = {NULL, NULL}, *dir = NULL;
    int nbackends = 0;
    bool headline = false;
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "t:h", longopts, NULL)) != -1) {
        switch (c) {
        case 't': {
            char *end = NULL;
            errno = 0;
            tol = strtod(optarg, &end);
            if (!*optarg || *end || errno || !(tol >= 0) || tol > 100) {
                fprintf(stderr, "nvemu scenario: --tolerance needs a fraction >= 0 (0.1 = 10%%), not '%s'\n", optarg);
                return 2;
            }
            break;
        }
        case 'C': {
            char *end = NULL;
            confidence = strtod(optarg, &end);
            if (!*optarg || *end || !(confidence >= 0.5) || !(confidence < 1)) {
                fprintf(stderr, "nvemu scenario: --confidence needs a fraction in [0.5, 1), not '%s'\n", optarg);
                return 2;
            }
            break;
        }
        case 'H': headline = true; break;
        case 'W': html = optarg; break;
        case 'b':
            if (nbackends == 2 || !cli_backend(optarg)) {
                if (nbackends == 2)
                    fprintf(stderr, "nvemu scenario compare: --backend at most twice\n");
                return 2;
            }
            backends[nbackends++] = optarg;
            break;
        case 'o': dir = optarg; break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    char ra[1024], rb[1024];
    const char *a, *b;
    if (nbackends) {
        /* one scenario file, run on two backends (--backend A --backend B, or --backend B against emu) */
        if (optind != argc - 1 || !dir) {
            fprintf(stderr, "nvemu scenario compare: --backend wants one scenario FILE and --out DIR\n");
            return 2;
        }
        if (nbackends == 1) {
            backends[1] = backends[0];
            backends[0] = "emu";
        }
        int st = run_on_backends(argv[optind], backends, dir, ra, rb, sizeof ra);
        if (st)
            return st;
        a = ra;
        b = rb;
    } else {
        if (optind != argc - 2) {
            usage(stderr);
            return 2;
        }
        a = argv[optind];
        b = argv[optind + 1];
    }
    bool set_a = seeds_is_set(a), set_b = seeds_is_set(b);
    if (set_a != set_b || (set_a && html)) {
        fprintf(stderr, "nvemu scenario compare: %s\n",
                html ? "--html compares two runs, not seed sets"
                     : "one input is a seed set (seed-N/ runs of --seeds) and the other a single run");
        return 2;
    }
    if (set_a)
        return compare_seed_sets(a, b, tol, confidence, headline);
    struct cmp_result r;
    char err[512];
    if (cmp_files(a, b, tol, headline, &r, err, sizeof(err))) {
        fprintf(stderr, "nvemu scenario compare: %s\n", err);
        return 2;
    }
    cmp_print(&r, tol, headline, stdout);
    int status = r.passed == r.checked ? 0 : 1;
    /* the page is extra: the table and the verdict stand whether or not it could be written */
    if (html && cmp_html(&r, a, b, tol, headline, html, err, sizeof(err)) != 0) {
        fprintf(stderr, "nvemu scenario compare: cannot write the --html page: %s\n", err);
        status = 2;
    }
    cmp_result_free(&r);
    return status;
}

int nvemu_cmd_scenario(int argc, char **argv)
{
    if (argc < 2 || cli_is_help(argv[1])) {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    if (strcmp(argv[1], "run") == 0)
        return run(argc - 1, argv + 1);
    if (strcmp(argv[1], "check") == 0)
        return check(argc - 1, argv + 1);
    if (strcmp(argv[1], "compare") == 0)
        return compare(argc - 1, argv + 1);
    if (strcmp(argv[1], "sweep") == 0)
        return nvemu_scenario_sweep(argc - 1, argv + 1);
    if (strcmp(argv[1], "sweep-merge") == 0)
        return nvemu_scenario_sweep_merge(argc - 1, argv + 1);
    fprintf(stderr, "nvemu scenario: unknown subcommand '%s'\n", argv[1]);
    usage(stderr);
    return 2;
}
