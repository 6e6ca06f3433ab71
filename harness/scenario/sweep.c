#include "sweep.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "backend.h"
#include "base/log.h"
#include "base/util.h"
#include "report.h"
#include "runner.h"
#include "scenario.h"

/* ---- grid ---- */

int sweep_add_param(struct sweep *sw, const char *spec, char *err, size_t errlen)
{
    const char *eq = strchr(spec, '=');
    if (!eq || eq == spec || !eq[1]) {
        snprintf(err, errlen, "--set wants PATH=V1,V2,... (e.g. tasks.be.count=1,2,4), not '%s'", spec);
        return -1;
    }
    if (sw->nparams >= SWEEP_MAX_PARAMS) {
        snprintf(err, errlen, "at most %d --set parameters", SWEEP_MAX_PARAMS);
        return -1;
    }
    struct sweep_param *p = &sw->params[sw->nparams];
    p->path = strndup(spec, (size_t)(eq - spec));
    char *list = strdup(eq + 1);
    if (!p->path || !list) {
        free(list);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    sw->nparams++;
    char *save = NULL;
    for (char *v = strtok_r(list, ",", &save); v; v = strtok_r(NULL, ",", &save)) {
        if (p->nvalues >= SWEEP_MAX_VALUES || !(p->values[p->nvalues] = strdup(v))) {
            free(list);
            snprintf(err, errlen, "--set %s: at most %d values", p->path, SWEEP_MAX_VALUES);
            return -1;
        }
        p->nvalues++;
    }
    free(list);
    if (!p->nvalues) {
        snprintf(err, errlen, "--set %s: no value", p->path);
        return -1;
    }
    return 0;
}

static int add_column(struct sweep *sw, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int add_column(struct sweep *sw, const char *fmt, ...)
{
    if (sw->ncolumns >= SWEEP_MAX_COLUMNS)
        return -1;
    va_list ap;
    va_start(ap, fmt);
    int rc = vasprintf(&sw->columns[sw->ncolumns], fmt, ap);
    va_end(ap);
    if (rc < 0)
        return -1;
    sw->ncolumns++;
    return 0;
}

/* Per-task metrics, in column order (vs-alone ratios only when the scenario has a baseline). */
static const char *const task_metrics[] = {"p50_us", "p99_us", "max_us", "mean_us", "rps", "completed", "failed",
                                           "lost"};
static const char *const alone_metrics[] = {"p99_vs_alone", "rps_vs_alone"};
static const char *const run_metrics[] = {"preemptions", "switches", "timeslice_expiries", "expect_passed",
                                          "expect_failed", "events", "digest"};
#define N(a) (sizeof(a) / sizeof((a)[0]))
#define FIXED_COLUMNS 4 /* point, seed, pass, error (plus one per parameter) */

int sweep_prepare(struct sweep *sw, const char *scenario, uint32_t seeds, char *err, size_t errlen)
{
    /* Every path must exist: tried with each parameter's first value (later values may still be refused). */
    const char *keys[SWEEP_MAX_PARAMS], *vals[SWEEP_MAX_PARAMS];
    for (size_t p = 0; p < sw->nparams; p++) {
        keys[p] = sw->params[p].path;
        vals[p] = sw->params[p].values[0];
    }
    struct scenario *s = scenario_load_overridden(scenario, keys, vals, sw->nparams, err, errlen);
    if (!s)
        return -1;
    scenario_free(s);
    if (!(s = scenario_load(scenario, err, errlen)))
        return -1;
    sw->scenario = strdup(scenario);
    sw->seeds = seeds;
    sw->points = seeds ? seeds : 1;
    for (size_t p = 0; p < sw->nparams; p++)
        sw->points *= sw->params[p].nvalues;
    int rc = sw->scenario ? add_column(sw, "point") : -1;
    for (size_t p = 0; p < sw->nparams && rc == 0; p++)
        rc = add_column(sw, "%s", sw->params[p].path);
    if (rc == 0)
        rc = add_column(sw, "seed") | add_column(sw, "pass") | add_column(sw, "error");
    for (uint32_t t = 0; t < s->task_count && rc == 0; t++) {
        for (size_t m = 0; m < N(task_metrics) && rc == 0; m++)
            rc = add_column(sw, "%s.%s", s->tasks[t].name, task_metrics[m]);
        for (size_t m = 0; s->baseline && m < N(alone_metrics) && rc == 0; m++)
            rc = add_column(sw, "%s.%s", s->tasks[t].name, alone_metrics[m]);
    }
    for (size_t m = 0; m < N(run_metrics) && rc == 0; m++)
        rc = add_column(sw, "%s", run_metrics[m]);
    scenario_free(s);
    if (rc == 0)
        sw->rows = calloc(sw->points, sizeof *sw->rows);
    if (rc != 0 || !sw->rows) {
        snprintf(err, errlen, "%s: too many columns for a sweep table (or out of memory)", scenario);
        return -1;
    }
    return 0;
}

static bool in_shard(const struct sweep *sw, size_t point)
{
    return sw->shard_n == 0 || point % sw->shard_n == sw->shard_i - 1;
}

/* ---- one point ---- */

struct line {
    char *buf;
    size_t len;
    FILE *f;
};

/* A table cell: commas, quotes and line breaks of free text (error messages) become harmless. */
static void cell_text(FILE *f, const char *s)
{
    for (; *s; s++)
        fputc(*s == ',' ? ';' : *s == '"' ? '\'' : (*s == '\n' || *s == '\r') ? ' ' : *s, f);
}

static void cell_num(FILE *f, double v)
{
    fprintf(f, ",%.6g", v);
}

static void task_cells(FILE *f, const struct scenario *base_shape, const struct scenario *s,
                       const struct sc_results *r, uint32_t base_task)
{
    int t = s ? scenario_find_task(s, base_shape->tasks[base_task].name) : -1;
    size_t ncells = N(task_metrics) + (base_shape->baseline ? N(alone_metrics) : 0);
    if (t < 0 || !r) {
        for (size_t i = 0; i < ncells; i++)
            fputc(',', f);
        return;
    }
    const struct sc_task_result *tr = &r->tasks[t];
    cell_num(f, tr->p50_ns / 1e3);
    cell_num(f, tr->p99_ns / 1e3);
    cell_num(f, tr->max_ns / 1e3);
    cell_num(f, tr->mean_ns / 1e3);
    cell_num(f, tr->throughput);
    fprintf(f, ",%llu,%llu,%llu", (unsigned long long)tr->completed, (unsigned long long)tr->failed,
            (unsigned long long)tr->lost);
    if (!base_shape->baseline)
        return;
    if (tr->has_alone && tr->alone_p99_ns > 0)
        cell_num(f, tr->p99_ns / tr->alone_p99_ns);
    else
        fputc(',', f);
    if (tr->has_alone && tr->alone_throughput > 0)
        cell_num(f, tr->throughput / tr->alone_throughput);
    else
        fputc(',', f);
}

/* The point's parameter value indices and seed (0: the scenario's own). */
static uint32_t decode(const struct sweep *sw, size_t point, size_t *vi)
{
    size_t nseeds = sw->seeds ? sw->seeds : 1;
    uint32_t seed = sw->seeds ? (uint32_t)(point % nseeds) + 1 : 0;
    size_t rest = point / nseeds;
    for (size_t p = sw->nparams; p-- > 0;) {
        vi[p] = rest % sw->params[p].nvalues;
        rest /= sw->params[p].nvalues;
    }
    return seed;
}

/* Runs one point and writes its CSV row (no newline) to f. */
static void run_point(const struct sweep *sw, const struct scenario *shape, size_t point,
                      struct sc_baseline_cache *baselines, FILE *f)
{
    size_t vi[SWEEP_MAX_PARAMS];
    uint32_t seed = decode(sw, point, vi);
    const char *keys[SWEEP_MAX_PARAMS], *vals[SWEEP_MAX_PARAMS];
    for (size_t p = 0; p < sw->nparams; p++) {
        keys[p] = sw->params[p].path;
        vals[p] = sw->params[p].values[vi[p]];
    }
    char err[512] = "";
    struct scenario *s = scenario_load_overridden(sw->scenario, keys, vals, sw->nparams, err, sizeof err);
    struct sc_results res;
    memset(&res, 0, sizeof res);
    bool ran = false;
    if (s) {
        struct sc_run_opts o = {.seed = seed, .has_seed = seed != 0, .baselines = baselines};
        ran = sw->backend->run(s, &o, &res, err, sizeof err) == 0;
    }
    fprintf(f, "%zu", point);
    for (size_t p = 0; p < sw->nparams; p++)
        fprintf(f, ",%s", vals[p]);
    if (ran)
        fprintf(f, ",%llu,%s,", seed ? (unsigned long long)seed : (unsigned long long)res.seed,
                res.failed ? "false" : "true");
    else if (seed)
        fprintf(f, ",%u,false,", seed);
    else
        fprintf(f, ",,false,");
    if (!ran)
        cell_text(f, err[0] ? err : "the run did not start");
    for (uint32_t t = 0; t < shape->task_count; t++)
        task_cells(f, shape, s, ran ? &res : NULL, t);
    if (ran) {
        uint64_t pre = 0, sw_n = 0, exp = 0;
        for (uint32_t e = 0; e < res.engine_count; e++) {
            pre += res.engines[e].preemptions;
            sw_n += res.engines[e].switches;
            exp += res.engines[e].timeslice_expiries;
        }
        fprintf(f, ",%llu,%llu,%llu,%u,%u,%llu,0x%016llx", (unsigned long long)pre, (unsigned long long)sw_n,
                (unsigned long long)exp, res.passed, res.failed, (unsigned long long)res.events,
                (unsigned long long)res.digest);
    } else {
        for (size_t i = 0; i < N(run_metrics); i++)
            fputc(',', f);
    }
    if (s)
        sc_results_free(&res);
    scenario_free(s);
}

/* ---- workers ---- */

struct worker {
    pid_t pid;
    int fd;
    char *buf;
    size_t len, cap;
};

static void worker_main(const struct sweep *sw, const size_t *sel, size_t nsel, size_t w, size_t jobs, int fd)
{
    char err[512];
    struct scenario *shape = scenario_load(sw->scenario, err, sizeof err);
    FILE *f = fdopen(fd, "w");
    /* points that differ only where a task's run alone does not look share that run */
    struct sc_baseline_cache *baselines = sc_baseline_cache_create();
    if (!shape || !f)
        _exit(3);
    /* Warnings of a thousand runs would bury the progress line; NVEMU_LOG_LEVEL still wins. */
    if (!getenv("NVEMU_LOG_LEVEL"))
        nvemu_log_set_level(NVEMU_LOG_ERROR);
    for (size_t k = w; k < nsel; k += jobs) {
        run_point(sw, shape, sel[k], baselines, f);
        fputc('\n', f);
        fflush(f);
    }
    fclose(f);
    sc_baseline_cache_free(baselines);
    scenario_free(shape);
    _exit(0);
}

/* Takes the complete "row\n" lines out of w's buffer. */
static int take_lines(struct sweep *sw, struct worker *w, size_t *done)
{
    char *start = w->buf, *nl;
    while ((nl = memchr(start, '\n', w->len - (size_t)(start - w->buf)))) {
        *nl = '\0';
        char *end;
        unsigned long long point = strtoull(start, &end, 10);
        if (end == start || *end != ',' || point >= sw->points || sw->rows[point])
            return -1;
        if (!(sw->rows[point] = strdup(start)))
            return -1;
        (*done)++;
        start = nl + 1;
    }
    size_t rest = w->len - (size_t)(start - w->buf);
    memmove(w->buf, start, rest);
    w->len = rest;
    return 0;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int sweep_run(struct sweep *sw, unsigned jobs, FILE *progress, char *err, size_t errlen)
{
    size_t *sel = malloc(sw->points * sizeof *sel), nsel = 0;
    if (!sel) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    if (!sw->backend) {
        free(sel);
        snprintf(err, errlen, "no backend to run the points on");
        return -1;
    }
    for (size_t i = 0; i < sw->points; i++)
        if (in_shard(sw, i))
            sel[nsel++] = i;
    if (jobs == 0 || !sw->backend->parallel)
        jobs = 1;
    if (jobs > nsel)
        jobs = nsel ? (unsigned)nsel : 1;
    struct worker *ws = calloc(jobs, sizeof *ws);
    struct pollfd *pfd = calloc(jobs, sizeof *pfd);
    int rc = ws && pfd ? 0 : -1;
    fflush(NULL);
    for (size_t w = 0; w < jobs && rc == 0 && nsel; w++) {
        int p[2];
        if (pipe(p) != 0 || (ws[w].pid = fork()) < 0) {
            snprintf(err, errlen, "cannot start a worker: %s", strerror(errno));
            rc = -1;
            break;
        }
        if (ws[w].pid == 0) {
            close(p[0]);
            for (size_t k = 0; k < w; k++)
                close(ws[k].fd);
            worker_main(sw, sel, nsel, w, jobs, p[1]);
        }
        close(p[1]);
        ws[w].fd = p[0];
    }
    size_t done = 0, open_fds = rc == 0 && nsel ? jobs : 0;
    double t0 = now_s(), last = 0;
    while (open_fds > 0 && rc == 0) {
        for (size_t w = 0; w < jobs; w++) {
            pfd[w].fd = ws[w].fd;
            pfd[w].events = POLLIN;
        }
        if (poll(pfd, jobs, 500) < 0 && errno != EINTR) {
            rc = -1;
            break;
        }
        for (size_t w = 0; w < jobs && rc == 0; w++) {
            if (ws[w].fd < 0 || !(pfd[w].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            if (ws[w].cap - ws[w].len < 4096) {
                char *nb = realloc(ws[w].buf, ws[w].cap * 2 + 8192);
                if (!nb) {
                    rc = -1;
                    break;
                }
                ws[w].buf = nb;
                ws[w].cap = ws[w].cap * 2 + 8192;
            }
            ssize_t n = read(ws[w].fd, ws[w].buf + ws[w].len, ws[w].cap - ws[w].len);
            if (n > 0) {
                ws[w].len += (size_t)n;
                if (take_lines(sw, &ws[w], &done) != 0) {
                    snprintf(err, errlen, "a worker sent a malformed row");
                    rc = -1;
                }
            } else if (n == 0 || errno != EINTR) {
                close(ws[w].fd);
                ws[w].fd = -1;
                open_fds--;
            }
        }
        double t = now_s();
        if (progress && (t - last > 0.25 || open_fds == 0)) {
            double rate = done / (t - t0 > 1e-6 ? t - t0 : 1e-6);
            fprintf(progress, "\rsweep: %zu/%zu points  %.1f points/s  ETA %.0f s   ", done, nsel, rate,
                    rate > 0 ? (double)(nsel - done) / rate : 0.0);
            fflush(progress);
            last = t;
        }
    }
    if (progress && nsel)
        fputc('\n', progress);
    for (size_t w = 0; ws && w < jobs; w++) {
        if (ws[w].pid <= 0)
            continue;
        if (rc != 0)
            kill(ws[w].pid, SIGKILL);
        if (ws[w].fd >= 0)
            close(ws[w].fd);
        int st;
        waitpid(ws[w].pid, &st, 0);
        if (rc == 0 && !(WIFEXITED(st) && WEXITSTATUS(st) == 0)) {
            snprintf(err, errlen, "sweep worker %zu ended with status 0x%x", w, st);
            rc = -1;
        }
        free(ws[w].buf);
    }
    if (rc == 0 && done != nsel) {
        snprintf(err, errlen, "%zu of %zu points produced no row", nsel - done, nsel);
        rc = -1;
    }
    free(ws);
    free(pfd);
    free(sel);
    return rc;
}

/* ---- tables ---- */

static FILE *open_out(const char *dir, const char *name, char *err, size_t errlen)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (!f)
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
    return f;
}

static void json_str(FILE *f, const char *s)
{
    fputc('"', f);
    nvemu_json_escape(f, s);
    fputc('"', f);
}

/* Whether s is spelled as JSON's number grammar allows (strtod also takes hex, "inf", ".5", "+1"). */
static bool json_number_text(const char *s)
{
    s += *s == '-';
    if (*s < '0' || *s > '9')
        return false;
    while (*s >= '0' && *s <= '9')
        s++;
    if (*s == '.') {
        if (*++s < '0' || *s > '9')
            return false;
        while (*s >= '0' && *s <= '9')
            s++;
    }
    if (*s == 'e' || *s == 'E') {
        s++;
        s += *s == '+' || *s == '-';
        if (*s < '0' || *s > '9')
            return false;
        while (*s >= '0' && *s <= '9')
            s++;
    }
    return !*s;
}

/* A CSV cell as a JSON value: number, boolean, null (empty) or string. */
static void json_cell(FILE *f, const char *c, size_t n)
{
    char buf[512];
    snprintf(buf, sizeof buf, "%.*s", (int)(n < sizeof buf ? n : sizeof buf - 1), c);
    char *end;
    if (!buf[0]) {
        fputs("null", f);
    } else if (!strcmp(buf, "true") || !strcmp(buf, "false")) {
        fputs(buf, f);
    } else {
        errno = 0;
        double v = strtod(buf, &end);
        /* JSON has no inf or nan: a non-finite cell ("-inf", "1e999") stays the CSV's text, as a string. */
        bool num = !*end && !errno && isfinite(v) && json_number_text(buf) &&
                   !(buf[0] == '0' && buf[1] && buf[1] != '.' && buf[1] != 'e'); /* digests stay strings */
        if (num)
            fputs(buf, f);
        else
            json_str(f, buf);
    }
}

static void write_meta(const struct sweep *sw, FILE *f)
{
    fputs("{\n  \"scenario\": ", f);
    json_str(f, sw->scenario);
    fputs(",\n  \"parameters\": [", f);
    for (size_t p = 0; p < sw->nparams; p++) {
        fprintf(f, "%s\n    {\"path\": ", p ? "," : "");
        json_str(f, sw->params[p].path);
        fputs(", \"values\": [", f);
        for (size_t v = 0; v < sw->params[p].nvalues; v++) {
            fputs(v ? ", " : "", f);
            json_str(f, sw->params[p].values[v]);
        }
        fputs("]}", f);
    }
    fprintf(f, "%s],\n  \"seeds\": %u,\n  \"points\": %zu,\n", sw->nparams ? "\n  " : "", sw->seeds, sw->points);
    if (sw->shard_n)
        fprintf(f, "  \"shard\": \"%u/%u\",\n", sw->shard_i, sw->shard_n);
    fputs("  \"columns\": [", f);
    for (size_t c = 0; c < sw->ncolumns; c++) {
        fputs(c ? ", " : "", f);
        json_str(f, sw->columns[c]);
    }
    fputs("],\n  \"rows\": [", f);
}

static int write_tables(const struct sweep *sw, const char *dir, char *err, size_t errlen)
{
    FILE *csv = open_out(dir, "sweep.csv", err, errlen);
    FILE *js = csv ? open_out(dir, "sweep.json", err, errlen) : NULL;
    if (!js) {
        if (csv)
            fclose(csv);
        return -1;
    }
    for (size_t c = 0; c < sw->ncolumns; c++)
        fprintf(csv, "%s%s", c ? "," : "", sw->columns[c]);
    fputc('\n', csv);
    write_meta(sw, js);
    bool first = true;
    for (size_t i = 0; i < sw->points; i++) {
        if (!sw->rows[i])
            continue;
        fprintf(csv, "%s\n", sw->rows[i]);
        fprintf(js, "%s\n    {", first ? "" : ",");
        first = false;
        const char *c = sw->rows[i];
        for (size_t col = 0; col < sw->ncolumns; col++) {
            size_t n = strcspn(c, ",");
            fprintf(js, "%s", col ? ", " : "");
            json_str(js, sw->columns[col]);
            fputs(": ", js);
            json_cell(js, c, n);
            c += n + (c[n] == ',');
        }
        fputc('}', js);
    }
    fprintf(js, "%s]\n}\n", first ? "" : "\n  ");
    int rc = ferror(csv) | ferror(js);
    rc |= fclose(csv) | fclose(js);
    if (rc) {
        snprintf(err, errlen, "%s: write error", dir);
        return -1;
    }
    return 0;
}

/* ---- HTML: small multiples of chosen metrics against each parameter ---- */

static int column_index(const struct sweep *sw, const char *name)
{
    for (size_t c = 0; c < sw->ncolumns; c++)
        if (!strcmp(sw->columns[c], name))
            return (int)c;
    return -1;
}

/* Cell `col` of a row as a number; false when empty or not a number. */
static bool cell_value(const char *row, int col, double *v)
{
    const char *c = row;
    for (int i = 0; i < col; i++) {
        c = strchr(c, ',');
        if (!c)
            return false;
        c++;
    }
    char *end;
    *v = strtod(c, &end);
    return end != c && (*end == ',' || !*end);
}

static bool cell_is(const char *row, int col, const char *text)
{
    const char *c = row;
    for (int i = 0; i < col && c; i++)
        if ((c = strchr(c, ',')))
            c++;
    size_t n = strlen(text);
    return c && !strncmp(c, text, n) && (c[n] == ',' || !c[n]);
}

#define PW 300
#define PH 200
#define ML 56
#define MB 34
#define MT 22
#define MR 12

/* An axis value in at most ~6 characters (57.5k, 1.2M, 0.25), so it fits left of the frame. */
static const char *tick_label(double v, char *buf, size_t len)
{
    static const struct {
        double scale;
        const char *suffix;
    } units[] = {{1e9, "G"}, {1e6, "M"}, {1e3, "k"}};
    for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
        if (fabs(v) >= units[i].scale) {
            snprintf(buf, len, "%.3g%s", v / units[i].scale, units[i].suffix);
            return buf;
        }
    snprintf(buf, len, "%.3g", v);
    return buf;
}

static void panel(FILE *f, const struct sweep *sw, int mcol, size_t p)
{
    const struct sweep_param *pp = &sw->params[p];
    int passcol = (int)sw->nparams + 2;
    double lo = 0, hi = 0, sum[SWEEP_MAX_VALUES] = {0};
    size_t cnt[SWEEP_MAX_VALUES] = {0};
    bool any = false;
    for (size_t i = 0; i < sw->points; i++) {
        double v;
        if (!sw->rows[i] || !cell_value(sw->rows[i], mcol, &v))
            continue;
        lo = any && lo < v ? lo : v;
        hi = any && hi > v ? hi : v;
        any = true;
    }
    if (hi - lo < 1e-12 * (hi > 0 ? hi : 1)) {
        hi += 1;
        lo -= lo >= 1 ? 1 : lo;
    }
    double pad = (hi - lo) * 0.05;
    hi += pad;
    lo = lo - pad < 0 && lo >= 0 ? 0 : lo - pad;
    double pw = PW - ML - MR, ph = PH - MT - MB;
    fprintf(f, "<svg class=\"panel\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\">\n", PW, PH, PW, PH);
    /* titles longer than their panel are squeezed to fit rather than cut by its edge (about 7 px a character
     * of the 12 px bold title, 6 px of the 11 px axis title) */
    size_t tlen = strlen(sw->columns[mcol]) + 4 + strlen(pp->path);
    fprintf(f, "<text x=\"%d\" y=\"14\" class=\"t\"", ML);
    if (tlen * 7 > PW - ML - 4)
        fprintf(f, " textLength=\"%d\" lengthAdjust=\"spacingAndGlyphs\"", PW - ML - 4);
    fputc('>', f);
    report_xml_escape(f, sw->columns[mcol]);
    fputs(" vs ", f);
    report_xml_escape(f, pp->path);
    fputs("</text>\n", f);
    fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%.0f\" height=\"%.0f\" class=\"frame\"/>\n", ML, MT, pw, ph);
    for (int k = 0; k <= 4; k++) {
        double v = lo + (hi - lo) * k / 4, y = MT + ph - ph * k / 4;
        char tick[24];
        fprintf(f, "<line x1=\"%d\" x2=\"%.0f\" y1=\"%.1f\" y2=\"%.1f\" class=\"grid\"/>"
                   "<text x=\"%d\" y=\"%.1f\" class=\"yl\">%s</text>\n",
                ML, ML + pw, y, y, ML - 4, y + 4, tick_label(v, tick, sizeof(tick)));
    }
    double step = pw / (double)pp->nvalues;
    for (size_t v = 0; v < pp->nvalues; v++)
    {
        fprintf(f, "<text x=\"%.1f\" y=\"%.0f\" class=\"xl\">", ML + step * (v + 0.5), MT + ph + 14);
        report_xml_escape(f, pp->values[v]);
        fputs("</text>\n", f);
    }
    fprintf(f, "<text x=\"%.0f\" y=\"%d\" class=\"xt\"", ML + pw / 2, PH - 3);
    if (strlen(pp->path) * 6 > pw)
        fprintf(f, " textLength=\"%.0f\" lengthAdjust=\"spacingAndGlyphs\"", pw);
    fputc('>', f);
    report_xml_escape(f, pp->path);
    fputs("</text>\n", f);
    for (size_t i = 0; i < sw->points; i++) {
        double y;
        if (!sw->rows[i] || !cell_value(sw->rows[i], mcol, &y))
            continue;
        size_t vi[SWEEP_MAX_PARAMS];
        decode(sw, i, vi);
        sum[vi[p]] += y;
        cnt[vi[p]]++;
        /* a point's fixed offset of -5..5 steps of 3% of its column, so the seeds of one value do not hide
         * each other (signed: the unsigned remainder minus 5 wrapped, putting half the points off the page) */
        double x = ML + step * (vi[p] + 0.5) + ((double)((i * 7919) % 11) - 5.0) * step * 0.03;
        fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2.5\" class=\"%s\"/>\n", x,
                MT + ph - ph * (y - lo) / (hi - lo), cell_is(sw->rows[i], passcol, "true") ? "ok" : "bad");
    }
    fputs("<polyline class=\"mean\" points=\"", f);
    for (size_t v = 0; v < pp->nvalues; v++)
        if (cnt[v])
            fprintf(f, "%.1f,%.1f ", ML + step * (v + 0.5), MT + ph - ph * (sum[v] / cnt[v] - lo) / (hi - lo));
    fputs("\"/>\n</svg>\n", f);
}

static int write_html(const struct sweep *sw, const char *dir, const char *const *plot, size_t nplot, char *err,
                      size_t errlen)
{
    int cols[32];
    size_t ncols = 0;
    for (size_t i = 0; i < nplot && ncols < 32; i++) {
        int c = column_index(sw, plot[i]);
        if (c < 0) {
            snprintf(err, errlen, "--metric %s: no such column (see sweep.csv's header)", plot[i]);
            return -1;
        }
        cols[ncols++] = c;
    }
    /* Default: every task's p99 and requests/s, so LC latency and BE throughput sit side by side. */
    for (size_t c = 0; !nplot && c < sw->ncolumns && ncols < 32; c++) {
        const char *dot = strrchr(sw->columns[c], '.');
        if (dot && (!strcmp(dot, ".p99_us") || !strcmp(dot, ".rps")))
            cols[ncols++] = (int)c;
    }
    FILE *f = open_out(dir, "sweep.html", err, errlen);
    if (!f)
        return -1;
    size_t failed, broken;
    sweep_outcome(sw, &failed, &broken);
    report_html_head(f, "nvemu sweep of ", sw->scenario,
                     ".row{display:flex;flex-wrap:wrap;gap:8px}"
                     ".t{font-weight:bold;font-size:12px}.frame{fill:none;stroke:#888}.grid{stroke:#eee}"
                     ".yl{font-size:10px;text-anchor:end}.xl{font-size:10px;text-anchor:middle}"
                     ".xt{font-size:11px;text-anchor:middle;fill:#555}circle.ok{fill:#3b6ea5;opacity:.55}"
                     "circle.bad{fill:#c0392b}.mean{fill:none;stroke:#111;stroke-width:1.5}");
    fputs("<h1>sweep of ", f);
    report_xml_escape(f, sw->scenario);
    fprintf(f, "</h1>\n<p>%zu points (", sw->points);
    for (size_t p = 0; p < sw->nparams; p++) {
        fprintf(f, "%s", p ? " &times; " : "");
        report_xml_escape(f, sw->params[p].path);
        fprintf(f, ": %zu", sw->params[p].nvalues);
    }
    fprintf(f, "%s%u seeds), %zu failed an expectation, %zu could not run. Dots: every point (red: failed); "
               "line: mean over the other parameters and seeds. Data: <a href=\"sweep.csv\">sweep.csv</a>, "
               "<a href=\"sweep.json\">sweep.json</a>.</p>\n",
            sw->nparams ? " &times; " : "", sw->seeds ? sw->seeds : 1, failed, broken);
    for (size_t m = 0; m < ncols; m++) {
        fputs("<div class=\"row\">\n", f);
        for (size_t p = 0; p < sw->nparams; p++)
            panel(f, sw, cols[m], p);
        fputs("</div>\n", f);
    }
    fputs("</body></html>\n", f);
    int rc = ferror(f) | fclose(f);
    if (rc)
        snprintf(err, errlen, "%s/sweep.html: write error", dir);
    return rc ? -1 : 0;
}

int sweep_write(const struct sweep *sw, const char *dir, const char *const *plot, size_t nplot, char *err,
                size_t errlen)
{
    return write_tables(sw, dir, err, errlen) || write_html(sw, dir, plot, nplot, err, errlen) ? -1 : 0;
}

void sweep_outcome(const struct sweep *sw, size_t *failed, size_t *broken)
{
    int pass = (int)sw->nparams + 2, error = pass + 1;
    *failed = *broken = 0;
    for (size_t i = 0; i < sw->points; i++) {
        if (!sw->rows[i])
            continue;
        if (!cell_is(sw->rows[i], error, ""))
            (*broken)++;
        else if (cell_is(sw->rows[i], pass, "false"))
            (*failed)++;
    }
}

/* ---- merge ---- */


/* Fills sw's grid from the first shard's sweep.json; later shards must describe the same grid. */
static int merge_meta(struct sweep *sw, const cJSON *j, const char *dir, bool first, char *err, size_t errlen)
{
    const cJSON *sc = cJSON_GetObjectItemCaseSensitive(j, "scenario");
    const cJSON *params = cJSON_GetObjectItemCaseSensitive(j, "parameters");
    const cJSON *seeds = cJSON_GetObjectItemCaseSensitive(j, "seeds");
    const cJSON *points = cJSON_GetObjectItemCaseSensitive(j, "points");
    const cJSON *cols = cJSON_GetObjectItemCaseSensitive(j, "columns");
    if (!cJSON_IsString(sc) || !cJSON_IsArray(params) || !cJSON_IsNumber(seeds) || !cJSON_IsNumber(points) ||
        !cJSON_IsArray(cols)) {
        snprintf(err, errlen, "%s/sweep.json is not an nvemu sweep table", dir);
        return -1;
    }
    struct sweep other = {0};
    struct sweep *t = first ? sw : &other;
    int rc = (t->scenario = strdup(sc->valuestring)) ? 0 : -1;
    const cJSON *p;
    cJSON_ArrayForEach(p, params)
    {
        const cJSON *path = cJSON_GetObjectItemCaseSensitive(p, "path");
        const cJSON *vals = cJSON_GetObjectItemCaseSensitive(p, "values"), *v;
        if (rc || !cJSON_IsString(path) || !cJSON_IsArray(vals) || t->nparams >= SWEEP_MAX_PARAMS) {
            rc = -1;
            break;
        }
        struct sweep_param *sp = &t->params[t->nparams++];
        sp->path = strdup(path->valuestring);
        cJSON_ArrayForEach(v, vals)
        {
            if (!cJSON_IsString(v) || sp->nvalues >= SWEEP_MAX_VALUES) {
                rc = -1;
                break;
            }
            sp->values[sp->nvalues++] = strdup(v->valuestring);
        }
    }
    /* The grid is checked before any point is decoded: a parameter without values would divide by
     * zero, and a point count that is not the grid's would index past it. */
    size_t grid = 1;
    for (size_t i = 0; rc == 0 && i < t->nparams; i++) {
        if (!t->params[i].nvalues) {
            snprintf(err, errlen, "%s/sweep.json: parameter %s has no values", dir, t->params[i].path);
            rc = -2;
        } else {
            grid *= t->params[i].nvalues;
        }
    }
    if (rc == 0 && !(seeds->valuedouble >= 0 && seeds->valuedouble <= UINT32_MAX &&
                     seeds->valuedouble == (uint32_t)seeds->valuedouble)) {
        snprintf(err, errlen, "%s/sweep.json: seeds is not a count", dir);
        rc = -2;
    }
    if (rc == 0) {
        t->seeds = (uint32_t)seeds->valuedouble;
        /* at most 8 parameters of 256 values: grid < 2^64, times seeds < 2^32 would not fit; the
         * double comparison below refuses such grids before they are allocated */
        double want = (double)grid * (t->seeds ? t->seeds : 1);
        if (points->valuedouble != want || want > SWEEP_MAX_MERGED_POINTS) {
            snprintf(err, errlen, "%s/sweep.json: points (%.0f) is not the grid's %.0f (at most %d)", dir,
                     points->valuedouble, want, SWEEP_MAX_MERGED_POINTS);
            rc = -2;
        } else {
            t->points = (size_t)want;
        }
    }
    const cJSON *c;
    cJSON_ArrayForEach(c, cols)
    {
        if (rc == 0 && (!cJSON_IsString(c) || add_column(t, "%s", c->valuestring) != 0))
            rc = -1;
    }
    if (rc == 0 && first && !(sw->rows = calloc(sw->points ? sw->points : 1, sizeof *sw->rows)))
        rc = -1;
    if (rc == 0 && !first) {
        bool same = !strcmp(sw->scenario, other.scenario) && sw->nparams == other.nparams &&
                    sw->seeds == other.seeds && sw->points == other.points && sw->ncolumns == other.ncolumns;
        for (size_t i = 0; same && i < sw->nparams; i++) {
            same = !strcmp(sw->params[i].path, other.params[i].path) &&
                   sw->params[i].nvalues == other.params[i].nvalues;
            for (size_t v = 0; same && v < sw->params[i].nvalues; v++)
                same = !strcmp(sw->params[i].values[v], other.params[i].values[v]);
        }
        for (size_t i = 0; same && i < sw->ncolumns; i++)
            same = !strcmp(sw->columns[i], other.columns[i]);
        if (!same) {
            snprintf(err, errlen, "%s is a shard of another sweep (scenario, parameters, seeds or columns differ)",
                     dir);
            rc = -2;
        }
    }
    sweep_free(&other);
    if (rc == -1)
        snprintf(err, errlen, "%s/sweep.json: unreadable grid (or out of memory)", dir);
    return rc ? -1 : 0;
}

static int merge_rows(struct sweep *sw, char *csv, const char *dir, char *err, size_t errlen)
{
    char *save = NULL, *line = strtok_r(csv, "\n", &save);
    bool same = line != NULL;
    const char *h = line;
    for (size_t c = 0; same && c < sw->ncolumns; c++) {
        size_t n = strlen(sw->columns[c]);
        same = (!c || *h++ == ',') && !strncmp(h, sw->columns[c], n);
        h += same ? n : 0;
    }
    if (!same || *h) {
        snprintf(err, errlen, "%s/sweep.csv: header differs from sweep.json's columns", dir);
        return -1;
    }
    for (line = strtok_r(NULL, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        char *end;
        unsigned long long point = strtoull(line, &end, 10);
        if (end == line || *end != ',' || point >= sw->points) {
            snprintf(err, errlen, "%s/sweep.csv: a row without a valid point number", dir);
            return -1;
        }
        if (sw->rows[point]) {
            snprintf(err, errlen, "point %llu is in two shards (again in %s)", point, dir);
            return -1;
        }
        if (!(sw->rows[point] = strdup(line))) {
            snprintf(err, errlen, "out of memory");
            return -1;
        }
    }
    return 0;
}

int sweep_merge_shard(struct sweep *sw, const char *json, char *csv, const char *name, bool first, char *err,
                      size_t errlen)
{
    cJSON *j = cJSON_Parse(json);
    int rc = j ? merge_meta(sw, j, name, first, err, errlen) : -1;
    if (!j)
        snprintf(err, errlen, "%s/sweep.json: not JSON", name);
    cJSON_Delete(j);
    return rc ? -1 : merge_rows(sw, csv, name, err, errlen);
}

int sweep_merge(struct sweep *sw, const char *const *dirs, size_t ndirs, char *err, size_t errlen)
{
    for (size_t d = 0; d < ndirs; d++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/sweep.json", dirs[d]);
        char *json = nvemu_slurp(path, SWEEP_MAX_FILE_BYTES, NULL, err, errlen);
        if (!json)
            return -1;
        snprintf(path, sizeof path, "%s/sweep.csv", dirs[d]);
        char *csv = nvemu_slurp(path, SWEEP_MAX_FILE_BYTES, NULL, err, errlen);
        int rc = csv ? sweep_merge_shard(sw, json, csv, dirs[d], d == 0, err, errlen) : -1;
        free(json);
        free(csv);
        if (rc)
            return -1;
    }
    size_t missing = 0, first = 0;
    for (size_t i = sw->points; i-- > 0;)
        if (!sw->rows[i]) {
            missing++;
            first = i;
        }
    if (missing) {
        snprintf(err, errlen, "%zu of %zu points are in no shard (first: point %zu)", missing, sw->points, first);
        return -1;
    }
    return 0;
}

void sweep_free(struct sweep *sw)
{
    for (size_t p = 0; p < sw->nparams; p++) {
        free(sw->params[p].path);
        for (size_t v = 0; v < sw->params[p].nvalues; v++)
            free(sw->params[p].values[v]);
    }
    for (size_t c = 0; c < sw->ncolumns; c++)
        free(sw->columns[c]);
    for (size_t i = 0; sw->rows && i < sw->points; i++)
        free(sw->rows[i]);
    free(sw->rows);
    free(sw->scenario);
    memset(sw, 0, sizeof *sw);
}
