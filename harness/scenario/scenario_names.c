/* Names and labels of scenario values, shared by the console, JSON, JUnit and HTML reports. */
#include <stdio.h>
#include <string.h>

#include "scenario.h"

int scenario_find_task(const struct scenario *s, const char *name)
{
    for (uint32_t i = 0; i < s->task_count; i++)
        if (strcmp(s->tasks[i].name, name) == 0)
            return (int)i;
    return -1;
}

const char *sc_class_name(enum sc_class c)
{
    return sc_class_names[c];
}

const char *sc_arrival_name(enum sc_arrival a)
{
    return sc_arrival_names[a];
}

const char *sc_stat_name(enum sc_stat st)
{
    return sc_stat_names[st];
}

const char *sc_fmt_ns(double ns, char *buf, size_t len)
{
    if (ns >= 1e9)
        snprintf(buf, len, "%.3f s", ns / 1e9);
    else if (ns >= 1e6)
        snprintf(buf, len, "%.3f ms", ns / 1e6);
    else if (ns >= 1e3)
        snprintf(buf, len, "%.1f us", ns / 1e3);
    else
        snprintf(buf, len, "%.0f ns", ns);
    return buf;
}

/* Appends " >= a" / " <= b" / " in [a, b]" for a value formatter. */
static void bounds(char *buf, size_t len, bool has_min, double min, bool has_max, double max, bool dur,
                   const char *suffix)
{
    char a[32], b[32];
    size_t off = strlen(buf);
    if (dur) {
        sc_fmt_ns(min, a, sizeof(a));
        sc_fmt_ns(max, b, sizeof(b));
    } else {
        snprintf(a, sizeof(a), "%g%s", min, suffix);
        snprintf(b, sizeof(b), "%g%s", max, suffix);
    }
    if (has_min && has_max)
        snprintf(buf + off, len - off, " in [%s, %s]", a, b);
    else if (has_min)
        snprintf(buf + off, len - off, " >= %s", a);
    else if (has_max)
        snprintf(buf + off, len - off, " <= %s", b);
}

void scenario_expect_label(const struct scenario *s, const struct sc_expect *e, char *buf, size_t len)
{
    (void)s;
    buf[0] = '\0';
    switch (e->kind) {
    case SC_EXPECT_LATENCY:
    case SC_EXPECT_THROUGHPUT: {
        bool lat = e->kind == SC_EXPECT_LATENCY;
        if (lat)
            snprintf(buf, len, "%s latency %s", e->task, sc_stat_name(e->stat));
        else
            snprintf(buf, len, "%s throughput", e->task);
        bounds(buf, len, e->has_min, e->min, e->has_max, e->max, lat, lat ? "" : " req/s");
        if ((e->has_min || e->has_max) && (e->has_ratio_min || e->has_ratio_max))
            strncat(buf, " and", len - strlen(buf) - 1);
        bounds(buf, len, e->has_ratio_min, e->ratio_min, e->has_ratio_max, e->ratio_max, false, "x alone");
        break;
    }
    case SC_EXPECT_PREEMPTIONS:
    case SC_EXPECT_SWITCHES:
    case SC_EXPECT_PREEMPT_TIMEOUTS:
        snprintf(buf, len, "%s %s", e->engine,
                 e->kind == SC_EXPECT_PREEMPTIONS ? "preemptions"
                 : e->kind == SC_EXPECT_SWITCHES  ? "switches"
                                                  : "preempt timeouts");
        bounds(buf, len, e->has_min, e->min, e->has_max, e->max, false, "");
        break;
    case SC_EXPECT_NO_STARVATION:
        snprintf(buf, len, "no starvation of %s", e->task[0] ? e->task : "any task");
        if (e->has_max) {
            char g[32];
            size_t off = strlen(buf);
            snprintf(buf + off, len - off, " (gap <= %s)", sc_fmt_ns(e->max, g, sizeof(g)));
        }
        break;
    case SC_EXPECT_DECISION:
        snprintf(buf, len, "decisions %s%s%s%s%s", e->hook, e->field[0] ? "." : "", e->field,
                 e->result[0] ? " -> " : "", e->result);
        bounds(buf, len, e->has_min, e->min, e->has_max, e->max, false, "");
        break;
    case SC_EXPECT_LOST:
        snprintf(buf, len, "lost requests");
        bounds(buf, len, e->has_min, e->min, e->has_max, e->max, false, "");
        break;
    case SC_EXPECT_FAULTS:
        snprintf(buf, len, "requests failed by faults");
        bounds(buf, len, e->has_min, e->min, e->has_max, e->max, false, "");
        break;
    case SC_EXPECT_TRACE_DIGEST:
        snprintf(buf, len, "trace digest == %s", e->digest);
        break;
    case SC_EXPECT_BUSY_RETRIES:
        snprintf(buf, len, "controls answered BUSY_RETRY");
        bounds(buf, len, e->has_min, e->min, e->has_max, e->max, false, "");
        break;
    }
}
