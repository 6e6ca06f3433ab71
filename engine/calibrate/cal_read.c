/*
 * Reading recordings for `nvemu calibrate`: results.json of the embedded experiments under a directory (as
 * `scenario run` writes them, one directory per scenario, repeats side by side) and nvidia-smi's line in env.txt.
 */
#include "calibrate.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/util.h"

#define RESULTS_MAX (64u << 20)

/* Raw values of one task before the medians: one row per recording. */
struct raw {
    char exp[64], task[32];
    double v[CAL_STAT_COUNT];
    bool has[CAL_STAT_COUNT];
    unsigned long long seed;
    int board;
};

struct raws {
    struct raw *r;
    size_t n, cap;
};

static bool is_dir(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static double num(const cJSON *o, const char *k, bool *ok)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    *ok = cJSON_IsNumber(v) && isfinite(v->valuedouble);
    return *ok ? v->valuedouble : 0;
}

static void copy_str(char *dst, size_t len, const cJSON *o, const char *k)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    if (cJSON_IsString(v) && v->valuestring[0] && !dst[0])
        snprintf(dst, len, "%s", v->valuestring);
}

/* One results.json: a row per task into raws, its GPU and driver into src. */
static int read_results(struct raws *rs, struct cal_source *src, const char *exp, const char *path, int board,
                        char *err, size_t errlen)
{
    char *text = nvemu_slurp(path, RESULTS_MAX, NULL, err, errlen);
    if (!text)
        return -1;
    cJSON *root = cJSON_Parse(text);
    free(text);
    const cJSON *tasks = root ? cJSON_GetObjectItemCaseSensitive(root, "tasks") : NULL;
    if (!cJSON_IsArray(tasks)) {
        snprintf(err, errlen, "%s: not a results.json of `nvemu scenario run` (no tasks array)", path);
        cJSON_Delete(root);
        return -1;
    }
    const cJSON *backend = cJSON_GetObjectItemCaseSensitive(root, "backend");
    if (!cJSON_IsString(backend) || strcmp(backend->valuestring, "hw"))
        src->hardware = false;
    const cJSON *hw = cJSON_GetObjectItemCaseSensitive(root, "hw");
    if (cJSON_IsObject(hw)) {
        copy_str(src->gpu, sizeof src->gpu, hw, "gpu");
        copy_str(src->driver, sizeof src->driver, hw, "driver");
    }
    bool ok;
    double seed = num(root, "seed", &ok);
    const cJSON *t;
    cJSON_ArrayForEach(t, tasks) {
        const cJSON *name = cJSON_GetObjectItemCaseSensitive(t, "name");
        if (!cJSON_IsString(name))
            continue;
        if (rs->n == rs->cap) {
            size_t cap = rs->cap ? rs->cap * 2 : 64;
            struct raw *r = realloc(rs->r, cap * sizeof *r);
            if (!r) {
                snprintf(err, errlen, "out of memory");
                cJSON_Delete(root);
                return -1;
            }
            rs->r = r, rs->cap = cap;
        }
        struct raw *r = &rs->r[rs->n++];
        memset(r, 0, sizeof *r);
        snprintf(r->exp, sizeof r->exp, "%s", exp);
        snprintf(r->task, sizeof r->task, "%s", name->valuestring);
        r->seed = ok && seed >= 0 ? (unsigned long long)seed : 1;
        r->board = board;
        const cJSON *lat = cJSON_GetObjectItemCaseSensitive(t, "latency_us");
        const cJSON *alone = cJSON_GetObjectItemCaseSensitive(t, "alone");
        r->v[CAL_P50] = num(lat, "p50", &r->has[CAL_P50]);
        r->v[CAL_P99] = num(lat, "p99", &r->has[CAL_P99]);
        r->v[CAL_RPS] = num(t, "throughput_rps", &r->has[CAL_RPS]);
        r->v[CAL_ALONE_P50] = num(alone, "p50_us", &r->has[CAL_ALONE_P50]);
        r->v[CAL_ALONE_P99] = num(alone, "p99_us", &r->has[CAL_ALONE_P99]);
        r->v[CAL_ALONE_RPS] = num(alone, "throughput_rps", &r->has[CAL_ALONE_RPS]);
        for (int k = 0; k < 2; k++) {
            enum cal_stat own = k ? CAL_P99 : CAL_P50, al = k ? CAL_ALONE_P99 : CAL_ALONE_P50;
            enum cal_stat ratio = k ? CAL_P99_VS_ALONE : CAL_P50_VS_ALONE;
            if (r->has[own] && r->has[al] && r->v[al] > 0) {
                r->v[ratio] = r->v[own] / r->v[al];
                r->has[ratio] = true;
            }
        }
        /* a statistic of no completed request is no measurement */
        for (int s = 0; s < CAL_STAT_COUNT; s++)
            if (r->has[s] && !(r->v[s] > 0))
                r->has[s] = false;
    }
    cJSON_Delete(root);
    return 0;
}

/* nvidia-smi's "name, GPU-uuid, driver, ..." line and the first line (the date `date -u` wrote) of env.txt. */
static void read_env(struct cal_source *src, const char *path)
{
    char err[256];
    char *text = nvemu_slurp(path, 1u << 20, NULL, err, sizeof err);
    if (!text)
        return;
    bool first = true;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n"), first = false) {
        char *u = strstr(line, ", GPU-");
        if (u && src->uuid[0] && strncmp(u + 2, src->uuid, strlen(src->uuid)))
            src->other_boards++;
        if (u && !src->uuid[0]) {
            char *end = strchr(u + 2, ',');
            snprintf(src->uuid, sizeof src->uuid, "%.*s", (int)((end ? end : u + strlen(u)) - (u + 2)), u + 2);
            if (end && !src->driver[0]) {
                char *d = end + 1 + strspn(end + 1, " ");
                snprintf(src->driver, sizeof src->driver, "%.*s", (int)strcspn(d, ","), d);
            }
            if (!src->gpu[0])
                snprintf(src->gpu, sizeof src->gpu, "%.*s", (int)(u - line), line);
        } else if (first && !src->date[0] && !strchr(line, ',')) {
            snprintf(src->date, sizeof src->date, "%s", line);
        }
    }
    free(text);
}

/* dir/NAME/results.json for every embedded experiment NAME, as rows of board `board`; the count read, or -1. */
static int read_level(struct raws *rs, struct cal_source *src, const char *dir, int board, char *err, size_t errlen)
{
    int count = 0;
    char path[4096];
    snprintf(path, sizeof path, "%s/env.txt", dir);
    read_env(src, path);
    for (const struct cal_experiment *e = cal_experiments; e->name; e++) {
        snprintf(path, sizeof path, "%s/%s/results.json", dir, e->name);
        struct stat st;
        if (stat(path, &st) != 0)
            continue;
        if (read_results(rs, src, e->name, path, board, err, errlen))
            return -1;
        count++;
    }
    return count;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, size_t k)
{
    qsort(v, k, sizeof *v, cmp_double);
    return k % 2 ? v[k / 2] : (v[k / 2 - 1] + v[k / 2]) / 2;
}

/* Adds one measure per (experiment, task) of rs's rows to d: each board's median of its repeats, then the median of
 * the boards' values, so a board that ran a scenario more often has no more say than one that ran it once. */
static int add_medians(struct cal_data *d, const struct raws *rs, int nboards, char *err, size_t errlen)
{
    size_t cap = rs->n ? rs->n : 1;
    bool *done = calloc(cap, sizeof *done);
    double *vals = malloc(cap * sizeof *vals), *bvals = malloc((size_t)nboards * sizeof *bvals);
    if (!done || !vals || !bvals) {
        free(done), free(vals), free(bvals);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    for (size_t i = 0; i < rs->n; i++) {
        if (done[i])
            continue;
        if (d->n == d->cap) {
            size_t dcap = d->cap ? d->cap * 2 : 64;
            struct cal_measure *m = realloc(d->m, dcap * sizeof *m);
            if (!m) {
                free(done), free(vals), free(bvals);
                snprintf(err, errlen, "out of memory");
                return -1;
            }
            d->m = m, d->cap = dcap;
        }
        struct cal_measure *m = &d->m[d->n++];
        memset(m, 0, sizeof *m);
        snprintf(m->exp, sizeof m->exp, "%s", rs->r[i].exp);
        snprintf(m->task, sizeof m->task, "%s", rs->r[i].task);
        m->seed = rs->r[i].seed;
        for (size_t j = i; j < rs->n; j++)
            if (!strcmp(rs->r[j].exp, m->exp) && !strcmp(rs->r[j].task, m->task)) {
                done[j] = true;
                m->repeats++;
            }
        for (int s = 0; s < CAL_STAT_COUNT; s++) {
            size_t nb = 0;
            for (int b = 0; b < nboards; b++) {
                size_t k = 0;
                for (size_t j = i; j < rs->n; j++)
                    if (rs->r[j].board == b && !strcmp(rs->r[j].exp, m->exp) && !strcmp(rs->r[j].task, m->task) &&
                        rs->r[j].has[s])
                        vals[k++] = rs->r[j].v[s];
                if (k)
                    bvals[nb++] = median(vals, k);
            }
            if (nb) {
                m->v[s] = median(bvals, nb);
                m->has[s] = true;
            }
        }
    }
    free(done), free(vals), free(bvals);
    return 0;
}

static bool is_board(const char *name)
{
    return !strncmp(name, "board", 5);
}

/* dir's results (read_level) and those of each subdirectory in name order (r1, r2, ...: the seed and the first
 * env.txt come from the first), all as board `board`; at the top, a subdirectory board* is a board of its own,
 * read the same way. The count read, or -1. */
static int read_tree(struct raws *rs, struct cal_source *src, const char *dir, bool top, int board, int *nboards,
                     char *err, size_t errlen)
{
    int total = read_level(rs, src, dir, board, err, errlen);
    struct dirent **ents = NULL;
    int n = total < 0 ? 0 : scandir(dir, &ents, NULL, alphasort);
    for (int i = 0; i < n; i++) {
        const char *name = ents[i]->d_name;
        char sub[4096];
        snprintf(sub, sizeof sub, "%s/%s", dir, name);
        bool own_board = top && is_board(name);
        if (total >= 0 && name[0] != '.' && !cal_experiment_find(name) && (top || !is_board(name)) && is_dir(sub)) {
            int c = own_board ? read_tree(rs, src, sub, false, (*nboards)++, nboards, err, errlen)
                              : read_level(rs, src, sub, board, err, errlen);
            total = c < 0 ? -1 : total + c;
        }
        free(ents[i]);
    }
    free(ents);
    return total;
}

int cal_read_dir(struct cal_data *d, const char *dir, char *err, size_t errlen)
{
    if (!is_dir(dir)) {
        snprintf(err, errlen, "%s: not a directory", dir);
        return -1;
    }
    if (!d->n && !d->src.dirs[0])
        d->src.hardware = true;
    struct raws rs = {0};
    int nboards = 1;
    int total = read_tree(&rs, &d->src, dir, true, 0, &nboards, err, errlen);
    if (total >= 0 && add_medians(d, &rs, nboards, err, errlen))
        total = -1;
    free(rs.r);
    if (total > 0) {
        size_t l = strlen(d->src.dirs);
        snprintf(d->src.dirs + l, sizeof d->src.dirs - l, "%s%s", l ? ", " : "", dir);
    }
    return total;
}

bool cal_measured(const struct cal_data *d, const char *exp, const char *task, enum cal_stat st, double *v)
{
    for (size_t i = 0; i < d->n; i++)
        if (!strcmp(d->m[i].exp, exp) && !strcmp(d->m[i].task, task) && d->m[i].has[st]) {
            *v = d->m[i].v[st];
            return true;
        }
    return false;
}

void cal_data_free(struct cal_data *d)
{
    free(d->m);
    memset(d, 0, sizeof *d);
}
