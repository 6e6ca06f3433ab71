/*
 * trace.json in the Chrome trace event format (chrome://tracing, Perfetto
 * UI), built from the analyzer's results only, so the same scenario and seed
 * give the same bytes:
 *   process 1 "engines": one track per engine (kernels, context switches,
 *     preemption requests/completions/timeouts as instants);
 *   process 2 "channel groups": one track per channel group;
 *   process 3 "requests": each task replica's requests, arrival to end, as
 *     async spans (one row per replica; overlapping requests stack);
 *   process 4 "faults": injected faults and their effects as instants;
 *   process 5 "policy decisions": one track per task replica (and one for
 *     whole-runlist decisions), each hook decision an instant.
 * Every instant carries named arguments (task, hook, decision, value, ...).
 * A busy GPU yields ~1.5 MB per virtual second, so only the first
 * CHROME_MAX_SEGMENTS segments (in time order) are written and every other
 * kind of event stops at the same moment; the metadata says where.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "base/util.h"
#include "fifo/fifo_rec.h"
#include "report.h"

#define ENGINE_TYPE_GR0 1u
#define CHROME_MAX_SEGMENTS 100000u

enum { PID_ENGINES = 1, PID_GROUPS, PID_REQUESTS, PID_FAULTS, PID_DECISIONS };
#define TID_RUNLIST 0xffffu /* the decisions track of whole-runlist hooks */

static const struct sc_inst *owner(const struct sc_results *r, uint32_t engine_idx, uint32_t tsg)
{
    if (engine_idx >= r->engine_count || r->engines[engine_idx].engine_type != ENGINE_TYPE_GR0)
        return NULL;
    for (uint32_t k = 0; k < r->inst_count; k++)
        if (r->inst[k].gr_tsg == tsg)
            return &r->inst[k];
    return NULL;
}

const char *report_tsg_owner(const struct sc_results *r, uint32_t engine_idx, uint32_t tsg, char *buf, size_t len)
{
    const struct sc_inst *in = owner(r, engine_idx, tsg);
    if (in)
        snprintf(buf, len, "%s#%u", r->sc->tasks[in->task].name, in->replica);
    else
        snprintf(buf, len, "TSG %u", tsg);
    return buf;
}

int report_tsg_class(const struct sc_results *r, uint32_t engine_idx, uint32_t tsg)
{
    const struct sc_inst *in = owner(r, engine_idx, tsg);
    return in ? (int)r->sc->tasks[in->task].cls : -1;
}

static uint32_t group_tid(uint32_t engine_idx, uint32_t tsg)
{
    return (engine_idx << 16) | (tsg & 0xffff);
}

/* "task":"lc","replica":0 of an instance, or "task":null. */
static void task_args(FILE *f, const struct sc_results *r, int32_t inst)
{
    if (inst < 0 || (uint32_t)inst >= r->inst_count) {
        fputs("\"task\":null", f);
        return;
    }
    fputs("\"task\":\"", f);
    nvemu_json_escape(f, r->sc->tasks[r->inst[inst].task].name);
    fprintf(f, "\",\"replica\":%u", r->inst[inst].replica);
}

static int32_t inst_of_group(const struct sc_results *r, uint32_t engine_idx, uint32_t tsg)
{
    const struct sc_inst *in = owner(r, engine_idx, tsg);
    return in ? (int32_t)(in - r->inst) : -1;
}

/* Preemption causes by enum fifo_preempt_cause (the `a` of preempt records, fifo/fifo_rec.h). */
static const char *const cause_names[] = {
    [FIFO_CAUSE_TIMESLICE] = "timeslice expired", [FIFO_CAUSE_PREEMPT] = "preempt control",
    [FIFO_CAUSE_DISABLE] = "channels disabled",   [FIFO_CAUSE_RESTART] = "restart",
    [FIFO_CAUSE_STOP] = "stop",                   [FIFO_CAUSE_RUNLIST] = "runlist update",
    [FIFO_CAUSE_DESTROY] = "group destroyed",
};
static const char *const mode_names[] = {"WFI", "CTA", "CILP"};

static const char *cause_name(uint64_t a)
{
    return a < sizeof(cause_names) / sizeof(cause_names[0]) && cause_names[a] ? cause_names[a] : "other";
}

static void write_point(FILE *f, const struct sc_results *r, const struct sc_point *p)
{
    fputs(",\n{\"name\":\"", f);
    fputs(p->kind == SC_POINT_PREEMPT_REQ    ? "preempt request"
          : p->kind == SC_POINT_PREEMPT_DONE ? "preempted"
                                            : "preempt TIMEOUT",
          f);
    fprintf(f, "\",\"cat\":\"preempt\",\"ph\":\"i\",\"s\":\"t\",\"pid\":%d,\"tid\":%u,\"ts\":%.3f,\"args\":{",
            PID_ENGINES, p->engine_idx, (double)p->t / 1e3);
    task_args(f, r, inst_of_group(r, p->engine_idx, p->tsg));
    fprintf(f, ",\"tsg\":%u", p->tsg);
    if (p->kind == SC_POINT_PREEMPT_REQ)
        fprintf(f, ",\"cause\":\"%s\",\"mode\":\"%s\"", cause_name(p->a), p->b < 3 ? mode_names[p->b] : "other");
    else if (p->kind == SC_POINT_PREEMPT_DONE)
        fprintf(f, ",\"cause\":\"%s\",\"request_to_done_us\":%.3f", cause_name(p->a), (double)p->b / 1e3);
    else
        fprintf(f, ",\"timeout_us\":%.3f", (double)p->a / 1e3);
    fputs("}}", f);
}

static const char *const req_end_names[] = {[SC_REQ_DONE] = "done", [SC_REQ_FAILED] = "failed",
                                            [SC_REQ_OPEN] = "in flight at the end"};

static void write_requests(FILE *f, const struct sc_results *r, uint64_t stop)
{
    for (size_t i = 0; i < r->request_count; i++) {
        const struct sc_request *q = &r->requests[i];
        if (q->t0 >= stop || q->inst >= r->inst_count)
            continue;
        const struct sc_inst *in = &r->inst[q->inst];
        uint64_t end = q->t1 < stop ? q->t1 : stop;
        char name[64];
        snprintf(name, sizeof(name), "%s#%u", r->sc->tasks[in->task].name, in->replica);
        /* one id per request: instance in the high bits, request number in the low */
        unsigned long long id = ((unsigned long long)q->inst << 32) | q->num;
        fputs(",\n{\"name\":\"", f);
        nvemu_json_escape(f, name);
        fprintf(f, "\",\"cat\":\"request\",\"ph\":\"b\",\"pid\":%d,\"tid\":%u,\"id\":\"0x%llx\",\"ts\":%.3f,\"args\":{",
                PID_REQUESTS, q->inst, id, (double)q->t0 / 1e3);
        task_args(f, r, (int32_t)q->inst);
        fprintf(f, ",\"request\":%u,\"latency_us\":%.3f,\"outcome\":\"%s\"}}", q->num, (double)(q->t1 - q->t0) / 1e3,
                req_end_names[q->end]);
        fputs(",\n{\"name\":\"", f);
        nvemu_json_escape(f, name);
        fprintf(f, "\",\"cat\":\"request\",\"ph\":\"e\",\"pid\":%d,\"tid\":%u,\"id\":\"0x%llx\",\"ts\":%.3f}",
                PID_REQUESTS, q->inst, id, (double)end / 1e3);
    }
}

static void write_faults(FILE *f, const struct sc_results *r, uint64_t stop)
{
    static const struct {
        const char *mark, *name;
    } names[] = {
        {SC_MARK_GPU_LOST, "GPU lost"},
        {SC_MARK_BUSY_RETRY, "control answered BUSY_RETRY"},
        {SC_MARK_KILLED, "client killed"},
        {SC_MARK_REJECTED, "context refused (BUSY_RETRY at admission)"},
    };
    for (size_t i = 0; i < r->fault_count; i++) {
        const struct sc_fault_event *e = &r->faults[i];
        if (e->t >= stop)
            break;
        const char *name = e->what;
        for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++)
            if (strcmp(e->what, names[k].mark) == 0)
                name = names[k].name;
        bool global = strcmp(e->what, SC_MARK_GPU_LOST) == 0;
        fprintf(f, ",\n{\"name\":\"%s\",\"cat\":\"fault\",\"ph\":\"i\",\"s\":\"%s\",\"pid\":%d,\"tid\":0,"
                   "\"ts\":%.3f,\"args\":{",
                name, global ? "g" : "t", PID_FAULTS, (double)e->t / 1e3);
        if (global)
            fprintf(f, "\"gpu\":%llu", (unsigned long long)e->value);
        else
            task_args(f, r, e->inst);
        if (strcmp(e->what, SC_MARK_BUSY_RETRY) == 0)
            fprintf(f, ",\"control\":\"0x%08llx\"", (unsigned long long)e->value);
        fputs("}}", f);
    }
}

static void write_decisions(FILE *f, const struct sc_results *r, uint64_t stop)
{
    for (size_t i = 0; i < r->hook_count; i++) {
        const struct sc_hook_event *h = &r->hooks[i];
        if (h->t >= stop)
            break;
        const struct sc_decision *d = &r->decisions[h->decision];
        uint32_t tid = h->inst >= 0 ? (uint32_t)h->inst : TID_RUNLIST;
        fprintf(f, ",\n{\"name\":\"%s %s: %s\",\"cat\":\"decision\",\"ph\":\"i\",\"s\":\"t\",\"pid\":%d,\"tid\":%u,"
                   "\"ts\":%.3f,\"args\":{",
                d->hook, d->field, d->result, PID_DECISIONS, tid, (double)h->t / 1e3);
        task_args(f, r, h->inst);
        fprintf(f, ",\"hook\":\"%s\",\"field\":\"%s\",\"decision\":\"%s\",\"value\":%llu,\"reason\":\"", d->hook,
                d->field, d->result, (unsigned long long)h->value);
        nvemu_json_escape(f, h->reason);
        fprintf(f, "\",\"gpu\":%u,\"runlist\":%d,\"tsg\":%d}}", h->gpu,
                h->runlist == SIM_NONE ? -1 : (int)h->runlist, h->tsg == SIM_NONE ? -1 : (int)h->tsg);
    }
}

static void write_names(FILE *f, const struct sc_results *r, size_t nseg)
{
    static const char *const pnames[] = {"", "engines", "channel groups", "requests", "faults", "policy decisions"};
    for (int pid = PID_ENGINES; pid <= PID_DECISIONS; pid++)
        fprintf(f, "%s{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%d,\"args\":{\"name\":\"%s\"}}",
                pid == PID_ENGINES ? "" : ",\n", pid, pnames[pid]);
    for (uint32_t i = 0; i < r->engine_count; i++)
        fprintf(f, ",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%d,\"tid\":%u,\"args\":{\"name\":\"GPU%u %s\"}}",
                PID_ENGINES, i, r->engines[i].gpu, r->engines[i].name);
    for (uint32_t k = 0; k < r->inst_count; k++)
        for (int pid = PID_REQUESTS; pid <= PID_DECISIONS; pid += PID_DECISIONS - PID_REQUESTS) {
            fprintf(f, ",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%d,\"tid\":%u,\"args\":{\"name\":\"", pid, k);
            nvemu_json_escape(f, r->sc->tasks[r->inst[k].task].name);
            fprintf(f, "#%u\"}}", r->inst[k].replica);
        }
    fprintf(f, ",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%d,\"tid\":%u,\"args\":{\"name\":\"whole runlist\"}}",
            PID_DECISIONS, TID_RUNLIST);
    fprintf(f, ",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%d,\"tid\":0,\"args\":{\"name\":\"faults\"}}",
            PID_FAULTS);
    /* One name row per channel group seen on the timeline (first sighting names it). */
    uint32_t named[4096];
    size_t nnamed = 0;
    char name[64];
    for (size_t i = 0; i < nseg; i++) {
        const struct sc_segment *sg = &r->segs[i];
        uint32_t tid = group_tid(sg->engine_idx, sg->tsg);
        bool seen = false;
        for (size_t j = 0; j < nnamed && !seen; j++)
            seen = named[j] == tid;
        if (seen || sg->is_switch || nnamed == sizeof(named) / sizeof(named[0]))
            continue;
        named[nnamed++] = tid;
        report_tsg_owner(r, sg->engine_idx, sg->tsg, name, sizeof(name));
        fprintf(f, ",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%d,\"tid\":%u,\"args\":{\"name\":\"%s ", PID_GROUPS,
                tid, r->engines[sg->engine_idx].name);
        nvemu_json_escape(f, name);
        fprintf(f, " TSG %u\"}}", sg->tsg);
    }
}

int report_chrome(const struct sc_results *r, const char *path, char *err, size_t errlen)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    char name[64];
    size_t nseg = r->seg_count < CHROME_MAX_SEGMENTS ? r->seg_count : CHROME_MAX_SEGMENTS;
    uint64_t stop = nseg < r->seg_count ? r->segs[nseg].t0 : UINT64_MAX;
    fputs("{\"displayTimeUnit\":\"ns\",\"otherData\":{\"scenario\":\"", f);
    nvemu_json_escape(f, r->sc->name);
    fprintf(f, "\",\"seed\":%llu,\"segments\":%zu,\"written\":%zu,\"stops_at_us\":%.3f},\"traceEvents\":[\n",
            (unsigned long long)r->seed, r->seg_count, nseg, stop == UINT64_MAX ? -1.0 : (double)stop / 1e3);
    write_names(f, r, nseg);
    for (size_t i = 0; i < nseg; i++) {
        const struct sc_segment *sg = &r->segs[i];
        double ts = (double)sg->t0 / 1e3, dur = (double)(sg->t1 - sg->t0) / 1e3;
        if (sg->is_switch) {
            fprintf(f, ",\n{\"name\":\"context switch\",\"cat\":\"switch\",\"ph\":\"X\",\"pid\":%d,\"tid\":%u,"
                       "\"ts\":%.3f,\"dur\":%.3f,\"args\":{\"incoming_tsg\":%u}}",
                    PID_ENGINES, sg->engine_idx, ts, dur, sg->tsg);
            continue;
        }
        report_tsg_owner(r, sg->engine_idx, sg->tsg, name, sizeof(name));
        int cls = report_tsg_class(r, sg->engine_idx, sg->tsg);
        const char *cat = cls == SC_LC ? "LC" : cls == SC_BE ? "BE" : "other";
        fputs(",\n{\"name\":\"", f);
        nvemu_json_escape(f, name);
        fprintf(f, "\",\"cat\":\"%s\",\"ph\":\"X\",\"pid\":%d,\"tid\":%u,\"ts\":%.3f,\"dur\":%.3f}", cat, PID_ENGINES,
                sg->engine_idx, ts, dur);
        fprintf(f, ",\n{\"name\":\"running\",\"cat\":\"%s\",\"ph\":\"X\",\"pid\":%d,\"tid\":%u,\"ts\":%.3f,\"dur\":%.3f}",
                cat, PID_GROUPS, group_tid(sg->engine_idx, sg->tsg), ts, dur);
    }
    for (size_t i = 0; i < r->point_count && r->points[i].t < stop; i++)
        write_point(f, r, &r->points[i]);
    write_requests(f, r, stop);
    write_faults(f, r, stop);
    write_decisions(f, r, stop);
    fprintf(f, "\n]}\n");
    if (fclose(f) != 0) {
        snprintf(err, errlen, "%s: write failed", path);
        return -1;
    }
    return 0;
}
