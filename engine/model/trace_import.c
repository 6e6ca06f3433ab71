/* PyTorch profiler trace import (trace_import.h). */
#include "trace_import.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"

__attribute__((format(printf, 4, 5)))
static int fail(char *err, size_t errlen, const char *name, const char *fmt, ...)
{
    char msg[384];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    snprintf(err, errlen, "%s: %s", name, msg);
    return -1;
}

/* Line and column (1-based) of p in text. */
static void line_col(const char *text, const char *p, unsigned *line, unsigned *col)
{
    *line = 1;
    *col = 1;
    for (const char *s = text; s < p && *s; s++) {
        if (*s == '\n') {
            (*line)++;
            *col = 1;
        } else {
            (*col)++;
        }
    }
}

static const char *str_of(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

static bool num_of(const cJSON *o, const char *key, double *out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble))
        return false;
    *out = v->valuedouble;
    return true;
}

/* The product of a [x, y, z] array of positive integers, or 0 when it is not one. */
static double dim3(const cJSON *args, const char *key)
{
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(args, key);
    if (!cJSON_IsArray(a) || cJSON_GetArraySize(a) < 1 || cJSON_GetArraySize(a) > 3)
        return 0;
    double p = 1;
    for (const cJSON *e = a->child; e; e = e->next) {
        if (!cJSON_IsNumber(e) || !(e->valuedouble >= 1) || e->valuedouble != floor(e->valuedouble))
            return 0;
        p *= e->valuedouble;
    }
    return p;
}

static bool step_name_matches(const char *name, const char *iteration)
{
    size_t n = strlen(iteration);
    return strncmp(name, iteration, n) == 0 && (name[n] == '\0' || name[n] == '#');
}

/* A step or kernel longer than a day (µs) is not a recording's: it would overflow virtual ns. */
#define MAX_SPAN_US 86400e6

struct picked {
    double ts, dur, launch;
    const cJSON *ev;
};

/* Launch order (the CPU's), then GPU start order for launches of the same instant. */
static int by_launch(const void *a, const void *b)
{
    const struct picked *x = a, *y = b;
    if (x->launch != y->launch)
        return x->launch < y->launch ? -1 : 1;
    return x->ts < y->ts ? -1 : x->ts > y->ts;
}

struct launch {
    double corr, ts;
};

static int by_corr(const void *a, const void *b)
{
    const struct launch *x = a, *y = b;
    return x->corr < y->corr ? -1 : x->corr > y->corr;
}

/* The CPU launch calls (runtime and driver API events with a correlation id), sorted by it; NULL on no memory. */
static struct launch *launch_index(const cJSON *events, size_t *count)
{
    size_t n = 0, cap = 16;
    struct launch *l = malloc(cap * sizeof(*l));
    for (const cJSON *e = events->child; e && l; e = e->next) {
        const char *cat = str_of(e, "cat");
        struct launch x;
        if (!cat || (strcmp(cat, "cuda_runtime") && strcmp(cat, "cuda_driver")) ||
            !num_of(cJSON_GetObjectItemCaseSensitive(e, "args"), "correlation", &x.corr) || !num_of(e, "ts", &x.ts))
            continue;
        if (n == cap) {
            struct launch *nl = realloc(l, (cap *= 2) * sizeof(*nl));
            if (!nl) {
                free(l);
                return NULL;
            }
            l = nl;
        }
        l[n++] = x;
    }
    if (l)
        qsort(l, n, sizeof(*l), by_corr);
    *count = n;
    return l;
}

/* When the kernel's launch call ran on the CPU (µs): its correlated launch event, else its own start. */
static double launch_time(const struct launch *idx, size_t n, const cJSON *kernel, double ts)
{
    struct launch key;
    if (!num_of(cJSON_GetObjectItemCaseSensitive(kernel, "args"), "correlation", &key.corr))
        return ts;
    const struct launch *hit = n ? bsearch(&key, idx, n, sizeof(*idx), by_corr) : NULL;
    return hit ? hit->ts : ts;
}

static int fill_kernel(const char *name, const struct picked *p, double *stream_ids, uint32_t *nstreams,
                       struct sc_kernel *k, char *err, size_t errlen)
{
    const cJSON *args = cJSON_GetObjectItemCaseSensitive(p->ev, "args");
    const char *kname = str_of(p->ev, "name");
    kname = kname ? kname : "(unnamed)";
    double blocks = dim3(args, "grid"), threads = dim3(args, "block"), regs = 0, smem = 0, stream = 0;
    if (!blocks || !threads)
        return fail(err, errlen, name, "kernel '%.80s' at ts %.3f has no valid grid/block", kname, p->ts);
    if (blocks > (double)(1u << 24) || threads > 1024)
        return fail(err, errlen, name, "kernel '%.80s' at ts %.3f: grid %.0f blocks x %.0f threads is beyond "
                    "what a scenario kernel holds (2^24 blocks, 1024 threads)", kname, p->ts, blocks, threads);
    num_of(args, "registers per thread", &regs);
    num_of(args, "shared memory", &smem);
    num_of(args, "stream", &stream);
    if (p->dur > MAX_SPAN_US)
        return fail(err, errlen, name, "kernel '%.80s' at ts %.3f lasts %.0f us, longer than a day", kname, p->ts,
                    p->dur);
    if (regs < 0 || regs > 255 || smem < 0 || smem > 227.0 * 1024)
        return fail(err, errlen, name, "kernel '%.80s' at ts %.3f: %.0f registers per thread or %.0f bytes of "
                    "shared memory is beyond a block's limits (255, 227 KiB)", kname, p->ts, regs, smem);
    uint32_t si = 0;
    while (si < *nstreams && stream_ids[si] != stream)
        si++;
    if (si == *nstreams) {
        if (*nstreams == SC_MAX_STREAMS)
            return fail(err, errlen, name, "the step uses more than %d streams", SC_MAX_STREAMS);
        stream_ids[(*nstreams)++] = stream;
    }
    double ns = round(p->dur * 1000.0);
    *k = (struct sc_kernel){.duration_ns = ns < 1 ? 1 : (uint64_t)ns, .blocks = (uint32_t)blocks, .stream = si,
                            .repeat = 1, .shared_kb = (uint32_t)ceil(smem / 1024.0), .threads = (uint32_t)threads,
                            .regs = (uint32_t)regs};
    return 0;
}

static int import_tree(const char *name, const cJSON *root, const char *iteration, struct sc_task *t, char *err,
                       size_t errlen)
{
    const cJSON *events = cJSON_IsObject(root) ? cJSON_GetObjectItemCaseSensitive(root, "traceEvents") : root;
    if (!cJSON_IsArray(events))
        return fail(err, errlen, name, "not a Chrome trace: no 'traceEvents' array");
    double s0 = 0, s1 = 0;
    bool found = false;
    for (const cJSON *e = events->child; e; e = e->next) {
        const char *cat = str_of(e, "cat"), *n = str_of(e, "name");
        double ts, dur;
        if (!cat || strcmp(cat, "user_annotation") || !n || !step_name_matches(n, iteration) || !num_of(e, "ts", &ts) ||
            !num_of(e, "dur", &dur) || dur < 0 || dur > MAX_SPAN_US)
            continue;
        if (!found || ts < s0) {
            s0 = ts;
            s1 = ts + dur;
            found = true;
        }
    }
    if (!found)
        return fail(err, errlen, name, "no CPU step annotation '%s' or '%s#N' (user_annotation events)", iteration,
                    iteration);
    size_t cap = 0, n = 0, nlaunch = 0;
    struct launch *idx = launch_index(events, &nlaunch);
    if (!idx)
        return fail(err, errlen, name, "out of memory");
    struct picked *ks = NULL;
    int rc = 0;
    for (const cJSON *e = events->child; e && !rc; e = e->next) {
        const char *cat = str_of(e, "cat");
        struct picked p = {.ev = e};
        if (!cat || strcmp(cat, "kernel") || !num_of(e, "ts", &p.ts) || !num_of(e, "dur", &p.dur) || p.dur < 0)
            continue;
        p.launch = launch_time(idx, nlaunch, e, p.ts);
        if (p.launch < s0 || p.launch > s1)
            continue;
        if (n == SC_MAX_KERNELS) {
            rc = fail(err, errlen, name, "step '%s' has more than %d kernels, the most a request holds", iteration,
                      SC_MAX_KERNELS);
            break;
        }
        if (n == cap) {
            cap = cap ? cap * 2 : 64;
            struct picked *nk = realloc(ks, cap * sizeof(*nk));
            if (!nk) {
                rc = fail(err, errlen, name, "out of memory");
                break;
            }
            ks = nk;
        }
        ks[n++] = p;
    }
    free(idx);
    if (!rc && !n)
        rc = fail(err, errlen, name, "step '%s' launches no kernels", iteration);
    if (rc) {
        free(ks);
        return -1;
    }
    qsort(ks, n, sizeof(*ks), by_launch);
    double stream_ids[SC_MAX_STREAMS];
    uint32_t nstreams = 0;
    for (size_t i = 0; i < n && !rc; i++) {
        rc = fill_kernel(name, &ks[i], stream_ids, &nstreams, &t->kernels[i], err, errlen);
        /* the CPU time the program spent between this launch call and the one before */
        t->kernels[i].launch_gap_ns = i ? (uint64_t)round((ks[i].launch - ks[i - 1].launch) * 1000.0) : 0;
    }
    double first_launch = ks[0].launch;
    free(ks);
    if (rc)
        return -1;
    t->kernel_count = (uint32_t)n;
    t->streams = nstreams;
    t->preprocess_ns = (uint64_t)round((first_launch - s0) * 1000.0);
    return 0;
}

int sc_trace_import_text(const char *name, const char *text, const char *iteration, struct sc_task *t, char *err,
                         size_t errlen)
{
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithOpts(text, &end, true);
    if (!root) {
        unsigned line, col;
        line_col(text, end ? end : text, &line, &col);
        snprintf(err, errlen, "%s:%u:%u: not valid JSON", name, line, col);
        return -1;
    }
    int rc = import_tree(name, root, iteration, t, err, errlen);
    cJSON_Delete(root);
    return rc;
}

int sc_trace_import(const char *path, const char *iteration, struct sc_task *t, char *err, size_t errlen)
{
    char rerr[600];
    size_t len = 0;
    char *text = nvemu_slurp(path, SC_FROM_TRACE_FILE_MAX, &len, rerr, sizeof(rerr));
    if (!text) {
        snprintf(err, errlen, "cannot read trace %s", rerr);
        return -1;
    }
    if (memchr(text, '\0', len)) {
        free(text);
        return fail(err, errlen, path, "not a JSON trace (it holds NUL bytes; a .gz trace must be unpacked first)");
    }
    int rc = sc_trace_import_text(path, text, iteration, t, err, errlen);
    free(text);
    return rc;
}
