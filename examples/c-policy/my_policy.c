/*
 * A starting point for an nvemu policy plugin (`nvemu init c DIR` writes this project): channel groups of
 * processes matching the `lc=` patterns keep a long timeslice, those matching `be=` get `be_us=`
 * microseconds, at creation and against every later SET_TIMESLICE (libcuda sets 2048 us after creating a
 * context). Built against the installed SDK only: <nvemu/policy.h> (the plugin ABI) and <nvemu/policy_util.h>
 * (argument parsing, process-name patterns; compiled into the plugin from libnvemu-policy-util.a).
 */
#include <stdio.h>
#include <stdlib.h>

#include <nvemu/policy.h>
#include <nvemu/policy_util.h>

struct my_policy {
    const struct policy_host *host;
    struct pu_classifier classes;
    uint64_t lc_us, be_us;
};

static int mp_init(void **state, const struct policy_host *host, const char *const *args, int nargs, char *err,
                   size_t errlen)
{
    struct pu_arg keys[] = {{"lc", NULL}, {"be", NULL}, {"lc_us", NULL}, {"be_us", NULL}};
    if (pu_args_parse(keys, 4, args, nargs, err, errlen))
        return -1;
    struct my_policy *p = calloc(1, sizeof *p);
    if (!p) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    p->host = host;
    p->lc_us = 1000000;
    p->be_us = 200;
    uint64_t min = host->min_timeslice_us > 1 ? host->min_timeslice_us : 1;
    if (pu_classifier_init(&p->classes, keys[0].value, keys[1].value, NULL, NULL, err, errlen) ||
        pu_arg_u64(&keys[2], &p->lc_us, min, 60000000, err, errlen) ||
        pu_arg_u64(&keys[3], &p->be_us, min, 60000000, err, errlen)) {
        pu_classifier_free(&p->classes);
        free(p);
        return -1;
    }
    const char *never = pu_classifier_unmatchable(&p->classes);
    if (never)
        pu_log(host, POLICY_LOG_WARN, "pattern '%s' can never match: a process name is at most %d bytes", never,
               PU_COMM_MAX);
    *state = p;
    return 0;
}

static void mp_fini(void *state)
{
    struct my_policy *p = state;
    pu_classifier_free(&p->classes);
    free(p);
}

/* The timeslice of t's class, or 0 for a channel group the policy leaves alone. */
static uint64_t class_us(const struct my_policy *p, const struct hook_task *t)
{
    switch (pu_classify(&p->classes, t)) {
    case PU_LC: return p->lc_us;
    case PU_BE: return p->be_us;
    default: return 0;
    }
}

static void mp_task_init(void *state, const struct hook_task *t, struct policy_ctx *c)
{
    const struct my_policy *p = state;
    uint64_t us = class_us(p, t);
    if (us)
        p->host->set_timeslice(c, us);
}

static void mp_timeslice_set(void *state, const struct hook_task *t, uint64_t requested_us, struct policy_ctx *c)
{
    const struct my_policy *p = state;
    (void)requested_us;
    uint64_t us = class_us(p, t);
    if (us)
        p->host->replace_timeslice(c, us);
}

__attribute__((visibility("default"))) const struct policy_ops nvemu_policy = {
    .api_version = NVEMU_POLICY_API_VERSION,
    .size = sizeof(struct policy_ops),
    .name = "my_policy",
    .init = mp_init,
    .fini = mp_fini,
    .on_task_init = mp_task_init,
    .on_timeslice_set = mp_timeslice_set,
};
