/*
 * A policy that fails inside a hook on purpose (mode=crash: a write through a null pointer; mode=hang: a
 * loop that never returns) in the hook named by at= (task_init, bind, or submit: the first work submission
 * at or after after_ms= of virtual time): the run must fail naming the plugin, the hook and, for a failure
 * mid-run, the virtual time, and still write its reports.
 */
#include <stdlib.h>
#include <string.h>

#include <nvemu/policy.h>

struct faulty {
    const struct policy_host *host;
    int hang;
    int at_bind, at_submit;
    unsigned long long after_ns;
};

static int f_init(void **state, const struct policy_host *host, const char *const *args, int nargs, char *err,
                  size_t errlen)
{
    (void)err;
    (void)errlen;
    struct faulty *f = calloc(1, sizeof *f);
    if (!f)
        return -1;
    f->host = host;
    for (int i = 0; i < nargs; i++) {
        f->hang |= strcmp(args[i], "mode=hang") == 0;
        f->at_bind |= strcmp(args[i], "at=bind") == 0;
        f->at_submit |= strcmp(args[i], "at=submit") == 0;
        if (strncmp(args[i], "after_ms=", 9) == 0)
            f->after_ns = strtoull(args[i] + 9, NULL, 10) * 1000000ull;
    }
    *state = f;
    return 0;
}

static void f_fini(void *state)
{
    free(state);
}

static void fail(const struct faulty *f)
{
    if (f->hang)
        for (volatile int spin = 1; spin;)
            ;
    /* A volatile pointer: the compiler cannot see that the store faults, so it keeps it (and does not warn). */
    volatile int *volatile nowhere = NULL;
    *nowhere = 1;
}

static void f_task_init(void *state, const struct hook_task *t, struct policy_ctx *c)
{
    (void)t;
    (void)c;
    const struct faulty *f = state;
    if (!f->at_bind && !f->at_submit)
        fail(state);
}

static void f_submit(void *state, const struct hook_task *t, uint32_t chid, enum hook_submit_kind kind,
                     struct policy_ctx *c)
{
    (void)t;
    (void)chid;
    (void)kind;
    (void)c;
    const struct faulty *f = state;
    if (f->at_submit && f->host->now_ns(f->host) >= f->after_ns)
        fail(state);
}

static void f_bind(void *state, const struct hook_task *t, struct policy_ctx *c)
{
    (void)t;
    (void)c;
    if (((struct faulty *)state)->at_bind)
        fail(state);
}

__attribute__((visibility("default"))) const struct policy_ops nvemu_policy = {
    .api_version = NVEMU_POLICY_API_VERSION,
    .size = sizeof(struct policy_ops),
    .name = "faulty",
    .init = f_init,
    .fini = f_fini,
    .on_task_init = f_task_init,
    .on_bind = f_bind,
    .on_work_submit = f_submit,
};
