/*
 * Engines and runlists in virtual time: runlist construction, picking the
 * next runnable entry, context switches, timeslices, kernel execution and
 * preemption at WFI/CTA/CILP boundaries. The rules are documented in fifo.h.
 */
#include "fifo/fifo_internal.h"

#include <stdlib.h>
#include <string.h>

#include "abi/nv_engine.h"
#include "base/log.h"

#define COMP "fifo"
/* Hardware runlists are bounded; interleave repetitions beyond this are cut (logged). */
#define RL_MAX_ENTRIES 65536u

static uint64_t now_of(const struct fifo_runlist *rl) { return sim_now(rl->f->sim); }

static void rl_kick(struct fifo_runlist *rl);
static void kernel_begin(struct fifo_runlist *rl);
static void finish_preempt(struct fifo_runlist *rl);

bool tsg_on_engine(const struct fifo_tsg *t) { return t->rl && t->rl->cur == t; }

uint32_t ch_effective_mode(const struct fifo_channel *c)
{
    const struct fifo_tsg *t = c->tsg;
    /* MAKE_REALTIME: with a realtime TSG on the runlist, others are CTA and realtime stays WFI. */
    if (t->rl && t->rl->has_realtime)
        return t->realtime ? FIFO_PREEMPT_WFI : FIFO_PREEMPT_CTA;
    return c->mode;
}

static void set_state(struct fifo_runlist *rl, enum eng_state st)
{
    uint64_t now = now_of(rl), dt = now - rl->state_since;
    if (rl->state == ENG_RUN || rl->state == ENG_PREEMPT)
        rl->st.busy_ns += dt;
    else if (rl->state == ENG_SWITCH)
        rl->st.switch_ns += dt;
    rl->state = st;
    rl->state_since = now;
}

static uint32_t others_runnable(const struct fifo_runlist *rl)
{
    return rl->runnable - (rl->cur && rl->cur->runnable ? 1u : 0u);
}

static void cancel(struct fifo_runlist *rl, sim_event_id *ev)
{
    if (*ev) {
        sim_cancel(rl->f->sim, *ev);
        *ev = 0;
    }
}

static void on_slice(struct sim *s, void *arg, uint64_t data);

static uint32_t tsg_pending(const struct fifo_tsg *t)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < t->n_chans; i++)
        n += t->chans[i]->pending;
    return n;
}

/*
 * Whether cur's slice ran out at an expiry where it had nothing queued behind
 * its running kernel: expiries fall at slice_start + k x timeslice, and one
 * that finds more kernels queued renews the slice (fifo.h).
 */
static bool slice_lapsed(struct fifo_runlist *rl, uint64_t now)
{
    uint64_t ts = rl->cur->timeslice_ns, s = rl->slice_start;
    if (rl->slice_lapsed || rl->last_kernel_t == UINT64_MAX || !ts)
        return rl->slice_lapsed;
    uint64_t from = rl->last_kernel_t > s + ts ? rl->last_kernel_t : s + ts;
    uint64_t expiry = s + (from - s + ts - 1) / ts * ts;
    rl->slice_lapsed = expiry <= now;
    return rl->slice_lapsed;
}

/*
 * The slice timer only matters while another TSG is runnable, so it is
 * armed only then. A TSG that ran alone past its slice had it renewed at
 * every expiry that found kernels queued behind the running one: the next
 * expiry is the next multiple of the slice after its start. Once an expiry
 * found it running its last queued kernel, it is preempted at once.
 */
static void arm_slice(struct fifo_runlist *rl)
{
    cancel(rl, &rl->ev_slice);
    if (rl->state != ENG_RUN || others_runnable(rl) == 0)
        return;
    uint64_t now = now_of(rl), ts = rl->cur->timeslice_ns, at = rl->slice_start + ts;
    if (at <= now && ts && !slice_lapsed(rl, now))
        at = rl->slice_start + ((now - rl->slice_start) / ts + 1) * ts;
    rl->ev_slice = sim_at(rl->f->sim, at > now ? at : now, on_slice, rl, 0);
}

/* New work for the running TSG: an expiry already passed with nothing queued stays lapsed. */
void rl_work_queued(struct fifo_tsg *t)
{
    struct fifo_runlist *rl = t->rl;
    if (rl->cur != t || rl->state != ENG_RUN || rl->last_kernel_t == UINT64_MAX)
        return;
    slice_lapsed(rl, now_of(rl));
    rl->last_kernel_t = UINT64_MAX;
}

static void rl_changed(struct fifo_runlist *rl)
{
    if (rl->state == ENG_IDLE)
        rl_kick(rl);
    else if (rl->state == ENG_RUN && !rl->ev_slice && others_runnable(rl) > 0)
        arm_slice(rl);
}

void tsg_refresh(struct fifo_tsg *t)
{
    struct fifo_runlist *rl = t->rl;
    bool r = t->scheduled && t->in_list && t->ready_channels > 0;
    if (r == t->runnable)
        return;
    t->runnable = r;
    if (r) {
        t->runnable_since = sim_now(t->f->sim);
        rl->runnable++;
    } else {
        rl->runnable--;
    }
    rl_changed(rl);
}

void ch_refresh(struct fifo_channel *c)
{
    bool r = c->enabled && c->scheduled && c->bound && c->head != NULL;
    if (r == c->ready)
        return;
    c->ready = r;
    if (r)
        c->tsg->ready_channels++;
    else
        c->tsg->ready_channels--;
    tsg_refresh(c->tsg);
}

static struct fifo_krec *tsg_next_kernel(const struct fifo_tsg *t)
{
    struct fifo_krec *best = NULL;
    for (uint32_t i = 0; i < t->n_chans; i++) {
        const struct fifo_channel *c = t->chans[i];
        if (c->ready && (!best || c->head->id < best->id))
            best = c->head;
    }
    return best;
}

static void on_switch_done(struct sim *s, void *arg, uint64_t data);

/* What an engine that was idle since `since` takes beyond its switch to start again (fifo.h). */
static uint64_t wake_cost(const struct profile_timing *tm, uint64_t since, uint64_t now)
{
    uint64_t idle = now - since;
    if (!tm->wake_per_ms_ns || idle <= tm->wake_after_ns)
        return 0;
    uint64_t ms = (idle - tm->wake_after_ns) / 1000000u;
    uint64_t w = ms > tm->wake_max_ns / tm->wake_per_ms_ns ? tm->wake_max_ns : ms * tm->wake_per_ms_ns;
    return w < tm->wake_max_ns ? w : tm->wake_max_ns;
}

static void start_switch(struct fifo_runlist *rl, struct fifo_tsg *t, uint64_t wake)
{
    const struct profile_timing *tm = &rl->f->p->timing;
    uint64_t load = tm->ctxsw_ns;
    if (t->cilp_saved && (tm->cilp_restore_ns || tm->cilp_restore_per_sm_ns)) {
        load = tm->cilp_restore_ns + tm->cilp_restore_per_sm_ns * t->saved_sms;
        uint64_t bound = tm->short_slice_restore_ns + tm->short_slice_restore_per_us_ns * (t->timeslice_ns / 1000u);
        if (tm->short_slice_restore_ns && bound < load)
            load = bound;
    }
    bool loaded = t == rl->resident;
    uint64_t cost = loaded ? 0 : load;
    /* the cut kernel's shared memory comes back before the slice begins (fifo.h) */
    uint64_t smem = loaded ? 0 : tm->restore_ns_per_kb * t->saved_kb;
    /* the interrupted blocks' own threads copy their shared memory back, each thread its share and the SM all of it
     * through one path; the rest of the load hides the first restore_thread_free_bytes' worth (fifo.h) */
    uint64_t copy = tm->restore_ns_per_thread_kb * t->saved_thread_bytes;
    copy += tm->restore_ns_per_sm_kb * t->saved_kb * 1024u;
    uint64_t hidden = tm->restore_ns_per_thread_kb * tm->restore_thread_free_bytes;
    if (cost && copy > hidden)
        cost += (copy - hidden) / 1024u;
    t->saved_thread_bytes = 0;
    bool sw = cost + smem != 0;
    /* a group that ran out of work stays loaded until another one needs the engine: its save comes first */
    uint64_t save = rl->resident && !loaded ? tm->idle_save_ns : 0;
    cost += save + wake + smem;
    t->saved_kb = 0;
    set_state(rl, ENG_SWITCH);
    rl->cur = t;
    /* the slice counts from the start of the load: the load is part of it, the save before it is not (fifo.h) */
    rl->slice_start = now_of(rl) + save + wake + smem;
    /* a group resumed from a CILP save restores its SMs' state until restore_busy after its load began (fifo.h) */
    t->restore_end = t->cilp_saved ? rl->slice_start + tm->restore_busy_ns : 0;
    rl->restored_kernel = t->cilp_saved ? t->cut_kernel : 0;
    t->cilp_saved = false;
    rl->last_kernel_t = UINT64_MAX;
    rl->slice_lapsed = false;
    rl->switch_abort = false;
    fifo_trace(rl->f, SIM_REC_SWITCH, rl, t, SIM_NONE, rl->resident ? rl->resident->hw_id : SIM_NONE, cost);
    if (sw || save)
        rl->st.switches++;
    rl->preempt_done_t = now_of(rl) + cost;
    rl->ev_switch = sim_at(rl->f->sim, rl->preempt_done_t, on_switch_done, rl, 0);
}

/*
 * The first runnable TSG after rl->pos in runlist order, other than `other_than`, that has been runnable since no
 * later than `since` (UINT64_MAX: whenever); its index in *idx. NULL if there is none.
 */
static struct fifo_tsg *next_runnable(const struct fifo_runlist *rl, const struct fifo_tsg *other_than, uint64_t since,
                                      uint32_t *idx)
{
    for (uint32_t i = 1; i <= rl->n_entries; i++) {
        uint32_t at = (rl->pos + i) % rl->n_entries;
        struct fifo_tsg *t = rl->entries[at];
        if (t->runnable && t != other_than && t->runnable_since <= since) {
            *idx = at;
            return t;
        }
    }
    return NULL;
}

/*
 * After a yield the engine goes to work it knew of when the yielding group began its last kernel (or began to run,
 * if that kernel resumed with its load), if that group ran at least timing.yield_skip_min_run; one that ran out of
 * work sooner hands on in runlist order (fifo.h). rl_kick runs at the yield, so now - run_since is how long the
 * yielding group ran.
 */
static bool yield_skips_late(const struct fifo_runlist *rl)
{
    const struct profile_timing *tm = &rl->f->p->timing;
    return tm->yield_skips_late_work && now_of(rl) - rl->run_since >= tm->yield_skip_min_run_ns;
}

static void rl_kick(struct fifo_runlist *rl)
{
    if (rl->state != ENG_IDLE || rl->runnable == 0 || rl->f->lost)
        return;
    uint64_t wake = wake_cost(&rl->f->p->timing, rl->state_since, now_of(rl));
    struct fifo_tsg *next = rl->next;
    bool known_only = rl->yielded && !next && yield_skips_late(rl);
    rl->next = NULL;
    rl->yielded = false;
    uint32_t idx;
    uint64_t since = rl->last_kernel_t != UINT64_MAX ? rl->last_kernel_t : rl->run_since;
    struct fifo_tsg *known = known_only ? next_runnable(rl, NULL, since, &idx) : NULL;
    if (known) {
        rl->pos = idx;
        start_switch(rl, known, wake);
        return;
    }
    for (uint32_t i = 1; i <= rl->n_entries; i++) {
        uint32_t idx = (rl->pos + i) % rl->n_entries;
        if (next && next->runnable && rl->entries[idx] != next)
            continue;
        if (rl->entries[idx]->runnable) {
            rl->pos = idx;
            start_switch(rl, rl->entries[idx], wake);
            return;
        }
    }
    if (next && next->runnable) {
        /* a runlist rebuilt during the save dropped the group picked at the expiry: take the next runnable one */
        rl_kick(rl);
        return;
    }
    LOG_ERROR(COMP, "runlist %u: %u runnable TSGs but none in the runlist", rl->id, rl->runnable);
}

static void go_idle(struct fifo_runlist *rl)
{
    cancel(rl, &rl->ev_slice);
    rl->cur = NULL;
    rl->kcur = NULL;
    set_state(rl, ENG_IDLE);
    if (rl->runnable == 0)
        fifo_trace(rl->f, SIM_REC_IDLE, rl, NULL, SIM_NONE, 0, 0);
    rl_kick(rl);
}

static void on_switch_done(struct sim *s, void *arg, uint64_t data)
{
    (void)s;
    (void)data;
    struct fifo_runlist *rl = arg;
    struct fifo_tsg *t = rl->cur;
    rl->ev_switch = 0;
    rl->resident = t;
    if (rl->switch_abort) {
        set_state(rl, ENG_PREEMPT);
        finish_preempt(rl);
        return;
    }
    if (!t->runnable) {
        go_idle(rl);
        return;
    }
    set_state(rl, ENG_RUN);
    rl->run_since = now_of(rl);
    fifo_trace(rl->f, SIM_REC_START, rl, t, SIM_NONE, t->timeslice_ns, 0);
    arm_slice(rl);
    kernel_begin(rl);
}

static void on_kernel_done(struct sim *s, void *arg, uint64_t data);

static void complete_kernel(struct fifo *f, struct fifo_runlist *rl, struct fifo_krec *k)
{
    struct fifo_channel *c = k->ch;
    uint64_t now = sim_now(f->sim);
    c->head = k->next;
    if (!c->head)
        c->tail = NULL;
    c->pending--;
    rl->st.kernels++;
    fifo_trace(f, SIM_REC_KERNEL_DONE, rl, c->tsg, c->chid, k->id, now - k->submit_t);
    fifo_done_fn fn = k->fn;
    void *ctx = k->ctx;
    uint64_t id = k->id, tag = k->tag, submit_t = k->submit_t;
    fifo_krec_free(f, k);
    ch_refresh(c);
    if (fn)
        fn(ctx, id, tag, submit_t, now);
}

/* Between kernels of the running TSG: run the next one or give the engine up. */
static void rl_continue(struct fifo_runlist *rl)
{
    if (rl->state != ENG_RUN || rl->kcur)
        return;
    if (rl->cur->runnable) {
        kernel_begin(rl);
        return;
    }
    rl->yielded = true;
    go_idle(rl);
}

static void kernel_begin(struct fifo_runlist *rl)
{
    struct fifo_krec *k = tsg_next_kernel(rl->cur);
    if (!k) {
        go_idle(rl);
        return;
    }
    rl->kcur = k;
    rl->seg_start = now_of(rl);
    /* its launch was processed while it waited for the engine, as behind a running kernel of its group (fifo.h) */
    if (rl->f->p->timing.wait_hides_gap && k->late_hide && !k->started && rl->seg_start - k->submit_t >= k->late_hide) {
        k->total_ns -= k->late_hide;
        k->remaining_ns -= k->late_hide;
        k->late_hide = 0;
    }
    if (tsg_pending(rl->cur) <= 1 && rl->last_kernel_t == UINT64_MAX)
        rl->last_kernel_t = rl->seg_start;
    k->started = true;
    fifo_trace(rl->f, SIM_REC_KERNEL_START, rl, rl->cur, k->ch->chid, k->id, k->remaining_ns);
    rl->ev_kernel = sim_at(rl->f->sim, rl->seg_start + k->remaining_ns, on_kernel_done, rl, 0);
}

static void on_kernel_done(struct sim *s, void *arg, uint64_t data)
{
    (void)s;
    (void)data;
    struct fifo_runlist *rl = arg;
    struct fifo_krec *k = rl->kcur;
    rl->ev_kernel = 0;
    rl->kcur = NULL;
    k->remaining_ns = 0;
    complete_kernel(rl->f, rl, k);
    rl_continue(rl);
}

static void on_preempt_done(struct sim *s, void *arg, uint64_t data)
{
    (void)s;
    (void)data;
    struct fifo_runlist *rl = arg;
    rl->ev_preempt = 0;
    finish_preempt(rl);
}

static void finish_preempt(struct fifo_runlist *rl)
{
    struct fifo_krec *k = rl->kcur;
    struct fifo_tsg *t = rl->cur;
    fifo_trace(rl->f, SIM_REC_PREEMPT_DONE, rl, t, SIM_NONE, rl->preempt_cause, now_of(rl) - rl->preempt_req_t);
    rl->resident = NULL; /* the context was saved out: resuming it costs a switch */
    if (t)
        t->runnable_since = now_of(rl);
    rl->kcur = NULL;
    if (k && k->remaining_ns == 0)
        complete_kernel(rl->f, rl, k);
    if (rl->state == ENG_PREEMPT)
        go_idle(rl);
}

/*
 * What a CILP save of the running group at `now` waits for the restore of its last CILP save, still running; a
 * slice no longer than the load ended before that restore began (fifo.h).
 */
static uint64_t restore_wait(const struct fifo_runlist *rl, uint64_t now)
{
    const struct fifo_tsg *t = rl->cur;
    if (t->timeslice_ns <= rl->run_since - rl->slice_start)
        return 0;
    return t->restore_end > now ? t->restore_end - now : 0;
}

/* Preempts the running TSG at its mode's boundary; returns the completion time. */
static uint64_t preempt_begin(struct fifo_runlist *rl, uint32_t cause)
{
    const struct profile_timing *tm = &rl->f->p->timing;
    uint64_t now = now_of(rl), dt = 0;
    uint32_t mode = FIFO_PREEMPT_WFI;
    struct fifo_krec *k = rl->kcur;
    cancel(rl, &rl->ev_slice);
    cancel(rl, &rl->ev_kernel);
    if (k) {
        mode = ch_effective_mode(k->ch);
        uint64_t ran = now - rl->seg_start;
        uint64_t rem = k->remaining_ns > ran ? k->remaining_ns - ran : 0;
        uint64_t more = 0;
        if (mode == FIFO_PREEMPT_WFI) {
            more = rem;
            dt = rem + tm->wfi_overhead_ns;
        } else if (mode == FIFO_PREEMPT_CTA) {
            uint64_t prog = k->total_ns - rem, w = k->wave_ns ? k->wave_ns : 1, into = prog % w;
            more = into ? w - into : 0;
            if (more > rem)
                more = rem;
            dt = more + tm->cta_overhead_ns;
        } else if (k->one_wave && tm->lock_left_ns && rem <= tm->lock_left_ns) {
            /* close enough to its end: it completes then, and the boundary save follows (fifo.h) */
            dt = rem + tm->wfi_overhead_ns;
            rl->seg_start = now;
            rl->ev_kernel = sim_at(rl->f->sim, now + rem, on_kernel_done, rl, 0);
        } else if (k->one_wave && tm->lock_ran_ns && k->remaining_ns == k->total_ns && ran <= tm->lock_ran_ns) {
            /* it has only just begun: back to its queue, a boundary save (fifo.h) */
            rem = k->total_ns;
            dt = tm->wfi_overhead_ns;
        } else {
            bool resave = tm->cilp_resave_ns && k->id == rl->restored_kernel;
            dt = (resave ? tm->cilp_resave_ns : tm->cilp_save_ns) + tm->cilp_save_per_sm_ns * k->sms;
            dt += restore_wait(rl, now);
            rl->cur->cilp_saved = rem != 0;
            rl->cur->saved_sms = k->sms;
            rl->cur->cut_kernel = k->id;
            /* a kernel interrupted mid-block leaves its shared memory to save, and to restore later */
            if (rem) {
                dt += tm->save_ns_per_kb * k->shared_kb;
                rl->cur->saved_kb = k->shared_kb;
                rl->cur->saved_thread_bytes = k->thread_bytes;
            }
        }
        k->remaining_ns = rem - more;
    }
    set_state(rl, ENG_PREEMPT);
    rl->preempt_cause = cause;
    rl->preempt_req_t = now;
    rl->preempt_done_t = now + dt;
    rl->st.preemptions++;
    fifo_trace(rl->f, SIM_REC_PREEMPT_REQ, rl, rl->cur, k ? k->ch->chid : SIM_NONE, cause, mode);
    rl->ev_preempt = sim_at(rl->f->sim, rl->preempt_done_t, on_preempt_done, rl, 0);
    return rl->preempt_done_t;
}

/*
 * At an expiry that finds the running group on its last queued kernel, the next group is one that was runnable when
 * that kernel began or resumed (rl->last_kernel_t), if any (fifo.h, timing.expiry_skips_late_work).
 */
static void expiry_pick_known(struct fifo_runlist *rl)
{
    uint32_t idx;
    if (rl->f->p->timing.expiry_skips_late_work && rl->last_kernel_t != UINT64_MAX && !rl->next)
        rl->next = next_runnable(rl, rl->cur, rl->last_kernel_t, &idx);
}

static void on_slice(struct sim *s, void *arg, uint64_t data)
{
    (void)s;
    (void)data;
    struct fifo_runlist *rl = arg;
    rl->ev_slice = 0;
    if (rl->state != ENG_RUN || others_runnable(rl) == 0)
        return;
    fifo_trace(rl->f, SIM_REC_TIMESLICE_EXPIRE, rl, rl->cur, SIM_NONE, 1, rl->cur->timeslice_ns);
    expiry_pick_known(rl);
    /* the next group is picked at the expiry: one that becomes runnable during the save waits its turn */
    uint32_t idx;
    if (!rl->next)
        rl->next = next_runnable(rl, rl->cur, UINT64_MAX, &idx);
    preempt_begin(rl, FIFO_CAUSE_TIMESLICE);
}

uint64_t rl_preempt_tsg(struct fifo_tsg *t, uint32_t cause)
{
    struct fifo_runlist *rl = t->rl;
    if (!rl || rl->cur != t)
        return sim_now(t->f->sim);
    switch (rl->state) {
    case ENG_SWITCH:
        if (!rl->switch_abort) {
            rl->switch_abort = true;
            rl->preempt_cause = cause;
            rl->preempt_req_t = now_of(rl);
            rl->st.preemptions++;
            fifo_trace(rl->f, SIM_REC_PREEMPT_REQ, rl, t, SIM_NONE, cause, FIFO_PREEMPT_WFI);
        }
        return rl->preempt_done_t;
    case ENG_PREEMPT:
        return rl->preempt_done_t;
    case ENG_RUN:
        return preempt_begin(rl, cause);
    default:
        return now_of(rl);
    }
}

void rl_evict(struct fifo_tsg *t)
{
    struct fifo_runlist *rl = t->rl;
    if (rl->resident == t)
        rl->resident = NULL;
    if (rl->next == t)
        rl->next = NULL;
    if (rl->cur != t)
        return;
    cancel(rl, &rl->ev_switch);
    cancel(rl, &rl->ev_kernel);
    cancel(rl, &rl->ev_preempt);
    go_idle(rl);
}

uint64_t rl_restart(struct fifo_runlist *rl)
{
    uint64_t done = now_of(rl);
    /* the head of the runlist (realtime TSGs first) is picked next */
    rl->pos = rl->n_entries ? rl->n_entries - 1 : 0;
    if (rl->cur)
        done = rl_preempt_tsg(rl->cur, FIFO_CAUSE_RESTART);
    else
        rl_kick(rl);
    return done;
}

void rl_stop(struct fifo_runlist *rl)
{
    cancel(rl, &rl->ev_switch);
    cancel(rl, &rl->ev_slice);
    cancel(rl, &rl->ev_kernel);
    cancel(rl, &rl->ev_preempt);
    cancel(rl, &rl->ev_rebuild);
    rl->switch_abort = false;
    rl->cur = NULL;
    rl->kcur = NULL;
    rl->resident = NULL;
    rl->next = NULL;
    set_state(rl, ENG_IDLE);
}

void rl_timeslice_changed(struct fifo_tsg *t)
{
    struct fifo_runlist *rl = t->rl;
    if (rl->cur == t && rl->state == ENG_RUN)
        arm_slice(rl);
}

/* ---- runlist construction ---- */

static bool entries_reserve(struct fifo_runlist *rl, uint32_t n)
{
    if (n <= rl->cap_entries)
        return true;
    uint32_t ncap = rl->cap_entries ? rl->cap_entries : 64;
    while (ncap < n)
        ncap *= 2;
    struct fifo_tsg **ne = realloc(rl->entries, ncap * sizeof(*ne));
    if (!ne)
        return false;
    rl->entries = ne;
    rl->cap_entries = ncap;
    return true;
}

static uint32_t level_of(const struct fifo_tsg *t) { return t->realtime ? 3u : t->interleave; }

static void build_interleaved(struct fifo_runlist *rl, uint32_t limit, uint32_t *n)
{
    uint32_t count[4] = {0};
    for (uint32_t i = 0; i < limit; i++) {
        struct fifo_tsg *t = rl->by_id[i];
        if (t && t->scheduled)
            count[level_of(t)]++;
    }
    uint64_t L = count[FIFO_INTERLEAVE_LOW], M = count[FIFO_INTERLEAVE_MEDIUM];
    uint64_t rep[4];
    rep[FIFO_INTERLEAVE_LOW] = 1;
    rep[FIFO_INTERLEAVE_MEDIUM] = L ? L : 1;
    rep[FIFO_INTERLEAVE_HIGH] = L ? (M + 1) * L : (M ? M : 1);
    rep[3] = rep[FIFO_INTERLEAVE_HIGH];
    uint64_t passes = 1;
    for (int l = 0; l < 4; l++)
        if (count[l] && rep[l] > passes)
            passes = rep[l];
    static const uint32_t order[4] = {3, FIFO_INTERLEAVE_HIGH, FIFO_INTERLEAVE_MEDIUM, FIFO_INTERLEAVE_LOW};
    for (uint64_t p = 0; p < passes; p++) {
        for (int g = 0; g < 4; g++) {
            uint32_t lvl = order[g];
            if (!count[lvl] || p >= rep[lvl])
                continue;
            for (uint32_t i = 0; i < limit; i++) {
                struct fifo_tsg *t = rl->by_id[i];
                if (!t || !t->scheduled || level_of(t) != lvl)
                    continue;
                if (*n == RL_MAX_ENTRIES) {
                    LOG_WARN(COMP, "runlist %u: interleave repetitions cut at %u entries", rl->id, RL_MAX_ENTRIES);
                    return;
                }
                if (!entries_reserve(rl, *n + 1))
                    return;
                rl->entries[(*n)++] = t;
            }
        }
    }
}

static void apply_policy_order(struct fifo_runlist *rl, uint32_t n)
{
    struct fifo *f = rl->f;
    if (!hooks_active(f->hooks) || n == 0)
        return;
    uint64_t *ids = malloc(n * sizeof(*ids));
    if (!ids)
        return;
    for (uint32_t i = 0; i < n; i++)
        ids[i] = rl->entries[i]->hw_id;
    hooks_runlist_update(f->hooks, f->gpu, rl->id, ids, n);
    /* the framework guarantees a permutation; map ids back, keeping native order if anything is off */
    uint32_t limit = f->p->max_channel_groups;
    bool ok = true;
    for (uint32_t i = 0; i < n && ok; i++)
        ok = ids[i] < limit && rl->by_id[ids[i]] && rl->by_id[ids[i]]->scheduled;
    if (ok)
        for (uint32_t i = 0; i < n; i++)
            rl->entries[i] = rl->by_id[ids[i]];
    else
        LOG_WARN(COMP, "runlist %u: policy order names an unknown TSG; native order kept", rl->id);
    free(ids);
}

void rl_rebuild_now(struct fifo_runlist *rl)
{
    struct fifo *f = rl->f;
    cancel(rl, &rl->ev_rebuild);
    uint32_t limit = f->p->max_channel_groups, n = 0;
    if (f->policy == FIFO_POLICY_DEFAULT) {
        for (uint32_t i = 0; i < limit; i++) {
            struct fifo_tsg *t = rl->by_id[i];
            if (t && t->scheduled && entries_reserve(rl, n + 1))
                rl->entries[n++] = t;
        }
    } else {
        build_interleaved(rl, limit, &n);
    }
    apply_policy_order(rl, n);
    rl->n_entries = n;
    rl->has_realtime = false;
    bool cur_in = false;
    for (uint32_t i = 0; i < limit; i++)
        if (rl->by_id[i])
            rl->by_id[i]->in_list = false;
    for (uint32_t i = 0; i < n; i++) {
        struct fifo_tsg *t = rl->entries[i];
        t->in_list = true;
        rl->has_realtime |= t->realtime;
        if (t == rl->cur && !cur_in) {
            cur_in = true;
            rl->pos = i;
        }
    }
    if (!cur_in)
        rl->pos = n ? n - 1 : 0;
    fifo_trace(f, SIM_REC_RUNLIST_UPDATE, rl, NULL, SIM_NONE, n, f->policy);
    if (rl->cur && !cur_in)
        rl_preempt_tsg(rl->cur, FIFO_CAUSE_RUNLIST);
    for (uint32_t i = 0; i < limit; i++)
        if (rl->by_id[i])
            tsg_refresh(rl->by_id[i]);
}

static void on_rebuild(struct sim *s, void *arg, uint64_t data)
{
    (void)s;
    (void)data;
    struct fifo_runlist *rl = arg;
    rl->ev_rebuild = 0;
    rl_rebuild_now(rl);
}

void rl_mark_dirty(struct fifo_runlist *rl)
{
    if (rl->ev_rebuild || rl->f->lost)
        return;
    rl->ev_rebuild = sim_at(rl->f->sim, now_of(rl) + rl->f->p->timing.runlist_update_ns, on_rebuild, rl, 0);
}

uint64_t fifo_gr_busy_ns(const struct fifo *f)
{
    uint64_t busy = 0, now = sim_now(f->sim);
    for (uint32_t i = 0; i < f->n_rls; i++) {
        const struct fifo_runlist *rl = &f->rls[i];
        if (rl->engine_type != NV2080_ENGINE_TYPE_GR0)
            continue;
        busy += rl->st.busy_ns;
        if (rl->state == ENG_RUN || rl->state == ENG_PREEMPT)
            busy += now - rl->state_since;
    }
    return busy;
}

uint64_t fifo_now_ns(const struct fifo *f)
{
    return sim_now(f->sim);
}
