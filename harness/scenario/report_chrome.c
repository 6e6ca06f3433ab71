/*
 * trace.json in the Chrome trace event format (chrome://tracing, Perfetto
 * UI): process 1 holds one track per engine, process 2 one track per channel
 * group, both built from the analyzer's segments and preemption points.
 * A busy GPU yields ~1.5 MB per virtual second, so only the first
 * CHROME_MAX_SEGMENTS segments (in time order) are written; the metadata
 * says where the file stops.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "report.h"

#define ENGINE_TYPE_GR0 1u
#define CHROME_MAX_SEGMENTS 100000u

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

static const char *point_name(uint16_t kind)
{
    switch (kind) {
    case SIM_REC_PREEMPT_REQ: return "preempt request";
    case SIM_REC_PREEMPT_DONE: return "preempted";
    case SIM_REC_PREEMPT_TIMEOUT: return "preempt TIMEOUT";
    default: return "event";
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
    fprintf(f, "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"scenario\":\"%s\",\"segments\":%zu,"
               "\"written\":%zu,\"stops_at_us\":%.3f},\"traceEvents\":[\n",
            r->sc->name, r->seg_count, nseg, stop == UINT64_MAX ? -1.0 : (double)stop / 1e3);
    fprintf(f, "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":1,\"args\":{\"name\":\"engines\"}},\n");
    fprintf(f, "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":2,\"args\":{\"name\":\"channel groups\"}}");
    for (uint32_t i = 0; i < r->engine_count; i++)
        fprintf(f, ",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,\"tid\":%u,\"args\":{\"name\":\"GPU%u %s\"}}",
                i, r->engines[i].gpu, r->engines[i].name);
    /* One name row per channel group seen on the timeline (first sighting names it). */
    uint32_t named[4096];
    size_t nnamed = 0;
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
        fprintf(f, ",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":2,\"tid\":%u,\"args\":{\"name\":\"%s %s TSG %u\"}}",
                group_tid(sg->engine_idx, sg->tsg), r->engines[sg->engine_idx].name, name, sg->tsg);
    }
    for (size_t i = 0; i < nseg; i++) {
        const struct sc_segment *sg = &r->segs[i];
        double ts = (double)sg->t0 / 1e3, dur = (double)(sg->t1 - sg->t0) / 1e3;
        if (sg->is_switch) {
            fprintf(f, ",\n{\"name\":\"context switch\",\"cat\":\"switch\",\"ph\":\"X\",\"pid\":1,\"tid\":%u,"
                       "\"ts\":%.3f,\"dur\":%.3f,\"args\":{\"incoming_tsg\":%u}}",
                    sg->engine_idx, ts, dur, sg->tsg);
            continue;
        }
        report_tsg_owner(r, sg->engine_idx, sg->tsg, name, sizeof(name));
        int cls = report_tsg_class(r, sg->engine_idx, sg->tsg);
        const char *cat = cls == SC_LC ? "LC" : cls == SC_BE ? "BE" : "other";
        fprintf(f, ",\n{\"name\":\"%s\",\"cat\":\"%s\",\"ph\":\"X\",\"pid\":1,\"tid\":%u,\"ts\":%.3f,\"dur\":%.3f}",
                name, cat, sg->engine_idx, ts, dur);
        fprintf(f, ",\n{\"name\":\"running\",\"cat\":\"%s\",\"ph\":\"X\",\"pid\":2,\"tid\":%u,\"ts\":%.3f,\"dur\":%.3f}",
                cat, group_tid(sg->engine_idx, sg->tsg), ts, dur);
    }
    for (size_t i = 0; i < r->point_count; i++) {
        const struct sc_point *p = &r->points[i];
        if (p->t >= stop)
            break;
        fprintf(f, ",\n{\"name\":\"%s\",\"cat\":\"preempt\",\"ph\":\"i\",\"s\":\"t\",\"pid\":1,\"tid\":%u,"
                   "\"ts\":%.3f,\"args\":{\"tsg\":%u,\"a\":%llu,\"b\":%llu}}",
                point_name(p->kind), p->engine_idx, (double)p->t / 1e3, p->tsg, (unsigned long long)p->a,
                (unsigned long long)p->b);
    }
    fprintf(f, "\n]}\n");
    if (fclose(f) != 0) {
        snprintf(err, errlen, "%s: write failed", path);
        return -1;
    }
    return 0;
}
