/* The console summary printed after a run. */
#include <stdio.h>
#include <string.h>

#include "report.h"

struct style {
    const char *bold, *green, *red, *dim, *off;
};

static void ratio_text(char *buf, size_t len, double v, double ref, bool have)
{
    if (!have || ref <= 0)
        snprintf(buf, len, "-");
    else
        snprintf(buf, len, "%.2fx", v / ref);
}

static void tasks_table(const struct sc_results *r, FILE *out, const struct style *st)
{
    const struct scenario *s = r->sc;
    bool alone = false;
    for (uint32_t t = 0; t < s->task_count; t++)
        alone = alone || r->tasks[t].has_alone;
    fprintf(out, "%s%-14s %-5s %7s %7s %6s %11s %11s %11s %11s%s%s\n", st->bold, "task", "class", "reqs", "done",
            "failed", "p50", "p99", "max", "req/s", alone ? "   p99/alone  req/s/alone" : "", st->off);
    for (uint32_t t = 0; t < s->task_count; t++) {
        const struct sc_task *task = &s->tasks[t];
        const struct sc_task_result *tr = &r->tasks[t];
        char name[72], p50[24], p99[24], mx[24];
        if (task->count > 1)
            snprintf(name, sizeof(name), "%s x%u", task->name, task->count);
        else
            snprintf(name, sizeof(name), "%s", task->name);
        fprintf(out, "%-14s %-5s %7llu %7llu %6llu %11s %11s %11s %11.1f", name, sc_class_name(task->cls),
                (unsigned long long)tr->arrivals, (unsigned long long)tr->completed,
                (unsigned long long)tr->failed, sc_fmt_ns(tr->p50_ns, p50, sizeof(p50)),
                sc_fmt_ns(tr->p99_ns, p99, sizeof(p99)), sc_fmt_ns(tr->max_ns, mx, sizeof(mx)), tr->throughput);
        if (alone) {
            char a[16], b[16];
            ratio_text(a, sizeof(a), tr->p99_ns, tr->alone_p99_ns, tr->has_alone);
            ratio_text(b, sizeof(b), tr->throughput, tr->alone_throughput, tr->has_alone);
            fprintf(out, "   %9s  %11s", a, b);
        }
        fputc('\n', out);
    }
}

static void engines_table(const struct sc_results *r, FILE *out, const struct style *st)
{
    double vt = r->virtual_ns ? (double)r->virtual_ns : 1;
    fprintf(out, "%s%-10s %7s %9s %9s %12s %9s %9s%s\n", st->bold, "engine", "busy", "switch", "switches",
            "preemptions", "timeouts", "kernels", st->off);
    for (uint32_t i = 0; i < r->engine_count; i++) {
        const struct sc_engine_result *e = &r->engines[i];
        if (!e->kernels && !e->switches && !e->preemptions)
            continue;
        fprintf(out, "%-10s %6.1f%% %8.2f%% %9llu %12llu %9llu %9llu\n", e->name, 100.0 * (double)e->busy_ns / vt,
                100.0 * (double)e->switch_ns / vt, (unsigned long long)e->switches,
                (unsigned long long)e->preemptions, (unsigned long long)e->preempt_timeouts,
                (unsigned long long)e->kernels);
    }
}

void report_console(const struct sc_results *r, FILE *out, bool color)
{
    static const struct style plain = {"", "", "", "", ""};
    static const struct style ansi = {"\033[1m", "\033[32m", "\033[31m", "\033[2m", "\033[0m"};
    const struct style *st = color ? &ansi : &plain;
    const struct scenario *s = r->sc;
    fprintf(out, "\n%sscenario %s%s  %s(gpu %s, policy %s%s%s, seed %llu)%s\n", st->bold, s->name, st->off, st->dim,
            s->gpu.profile, s->policy.plugin[0] ? s->policy.plugin : "native",
            s->scheduler.kind == SC_SCHED_GPREEMPT ? ", user-space scheduler gpreempt" : "",
            s->baseline ? ", baseline: each task alone" : "", (unsigned long long)r->seed, st->off);
    fprintf(out, "%s%.3f s virtual in %.3f s wall, %llu trace events, digest fnv1a64:%016llx%s\n", st->dim,
            (double)r->virtual_ns / 1e9, (double)r->wall_ns / 1e9, (unsigned long long)r->events,
            (unsigned long long)r->digest, st->off);
    if (r->events || !r->error[0]) {
        fputc('\n', out);
        tasks_table(r, out, st);
        fputc('\n', out);
        engines_table(r, out, st);
    }
    if (r->gpu_lost || r->busy_retries) {
        char at[32];
        fprintf(out, "\n%sfaults%s", st->bold, st->off);
        if (r->gpu_lost)
            fprintf(out, "  GPU lost at %s (requests in flight and later ones reported failed)",
                    sc_fmt_ns((double)r->gpu_lost_ns, at, sizeof(at)));
        if (r->busy_retries)
            fprintf(out, "  %llu scheduler controls answered BUSY_RETRY (each retried)",
                    (unsigned long long)r->busy_retries);
        fputc('\n', out);
    }
    if (r->error[0])
        fprintf(out, "\n%s✗ run failed: %s%s\n", st->red, r->error, st->off);
    for (uint32_t i = 0; i < r->warning_count; i++)
        fprintf(out, "\n%s! warning: %s%s\n", st->red, r->warnings[i], st->off);
    if (s->expect_count) {
        fprintf(out, "\n%sexpectations%s\n", st->bold, st->off);
        for (uint32_t i = 0; i < s->expect_count; i++) {
            const struct sc_expect_outcome *o = &r->outcomes[i];
            fprintf(out, "  %s%s%s %-52s %s%s%s\n", o->pass ? st->green : st->red, o->pass ? "✓" : "✗", st->off,
                    o->label, o->pass ? st->dim : st->red, o->actual, st->off);
        }
    }
    bool ok = r->failed == 0 && !r->error[0];
    fprintf(out, "\n%s%s%s %u of %u expectations met\n", ok ? st->green : st->red, ok ? "PASS" : "FAIL", st->off,
            r->passed, s->expect_count);
}
