/* The report formats (report_formats.h). */
#include "report_formats.h"

#include "report.h"

static const struct report_format formats[] = {
    {"results.json", "every number of the run, the expectations and the hardware's notes (JSON)", report_json},
    {"junit.xml", "one testcase per expectation (JUnit XML)", report_junit},
    {"trace.json", "the timeline for Perfetto / chrome://tracing (Chrome trace JSON)", report_chrome},
    {"report.html", "a self-contained page: timeline around a preemption, latency CDFs", report_html},
    {"trace.csv", "the raw event trace (with --csv; large: ~1.8 MB per virtual second of a busy GPU)", NULL},
};

const struct report_format *report_formats(size_t *n)
{
    *n = sizeof(formats) / sizeof(formats[0]);
    return formats;
}
