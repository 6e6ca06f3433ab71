/*
 * What `nvemu calibrate` writes (calibrate.h): the fitted profile, with a provenance row per value, and the
 * report of the fit and its validation.
 */
#include "calibrate.h"

#include <math.h>
#include <string.h>

/* "timing.cilp_save" for the key "cilp_save_us": the field's name in `nvemu profile provenance`. */
static void prov_key(const struct cal_step *st, char *buf, size_t len)
{
    size_t n = strlen(st->key);
    if (!st->ns && n > 3 && !strcmp(st->key + n - 3, "_us"))
        n -= 3;
    snprintf(buf, len, "timing.%.*s", (int)n, st->key);
}

/* The GPU, driver and date of the recordings, for comments and provenance rows. */
static void source_line(const struct cal_data *d, char *buf, size_t len)
{
    const struct cal_source *s = &d->src;
    char others[48] = "";
    if (s->other_boards)
        snprintf(others, sizeof others, " (+%u other board%s)", s->other_boards, s->other_boards == 1 ? "" : "s");
    snprintf(buf, len, "%s%s%s%s, driver %s, %s", s->gpu[0] ? s->gpu : "an unnamed GPU", s->uuid[0] ? " " : "", s->uuid,
             others, s->driver[0] ? s->driver : "unknown", s->date[0] ? s->date : "undated");
}

/* A time as the profile takes it: whole ns ("1024ns"), or microseconds to the ns without trailing zeros. */
static void fmt_value(char *buf, size_t len, double v, bool ns)
{
    if (ns) {
        snprintf(buf, len, "%.0fns", round(v));
        return;
    }
    snprintf(buf, len, "%.3f", round(v * 1e3) / 1e3);
    char *e = buf + strlen(buf);
    while (e[-1] == '0')
        *--e = '\0';
    if (e[-1] == '.')
        e[-1] = '\0';
}

static void metric_label(const struct cal_metric *m, char *buf, size_t len)
{
    snprintf(buf, len, "%s %s", m->task, cal_stat_names[m->stat]);
}

int cal_write_profile(const struct cal_fit *fit, const struct cal_data *d, const char *name, const char *path,
                      char *err, size_t errlen)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        snprintf(err, errlen, "cannot write %s", path);
        return -1;
    }
    char src[400];
    source_line(d, src, sizeof src);
    fprintf(f, "# GPU profile calibrated by `nvemu calibrate` from the recordings in %s\n", d->src.dirs);
    fprintf(f, "# (%s; %s).\n# The timing keys below were fitted on the emulator to those recordings in this order, then once\n"
               "# more each with all the others in place; every other value is the base profile's.\n",
            src, d->src.hardware ? "recorded with `nvemu scenario run --hw`" : "NOT recorded on a GPU: emulator runs");
    fprintf(f, "base: %s\nname: %s\ntiming:\n", fit->base, name);
    for (size_t i = 0; i < fit->nrows; i++) {
        const struct cal_fit_row *r = &fit->rows[i];
        char val[48];
        fmt_value(val, sizeof val, r->value, r->step->ns);
        fprintf(f, "  %s: %-12s # %s:", r->step->key, val, r->step->what);
        for (unsigned k = 0; k < r->used; k++) {
            char lab[96];
            metric_label(&r->step->metrics[k], lab, sizeof lab);
            fprintf(f, " %s%s %s %.4g (model %.4g)", k ? "; " : "", r->step->metrics[k].exp, lab, r->meas[k],
                    r->model[k]);
        }
        fputc('\n', f);
        if (r->tied) {
            fmt_value(val, sizeof val, r->tie_value, false);
            if (r->step->tie_base_distance)
                fprintf(f, "  %s: %-12s # follows %s at the base's distance\n", r->step->tie_key, val, r->step->key);
            else
                fprintf(f, "  %s: %-12s # follows %s (x %g)\n", r->step->tie_key, val, r->step->key,
                        r->step->tie_scale);
        }
    }
    fprintf(f, "provenance:\n  timing: \"%s, nvemu calibrate on %s; keys without a row below: base %s\"\n",
            d->src.hardware ? "measured" : "derived", d->src.gpu[0] ? d->src.gpu : "recordings", fit->base);
    for (size_t i = 0; i < fit->nrows; i++) {
        const struct cal_fit_row *r = &fit->rows[i];
        char key[64], row[640];
        prov_key(r->step, key, sizeof key);
        /* the first metric's experiment names the row; the rest are in the comment above */
        snprintf(row, sizeof row, "%s, nvemu calibrate %s (%u metric%s); %s", d->src.hardware ? "measured" : "derived",
                 r->step->metrics[0].exp, r->used, r->used == 1 ? "" : "s", src);
        fprintf(f, "  %s: \"%.190s\"\n", key, row);
    }
    if (fclose(f)) {
        snprintf(err, errlen, "cannot write %s", path);
        return -1;
    }
    return 0;
}

void cal_report(FILE *out, const struct cal_fit *fit, const struct cal_data *d, const struct cal_check *c)
{
    char src[400];
    source_line(d, src, sizeof src);
    fprintf(out, "calibration from %s\n  %s%s\n  base %s\n\n", d->src.dirs, src,
            d->src.hardware ? "" : " (not every results.json is a --hw run)", fit->base);
    fprintf(out, "%-26s %10s  %-42s %-22s %10s %10s %7s\n", "key", "value", "experiment", "metric", "measured",
            "model", "ratio");
    for (size_t i = 0; i < fit->nrows; i++) {
        const struct cal_fit_row *r = &fit->rows[i];
        for (unsigned k = 0; k < r->used; k++) {
            char lab[96], val[32];
            metric_label(&r->step->metrics[k], lab, sizeof lab);
            snprintf(val, sizeof val, "%.4g%s%s", r->value, r->step->ns ? "ns" : "", r->at_edge ? "!" : "");
            fprintf(out, "%-26s %10s  %-42s %-22s %10.4g %10.4g %7.3f\n", k ? "" : r->step->key, k ? "" : val,
                    r->step->metrics[k].exp, lab, r->meas[k], r->model[k],
                    r->meas[k] > 0 ? r->model[k] / r->meas[k] : 0);
        }
    }
    for (size_t i = 0; i < fit->nrows; i++)
        if (fit->rows[i].at_edge)
            fprintf(out, "%s!: at the end of its search range [%g, %g]: the recordings want a value beyond it\n",
                    fit->rows[i].step->key, fit->rows[i].step->lo, fit->rows[i].step->hi);
    if (!c)
        return;
    fprintf(out, "\nvalidation: the fitted profile on experiments it was not fitted to\n");
    fprintf(out, "%-42s %-22s %10s %10s %7s\n", "experiment", "metric", "measured", "model", "ratio");
    for (size_t i = 0; i < c->n; i++) {
        const struct cal_check_row *r = &c->rows[i];
        char lab[96];
        snprintf(lab, sizeof lab, "%s %s", r->task, cal_stat_names[r->stat]);
        fprintf(out, "%-42s %-22s %10.4g %10.4g %7.3f\n", r->exp, lab, r->meas, r->model,
                r->meas > 0 ? r->model / r->meas : 0);
    }
    if (c->n)
        fprintf(out, "validation: %u of %zu metrics within 10%%, %u within 25%%\n", c->within10, c->n, c->within25);
    else
        fprintf(out, "validation: no recording of a validation experiment\n");
}
