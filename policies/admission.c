/*
 * Admission policy: at most max_lc latency-critical channel groups may be
 * scheduled at once. The bind hook (GPFIFO_SCHEDULE enable) admits an LC
 * channel group while fewer than max_lc are admitted and rejects it otherwise
 * — the caller gets NV_ERR_BUSY_RETRY and may retry after an admitted group is
 * destroyed. Best-effort and unclassified channel groups are always allowed.
 *
 * Arguments: max_lc=N (required), lc=PATTERNS be=PATTERNS (fnmatch on the
 * process name), default=none|lc|be, engines=gr|all.
 */
#include <stdio.h>
#include <stdlib.h>

#include "policy_util.h"

struct admission {
    const struct policy_host *host;
    uint64_t max_lc;
    uint64_t admitted;
    struct pu_classifier cls;
    struct pu_table tasks;
};

static void admission_fini(void *state)
{
    struct admission *p = state;
    if (!p)
        return;
    pu_classifier_free(&p->cls);
    pu_clear(&p->tasks);
    free(p);
}

static int admission_init(void **state, const struct policy_host *host, const char *const *args, int nargs,
                          char *err, size_t errlen)
{
    enum { A_MAX, A_LC, A_BE, A_DEFAULT, A_ENGINES, A_N };
    struct pu_arg a[A_N] = {
        [A_MAX] = {"max_lc", NULL}, [A_LC] = {"lc", NULL}, [A_BE] = {"be", NULL},
        [A_DEFAULT] = {"default", NULL}, [A_ENGINES] = {"engines", NULL},
    };
    if (pu_args_parse(a, A_N, args, nargs, err, errlen) != 0)
        return -1;
    if (!a[A_MAX].value) {
        snprintf(err, errlen, "max_lc= is required");
        return -1;
    }
    struct admission *p = calloc(1, sizeof *p);
    if (!p) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    p->host = host;
    if (pu_classifier_init(&p->cls, a[A_LC].value, a[A_BE].value, a[A_DEFAULT].value, a[A_ENGINES].value, err,
                           errlen) ||
        pu_arg_u64(&a[A_MAX], &p->max_lc, 0, 4096, err, errlen)) {
        admission_fini(p);
        return -1;
    }
    const char *never = pu_classifier_unmatchable(&p->cls);
    if (never)
        pu_log(host, POLICY_LOG_WARN, "pattern '%s' can never match: a process name is at most %d bytes", never,
               PU_COMM_MAX);
    if (p->cls.lc.n == 0 && p->cls.default_cls != PU_LC) {
        snprintf(err, errlen, "no channel group can be LC: give lc= or default=lc");
        admission_fini(p);
        return -1;
    }
    *state = p;
    return 0;
}

static void admission_bind(void *state, const struct hook_task *t, struct policy_ctx *c)
{
    struct admission *p = state;
    if (pu_classify(&p->cls, t) != PU_LC)
        return;
    struct pu_entry *e = pu_get(&p->tasks, t);
    if (e && e->admitted)
        return;
    if (!e || p->admitted >= p->max_lc) {
        pu_log(p->host, POLICY_LOG_INFO, "tsg %llu (%s): %llu of %llu LC channel groups admitted, BUSY_RETRY",
               (unsigned long long)t->tsg_id, t->comm, (unsigned long long)p->admitted,
               (unsigned long long)p->max_lc);
        p->host->reject_bind(c);
        return;
    }
    e->admitted = true;
    p->admitted++;
}

static void admission_task_destroy(void *state, const struct hook_task *t)
{
    struct admission *p = state;
    struct pu_entry *e = pu_find(&p->tasks, t);
    if (e && e->admitted)
        p->admitted--;
    pu_remove(&p->tasks, t);
}

/* init's keys, in its order: what `scenario check` reads from the file */
__attribute__((visibility("default"))) const char nvemu_policy_arg_keys[] = "max_lc lc be default engines";

__attribute__((visibility("default"))) const struct policy_ops nvemu_policy = {
    .api_version = NVEMU_POLICY_API_VERSION,
    .size = sizeof(struct policy_ops),
    .name = "admission",
    .init = admission_init,
    .fini = admission_fini,
    .on_bind = admission_bind,
    .on_task_destroy = admission_task_destroy,
};
