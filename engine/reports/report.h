/*
 * Report writers. Each takes finished, evaluated results (results.h) and
 * writes one artefact; none re-runs or inspects the model. File writers
 * return 0 or -1 with a one-line reason in err.
 */
#ifndef NVEMU_SCENARIO_REPORT_H
#define NVEMU_SCENARIO_REPORT_H

#include <stddef.h>
#include <stdio.h>

#include "results.h"

/* results.json: per task, per engine, expectations, times, event count, digest. */
int report_json(const struct sc_results *r, const char *path, char *err, size_t errlen);

/* junit.xml: one testsuite per scenario, one testcase per expectation. */
int report_junit(const struct sc_results *r, const char *path, char *err, size_t errlen);

/* trace.json: Chrome trace / Perfetto; one track per engine and one per channel group. */
int report_chrome(const struct sc_results *r, const char *path, char *err, size_t errlen);

/* report.html: self-contained page, inline SVG timeline around a preemption and LC latency CDFs. */
int report_html(const struct sc_results *r, const char *path, char *err, size_t errlen);

/*
 * The start of a page in report.html's style, up to and including <body>: title and name (escaped) make
 * the <title>, css (raw, "" for none) follows the shared style sheet.
 */
void report_html_head(FILE *f, const char *title, const char *name, const char *css);

/* A round axis maximum at or above v (1, 2, 5 x 10^n). */
double report_nice_max(double v);

/* The console summary: per task, per engine, expectations with check marks. */
void report_console(const struct sc_results *r, FILE *out, bool color);

/*
 * "lc#0" style label of the task replica whose compute TSG `tsg` is on engine
 * `engine_idx` (index into r->engines), else "TSG n" (written into buf).
 */
const char *report_tsg_owner(const struct sc_results *r, uint32_t engine_idx, uint32_t tsg, char *buf, size_t len);

/* Writes s (NULL: nothing) escaped for an XML/HTML text node or quoted attribute value. */
void report_xml_escape(FILE *f, const char *s);

/* Class of that replica's task, or -1 when the TSG belongs to no task. */
int report_tsg_class(const struct sc_results *r, uint32_t engine_idx, uint32_t tsg);

#endif
