/*
 * The policy adapter's state and the functions its files share; not part of the module's interface
 * (bpf_policy.h is).
 */
#ifndef NVEMU_BPF_POLICY_INTERNAL_H
#define NVEMU_BPF_POLICY_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bpf/bpf_abi.h"
#include "bpf/bpf_attach.h"
#include "bpf/bpf_obj.h"
#include "bpf/bpf_policy.h"
#include "bpf/bpf_vm.h"
#include "bpf/bpf_wq.h"
#include "nvemu/policy.h"

struct bpf_policy {
    const struct policy_host *host;
    struct bpf_obj *obj;
    struct bpf_vm_env env;
    uint64_t prng;
    uint64_t insn_budget;
    /* the callback in progress */
    int member;
    const char *hook;
    const struct hook_task *t;         /* "current": the caller the helpers answer for */
    const struct hook_task *group;     /* the channel group trace records name, NULL when none */
    struct policy_ctx *pc;
    void *ctx;
    const struct bpf_attach_event *ev; /* the probe event in progress, NULL in a struct_ops callback */
    struct bpf_wqs wqs;                /* bpf_wq work of the programs, run when the event's programs returned */
    bool in_wq;
    /* where each program runs: its site (-1: never fired) and, for uprobes, the LIB:FUNC it is attached to */
    int *site;
    char (*target)[160];
    uint32_t sites;                    /* bit per enum bpf_attach_site with a program */
    /* a fault ends the policy */
    bool dead;
    uint64_t runs, insns;
};

/* ---- bpf_policy_kfuncs.c ---- */

/* The kfunc table generation g's driver exports (the newest's, bpf_nv_kfuncs, for K4 or none chosen). */
const struct bpf_kfunc *bpf_policy_kfuncs_of(enum bpf_abi_gen g);

/* Per kfunc index: the member whose ctx that decision kfunc takes, -1 when it takes no ctx. */
extern const int bpf_policy_kfunc_member[BPF_NV_KFUNC_COUNT];

/* ---- bpf_policy_env.c ---- */

/* Fills p->env for p's object and host: helpers answer from the callback in progress, kfuncs of its target. */
void bpf_policy_env_init(struct bpf_policy *p);

/* The environment of a load-time check (no host): the caller adds kfuncs and a PRNG state. */
extern const struct bpf_vm_env bpf_policy_check_env;

/* ---- bpf_policy_check.c ---- */

/* What a program is called in messages: its ops member, or its program type and target (in buf). */
const char *bpf_policy_prog_role(const struct bpf_obj_prog *p, char *buf, size_t len);

/* 0 when every program that runs passes the kfunc-ctx rule, the load-time check and the verifier; else -1, why. */
int bpf_policy_check_object(const struct bpf_obj *obj, const struct bpf_vm_env *env, char *err, size_t errlen);

/* The object opened for generation want, or the newest that loads it (want NONE); NULL with why in err. */
struct bpf_obj *bpf_policy_open_for_driver(const char *path, enum bpf_abi_gen want, char *err, size_t errlen);

/* ---- bpf_policy_run.c: the policy_ops callbacks (state: a struct bpf_policy) ---- */

void bpf_policy_on_task_init(void *state, const struct hook_task *t, struct policy_ctx *c);
void bpf_policy_on_bind(void *state, const struct hook_task *t, struct policy_ctx *c);
void bpf_policy_on_timeslice_set(void *state, const struct hook_task *t, uint64_t requested_us, struct policy_ctx *c);
void bpf_policy_on_task_destroy(void *state, const struct hook_task *t);
void bpf_policy_on_work_submit(void *state, const struct hook_task *t, uint32_t chid, enum hook_submit_kind kind,
                               struct policy_ctx *c);

/* ---- bpf_policy_report.c ---- */

/* The object's maps and global data as JSON, malloc'd (policy_ops.report_json); NULL when out of memory. */
char *bpf_policy_report_json(void *state);

#endif
