/* The scheduler's decisions (see gp_decide.h). */
#include "gp_decide.h"

#include <string.h>

void gp_decider_init(struct gp_decider *d, enum gp_method m)
{
    memset(d, 0, sizeof(*d));
    d->method = m;
}

static enum gp_decision took(struct gp_decider *d, enum gp_decision k)
{
    d->made[k]++;
    return k;
}

enum gp_decision gp_decide_lc_begin(struct gp_decider *d)
{
    d->lc_busy++;
    if (d->method == GP_METHOD_PREEMPT)
        return took(d, GP_DECIDE_PREEMPT_BE);
    if (d->method == GP_METHOD_DISABLE && !d->be_disabled) {
        d->be_disabled = true;
        return took(d, GP_DECIDE_DISABLE_BE);
    }
    return took(d, GP_DECIDE_NOTHING);
}

enum gp_decision gp_decide_lc_end(struct gp_decider *d)
{
    if (d->lc_busy)
        d->lc_busy--;
    if (d->lc_busy == 0 && d->be_disabled) {
        d->be_disabled = false;
        return took(d, GP_DECIDE_ENABLE_BE);
    }
    return took(d, GP_DECIDE_NOTHING);
}

const char *gp_decision_name(enum gp_decision k)
{
    static const char *const names[GP_DECISION_COUNT] = {"nothing", "preempt", "disable", "enable"};
    return k < GP_DECISION_COUNT ? names[k] : "?";
}
