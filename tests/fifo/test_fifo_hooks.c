/* The FIFO model calls every hook at its place, applies validated decisions, and traces them. */
#include "fifo_test_util.h"

#include "hooks/policy_api.h"

struct pstate {
    const struct policy_host *host;
    unsigned work, token, destroyed, runlists;
};

static struct pstate g_state; /* the test's policy state; the ops table hands it to init */

static int p_init(void **state, const struct policy_host *host, const char *const *args, int nargs, char *err,
                  size_t errlen)
{
    (void)args;
    (void)nargs;
    (void)err;
    (void)errlen;
    memset(&g_state, 0, sizeof(g_state));
    g_state.host = host;
    *state = &g_state;
    return 0;
}

static void p_fini(void *state) { (void)state; }

static void p_task_init(void *state, const struct hook_task *t, struct policy_ctx *c)
{
    struct pstate *s = state;
    if (strcmp(t->comm, "lc") == 0) {
        s->host->set_timeslice(c, 500);
        s->host->set_interleave(c, 2);
    }
}

static void p_bind(void *state, const struct hook_task *t, struct policy_ctx *c)
{
    struct pstate *s = state;
    if (strcmp(t->comm, "deny") == 0)
        s->host->reject_bind(c);
}

static void p_work(void *state, const struct hook_task *t, uint32_t chid, enum hook_submit_kind kind,
                   struct policy_ctx *c)
{
    (void)t;
    (void)chid;
    (void)c;
    struct pstate *s = state;
    if (kind == HOOK_SUBMIT_WORK)
        s->work++;
    else
        s->token++;
}

static void p_timeslice_set(void *state, const struct hook_task *t, uint64_t requested_us, struct policy_ctx *c)
{
    (void)requested_us;
    struct pstate *s = state;
    if (strcmp(t->comm, "lc") == 0)
        s->host->replace_timeslice(c, 777);
}

static void p_runlist(void *state, uint32_t gpu, uint32_t runlist_id, const uint64_t *entries, uint32_t n,
                      struct policy_ctx *c)
{
    (void)gpu;
    (void)runlist_id;
    struct pstate *s = state;
    uint64_t rev[16];
    s->runlists++;
    if (n == 0 || n > 16)
        return;
    for (uint32_t i = 0; i < n; i++)
        rev[i] = entries[n - 1 - i];
    s->host->reorder_runlist(c, rev, n);
}

static void p_destroy(void *state, const struct hook_task *t)
{
    (void)t;
    ((struct pstate *)state)->destroyed++;
}

static const struct policy_ops test_ops = {
    .api_version = NVEMU_POLICY_API_VERSION,
    .size = sizeof(struct policy_ops),
    .name = "fifo-test",
    .init = p_init,
    .fini = p_fini,
    .on_task_init = p_task_init,
    .on_bind = p_bind,
    .on_work_submit = p_work,
    .on_timeslice_set = p_timeslice_set,
    .on_runlist_update = p_runlist,
    .on_task_destroy = p_destroy,
};

static struct fifo_tsg *named(struct fifo *f, const char *comm, struct fifo_channel **c)
{
    struct fifo_creator who = {.pid = 10, .tid = 11};
    strcpy(who.comm, comm);
    struct fifo_tsg *t;
    assert_int_equal(fifo_tsg_create(f, NV2080_ENGINE_TYPE_GR0, &who, &t), NV_OK);
    assert_int_equal(fifo_channel_create(t, 1, false, c), NV_OK);
    return t;
}

static unsigned hook_recs(struct sim *s, const char *hook)
{
    unsigned n = 0;
    for (size_t i = 0; i < sim_trace_count(s); i++) {
        const struct sim_rec *r = sim_trace_get(s, i);
        n += r->kind == SIM_REC_HOOK && r->name && strcmp(r->name, hook) == 0;
    }
    return n;
}

static void every_hook_is_called_at_its_driver_call_site(void **state)
{
    (void)state;
    struct profile p;
    test_profile(&p);
    struct sim_config sc = {.seed = 1, .keep_trace = true};
    struct sim *s = sim_create(&sc);
    struct hooks_env env;
    fifo_hooks_env_init(&env, &p, s);
    struct hooks *h = hooks_create(&env);
    assert_non_null(h);
    char err[128];
    assert_int_equal(hooks_attach_ops(h, &test_ops, NULL, 0, err, sizeof(err)), 0);
    struct fifo *f = fifo_create(&p, 0, s, h);
    assert_non_null(f);

    struct fifo_channel *c[4];
    struct fifo_tsg *lc = named(f, "lc", &c[0]);
    struct fifo_tsg *be = named(f, "be", &c[1]);
    struct fifo_tsg *be2 = named(f, "be2", &c[2]);
    struct fifo_tsg *deny = named(f, "deny", &c[3]);

    /* task_init decided before the defaults took effect */
    struct fifo_tsg_info ti;
    fifo_tsg_get_info(lc, &ti);
    assert_int_equal(ti.timeslice_us, 500);
    assert_int_equal(ti.timeslice_ns, 500 * US);
    assert_int_equal(ti.interleave, FIFO_INTERLEAVE_HIGH);
    fifo_tsg_get_info(be, &ti);
    assert_int_equal(ti.timeslice_us, 1024);
    assert_true(hook_recs(s, "task_init") >= 1);

    /* timeslice_set: libcuda's 2048 is replaced for the LC group only */
    assert_int_equal(fifo_tsg_set_timeslice(lc, 2048), NV_OK);
    assert_int_equal(fifo_tsg_get_timeslice(lc), 777);
    assert_int_equal(fifo_tsg_set_timeslice(be, 2048), NV_OK);
    assert_int_equal(fifo_tsg_get_timeslice(be), 2048);

    /* bind: a rejection is NV_ERR_BUSY_RETRY and leaves the group off the runlist */
    assert_int_equal(fifo_tsg_schedule(lc, true, false, false), NV_OK);
    assert_int_equal(fifo_tsg_schedule(be, true, false, false), NV_OK);
    assert_int_equal(fifo_tsg_schedule(be2, true, false, false), NV_OK);
    assert_int_equal(fifo_tsg_schedule(deny, true, false, false), NV_ERR_BUSY_RETRY);
    fifo_tsg_get_info(deny, &ti);
    assert_false(ti.scheduled);

    /* runlist_update: the policy's permutation is the hardware order */
    sim_run_until(s, 0);
    uint32_t ids[8];
    assert_int_equal(fifo_runlist_get(f, 0, ids, 8), 3);
    assert_int_equal(ids[0], fifo_tsg_hw_id(be2));
    assert_int_equal(ids[1], fifo_tsg_hw_id(be));
    assert_int_equal(ids[2], fifo_tsg_hw_id(lc));
    assert_true(g_state.runlists >= 1);

    /* work_submit: every submission and every token request */
    submit(c[0], 1, 10 * US);
    submit(c[1], 1, 10 * US);
    uint32_t token;
    assert_int_equal(fifo_channel_work_submit_token(c[2], &token), NV_OK);
    assert_int_equal(g_state.work, 2);
    assert_int_equal(g_state.token, 1);
    sim_run_until(s, 10 * MS);
    assert_int_equal(count_rec(s, SIM_REC_KERNEL_DONE, SIM_NONE), 2);

    /* task_destroy before each group goes away */
    fifo_destroy(f);
    assert_int_equal(g_state.destroyed, 4);
    hooks_destroy(h);
    sim_destroy(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_hook_is_called_at_its_driver_call_site),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
