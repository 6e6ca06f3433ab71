/*
 * An example out-of-tree nvemu policy: channel groups whose process name starts
 * with the `lc=` prefix keep a long timeslice, every other compute channel
 * group gets `be_us=` microseconds (default 100), so the LC work preempts the
 * rest quickly. Built against the installed SDK only (<nvemu/policy.h>).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <nvemu/policy.h>

struct short_be {
    const struct policy_host *host;
    char lc[16];
    unsigned long long be_us;
};

static int sb_init(void **state, const struct policy_host *host, const char *const *args, int nargs, char *err,
                   size_t errlen)
{
    struct short_be *p = calloc(1, sizeof *p);
    if (!p) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    p->host = host;
    p->be_us = 100;
    for (int i = 0; i < nargs; i++) {
        if (strncmp(args[i], "lc=", 3) == 0) {
            snprintf(p->lc, sizeof p->lc, "%s", args[i] + 3);
        } else if (strncmp(args[i], "be_us=", 6) == 0) {
            char *end;
            p->be_us = strtoull(args[i] + 6, &end, 10);
            unsigned long long min = host->min_timeslice_us > 1 ? host->min_timeslice_us : 1;
            if (*end || p->be_us < min) {
                snprintf(err, errlen, "be_us='%s' must be a number >= %llu", args[i] + 6, min);
                free(p);
                return -1;
            }
        } else {
            snprintf(err, errlen, "unknown argument '%s' (accepted: lc= be_us=)", args[i]);
            free(p);
            return -1;
        }
    }
    if (!p->lc[0]) {
        snprintf(err, errlen, "lc= is required");
        free(p);
        return -1;
    }
    *state = p;
    return 0;
}

static void sb_fini(void *state)
{
    free(state);
}

static void sb_task_init(void *state, const struct hook_task *t, struct policy_ctx *c)
{
    const struct short_be *p = state;
    if (t->engine_type < NVEMU_ENGINE_GR0 || t->engine_type > NVEMU_ENGINE_GR7)
        return;
    if (strncmp(t->comm, p->lc, strlen(p->lc)) == 0)
        p->host->set_interleave(c, NVEMU_INTERLEAVE_HIGH);
    else
        p->host->set_timeslice(c, p->be_us);
}

/* Keeps the BE timeslice against later SET_TIMESLICE calls (libcuda sets 2048 us after creating a context). */
static void sb_timeslice_set(void *state, const struct hook_task *t, uint64_t requested_us, struct policy_ctx *c)
{
    const struct short_be *p = state;
    (void)requested_us;
    if (t->engine_type >= NVEMU_ENGINE_GR0 && t->engine_type <= NVEMU_ENGINE_GR7 &&
        strncmp(t->comm, p->lc, strlen(p->lc)) != 0)
        p->host->replace_timeslice(c, p->be_us);
}

__attribute__((visibility("default"))) const struct policy_ops nvemu_policy = {
    .api_version = NVEMU_POLICY_API_VERSION,
    .size = sizeof(struct policy_ops),
    .name = "short_be",
    .init = sb_init,
    .fini = sb_fini,
    .on_task_init = sb_task_init,
    .on_timeslice_set = sb_timeslice_set,
};
