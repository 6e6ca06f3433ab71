/* sweep.html: small multiples of chosen metrics against each parameter. */
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

bool sweep_cell_is(const char *row, int col, const char *text)
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
        sweep_decode(sw, i, vi);
        sum[vi[p]] += y;
        cnt[vi[p]]++;
        /* a point's fixed offset of -5..5 steps of 3% of its column, so the seeds of one value do not hide
         * each other (signed: the unsigned remainder minus 5 wrapped, putting half the points off the page) */
        double x = ML + step * (vi[p] + 0.5) + ((double)((i * 7919) % 11) - 5.0) * step * 0.03;
        fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2.5\" class=\"%s\"/>\n", x,
                MT + ph - ph * (y - lo) / (hi - lo), sweep_cell_is(sw->rows[i], passcol, "true") ? "ok" : "bad");
    }
    fputs("<polyline class=\"mean\" points=\"", f);
    for (size_t v = 0; v < pp->nvalues; v++)
        if (cnt[v])
            fprintf(f, "%.1f,%.1f ", ML + step * (v + 0.5), MT + ph - ph * (sum[v] / cnt[v] - lo) / (hi - lo));
    fputs("\"/>\n</svg>\n", f);
}

int sweep_write_html(const struct sweep *sw, const char *dir, const char *const *plot, size_t nplot, char *err,
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
    FILE *f = sweep_open_out(dir, "sweep.html", err, errlen);
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
