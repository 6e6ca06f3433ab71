/* results.json (cJSON) and junit.xml. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "expect.h"
#include "report.h"

static int write_text(const char *path, const char *text, char *err, size_t errlen)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    int rc = fputs(text, f) < 0 ? -1 : 0;
    if (fclose(f) != 0)
        rc = -1;
    if (rc)
        snprintf(err, errlen, "%s: write failed", path);
    return rc;
}

static cJSON *task_json(const struct sc_results *r, uint32_t t)
{
    const struct sc_task *task = &r->sc->tasks[t];
    const struct sc_task_result *tr = &r->tasks[t];
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "name", task->name);
    cJSON_AddStringToObject(o, "class", sc_class_name(task->cls));
    cJSON_AddNumberToObject(o, "replicas", task->count);
    cJSON_AddStringToObject(o, "arrival", task->process ? "process" : sc_arrival_name(task->arrival));
    cJSON_AddNumberToObject(o, "requests", (double)tr->arrivals);
    cJSON_AddNumberToObject(o, "completed", (double)tr->completed);
    cJSON_AddNumberToObject(o, "failed", (double)tr->failed);
    cJSON_AddNumberToObject(o, "in_flight_at_end", (double)tr->open);
    cJSON_AddNumberToObject(o, "lost", (double)tr->lost);
    cJSON *lat = cJSON_AddObjectToObject(o, "latency_us");
    cJSON_AddNumberToObject(lat, "p50", tr->p50_ns / 1e3);
    cJSON_AddNumberToObject(lat, "p99", tr->p99_ns / 1e3);
    cJSON_AddNumberToObject(lat, "max", tr->max_ns / 1e3);
    cJSON_AddNumberToObject(lat, "mean", tr->mean_ns / 1e3);
    cJSON_AddNumberToObject(o, "throughput_rps", tr->throughput);
    if (tr->has_alone) {
        cJSON *al = cJSON_AddObjectToObject(o, "alone");
        cJSON_AddNumberToObject(al, "p50_us", tr->alone_p50_ns / 1e3);
        cJSON_AddNumberToObject(al, "p99_us", tr->alone_p99_ns / 1e3);
        cJSON_AddNumberToObject(al, "max_us", tr->alone_max_ns / 1e3);
        cJSON_AddNumberToObject(al, "mean_us", tr->alone_mean_ns / 1e3);
        cJSON_AddNumberToObject(al, "throughput_rps", tr->alone_throughput);
    }
    return o;
}

static void report_json_hw(cJSON *root, const struct sc_hw_info *h)
{
    cJSON *o = cJSON_AddObjectToObject(root, "hw");
    cJSON_AddStringToObject(o, "gpu", h->gpu);
    cJSON_AddStringToObject(o, "driver", h->driver);
    cJSON_AddNumberToObject(o, "cuda_driver_version", h->cuda_driver_version);
    char cc[16];
    snprintf(cc, sizeof(cc), "%d.%d", h->cc_major, h->cc_minor);
    cJSON_AddStringToObject(o, "compute_capability", cc);
    cJSON_AddNumberToObject(o, "sm_count", h->sm_count);
    cJSON *c = cJSON_AddObjectToObject(o, "calibration");
    cJSON_AddNumberToObject(c, "ns_per_round", h->ns_per_iter);
    cJSON_AddNumberToObject(c, "launch_fixed_us", h->launch_fixed_ns / 1e3);
    cJSON_AddNumberToObject(c, "threads_per_block", h->threads_per_block);
    cJSON_AddNumberToObject(c, "registers_per_thread", h->regs_per_thread);
    cJSON_AddNumberToObject(c, "blocks_per_sm_unpadded", h->blocks_per_sm);
    cJSON_AddNumberToObject(c, "occupancy_pad_kb", h->occupancy_pad_kb);
    cJSON_AddNumberToObject(c, "shared_kb_per_sm", h->smem_per_sm_kb);
    cJSON *shapes = cJSON_AddArrayToObject(o, "shapes");
    for (uint32_t i = 0; i < h->shape_count; i++) {
        const struct sc_hw_shape *sh = &h->shapes[i];
        cJSON *e = cJSON_CreateObject();
        cJSON_AddNumberToObject(e, "threads_per_block", sh->threads);
        cJSON_AddNumberToObject(e, "registers_per_thread", sh->regs);
        cJSON_AddNumberToObject(e, "shared_kb", sh->shared_kb);
        cJSON_AddNumberToObject(e, "launch_shared_kb", sh->launch_shared_kb);
        cJSON_AddNumberToObject(e, "blocks_per_sm", sh->blocks_per_sm);
        cJSON_AddNumberToObject(e, "ns_per_round", sh->ns_per_iter);
        cJSON_AddItemToArray(shapes, e);
    }
    cJSON *n = cJSON_AddArrayToObject(o, "not_applied");
    for (uint32_t i = 0; i < h->note_count; i++)
        cJSON_AddItemToArray(n, cJSON_CreateString(h->notes[i]));
}

int report_json(const struct sc_results *r, const char *path, char *err, size_t errlen)
{
    const struct scenario *s = r->sc;
    cJSON *root = cJSON_CreateObject();
    char buf[64];
    /* what wrote the file and the layout of its keys, so a reader can tell results of another nvemu apart */
    cJSON_AddStringToObject(root, "nvemu_version", NVEMU_VERSION);
    cJSON_AddNumberToObject(root, "schema_version", SC_RESULTS_SCHEMA_VERSION);
    cJSON_AddStringToObject(root, "scenario", s->name);
    cJSON_AddStringToObject(root, "file", s->path);
    cJSON_AddNumberToObject(root, "seed", (double)r->seed);
    cJSON_AddStringToObject(root, "profile", s->gpu.profile);
    cJSON_AddStringToObject(root, "backend", r->hw.used ? "hw" : "emulator");
    if (r->hw.used)
        report_json_hw(root, &r->hw);
    cJSON_AddStringToObject(root, "policy", s->policy.plugin[0] ? s->policy.plugin : "none");
    cJSON_AddStringToObject(root, "clock", s->clock == SC_CLOCK_VIRTUAL ? "virtual" : "realtime");
    cJSON_AddNumberToObject(root, "virtual_seconds", (double)r->virtual_ns / 1e9);
    if (r->stopped)
        cJSON_AddNumberToObject(root, "stopped_at_virtual_seconds", (double)r->virtual_ns / 1e9);
    cJSON_AddNumberToObject(root, "wall_seconds", (double)r->wall_ns / 1e9);
    cJSON_AddNumberToObject(root, "events", (double)r->events);
    snprintf(buf, sizeof(buf), "fnv1a64:%016llx", (unsigned long long)r->digest);
    cJSON_AddStringToObject(root, "trace_digest", buf);
    cJSON_AddBoolToObject(root, "passed", r->failed == 0 && !r->error[0]);
    if (r->error[0])
        cJSON_AddStringToObject(root, "error", r->error);
    cJSON *warnings = cJSON_AddArrayToObject(root, "warnings");
    for (uint32_t i = 0; i < r->warning_count; i++)
        cJSON_AddItemToArray(warnings, cJSON_CreateString(r->warnings[i]));
    if (r->policy_maps) {
        cJSON *maps = cJSON_Parse(r->policy_maps);
        if (maps)
            cJSON_AddItemToObject(root, "policy_maps", maps);
        else /* never silently: the reader would take a missing key for a policy without maps */
            cJSON_AddItemToArray(warnings, cJSON_CreateString("policy_maps left out: the policy's map report "
                                                              "is not JSON"));
    }
    cJSON *faults = cJSON_AddObjectToObject(root, "faults");
    if (r->gpu_lost)
        cJSON_AddNumberToObject(faults, "gpu_lost_at_s", (double)r->gpu_lost_ns / 1e9);
    else
        cJSON_AddNullToObject(faults, "gpu_lost_at_s");
    cJSON_AddNumberToObject(faults, "busy_retries", (double)r->busy_retries);
    if (s->scheduler.kind == SC_SCHED_GPREEMPT) {
        cJSON *sched = cJSON_AddObjectToObject(root, "scheduler");
        cJSON *dec = cJSON_AddObjectToObject(sched, "calls_decided");
        for (int k = GP_DECIDE_NOTHING + 1; k < GP_DECISION_COUNT; k++)
            cJSON_AddNumberToObject(dec, gp_decision_name((enum gp_decision)k), (double)r->sched_decided[k]);
    }
    cJSON *tasks = cJSON_AddArrayToObject(root, "tasks");
    for (uint32_t t = 0; t < s->task_count; t++)
        cJSON_AddItemToArray(tasks, task_json(r, t));
    cJSON *engines = cJSON_AddArrayToObject(root, "engines");
    double vt = r->virtual_ns ? (double)r->virtual_ns : 1;
    /* the hardware gives no engine counters: none rather than zeros that would compare */
    for (uint32_t i = 0; !r->hw.used && i < r->engine_count; i++) {
        const struct sc_engine_result *e = &r->engines[i];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "name", e->name);
        cJSON_AddNumberToObject(o, "gpu", e->gpu);
        cJSON_AddNumberToObject(o, "engine_type", e->engine_type);
        cJSON_AddNumberToObject(o, "busy_pct", 100.0 * (double)e->busy_ns / vt);
        cJSON_AddNumberToObject(o, "switch_pct", 100.0 * (double)e->switch_ns / vt);
        cJSON_AddNumberToObject(o, "switches", (double)e->switches);
        cJSON_AddNumberToObject(o, "preemptions", (double)e->preemptions);
        cJSON_AddNumberToObject(o, "preempt_timeouts", (double)e->preempt_timeouts);
        cJSON_AddNumberToObject(o, "timeslice_expiries", (double)e->timeslice_expiries);
        cJSON_AddNumberToObject(o, "kernels", (double)e->kernels);
        cJSON_AddItemToArray(engines, o);
    }
    cJSON *dec = cJSON_AddArrayToObject(root, "decisions");
    for (size_t i = 0; i < r->decision_count; i++) {
        const struct sc_decision *d = &r->decisions[i];
        cJSON *o = cJSON_CreateObject();
        /* a decision about a whole runlist, or a group no task owns (an external process's), has no task */
        if (d->task >= 0)
            cJSON_AddStringToObject(o, "task", s->tasks[d->task].name);
        else
            cJSON_AddNullToObject(o, "task");
        cJSON_AddStringToObject(o, "hook", d->hook);
        cJSON_AddStringToObject(o, "field", d->field);
        cJSON_AddStringToObject(o, "result", d->result);
        cJSON_AddNumberToObject(o, "count", (double)d->count);
        cJSON_AddItemToArray(dec, o);
    }
    cJSON *ex = cJSON_AddArrayToObject(root, "expectations");
    for (uint32_t i = 0; i < s->expect_count; i++) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "kind", sc_expect_kind_name(s->expects[i].kind));
        cJSON_AddStringToObject(o, "expect", r->outcomes[i].label);
        cJSON_AddStringToObject(o, "actual", r->outcomes[i].actual);
        cJSON_AddBoolToObject(o, "pass", r->outcomes[i].pass);
        snprintf(buf, sizeof(buf), "%s:%u", s->path, s->expects[i].pos.line);
        cJSON_AddStringToObject(o, "where", buf);
        cJSON_AddItemToArray(ex, o);
    }
    char *text = cJSON_Print(root);
    cJSON_Delete(root);
    if (!text) {
        snprintf(err, errlen, "%s: out of memory", path);
        return -1;
    }
    size_t n = strlen(text);
    char *withnl = realloc(text, n + 2);
    if (withnl) {
        withnl[n] = '\n';
        withnl[n + 1] = '\0';
        text = withnl;
    }
    int rc = write_text(path, text, err, errlen);
    free(text);
    return rc;
}

void report_xml_escape(FILE *f, const char *s)
{
    for (; s && *s; s++) {
        switch (*s) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        default: fputc(*s, f); break;
        }
    }
}

int report_junit(const struct sc_results *r, const char *path, char *err, size_t errlen)
{
    const struct scenario *s = r->sc;
    FILE *f = fopen(path, "w");
    if (!f) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    uint32_t failures = r->failed + (r->error[0] ? 1 : 0);
    uint32_t tests = s->expect_count + (r->error[0] ? 1 : 0);
    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n");
    fprintf(f, "  <testsuite name=\"scenario.");
    report_xml_escape(f, s->name);
    fprintf(f, "\" tests=\"%u\" failures=\"%u\" errors=\"0\" time=\"%.3f\">\n", tests, failures,
            (double)r->wall_ns / 1e9);
    if (r->error[0]) {
        fprintf(f, "    <testcase classname=\"scenario.");
        report_xml_escape(f, s->name);
        fprintf(f, "\" name=\"run\">\n      <failure message=\"");
        report_xml_escape(f, r->error);
        fprintf(f, "\"/>\n    </testcase>\n");
    }
    for (uint32_t i = 0; i < s->expect_count; i++) {
        const struct sc_expect_outcome *o = &r->outcomes[i];
        fprintf(f, "    <testcase classname=\"scenario.");
        report_xml_escape(f, s->name);
        fprintf(f, "\" name=\"");
        report_xml_escape(f, o->label);
        fprintf(f, "\" file=\"");
        report_xml_escape(f, s->path);
        fprintf(f, "\" line=\"%u\">\n", s->expects[i].pos.line);
        if (!o->pass) {
            fprintf(f, "      <failure message=\"expected ");
            report_xml_escape(f, o->label);
            fprintf(f, ", got ");
            report_xml_escape(f, o->actual);
            fprintf(f, "\"/>\n");
        }
        fprintf(f, "      <system-out>");
        report_xml_escape(f, o->actual);
        fprintf(f, "</system-out>\n    </testcase>\n");
    }
    /* warnings pass no test but a reader of the CI's test view must see them */
    if (r->warning_count) {
        fputs("    <system-err>", f);
        for (uint32_t i = 0; i < r->warning_count && i < SC_MAX_WARNINGS; i++) {
            fputs("warning: ", f);
            report_xml_escape(f, r->warnings[i]);
            fputc('\n', f);
        }
        fputs("</system-err>\n", f);
    }
    fprintf(f, "  </testsuite>\n</testsuites>\n");
    if (fclose(f) != 0) {
        snprintf(err, errlen, "%s: write failed", path);
        return -1;
    }
    return 0;
}
