/* The reduced scenario a baseline runs: one task alone (plan.h). */
#include "plan.h"

#include <stdlib.h>
#include <string.h>

struct scenario *sc_task_alone(const struct scenario *s, uint32_t t)
{
    struct scenario *b = malloc(sizeof(*b));
    if (!b)
        return NULL;
    memcpy(b, s, sizeof(*b));
    b->tasks[0] = s->tasks[t];
    b->task_count = 1;
    b->fault_count = 0;
    b->expect_count = 0;
    b->baseline = false;
    memset(&b->policy, 0, sizeof(b->policy));
    memset(&b->scheduler, 0, sizeof(b->scheduler));
    return b;
}
