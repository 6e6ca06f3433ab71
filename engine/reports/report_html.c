/*
 * report.html: one self-contained page (inline CSS and SVG, no scripts, no
 * network) with the summary tables (vs-alone ratios), engine time per class,
 * each task's throughput and the preemptions over the run, a timeline of the moment an LC channel group
 * cuts into a BE one with a zoom on the same clock (so a reader sees the
 * preemption), and the latency CDFs of the LC tasks, whole and tail (with
 * their run alone when there is a baseline). A run that could not start
 * says so and nothing else.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report.h"
#include "report_html_parts.h"

#define TL_W 1100.0
#define TL_LABEL 150.0
#define TL_ROW 26.0

static const char *const palette_lc[] = {"#e4572e", "#f3a712", "#c03221", "#ff7f50"};
static const char *const palette_be[] = {"#2e86ab", "#4f9d69", "#7d5ba6", "#3c6e71", "#5fa8d3", "#2a9d8f"};

static const char *seg_color(const struct sc_results *r, uint32_t engine_idx, uint32_t tsg)
{
    int cls = report_tsg_class(r, engine_idx, tsg);
    if (cls < 0)
        return "#9e9e9e";
    uint32_t lc = 0, be = 0;
    for (uint32_t k = 0; k < r->inst_count; k++) {
        const struct sc_inst *in = &r->inst[k];
        bool is_lc = r->sc->tasks[in->task].cls == SC_LC;
        if (in->gr_tsg == tsg)
            return is_lc ? palette_lc[lc % 4] : palette_be[be % 6];
        lc += is_lc;
        be += !is_lc;
    }
    return "#9e9e9e";
}

/*
 * The most telling moment: a context switch on an engine from a BE group to
 * an LC group after warmup; else the first preemption; else the first work.
 */
static bool pick_window(const struct sc_results *r, uint64_t *t0, uint64_t *t1, uint32_t *engine, uint64_t *at)
{
    const struct sc_segment *hit = NULL;
    uint64_t warm = r->sc->warmup_ns;
    for (size_t i = 1; i + 1 < r->seg_count && !hit; i++) {
        const struct sc_segment *sw = &r->segs[i];
        if (!sw->is_switch || sw->t0 < warm)
            continue;
        if (report_tsg_class(r, sw->engine_idx, sw->tsg) != SC_LC)
            continue;
        for (size_t j = i; j-- > 0;) {
            if (r->segs[j].engine_idx != sw->engine_idx || r->segs[j].is_switch)
                continue;
            if (report_tsg_class(r, sw->engine_idx, r->segs[j].tsg) == SC_BE)
                hit = sw;
            break;
        }
    }
    uint64_t center = 0;
    if (hit) {
        center = hit->t0;
        *engine = hit->engine_idx;
    } else if (r->point_count) {
        center = r->points[0].t;
        *engine = r->points[0].engine_idx;
    } else if (r->seg_count) {
        center = r->segs[0].t0;
        *engine = r->segs[0].engine_idx;
    } else {
        return false;
    }
    /* Wide enough to show the BE group before, the LC burst and BE resuming. */
    uint64_t lc_run = 0;
    for (size_t i = 0; i < r->seg_count; i++) {
        const struct sc_segment *s = &r->segs[i];
        if (s->engine_idx == *engine && !s->is_switch && s->t0 >= center) {
            lc_run = s->t1 - s->t0;
            break;
        }
    }
    uint64_t w = lc_run * 4;
    if (w < 400000)
        w = 400000;
    if (w > 40000000)
        w = 40000000;
    *t0 = center > w / 4 ? center - w / 4 : 0;
    *t1 = *t0 + w;
    *at = center;
    return true;
}

/* The zoom: from just before the preempt request that led to the switch at `at` to just after it. */
static void zoom_window(const struct sc_results *r, uint32_t eng, uint64_t at, uint64_t *t0, uint64_t *t1)
{
    uint64_t req = at;
    for (size_t i = 0; i < r->point_count; i++) {
        const struct sc_point *p = &r->points[i];
        if (p->engine_idx == eng && p->kind == SC_POINT_PREEMPT_REQ && p->t <= at && at - p->t < 5000000)
            req = p->t;
        if (p->t > at)
            break;
    }
    uint64_t lead = at - req + 40000;
    *t0 = req > 40000 ? req - 40000 : 0;
    *t1 = at + lead + 120000;
}

static double nice_step(double span)
{
    double raw = span / 8, mag = pow(10, floor(log10(raw)));
    double steps[] = {1, 2, 5, 10};
    for (int i = 0; i < 4; i++)
        if (steps[i] * mag >= raw)
            return steps[i] * mag;
    return 10 * mag;
}

/*
 * One engine's timeline over [t0, t1]. Tick labels count from `origin` (the overview's start), so the
 * overview and its zoom read on the same clock; [z0, z1] (z1 > z0) is shaded as the zoomed interval.
 */
static void timeline(const struct sc_results *r, FILE *f, const char *id, uint64_t t0, uint64_t t1, uint32_t eng,
                     uint64_t origin, uint64_t z0, uint64_t z1)
{
    /* Rows: the engine, then each channel group that ran on it in the window. */
    uint32_t rows[64];
    uint32_t nrows = 0;
    for (size_t i = 0; i < r->seg_count; i++) {
        const struct sc_segment *s = &r->segs[i];
        if (s->engine_idx != eng || s->is_switch || s->t1 < t0 || s->t0 > t1)
            continue;
        bool seen = false;
        for (uint32_t k = 0; k < nrows && !seen; k++)
            seen = rows[k] == s->tsg;
        if (!seen && nrows < 64)
            rows[nrows++] = s->tsg;
    }
    double span = (double)(t1 - t0), plot = TL_W - TL_LABEL - 40;
    double height = TL_ROW * (nrows + 1) + 80;
    char buf[64], a[32];
#define X(t) (TL_LABEL + plot * ((double)(t) - (double)t0) / span)
    /* data-t0-ns/data-t1-ns: the interval drawn (and, on the band, the one zoomed), for checks of the page */
    fprintf(f, "<svg id=\"%s\" class=\"tl\" viewBox=\"0 0 %.0f %.0f\" width=\"%.0f\" height=\"%.0f\" "
               "data-t0-ns=\"%llu\" data-t1-ns=\"%llu\" "
               "xmlns=\"http://www.w3.org/2000/svg\" font-family=\"sans-serif\" font-size=\"12\">\n",
            id, TL_W, height, TL_W, height, (unsigned long long)t0, (unsigned long long)t1);
    fprintf(f, "<defs><pattern id=\"hatch\" width=\"4\" height=\"4\" patternUnits=\"userSpaceOnUse\" "
               "patternTransform=\"rotate(45)\"><rect width=\"2\" height=\"4\" fill=\"#555\"/></pattern></defs>\n");
    double step = nice_step(span);
    double axis_y = TL_ROW * (nrows + 1) + 26;
    if (z1 > z0)
        fprintf(f, "<rect class=\"zoom-band\" data-t0-ns=\"%llu\" data-t1-ns=\"%llu\" x=\"%.2f\" y=\"2\" "
                   "width=\"%.2f\" height=\"%.1f\" fill=\"#ffd54f\" opacity=\"0.35\"><title>zoomed below</title></rect>\n",
                (unsigned long long)z0, (unsigned long long)z1, X(z0 < t0 ? t0 : z0),
                X(z1 > t1 ? t1 : z1) - X(z0 < t0 ? t0 : z0) + 1, axis_y - 2);
    /* Ticks on multiples of step counted from origin; the first and last stay inside the drawing. */
    double first = ceil(((double)t0 - (double)origin) / step) * step;
    for (double x = first; (double)origin + x <= (double)t1 + 1; x += step) {
        double px = X((double)origin + x);
        const char *anchor = px < TL_LABEL + 30 ? "start" : px > TL_W - 50 ? "end" : "middle";
        fprintf(f, "<line x1=\"%.1f\" y1=\"8\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#eee\"/>", px, px, axis_y);
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\" fill=\"#555\">+%s</text>\n", px, axis_y + 14,
                anchor, sc_fmt_ns(x, a, sizeof(a)));
    }
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" fill=\"#555\">time from %s (virtual)</text>\n", TL_LABEL,
            axis_y + 34, sc_fmt_ns((double)origin, a, sizeof(a)));
    fprintf(f, "<text x=\"8\" y=\"%.1f\" font-weight=\"bold\">%s</text>\n", 8 + TL_ROW * 0.65,
            r->engines[eng].name);
    for (uint32_t k = 0; k < nrows; k++)
        fprintf(f, "<text x=\"8\" y=\"%.1f\">%s</text>\n", 8 + TL_ROW * (k + 1.65),
                report_tsg_owner(r, eng, rows[k], buf, sizeof(buf)));
    for (size_t i = 0; i < r->seg_count; i++) {
        const struct sc_segment *s = &r->segs[i];
        if (s->engine_idx != eng || s->t1 < t0 || s->t0 > t1)
            continue;
        uint64_t a0 = s->t0 < t0 ? t0 : s->t0, a1 = s->t1 > t1 ? t1 : s->t1;
        double x = X(a0), w = X(a1) - X(a0);
        if (w < 0.6)
            w = 0.6;
        if (s->is_switch) {
            fprintf(f, "<rect x=\"%.2f\" y=\"8\" width=\"%.2f\" height=\"%.0f\" fill=\"url(#hatch)\">"
                       "<title>context switch %s</title></rect>\n",
                    x, w, TL_ROW - 4, sc_fmt_ns((double)(s->t1 - s->t0), a, sizeof(a)));
            continue;
        }
        const char *col = seg_color(r, eng, s->tsg);
        report_tsg_owner(r, eng, s->tsg, buf, sizeof(buf));
        fprintf(f, "<rect x=\"%.2f\" y=\"8\" width=\"%.2f\" height=\"%.0f\" fill=\"%s\"><title>%s %s</title></rect>",
                x, w, TL_ROW - 4, col, buf, sc_fmt_ns((double)(s->t1 - s->t0), a, sizeof(a)));
        for (uint32_t k = 0; k < nrows; k++)
            if (rows[k] == s->tsg)
                fprintf(f, "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.0f\" fill=\"%s\"/>\n", x,
                        8 + TL_ROW * (k + 1), w, TL_ROW - 6, col);
    }
    /* LC request arrivals: a marker on the requesting group's row (the gap to its bar is CPU preprocessing + waiting). */
    for (size_t i = 0; i < r->arrival_count; i++) {
        const struct sc_lc_arrival *av = &r->arrivals[i];
        if (av->t < t0 || av->t > t1 || av->inst >= r->inst_count)
            continue;
        for (uint32_t k = 0; k < nrows; k++)
            if (rows[k] == r->inst[av->inst].gr_tsg)
                fprintf(f, "<path d=\"M%.2f %.1f l-5 -7 h10 z\" fill=\"#111\"><title>LC request arrives</title></path>\n",
                        X(av->t), 8 + TL_ROW * (k + 1) + 7);
    }
    /*
     * Preemption requests (dashed), completions (solid) and timeouts (red), labelled once each on two
     * lines of their own: a request's label left of its line on the first, a timeout's right of its
     * line on the same (it comes later), a completion's right of its line on the second; a label that
     * would leave the chart goes to the other side.
     */
    bool said_req = false, said_done = false, said_tmo = false;
    for (size_t i = 0; i < r->point_count; i++) {
        const struct sc_point *p = &r->points[i];
        if (p->engine_idx != eng || p->t < t0 || p->t > t1)
            continue;
        bool req = p->kind == SC_POINT_PREEMPT_REQ, tmo = p->kind == SC_POINT_PREEMPT_TIMEOUT;
        const char *col = tmo ? "#d00000" : req ? "#222" : "#000";
        fprintf(f, "<line x1=\"%.2f\" y1=\"4\" x2=\"%.2f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"1.5\"%s/>\n",
                X(p->t), X(p->t), TL_ROW * (nrows + 1) + 6, col, req ? " stroke-dasharray=\"4 3\"" : "");
        bool *said = tmo ? &said_tmo : req ? &said_req : &said_done;
        if (*said)
            continue;
        *said = true;
        const char *label = tmo ? "preempt timeout" : req ? "preempt requested" : "preempted";
        double px = X(p->t), room = 6.5 * (double)strlen(label);
        bool left = req ? px - room > TL_LABEL - 10 : px + room > TL_W - 4;
        fprintf(f, "<text x=\"%.2f\" y=\"%.1f\" fill=\"%s\" font-size=\"11\"%s>%s</text>\n", px + (left ? -3 : 3),
                TL_ROW * (nrows + 1) + (req || tmo ? 4 : 18), col, left ? " text-anchor=\"end\"" : "", label);
    }
    fputs("</svg>\n", f);
#undef X
}

static void cdf_series(FILE *f, const uint64_t *lat, size_t n, double lo, double hi, const char *col, bool dashed,
                       double q_lo, double x0, double w, double y0, double h)
{
    if (!n)
        return;
    fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\"%s points=\"", col,
            dashed ? " stroke-dasharray=\"6 4\"" : "");
    size_t from = (size_t)(q_lo * (double)(n - 1)), stride = (n - from) > 600 ? (n - from) / 600 : 1;
    for (size_t i = from; i < n; i += stride) {
        double v = (double)(lat[i] ? lat[i] : 1);
        double x = x0 + w * (log10(v) - log10(lo)) / (log10(hi) - log10(lo));
        double q = (double)(i + 1) / (double)n;
        double y = y0 + h - h * (q - q_lo) / (1 - q_lo);
        fprintf(f, "%.1f,%.1f ", x, y < y0 + h ? y : y0 + h);
    }
    double v = (double)(lat[n - 1] ? lat[n - 1] : 1);
    fprintf(f, "%.1f,%.1f\"/>\n", x0 + w * (log10(v) - log10(lo)) / (log10(hi) - log10(lo)), y0);
}

/*
 * LC latency CDFs from quantile q_lo up (0: the whole distribution; 0.9: the tail, where p99 lives), each
 * task with its run alone when there is a baseline.
 */
static void cdfs(const struct sc_results *r, FILE *f, const char *id, double q_lo)
{
    const struct scenario *s = r->sc;
    double lo = 1e18, hi = 0;
    for (uint32_t t = 0; t < s->task_count; t++) {
        const struct sc_task_result *tr = &r->tasks[t];
        if (s->tasks[t].cls != SC_LC)
            continue;
        if (tr->completed) {
            lo = fmin(lo, (double)tr->lat_ns[(size_t)(q_lo * (double)(tr->completed - 1))]);
            hi = fmax(hi, (double)tr->lat_ns[tr->completed - 1]);
        }
        if (tr->alone_completed) {
            lo = fmin(lo, (double)tr->alone_lat_ns[(size_t)(q_lo * (double)(tr->alone_completed - 1))]);
            hi = fmax(hi, (double)tr->alone_lat_ns[tr->alone_completed - 1]);
        }
    }
    if (hi <= 0) {
        fputs("<p>No LC requests completed.</p>\n", f);
        return;
    }
    lo = pow(10, floor(log10(fmax(lo, 1))));
    hi = pow(10, ceil(log10(hi * 1.01)));
    double W = 760, H = 330, x0 = 74, y0 = 14, w = W - x0 - 170, h = H - 70;
    fprintf(f, "<svg id=\"%s\" viewBox=\"0 0 %.0f %.0f\" width=\"%.0f\" height=\"%.0f\" "
               "xmlns=\"http://www.w3.org/2000/svg\" font-family=\"sans-serif\" font-size=\"12\">\n", id, W, H, W, H);
    char a[32];
    for (double d = lo; d <= hi * 1.0001; d *= 10) {
        for (int m = 1; m < 10; m++) {
            double v = d * m;
            if (v > hi * 1.0001)
                break;
            double x = x0 + w * (log10(v) - log10(lo)) / (log10(hi) - log10(lo));
            fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"/>\n", x, y0, x, y0 + h,
                    m == 1 ? "#ccc" : "#f0f0f0");
            if (m == 1)
                /* low enough to clear the y axis's "0" */
                fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" fill=\"#555\">%s</text>\n", x,
                        y0 + h + 21, sc_fmt_ns(v, a, sizeof(a)));
        }
    }
    for (int q = 0; q <= 4; q++) {
        double y = y0 + h - h * q / 4.0;
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#eee\"/>"
                   "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" fill=\"#555\">%.3g</text>\n",
                x0, y, x0 + w, y, x0 - 6, y + 4, q_lo + (1 - q_lo) * q / 4.0);
    }
    fprintf(f, "<text transform=\"translate(16 %.1f) rotate(-90)\" text-anchor=\"middle\">fraction of requests "
               "&#8804; latency</text>\n", y0 + h / 2);
    double p99y = y0 + h - h * (0.99 - q_lo) / (1 - q_lo);
    fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#999\" stroke-dasharray=\"2 2\"/>"
               "<text x=\"%.1f\" y=\"%.1f\" fill=\"#999\" font-size=\"10\">p99</text>\n",
            x0, p99y, x0 + w, p99y, x0 + w + 2, p99y + 3);
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">request latency (arrival to last kernel done), "
               "log scale</text>\n", x0 + w / 2, y0 + h + 41);
    uint32_t lc = 0;
    double ly = y0 + h / 2; /* below the p99 label, which sits at the top right */
    for (uint32_t t = 0; t < s->task_count; t++) {
        const struct sc_task_result *tr = &r->tasks[t];
        if (s->tasks[t].cls != SC_LC)
            continue;
        const char *col = palette_lc[lc++ % 4];
        cdf_series(f, tr->lat_ns, tr->completed, lo, hi, col, false, q_lo, x0, w, y0, h);
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"2\"/>"
                   "<text x=\"%.1f\" y=\"%.1f\">", x0 + w + 20, ly, x0 + w + 44, ly, col, x0 + w + 50, ly + 4);
        report_xml_escape(f, s->tasks[t].name);
        fputs("</text>\n", f);
        ly += 18;
        if (tr->alone_completed) {
            cdf_series(f, tr->alone_lat_ns, tr->alone_completed, lo, hi, col, true, q_lo, x0, w, y0, h);
            fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"2\" "
                       "stroke-dasharray=\"6 4\"/><text x=\"%.1f\" y=\"%.1f\">", x0 + w + 20, ly, x0 + w + 44, ly, col,
                    x0 + w + 50, ly + 4);
            report_xml_escape(f, s->tasks[t].name);
            fputs(" alone</text>\n", f);
            ly += 18;
        }
    }
    fputs("</svg>\n", f);
}

#define OT_BINS 60

double report_nice_max(double v)
{
    double p = 1;
    while (p * 10 <= v)
        p *= 10;
    while (p > v && p > 1e-9)
        p /= 10;
    return v <= p ? p : v <= 2 * p ? 2 * p : v <= 5 * p ? 5 * p : 10 * p;
}

static const char *task_color(const struct scenario *s, uint32_t task)
{
    uint32_t lc = 0, be = 0;
    for (uint32_t t = 0; t < task; t++) {
        lc += s->tasks[t].cls == SC_LC;
        be += s->tasks[t].cls != SC_LC;
    }
    return s->tasks[task].cls == SC_LC ? palette_lc[lc % 4] : palette_be[be % 6];
}

/* Horizontal grid lines and right-aligned value labels of one panel (top at y, height h, values 0..max). */
static void panel_axis(FILE *f, double x0, double w, double y, double h, double max, const char *unit, int steps)
{
    for (int q = 0; q <= steps; q++) {
        double yy = y + h - h * q / steps, v = max * q / steps;
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#eee\"/><text x=\"%.1f\" "
                   "y=\"%.1f\" text-anchor=\"end\" fill=\"#555\">%g%s</text>\n",
                x0, yy, x0 + w, yy, x0 - 6, yy + 4, v, unit);
    }
}

/*
 * Over the whole run, in OT_BINS equal slices of virtual time (warmup shaded): each class's share of
 * engine time (LC and BE, summed over the engines that ran work), each task's throughput (requests
 * completed per second) and the preemptions completed.
 */
static void over_time(const struct sc_results *r, FILE *f)
{
    const struct scenario *s = r->sc;
    double share[2][OT_BINS] = {{0}}, pre[OT_BINS] = {0}, vt = (double)r->virtual_ns, bin = vt / OT_BINS;
    double rate[SC_MAX_TASKS][OT_BINS] = {{0}};
    uint32_t engines = 0;
    for (uint32_t i = 0; i < r->engine_count; i++)
        engines += r->engines[i].kernels > 0;
    if (vt <= 0 || !engines) {
        fputs("<p>No GPU work in the trace.</p>\n", f);
        return;
    }
    for (size_t i = 0; i < r->seg_count; i++) {
        const struct sc_segment *sg = &r->segs[i];
        int cls = sg->is_switch ? -1 : report_tsg_class(r, sg->engine_idx, sg->tsg);
        if (cls < 0)
            continue;
        for (int b = (int)((double)sg->t0 / bin); b < OT_BINS && (double)b * bin < (double)sg->t1; b++) {
            double lo = fmax((double)sg->t0, b * bin), hi = fmin((double)sg->t1, (b + 1) * bin);
            if (hi > lo)
                share[cls][b] += (hi - lo) / (bin * engines);
        }
    }
    double rmax = 0;
    for (size_t i = 0; i < r->request_count; i++) {
        const struct sc_request *q = &r->requests[i];
        if (q->end != SC_REQ_DONE || q->inst >= r->inst_count)
            continue;
        int b = (int)((double)q->t1 / bin);
        b = b < OT_BINS ? b : OT_BINS - 1;
        rmax = fmax(rmax, rate[r->inst[q->inst].task][b] += 1e9 / bin);
    }
    rmax = report_nice_max(fmax(rmax, 1));
    double pmax = 1;
    for (size_t i = 0; i < r->point_count; i++) {
        if (r->points[i].kind != SC_POINT_PREEMPT_DONE)
            continue;
        int b = (int)((double)r->points[i].t / bin);
        b = b < OT_BINS ? b : OT_BINS - 1;
        pmax = fmax(pmax, ++pre[b]);
    }
    pmax = report_nice_max(pmax);
    double W = 1000, x0 = 74, w = W - x0 - 200, h1 = 150, y1 = 14;
    double yt = y1 + h1 + 34, ht = fmax(120, 18.0 * s->task_count + 12);
    double y2 = yt + ht + 34, h2 = 90, H = y2 + h2 + 50;
    char a[32];
    fprintf(f, "<svg id=\"over-time\" viewBox=\"0 0 %.0f %.0f\" width=\"%.0f\" height=\"%.0f\" "
               "xmlns=\"http://www.w3.org/2000/svg\" font-family=\"sans-serif\" font-size=\"12\">\n", W, H, W, H);
    double warm = fmin((double)s->warmup_ns, vt);
    fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#f2f2f2\"><title>warmup</title></rect>\n",
            x0, y1, w * warm / vt, y2 + h2 - y1);
    report_html_fault_markers(r, f, x0, w, y1, y2 + h2);
    panel_axis(f, x0, w, y1, h1, 100, "%", 4);
    fprintf(f, "<text transform=\"translate(16 %.1f) rotate(-90)\" text-anchor=\"middle\">engine time</text>\n",
            y1 + h1 / 2);
    static const char *const cls_col[2] = {"#e4572e", "#2e86ab"};
    static const char *const cls_name[2] = {"LC", "BE"};
    for (int c = 0; c < 2; c++) {
        fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"", cls_col[c]);
        for (int b = 0; b < OT_BINS; b++)
            fprintf(f, "%.1f,%.1f ", x0 + w * (b + 0.5) / OT_BINS, y1 + h1 - h1 * fmin(share[c][b], 1));
        fprintf(f, "\"/><line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"2\"/>"
                   "<text x=\"%.1f\" y=\"%.1f\">%s share of engine time</text>\n",
                x0 + w + 12, y1 + 20 + 18 * c, x0 + w + 32, y1 + 20 + 18 * c, cls_col[c], x0 + w + 38,
                y1 + 24 + 18 * c, cls_name[c]);
    }
    /* throughput: one line per task, its legend entry beside the panel */
    fprintf(f, "<g id=\"throughput\">");
    panel_axis(f, x0, w, yt, ht, rmax, "", 4);
    fprintf(f, "<text transform=\"translate(16 %.1f) rotate(-90)\" text-anchor=\"middle\">requests/s</text>\n",
            yt + ht / 2);
    for (uint32_t t = 0; t < s->task_count; t++) {
        fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"", task_color(s, t));
        for (int b = 0; b < OT_BINS; b++)
            fprintf(f, "%.1f,%.1f ", x0 + w * (b + 0.5) / OT_BINS, yt + ht - ht * rate[t][b] / rmax);
        fprintf(f, "\"/><line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"2\"/>"
                   "<text x=\"%.1f\" y=\"%.1f\">",
                x0 + w + 12, yt + 10 + 18 * t, x0 + w + 32, yt + 10 + 18 * t, task_color(s, t), x0 + w + 38,
                yt + 14 + 18 * t);
        /* the legend column holds ~24 characters: a longer name is cut (its full name in the tooltip) */
        char label[32];
        snprintf(label, sizeof(label), "%.*s%s", 22, s->tasks[t].name, strlen(s->tasks[t].name) > 22 ? "..." : "");
        report_xml_escape(f, label);
        fputs("<title>", f);
        report_xml_escape(f, s->tasks[t].name);
        fputs("</title></text>\n", f);
    }
    fputs("</g>\n", f);
    for (int b = 0; b < OT_BINS; b++)
        if (pre[b] > 0)
            fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#555\"/>\n",
                    x0 + w * b / OT_BINS + 1, y2 + h2 - h2 * pre[b] / pmax, w / OT_BINS - 2, h2 * pre[b] / pmax);
    panel_axis(f, x0, w, y2, h2, pmax, "", 2);
    fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#888\"/>"
               "<text transform=\"translate(16 %.1f) rotate(-90)\" text-anchor=\"middle\">preemptions</text>"
               "<text x=\"%.1f\" y=\"%.1f\">preemptions completed</text>"
               "<text x=\"%.1f\" y=\"%.1f\">per %s</text>\n",
            x0, y2 + h2, x0 + w, y2 + h2, y2 + h2 / 2, x0 + w + 12, y2 + 20, x0 + w + 12, y2 + 36,
            sc_fmt_ns(bin, a, sizeof(a)));
    for (int k = 0; k <= 5; k++) {
        double t = vt * k / 5, x = x0 + w * k / 5;
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\" fill=\"#555\">%s</text>\n", x, y2 + h2 + 16,
                k == 0 ? "start" : k == 5 ? "end" : "middle", sc_fmt_ns(t, a, sizeof(a)));
    }
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">virtual time (shaded: warmup)</text>\n</svg>\n",
            x0 + w / 2, y2 + h2 + 36);
}

static void tables(const struct sc_results *r, FILE *f)
{
    const struct scenario *s = r->sc;
    char p50[24], p99[24], mx[24];
    fputs("<h2>Tasks</h2><table id=\"tasks\"><tr><th>task</th><th>class</th><th>replicas</th><th>requests</th><th>done</th>"
          "<th>failed</th><th>p50</th><th>p99</th><th>max</th><th>req/s</th><th>p99 alone</th>"
          "<th>p99 vs alone</th><th>req/s alone</th><th>req/s vs alone</th></tr>\n", f);
    for (uint32_t t = 0; t < s->task_count; t++) {
        const struct sc_task_result *tr = &r->tasks[t];
        fputs("<tr><td>", f);
        report_xml_escape(f, s->tasks[t].name);
        /* a task that completed nothing has no latency: a dash, not "0 ns" */
        bool none = tr->completed == 0;
        fprintf(f, "</td><td>%s</td><td>%u</td><td>%llu</td><td>%llu</td><td>%llu</td><td>%s</td><td>%s</td>"
                   "<td>%s</td><td>%.1f</td>", sc_class_name(s->tasks[t].cls), s->tasks[t].count,
                (unsigned long long)tr->arrivals, (unsigned long long)tr->completed, (unsigned long long)tr->failed,
                none ? "&ndash;" : sc_fmt_ns(tr->p50_ns, p50, sizeof(p50)),
                none ? "&ndash;" : sc_fmt_ns(tr->p99_ns, p99, sizeof(p99)),
                none ? "&ndash;" : sc_fmt_ns(tr->max_ns, mx, sizeof(mx)), tr->throughput);
        if (tr->has_alone)
            fprintf(f, "<td>%s</td><td>%.2fx</td><td>%.1f</td><td>%.2fx</td></tr>\n",
                    sc_fmt_ns(tr->alone_p99_ns, p99, sizeof(p99)),
                    tr->alone_p99_ns > 0 ? tr->p99_ns / tr->alone_p99_ns : 0, tr->alone_throughput,
                    tr->alone_throughput > 0 ? tr->throughput / tr->alone_throughput : 0);
        else
            fputs("<td>-</td><td>-</td><td>-</td><td>-</td></tr>\n", f);
    }
    fputs("</table>\n<h2>Engines</h2><table><tr><th>engine</th><th>busy</th><th>switching</th><th>switches</th>"
          "<th>preemptions</th><th>preempt timeouts</th><th>kernels</th></tr>\n", f);
    double vt = r->virtual_ns ? (double)r->virtual_ns : 1;
    for (uint32_t i = 0; i < r->engine_count; i++) {
        const struct sc_engine_result *e = &r->engines[i];
        if (!e->kernels && !e->switches && !e->preemptions)
            continue;
        fprintf(f, "<tr><td>%s</td><td>%.1f%%</td><td>%.2f%%</td><td>%llu</td><td>%llu</td><td>%llu</td>"
                   "<td>%llu</td></tr>\n", e->name, 100.0 * (double)e->busy_ns / vt, 100.0 * (double)e->switch_ns / vt,
                (unsigned long long)e->switches, (unsigned long long)e->preemptions,
                (unsigned long long)e->preempt_timeouts, (unsigned long long)e->kernels);
    }
    fputs("</table>\n", f);
    if (r->gpu_lost || r->busy_retries || r->fault_count) {
        char at[32];
        fputs("<h2>Faults</h2><p class=\"meta\">", f);
        if (r->gpu_lost)
            fprintf(f, "GPU lost at %s: requests in flight and every later one reported failed. ",
                    sc_fmt_ns((double)r->gpu_lost_ns, at, sizeof(at)));
        if (r->busy_retries)
            fprintf(f, "%llu scheduler controls answered BUSY_RETRY (each retried).",
                    (unsigned long long)r->busy_retries);
        fputs("</p>\n", f);
        report_html_fault_events(r, f);
    }
    fputs("<h2>Expectations</h2><table class=\"ex\"><tr><th></th><th>expected</th><th>actual</th></tr>\n", f);
    if (r->error[0]) {
        fputs("<tr class=\"bad\"><td>&#10007;</td><td>the run completes</td><td>", f);
        report_xml_escape(f, r->error);
        fputs("</td></tr>\n", f);
    }
    for (uint32_t i = 0; i < s->expect_count; i++) {
        const struct sc_expect_outcome *o = &r->outcomes[i];
        fprintf(f, "<tr class=\"%s\"><td>%s</td><td>", o->pass ? "ok" : "bad", o->pass ? "&#10003;" : "&#10007;");
        report_xml_escape(f, o->label);
        fputs("</td><td>", f);
        report_xml_escape(f, o->actual);
        fputs("</td></tr>\n", f);
    }
    fputs("</table>\n", f);
    report_html_decisions(r, f);
    report_html_policy_output(r, f);
}

void report_html_head(FILE *f, const char *title, const char *name, const char *css)
{
    fputs("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>", f);
    report_xml_escape(f, title);
    report_xml_escape(f, name);
    fputs("</title>\n<style>body{font-family:sans-serif;margin:24px;color:#222;max-width:1150px}"
          "table{border-collapse:collapse;margin:8px 0 16px}td,th{border:1px solid #ddd;padding:3px 8px;"
          "text-align:right;white-space:nowrap}th{background:#f4f4f4;white-space:normal}td:first-child{text-align:left}.ok td:first-child{color:#1a7f37}"
          ".bad{background:#fff0f0}.bad td:first-child{color:#c00}.verdict{font-size:20px;font-weight:bold}"
          ".pass{color:#1a7f37}.fail{color:#c00}pre{background:#f8f8f8;padding:8px;white-space:pre-wrap}"
          ".meta{color:#555}table.ex td{text-align:left}", f);
    fputs(css, f);
    fputs("</style></head><body>\n", f);
}

int report_html(const struct sc_results *r, const char *path, char *err, size_t errlen)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    const struct scenario *s = r->sc;
    bool ok = r->failed == 0 && !r->error[0];
    report_html_head(f, "nvemu scenario ", s->name, "");
    fputs("<h1>", f);
    report_xml_escape(f, s->name);
    fprintf(f, " <span class=\"verdict %s\">%s</span></h1>\n", ok ? "pass" : "fail", ok ? "PASS" : "FAIL");
    if (s->description) {
        fputs("<pre>", f);
        report_xml_escape(f, s->description);
        fputs("</pre>\n", f);
    }
    fprintf(f, "<p class=\"meta\">gpu ");
    report_xml_escape(f, s->gpu.profile);
    fputs(", policy ", f);
    report_xml_escape(f, s->policy.plugin[0] ? s->policy.plugin : "native");
    fprintf(f, ", seed %llu &middot; %.3f s virtual in %.3f s wall &middot; %llu trace events &middot; "
               "digest fnv1a64:%016llx</p>\n", (unsigned long long)r->seed, (double)r->virtual_ns / 1e9,
            (double)r->wall_ns / 1e9, (unsigned long long)r->events, (unsigned long long)r->digest);
    report_html_warnings(r, f);
    if (r->stopped && r->events) {
        char at[32];
        fprintf(f, "<div id=\"stopped\" class=\"bad\" style=\"padding:8px\"><b>The run stopped at virtual time %s"
                   "</b> (everything below is its trace up to there): ",
                sc_fmt_ns((double)r->virtual_ns, at, sizeof(at)));
        report_xml_escape(f, r->error);
        fputs("</div>\n", f);
    } else if (r->stopped || (r->error[0] && r->virtual_ns == 0)) {
        /* Nothing ran, or the run's process died before its first event: say why and when instead of drawing
         * empty tables and charts. */
        char at[32];
        if (r->stopped)
            fprintf(f, "<div id=\"stopped\" class=\"bad\" style=\"padding:8px\"><b>The run stopped at virtual time %s"
                       "</b> (before any event of its trace): ",
                    sc_fmt_ns((double)r->virtual_ns, at, sizeof(at)));
        else
            fputs("<div id=\"not-started\" class=\"bad\" style=\"padding:8px\"><b>The run could not start:</b> ", f);
        report_xml_escape(f, r->error);
        fputs("</div>\n<p class=\"meta\">Generated by <code>nvemu scenario run</code>.</p>\n</body></html>\n", f);
        if (fclose(f) != 0) {
            snprintf(err, errlen, "%s: write failed", path);
            return -1;
        }
        return 0;
    }
    tables(r, f);
    fputs("<h2>Throughput and preemptions over time</h2>\n", f);
    over_time(r, f);
    fputs("<h2>Timeline</h2><p class=\"meta\">Zoomed on the first moment after warmup where an LC channel group "
          "takes the engine from a BE one: the top row is the engine, below one row per channel group; triangle = "
          "LC request arrives (then CPU preprocessing), hatched = context switch, dashed line = preempt requested, "
          "solid line = preemption complete; shaded: the interval zoomed below.</p>\n", f);
    uint64_t t0, t1, at, z0, z1;
    uint32_t eng;
    if (pick_window(r, &t0, &t1, &eng, &at)) {
        zoom_window(r, eng, at, &z0, &z1);
        /* a zoom is at most a third of its overview: widen the overview around it when it is not */
        if ((z1 - z0) * 3 > t1 - t0) {
            uint64_t w = (z1 - z0) * 3;
            t0 = z0 > (w - (z1 - z0)) / 2 ? z0 - (w - (z1 - z0)) / 2 : 0;
            t1 = t0 + w;
        }
        timeline(r, f, "timeline-overview", t0, t1, eng, t0, z0, z1);
        fputs("<p class=\"meta\">The shaded interval, zoomed (same clock): the preempt request, the save of the "
              "running group (CILP/CTA/WFI per its mode), the context switch, and the LC group starting.</p>\n", f);
        timeline(r, f, "timeline-zoom", z0, z1, eng, t0, 0, 0);
    } else {
        fputs("<p>No GPU work in the trace.</p>\n", f);
    }
    fputs("<h2>LC latency CDF</h2>\n", f);
    cdfs(r, f, "cdf", 0);
    fputs("<h2>LC latency tail (p90 to max)</h2>\n", f);
    cdfs(r, f, "cdf-tail", 0.9);
    fputs("<p class=\"meta\">Generated by <code>nvemu scenario run</code> from the event trace.</p>\n</body></html>\n",
          f);
    if (fclose(f) != 0) {
        snprintf(err, errlen, "%s: write failed", path);
        return -1;
    }
    return 0;
}
