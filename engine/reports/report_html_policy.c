/*
 * The parts of report.html that tell the policy's story (report_html_parts.h): the run's warnings, the
 * decisions the policy took, what a BPF policy printed and left in its maps, and the faults the run saw.
 */
#include "report_html_parts.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

/* The task an instance belongs to, or "" for none (a runlist, a group of no task). */
static const char *inst_task_name(const struct sc_results *r, int32_t inst)
{
    if (inst < 0 || (uint32_t)inst >= r->inst_count)
        return "";
    return r->sc->tasks[r->inst[inst].task].name;
}

void report_html_warnings(const struct sc_results *r, FILE *f)
{
    if (!r->warning_count)
        return;
    fputs("<div id=\"warnings\" class=\"bad\" style=\"padding:8px;margin:8px 0\"><b>Warnings</b><ul>\n", f);
    for (uint32_t i = 0; i < r->warning_count && i < SC_MAX_WARNINGS; i++) {
        fputs("<li>", f);
        report_xml_escape(f, r->warnings[i]);
        fputs("</li>\n", f);
    }
    fputs("</ul></div>\n", f);
}

void report_html_decisions(const struct sc_results *r, FILE *f)
{
    const struct scenario *s = r->sc;
    fputs("<h2>Policy decisions</h2>\n", f);
    if (!r->decision_count) {
        fprintf(f, "<p id=\"decisions\" class=\"meta\">%s</p>\n",
                s->policy.plugin[0] ? "The policy took no decision." : "No policy: native scheduling.");
        return;
    }
    fputs("<p class=\"meta\">Every decision the policy made through the host, counted per task, hook, field and "
          "result (apply: committed; noop: the native value kept; reject: refused by the validator; log: a line "
          "it printed).</p>\n<table id=\"decisions\"><tr><th>task</th><th>hook</th><th>field</th><th>result</th>"
          "<th>count</th></tr>\n",
          f);
    for (size_t i = 0; i < r->decision_count; i++) {
        const struct sc_decision *d = &r->decisions[i];
        bool bad = !strncmp(d->result, "reject", 6) || !strcmp(d->result, "fault");
        fprintf(f, "<tr%s><td>", bad ? " class=\"bad\"" : "");
        if (d->task >= 0 && (uint32_t)d->task < s->task_count)
            report_xml_escape(f, s->tasks[d->task].name);
        else
            fputs("&ndash;", f);
        fputs("</td><td>", f);
        report_xml_escape(f, d->hook);
        fputs("</td><td>", f);
        report_xml_escape(f, d->field);
        fputs("</td><td>", f);
        report_xml_escape(f, d->result);
        fprintf(f, "</td><td>%llu</td></tr>\n", (unsigned long long)d->count);
    }
    fputs("</table>\n", f);
}

void report_html_policy_output(const struct sc_results *r, FILE *f)
{
    if (r->policy_maps) {
        fputs("<h2>BPF maps at the end of the run</h2>\n<pre id=\"policy-maps\">", f);
        cJSON *maps = cJSON_Parse(r->policy_maps);
        char *pretty = maps ? cJSON_Print(maps) : NULL;
        report_xml_escape(f, pretty ? pretty : r->policy_maps);
        free(pretty);
        cJSON_Delete(maps);
        fputs("</pre>\n", f);
    }
    if (!r->log_count)
        return;
    fprintf(f, "<h2>Policy output (printk)</h2>\n<pre id=\"printk\">");
    for (size_t i = 0; i < r->log_count; i++) {
        const struct sc_log_line *l = &r->logs[i];
        char at[32];
        fprintf(f, "%12s  ", sc_fmt_ns((double)l->t, at, sizeof(at)));
        const char *task = inst_task_name(r, l->inst);
        report_xml_escape(f, task[0] ? task : "-");
        fputs("  ", f);
        report_xml_escape(f, l->text);
        fputc('\n', f);
    }
    if (r->log_dropped)
        fprintf(f, "... and %llu more lines (results.json and trace.json have the counts)\n",
                (unsigned long long)r->log_dropped);
    fputs("</pre>\n", f);
}

/* What each SC_MARK_* fault means, for the table. */
static const char *fault_text(const char *what)
{
    static const struct {
        const char *what, *text;
    } rows[] = {
        {SC_MARK_GPU_LOST, "GPU lost (fell off the bus)"},
        {SC_MARK_BUSY_RETRY, "scheduler control answered BUSY_RETRY"},
        {SC_MARK_KILLED, "task instance killed"},
        {SC_MARK_REJECTED, "context refused (admission)"},
        {SC_MARK_FAIL, "request failed"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        if (!strcmp(rows[i].what, what))
            return rows[i].text;
    return what;
}

/* Charts mark at most this many fault events (the table lists them). */
#define FAULT_MARKERS 50

void report_html_fault_markers(const struct sc_results *r, FILE *f, double x0, double w, double y0, double y1)
{
    double vt = (double)r->virtual_ns;
    if (vt <= 0)
        return;
    for (size_t i = 0; i < r->fault_count && i < FAULT_MARKERS; i++) {
        const struct sc_fault_event *e = &r->faults[i];
        double x = x0 + w * fmin((double)e->t, vt) / vt;
        char at[32];
        fprintf(f, "<line class=\"fault-marker\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#c00\" "
                   "stroke-width=\"1.5\" stroke-dasharray=\"4 3\"><title>",
                x, y0, x, y1);
        report_xml_escape(f, fault_text(e->what));
        fprintf(f, " at %s</title></line>\n", sc_fmt_ns((double)e->t, at, sizeof(at)));
    }
}

/* The table lists this many fault events; the rest are counted. */
#define FAULT_ROWS 50

void report_html_fault_events(const struct sc_results *r, FILE *f)
{
    if (!r->fault_count)
        return;
    fputs("<table id=\"fault-events\"><tr><th>time</th><th>fault</th><th>task</th><th>value</th></tr>\n", f);
    for (size_t i = 0; i < r->fault_count && i < FAULT_ROWS; i++) {
        const struct sc_fault_event *e = &r->faults[i];
        char at[32];
        fprintf(f, "<tr class=\"bad\"><td>%s</td><td>", sc_fmt_ns((double)e->t, at, sizeof(at)));
        report_xml_escape(f, fault_text(e->what));
        fputs("</td><td>", f);
        const char *task = inst_task_name(r, e->inst);
        if (task[0])
            report_xml_escape(f, task);
        else
            fputs("&ndash;", f);
        fprintf(f, "</td><td>%llu</td></tr>\n", (unsigned long long)e->value);
    }
    fputs("</table>\n", f);
    if (r->fault_count > FAULT_ROWS)
        fprintf(f, "<p class=\"meta\">and %zu more fault events.</p>\n", r->fault_count - FAULT_ROWS);
}
