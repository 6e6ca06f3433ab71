/*
 * Class-based timeslice policy: a channel group whose creator's process name
 * matches the `lc` patterns is latency-critical, `be` best-effort. The class
 * decides the timeslice (and optionally the interleave level) at task_init and
 * — unless hold=0 — keeps it against later SET_TIMESLICE calls through
 * timeslice_set (libcuda issues SET_TIMESLICE 2048 us after creating its
 * compute channel group, which would otherwise undo the task_init decision).
 *
 * The same source builds two plugins:
 *   lc_be_timeslice  defaults LC 1 s / BE 200 us (gpu_ext's multi-tenant experiment)
 *   gpreempt         defaults LC 1,000,000 us / BE 1 us (GPreempt's set_priority values)
 *
 * Arguments: lc=PATTERNS be=PATTERNS (comma-separated fnmatch patterns on the
 * process name; the scenario runner sets one name per synthetic task),
 * default=none|lc|be (class of an unmatched name), lc_us= be_us=,
 * lc_il= be_il= (0 LOW, 1 MEDIUM, 2 HIGH; absent = no interleave decision),
 * hold=0|1, engines=gr|all (which channel groups are classified).
 */
#include <stdio.h>
#include <stdlib.h>

#include "policy_util.h"

#ifndef LCBE_NAME
#define LCBE_NAME "lc_be_timeslice"
#define LCBE_LC_US 1000000u
#define LCBE_BE_US 200u
#endif

#define NO_LEVEL UINT64_MAX

struct lcbe {
    const struct policy_host *host;
    struct pu_classifier cls;
    uint64_t us[3];        /* indexed by enum pu_class */
    uint64_t il[3];        /* NO_LEVEL: no interleave decision */
    bool hold;
    struct pu_table tasks;
};

static void lcbe_fini(void *state)
{
    struct lcbe *p = state;
    if (!p)
        return;
    pu_classifier_free(&p->cls);
    pu_clear(&p->tasks);
    free(p);
}

static int lcbe_init(void **state, const struct policy_host *host, const char *const *args, int nargs,
                     char *err, size_t errlen)
{
    enum { A_LC, A_BE, A_DEFAULT, A_LC_US, A_BE_US, A_LC_IL, A_BE_IL, A_HOLD, A_ENGINES, A_COUNT };
    struct pu_arg a[A_COUNT] = {
        [A_LC] = {"lc", NULL}, [A_BE] = {"be", NULL}, [A_DEFAULT] = {"default", NULL},
        [A_LC_US] = {"lc_us", NULL}, [A_BE_US] = {"be_us", NULL}, [A_LC_IL] = {"lc_il", NULL},
        [A_BE_IL] = {"be_il", NULL}, [A_HOLD] = {"hold", NULL}, [A_ENGINES] = {"engines", NULL},
    };
    if (pu_args_parse(a, A_COUNT, args, nargs, err, errlen) != 0)
        return -1;
    struct lcbe *p = calloc(1, sizeof *p);
    if (!p) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    p->host = host;
    p->us[PU_LC] = LCBE_LC_US;
    p->us[PU_BE] = LCBE_BE_US;
    p->il[PU_NONE] = p->il[PU_LC] = p->il[PU_BE] = NO_LEVEL;
    uint64_t hold = 1;
    if (pu_arg_u64(&a[A_LC_US], &p->us[PU_LC], 1, UINT32_MAX, err, errlen) ||
        pu_arg_u64(&a[A_BE_US], &p->us[PU_BE], 1, UINT32_MAX, err, errlen) ||
        pu_arg_u64(&a[A_LC_IL], &p->il[PU_LC], 0, 2, err, errlen) ||
        pu_arg_u64(&a[A_BE_IL], &p->il[PU_BE], 0, 2, err, errlen) ||
        pu_arg_u64(&a[A_HOLD], &hold, 0, 1, err, errlen) ||
        pu_classifier_init(&p->cls, a[A_LC].value, a[A_BE].value, a[A_DEFAULT].value, a[A_ENGINES].value, err,
                           errlen)) {
        lcbe_fini(p);
        return -1;
    }
    p->hold = hold != 0;
    const char *never = pu_classifier_unmatchable(&p->cls);
    if (never)
        pu_log(host, POLICY_LOG_WARN, "pattern '%s' can never match: a process name is at most %d bytes", never,
               PU_COMM_MAX);
    if (p->cls.lc.n == 0 && p->cls.be.n == 0 && p->cls.default_cls == PU_NONE) {
        snprintf(err, errlen, "nothing to classify: give lc=, be= or default=");
        lcbe_fini(p);
        return -1;
    }
    for (int c = PU_LC; c <= PU_BE; c++) {
        if (p->us[c] < host->min_timeslice_us)
            pu_log(host, POLICY_LOG_WARN, "%s_us=%llu is below the profile minimum %llu us: such decisions will be rejected",
                   c == PU_LC ? "lc" : "be", (unsigned long long)p->us[c], (unsigned long long)host->min_timeslice_us);
    }
    pu_log(host, POLICY_LOG_INFO, "LC %llu us, BE %llu us, hold=%d", (unsigned long long)p->us[PU_LC],
           (unsigned long long)p->us[PU_BE], p->hold);
    *state = p;
    return 0;
}

static void lcbe_task_init(void *state, const struct hook_task *t, struct policy_ctx *c)
{
    struct lcbe *p = state;
    int cls = pu_classify(&p->cls, t);
    if (cls == PU_NONE)
        return;
    struct pu_entry *e = pu_get(&p->tasks, t);
    if (e)
        e->cls = cls;
    p->host->set_timeslice(c, p->us[cls]);
    if (p->il[cls] != NO_LEVEL)
        p->host->set_interleave(c, (uint32_t)p->il[cls]);
}

static void lcbe_timeslice_set(void *state, const struct hook_task *t, uint64_t requested_us, struct policy_ctx *c)
{
    struct lcbe *p = state;
    (void)requested_us;
    if (!p->hold)
        return;
    struct pu_entry *e = pu_find(&p->tasks, t);
    int cls = e ? e->cls : pu_classify(&p->cls, t);
    if (cls != PU_NONE)
        p->host->replace_timeslice(c, p->us[cls]);
}

static void lcbe_task_destroy(void *state, const struct hook_task *t)
{
    struct lcbe *p = state;
    pu_remove(&p->tasks, t);
}

/* lcbe_init's keys, in its order: what `scenario check` reads from the file */
__attribute__((visibility("default"))) const char nvemu_policy_arg_keys[] =
    "lc be default lc_us be_us lc_il be_il hold engines";

__attribute__((visibility("default"))) const struct policy_ops nvemu_policy = {
    .api_version = NVEMU_POLICY_API_VERSION,
    .size = sizeof(struct policy_ops),
    .name = LCBE_NAME,
    .init = lcbe_init,
    .fini = lcbe_fini,
    .on_task_init = lcbe_task_init,
    .on_timeslice_set = lcbe_timeslice_set,
    .on_task_destroy = lcbe_task_destroy,
};
