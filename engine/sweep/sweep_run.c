/* Running a sweep: one point in a worker process, the workers fed and drained (sweep_run). */
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
#include "sweep_internal.h"

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
    size_t ncells = SWEEP_TASK_METRICS + (base_shape->baseline ? SWEEP_ALONE_METRICS : 0);
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

/* Runs one point and writes its CSV row (no newline) to f. */
static void run_point(const struct sweep *sw, const struct scenario *shape, size_t point,
                      struct sc_baseline_cache *baselines, FILE *f)
{
    size_t vi[SWEEP_MAX_PARAMS];
    uint32_t seed = sweep_decode(sw, point, vi);
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
        for (size_t i = 0; i < SWEEP_RUN_METRICS; i++)
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

