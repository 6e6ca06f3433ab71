/*
 * The report formats a run writes into `--out DIR`, one row each
 * (report_formats.c): the file's name, one line saying what it is, and its
 * writer (report.h's contract: finished, evaluated results in, 0 or -1 with
 * a reason out). Adding a format is its writer plus one row; the tool's
 * usage, the clearing of an earlier run's files and the list it prints all
 * walk this table.
 */
#ifndef NVEMU_SCENARIO_REPORT_FORMATS_H
#define NVEMU_SCENARIO_REPORT_FORMATS_H

#include <stdbool.h>
#include <stddef.h>

#include "results.h"

struct report_format {
    const char *file;              /* "results.json" */
    const char *what;              /* one line for --help */
    /* the writer; NULL for a file the run itself writes while it happens (trace.csv, --csv) */
    int (*write)(const struct sc_results *r, const char *path, char *err, size_t errlen);
};

/* The formats, in the order they are written; *n their count. */
const struct report_format *report_formats(size_t *n);

#endif
