/* Per-thread callback deadline (deadline.h). */
#include "base/deadline.h"

#include <time.h>

static _Thread_local uint64_t deadline_ns;

uint64_t nvemu_mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint64_t nvemu_deadline_set(uint64_t mono_ns)
{
    uint64_t old = deadline_ns;
    deadline_ns = mono_ns;
    return old;
}

uint64_t nvemu_deadline(void)
{
    return deadline_ns;
}

bool nvemu_deadline_passed(void)
{
    return deadline_ns && nvemu_mono_ns() > deadline_ns;
}
