/* The sweep's tables: sweep.csv and sweep.json, and sweep_write beside the plot. */
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

/* ---- tables ---- */

FILE *sweep_open_out(const char *dir, const char *name, char *err, size_t errlen)
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

int sweep_write_tables(const struct sweep *sw, const char *dir, char *err, size_t errlen)
{
    FILE *csv = sweep_open_out(dir, "sweep.csv", err, errlen);
    FILE *js = csv ? sweep_open_out(dir, "sweep.json", err, errlen) : NULL;
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

int sweep_write(const struct sweep *sw, const char *dir, const char *const *plot, size_t nplot, char *err,
                size_t errlen)
{
    return sweep_write_tables(sw, dir, err, errlen) || sweep_write_html(sw, dir, plot, nplot, err, errlen) ? -1 : 0;
}
