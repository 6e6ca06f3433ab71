/*
 * Strict scenario validation: walks the YAML tree with one small reader per
 * mapping; each reader lists its keys, so an unknown key is refused where it
 * was written. Semantic checks that span sections (task names referenced by
 * faults and expectations, ratio bounds that need `baseline`) run last.
 */
#include "scenario.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ydoc.h"
#include "yoverride.h"

struct ld {
    const char *file;
    char dir[512];
    char *err;
    size_t errlen;
};

__attribute__((format(printf, 3, 4)))
static int fail(struct ld *L, const struct ynode *n, const char *fmt, ...)
{
    char msg[384];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    snprintf(L->err, L->errlen, "%s:%u:%u: %s", L->file, n ? n->line : 1, n ? n->column : 1, msg);
    return -1;
}

static int want(struct ld *L, const struct ynode *n, enum ynode_kind k, const char *what)
{
    if (n->kind != k)
        return fail(L, n, "%s must be %s, not %s", what, ydoc_kind_name(k), ydoc_kind_name(n->kind));
    return 0;
}

/* Refuses keys not in `allowed` (NULL-terminated). */
static int check_keys(struct ld *L, const struct ynode *map, const char *what, const char *const *allowed)
{
    for (size_t i = 0; i < map->count; i++) {
        const char *k = map->keys[i]->scalar;
        bool ok = false;
        for (const char *const *a = allowed; *a && !ok; a++)
            ok = strcmp(*a, k) == 0;
        if (!ok) {
            char list[256] = "";
            for (const char *const *a = allowed; *a; a++) {
                strncat(list, *a, sizeof(list) - strlen(list) - 1);
                if (a[1])
                    strncat(list, ", ", sizeof(list) - strlen(list) - 1);
            }
            return fail(L, map->keys[i], "unknown key '%s' in %s (allowed: %s)", k, what, list);
        }
    }
    return 0;
}

static const struct ynode *required(struct ld *L, const struct ynode *map, const char *key, const char *what)
{
    const struct ynode *v = ydoc_get(map, key);
    if (!v)
        fail(L, map, "%s needs '%s'", what, key);
    return v;
}

static int get_string(struct ld *L, const struct ynode *n, const char *what, char *buf, size_t len)
{
    if (want(L, n, YNODE_SCALAR, what))
        return -1;
    if (!n->scalar[0])
        return fail(L, n, "%s must not be empty", what);
    if (strlen(n->scalar) >= len)
        return fail(L, n, "%s is too long (at most %zu characters)", what, len - 1);
    memcpy(buf, n->scalar, strlen(n->scalar) + 1);
    return 0;
}

static int get_strdup(struct ld *L, const struct ynode *n, const char *what, char **out)
{
    if (want(L, n, YNODE_SCALAR, what))
        return -1;
    *out = strdup(n->scalar);
    return *out ? 0 : fail(L, n, "out of memory");
}

static int get_double(struct ld *L, const struct ynode *n, const char *what, double *out)
{
    if (want(L, n, YNODE_SCALAR, what))
        return -1;
    char *end = NULL;
    errno = 0;
    double v = strtod(n->scalar, &end);
    if (n->quoted || end == n->scalar || *end || errno || !isfinite(v))
        return fail(L, n, "%s must be a number, not '%s'", what, n->scalar);
    *out = v;
    return 0;
}

static int get_u64(struct ld *L, const struct ynode *n, const char *what, uint64_t min, uint64_t max, uint64_t *out)
{
    if (want(L, n, YNODE_SCALAR, what))
        return -1;
    const char *s = n->scalar;
    char *end = NULL;
    errno = 0;
    if (n->quoted || *s == '-' || *s == '+' || *s == '\0')
        return fail(L, n, "%s must be a whole number >= %llu, not '%s'", what, (unsigned long long)min, s);
    unsigned long long v = strtoull(s, &end, 0);
    if (*end || errno)
        return fail(L, n, "%s must be a whole number, not '%s'", what, s);
    if (v < min || v > max)
        return fail(L, n, "%s must be between %llu and %llu, not %llu", what, (unsigned long long)min,
                    (unsigned long long)max, v);
    *out = v;
    return 0;
}

static int get_u32(struct ld *L, const struct ynode *n, const char *what, uint32_t min, uint32_t max, uint32_t *out)
{
    uint64_t v;
    if (get_u64(L, n, what, min, max, &v))
        return -1;
    *out = (uint32_t)v;
    return 0;
}

static int get_bool(struct ld *L, const struct ynode *n, const char *what, bool *out)
{
    if (want(L, n, YNODE_SCALAR, what))
        return -1;
    if (!n->quoted && strcmp(n->scalar, "true") == 0)
        *out = true;
    else if (!n->quoted && strcmp(n->scalar, "false") == 0)
        *out = false;
    else
        return fail(L, n, "%s must be true or false, not '%s'", what, n->scalar);
    return 0;
}

/* Index of the scalar in names[] (NULL-terminated). */
static int get_enum(struct ld *L, const struct ynode *n, const char *what, const char *const *names, int *out)
{
    if (want(L, n, YNODE_SCALAR, what))
        return -1;
    for (int i = 0; names[i]; i++) {
        if (strcmp(names[i], n->scalar) == 0) {
            *out = i;
            return 0;
        }
    }
    char list[160] = "";
    for (int i = 0; names[i]; i++) {
        strncat(list, names[i], sizeof(list) - strlen(list) - 1);
        if (names[i + 1])
            strncat(list, "|", sizeof(list) - strlen(list) - 1);
    }
    return fail(L, n, "%s must be one of %s, not '%s'", what, list, n->scalar);
}

struct unit { const char *suffix; double ns; };
static const struct unit duration_units[] = {
    {"ns", 1.0}, {"us", 1e3}, {"\xc2\xb5s", 1e3}, {"ms", 1e6}, {"s", 1e9}, {NULL, 0},
};

/* Parses "250us", "1.5 ms", "10s", "0" into ns; -1 with a message on failure. */
static int parse_duration(const char *s, uint64_t *out, const char **why)
{
    char *end = NULL;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || errno || !isfinite(v)) {
        *why = "is not a duration (write e.g. 250us, 1.5ms, 10s)";
        return -1;
    }
    if (v < 0) {
        *why = "must not be negative";
        return -1;
    }
    while (*end == ' ')
        end++;
    if (!*end) {
        if (v != 0) {
            *why = "needs a unit (ns, us, ms or s)";
            return -1;
        }
        *out = 0;
        return 0;
    }
    for (const struct unit *u = duration_units; u->suffix; u++) {
        if (strcmp(end, u->suffix) == 0) {
            double ns = v * u->ns;
            if (ns > 1e18) {
                *why = "is too long";
                return -1;
            }
            *out = (uint64_t)llround(ns);
            return 0;
        }
    }
    *why = "has an unknown unit (use ns, us, ms or s)";
    return -1;
}

static int get_duration(struct ld *L, const struct ynode *n, const char *what, bool allow_zero, uint64_t *out)
{
    if (want(L, n, YNODE_SCALAR, what))
        return -1;
    const char *why = NULL;
    if (parse_duration(n->scalar, out, &why))
        return fail(L, n, "%s '%s' %s", what, n->scalar, why);
    if (!allow_zero && *out == 0)
        return fail(L, n, "%s must be greater than 0", what);
    return 0;
}

static int get_rate(struct ld *L, const struct ynode *n, const char *what, double *out)
{
    if (get_double(L, n, what, out))
        return -1;
    if (*out <= 0)
        return fail(L, n, "%s must be greater than 0 (requests per second), not %s", what, n->scalar);
    if (*out > 1e7)
        return fail(L, n, "%s %s is above 10,000,000 requests per second", what, n->scalar);
    return 0;
}

/* Path of `rel` relative to the scenario's directory; -1 (with a message at n) when it does not fit. */
static int resolve(struct ld *L, const struct ynode *n, const char *rel, char *out, size_t len)
{
    int w = rel[0] == '/' || !L->dir[0] ? snprintf(out, len, "%s", rel) : snprintf(out, len, "%s/%s", L->dir, rel);
    if (w < 0 || (size_t)w >= len)
        return fail(L, n, "path '%s' is too long", rel);
    return 0;
}

/* ---- gpu ---- */

/* Fixed overheads may be 0; a switch, a save or a timeout of 0 is not a real GPU. */
static const bool timing_may_be_zero[SC_T_COUNT] = {false, true, true, true, false, false};

static int load_gpu(struct ld *L, const struct ynode *n, struct sc_gpu *g)
{
    static const char *const keys[] = {"profile", "timeslice", "preempt_mode", "timing", "inject_latency", NULL};
    static const char *const modes[] = {"wfi", "cta", "cilp", NULL};
    if (want(L, n, YNODE_MAP, "gpu") || check_keys(L, n, "gpu", keys))
        return -1;
    const struct ynode *v;
    if ((v = ydoc_get(n, "profile")) && get_string(L, v, "gpu.profile", g->profile, sizeof(g->profile)))
        return -1;
    if ((v = ydoc_get(n, "timeslice"))) {
        uint64_t ns;
        if (get_duration(L, v, "gpu.timeslice", false, &ns))
            return -1;
        if (ns % 1000)
            return fail(L, v, "gpu.timeslice must be a whole number of microseconds");
        g->timeslice_us = ns / 1000;
    }
    if ((v = ydoc_get(n, "preempt_mode"))) {
        int m;
        if (get_enum(L, v, "gpu.preempt_mode", modes, &m))
            return -1;
        g->preempt_mode = (enum sc_preempt_mode)m;
    }
    if ((v = ydoc_get(n, "inject_latency")) && get_bool(L, v, "gpu.inject_latency", &g->inject_latency))
        return -1;
    if ((v = ydoc_get(n, "timing"))) {
        if (want(L, v, YNODE_MAP, "gpu.timing") || check_keys(L, v, "gpu.timing", sc_timing_names))
            return -1;
        for (int f = 0; f < SC_T_COUNT; f++) {
            const struct ynode *t = ydoc_get(v, sc_timing_names[f]);
            if (!t)
                continue;
            char what[48];
            snprintf(what, sizeof(what), "gpu.timing.%s", sc_timing_names[f]);
            if (get_duration(L, t, what, timing_may_be_zero[f], &g->timing[f].value_ns))
                return -1;
            g->timing[f].set = true;
        }
    }
    return 0;
}

/* ---- policy / scheduler ---- */

static int load_args_map(struct ld *L, const struct ynode *n, const char *what, char **args, int *nargs)
{
    if (want(L, n, YNODE_MAP, what))
        return -1;
    if (n->count > SC_MAX_ARGS)
        return fail(L, n, "%s has more than %d arguments", what, SC_MAX_ARGS);
    for (size_t i = 0; i < n->count; i++) {
        const struct ynode *val = n->items[i];
        if (val->kind != YNODE_SCALAR)
            return fail(L, val, "%s.%s must be a scalar", what, n->keys[i]->scalar);
        size_t len = strlen(n->keys[i]->scalar) + strlen(val->scalar) + 2;
        char *kv = malloc(len);
        if (!kv)
            return fail(L, val, "out of memory");
        snprintf(kv, len, "%s=%s", n->keys[i]->scalar, val->scalar);
        args[(*nargs)++] = kv;
    }
    return 0;
}

/* A sequence of strings (a program's argv after argv[0]). */
static int load_args_seq(struct ld *L, const struct ynode *n, const char *what, char **args, int *nargs)
{
    if (want(L, n, YNODE_SEQ, what))
        return -1;
    if (n->count > SC_MAX_ARGS)
        return fail(L, n, "%s has more than %d items", what, SC_MAX_ARGS);
    char item[64];
    snprintf(item, sizeof(item), "%s item", what);
    for (size_t i = 0; i < n->count; i++)
        if (get_strdup(L, n->items[i], item, &args[(*nargs)++]))
            return -1;
    return 0;
}

static int load_policy(struct ld *L, const struct ynode *n, struct sc_policy *p)
{
    static const char *const keys[] = {"plugin", "args", NULL};
    if (n->kind == YNODE_SCALAR && strcmp(n->scalar, "none") == 0)
        return 0;
    if (want(L, n, YNODE_MAP, "policy (or 'none')") || check_keys(L, n, "policy", keys))
        return -1;
    const struct ynode *v = required(L, n, "plugin", "policy");
    char name[256];
    if (!v || get_string(L, v, "policy.plugin", name, sizeof(name)))
        return -1;
    /* A bare name is a plugin built with nvemu; anything with a slash is a path. */
    if (strchr(name, '/')) {
        if (resolve(L, v, name, p->plugin, sizeof(p->plugin)))
            return -1;
    } else {
        snprintf(p->plugin, sizeof(p->plugin), "%s", name);
    }
    if ((v = ydoc_get(n, "args")) && load_args_map(L, v, "policy.args", p->args, &p->nargs))
        return -1;
    return 0;
}

static int load_scheduler(struct ld *L, const struct ynode *n, struct sc_scheduler *s)
{
    static const char *const keys[] = {"kind", "action", "lc_timeslice", "be_timeslice", "binary", "args", NULL};
    static const char *const kinds[] = {"none", "gpreempt", "process", NULL};
    static const char *const actions[] = {"timeslice", "preempt", "disable", NULL};
    if (want(L, n, YNODE_MAP, "scheduler") || check_keys(L, n, "scheduler", keys))
        return -1;
    const struct ynode *v = required(L, n, "kind", "scheduler");
    int k;
    if (!v || get_enum(L, v, "scheduler.kind", kinds, &k))
        return -1;
    s->kind = (enum sc_scheduler_kind)k;
    s->lc_timeslice_us = 1000000;   /* GPreempt's set_priority values */
    s->be_timeslice_us = 1;
    if ((v = ydoc_get(n, "action"))) {
        int a;
        if (get_enum(L, v, "scheduler.action", actions, &a))
            return -1;
        s->action = (enum sc_sched_action)a;
    }
    static const char *const ts_keys[] = {"lc_timeslice", "be_timeslice"};
    uint64_t *ts_out[] = {&s->lc_timeslice_us, &s->be_timeslice_us};
    for (int i = 0; i < 2; i++) {
        if (!(v = ydoc_get(n, ts_keys[i])))
            continue;
        uint64_t ns;
        char what[40];
        snprintf(what, sizeof(what), "scheduler.%s", ts_keys[i]);
        if (get_duration(L, v, what, false, &ns))
            return -1;
        if (ns % 1000)
            return fail(L, v, "%s must be a whole number of microseconds", what);
        *ts_out[i] = ns / 1000;
        s->set_timeslices = true;
    }
    if (s->action == SC_SCHED_TIMESLICE)
        s->set_timeslices = true;
    v = ydoc_get(n, "binary");
    if (s->kind == SC_SCHED_PROCESS) {
        if (!v)
            return fail(L, n, "scheduler of kind 'process' needs 'binary'");
        char rel[256], path[512];
        if (get_string(L, v, "scheduler.binary", rel, sizeof(rel)))
            return -1;
        if (resolve(L, v, rel, path, sizeof(path)))
            return -1;
        if (!(s->binary = strdup(path)))
            return fail(L, v, "out of memory");
    } else if (v) {
        return fail(L, v, "'binary' is only for a scheduler of kind 'process'");
    }
    if ((v = ydoc_get(n, "args")) && load_args_seq(L, v, "scheduler.args", s->args, &s->nargs))
        return -1;
    return 0;
}

/* ---- tasks ---- */

static int load_trace_file(struct ld *L, const struct ynode *n, struct sc_task *t)
{
    char rel[256], path[512];
    if (get_string(L, n, "arrival.file", rel, sizeof(rel)))
        return -1;
    if (resolve(L, n, rel, path, sizeof(path)))
        return -1;
    FILE *f = fopen(path, "r");
    if (!f)
        return fail(L, n, "cannot open arrival trace %s: %s", path, strerror(errno));
    char line[128];
    unsigned lineno = 0;
    size_t cap = 0;
    uint64_t prev = 0;
    while (fgets(line, sizeof(line), f)) {
        lineno++;
        line[strcspn(line, "#\r\n")] = '\0';
        char *s = line;
        while (*s == ' ' || *s == '\t')
            s++;
        size_t end = strlen(s);
        while (end && (s[end - 1] == ' ' || s[end - 1] == '\t'))
            s[--end] = '\0';
        if (!*s)
            continue;
        uint64_t ns;
        const char *why = NULL;
        if (parse_duration(s, &ns, &why)) {
            fclose(f);
            snprintf(L->err, L->errlen, "%s:%u:1: arrival '%s' %s", path, lineno, s, why);
            return -1;
        }
        if (ns < prev) {
            fclose(f);
            snprintf(L->err, L->errlen, "%s:%u:1: arrivals must be in time order", path, lineno);
            return -1;
        }
        prev = ns;
        if (t->trace_count == cap) {
            cap = cap ? cap * 2 : 64;
            uint64_t *nt = realloc(t->trace_ns, cap * sizeof(*nt));
            if (!nt) {
                fclose(f);
                return fail(L, n, "out of memory");
            }
            t->trace_ns = nt;
        }
        t->trace_ns[t->trace_count++] = ns;
    }
    fclose(f);
    if (!t->trace_count)
        return fail(L, n, "arrival trace %s holds no arrivals", path);
    return 0;
}

static int load_arrival(struct ld *L, const struct ynode *n, struct sc_task *t)
{
    static const char *const keys[] = {"type", "rate", "think", "file", "start", NULL};
    static const char *const types[] = {"periodic", "poisson", "closed", "trace", NULL};
    if (want(L, n, YNODE_MAP, "arrival") || check_keys(L, n, "arrival", keys))
        return -1;
    const struct ynode *v = required(L, n, "type", "arrival");
    int type;
    if (!v || get_enum(L, v, "arrival.type", types, &type))
        return -1;
    t->arrival = (enum sc_arrival)type;
    const struct ynode *rate = ydoc_get(n, "rate"), *think = ydoc_get(n, "think"), *file = ydoc_get(n, "file");
    bool open_loop = t->arrival == SC_ARRIVAL_PERIODIC || t->arrival == SC_ARRIVAL_POISSON;
    if (open_loop) {
        if (!rate)
            return fail(L, n, "a %s arrival needs 'rate' (requests per second)", types[type]);
        if (get_rate(L, rate, "arrival.rate", &t->rate))
            return -1;
    } else if (rate) {
        return fail(L, rate, "'rate' is only for periodic and poisson arrivals");
    }
    if (think) {
        if (t->arrival != SC_ARRIVAL_CLOSED)
            return fail(L, think, "'think' is only for closed arrivals");
        if (get_duration(L, think, "arrival.think", true, &t->think_ns))
            return -1;
    }
    if (t->arrival == SC_ARRIVAL_TRACE) {
        if (!file)
            return fail(L, n, "a trace arrival needs 'file'");
        if (load_trace_file(L, file, t))
            return -1;
    } else if (file) {
        return fail(L, file, "'file' is only for trace arrivals");
    }
    if ((v = ydoc_get(n, "start")) && get_duration(L, v, "arrival.start", true, &t->start_ns))
        return -1;
    return 0;
}

static int load_kernel(struct ld *L, const struct ynode *n, struct sc_kernel *k)
{
    static const char *const keys[] = {"duration", "blocks", "stream", "repeat", "shared_kb", NULL};
    if (want(L, n, YNODE_MAP, "kernel") || check_keys(L, n, "kernel", keys))
        return -1;
    const struct ynode *v = required(L, n, "duration", "kernel");
    if (!v || get_duration(L, v, "kernel.duration", false, &k->duration_ns))
        return -1;
    k->blocks = 1;
    k->repeat = 1;
    if ((v = ydoc_get(n, "blocks")) && get_u32(L, v, "kernel.blocks", 1, 1u << 24, &k->blocks))
        return -1;
    if ((v = ydoc_get(n, "stream")) && get_u32(L, v, "kernel.stream", 0, SC_MAX_STREAMS - 1, &k->stream))
        return -1;
    if ((v = ydoc_get(n, "repeat")) && get_u32(L, v, "kernel.repeat", 1, 100000, &k->repeat))
        return -1;
    /* 227 KiB: the most shared memory one block may have on Hopper (Volta: 96) */
    if ((v = ydoc_get(n, "shared_kb")) && get_u32(L, v, "kernel.shared_kb", 0, 227, &k->shared_kb))
        return -1;
    return 0;
}

static int load_request(struct ld *L, const struct ynode *n, struct sc_task *t)
{
    static const char *const keys[] = {"preprocess", "kernels", NULL};
    if (want(L, n, YNODE_MAP, "request") || check_keys(L, n, "request", keys))
        return -1;
    const struct ynode *v;
    if ((v = ydoc_get(n, "preprocess")) && get_duration(L, v, "request.preprocess", true, &t->preprocess_ns))
        return -1;
    if (!(v = required(L, n, "kernels", "request")) || want(L, v, YNODE_SEQ, "request.kernels"))
        return -1;
    if (v->count == 0)
        return fail(L, v, "request.kernels must list at least one kernel");
    if (v->count > SC_MAX_KERNELS)
        return fail(L, v, "request.kernels lists more than %d kernels (use 'repeat')", SC_MAX_KERNELS);
    t->streams = 1;
    for (size_t i = 0; i < v->count; i++) {
        struct sc_kernel *k = &t->kernels[t->kernel_count++];
        if (load_kernel(L, v->items[i], k))
            return -1;
        if (k->stream + 1 > t->streams)
            t->streams = k->stream + 1;
    }
    return 0;
}

static int load_process(struct ld *L, const struct ynode *n, struct sc_task *t)
{
    static const char *const keys[] = {"binary", "args", NULL};
    if (want(L, n, YNODE_MAP, "process") || check_keys(L, n, "process", keys))
        return -1;
    const struct ynode *v = required(L, n, "binary", "process");
    char rel[256], path[512];
    if (!v || get_string(L, v, "process.binary", rel, sizeof(rel)))
        return -1;
    /* A bare name is looked up in $PATH when the run starts, as a shell would; a path is the scenario's. */
    if (!strchr(rel, '/'))
        snprintf(path, sizeof(path), "%s", rel);
    else if (resolve(L, v, rel, path, sizeof(path)))
        return -1;
    if (!(t->process = strdup(path)))
        return fail(L, v, "out of memory");
    if ((v = ydoc_get(n, "args")) && load_args_seq(L, v, "process.args", t->process_args, &t->process_nargs))
        return -1;
    return 0;
}

static int load_task(struct ld *L, const struct ynode *n, struct sc_task *t)
{
    static const char *const keys[] = {"name", "class", "count", "comm", "arrival", "request", "context",
                                       "preempt_mode", "process", NULL};
    static const char *const modes[] = {"wfi", "cta", "cilp", NULL};
    static const char *const classes[] = {"LC", "BE", NULL};
    static const char *const contexts[] = {"cuda", "bare", NULL};
    if (want(L, n, YNODE_MAP, "task") || check_keys(L, n, "task", keys))
        return -1;
    t->pos = (struct sc_pos){n->line, n->column};
    const struct ynode *v = required(L, n, "name", "task");
    if (!v || get_string(L, v, "task.name", t->name, sizeof(t->name)))
        return -1;
    if (strpbrk(t->name, "#\"<>&"))
        return fail(L, v, "task.name '%s' must not contain # \" < > &", t->name);
    int cls;
    if (!(v = required(L, n, "class", "task")) || get_enum(L, v, "task.class", classes, &cls))
        return -1;
    t->cls = (enum sc_class)cls;
    t->count = 1;
    if ((v = ydoc_get(n, "count")) && get_u32(L, v, "task.count", 1, 256, &t->count))
        return -1;
    size_t clen = strnlen(t->name, sizeof(t->comm) - 1);
    memcpy(t->comm, t->name, clen);
    t->comm[clen] = '\0';
    if ((v = ydoc_get(n, "comm")) && get_string(L, v, "task.comm", t->comm, sizeof(t->comm)))
        return -1;
    if ((v = ydoc_get(n, "context"))) {
        int c;
        if (get_enum(L, v, "task.context", contexts, &c))
            return -1;
        t->context = (enum sc_context)c;
    }
    t->preempt_mode = t->context == SC_CONTEXT_CUDA ? SC_PREEMPT_CILP : SC_PREEMPT_PROFILE;
    if ((v = ydoc_get(n, "preempt_mode"))) {
        int m;
        if (get_enum(L, v, "task.preempt_mode", modes, &m))
            return -1;
        t->preempt_mode = (enum sc_preempt_mode)m;
    }
    const struct ynode *proc = ydoc_get(n, "process"), *req = ydoc_get(n, "request");
    if (proc) {
        if (req)
            return fail(L, req, "a task runs either 'process' or a synthetic 'request', not both");
        if (load_process(L, proc, t))
            return -1;
    } else {
        if (!req)
            return fail(L, n, "task '%s' needs 'request' (or 'process')", t->name);
        if (load_request(L, req, t))
            return -1;
    }
    if (!(v = ydoc_get(n, "arrival"))) {
        if (!proc)
            return fail(L, n, "task '%s' needs 'arrival'", t->name);
    } else if (load_arrival(L, v, t)) {
        return -1;
    }
    return 0;
}

/* ---- faults ---- */

static int load_fault(struct ld *L, const struct ynode *n, struct sc_fault *f)
{
    static const char *const keys[] = {"type", "at", "duration", "task", "replica", NULL};
    static const char *const types[] = {"preempt_timeout", "gpu_lost", "busy_retry", "client_kill", NULL};
    if (want(L, n, YNODE_MAP, "fault") || check_keys(L, n, "fault", keys))
        return -1;
    f->pos = (struct sc_pos){n->line, n->column};
    const struct ynode *v = required(L, n, "type", "fault");
    int type;
    if (!v || get_enum(L, v, "fault.type", types, &type))
        return -1;
    f->kind = (enum sc_fault_kind)type;
    bool needs_task = f->kind == SC_FAULT_PREEMPT_TIMEOUT || f->kind == SC_FAULT_CLIENT_KILL;
    if ((v = ydoc_get(n, "at")) && get_duration(L, v, "fault.at", true, &f->at_ns))
        return -1;
    if (!v && f->kind != SC_FAULT_PREEMPT_TIMEOUT)
        return fail(L, n, "a %s fault needs 'at'", types[type]);
    if ((v = ydoc_get(n, "duration"))) {
        if (f->kind != SC_FAULT_BUSY_RETRY && f->kind != SC_FAULT_PREEMPT_TIMEOUT)
            return fail(L, v, "'duration' is only for busy_retry and preempt_timeout faults");
        if (get_duration(L, v, "fault.duration", false, &f->duration_ns))
            return -1;
    } else if (f->kind == SC_FAULT_BUSY_RETRY) {
        return fail(L, n, "a busy_retry fault needs 'duration'");
    }
    if ((v = ydoc_get(n, "task"))) {
        if (!needs_task)
            return fail(L, v, "'task' is only for preempt_timeout and client_kill faults");
        if (get_string(L, v, "fault.task", f->task, sizeof(f->task)))
            return -1;
    } else if (needs_task) {
        return fail(L, n, "a %s fault needs 'task'", types[type]);
    }
    if ((v = ydoc_get(n, "replica"))) {
        if (!needs_task)
            return fail(L, v, "'replica' is only for faults that name a task");
        if (get_u32(L, v, "fault.replica", 0, 255, &f->replica))
            return -1;
    }
    return 0;
}

/* ---- expectations ---- */

static const char *const expect_kinds[] = {
    "latency", "throughput", "preemptions", "switches", "preempt_timeouts", "no_starvation", "decision", "lost",
    "faults", "trace_digest", "busy_retries", NULL,
};

static int load_bound_pair(struct ld *L, const struct ynode *n, struct sc_expect *e, bool durations)
{
    const struct ynode *v;
    static const char *const names[] = {"min", "max"};
    bool *has[] = {&e->has_min, &e->has_max};
    double *val[] = {&e->min, &e->max};
    for (int i = 0; i < 2; i++) {
        if (!(v = ydoc_get(n, names[i])))
            continue;
        if (durations) {
            uint64_t ns;
            if (get_duration(L, v, names[i], true, &ns))
                return -1;
            *val[i] = (double)ns;
        } else {
            if (get_double(L, v, names[i], val[i]))
                return -1;
            if (*val[i] < 0)
                return fail(L, v, "%s must not be negative", names[i]);
        }
        *has[i] = true;
    }
    static const char *const rnames[] = {"min_vs_alone", "max_vs_alone"};
    bool *rhas[] = {&e->has_ratio_min, &e->has_ratio_max};
    double *rval[] = {&e->ratio_min, &e->ratio_max};
    for (int i = 0; i < 2; i++) {
        if (!(v = ydoc_get(n, rnames[i])))
            continue;
        if (get_double(L, v, rnames[i], rval[i]))
            return -1;
        if (*rval[i] <= 0)
            return fail(L, v, "%s must be greater than 0", rnames[i]);
        *rhas[i] = true;
    }
    if (e->has_min && e->has_max && e->min > e->max)
        return fail(L, n, "min is greater than max");
    if (e->has_ratio_min && e->has_ratio_max && e->ratio_min > e->ratio_max)
        return fail(L, n, "min_vs_alone is greater than max_vs_alone");
    if (!e->has_min && !e->has_max && !e->has_ratio_min && !e->has_ratio_max)
        return fail(L, n, "give at least one bound (min, max, min_vs_alone, max_vs_alone)");
    return 0;
}

/* min/max counts; with `required` at least one of them must be given. */
static int load_count_bounds(struct ld *L, const struct ynode *n, struct sc_expect *e, bool required)
{
    const struct ynode *v;
    uint64_t x;
    if ((v = ydoc_get(n, "min"))) {
        if (get_u64(L, v, "min", 0, UINT64_MAX >> 11, &x))
            return -1;
        e->has_min = true;
        e->min = (double)x;
    }
    if ((v = ydoc_get(n, "max"))) {
        if (get_u64(L, v, "max", 0, UINT64_MAX >> 11, &x))
            return -1;
        e->has_max = true;
        e->max = (double)x;
    }
    if (e->has_min && e->has_max && e->min > e->max)
        return fail(L, n, "min is greater than max");
    if (required && !e->has_min && !e->has_max)
        return fail(L, n, "give min and/or max");
    return 0;
}

static int load_expect(struct ld *L, const struct ynode *n, struct sc_expect *e)
{
    static const char *const stats[] = {"p50", "p99", "max", "mean", NULL};
    static const char *const results[] = {"apply", "noop", "reject", NULL};
    if (want(L, n, YNODE_MAP, "expectation"))
        return -1;
    if (n->count != 1)
        return fail(L, n, "an expectation is a mapping with one key (one of latency, throughput, preemptions, "
                          "switches, preempt_timeouts, no_starvation, decision, lost, faults, trace_digest, busy_retries)");
    int kind;
    if (get_enum(L, n->keys[0], "expectation", expect_kinds, &kind))
        return -1;
    e->kind = (enum sc_expect_kind)kind;
    const struct ynode *b = n->items[0];
    e->pos = (struct sc_pos){n->keys[0]->line, n->keys[0]->column};
    const struct ynode *v;
    switch (e->kind) {
    case SC_EXPECT_LATENCY:
    case SC_EXPECT_THROUGHPUT: {
        static const char *const lat_keys[] = {"task", "stat", "min", "max", "min_vs_alone", "max_vs_alone", NULL};
        static const char *const thr_keys[] = {"task", "min", "max", "min_vs_alone", "max_vs_alone", NULL};
        bool lat = e->kind == SC_EXPECT_LATENCY;
        if (want(L, b, YNODE_MAP, expect_kinds[kind]) || check_keys(L, b, expect_kinds[kind], lat ? lat_keys : thr_keys))
            return -1;
        if (!(v = required(L, b, "task", expect_kinds[kind])) || get_string(L, v, "task", e->task, sizeof(e->task)))
            return -1;
        int st = SC_STAT_P99;
        if (lat && (v = ydoc_get(b, "stat")) && get_enum(L, v, "stat", stats, &st))
            return -1;
        e->stat = (enum sc_stat)st;
        return load_bound_pair(L, b, e, lat);
    }
    case SC_EXPECT_PREEMPTIONS:
    case SC_EXPECT_SWITCHES:
    case SC_EXPECT_PREEMPT_TIMEOUTS: {
        static const char *const keys[] = {"engine", "min", "max", NULL};
        if (want(L, b, YNODE_MAP, expect_kinds[kind]) || check_keys(L, b, expect_kinds[kind], keys))
            return -1;
        snprintf(e->engine, sizeof(e->engine), "GR0");
        if ((v = ydoc_get(b, "engine")) && get_string(L, v, "engine", e->engine, sizeof(e->engine)))
            return -1;
        return load_count_bounds(L, b, e, true);
    }
    case SC_EXPECT_NO_STARVATION: {
        static const char *const keys[] = {"task", "max_gap", NULL};
        if (b->kind == YNODE_SCALAR) {
            bool on;
            if (get_bool(L, b, "no_starvation", &on))
                return -1;
            if (!on)
                return fail(L, b, "no_starvation: false expects nothing; remove it");
            return 0;
        }
        if (want(L, b, YNODE_MAP, "no_starvation") || check_keys(L, b, "no_starvation", keys))
            return -1;
        if ((v = ydoc_get(b, "task")) && get_string(L, v, "task", e->task, sizeof(e->task)))
            return -1;
        if ((v = ydoc_get(b, "max_gap"))) {
            uint64_t ns;
            if (get_duration(L, v, "max_gap", false, &ns))
                return -1;
            e->has_max = true;
            e->max = (double)ns;
        }
        return 0;
    }
    case SC_EXPECT_DECISION: {
        static const char *const keys[] = {"hook", "field", "result", "min", "max", NULL};
        if (want(L, b, YNODE_MAP, "decision") || check_keys(L, b, "decision", keys))
            return -1;
        if (!(v = required(L, b, "hook", "decision")) || get_string(L, v, "hook", e->hook, sizeof(e->hook)))
            return -1;
        if ((v = ydoc_get(b, "field")) && get_string(L, v, "field", e->field, sizeof(e->field)))
            return -1;
        int r;
        if ((v = ydoc_get(b, "result"))) {
            if (get_enum(L, v, "result", results, &r))
                return -1;
            snprintf(e->result, sizeof(e->result), "%s", results[r]);
        }
        if (load_count_bounds(L, b, e, false))
            return -1;
        if (!e->has_min && !e->has_max) {
            e->has_min = true;
            e->min = 1;
        }
        return 0;
    }
    case SC_EXPECT_LOST:
    case SC_EXPECT_FAULTS:
    case SC_EXPECT_BUSY_RETRIES: {
        static const char *const keys[] = {"min", "max", NULL};
        if (want(L, b, YNODE_MAP, expect_kinds[kind]) || check_keys(L, b, expect_kinds[kind], keys))
            return -1;
        return load_count_bounds(L, b, e, true);
    }
    case SC_EXPECT_TRACE_DIGEST: {
        if (get_string(L, b, "trace_digest", e->digest, sizeof(e->digest)))
            return -1;
        const char *hex = e->digest + 8;
        if (strncmp(e->digest, "fnv1a64:", 8) != 0 || strlen(hex) != 16 || strspn(hex, "0123456789abcdef") != 16)
            return fail(L, b, "trace_digest must look like fnv1a64:0123456789abcdef");
        return 0;
    }
    }
    return fail(L, n, "unknown expectation");
}

/* ---- cross-section checks ---- */

static int check_refs(struct ld *L, struct scenario *s, const struct ynode *root)
{
    for (uint32_t i = 0; i < s->task_count; i++)
        for (uint32_t j = 0; j < i; j++)
            if (strcmp(s->tasks[i].name, s->tasks[j].name) == 0) {
                snprintf(L->err, L->errlen, "%s:%u:%u: task name '%s' is used twice (first at line %u)", L->file,
                         s->tasks[i].pos.line, s->tasks[i].pos.column, s->tasks[i].name, s->tasks[j].pos.line);
                return -1;
            }
    for (uint32_t i = 0; i < s->fault_count; i++) {
        struct sc_fault *f = &s->faults[i];
        if (f->at_ns >= s->duration_ns && f->kind != SC_FAULT_PREEMPT_TIMEOUT) {
            snprintf(L->err, L->errlen, "%s:%u:%u: fault time is not before the end of the run", L->file,
                     f->pos.line, f->pos.column);
            return -1;
        }
        if (f->kind == SC_FAULT_PREEMPT_TIMEOUT &&
            (s->scheduler.kind != SC_SCHED_GPREEMPT || s->scheduler.action != SC_SCHED_PREEMPT)) {
            snprintf(L->err, L->errlen, "%s:%u:%u: a preempt_timeout fault needs 'scheduler: {kind: gpreempt, "
                     "action: preempt}' (only the scheduler's waiting PREEMPT can time out)", L->file, f->pos.line,
                     f->pos.column);
            return -1;
        }
        if (f->kind == SC_FAULT_BUSY_RETRY &&
            (s->scheduler.kind != SC_SCHED_GPREEMPT || s->scheduler.action == SC_SCHED_TIMESLICE)) {
            snprintf(L->err, L->errlen, "%s:%u:%u: a busy_retry fault needs 'scheduler: {kind: gpreempt, action: "
                     "preempt|disable}' (its PREEMPT / DISABLE_CHANNELS are the controls issued during the run)",
                     L->file, f->pos.line, f->pos.column);
            return -1;
        }
        if (!f->task[0])
            continue;
        int t = scenario_find_task(s, f->task);
        if (t < 0 || f->replica >= s->tasks[t].count) {
            snprintf(L->err, L->errlen, "%s:%u:%u: fault names %s '%s' replica %u", L->file, f->pos.line,
                     f->pos.column, t < 0 ? "unknown task" : "a missing replica of", f->task, f->replica);
            return -1;
        }
    }
    for (uint32_t i = 0; i < s->expect_count; i++) {
        struct sc_expect *e = &s->expects[i];
        if (e->task[0] && scenario_find_task(s, e->task) < 0) {
            snprintf(L->err, L->errlen, "%s:%u:%u: expectation names unknown task '%s'", L->file, e->pos.line,
                     e->pos.column, e->task);
            return -1;
        }
        if ((e->has_ratio_min || e->has_ratio_max) && !s->baseline) {
            snprintf(L->err, L->errlen,
                     "%s:%u:%u: a *_vs_alone bound needs 'baseline: true' (the runner then runs each task alone)",
                     L->file, e->pos.line, e->pos.column);
            return -1;
        }
    }
    if (s->warmup_ns >= s->duration_ns)
        return fail(L, ydoc_get(root, "warmup"), "warmup must be shorter than duration");
    return 0;
}

static int load_root(struct ld *L, const struct ynode *root, struct scenario *s)
{
    static const char *const keys[] = {"name", "description", "gpu", "clock", "seed", "duration", "warmup",
                                       "baseline", "policy", "scheduler", "tasks", "faults", "expect", NULL};
    static const char *const clocks[] = {"virtual", "realtime", NULL};
    if (want(L, root, YNODE_MAP, "a scenario") || check_keys(L, root, "the scenario", keys))
        return -1;
    const struct ynode *v = required(L, root, "name", "the scenario");
    if (!v || get_string(L, v, "name", s->name, sizeof(s->name)))
        return -1;
    if ((v = ydoc_get(root, "description")) && get_strdup(L, v, "description", &s->description))
        return -1;
    snprintf(s->gpu.profile, sizeof(s->gpu.profile), "h200");
    s->gpu.preempt_mode = SC_PREEMPT_PROFILE;
    if ((v = ydoc_get(root, "gpu")) && load_gpu(L, v, &s->gpu))
        return -1;
    int c;
    if ((v = ydoc_get(root, "clock"))) {
        if (get_enum(L, v, "clock", clocks, &c))
            return -1;
        s->clock = (enum sc_clock)c;
    }
    s->seed = 1;
    if ((v = ydoc_get(root, "seed")) && get_u64(L, v, "seed", 0, UINT64_MAX, &s->seed))
        return -1;
    if (!(v = required(L, root, "duration", "the scenario")) || get_duration(L, v, "duration", false, &s->duration_ns))
        return -1;
    if ((v = ydoc_get(root, "warmup")) && get_duration(L, v, "warmup", true, &s->warmup_ns))
        return -1;
    if ((v = ydoc_get(root, "baseline")) && get_bool(L, v, "baseline", &s->baseline))
        return -1;
    if ((v = ydoc_get(root, "policy")) && load_policy(L, v, &s->policy))
        return -1;
    if ((v = ydoc_get(root, "scheduler")) && load_scheduler(L, v, &s->scheduler))
        return -1;
    if (!(v = required(L, root, "tasks", "the scenario")) || want(L, v, YNODE_SEQ, "tasks"))
        return -1;
    if (v->count == 0 || v->count > SC_MAX_TASKS)
        return fail(L, v, "tasks must list 1 to %d tasks", SC_MAX_TASKS);
    for (size_t i = 0; i < v->count; i++)
        if (load_task(L, v->items[i], &s->tasks[s->task_count++]))
            return -1;
    if ((v = ydoc_get(root, "faults"))) {
        if (want(L, v, YNODE_SEQ, "faults"))
            return -1;
        if (v->count > SC_MAX_FAULTS)
            return fail(L, v, "faults lists more than %d faults", SC_MAX_FAULTS);
        for (size_t i = 0; i < v->count; i++)
            if (load_fault(L, v->items[i], &s->faults[s->fault_count++]))
                return -1;
    }
    if ((v = ydoc_get(root, "expect"))) {
        if (want(L, v, YNODE_SEQ, "expect"))
            return -1;
        if (v->count > SC_MAX_EXPECT)
            return fail(L, v, "expect lists more than %d expectations", SC_MAX_EXPECT);
        for (size_t i = 0; i < v->count; i++)
            if (load_expect(L, v->items[i], &s->expects[s->expect_count++]))
                return -1;
    }
    return check_refs(L, s, root);
}

static struct scenario *finish(struct ld *L, struct ynode *root, const char *path)
{
    if (!root)
        return NULL;
    struct scenario *s = calloc(1, sizeof(*s));
    if (!s || !(s->path = strdup(path))) {
        free(s);
        ydoc_free(root);
        snprintf(L->err, L->errlen, "%s: out of memory", path);
        return NULL;
    }
    int rc = load_root(L, root, s);
    ydoc_free(root);
    if (rc) {
        scenario_free(s);
        return NULL;
    }
    return s;
}

struct scenario *scenario_load(const char *path, char *err, size_t errlen)
{
    struct ld L = {.file = path, .err = err, .errlen = errlen};
    const char *slash = strrchr(path, '/');
    if (slash)
        snprintf(L.dir, sizeof(L.dir), "%.*s", (int)(slash - path), path);
    return finish(&L, ydoc_load_file(path, err, errlen), path);
}

struct scenario *scenario_load_overridden(const char *path, const char *const *keys, const char *const *values,
                                          size_t n, char *err, size_t errlen)
{
    struct ld L = {.file = path, .err = err, .errlen = errlen};
    const char *slash = strrchr(path, '/');
    if (slash)
        snprintf(L.dir, sizeof(L.dir), "%.*s", (int)(slash - path), path);
    struct ynode *root = ydoc_load_file(path, err, errlen);
    for (size_t i = 0; root && i < n; i++)
        if (ydoc_override(root, keys[i], values[i], err, errlen) != 0) {
            ydoc_free(root);
            return NULL;
        }
    return finish(&L, root, path);
}

struct scenario *scenario_load_string(const char *name, const char *text, char *err, size_t errlen)
{
    struct ld L = {.file = name, .err = err, .errlen = errlen};
    return finish(&L, ydoc_load_string(name, text, strlen(text), err, errlen), name);
}

void scenario_free(struct scenario *s)
{
    if (!s)
        return;
    for (uint32_t i = 0; i < s->task_count; i++) {
        free(s->tasks[i].trace_ns);
        free(s->tasks[i].process);
        for (int a = 0; a < s->tasks[i].process_nargs; a++)
            free(s->tasks[i].process_args[a]);
    }
    for (int a = 0; a < s->policy.nargs; a++)
        free(s->policy.args[a]);
    for (int a = 0; a < s->scheduler.nargs; a++)
        free(s->scheduler.args[a]);
    free(s->scheduler.binary);
    free(s->description);
    free(s->path);
    free(s);
}
