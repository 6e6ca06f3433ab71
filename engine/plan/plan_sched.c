/* The scenario's user-space scheduler as the method its decisions follow (plan.h, gp_decide.h). */
#include "plan.h"

enum gp_method sc_plan_sched_method(const struct scenario *sc)
{
    switch (sc->scheduler.action) {
    case SC_SCHED_PREEMPT:
        return GP_METHOD_PREEMPT;
    case SC_SCHED_DISABLE:
        return GP_METHOD_DISABLE;
    case SC_SCHED_TIMESLICE:
        break;
    }
    return GP_METHOD_TIMESLICE;
}
