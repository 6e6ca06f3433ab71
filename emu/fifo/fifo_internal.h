/* Private state of the FIFO model, shared by fifo.c (objects, controls) and fifo_sched.c (engines). */
#ifndef NVEMU_FIFO_INTERNAL_H
#define NVEMU_FIFO_INTERNAL_H

#include "fifo/fifo.h"

struct fifo_krec {                 /* one queued kernel (pooled) */
    uint64_t id, tag, submit_t;
    uint64_t total_ns;
    uint64_t remaining_ns;         /* execution time left */
    uint64_t wave_ns;              /* CTA boundary spacing */
    uint32_t shared_kb;            /* shared memory of the resident blocks of an SM (KiB): save/restore cost */
    uint32_t thread_bytes;         /* shared memory per thread of a block: what each thread restores */
    uint32_t sms;                  /* SMs its blocks occupy (a grid under one wave leaves some empty) */
    bool one_wave;                 /* all its blocks run at once: a preemption near its boundary may take it */
    uint64_t late_hide;            /* the part of its full kernel gap a long enough wait in its queue hides */
    fifo_done_fn fn;
    void *ctx;
    struct fifo_channel *ch;
    struct fifo_krec *next;
    bool started;
};

struct fifo_idmap {                /* lowest-free id allocator (bitmap) */
    uint64_t *bits;
    uint32_t limit;
};

enum eng_state { ENG_IDLE = 0, ENG_SWITCH, ENG_RUN, ENG_PREEMPT };

struct fifo_runlist {
    struct fifo *f;
    uint32_t id;
    uint32_t engine_type;          /* first engine of the runlist (trace) */
    struct fifo_idmap tsg_ids;     /* used when per_runlist_chram */
    struct fifo_idmap chids;
    struct fifo_tsg **by_id;       /* member TSGs indexed by hw id (max_channel_groups) */
    uint32_t members;
    struct fifo_tsg **entries;     /* built runlist, repetitions included */
    uint32_t n_entries, cap_entries;
    uint32_t pos;                  /* entry of the TSG last picked */
    uint32_t runnable;             /* TSGs with runnable == true */
    bool has_realtime;
    sim_event_id ev_rebuild;

    /* engine */
    enum eng_state state;
    struct fifo_tsg *cur;          /* TSG switching in / running / being preempted */
    struct fifo_tsg *resident;     /* TSG whose context is loaded (no switch cost to resume) */
    struct fifo_krec *kcur;        /* kernel executing, NULL between kernels */
    uint64_t restored_kernel;      /* the cut kernel the running group's switch-in restored (id; 0: none) */
    uint64_t seg_start;            /* when kcur's current execution segment began */
    uint64_t slice_start;
    uint64_t last_kernel_t;        /* when cur began its last queued kernel (UINT64_MAX: it has more queued) */
    struct fifo_tsg *next;         /* picked when cur's slice expired: it takes the engine after the save */
    bool yielded;                  /* cur gave the engine up for want of work: the next pick is a yield's */
    uint64_t run_since;            /* when cur's load ended and it began to run */
    bool slice_lapsed;             /* cur's slice expired with nothing queued: not renewed until its next switch-in */
    uint64_t state_since;
    sim_event_id ev_switch, ev_slice, ev_kernel, ev_preempt;
    uint64_t preempt_done_t, preempt_req_t;
    uint32_t preempt_cause;
    bool switch_abort;             /* preempt requested while switching in */
    struct fifo_engine_stats st;
};

struct fifo_tsg {
    struct fifo *f;
    struct fifo_runlist *rl;
    uint32_t hw_id;
    uint32_t engine_type;
    uint64_t timeslice_us;         /* recorded */
    uint64_t timeslice_ns;         /* effective */
    uint32_t interleave;
    bool realtime;
    bool scheduled;                /* GPFIFO_SCHEDULE enabled: member of the runlist */
    bool in_list;                  /* present in the built runlist */
    bool runnable;
    bool has_runlist;              /* its channels have been given the runlist (new channels inherit it) */
    struct fifo_channel **chans;
    uint32_t n_chans, cap_chans;
    uint32_t ready_channels;
    uint64_t runnable_since;       /* when it last became runnable, or was switched out with work left */
    uint32_t saved_kb;             /* footprint of the kernel a CILP save interrupted: restored at switch-in */
    uint32_t saved_thread_bytes;   /* its shared memory per thread, restored by its own threads */
    bool cilp_saved;               /* a CILP save interrupted its kernel: its next switch-in restores the SMs' state */
    uint32_t saved_sms;            /* the SMs that kernel occupied: what the restore scales with */
    uint64_t cut_kernel;           /* the kernel that save interrupted (id) */
    uint64_t restore_end;          /* until when that restore still runs after its switch-in (restore_busy) */
    struct fifo_creator who;
    void *user;
    struct fifo_tsg *prev, *next;  /* all TSGs of the fifo */
};

struct fifo_channel {
    struct fifo_tsg *tsg;
    uint32_t chid;
    uint32_t handle;
    uint32_t mode;                 /* compute preemption mode */
    bool enabled, scheduled, bound, ready;
    bool has_runlist;              /* runlist assigned (schedule, bind, engine object); kept by STOP_CHANNEL */
    struct fifo_krec *head, *tail;
    uint32_t pending;
};

struct fifo_kchunk {
    struct fifo_kchunk *next;
    struct fifo_krec recs[256];
};

struct fifo {
    const struct profile *p;
    uint32_t gpu;
    struct sim *sim;
    struct hooks *hooks;
    bool inject;
    struct fifo_runlist *rls;
    uint32_t n_rls;
    struct fifo_idmap tsg_ids;     /* global spaces when !per_runlist_chram */
    struct fifo_idmap chids;
    struct fifo_tsg *tsgs;         /* list head */
    uint32_t n_tsgs;
    uint32_t policy;
    const void **owners;
    uint32_t n_owners, cap_owners;
    uint64_t next_kernel_id;
    struct fifo_krec *kfree;
    struct fifo_kchunk *kchunks;
    uint32_t sm_width;
    bool lost;                     /* fifo_gpu_lost: engines stopped for good */
};

/* fifo_sched.c */
void rl_mark_dirty(struct fifo_runlist *rl);
void rl_rebuild_now(struct fifo_runlist *rl);
void tsg_refresh(struct fifo_tsg *t);           /* recompute runnable, kick the engine */
void ch_refresh(struct fifo_channel *c);        /* recompute ready, then the TSG */
/* Starts preempting t off its engine when it is there; returns the completion time (now if not there). */
uint64_t rl_preempt_tsg(struct fifo_tsg *t, uint32_t cause);
/* Takes t off its engine immediately (destroy): no completion callbacks; forgets it as resident or next. */
void rl_evict(struct fifo_tsg *t);
uint64_t rl_restart(struct fifo_runlist *rl);   /* returns the preemption completion time */
void rl_stop(struct fifo_runlist *rl);          /* GPU lost: cancels every engine event, engine idle for good */
void rl_timeslice_changed(struct fifo_tsg *t);
void rl_work_queued(struct fifo_tsg *t);        /* a kernel was queued on t (slice renewal bookkeeping) */
bool tsg_on_engine(const struct fifo_tsg *t);
uint32_t ch_effective_mode(const struct fifo_channel *c);

/* fifo.c */
void fifo_hook_task(const struct fifo_tsg *t, struct hook_task *out);
void fifo_trace(struct fifo *f, enum sim_rec_kind kind, const struct fifo_runlist *rl, const struct fifo_tsg *t,
                uint32_t chid, uint64_t a, uint64_t b);
void fifo_krec_free(struct fifo *f, struct fifo_krec *k);

#endif
