/*
 * The expectation kinds, one row each (kinds[] below): the YAML name, the
 * schema of its body, its defaults, its evaluator against the results and
 * its label. Adding a kind is its id in scenario.h, its row and its code
 * here (and its line in scenarios/README.md): the loader, the evaluator, the
 * reports and the error messages listing the kinds walk this table.
 */
#include "expect.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "results.h"

struct kind_row {
    const char *name;
    const struct ytable *schema;   /* its body's fields (NULL: trace_digest's scalar, read in sc_expect_load) */
    void (*eval)(struct sc_results *r, const struct sc_expect *e, struct sc_expect_outcome *o);
    void (*label)(const struct sc_expect *e, char *buf, size_t len);
    const char *count_label;       /* label_count's text */
};

static const struct kind_row kinds[SC_EXPECT_KIND_COUNT];

/* ---- schemas ---- */

/* min / max: a duration for latency, a rate for throughput, a count otherwise. */
static int expect_bound(struct yctx *c, const struct ynode *n, struct sc_expect *e, const char *what, bool *has,
                        double *val)
{
    if (e->kind == SC_EXPECT_LATENCY) {
        uint64_t ns;
        if (yread_duration(c, n, what, 0, 0, &ns))
            return -1;
        *val = (double)ns;
    } else if (e->kind == SC_EXPECT_THROUGHPUT) {
        if (yread_double(c, n, what, val))
            return -1;
        if (*val < 0)
            return yfail(c, n, "%s must not be negative", what);
    } else {
        uint64_t x;
        if (yread_u64(c, n, what, 0, UINT64_MAX >> 11, &x))
            return -1;
        *val = (double)x;
    }
    *has = true;
    return 0;
}

static int expect_min(struct yctx *c, const struct ynode *n, void *base)
{
    struct sc_expect *e = base;
    return expect_bound(c, n, e, "min", &e->has_min, &e->min);
}

static int expect_max(struct yctx *c, const struct ynode *n, void *base)
{
    struct sc_expect *e = base;
    return expect_bound(c, n, e, "max", &e->has_max, &e->max);
}

static int expect_ratio(struct yctx *c, const struct ynode *n, const char *what, bool *has, double *val)
{
    if (yread_double(c, n, what, val))
        return -1;
    if (*val <= 0)
        return yfail(c, n, "%s must be greater than 0", what);
    *has = true;
    return 0;
}

static int expect_ratio_min(struct yctx *c, const struct ynode *n, void *base)
{
    struct sc_expect *e = base;
    return expect_ratio(c, n, "min_vs_alone", &e->has_ratio_min, &e->ratio_min);
}

static int expect_ratio_max(struct yctx *c, const struct ynode *n, void *base)
{
    struct sc_expect *e = base;
    return expect_ratio(c, n, "max_vs_alone", &e->has_ratio_max, &e->ratio_max);
}

static int expect_result(struct yctx *c, const struct ynode *n, void *base)
{
    static const char *const results[] = {"apply", "noop", "reject", NULL};
    struct sc_expect *e = base;
    int r;
    if (yread_enum(c, n, "result", results, &r))
        return -1;
    snprintf(e->result, sizeof(e->result), "%s", results[r]);
    return 0;
}

static int expect_gap(struct yctx *c, const struct ynode *n, void *base)
{
    struct sc_expect *e = base;
    uint64_t ns;
    if (yread_duration(c, n, "max_gap", 1, 0, &ns))
        return -1;
    e->has_max = true;
    e->max = (double)ns;
    return 0;
}

#define E_TASK(req) YFIELD("task", YF_STR, offsetof(struct sc_expect, task), .size = SC_NAME_MAX, .nonempty = true, \
                           .required = (req))
#define E_MIN YFIELD("min", YF_CUSTOM, 0, .custom = expect_min)
#define E_MAX YFIELD("max", YF_CUSTOM, 0, .custom = expect_max)
#define E_RATIOS YFIELD("min_vs_alone", YF_CUSTOM, 0, .custom = expect_ratio_min), \
                 YFIELD("max_vs_alone", YF_CUSTOM, 0, .custom = expect_ratio_max)

static int bounds_check(struct yctx *c, const struct ynode *map, void *base, const struct ynode *const *got)
{
    (void)got;
    struct sc_expect *e = base;
    if (e->has_min && e->has_max && e->min > e->max)
        return yfail(c, map, "min is greater than max");
    if (e->has_ratio_min && e->has_ratio_max && e->ratio_min > e->ratio_max)
        return yfail(c, map, "min_vs_alone is greater than max_vs_alone");
    if (!e->has_min && !e->has_max && !e->has_ratio_min && !e->has_ratio_max)
        return yfail(c, map, "give at least one bound (min, max, min_vs_alone, max_vs_alone)");
    return 0;
}

/* Counts: at least one of min/max. */
static int count_check(struct yctx *c, const struct ynode *map, void *base, const struct ynode *const *got)
{
    (void)got;
    struct sc_expect *e = base;
    if (e->has_min && e->has_max && e->min > e->max)
        return yfail(c, map, "min is greater than max");
    if (!e->has_min && !e->has_max)
        return yfail(c, map, "give min and/or max");
    return 0;
}

/* A decision with no bound expects at least one. */
static int decision_check(struct yctx *c, const struct ynode *map, void *base, const struct ynode *const *got)
{
    (void)got;
    struct sc_expect *e = base;
    if (e->has_min && e->has_max && e->min > e->max)
        return yfail(c, map, "min is greater than max");
    if (!e->has_min && !e->has_max) {
        e->has_min = true;
        e->min = 1;
    }
    return 0;
}

/* `seeds: N`: the bound holds for the mean over N seeds (`scenario run` then runs them) */
#define E_SEEDS YFIELD("seeds", YF_U32, offsetof(struct sc_expect, seeds), .min = 2, .max = 1000)
static const struct yfield latency_fields[] = {
    E_TASK(true), YFIELD("stat", YF_ENUM, offsetof(struct sc_expect, stat), .names = sc_stat_names),
    E_MIN, E_MAX, E_RATIOS, E_SEEDS, YFIELD_END,
};
static const struct yfield throughput_fields[] = {E_TASK(true), E_MIN, E_MAX, E_RATIOS, E_SEEDS, YFIELD_END};
static const struct yfield engine_count_fields[] = {
    YFIELD("engine", YF_STR, offsetof(struct sc_expect, engine), .size = sizeof(((struct sc_expect *)0)->engine),
           .nonempty = true),
    E_MIN, E_MAX, YFIELD_END,
};
static const struct yfield starvation_fields[] = {
    E_TASK(false), YFIELD("max_gap", YF_CUSTOM, 0, .custom = expect_gap), YFIELD_END,
};
static const struct yfield decision_fields[] = {
    YFIELD("hook", YF_STR, offsetof(struct sc_expect, hook), .size = sizeof(((struct sc_expect *)0)->hook),
           .nonempty = true, .required = true),
    YFIELD("field", YF_STR, offsetof(struct sc_expect, field), .size = sizeof(((struct sc_expect *)0)->field),
           .nonempty = true),
    YFIELD("result", YF_CUSTOM, 0, .custom = expect_result),
    E_MIN, E_MAX, YFIELD_END,
};
static const struct yfield count_fields[] = {E_MIN, E_MAX, YFIELD_END};

static const struct ytable latency_table = {"", "latency", latency_fields, bounds_check};
static const struct ytable throughput_table = {"", "throughput", throughput_fields, bounds_check};
static const struct ytable preemptions_table = {"", "preemptions", engine_count_fields, count_check};
static const struct ytable switches_table = {"", "switches", engine_count_fields, count_check};
static const struct ytable preempt_timeouts_table = {"", "preempt_timeouts", engine_count_fields, count_check};
static const struct ytable starvation_table = {"", "no_starvation", starvation_fields, NULL};
static const struct ytable decision_table = {"", "decision", decision_fields, decision_check};
static const struct ytable lost_table = {"", "lost", count_fields, count_check};
static const struct ytable faults_table = {"", "faults", count_fields, count_check};
static const struct ytable busy_retries_table = {"", "busy_retries", count_fields, count_check};

/* ---- evaluators ---- */

static bool in_bounds(const struct sc_expect *e, double v)
{
    return (!e->has_min || v >= e->min) && (!e->has_max || v <= e->max);
}

static double stat_of(const struct sc_task_result *t, enum sc_stat st, bool alone)
{
    const double cur[] = {t->p50_ns, t->p99_ns, t->max_ns, t->mean_ns};
    const double ref[] = {t->alone_p50_ns, t->alone_p99_ns, t->alone_max_ns, t->alone_mean_ns};
    return alone ? ref[st] : cur[st];
}

/* Latency/throughput: absolute bounds and bounds relative to the task's run alone. */
static void check_task_metric(struct sc_results *r, const struct sc_expect *e, struct sc_expect_outcome *o)
{
    const struct sc_task_result *t = &r->tasks[scenario_find_task(r->sc, e->task)];
    bool lat = e->kind == SC_EXPECT_LATENCY;
    double v = lat ? stat_of(t, e->stat, false) : t->throughput;
    double ref = lat ? stat_of(t, e->stat, true) : t->alone_throughput;
    char a[32];
    if (lat && t->completed == 0) {
        o->pass = false;
        snprintf(o->actual, sizeof(o->actual), "no completed requests");
        return;
    }
    if (lat)
        sc_fmt_ns(v, a, sizeof(a));
    else
        snprintf(a, sizeof(a), "%.1f req/s", v);
    o->pass = in_bounds(e, v);
    if (!(e->has_ratio_min || e->has_ratio_max)) {
        snprintf(o->actual, sizeof(o->actual), "%s", a);
        return;
    }
    if (!t->has_alone || ref <= 0) {
        o->pass = false;
        snprintf(o->actual, sizeof(o->actual), "%s, no baseline value", a);
        return;
    }
    double ratio = v / ref;
    o->pass = o->pass && (!e->has_ratio_min || ratio >= e->ratio_min) && (!e->has_ratio_max || ratio <= e->ratio_max);
    snprintf(o->actual, sizeof(o->actual), "%s = %.2fx alone", a, ratio);
}

static const struct sc_engine_result *find_engine(const struct sc_results *r, const char *name)
{
    for (uint32_t i = 0; i < r->engine_count; i++)
        if (strcmp(r->engines[i].name, name) == 0)
            return &r->engines[i];
    return NULL;
}

static void check_engine_count(struct sc_results *r, const struct sc_expect *e, struct sc_expect_outcome *o)
{
    const struct sc_engine_result *eng = find_engine(r, e->engine);
    uint64_t v = 0;
    if (eng)
        v = e->kind == SC_EXPECT_PREEMPTIONS ? eng->preemptions
            : e->kind == SC_EXPECT_SWITCHES  ? eng->switches
                                             : eng->preempt_timeouts;
    o->pass = in_bounds(e, (double)v);
    snprintf(o->actual, sizeof(o->actual), "%llu%s", (unsigned long long)v, eng ? "" : " (engine never used)");
}

static void check_starvation(struct sc_results *r, const struct sc_expect *e, struct sc_expect_outcome *o)
{
    o->pass = true;
    uint64_t worst = 0;
    const char *worst_task = "";
    uint32_t worst_rep = 0;
    for (uint32_t k = 0; k < r->inst_count; k++) {
        const struct sc_inst *in = &r->inst[k];
        const char *name = r->sc->tasks[in->task].name;
        if (e->task[0] && strcmp(e->task, name) != 0)
            continue;
        if (in->rejected)
            continue;
        if (in->completed == 0 && !in->killed) {
            o->pass = false;
            snprintf(o->actual, sizeof(o->actual), "%s#%u completed nothing", name, in->replica);
            return;
        }
        if (in->max_gap_ns >= worst) {
            worst = in->max_gap_ns;
            worst_task = name;
            worst_rep = in->replica;
        }
    }
    char g[32];
    snprintf(o->actual, sizeof(o->actual), "longest gap %s (%s#%u)", sc_fmt_ns((double)worst, g, sizeof(g)),
             worst_task, worst_rep);
    if (e->has_max && (double)worst > e->max)
        o->pass = false;
}

static void check_decision(struct sc_results *r, const struct sc_expect *e, struct sc_expect_outcome *o)
{
    uint64_t n = 0;
    for (size_t i = 0; i < r->decision_count; i++) {
        const struct sc_decision *d = &r->decisions[i];
        if (strcmp(d->hook, e->hook) != 0)
            continue;
        if (e->field[0] && strcmp(d->field, e->field) != 0)
            continue;
        if (e->result[0] && strcmp(d->result, e->result) != 0)
            continue;
        n += d->count;
    }
    o->pass = in_bounds(e, (double)n);
    snprintf(o->actual, sizeof(o->actual), "%llu", (unsigned long long)n);
}

static void check_requests(struct sc_results *r, const struct sc_expect *e, struct sc_expect_outcome *o)
{
    uint64_t n = 0;
    for (uint32_t t = 0; t < r->sc->task_count; t++)
        n += e->kind == SC_EXPECT_LOST ? r->tasks[t].lost : r->tasks[t].failed;
    o->pass = in_bounds(e, (double)n);
    snprintf(o->actual, sizeof(o->actual), "%llu", (unsigned long long)n);
}

static void check_digest(struct sc_results *r, const struct sc_expect *e, struct sc_expect_outcome *o)
{
    snprintf(o->actual, sizeof(o->actual), "fnv1a64:%016llx", (unsigned long long)r->digest);
    o->pass = strcmp(o->actual, e->digest) == 0;
}

static void check_busy_retries(struct sc_results *r, const struct sc_expect *e, struct sc_expect_outcome *o)
{
    o->pass = in_bounds(e, (double)r->busy_retries);
    snprintf(o->actual, sizeof(o->actual), "%llu", (unsigned long long)r->busy_retries);
}

/* ---- labels ---- */

/* Appends " >= a" / " <= b" / " in [a, b]" for a value formatter. */
static void bounds(char *buf, size_t len, bool has_min, double min, bool has_max, double max, bool dur,
                   const char *suffix)
{
    char a[32], b[32];
    size_t off = strlen(buf);
    if (dur) {
        sc_fmt_ns(min, a, sizeof(a));
        sc_fmt_ns(max, b, sizeof(b));
    } else {
        snprintf(a, sizeof(a), "%g%s", min, suffix);
        snprintf(b, sizeof(b), "%g%s", max, suffix);
    }
    if (has_min && has_max)
        snprintf(buf + off, len - off, " in [%s, %s]", a, b);
    else if (has_min)
        snprintf(buf + off, len - off, " >= %s", a);
    else if (has_max)
        snprintf(buf + off, len - off, " <= %s", b);
}

static void label_task_metric(const struct sc_expect *e, char *buf, size_t len)
{
    bool lat = e->kind == SC_EXPECT_LATENCY;
    if (lat)
        snprintf(buf, len, "%s latency %s", e->task, sc_stat_name(e->stat));
    else
        snprintf(buf, len, "%s throughput", e->task);
    bounds(buf, len, e->has_min, e->min, e->has_max, e->max, lat, lat ? "" : " req/s");
    if ((e->has_min || e->has_max) && (e->has_ratio_min || e->has_ratio_max))
        strncat(buf, " and", len - strlen(buf) - 1);
    bounds(buf, len, e->has_ratio_min, e->ratio_min, e->has_ratio_max, e->ratio_max, false, "x alone");
}

static void label_engine_count(const struct sc_expect *e, char *buf, size_t len)
{
    snprintf(buf, len, "%s %s", e->engine,
             e->kind == SC_EXPECT_PREEMPTIONS ? "preemptions"
             : e->kind == SC_EXPECT_SWITCHES  ? "switches"
                                              : "preempt timeouts");
    bounds(buf, len, e->has_min, e->min, e->has_max, e->max, false, "");
}

static void label_starvation(const struct sc_expect *e, char *buf, size_t len)
{
    snprintf(buf, len, "no starvation of %s", e->task[0] ? e->task : "any task");
    if (e->has_max) {
        char g[32];
        size_t off = strlen(buf);
        snprintf(buf + off, len - off, " (gap <= %s)", sc_fmt_ns(e->max, g, sizeof(g)));
    }
}

static void label_decision(const struct sc_expect *e, char *buf, size_t len)
{
    snprintf(buf, len, "decisions %s%s%s%s%s", e->hook, e->field[0] ? "." : "", e->field,
             e->result[0] ? " -> " : "", e->result);
    bounds(buf, len, e->has_min, e->min, e->has_max, e->max, false, "");
}

/* A count with a fixed name: the row's label text, then its bounds. */
static void label_count(const struct sc_expect *e, char *buf, size_t len)
{
    snprintf(buf, len, "%s", kinds[e->kind].count_label);
    bounds(buf, len, e->has_min, e->min, e->has_max, e->max, false, "");
}

static void label_digest(const struct sc_expect *e, char *buf, size_t len)
{
    snprintf(buf, len, "trace digest == %s", e->digest);
}

/* ---- the table ---- */

static const struct kind_row kinds[SC_EXPECT_KIND_COUNT] = {
    [SC_EXPECT_LATENCY] = {"latency", &latency_table, check_task_metric, label_task_metric, NULL},
    [SC_EXPECT_THROUGHPUT] = {"throughput", &throughput_table, check_task_metric, label_task_metric, NULL},
    [SC_EXPECT_PREEMPTIONS] = {"preemptions", &preemptions_table, check_engine_count, label_engine_count, NULL},
    [SC_EXPECT_SWITCHES] = {"switches", &switches_table, check_engine_count, label_engine_count, NULL},
    [SC_EXPECT_PREEMPT_TIMEOUTS] = {"preempt_timeouts", &preempt_timeouts_table, check_engine_count,
                                    label_engine_count, NULL},
    [SC_EXPECT_NO_STARVATION] = {"no_starvation", &starvation_table, check_starvation, label_starvation, NULL},
    [SC_EXPECT_DECISION] = {"decision", &decision_table, check_decision, label_decision, NULL},
    [SC_EXPECT_LOST] = {"lost", &lost_table, check_requests, label_count, "lost requests"},
    [SC_EXPECT_FAULTS] = {"faults", &faults_table, check_requests, label_count, "requests failed by faults"},
    [SC_EXPECT_TRACE_DIGEST] = {"trace_digest", NULL, check_digest, label_digest, NULL},
    [SC_EXPECT_BUSY_RETRIES] = {"busy_retries", &busy_retries_table, check_busy_retries, label_count,
                                "controls answered BUSY_RETRY"},
};

static int kind_find(const char *name)
{
    for (int k = 0; k < SC_EXPECT_KIND_COUNT; k++)
        if (strcmp(kinds[k].name, name) == 0)
            return k;
    return -1;
}

/* The kinds' names separated by sep ("latency, throughput, ...") into buf. */
static const char *kind_list(char *buf, size_t len, const char *sep)
{
    size_t at = 0;
    buf[0] = '\0';
    for (int k = 0; k < SC_EXPECT_KIND_COUNT && at < len; k++) {
        int w = snprintf(buf + at, len - at, "%s%s", k ? sep : "", kinds[k].name);
        at += w > 0 ? (size_t)w : 0;
    }
    return buf;
}

const char *sc_expect_kind_name(enum sc_expect_kind k)
{
    return (unsigned)k < SC_EXPECT_KIND_COUNT ? kinds[k].name : "?";
}

void sc_expect_evaluate(struct sc_results *r, const struct sc_expect *e, struct sc_expect_outcome *o)
{
    kinds[e->kind].eval(r, e, o);
}

void scenario_expect_label(const struct scenario *s, const struct sc_expect *e, char *buf, size_t len)
{
    (void)s;
    buf[0] = '\0';
    kinds[e->kind].label(e, buf, len);
}

/* ---- loading ---- */

int sc_expect_load(struct yctx *c, const struct ynode *n, void *elem)
{
    struct sc_expect *e = elem;
    char names[256];
    if (yexpect(c, n, YNODE_MAP, "expectation"))
        return -1;
    if (n->count != 1)
        return yfail(c, n, "an expectation is a mapping with one key (one of %s)",
                     kind_list(names, sizeof(names), ", "));
    if (yexpect(c, n->keys[0], YNODE_SCALAR, "expectation"))
        return -1;
    int kind = kind_find(n->keys[0]->scalar);
    if (kind < 0)
        return yfail(c, n->keys[0], "expectation must be one of %s, not '%s'", kind_list(names, sizeof(names), "|"),
                     n->keys[0]->scalar);
    e->kind = (enum sc_expect_kind)kind;
    e->pos = (struct sc_pos){n->keys[0]->line, n->keys[0]->column};
    if (e->kind == SC_EXPECT_LATENCY || e->kind == SC_EXPECT_THROUGHPUT)
        e->stat = SC_STAT_P99;
    if (e->kind == SC_EXPECT_PREEMPTIONS || e->kind == SC_EXPECT_SWITCHES || e->kind == SC_EXPECT_PREEMPT_TIMEOUTS)
        snprintf(e->engine, sizeof(e->engine), "GR0");
    const struct ynode *b = n->items[0];
    if (e->kind == SC_EXPECT_TRACE_DIGEST) {
        if (yread_str(c, b, "trace_digest", true, e->digest, sizeof(e->digest)))
            return -1;
        const char *hex = e->digest + 8;
        if (strncmp(e->digest, "fnv1a64:", 8) != 0 || strlen(hex) != 16 || strspn(hex, "0123456789abcdef") != 16)
            return yfail(c, b, "trace_digest must look like fnv1a64:0123456789abcdef");
        return 0;
    }
    if (e->kind == SC_EXPECT_NO_STARVATION && b->kind == YNODE_SCALAR) {
        bool on;
        if (yread_bool(c, b, "no_starvation", &on))
            return -1;
        return on ? 0 : yfail(c, b, "no_starvation: false expects nothing; remove it");
    }
    return ywalk(c, b, kinds[kind].schema, e);
}

