/*
 * compare.html: the page of `nvemu scenario compare --html`, in report.html's style (its head and style
 * sheet, report_html_head). No scripts, no network: inline CSS and SVG, and the two runs' own report.html
 * in iframes by relative path, so the page and the run directories can be moved together.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "compare.h"
#include "report.h"
#include "scenario.h"

/* The B/A bar of a metric row: width, and the margin kept for the marks of a ratio off the scale. */
#define BAR_W 220.0
#define BAR_H 16.0
#define BAR_PAD 6.0

/* The paired bars of a task: label column, longest bar, room for the value after it, one bar's pitch. */
#define PAIR_LABEL 60.0
#define PAIR_BAR 300.0
#define PAIR_W (PAIR_LABEL + PAIR_BAR + 80.0)
#define PAIR_PITCH 16.0

static const char *const side_color[2] = {"#2e86ab", "#e4572e"};
static const char *const side_letter[2] = {"A", "B"};

static const char page_css[] =
    "body{max-width:none}h3{margin:12px 0 4px;font-size:15px}"
    "#sides td{text-align:left;white-space:normal;max-width:520px}.headline td:first-child{font-weight:bold}.off{background:#fff8e6}"
    ".sw{display:inline-block;width:12px;height:12px;margin:0 4px 0 12px;vertical-align:middle}"
    ".pairs{display:flex;flex-wrap:wrap;gap:8px 32px}.reports{display:flex;gap:16px;overflow-x:auto}"
    ".reports>div{flex:1 0 auto}"
    "iframe{width:1220px;height:3200px;border:1px solid #ddd}.no-report{background:#f8f8f8;padding:8px;color:#555}"
    "#metrics td.bar{padding:0 4px;vertical-align:middle}#metrics svg{display:block}";

int cmp_relpath(const char *from, const char *to, char *out, size_t len)
{
    /* the longest common prefix that ends at a component boundary of both */
    size_t common = 0;
    for (size_t i = 0;; i++) {
        bool end_f = from[i] == '\0' || from[i] == '/', end_t = to[i] == '\0' || to[i] == '/';
        if (end_f && end_t)
            common = i;
        if (from[i] != to[i] || from[i] == '\0')
            break;
    }
    if (!len)
        return -1;
    out[0] = '\0';
    size_t n = 0;
    /* one ".." per component of `from` below the common prefix */
    for (const char *p = from + common; *p; p++)
        if (*p != '/' && (p == from + common || p[-1] == '/'))
            n += 3;
    const char *rest = to + common;
    while (*rest == '/')
        rest++;
    size_t need = *rest ? n + strlen(rest) : n ? n - 1 : 1;
    if (need >= len)
        return -1;
    for (size_t k = 0; k < n; k += 3)
        memcpy(out + k, "../", 3);
    if (*rest)
        strcpy(out + n, rest);
    else
        strcpy(out + (n ? n - 1 : 0), n ? "" : ".");
    return 0;
}

/* A path as an attribute value of a URL: unreserved characters and '/' as they are, the rest %XX. */
static void url_escape(FILE *f, const char *s)
{
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || strchr("-._~/", c))
            fputc(c, f);
        else
            fprintf(f, "%%%02X", c);
    }
}

/* Where a side's report.html is, as seen from the page; or why there is none (into note). */
struct report_ref {
    bool found;
    char rel[PATH_MAX];
    char note[64];
};

static void find_report(const char *input, const char *page_dir, struct report_ref *ref)
{
    memset(ref, 0, sizeof(*ref));
    struct stat st;
    if (stat(input, &st) != 0 || !S_ISDIR(st.st_mode)) {
        snprintf(ref->note, sizeof(ref->note), "a results.json file, not a run directory");
        return;
    }
    char file[PATH_MAX], abs[PATH_MAX];
    snprintf(file, sizeof(file), "%.*s/report.html", PATH_MAX - 13, input);
    if (stat(file, &st) != 0 || !S_ISREG(st.st_mode) || !realpath(file, abs)) {
        snprintf(ref->note, sizeof(ref->note), "a run directory without report.html");
        return;
    }
    if (!page_dir || cmp_relpath(page_dir, abs, ref->rel, sizeof(ref->rel)) != 0) {
        snprintf(ref->note, sizeof(ref->note), "a report.html the page cannot point to");
        return;
    }
    ref->found = true;
}

/* A row of the header table; none when both sides say nothing. */
static void side_row(FILE *f, const char *label, const char *a, const char *b)
{
    if (!a[0] && !b[0])
        return;
    fprintf(f, "<tr><th>%s</th><td>", label);
    report_xml_escape(f, a[0] ? a : "-");
    fputs("</td><td>", f);
    report_xml_escape(f, b[0] ? b : "-");
    fputs("</td></tr>\n", f);
}

static void sides(FILE *f, const struct cmp_result *r, const char *a, const char *b)
{
    const struct cmp_side *sa = &r->side[0], *sb = &r->side[1];
    fputs("<table id=\"sides\"><tr><th></th><th>A</th><th>B</th></tr>\n", f);
    side_row(f, "input", a, b);
    side_row(f, "scenario", sa->scenario, sb->scenario);
    side_row(f, "backend", sa->backend, sb->backend);
    side_row(f, "GPU", sa->gpu, sb->gpu);
    side_row(f, "driver", sa->driver, sb->driver);
    side_row(f, "calibration", sa->calibration, sb->calibration);
    side_row(f, "profile", sa->profile, sb->profile);
    side_row(f, "policy", sa->policy, sb->policy);
    side_row(f, "seed", sa->seed, sb->seed);
    fputs("</table>\n", f);
}

/*
 * Half the bars' scale in ln(B/A): wide enough for the largest finite ratio of the table (a wider one, up to
 * 16x, is clamped to the edge with an arrowhead) and for the tolerance band to take at most 2/5 of it.
 */
static double bar_span(const struct cmp_result *r, double tolerance)
{
    double m = 0;
    for (size_t i = 0; i < r->count; i++)
        if (r->rows[i].ratio > 0 && isfinite(r->rows[i].ratio))
            m = fmax(m, fabs(log(r->rows[i].ratio)));
    return fmax(fmax(2.5 * log1p(tolerance), fmin(1.15 * m, log(16.0))), log(1.1));
}

static double bar_x(double ratio, double span)
{
    double half = BAR_W / 2 - BAR_PAD;
    double x = BAR_W / 2 + half * (ratio > 0 ? log(ratio) : -INFINITY) / span;
    return fmin(fmax(x, BAR_PAD), BAR_W - BAR_PAD);
}

/* The scale above the bars: 1, the tolerance band's edges and the scale's ends, each label clear of the others. */
static void bar_axis(FILE *f, double tolerance, double span)
{
    fprintf(f, "<svg id=\"ratio-axis\" viewBox=\"0 0 %.0f 18\" width=\"%.0f\" height=\"18\" "
               "xmlns=\"http://www.w3.org/2000/svg\" font-family=\"sans-serif\" font-size=\"10\">\n", BAR_W, BAR_W);
    double ticks[] = {1, exp(-span), exp(span), 1 - tolerance, 1 + tolerance}, placed[5];
    int n = 0;
    for (int k = 0; k < 5; k++) {
        if (ticks[k] <= 0 || fabs(log(ticks[k])) > span * (1 + 1e-9))
            continue;
        double x = bar_x(ticks[k], span);
        bool clear = true;
        for (int j = 0; j < n && clear; j++)
            clear = fabs(placed[j] - x) >= 30;
        if (!clear)
            continue;
        placed[n++] = x;
        const char *anchor = x < 20 ? "start" : x > BAR_W - 20 ? "end" : "middle";
        fprintf(f, "<line x1=\"%.1f\" y1=\"12\" x2=\"%.1f\" y2=\"18\" stroke=\"#888\"/>"
                   "<text x=\"%.1f\" y=\"10\" text-anchor=\"%s\" fill=\"#555\">%.3g</text>\n",
                x, x, x, anchor, ticks[k]);
    }
    fputs("</svg>", f);
}

/* One row's B/A on the log scale: the tolerance band shaded, 1 marked, a bar from 1 to B/A. */
static void ratio_bar(FILE *f, const struct cmp_row *row, double tolerance, double span)
{
    double lo = tolerance < 1 ? bar_x(1 - tolerance, span) : BAR_PAD, hi = bar_x(1 + tolerance, span);
    double c = BAR_W / 2, x = bar_x(row->ratio, span);
    fprintf(f, "<svg class=\"ratio\" data-ratio=\"%.6g\" viewBox=\"0 0 %.0f %.0f\" width=\"%.0f\" height=\"%.0f\" "
               "xmlns=\"http://www.w3.org/2000/svg\"><title>B/A = %.4g</title>",
            row->ratio, BAR_W, BAR_H, BAR_W, BAR_H, row->ratio);
    fprintf(f, "<rect class=\"band\" x=\"%.1f\" y=\"1\" width=\"%.1f\" height=\"%.0f\" fill=\"#e3e3e3\"/>", lo,
            hi - lo, BAR_H - 2);
    fprintf(f, "<rect x=\"%.1f\" y=\"4\" width=\"%.1f\" height=\"%.0f\" fill=\"%s\"/>", fmin(c, x),
            fmax(fabs(x - c), 1), BAR_H - 8, row->within ? "#1a7f37" : "#c00");
    if (x <= BAR_PAD || x >= BAR_W - BAR_PAD)
        /* off the scale: an arrowhead at the edge */
        fprintf(f, "<path d=\"M%.1f %.1f l%.0f %.1f l%.0f %.1f z\" fill=\"#c00\"/>", x, BAR_H / 2,
                x <= BAR_PAD ? 6.0 : -6.0, -BAR_H / 2 + 1, 0.0, BAR_H - 2);
    fprintf(f, "<line x1=\"%.1f\" y1=\"0\" x2=\"%.1f\" y2=\"%.0f\" stroke=\"#555\"/></svg>", c, c, BAR_H);
}

static void metrics(FILE *f, const struct cmp_result *r, double tolerance, bool headline_only)
{
    double span = bar_span(r, tolerance);
    fprintf(f, "<h2>Metrics</h2><p class=\"meta\">B/A per metric; within tolerance: |B/A &minus; 1| &le; %g%s. "
               "Bold, &#9733;: the headline metrics (LC p50/p99 vs alone, BE requests/s). Red: out of tolerance. "
               "Bar: B/A on a log scale around 1 (the line), shaded: the tolerance band.</p>\n",
            tolerance, headline_only ? " (--headline: only the headline rows are judged)" : "");
    fputs("<table id=\"metrics\"><tr><th>metric</th><th>A</th><th>B</th><th>B/A</th><th class=\"bar\">", f);
    bar_axis(f, tolerance, span);
    fputs("</th><th>within</th></tr>\n", f);
    for (size_t i = 0; i < r->count; i++) {
        const struct cmp_row *row = &r->rows[i];
        bool judged = !headline_only || row->headline;
        const char *cls = row->within ? "" : judged ? " bad" : " off";
        fprintf(f, "<tr class=\"row%s%s\" data-metric=\"", row->headline ? " headline" : "", cls);
        report_xml_escape(f, row->metric);
        fputs("\"><td>", f);
        report_xml_escape(f, row->metric);
        fprintf(f, "%s</td><td>%.4g</td><td>%.4g</td><td>%.3f</td><td class=\"bar\">", row->headline ? " &#9733;" : "",
                row->a, row->b, row->ratio);
        ratio_bar(f, row, tolerance, span);
        fprintf(f, "</td><td>%s</td></tr>\n",
                row->within ? "ok" : judged ? "DIFF" : "differs (not judged)");
    }
    fprintf(f, "</table>\n<p class=\"meta\">%zu of %zu %smetrics within %g%%.</p>\n", r->passed, r->checked,
            headline_only ? "headline " : "", tolerance * 100);
}

static const struct cmp_row *find_row(const struct cmp_result *r, const char *owner, const char *what)
{
    for (size_t i = 0; i < r->count; i++)
        if (strcmp(r->rows[i].owner, owner) == 0 && strcmp(r->rows[i].what, what) == 0)
            return &r->rows[i];
    return NULL;
}

/* A and B of one quantity, as two bars on a scale of max; the label on the left, each value after its bar. */
static void pair(FILE *f, double y, const char *label, const struct cmp_row *row, double max, bool latency)
{
    fprintf(f, "<text x=\"4\" y=\"%.1f\">%s</text>\n", y + PAIR_PITCH + 4, label);
    for (int s = 0; s < 2; s++) {
        double v = s ? row->b : row->a, w = max > 0 ? PAIR_BAR * v / max : 0, yy = y + s * PAIR_PITCH;
        char val[32];
        if (latency)
            sc_fmt_ns(v * 1000, val, sizeof(val));
        else
            snprintf(val, sizeof(val), "%.1f/s", v);
        fprintf(f, "<rect class=\"side-%c\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.0f\" fill=\"%s\">"
                   "<title>%s %s</title></rect><text x=\"%.1f\" y=\"%.1f\" font-size=\"11\">%s</text>\n",
                s ? 'b' : 'a', PAIR_LABEL, yy + 2, fmax(w, 1), PAIR_PITCH - 3, side_color[s], side_letter[s], val,
                PAIR_LABEL + fmax(w, 1) + 4, yy + 12, val);
    }
}

static void tasks(FILE *f, const struct cmp_result *r)
{
    fprintf(f, "<h2>Tasks side by side</h2><p class=\"meta\">Latency p50, p99 and max, and requests/s:"
               "<span class=\"sw\" style=\"background:%s\"></span>A: ",
            side_color[0]);
    report_xml_escape(f, r->name_a);
    fprintf(f, "<span class=\"sw\" style=\"background:%s\"></span>B: ", side_color[1]);
    report_xml_escape(f, r->name_b);
    fputs("</p>\n<div class=\"pairs\">\n", f);
    static const char *const what[4][2] = {
        {"p50_us", "p50"}, {"p99_us", "p99"}, {"max_us", "max"}, {"throughput_rps", "req/s"}};
    size_t shown = 0;
    for (size_t i = 0; i < r->count; i++) {
        /* compare.c adds a task's (or an engine's) rows together: its first row stands for it */
        const char *owner = r->rows[i].owner;
        if (i > 0 && strcmp(r->rows[i - 1].owner, owner) == 0)
            continue;
        const struct cmp_row *rows[4];
        for (int k = 0; k < 4; k++)
            rows[k] = find_row(r, owner, what[k][0]);
        if (!rows[0] && !rows[3])
            continue;
        double lat_max = 0;
        int n = 0;
        for (int k = 0; k < 4; k++) {
            n += rows[k] != NULL;
            if (rows[k] && k < 3)
                lat_max = fmax(lat_max, fmax(rows[k]->a, rows[k]->b));
        }
        double h = n * (2 * PAIR_PITCH + 10) + 4, y = 4;
        fputs("<div><h3>", f);
        report_xml_escape(f, owner);
        fprintf(f, "</h3><svg id=\"pair-%zu\" class=\"pair\" data-task=\"", shown++);
        report_xml_escape(f, owner);
        fprintf(f, "\" viewBox=\"0 0 %.0f %.0f\" width=\"%.0f\" height=\"%.0f\" xmlns=\"http://www.w3.org/2000/svg\" "
                   "font-family=\"sans-serif\" font-size=\"12\">\n",
                PAIR_W, h, PAIR_W, h);
        lat_max = report_nice_max(fmax(lat_max, 1e-3));
        for (int k = 0; k < 3; k++) {
            if (!rows[k])
                continue;
            pair(f, y, what[k][1], rows[k], lat_max, true);
            y += 2 * PAIR_PITCH + 10;
        }
        if (rows[3])
            pair(f, y, what[3][1], rows[3], report_nice_max(fmax(fmax(rows[3]->a, rows[3]->b), 1e-3)), false);
        fputs("</svg></div>\n", f);
    }
    if (!shown)
        fputs("<p>No task has latencies or throughput in both runs.</p>\n", f);
    fputs("</div>\n", f);
}

/* The two reports side by side; true when at least one is embedded (an iframe). */
static bool reports(FILE *f, const struct cmp_result *r, const char *const input[2], const char *page_dir)
{
    bool framed = false;
    fputs("<h2>Reports</h2><div class=\"reports\">\n", f);
    for (int s = 0; s < 2; s++) {
        struct report_ref ref;
        find_report(input[s], page_dir, &ref);
        fprintf(f, "<div><h3>%s: ", side_letter[s]);
        report_xml_escape(f, s ? r->name_b : r->name_a);
        fputs("</h3>", f);
        if (ref.found) {
            fprintf(f, "<p class=\"meta\"><a href=\"");
            url_escape(f, ref.rel);
            fputs("\">", f);
            report_xml_escape(f, ref.rel);
            fprintf(f, "</a></p><iframe id=\"report-%c\" src=\"", s ? 'b' : 'a');
            url_escape(f, ref.rel);
            fprintf(f, "\" title=\"report.html of %s\"></iframe>", side_letter[s]);
            framed = true;
        } else {
            fprintf(f, "<p class=\"no-report\" id=\"no-report-%c\">No report.html to show: ", s ? 'b' : 'a');
            report_xml_escape(f, input[s]);
            fprintf(f, " is %s. Compare the --out directories of two runs to read both reports here.</p>", ref.note);
        }
        fputs("</div>\n", f);
    }
    fputs("</div>\n", f);
    return framed;
}

int cmp_html(const struct cmp_result *r, const char *a, const char *b, double tolerance, bool headline_only,
             const char *path, char *err, size_t errlen)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    /* iframes point from the page's directory: its real path, like the reports' */
    char dir[PATH_MAX], page_dir[PATH_MAX];
    const char *slash = strrchr(path, '/');
    snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - path) + (slash == path) : 1, slash ? path : ".");
    bool have_dir = realpath(dir, page_dir) != NULL;
    bool ok = r->passed == r->checked;
    report_html_head(f, "nvemu scenario compare ", r->name_a, page_css);
    fputs("<h1>", f);
    report_xml_escape(f, r->name_a);
    fputs(" vs ", f);
    report_xml_escape(f, r->name_b);
    fprintf(f, " <span class=\"verdict %s\">%zu of %zu within %g%%</span></h1>\n", ok ? "pass" : "fail", r->passed,
            r->checked, tolerance * 100);
    sides(f, r, a, b);
    metrics(f, r, tolerance, headline_only);
    tasks(f, r);
    const char *const input[2] = {a, b};
    bool framed = reports(f, r, input, have_dir ? page_dir : NULL);
    /* each report at its own size, where the browser lets the page read it (a file:// page may not) */
    if (framed)
        fputs("<script>document.querySelectorAll('iframe').forEach(function (f) {\n"
              "  f.addEventListener('load', function () {\n"
              "    try { var d = f.contentDocument.documentElement;\n"
              "      f.style.width = (d.scrollWidth + 4) + 'px'; f.style.height = (d.scrollHeight + 4) + 'px'; }\n"
              "    catch (e) { /* not readable: the fixed size stands */ }\n"
              "  });\n});</script>\n",
              f);
    fputs("<p class=\"meta\">Generated by <code>nvemu scenario compare</code>.</p>\n</body></html>\n", f);
    bool failed = ferror(f) != 0;
    if (fclose(f) != 0 || failed) {
        snprintf(err, errlen, "%s: write failed", path);
        return -1;
    }
    return 0;
}
