#include "compare.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cjson/cJSON.h>

#include "base/util.h"

/* results.json files are small; anything bigger is not one. */
#define MAX_RESULTS_BYTES (64u << 20)

/* A results.json, or a run directory holding one; through nvemu_slurp, so a FIFO or a file whose read
 * would block is refused, not waited on. */
static char *slurp(const char *path, char *err, size_t errlen)
{
    char file[1024];
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
        snprintf(file, sizeof(file), "%s/results.json", path);
    else
        snprintf(file, sizeof(file), "%s", path);
    return nvemu_slurp(file, MAX_RESULTS_BYTES, NULL, err, errlen);
}

/* A number at a path of object keys, or NAN. */
static double num(const cJSON *o, const char *k1, const char *k2)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k1);
    if (v && k2)
        v = cJSON_GetObjectItemCaseSensitive(v, k2);
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

/* An array's entries sorted by their "name" member, so that pairing A's tasks with B's takes n log n
 * (a scan of B per task of A took 10 s at 40 k tasks), whatever the names (a hash table's worst case
 * is chosen by whoever writes the file). Equal names keep their order: the first wins, as a scan would
 * find it. */
struct named {
    const char *name;
    size_t order;
    const cJSON *item;
};

struct name_index {
    struct named *e;
    size_t n;
};

static int named_cmp(const void *a, const void *b)
{
    const struct named *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    return c ? c : x->order < y->order ? -1 : x->order > y->order;
}

static int index_build(struct name_index *ix, const cJSON *arr)
{
    size_t n = 0;
    const cJSON *it;
    cJSON_ArrayForEach(it, arr) n++;
    if (!(ix->e = calloc(n ? n : 1, sizeof *ix->e)))
        return -1;
    cJSON_ArrayForEach(it, arr) {
        const cJSON *name = cJSON_GetObjectItemCaseSensitive(it, "name");
        if (cJSON_IsString(name)) {
            ix->e[ix->n] = (struct named){name->valuestring, ix->n, it};
            ix->n++;
        }
    }
    qsort(ix->e, ix->n, sizeof *ix->e, named_cmp);
    return 0;
}

static const cJSON *index_find(const struct name_index *ix, const char *name)
{
    size_t lo = 0, hi = ix->n; /* the first entry not below name */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp(ix->e[mid].name, name) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < ix->n && strcmp(ix->e[lo].name, name) == 0 ? ix->e[lo].item : NULL;
}

static int add_row(struct cmp_result *r, size_t *cap, const char *owner, const char *what, double a, double b,
                   bool headline)
{
    if (isnan(a) || isnan(b))
        return 0;
    if (r->count == *cap) {
        size_t nc = *cap ? *cap * 2 : 32;
        struct cmp_row *nr = realloc(r->rows, nc * sizeof(*nr));
        if (!nr)
            return -1;
        r->rows = nr;
        *cap = nc;
    }
    struct cmp_row *row = &r->rows[r->count++];
    memset(row, 0, sizeof(*row));
    snprintf(row->metric, sizeof(row->metric), "%.60s.%s", owner, what);
    snprintf(row->owner, sizeof(row->owner), "%s", owner);
    row->what = what;
    row->a = a;
    row->b = b;
    row->ratio = a == b ? 1.0 : a == 0 ? INFINITY : b / a;
    row->headline = headline;
    return 0;
}

static double ratio_of(double x, double alone)
{
    return isnan(x) || isnan(alone) || alone <= 0 ? NAN : x / alone;
}

static int task_rows(struct cmp_result *r, size_t *cap, const cJSON *ta, const cJSON *tb)
{
    const cJSON *cls = cJSON_GetObjectItemCaseSensitive(ta, "class");
    bool lc = cJSON_IsString(cls) && strcmp(cls->valuestring, "LC") == 0;
    const char *name = cJSON_GetObjectItemCaseSensitive(ta, "name")->valuestring;
    /* the stat's key in latency_us, its row (also its key in alone) and the row of its ratio to alone */
    static const char *const stats[3][3] = {
        {"p50", "p50_us", "p50_vs_alone"},
        {"p99", "p99_us", "p99_vs_alone"},
        {"max", "max_us", "max_vs_alone"},
    };
    int rc = 0;
    for (int i = 0; i < 3; i++) {
        const char *const *st = stats[i];
        rc |= add_row(r, cap, name, st[1], num(ta, "latency_us", st[0]), num(tb, "latency_us", st[0]), false);
        rc |= add_row(r, cap, name, st[2], ratio_of(num(ta, "latency_us", st[0]), num(ta, "alone", st[1])),
                      ratio_of(num(tb, "latency_us", st[0]), num(tb, "alone", st[1])), lc && i < 2);
    }
    rc |= add_row(r, cap, name, "throughput_rps", num(ta, "throughput_rps", NULL), num(tb, "throughput_rps", NULL),
                  !lc);
    rc |= add_row(r, cap, name, "throughput_vs_alone",
                  ratio_of(num(ta, "throughput_rps", NULL), num(ta, "alone", "throughput_rps")),
                  ratio_of(num(tb, "throughput_rps", NULL), num(tb, "alone", "throughput_rps")), false);
    return rc;
}

static void copy_str(char *out, size_t len, const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    snprintf(out, len, "%s", cJSON_IsString(v) ? v->valuestring : "");
}

/* The run's header; a results.json without "backend" predates hardware runs: the emulator's. */
static void read_side(const cJSON *root, const char *fallback, struct cmp_side *sd, char *name, size_t len)
{
    copy_str(sd->scenario, sizeof(sd->scenario), root, "scenario");
    copy_str(sd->backend, sizeof(sd->backend), root, "backend");
    copy_str(sd->profile, sizeof(sd->profile), root, "profile");
    copy_str(sd->policy, sizeof(sd->policy), root, "policy");
    if (!sd->backend[0])
        snprintf(sd->backend, sizeof(sd->backend), "emulator");
    const cJSON *seed = cJSON_GetObjectItemCaseSensitive(root, "seed");
    if (cJSON_IsNumber(seed))
        snprintf(sd->seed, sizeof(sd->seed), "%.0f", seed->valuedouble);
    const cJSON *hw = cJSON_GetObjectItemCaseSensitive(root, "hw");
    copy_str(sd->gpu, sizeof(sd->gpu), hw, "gpu");
    copy_str(sd->driver, sizeof(sd->driver), hw, "driver");
    size_t n = 0;
    const cJSON *c;
    cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(hw, "calibration")) {
        if (!cJSON_IsNumber(c) || !c->string || n >= sizeof(sd->calibration))
            continue;
        int w = snprintf(sd->calibration + n, sizeof(sd->calibration) - n, "%s%s %.4g", n ? ", " : "", c->string,
                         c->valuedouble);
        n += w > 0 ? (size_t)w : 0;
    }
    snprintf(name, len, "%.48s (%.15s)", sd->scenario[0] ? sd->scenario : fallback, sd->backend);
}

int cmp_texts(const char *text_a, const char *name_a, const char *text_b, const char *name_b, double tolerance,
              bool headline_only, struct cmp_result *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof(*out));
    cJSON *ja = cJSON_Parse(text_a), *jb = cJSON_Parse(text_b);
    const cJSON *tasks_a = cJSON_GetObjectItemCaseSensitive(ja, "tasks");
    const cJSON *tasks_b = cJSON_GetObjectItemCaseSensitive(jb, "tasks");
    struct name_index tasks_ix = {0}, engines_ix = {0};
    int rc = -1;
    if (!cJSON_IsArray(tasks_a) || !cJSON_IsArray(tasks_b)) {
        snprintf(err, errlen, "%s: not a scenario results.json (no 'tasks' array)",
                 cJSON_IsArray(tasks_a) ? name_b : name_a);
        goto done;
    }
    read_side(ja, name_a, &out->side[0], out->name_a, sizeof(out->name_a));
    read_side(jb, name_b, &out->side[1], out->name_b, sizeof(out->name_b));
    size_t cap = 0;
    if (index_build(&tasks_ix, tasks_b) || index_build(&engines_ix, cJSON_GetObjectItemCaseSensitive(jb, "engines"))) {
        snprintf(err, errlen, "out of memory");
        goto done;
    }
    const cJSON *ta;
    cJSON_ArrayForEach(ta, tasks_a) {
        const cJSON *n = cJSON_GetObjectItemCaseSensitive(ta, "name");
        const cJSON *tb = cJSON_IsString(n) ? index_find(&tasks_ix, n->valuestring) : NULL;
        if (tb && task_rows(out, &cap, ta, tb)) {
            snprintf(err, errlen, "out of memory");
            goto done;
        }
    }
    const cJSON *ea;
    cJSON_ArrayForEach(ea, cJSON_GetObjectItemCaseSensitive(ja, "engines")) {
        const cJSON *n = cJSON_GetObjectItemCaseSensitive(ea, "name");
        const cJSON *eb = cJSON_IsString(n) ? index_find(&engines_ix, n->valuestring) : NULL;
        if (eb && (add_row(out, &cap, n->valuestring, "switches", num(ea, "switches", NULL),
                           num(eb, "switches", NULL), false) ||
                   add_row(out, &cap, n->valuestring, "preemptions", num(ea, "preemptions", NULL),
                           num(eb, "preemptions", NULL), false))) {
            snprintf(err, errlen, "out of memory");
            goto done;
        }
    }
    if (out->count == 0) {
        snprintf(err, errlen, "%s and %s share no metric (different scenarios?)", name_a, name_b);
        goto done;
    }
    for (size_t i = 0; i < out->count; i++) {
        struct cmp_row *row = &out->rows[i];
        row->within = fabs(row->ratio - 1.0) <= tolerance + 1e-12;
        if (headline_only && !row->headline)
            continue;
        out->checked++;
        out->passed += row->within;
    }
    rc = 0;
done:
    free(tasks_ix.e);
    free(engines_ix.e);
    cJSON_Delete(ja);
    cJSON_Delete(jb);
    if (rc)
        cmp_result_free(out);
    return rc;
}

int cmp_files(const char *a, const char *b, double tolerance, bool headline_only, struct cmp_result *out,
              char *err, size_t errlen)
{
    memset(out, 0, sizeof(*out));
    char *ta = slurp(a, err, errlen);
    if (!ta)
        return -1;
    char *tb = slurp(b, err, errlen);
    if (!tb) {
        free(ta);
        return -1;
    }
    int rc = cmp_texts(ta, a, tb, b, tolerance, headline_only, out, err, errlen);
    free(ta);
    free(tb);
    return rc;
}

void cmp_print(const struct cmp_result *r, double tolerance, bool headline_only, FILE *out)
{
    fprintf(out, "A: %s\nB: %s\n", r->name_a, r->name_b);
    fprintf(out, "%-32s %14s %14s %9s\n", "metric", "A", "B", "B/A");
    for (size_t i = 0; i < r->count; i++) {
        const struct cmp_row *row = &r->rows[i];
        bool judged = !headline_only || row->headline;
        fprintf(out, "%-32s %14.4g %14.4g %9.3f  %s%s\n", row->metric, row->a, row->b, row->ratio,
                !judged ? "" : row->within ? "ok" : "DIFF", row->headline ? " *" : "");
    }
    fprintf(out, "%zu of %zu %smetrics within %.0f%% (* = headline: LC p50/p99 vs alone, BE requests/s)\n",
            r->passed, r->checked, headline_only ? "headline " : "", tolerance * 100);
}

void cmp_result_free(struct cmp_result *r)
{
    if (!r)
        return;
    free(r->rows);
    r->rows = NULL;
    r->count = r->checked = r->passed = 0;
}
