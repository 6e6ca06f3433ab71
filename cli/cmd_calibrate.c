/*
 * `nvemu calibrate`: fits a GPU profile's timing section to microbenchmark scenarios (engine/calibrate).
 * --hw records the embedded experiments on GPU 0 with `nvemu scenario run --hw` and fits from them; --from fits
 * from recordings already made (what --hw writes, or the repository's validation recordings).
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/log.h"
#include "base/util.h"
#include "calibrate.h"
#include "cli.h"
#include "profile/profile.h"

/* A --hw run longer than this is stopped (a scenario runs 3-4 s, each task alone as long again). */
#define HW_RUN_TIMEOUT_S 120

static void usage(FILE *out)
{
    fprintf(out,
            "usage: nvemu calibrate --hw [--dir DIR] [--out PROFILE.yaml] [--base PROFILE] [--name NAME]\n"
            "       nvemu calibrate --from DIR [--from DIR]... [--out PROFILE.yaml] [--base PROFILE] [--name NAME]\n"
            "                       [--only KEY,...] [--report FILE] [--no-validate]\n"
            "       nvemu calibrate --list | --write-scenarios DIR\n"
            "       --hw runs the embedded experiments (switch cost over kernel shapes, slice length and tick,\n"
            "       kernel-boundary and launch overheads, idle wake, WFI and CILP) on GPU 0 with\n"
            "       `nvemu scenario run --hw` into DIR/NAME (default DIR calibration), the GPU's nvidia-smi line\n"
            "       into DIR/env.txt, then fits as --from DIR would, writing DIR/profile.yaml (or --out) and\n"
            "       DIR/calibration.txt (or --report).\n"
            "       --from fits from recordings: DIR/NAME/results.json or DIR/SUB/NAME/results.json (repeats:\n"
            "       medians; DIR/boardN/...: another board's, the median over boards) of the experiments.\n"
            "       Each fitted timing key is searched on the emulator (the\n"
            "       recording's seed) on top of --base (default: the built-in profile named like the GPU)\n"
            "       and written with its experiment, GPU, driver and date under provenance:. Then the\n"
            "       validation experiments recorded are run with the fitted profile: ratios model/measured.\n"
            "       --only fits just those keys (the rest stay the base's); --list prints the steps and\n"
            "       experiments; --write-scenarios writes the experiments as scenario files.\n"
            "       exit 0: profile written; 2: usage; 3: no fit (nothing recorded, a model run failed)\n");
}

static int write_text(const char *path, const char *text, size_t len)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    size_t w = fwrite(text, 1, len, f);
    return fclose(f) || w != len ? -1 : 0;
}

static int write_scenarios(const char *dir, const char *const *names)
{
    char err[512], path[PATH_MAX];
    if (nvemu_mkdir_p(dir, err, sizeof err)) {
        fprintf(stderr, "nvemu calibrate: %s\n", err);
        return 3;
    }
    for (const char *const *n = names; *n; n++) {
        const struct cal_experiment *e = cal_experiment_find(*n);
        snprintf(path, sizeof path, "%s/%s.yaml", dir, *n);
        if (!e || write_text(path, e->text, e->len)) {
            fprintf(stderr, "nvemu calibrate: cannot write %s\n", path);
            return 3;
        }
    }
    return 0;
}

static void list(void)
{
    printf("steps (in fit order):\n");
    for (const struct cal_step *st = cal_steps; st->key; st++) {
        printf("  %-26s [%g, %g]%s  %s\n", st->key, st->lo, st->hi, st->ns ? " ns" : " us", st->what);
        for (int i = 0; i < CAL_MAX_METRICS && st->metrics[i].exp; i++)
            printf("      %s: %s %s\n", st->metrics[i].exp, st->metrics[i].task, cal_stat_names[st->metrics[i].stat]);
    }
    printf("validation:\n");
    for (const char *const *v = cal_validation; *v; v++)
        printf("  %s\n", *v);
}

/* `date -u` in ISO form and nvidia-smi's line of GPU 0 (when nvidia-smi is there) into dir/env.txt. */
static void write_env(const char *dir)
{
    char path[PATH_MAX], date[64];
    snprintf(path, sizeof path, "%s/env.txt", dir);
    FILE *f = fopen(path, "w");
    if (!f)
        return;
    time_t now = time(NULL);
    struct tm tm;
    strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", gmtime_r(&now, &tm));
    fprintf(f, "%s\n", date);
    FILE *p = popen("nvidia-smi --query-gpu=name,uuid,driver_version,pci.bus_id --format=csv,noheader -i 0 "
                    "2>/dev/null", "r");
    if (p) {
        char line[512];
        while (fgets(line, sizeof line, p))
            fputs(line, f);
        pclose(p);
    }
    fclose(f);
}

/* `nvemu scenario run FILE --hw --no-color --out OUT`, console into OUT/console.txt: its exit status. */
static int run_hw(const char *file, const char *out)
{
    char exe[PATH_MAX], console[PATH_MAX + 128], err[512];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return -1;
    exe[n] = '\0';
    if (nvemu_mkdir_p(out, err, sizeof err))
        return -1;
    snprintf(console, sizeof console, "%s/console.txt", out);
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        FILE *c = freopen(console, "w", stdout);
        if (c)
            dup2(fileno(stdout), STDERR_FILENO);
        execl(exe, "nvemu", "scenario", "run", file, "--hw", "--no-color", "--out", out, (char *)NULL);
        _exit(127);
    }
    int st = 0;
    for (int waited = 0; waitpid(pid, &st, WNOHANG) == 0; waited++) {
        if (waited >= HW_RUN_TIMEOUT_S * 10) {
            kill(pid, SIGKILL);
            waitpid(pid, &st, 0);
            return -1;
        }
        usleep(100000);
    }
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* Whether --hw records experiment name: any with no --only; else those of the steps named and, unless
 * validate is off, the validation's. */
static bool wanted(const char *name, const char *only, bool validate)
{
    if (!only)
        return true;
    for (const char *const *v = cal_validation; validate && *v; v++)
        if (!strcmp(*v, name))
            return true;
    for (const struct cal_step *st = cal_steps; st->key; st++)
        for (int i = 0; i < CAL_MAX_METRICS && st->metrics[i].exp; i++)
            if (!strcmp(st->metrics[i].exp, name) && cal_step_named(st, only))
                return true;
    return false;
}

static int record(const char *dir, const char *only, bool validate)
{
    char scen[PATH_MAX], file[PATH_MAX + 80], out[PATH_MAX + 80];
    snprintf(scen, sizeof scen, "%s/scenarios", dir);
    int rc = write_scenarios(scen, cal_hw_experiments);
    if (rc)
        return rc;
    write_env(dir);
    unsigned i = 0, failed = 0, total = 0;
    for (const char *const *n = cal_hw_experiments; *n; n++)
        total += wanted(*n, only, validate);
    for (const char *const *n = cal_hw_experiments; *n; n++) {
        if (!wanted(*n, only, validate))
            continue;
        snprintf(file, sizeof file, "%s/%s.yaml", scen, *n);
        snprintf(out, sizeof out, "%s/%s", dir, *n);
        time_t t0 = time(NULL);
        int st = run_hw(file, out);
        fprintf(stderr, "nvemu calibrate: [%u/%u] %s: exit %d, %lds\n", ++i, total, *n, st, (long)(time(NULL) - t0));
        failed += st < 0 || st > 1;
    }
    if (failed)
        fprintf(stderr, "nvemu calibrate: %u of %u experiments did not run (their console.txt says why)\n", failed,
                total);
    return 0;
}

/* The built-in profile whose marketing name is the GPU's (the shortest name among several), or NULL. */
static const char *base_for(const char *gpu)
{
    const char *best = NULL;
    for (const char *const *n = profile_builtin_names(); *n && gpu[0]; n++) {
        char err[256];
        struct profile *p = profile_load(*n, err, sizeof err);
        if (p && !strcmp(p->marketing_name, gpu) && (!best || strlen(*n) < strlen(best)))
            best = *n;
        profile_free(p);
    }
    return best;
}

int nvemu_cmd_calibrate(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"hw", no_argument, NULL, 'w'},          {"from", required_argument, NULL, 'f'},
        {"dir", required_argument, NULL, 'd'},   {"out", required_argument, NULL, 'o'},
        {"base", required_argument, NULL, 'b'},  {"name", required_argument, NULL, 'n'},
        {"only", required_argument, NULL, 'O'},  {"report", required_argument, NULL, 'r'},
        {"list", no_argument, NULL, 'l'},        {"write-scenarios", required_argument, NULL, 's'},
        {"no-validate", no_argument, NULL, 'V'}, {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *froms[16], *dir = NULL, *out = NULL, *base = NULL, *name = NULL, *only = NULL, *report = NULL;
    const char *scen_dir = NULL;
    int nfrom = 0;
    bool hw = false, validate = true;
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        switch (c) {
        case 'w': hw = true; break;
        case 'f':
            if (nfrom == 16) {
                fprintf(stderr, "nvemu calibrate: --from at most 16 times\n");
                return 2;
            }
            froms[nfrom++] = optarg;
            break;
        case 'd': dir = optarg; break;
        case 'o': out = optarg; break;
        case 'b': base = optarg; break;
        case 'n': name = optarg; break;
        case 'O': only = optarg; break;
        case 'r': report = optarg; break;
        case 'l': list(); return 0;
        case 's': scen_dir = optarg; break;
        case 'V': validate = false; break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (scen_dir) {
        static const char *all[128];
        size_t k = 0;
        for (const struct cal_experiment *e = cal_experiments; e->name && k + 1 < 128; e++)
            all[k++] = e->name;
        return write_scenarios(scen_dir, all);
    }
    if (optind < argc || hw == (nfrom > 0)) {
        fprintf(stderr, "nvemu calibrate: give --hw or --from DIR (not both)\n");
        usage(stderr);
        return 2;
    }
    if (base && cli_check_profile("calibrate", base))
        return 2;
    char dirbuf[PATH_MAX], outbuf[PATH_MAX + 16], repbuf[PATH_MAX + 32], basebuf[PATH_MAX];
    if (hw) {
        snprintf(dirbuf, sizeof dirbuf, "%s", dir ? dir : "calibration");
        cli_trim_dir(dirbuf);
        if (record(dirbuf, only, validate))
            return 3;
        froms[nfrom++] = dirbuf;
        if (!out)
            snprintf(outbuf, sizeof outbuf, "%s/profile.yaml", dirbuf), out = outbuf;
        if (!report)
            snprintf(repbuf, sizeof repbuf, "%s/calibration.txt", dirbuf), report = repbuf;
    }
    if (!out)
        out = "calibrated.yaml";
    struct cal_data d;
    memset(&d, 0, sizeof d);
    char err[1024];
    int total = 0;
    for (int i = 0; i < nfrom; i++) {
        int n = cal_read_dir(&d, froms[i], err, sizeof err);
        if (n < 0) {
            fprintf(stderr, "nvemu calibrate: %s\n", err);
            cal_data_free(&d);
            return 3;
        }
        total += n;
    }
    if (!total) {
        fprintf(stderr, "nvemu calibrate: no recording of an experiment under %s\n", froms[0]);
        cal_data_free(&d);
        return 3;
    }
    if (!base && !(base = base_for(d.src.gpu))) {
        base = "h200";
        fprintf(stderr, "nvemu calibrate: no built-in profile is named '%s': --base h200\n", d.src.gpu);
    }
    /* a file base is named by its absolute path, so that the profile loads from anywhere */
    if (strchr(base, '/') || strstr(base, ".yaml")) {
        if (!realpath(base, basebuf)) {
            fprintf(stderr, "nvemu calibrate: --base %s: %s\n", base, strerror(errno));
            cal_data_free(&d);
            return 2;
        }
        base = basebuf;
    }
    char namebuf[32];
    if (!name) {
        const char *b = strrchr(base, '/') ? strrchr(base, '/') + 1 : base;
        snprintf(namebuf, sizeof namebuf, "%.*s-calibrated", (int)strcspn(b, ".") > 20 ? 20 : (int)strcspn(b, "."), b);
        name = namebuf;
    }
    /* the fit runs hundreds of scenarios, candidates far off included: their lines (a BE group starving under
     * a save cost ten times the real one) would drown the progress */
    nvemu_log_set_level(NVEMU_LOG_ERROR);
    struct cal_fit fit;
    struct cal_check check;
    int rc = cal_fit(&d, base, only, &fit, stderr, err, sizeof err);
    if (!rc)
        rc = cal_write_profile(&fit, &d, name, out, err, sizeof err);
    if (!rc) {
        struct profile *p = profile_load(out, err, sizeof err);
        rc = p ? 0 : -1;
        profile_free(p);
    }
    if (!rc && validate)
        rc = cal_validate(&d, out, &check, err, sizeof err);
    if (rc) {
        fprintf(stderr, "nvemu calibrate: %s\n", err);
        cal_data_free(&d);
        return 3;
    }
    cal_report(stdout, &fit, &d, validate ? &check : NULL);
    printf("profile: %s\n", out);
    if (report) {
        FILE *f = fopen(report, "w");
        if (f) {
            cal_report(f, &fit, &d, validate ? &check : NULL);
            fprintf(f, "profile: %s\n", out);
        }
        if (!f || fclose(f)) {
            fprintf(stderr, "nvemu calibrate: cannot write %s\n", report);
            cal_data_free(&d);
            return 3;
        }
    }
    cal_data_free(&d);
    return 0;
}
