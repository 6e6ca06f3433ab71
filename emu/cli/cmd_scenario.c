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

#include "backends.h"
#include "base/util.h"
#include "cli.h"
#include "compare.h"
#include "report.h"
#include "report_formats.h"
#include "runner.h"
#include "scenario.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: nvemu scenario run FILE [--seed N] [--profile NAME|FILE] [--out DIR] [--csv] [--junit FILE]\n"
            "                           [--policy NAME|FILE.so|FILE.bpf.o [--policy-arg K=V]...] [--timeout SECONDS]\n"
            "                           [--quiet] [--no-color] [--backend emu|hw] [--hw]\n"
            "       nvemu scenario check FILE...\n"
            "       nvemu scenario compare A B [--tolerance FRACTION] [--headline] [--html FILE]\n"
            "       nvemu scenario compare FILE --backend A [--backend B] --out DIR [--tolerance ...]\n"
            "       nvemu scenario sweep FILE --set PATH=V1,V2,... [--seeds N] --out DIR   (sweep --help)\n"
            "       nvemu scenario sweep-merge --out DIR SHARD_DIR...\n\n"
            "run    runs a scenario in an in-process emulator, prints a summary and exits 1 when an\n"
            "       expectation fails. --profile runs it on another GPU profile than the file's gpu.profile.\n"
            "       --backend hw (or --hw) runs the tasks as processes on the real NVIDIA GPU 0 instead\n"
            "       (libcuda, Volta+; results marked backend hw; decisions it cannot apply are listed in\n"
            "       results.json); --backend emu, the emulator, is the default.\n"
            "       --policy replaces the file's policy (a plugin or a gpu_ext struct_ops object; its\n"
            "       arguments from --policy-arg: K=V for a plugin, rodata:NAME=V and map:NAME[KEY]=V for an object).\n"
            "       --out DIR writes the reports listed below; --csv adds trace.csv. A run that crashes, passes\n"
            "       --timeout or stays in one policy callback for 10 s fails (exit 3) naming the policy and\n"
            "       the hook; its results.json and junit.xml say so.\n"
            "check  validates scenario files without running them.\n"
            "compare  two runs (results.json files or --out directories) metric by metric: A, B and B/A;\n"
            "       exits 1 when a metric differs by more than --tolerance (default 0.10); --headline\n"
            "       judges only LC p50/p99 vs alone and BE requests/s. --html FILE also writes the comparison as\n"
            "       a page: both runs' headers (backend, GPU, driver, calibration), the table with a B/A bar\n"
            "       per metric, each task's latencies and requests/s side by side and, for --out\n"
            "       directories, their report.html next to each other (exit 2 when it cannot be written).\n"
            "       With --backend, FILE runs on backend A and on B (one --backend B: emu and B) into\n"
            "       DIR/A and DIR/B, which are then compared (exit 3 when a run could not happen).\n"
            "The scenario format is described in scenarios/README.md.\n"
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
        printf("%s: ok (%u tasks, %u faults, %u expectations)\n", argv[i], s->task_count, s->fault_count,
               s->expect_count);
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

/* A run that crashed or hung still leaves results.json and junit.xml saying why. */
static void write_aborted(const struct run_job *j, const char *why)
{
    struct sc_results res;
    memset(&res, 0, sizeof res);
    res.sc = j->s;
    res.seed = j->opts->has_seed ? j->opts->seed : j->s->seed;
    snprintf(res.error, sizeof res.error, "%s", why);
    sc_results_evaluate(&res);
    write_outputs(&res, j->out_dir, j->junit);
    sc_results_free(&res);
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
        {NULL, 0, NULL, 0},
    };
    struct sc_run_opts opts = {0};
    double timeout = 0;
    const char *out_dir = NULL, *junit = NULL, *profile = NULL, *policy = NULL;
    const char *policy_args[SC_MAX_ARGS];
    int policy_nargs = 0;
    bool quiet = false, csv_wanted = false, color = isatty(STDOUT_FILENO) && !getenv("NO_COLOR");
    const struct sc_backend *backend = sc_backend_default();
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "s:o:j:qp:h", longopts, NULL)) != -1) {
        switch (c) {
        case 's': {
            char *end = NULL;
            errno = 0;
            opts.seed = strtoull(optarg, &end, 0);
            if (!*optarg || *end || errno || optarg[0] == '-') {
                fprintf(stderr, "nvemu scenario: --seed needs a whole number, not '%s'\n", optarg);
                return 2;
            }
            opts.has_seed = true;
            break;
        }
        case 'o': out_dir = optarg; break;
        case 'p': profile = optarg; break;
        case 'j': junit = optarg; break;
        case 'q': quiet = true; break;
        case 'n': color = false; break;
        case 'c': csv_wanted = true; break;
        case 'w': backend = sc_backend_find("hw"); break;
        case 'b':
            if (!(backend = cli_backend(optarg)))
                return 2;
            break;
        case 'P': policy = optarg; break;
        case 'A':
            if (!strchr(optarg, '=') || policy_nargs >= SC_MAX_ARGS) {
                fprintf(stderr, "nvemu scenario: --policy-arg wants KEY=VALUE (at most %d)\n", SC_MAX_ARGS);
                return 2;
            }
            policy_args[policy_nargs++] = optarg;
            break;
        case 't': {
            char *end = NULL;
            timeout = strtod(optarg, &end);
            if (!*optarg || *end || !(timeout > 0)) {
                fprintf(stderr, "nvemu scenario: --timeout needs a number of seconds > 0, not '%s'\n", optarg);
                return 2;
            }
            break;
        }
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (optind != argc - 1) {
        usage(stderr);
        return 2;
    }
    if (out_dir && !out_is_usable(out_dir))
        return 2;
    char err[512];
    struct scenario *s = scenario_load(argv[optind], err, sizeof(err));
    if (!s) {
        fprintf(stderr, "%s\n", err);
        if (junit)
            junit_load_error(argv[optind], junit, err);
        return 2;
    }
    warn_no_expectations(s);
    if (profile) {
        if (strlen(profile) >= sizeof(s->gpu.profile)) {
            fprintf(stderr, "nvemu scenario: --profile name too long\n");
            scenario_free(s);
            return 2;
        }
        snprintf(s->gpu.profile, sizeof(s->gpu.profile), "%s", profile);
    }
    if (policy_nargs && !policy) {
        fprintf(stderr, "nvemu scenario: --policy-arg needs --policy\n");
        scenario_free(s);
        return 2;
    }
    if (policy && scenario_set_policy(s, policy, policy_args, policy_nargs, err, sizeof(err))) {
        fprintf(stderr, "nvemu scenario: %s\n", err);
        scenario_free(s);
        return 2;
    }
    char csv[1024];
    if (csv_wanted && !out_dir) {
        fprintf(stderr, "nvemu scenario: --csv needs --out DIR\n");
        scenario_free(s);
        return 2;
    }
    if (out_dir) {
        if (make_dir(out_dir) != 0) {
            scenario_free(s);
            return 3;
        }
        remove_stale(out_dir);
        snprintf(csv, sizeof(csv), "%s/trace.csv", out_dir);
        opts.trace_csv = csv_wanted ? csv : NULL;
    }
    if (!quiet && isatty(STDERR_FILENO))
        opts.progress = stderr;
    /* Policy code runs in a child: a crash or a hang inside a plugin fails the run with a reason instead of
     * taking the reports with it. */
    struct run_job job = {s, &opts, out_dir, junit, quiet, color, csv_wanted, backend};
    char why[512];
    int status = cli_guarded(run_job, &job, timeout, HOOK_LIMIT_S, why, sizeof why);
    if (status < 0) {
        fprintf(stderr, "nvemu scenario: %s: %s\n", s->name, why);
        write_aborted(&job, why);
        status = 3;
    }
    scenario_free(s);
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
        {"backend", required_argument, NULL, 'b'}, {"out", required_argument, NULL, 'o'}, {NULL, 0, NULL, 0},
    };
    double tol = 0.10;
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
