/* Merging the shards of a sweep (--shard i/n) into one sweep. */
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
        if (rc == 0 && (!cJSON_IsString(c) || sweep_add_column(t, "%s", c->valuestring) != 0))
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
