/*
 * The GPreempt-style scheduler's decisions as a function of events, with no
 * transport under it: every user of the scheduler (nvemu-gpreempt on a
 * driver, the scenario's scheduler in the emulator, the scheduler threads of
 * a hardware run) feeds it the same events and issues what it decides, so
 * the three decide alike.
 *
 * Events: an LC source (a task instance, or the tool's one LC stream) starts
 * having work queued / has none left. A source must not begin twice without
 * an end in between (callers keep one busy flag per source).
 * Decisions: nothing; PREEMPT every BE group (action preempt: each time an LC
 * source begins); DISABLE every BE group's channels (action disable: when the
 * first LC source begins); ENABLE them again (when the last one ends).
 */
#ifndef NVEMU_GP_DECIDE_H
#define NVEMU_GP_DECIDE_H

#include <stdbool.h>
#include <stdint.h>

enum gp_method { GP_METHOD_PREEMPT = 0, GP_METHOD_DISABLE = 1, GP_METHOD_TIMESLICE = 2 /* no run-time action */ };

enum gp_decision { GP_DECIDE_NOTHING = 0, GP_DECIDE_PREEMPT_BE, GP_DECIDE_DISABLE_BE, GP_DECIDE_ENABLE_BE,
                   GP_DECISION_COUNT };

struct gp_decider {
    enum gp_method method;
    uint32_t lc_busy;             /* LC sources with work queued */
    bool be_disabled;             /* what it decided last */
    uint64_t made[GP_DECISION_COUNT]; /* decisions taken, by kind (NOTHING included) */
};

void gp_decider_init(struct gp_decider *d, enum gp_method m);
/* An LC source begins having work queued: what to do to the BE groups. */
enum gp_decision gp_decide_lc_begin(struct gp_decider *d);
/* An LC source has no work left. */
enum gp_decision gp_decide_lc_end(struct gp_decider *d);

/* "nothing" "preempt" "disable" "enable" (the run record's names). */
const char *gp_decision_name(enum gp_decision k);

#endif
