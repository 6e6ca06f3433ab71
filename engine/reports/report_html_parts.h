/*
 * Sections of report.html about the policy and the run's health (report_html_policy.c), written by
 * report_html between its tables and charts. Each writes nothing when the run has nothing of its kind,
 * except the decisions, which say that there were none.
 */
#ifndef NVEMU_SCENARIO_REPORT_HTML_PARTS_H
#define NVEMU_SCENARIO_REPORT_HTML_PARTS_H

#include <stdio.h>

#include "results.h"

/* The run's warnings (sc_results_warn), as a box near the top (id "warnings"). */
void report_html_warnings(const struct sc_results *r, FILE *f);

/* The decisions table (id "decisions"): per task, hook, field and result, how many. */
void report_html_decisions(const struct sc_results *r, FILE *f);

/* A BPF policy's maps at the end of the run (id "policy-maps") and its printk lines (id "printk"). */
void report_html_policy_output(const struct sc_results *r, FILE *f);

/* A dashed red line (class "fault-marker", its fault and time in a tooltip) at each fault event's time, on a
 * chart whose time axis spans x0..x0+w for 0..virtual_ns, from y0 to y1; the first 50. */
void report_html_fault_markers(const struct sc_results *r, FILE *f, double x0, double w, double y0, double y1);

/* The faults the run saw, one row each (id "fault-events"), the first 50. */
void report_html_fault_events(const struct sc_results *r, FILE *f);

#endif
