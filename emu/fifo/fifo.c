/* FIFO model objects: runlists from the profile, TSG and channel lifecycle, scheduling controls, work. */
#include "fifo/fifo_internal.h"

#include <stdlib.h>
#include <string.h>

#include "base/log.h"

#define COMP "fifo"
/* ChID space of the model: larger than real channel RAM so the 2048 x 8 benchmark fits (token keeps 12 bits). */
#define FIFO_CHID_LIMIT 65536u
#define TIMESLICE_TIMEOUT_MAX 255u

/* ---- id allocator: lowest free ---- */

static bool idmap_init(struct fifo_idmap *m, uint32_t limit)
{
    m->limit = limit;
    m->bits = calloc((limit + 63) / 64, sizeof(uint64_t));
    return m->bits != NULL;
}

static bool idmap_alloc(struct fifo_idmap *m, uint32_t *out)
{
    uint32_t words = (m->limit + 63) / 64;
    for (uint32_t w = 0; w < words; w++) {
        if (m->bits[w] == ~0ull)
            continue;
        uint32_t id = w * 64 + (uint32_t)__builtin_ctzll(~m->bits[w]);
        if (id >= m->limit)
            return false;
        m->bits[w] |= 1ull << (id % 64);
        *out = id;
        return true;
    }
    return false;
}

/* Ids [0, n) stay taken for good (channels of RM/UVM that exist before any client). */
static void idmap_reserve(struct fifo_idmap *m, uint32_t n)
{
    for (uint32_t id = 0; id < n && id < m->limit; id++)
        m->bits[id / 64] |= 1ull << (id % 64);
}

static void idmap_free(struct fifo_idmap *m, uint32_t id)
{
    if (id < m->limit)
        m->bits[id / 64] &= ~(1ull << (id % 64));
}

/* ---- helpers ---- */

void fifo_trace(struct fifo *f, enum sim_rec_kind kind, const struct fifo_runlist *rl, const struct fifo_tsg *t,
                uint32_t chid, uint64_t a, uint64_t b)
{
    if (!rl && t)
        rl = t->rl;
    struct sim_rec r = {
        .kind = (uint16_t)kind,
        .gpu = (uint16_t)f->gpu,
        .engine = rl ? rl->engine_type : SIM_NONE,
        .runlist = rl ? rl->id : SIM_NONE,
        .tsg = t ? t->hw_id : SIM_NONE,
        .chid = chid,
        .a = a,
        .b = b,
    };
    sim_trace(f->sim, &r);
}

void fifo_hook_task(const struct fifo_tsg *t, struct hook_task *out)
{
    memset(out, 0, sizeof(*out));
    out->gpu = t->f->gpu;
    out->tsg_id = t->hw_id;
    out->runlist_id = t->rl->id;
    out->engine_type = t->engine_type;
    out->hclient = t->who.hclient;
    out->htsg = t->who.htsg;
    out->pid = t->who.pid;
    out->tid = t->who.tid;
    out->uid = t->who.uid;
    out->gid = t->who.gid;
    memcpy(out->comm, t->who.comm, sizeof(out->comm));
    out->comm[sizeof(out->comm) - 1] = 0;
    out->timeslice_us = t->timeslice_us;
    out->interleave = t->interleave;
    out->channel_count = t->n_chans;
}

uint64_t fifo_effective_timeslice_ns(const struct profile *p, uint64_t us)
{
    uint32_t scale = 0;
    while ((us >> scale) > TIMESLICE_TIMEOUT_MAX && scale < p->timeslice_scale_max)
        scale++;
    uint64_t timeout = us >> scale;
    if (timeout > TIMESLICE_TIMEOUT_MAX)
        timeout = TIMESLICE_TIMEOUT_MAX;
    uint64_t eff = timeout << scale;
    if (eff < p->min_timeslice_us)
        eff = p->min_timeslice_us;
    return eff * (p->timing.timeslice_tick_ns ? p->timing.timeslice_tick_ns : 1000u);
}

/* ---- lifetime ---- */

static struct fifo_runlist *runlist_by_id(struct fifo *f, uint32_t id)
{
    for (uint32_t i = 0; i < f->n_rls; i++)
        if (f->rls[i].id == id)
            return &f->rls[i];
    return NULL;
}

static struct fifo_runlist *runlist_of_engine(struct fifo *f, uint32_t engine_type)
{
    for (uint32_t i = 0; i < f->p->engine_count; i++)
        if (f->p->engines[i].engine_type == engine_type)
            return runlist_by_id(f, f->p->engines[i].runlist_id);
    return NULL;
}

struct fifo *fifo_create(const struct profile *p, uint32_t gpu_index, struct sim *s, struct hooks *h)
{
    if (p->max_channel_groups == 0 || p->engine_count == 0) {
        LOG_ERROR(COMP, "profile %s has no channel groups or engines", p->name);
        return NULL;
    }
    struct fifo *f = calloc(1, sizeof(*f));
    if (!f)
        return NULL;
    f->p = p;
    f->gpu = gpu_index;
    f->sim = s;
    f->hooks = h;
    fifo_rec_register(s);
    f->next_kernel_id = ((uint64_t)gpu_index << 48) + 1;
    f->sm_width = p->sm_count ? p->sm_count : 1;
    f->rls = calloc(p->engine_count, sizeof(*f->rls));
    bool ok = f->rls && idmap_init(&f->tsg_ids, p->max_channel_groups) && idmap_init(&f->chids, FIFO_CHID_LIMIT);
    for (uint32_t i = 0; ok && i < p->engine_count; i++) {
        const struct profile_engine *e = &p->engines[i];
        if (runlist_by_id(f, e->runlist_id))
            continue;
        struct fifo_runlist *rl = &f->rls[f->n_rls++];
        rl->f = f;
        rl->id = e->runlist_id;
        rl->engine_type = e->engine_type;
        rl->st.engine_type = e->engine_type;
        rl->st.runlist_id = e->runlist_id;
        rl->by_id = calloc(p->max_channel_groups, sizeof(*rl->by_id));
        ok = rl->by_id && idmap_init(&rl->tsg_ids, p->max_channel_groups) && idmap_init(&rl->chids, FIFO_CHID_LIMIT);
        if (ok)
            idmap_reserve(&rl->chids, p->reserved_chids);
    }
    if (ok)
        idmap_reserve(&f->chids, p->reserved_chids);
    if (!ok) {
        LOG_ERROR(COMP, "out of memory creating the FIFO of GPU %u", gpu_index);
        fifo_destroy(f);
        return NULL;
    }
    return f;
}

void fifo_destroy(struct fifo *f)
{
    if (!f)
        return;
    while (f->tsgs)
        fifo_tsg_destroy(f->tsgs);
    for (uint32_t i = 0; f->rls && i < f->n_rls; i++) {
        struct fifo_runlist *rl = &f->rls[i];
        sim_cancel(f->sim, rl->ev_rebuild);
        free(rl->by_id);
        free(rl->entries);
        free(rl->tsg_ids.bits);
        free(rl->chids.bits);
    }
    free(f->rls);
    free(f->tsg_ids.bits);
    free(f->chids.bits);
    free(f->owners);
    while (f->kchunks) {
        struct fifo_kchunk *n = f->kchunks->next;
        free(f->kchunks);
        f->kchunks = n;
    }
    free(f);
}

void fifo_set_inject_latency(struct fifo *f, bool on) { f->inject = on; }

void fifo_charge_latency(struct fifo *f, uint64_t ns)
{
    if (f->inject && ns)
        sim_charge_call(f->sim, ns);
}

const struct profile *fifo_profile(const struct fifo *f) { return f->p; }
uint32_t fifo_gpu_index(const struct fifo *f) { return f->gpu; }

/* ---- channel groups ---- */

static struct fifo_idmap *tsg_space(struct fifo *f, struct fifo_runlist *rl)
{
    return f->p->per_runlist_chram ? &rl->tsg_ids : &f->tsg_ids;
}

static struct fifo_idmap *chid_space(struct fifo *f, struct fifo_runlist *rl)
{
    return f->p->per_runlist_chram ? &rl->chids : &f->chids;
}

NV_STATUS fifo_tsg_create(struct fifo *f, uint32_t engine_type, const struct fifo_creator *who,
                          struct fifo_tsg **out)
{
    struct fifo_runlist *rl = runlist_of_engine(f, engine_type);
    if (!rl) {
        LOG_INFO(COMP, "TSG for engine type 0x%x: no such engine on %s", engine_type, f->p->name);
        return NV_ERR_INVALID_ARGUMENT;
    }
    struct fifo_tsg *t = calloc(1, sizeof(*t));
    if (!t)
        return NV_ERR_NO_MEMORY;
    if (!idmap_alloc(tsg_space(f, rl), &t->hw_id)) {
        free(t);
        return NV_ERR_NO_FREE_FIFOS;
    }
    t->f = f;
    t->rl = rl;
    t->engine_type = engine_type;
    t->timeslice_us = f->p->default_timeslice_us;
    t->interleave = FIFO_INTERLEAVE_MEDIUM;
    if (who)
        t->who = *who;

    struct hook_task ht;
    fifo_hook_task(t, &ht);
    uint64_t ts = t->timeslice_us;
    uint32_t il = t->interleave;
    hooks_task_init(f->hooks, &ht, &ts, &il);
    t->timeslice_us = ts;
    t->interleave = il;
    t->timeslice_ns = fifo_effective_timeslice_ns(f->p, ts);

    t->next = f->tsgs;
    if (f->tsgs)
        f->tsgs->prev = t;
    f->tsgs = t;
    f->n_tsgs++;
    rl->by_id[t->hw_id] = t;
    rl->members++;
    fifo_trace(f, SIM_REC_TSG_CREATE, rl, t, SIM_NONE, t->timeslice_us, t->interleave);
    *out = t;
    return NV_OK;
}

/* Takes t off its runlist at once (destroy, rebind): the built list must not keep a stale pointer. */
static void tsg_detach(struct fifo_tsg *t)
{
    struct fifo_runlist *rl = t->rl;
    bool was_scheduled = t->scheduled;
    t->scheduled = false;
    t->in_list = false;
    tsg_refresh(t);
    rl_evict(t);
    uint32_t n = 0;
    for (uint32_t i = 0; i < rl->n_entries; i++) {
        if (rl->entries[i] == t) {
            if (i <= rl->pos && rl->pos > 0)
                rl->pos--;
            continue;
        }
        rl->entries[n++] = rl->entries[i];
    }
    rl->n_entries = n;
    if (rl->pos >= n)
        rl->pos = n ? n - 1 : 0;
    rl->by_id[t->hw_id] = NULL;
    NVEMU_ASSERT(COMP, rl->members > 0);
    rl->members--;
    idmap_free(tsg_space(t->f, rl), t->hw_id);
    if (was_scheduled)
        rl_mark_dirty(rl);
    t->scheduled = was_scheduled;
}

static void channel_free(struct fifo_channel *c, bool detach_from_tsg);

void fifo_tsg_destroy(struct fifo_tsg *t)
{
    struct fifo *f = t->f;
    struct hook_task ht;
    fifo_hook_task(t, &ht);
    hooks_task_destroy(f->hooks, &ht);
    fifo_trace(f, SIM_REC_TSG_DESTROY, t->rl, t, SIM_NONE, 0, 0);
    tsg_detach(t);
    for (uint32_t i = 0; i < t->n_chans; i++)
        channel_free(t->chans[i], false);
    free(t->chans);
    if (t->prev)
        t->prev->next = t->next;
    else
        f->tsgs = t->next;
    if (t->next)
        t->next->prev = t->prev;
    NVEMU_ASSERT(COMP, f->n_tsgs > 0);
    f->n_tsgs--;
    free(t);
}

void fifo_tsg_get_info(const struct fifo_tsg *t, struct fifo_tsg_info *out)
{
    out->hw_id = t->hw_id;
    out->runlist_id = t->rl->id;
    out->engine_type = t->engine_type;
    out->timeslice_us = t->timeslice_us;
    out->timeslice_ns = t->timeslice_ns;
    out->interleave = t->interleave;
    out->realtime = t->realtime;
    out->scheduled = t->scheduled;
    out->disabled = !t->scheduled;
    out->running = tsg_on_engine(t);
    out->channel_count = t->n_chans;
    out->creator = t->who;
}

uint32_t fifo_tsg_hw_id(const struct fifo_tsg *t) { return t->hw_id; }
int32_t fifo_tsg_creator_tid(const struct fifo_tsg *t) { return t->who.tid; }
uint32_t fifo_tsg_channel_count(const struct fifo_tsg *t) { return t->n_chans; }
struct fifo *fifo_tsg_fifo(const struct fifo_tsg *t) { return t->f; }
void *fifo_tsg_user(const struct fifo_tsg *t) { return t->user; }
void fifo_tsg_set_user(struct fifo_tsg *t, void *user) { t->user = user; }
uint32_t fifo_tsg_count(const struct fifo *f) { return f->n_tsgs; }

uint32_t fifo_tsg_count_engine(const struct fifo *f, uint32_t engine_type)
{
    struct fifo_runlist *rl = runlist_of_engine((struct fifo *)f, engine_type);
    return rl ? rl->members : 0;
}

static bool tsg_bind_hook(struct fifo_tsg *t)
{
    struct hook_task ht;
    fifo_hook_task(t, &ht);
    return hooks_bind(t->f->hooks, &ht);
}

NV_STATUS fifo_tsg_schedule(struct fifo_tsg *t, bool enable, bool skip_submit, bool skip_enable)
{
    if (enable && skip_submit && skip_enable)
        return NV_ERR_INVALID_ARGUMENT;
    if (enable && !tsg_bind_hook(t))
        return NV_ERR_BUSY_RETRY;
    fifo_trace(t->f, SIM_REC_SCHEDULE, t->rl, t, SIM_NONE, enable, 0);
    if (enable) {
        t->scheduled = true;
        t->has_runlist = true;
        for (uint32_t i = 0; i < t->n_chans; i++) {
            struct fifo_channel *c = t->chans[i];
            c->bound = true;
            c->has_runlist = true;
            if (!skip_enable) {
                c->scheduled = true;
                c->enabled = true;
            }
            ch_refresh(c);
        }
    } else {
        t->scheduled = false;
        for (uint32_t i = 0; i < t->n_chans; i++) {
            t->chans[i]->scheduled = false;
            ch_refresh(t->chans[i]);
        }
        tsg_refresh(t);
        rl_preempt_tsg(t, FIFO_CAUSE_DISABLE);
    }
    tsg_refresh(t);
    if (!skip_submit)
        rl_mark_dirty(t->rl);
    return NV_OK;
}

NV_STATUS fifo_tsg_bind(struct fifo_tsg *t, uint32_t engine_type)
{
    struct fifo *f = t->f;
    struct fifo_runlist *to = runlist_of_engine(f, engine_type);
    if (!to)
        return NV_ERR_INVALID_ARGUMENT;
    t->engine_type = engine_type;
    t->has_runlist = true;
    for (uint32_t i = 0; i < t->n_chans; i++)
        t->chans[i]->has_runlist = true;
    if (to == t->rl)
        return NV_OK;
    uint32_t id;
    struct fifo_idmap *space = f->p->per_runlist_chram ? &to->tsg_ids : NULL;
    if (space && !idmap_alloc(space, &id))
        return NV_ERR_NO_FREE_FIFOS;
    uint32_t old_id = t->hw_id;
    /* the global id survives a rebind; keep it reserved while detaching frees it */
    tsg_detach(t);
    if (!space) {
        id = old_id;
        f->tsg_ids.bits[id / 64] |= 1ull << (id % 64);
    }
    t->rl = to;
    t->hw_id = id;
    to->by_id[id] = t;
    to->members++;
    tsg_refresh(t);
    rl_mark_dirty(to);
    return NV_OK;
}

static void apply_timeslice(struct fifo_tsg *t, uint64_t us)
{
    t->timeslice_us = us;
    t->timeslice_ns = fifo_effective_timeslice_ns(t->f->p, us);
    fifo_trace(t->f, SIM_REC_TIMESLICE_SET, t->rl, t, SIM_NONE, us, t->timeslice_ns);
    rl_timeslice_changed(t);
}

NV_STATUS fifo_tsg_set_timeslice(struct fifo_tsg *t, uint64_t us)
{
    struct hook_task ht;
    fifo_hook_task(t, &ht);
    hooks_timeslice_set(t->f->hooks, &ht, &us);
    apply_timeslice(t, us);
    return NV_OK;
}

uint64_t fifo_tsg_get_timeslice(const struct fifo_tsg *t) { return t->timeslice_us; }

static void apply_interleave(struct fifo_tsg *t, uint32_t level)
{
    t->interleave = level;
    fifo_trace(t->f, SIM_REC_INTERLEAVE_SET, t->rl, t, SIM_NONE, level, 0);
    if (t->scheduled)
        rl_mark_dirty(t->rl);
}

NV_STATUS fifo_tsg_set_interleave(struct fifo_tsg *t, uint32_t level)
{
    if (level > FIFO_INTERLEAVE_HIGH)
        return NV_ERR_INVALID_ARGUMENT;
    apply_interleave(t, level);
    return NV_OK;
}

NV_STATUS fifo_tsg_make_realtime(struct fifo_tsg *t, bool realtime)
{
    t->realtime = realtime;
    if (t->scheduled)
        rl_mark_dirty(t->rl);
    return NV_OK;
}

NV_STATUS fifo_tsg_preempt(struct fifo_tsg *t, bool wait, uint64_t timeout_ns)
{
    struct fifo *f = t->f;
    uint64_t now = sim_now(f->sim);
    uint64_t done = rl_preempt_tsg(t, FIFO_CAUSE_PREEMPT);
    if (!wait)
        return NV_OK;
    if (timeout_ns == 0)
        timeout_ns = f->p->timing.preempt_timeout_ns;
    /* H200: waiting on a group without channels never sees the preempt complete */
    if (t->n_chans == 0 || done - now > timeout_ns) {
        fifo_trace(f, SIM_REC_PREEMPT_TIMEOUT, t->rl, t, SIM_NONE, timeout_ns, done - now);
        sim_charge_call(f->sim, timeout_ns);
        return NV_ERR_TIMEOUT;
    }
    sim_charge_call(f->sim, done - now);
    return NV_OK;
}

/* ---- runlist scheduling policy ---- */

static void policy_changed(struct fifo *f, uint32_t policy)
{
    if (policy == f->policy)
        return;
    f->policy = policy;
    for (uint32_t i = 0; i < f->n_rls; i++)
        rl_mark_dirty(&f->rls[i]);
}

static bool owner_remove(struct fifo *f, const void *owner)
{
    for (uint32_t i = 0; i < f->n_owners; i++) {
        if (f->owners[i] == owner) {
            f->owners[i] = f->owners[--f->n_owners];
            return true;
        }
    }
    return false;
}

NV_STATUS fifo_set_sched_policy(struct fifo *f, uint32_t policy, bool restore, const void *owner)
{
    bool known = false;
    for (uint32_t i = 0; i < f->n_owners; i++)
        known |= f->owners[i] == owner;
    if (restore) {
        if (!known)
            return NV_ERR_INVALID_STATE;
        owner_remove(f, owner);
        if (f->n_owners == 0)
            policy_changed(f, FIFO_POLICY_DEFAULT);
        return NV_OK;
    }
    if (policy > FIFO_POLICY_CHANNEL_INTERLEAVED_WDDM)
        return NV_ERR_INVALID_ARGUMENT;
    /* the lock holds others off; its only holder may switch to another policy */
    bool sole_holder = known && f->n_owners == 1;
    if (f->n_owners && policy != f->policy && !sole_holder)
        return NV_ERR_INVALID_STATE;
    if (!known) {
        if (f->n_owners == f->cap_owners) {
            uint32_t ncap = f->cap_owners ? f->cap_owners * 2 : 4;
            const void **no = realloc(f->owners, ncap * sizeof(*no));
            if (!no)
                return NV_ERR_NO_MEMORY;
            f->owners = no;
            f->cap_owners = ncap;
        }
        f->owners[f->n_owners++] = owner;
    }
    policy_changed(f, policy);
    return NV_OK;
}

void fifo_sched_policy_owner_gone(struct fifo *f, const void *owner)
{
    if (owner_remove(f, owner) && f->n_owners == 0)
        policy_changed(f, FIFO_POLICY_DEFAULT);
}

uint32_t fifo_sched_policy(const struct fifo *f) { return f->policy; }

/* ---- channels ---- */

NV_STATUS fifo_channel_create(struct fifo_tsg *t, uint32_t hchannel, bool delay_schedule,
                              struct fifo_channel **out)
{
    struct fifo *f = t->f;
    if (t->n_chans >= f->p->max_channels_per_group)
        return NV_ERR_INSUFFICIENT_RESOURCES;
    if (t->n_chans == t->cap_chans) {
        uint32_t ncap = t->cap_chans ? t->cap_chans * 2 : 8;
        struct fifo_channel **nc = realloc(t->chans, ncap * sizeof(*nc));
        if (!nc)
            return NV_ERR_NO_MEMORY;
        t->chans = nc;
        t->cap_chans = ncap;
    }
    struct fifo_channel *c = calloc(1, sizeof(*c));
    if (!c)
        return NV_ERR_NO_MEMORY;
    if (!idmap_alloc(chid_space(f, t->rl), &c->chid)) {
        free(c);
        return NV_ERR_NO_FREE_FIFOS;
    }
    c->tsg = t;
    c->handle = hchannel;
    c->mode = f->p->default_compute_preempt_mode;
    c->enabled = true;
    c->bound = true;
    c->scheduled = !delay_schedule;
    c->has_runlist = t->has_runlist;
    t->chans[t->n_chans++] = c;
    fifo_trace(f, SIM_REC_CHANNEL_CREATE, t->rl, t, c->chid, hchannel, delay_schedule);
    *out = c;
    return NV_OK;
}

static void drop_kernel(struct fifo *f, struct fifo_channel *c, struct fifo_krec *k)
{
    struct sim_rec r = {
        .kind = SIM_REC_KERNEL_DONE, .gpu = (uint16_t)f->gpu, .engine = c->tsg->rl->engine_type,
        .runlist = c->tsg->rl->id, .tsg = c->tsg->hw_id, .chid = c->chid, .a = k->id,
        .b = sim_now(f->sim) - k->submit_t, .result = "dropped",
    };
    sim_trace(f->sim, &r);
    NVEMU_ASSERT(COMP, c->pending > 0);
    c->pending--;
    fifo_krec_free(f, k);
}

static void channel_free(struct fifo_channel *c, bool detach_from_tsg)
{
    struct fifo_tsg *t = c->tsg;
    struct fifo *f = t->f;
    struct fifo_runlist *rl = t->rl;
    if (rl->cur == t && rl->kcur && rl->kcur->ch == c)
        rl_evict(t);
    if (c->ready) {
        c->ready = false;
        NVEMU_ASSERT(COMP, t->ready_channels > 0);
        t->ready_channels--;
    }
    fifo_trace(f, SIM_REC_CHANNEL_DESTROY, rl, t, c->chid, c->handle, 0);
    while (c->head) {
        struct fifo_krec *k = c->head;
        c->head = k->next;
        drop_kernel(f, c, k);
    }
    idmap_free(chid_space(f, rl), c->chid);
    if (detach_from_tsg) {
        for (uint32_t i = 0; i < t->n_chans; i++) {
            if (t->chans[i] == c) {
                memmove(&t->chans[i], &t->chans[i + 1], (t->n_chans - i - 1) * sizeof(*t->chans));
                t->n_chans--;
                break;
            }
        }
        tsg_refresh(t);
    }
    free(c);
}

void fifo_channel_destroy(struct fifo_channel *c) { channel_free(c, true); }

uint32_t fifo_channel_chid(const struct fifo_channel *c) { return c->chid; }
struct fifo_tsg *fifo_channel_tsg(const struct fifo_channel *c) { return c->tsg; }
uint32_t fifo_channel_pending(const struct fifo_channel *c) { return c->pending; }

NV_STATUS fifo_channel_schedule(struct fifo_channel *c, bool enable, bool skip_submit, bool skip_enable)
{
    struct fifo_tsg *t = c->tsg;
    if (enable && skip_submit && skip_enable)
        return NV_ERR_INVALID_ARGUMENT;
    if (!enable) {
        c->scheduled = false;
        ch_refresh(c);
        return NV_OK;
    }
    /* a channel of an RM-allocated (implicit) TSG is scheduled through its own GPFIFO_SCHEDULE */
    if (!t->scheduled) {
        if (!tsg_bind_hook(t))
            return NV_ERR_BUSY_RETRY;
        t->scheduled = true;
        fifo_trace(t->f, SIM_REC_SCHEDULE, t->rl, t, c->chid, 1, 0);
        if (!skip_submit)
            rl_mark_dirty(t->rl);
    }
    c->bound = true;
    c->has_runlist = true;
    t->has_runlist = true;
    c->scheduled = true;
    if (!skip_enable)
        c->enabled = true;
    ch_refresh(c);
    tsg_refresh(t);
    return NV_OK;
}

NV_STATUS fifo_channel_bind(struct fifo_channel *c, uint32_t engine_type)
{
    struct fifo_runlist *rl = runlist_of_engine(c->tsg->f, engine_type);
    if (!rl)
        return NV_ERR_INVALID_ARGUMENT;
    if (rl != c->tsg->rl)
        return NV_ERR_INVALID_STATE;
    c->bound = true;
    c->has_runlist = true;
    ch_refresh(c);
    return NV_OK;
}

void fifo_channel_engine_object(struct fifo_channel *c) { c->has_runlist = true; }

NV_STATUS fifo_channel_restart_runlist(struct fifo_channel *c, bool force, bool bypass_wait)
{
    struct fifo_tsg *t = c->tsg;
    struct fifo_runlist *rl = t->rl;
    if (!force && rl->cur == t)
        return NV_OK;
    uint64_t now = sim_now(t->f->sim), done = rl_restart(rl);
    if (!bypass_wait)
        sim_charge_call(t->f->sim, done - now);
    return NV_OK;
}

NV_STATUS fifo_channel_stop(struct fifo_channel *c, bool immediate)
{
    struct fifo_tsg *t = c->tsg;
    c->enabled = false;
    c->scheduled = false;
    c->bound = false;
    fifo_trace(t->f, SIM_REC_DISABLE, t->rl, t, c->chid, 0, immediate);
    ch_refresh(c);
    if (tsg_on_engine(t)) {
        uint64_t now = sim_now(t->f->sim), done = rl_preempt_tsg(t, FIFO_CAUSE_STOP);
        if (!immediate)
            sim_charge_call(t->f->sim, done - now);
    }
    return NV_OK;
}

static void rewind_channel(struct fifo_channel *c)
{
    struct fifo *f = c->tsg->f;
    struct fifo_krec **pp = &c->head, *last = NULL;
    while (*pp) {
        struct fifo_krec *k = *pp;
        if (k->started) {
            last = k;
            pp = &k->next;
            continue;
        }
        *pp = k->next;
        drop_kernel(f, c, k);
    }
    c->tail = last;
}

NV_STATUS fifo_channel_disable(struct fifo_channel *c, bool disable, bool only_sched, bool rewind)
{
    struct fifo_tsg *t = c->tsg;
    if (!disable) {
        c->enabled = true;
        fifo_trace(t->f, SIM_REC_ENABLE, t->rl, t, c->chid, 0, 0);
        ch_refresh(c);
        return NV_OK;
    }
    c->enabled = false;
    fifo_trace(t->f, SIM_REC_DISABLE, t->rl, t, c->chid, only_sched, rewind);
    if (rewind)
        rewind_channel(c);
    ch_refresh(c);
    if (!only_sched && tsg_on_engine(t))
        rl_preempt_tsg(t, FIFO_CAUSE_DISABLE);
    return NV_OK;
}

NV_STATUS fifo_channel_set_preempt_mode(struct fifo_channel *c, uint32_t mode)
{
    if (mode > FIFO_PREEMPT_CILP)
        return NV_ERR_INVALID_ARGUMENT;
    c->mode = mode;
    return NV_OK;
}

static void work_submit_hook(struct fifo_channel *c, enum hook_submit_kind kind)
{
    struct fifo_tsg *t = c->tsg;
    if (!hooks_active(t->f->hooks))
        return;
    struct hook_task ht;
    fifo_hook_task(t, &ht);
    uint64_t ts = t->timeslice_us;
    uint32_t il = t->interleave;
    if (!hooks_work_submit_decide(t->f->hooks, &ht, c->chid, kind, &ts, &il))
        return;
    if (ts != t->timeslice_us)
        apply_timeslice(t, ts);
    if (il != t->interleave && il <= FIFO_INTERLEAVE_HIGH)
        apply_interleave(t, il);
}

NV_STATUS fifo_channel_work_submit_token(struct fifo_channel *c, uint32_t *token)
{
    if (!c->has_runlist)
        return NV_ERR_INVALID_STATE;
    *token = (c->tsg->rl->id << 16) | (c->chid & 0xFFFu);
    work_submit_hook(c, HOOK_SUBMIT_TOKEN_REQUEST);
    return NV_OK;
}

/* ---- work ---- */

static struct fifo_krec *krec_alloc(struct fifo *f)
{
    if (!f->kfree) {
        struct fifo_kchunk *ch = malloc(sizeof(*ch));
        if (!ch)
            return NULL;
        ch->next = f->kchunks;
        f->kchunks = ch;
        size_t n = sizeof(ch->recs) / sizeof(ch->recs[0]);
        for (size_t i = 0; i < n; i++) {
            ch->recs[i].next = f->kfree;
            f->kfree = &ch->recs[i];
        }
    }
    struct fifo_krec *k = f->kfree;
    f->kfree = k->next;
    memset(k, 0, sizeof(*k));
    return k;
}

void fifo_krec_free(struct fifo *f, struct fifo_krec *k)
{
    k->next = f->kfree;
    f->kfree = k;
}

uint32_t fifo_kernel_occupancy(const struct profile *p, const struct fifo_kernel *k, uint32_t *smem_bytes)
{
    const struct profile_timing *tm = &p->timing;
    *smem_bytes = k->shared_kb * 1024u;
    if ((!k->threads && !k->regs && !k->blocks_per_sm) || !tm->sm_threads || !tm->sm_regs || !tm->sm_shared_kb)
        return 1;
    uint32_t threads = k->threads ? k->threads : 1024u, regs = k->regs ? k->regs : tm->kernel_regs;
    uint32_t warps = (threads + 31) / 32, warp_regs = (regs * 32u + 255u) / 256u * 256u;
    uint32_t fit = tm->sm_threads / (warps * 32u);
    if (warp_regs && tm->sm_regs / (warp_regs * warps) < fit)
        fit = tm->sm_regs / (warp_regs * warps);
    uint32_t by_smem = tm->sm_shared_kb * 1024u / (*smem_bytes + 1024u);
    fit = by_smem < fit ? by_smem : fit;
    fit = tm->sm_blocks && tm->sm_blocks < fit ? tm->sm_blocks : fit;
    fit = fit ? fit : 1;
    if (!k->blocks_per_sm || k->blocks_per_sm >= fit)
        return fit;
    uint32_t pad = tm->sm_shared_kb * 1024u / (k->blocks_per_sm + 1);
    *smem_bytes = pad > *smem_bytes ? pad : *smem_bytes;
    return k->blocks_per_sm;
}

/*
 * What a kernel costs the engine beyond its waves (fifo.h): its launch is processed while a kernel of its group
 * queued before it runs, or it starts the group's work from idle (the H200's short-kernels and validation alone
 * runs). Called before the kernel is queued.
 */
static uint64_t kernel_gap(const struct profile *p, const struct fifo_tsg *t, uint64_t waves, uint64_t *late_hide)
{
    const struct profile_timing *tm = &p->timing;
    uint64_t hidden = tm->kernel_gap_overlap_ns;
    if (tm->overlap_wave_ns)
        hidden = waves - 1 >= hidden / tm->overlap_wave_ns ? 0 : hidden - (waves - 1) * tm->overlap_wave_ns;
    if (!hidden)
        return tm->kernel_gap_ns;
    for (uint32_t i = 0; i < t->n_chans; i++)
        if (t->chans[i]->pending)
            return hidden < tm->kernel_gap_ns ? tm->kernel_gap_ns - hidden : 0;
    *late_hide = hidden < tm->kernel_gap_ns ? hidden : tm->kernel_gap_ns;
    return tm->kernel_gap_ns;
}

NV_STATUS fifo_submit(struct fifo_channel *c, const struct fifo_kernel *kd, fifo_done_fn fn, void *ctx,
                      uint64_t *kernel_id)
{
    struct fifo_tsg *t = c->tsg;
    struct fifo *f = t->f;
    if (f->lost)
        return NV_ERR_GPU_IS_LOST;
    struct fifo_krec *k = krec_alloc(f);
    if (!k)
        return NV_ERR_NO_MEMORY;
    uint64_t blocks = kd->blocks ? kd->blocks : 1;
    uint32_t smem_b;
    uint64_t bps = fifo_kernel_occupancy(f->p, kd, &smem_b);
    uint64_t per_wave = f->sm_width * bps;
    uint64_t waves = (blocks + per_wave - 1) / per_wave;
    /* a grid smaller than a wave leaves fewer blocks on each SM */
    uint64_t resident = blocks < per_wave ? (blocks + f->sm_width - 1) / f->sm_width : bps;
    if (kd->block_ns) {
        k->wave_ns = kd->block_ns;
        k->total_ns = waves * kd->block_ns;
    } else {
        k->total_ns = kd->total_ns;
        k->wave_ns = kd->total_ns / waves ? kd->total_ns / waves : 1;
    }
    k->late_hide = 0;
    k->total_ns += kernel_gap(f->p, t, waves, &k->late_hide);
    k->shared_kb = (uint32_t)(resident * smem_b / 1024u);
    k->thread_bytes = kd->threads ? smem_b / kd->threads : smem_b / 1024u;
    k->sms = (uint32_t)(blocks < per_wave ? (blocks + bps - 1) / bps : f->sm_width);
    k->one_wave = waves == 1;
    k->remaining_ns = k->total_ns;
    k->id = f->next_kernel_id++;
    k->tag = kd->tag;
    k->submit_t = sim_now(f->sim);
    k->fn = fn;
    k->ctx = ctx;
    k->ch = c;
    if (c->tail)
        c->tail->next = k;
    else
        c->head = k;
    c->tail = k;
    c->pending++;
    rl_work_queued(t);
    if (kernel_id)
        *kernel_id = k->id;
    fifo_trace(f, SIM_REC_SUBMIT, t->rl, t, c->chid, k->id, k->total_ns);
    work_submit_hook(c, HOOK_SUBMIT_WORK);
    ch_refresh(c);
    return NV_OK;
}

/* ---- GPU lost ---- */

void fifo_gpu_lost(struct fifo *f)
{
    if (f->lost)
        return;
    f->lost = true;
    for (uint32_t i = 0; i < f->n_rls; i++)
        rl_stop(&f->rls[i]);
    /* take every queued kernel (the running ones head their queues) off its channel first: the
     * callbacks below may submit (refused now) or free objects */
    struct fifo_krec *failed = NULL, **tail = &failed;
    uint64_t n = 0, now = sim_now(f->sim);
    for (struct fifo_tsg *t = f->tsgs; t; t = t->next) {
        for (uint32_t i = 0; i < t->n_chans; i++) {
            struct fifo_channel *c = t->chans[i];
            for (struct fifo_krec *k = c->head; k; k = k->next) {
                struct sim_rec r = {
                    .kind = SIM_REC_KERNEL_DONE, .gpu = (uint16_t)f->gpu, .engine = t->rl->engine_type,
                    .runlist = t->rl->id, .tsg = t->hw_id, .chid = c->chid, .a = k->id,
                    .b = now - k->submit_t, .result = "gpu_lost",
                };
                sim_trace(f->sim, &r);
                n++;
            }
            if (c->head) {
                *tail = c->head;
                tail = &c->tail->next;
            }
            c->head = c->tail = NULL;
            c->pending = 0;
            ch_refresh(c);
        }
    }
    fifo_trace(f, SIM_REC_GPU_LOST, NULL, NULL, SIM_NONE, n, 0);
    LOG_WARN(COMP, "GPU %u lost: %llu kernels failed at %llu ns", f->gpu, (unsigned long long)n,
             (unsigned long long)now);
    while (failed) {
        struct fifo_krec *k = failed;
        failed = k->next;
        fifo_done_fn fn = k->fn;
        void *ctx = k->ctx;
        uint64_t id = k->id, tag = k->tag, submit_t = k->submit_t;
        fifo_krec_free(f, k);
        if (fn)
            fn(ctx, id, tag, submit_t, now);
    }
}

bool fifo_is_lost(const struct fifo *f) { return f->lost; }

/* ---- introspection ---- */

uint32_t fifo_runlist_get(const struct fifo *f, uint32_t runlist_id, uint32_t *tsg_ids, uint32_t max)
{
    const struct fifo_runlist *rl = runlist_by_id((struct fifo *)f, runlist_id);
    if (!rl)
        return 0;
    for (uint32_t i = 0; i < rl->n_entries && i < max; i++)
        tsg_ids[i] = rl->entries[i]->hw_id;
    return rl->n_entries;
}
