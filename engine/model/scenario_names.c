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
