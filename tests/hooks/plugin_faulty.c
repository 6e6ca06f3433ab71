/*
 * A policy that fails inside a hook on purpose (mode=crash: a write through a null pointer; mode=hang: a
 * loop that never returns) in the hook named by at= (task_init or bind): the run must fail naming the
 * plugin and the hook, and still write its reports.
 */
#include <stdlib.h>
#include <string.h>

#include <nvemu/policy.h>

struct faulty {
    int hang;
    int at_bind;
};

static int f_init(void **state, const struct policy_host *host, const char *const *args, int nargs, char *err,
                  size_t errlen)
{
    (void)host;
    (void)err;
    (void)errlen;
    struct faulty *f = calloc(1, sizeof *f);
    if (!f)
        return -1;
    for (int i = 0; i < nargs; i++) {
        f->hang |= strcmp(args[i], "mode=hang") == 0;
        f->at_bind |= strcmp(args[i], "at=bind") == 0;
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
    if (!((struct faulty *)state)->at_bind)
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
};
