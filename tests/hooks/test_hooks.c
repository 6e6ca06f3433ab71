/*
 * Hook framework: every call site with and without a policy, and every
 * validation rule (apply / repeat / conflict / range / action / permutation),
 * plus plugin loading errors.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "base/deadline.h"
#include "hooks/policy_api.h"
#include "hooks_testenv.h"

/* ---- a scripted policy: each callback performs the actions the test put in `script` ---- */

enum act { ACT_END = 0, ACT_SET_TS, ACT_SET_IL, ACT_REJECT_BIND, ACT_REPLACE_TS, ACT_REORDER };

struct action {
    enum act act;
    uint64_t value;
    const uint64_t *order;
    uint32_t n;
};

struct script {
    struct action task_init[4], bind[4], submit[4], tsset[4], runlist[4];
    int results[4];
    int nresults;
    int destroyed;
    int inited, finied;
    uint64_t seen_now;
    const struct policy_host *host;
};

static struct script script;

static void run(const struct action *a, struct policy_ctx *c)
{
    const struct policy_host *h = script.host;
    for (int i = 0; i < 4 && a[i].act != ACT_END; i++) {
        int r = -1;
        switch (a[i].act) {
        case ACT_SET_TS: r = h->set_timeslice(c, a[i].value); break;
        case ACT_SET_IL: r = h->set_interleave(c, (uint32_t)a[i].value); break;
        case ACT_REJECT_BIND: r = h->reject_bind(c); break;
        case ACT_REPLACE_TS: r = h->replace_timeslice(c, a[i].value); break;
        case ACT_REORDER: r = h->reorder_runlist(c, a[i].order, a[i].n); break;
        case ACT_END: break;
        }
        if (script.nresults < 4)
            script.results[script.nresults++] = r;
    }
}

static int s_init(void **state, const struct policy_host *host, const char *const *args, int nargs, char *err,
                  size_t errlen)
{
    script.host = host;
    script.inited++;
    for (int i = 0; i < nargs; i++) {
        if (strcmp(args[i], "fail=1") == 0) {
            snprintf(err, errlen, "told to fail");
            return -1;
        }
    }
    *state = &script;
    return 0;
}
static void s_fini(void *state) { ((struct script *)state)->finied++; }
static void s_task_init(void *st, const struct hook_task *t, struct policy_ctx *c) { (void)st; (void)t; run(script.task_init, c); }
static void s_bind(void *st, const struct hook_task *t, struct policy_ctx *c) { (void)st; (void)t; run(script.bind, c); }
static void s_submit(void *st, const struct hook_task *t, uint32_t chid, enum hook_submit_kind k, struct policy_ctx *c)
{
    (void)st; (void)t; (void)chid; (void)k;
    script.seen_now = script.host->now_ns(script.host);
    run(script.submit, c);
}
static void s_tsset(void *st, const struct hook_task *t, uint64_t req, struct policy_ctx *c) { (void)st; (void)t; (void)req; run(script.tsset, c); }
static void s_runlist(void *st, uint32_t gpu, uint32_t rl, const uint64_t *e, uint32_t n, struct policy_ctx *c)
{
    (void)st; (void)gpu; (void)rl; (void)e; (void)n;
    run(script.runlist, c);
}
static void s_destroy(void *st, const struct hook_task *t) { (void)st; (void)t; script.destroyed++; }

static const struct policy_ops scripted = {
    .api_version = NVEMU_POLICY_API_VERSION, .size = sizeof(struct policy_ops), .name = "scripted",
    .init = s_init, .fini = s_fini, .on_task_init = s_task_init, .on_bind = s_bind, .on_work_submit = s_submit,
    .on_timeslice_set = s_tsset, .on_runlist_update = s_runlist, .on_task_destroy = s_destroy,
};

struct fixture {
    struct testenv te;
    struct hooks *h;
};

static int setup(void **state)
{
    memset(&script, 0, sizeof script);
    struct fixture *f = calloc(1, sizeof *f);
    te_init(&f->te, 8);
    f->h = hooks_create(&f->te.env);
    char err[256];
    if (!f->h || hooks_attach_ops(f->h, &scripted, NULL, 0, err, sizeof err) != 0)
        return -1;
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *f = *state;
    hooks_destroy(f->h);
    free(f);
    return 0;
}

/* ---- native behaviour ---- */

static void no_policy_leaves_every_native_value(void **state)
{
    (void)state;
    struct testenv te;
    te_init(&te, 8);
    struct hooks *h = hooks_create(&te.env);
    assert_non_null(h);
    assert_false(hooks_active(h));
    assert_null(hooks_policy_name(h));
    struct hook_task t = te_task(1, "app");
    uint64_t ts = 1024;
    uint32_t il = 1;
    hooks_task_init(h, &t, &ts, &il);
    assert_int_equal(ts, 1024);
    assert_int_equal(il, 1);
    assert_true(hooks_bind(h, &t));
    hooks_work_submit(h, &t, 3, HOOK_SUBMIT_WORK);
    assert_false(hooks_work_submit_decide(h, &t, 3, HOOK_SUBMIT_TOKEN_REQUEST, &ts, &il));
    ts = 2048;
    hooks_timeslice_set(h, &t, &ts);
    assert_int_equal(ts, 2048);
    uint64_t rl[3] = {1, 2, 3};
    hooks_runlist_update(h, 0, 13, rl, 3);
    assert_int_equal(rl[0], 1);
    assert_int_equal(rl[2], 3);
    hooks_task_destroy(h, &t);
    assert_int_equal(te.nrec, 0);
    hooks_destroy(h);
    hooks_destroy(NULL);
}

/* Index of the first trace record (hook, field, result); the test fails when there is none. */
static int expect_rec(const struct fixture *f, const char *hook, const char *field, const char *result)
{
    int i = te_find(&f->te, hook, field, result);
    assert_true(i >= 0);
    return i;
}

/* expect_rec, and that record's reason must be `reason`. */
static int expect_reason(const struct fixture *f, const char *hook, const char *field, const char *result,
                         const char *reason)
{
    int i = expect_rec(f, hook, field, result);
    assert_string_equal(f->te.rec[i].reason, reason);
    return i;
}

/* task_init of channel group 4 ("lc") whose native values are 1024 us and interleave MEDIUM. */
static void task_init_native(struct fixture *f, uint64_t *ts, uint32_t *il)
{
    struct hook_task t = te_task(4, "lc");
    *ts = 1024;
    *il = 1;
    hooks_task_init(f->h, &t, ts, il);
}

/* ---- task_init ---- */

static void task_init_applies_timeslice_and_low_interleave(void **state)
{
    struct fixture *f = *state;
    script.task_init[0] = (struct action){ACT_SET_TS, 5000, NULL, 0};
    script.task_init[1] = (struct action){ACT_SET_IL, 0, NULL, 0};
    uint64_t ts;
    uint32_t il;
    task_init_native(f, &ts, &il);
    assert_int_equal(ts, 5000);
    assert_int_equal(il, 0); /* LOW is selectable (the old "apply only if != 0" bug) */
    assert_int_equal(script.results[0], POLICY_APPLY);
    assert_int_equal(script.results[1], POLICY_APPLY);
    int i = expect_rec(f, "task_init", "timeslice", "apply");
    assert_int_equal(f->te.rec[i].value, 5000);
    assert_int_equal(f->te.rec[i].tsg, 4);
    assert_true(te_find(&f->te, "task_init", "interleave", "apply") >= 0);
}

static void task_init_without_decision_keeps_native_values(void **state)
{
    struct fixture *f = *state;
    uint64_t ts;
    uint32_t il;
    task_init_native(f, &ts, &il);
    assert_int_equal(ts, 1024);
    assert_int_equal(il, 1);
    expect_reason(f, "task_init", "timeslice", "noop", "no decision");
}

static void task_init_same_value_twice_is_a_repeat_noop(void **state)
{
    struct fixture *f = *state;
    script.task_init[0] = (struct action){ACT_SET_TS, 5000, NULL, 0};
    script.task_init[1] = (struct action){ACT_SET_TS, 5000, NULL, 0};
    uint64_t ts;
    uint32_t il;
    task_init_native(f, &ts, &il);
    assert_int_equal(ts, 5000);
    assert_int_equal(script.results[1], POLICY_NOOP_REPEAT);
    int i = expect_reason(f, "task_init", "timeslice", "noop", "repeat");
    assert_true(te_find(&f->te, "task_init", "timeslice", "apply") > i);
}

static void test_task_init_conflict_keeps_native(void **state)
{
    struct fixture *f = *state;
    script.task_init[0] = (struct action){ACT_SET_TS, 5000, NULL, 0};
    script.task_init[1] = (struct action){ACT_SET_TS, 6000, NULL, 0};
    script.task_init[2] = (struct action){ACT_SET_TS, 5000, NULL, 0};
    uint64_t ts;
    uint32_t il;
    task_init_native(f, &ts, &il);
    assert_int_equal(ts, 1024);
    assert_int_equal(script.results[1], POLICY_NOOP_CONFLICT);
    assert_int_equal(te_find(&f->te, "task_init", "timeslice", "apply"), -1);
    int last = -1;
    for (int i = 0; i < f->te.nrec; i++) {
        if (strcmp(f->te.rec[i].field, "timeslice") == 0)
            last = i;
    }
    assert_true(last >= 0);
    assert_string_equal(f->te.rec[last].reason, "conflict, native value kept");
    assert_int_equal(f->te.rec[last].value, 1024);
}

static void task_init_out_of_range_values_are_rejected(void **state)
{
    struct fixture *f = *state;
    script.task_init[0] = (struct action){ACT_SET_TS, 7, NULL, 0};    /* below the minimum 8 */
    script.task_init[1] = (struct action){ACT_SET_IL, 3, NULL, 0};    /* not a level */
    uint64_t ts;
    uint32_t il;
    task_init_native(f, &ts, &il);
    assert_int_equal(ts, 1024);
    assert_int_equal(il, 1);
    /* the driver checks ranges after the callback: both calls answer APPLY, both end rejected */
    assert_int_equal(script.results[0], POLICY_APPLY);
    assert_int_equal(script.results[1], POLICY_APPLY);
    expect_reason(f, "task_init", "timeslice", "reject", "below minimum 8 us");
    expect_reason(f, "task_init", "interleave", "reject", "interleave not in {0,1,2}");
}

static void task_init_zero_timeslice_is_rejected_interleave_still_applies(void **state)
{
    struct fixture *f = *state;
    script.task_init[0] = (struct action){ACT_SET_TS, 0, NULL, 0};
    script.task_init[1] = (struct action){ACT_SET_IL, 2, NULL, 0};
    uint64_t ts;
    uint32_t il;
    task_init_native(f, &ts, &il);
    assert_int_equal(ts, 1024);
    assert_int_equal(il, 2);
    expect_reason(f, "task_init", "timeslice", "reject", "zero timeslice");
}

static void task_init_refuses_setters_of_other_hooks(void **state)
{
    struct fixture *f = *state;
    script.task_init[0] = (struct action){ACT_REJECT_BIND, 0, NULL, 0};
    script.task_init[1] = (struct action){ACT_REPLACE_TS, 4000, NULL, 0};
    uint64_t ts;
    uint32_t il;
    task_init_native(f, &ts, &il);
    assert_int_equal(ts, 1024);
    assert_int_equal(script.results[0], POLICY_REJECT_ACTION);
    assert_int_equal(script.results[1], POLICY_REJECT_ACTION);
    expect_reason(f, "task_init", "timeslice", "reject", "replace_timeslice not allowed in task_init");
}

/* ---- bind ---- */

static void bind_reject_refuses_the_bind_once_then_repeats(void **state)
{
    struct fixture *f = *state;
    struct hook_task t = te_task(4, "lc");
    assert_true(hooks_bind(f->h, &t));
    assert_true(te_find(&f->te, "bind", "allow", "noop") >= 0);
    script.bind[0] = (struct action){ACT_REJECT_BIND, 0, NULL, 0};
    script.bind[1] = (struct action){ACT_REJECT_BIND, 0, NULL, 0};
    assert_false(hooks_bind(f->h, &t));
    assert_int_equal(script.results[0], POLICY_APPLY);
    assert_int_equal(script.results[1], POLICY_NOOP_REPEAT);
    int i = expect_rec(f, "bind", "allow", "apply");
    assert_int_equal(f->te.rec[i].value, 0);
}

static void bind_refuses_timeslice_setter(void **state)
{
    struct fixture *f = *state;
    script.bind[0] = (struct action){ACT_SET_TS, 5000, NULL, 0};
    struct hook_task t = te_task(4, "lc");
    assert_true(hooks_bind(f->h, &t));
    assert_int_equal(script.results[0], POLICY_REJECT_ACTION);
}

/* ---- timeslice_set ---- */

static void timeslice_set_replacement_is_applied(void **state)
{
    struct fixture *f = *state;
    struct hook_task t = te_task(4, "lc");
    uint64_t ts = 2048;
    hooks_timeslice_set(f->h, &t, &ts);
    assert_int_equal(ts, 2048);
    script.tsset[0] = (struct action){ACT_REPLACE_TS, 1000000, NULL, 0};
    hooks_timeslice_set(f->h, &t, &ts);
    assert_int_equal(ts, 1000000);
    int i = expect_rec(f, "timeslice_set", "timeslice", "apply");
    assert_int_equal(f->te.rec[i].value, 1000000);
}

static void timeslice_set_invalid_or_conflicting_value_keeps_current(void **state)
{
    struct fixture *f = *state;
    struct hook_task t = te_task(4, "lc");
    uint64_t ts = 2048;
    script.tsset[0] = (struct action){ACT_REPLACE_TS, 1, NULL, 0};
    hooks_timeslice_set(f->h, &t, &ts);
    assert_int_equal(ts, 2048);
    assert_true(te_find(&f->te, "timeslice_set", "timeslice", "reject") >= 0);
    script.tsset[0] = (struct action){ACT_REPLACE_TS, 300, NULL, 0};
    script.tsset[1] = (struct action){ACT_REPLACE_TS, 400, NULL, 0};
    hooks_timeslice_set(f->h, &t, &ts);
    assert_int_equal(ts, 2048);
    script.tsset[0] = (struct action){ACT_SET_TS, 300, NULL, 0};
    script.tsset[1] = (struct action){ACT_END, 0, NULL, 0};
    hooks_timeslice_set(f->h, &t, &ts);
    assert_int_equal(ts, 2048);
}

/* ---- runlist_update ---- */

static void runlist_permutation_is_applied(void **state)
{
    struct fixture *f = *state;
    static const uint64_t order[5] = {7, 3, 3, 1, 9};
    uint64_t rl[5] = {1, 3, 7, 3, 9};
    script.runlist[0] = (struct action){ACT_REORDER, 0, order, 5};
    hooks_runlist_update(f->h, 0, 13, rl, 5);
    assert_memory_equal(rl, order, sizeof order);
    assert_int_equal(script.results[0], POLICY_APPLY);
    assert_true(te_find(&f->te, "runlist_update", "runlist", "apply") >= 0);
}

static void runlist_order_adding_or_dropping_entries_is_rejected(void **state)
{
    struct fixture *f = *state;
    static const uint64_t dropped[4] = {7, 3, 1, 9};
    static const uint64_t added[5] = {7, 3, 4, 1, 9};
    uint64_t rl[5] = {1, 3, 7, 3, 9};
    const uint64_t native[5] = {1, 3, 7, 3, 9};
    script.runlist[0] = (struct action){ACT_REORDER, 0, dropped, 4};
    hooks_runlist_update(f->h, 0, 13, rl, 5);
    assert_memory_equal(rl, native, sizeof native);
    assert_int_equal(script.results[0], POLICY_REJECT_RANGE);
    expect_reason(f, "runlist_update", "runlist", "reject", "order adds or drops entries");
    script.nresults = 0;
    script.runlist[0] = (struct action){ACT_REORDER, 0, added, 5};
    hooks_runlist_update(f->h, 0, 13, rl, 5);
    assert_memory_equal(rl, native, sizeof native);
    assert_int_equal(script.results[0], POLICY_REJECT_RANGE);
}

static void runlist_conflicting_orders_keep_native(void **state)
{
    struct fixture *f = *state;
    static const uint64_t a[3] = {3, 2, 1};
    static const uint64_t b[3] = {2, 3, 1};
    uint64_t rl[3] = {1, 2, 3};
    script.runlist[0] = (struct action){ACT_REORDER, 0, a, 3};
    script.runlist[1] = (struct action){ACT_REORDER, 0, b, 3};
    hooks_runlist_update(f->h, 0, 13, rl, 3);
    assert_int_equal(rl[0], 1);
    assert_int_equal(rl[1], 2);
    assert_int_equal(script.results[1], POLICY_NOOP_CONFLICT);
}

/* ---- work_submit ---- */

static void work_submit_decision_changes_timeslice_once(void **state)
{
    struct fixture *f = *state;
    f->te.now_ns = 123456;
    script.submit[0] = (struct action){ACT_SET_TS, 1000000, NULL, 0};
    struct hook_task t = te_task(4, "lc");
    uint64_t ts = 1024;
    uint32_t il = 1;
    assert_true(hooks_work_submit_decide(f->h, &t, 2, HOOK_SUBMIT_WORK, &ts, &il));
    assert_int_equal(ts, 1000000);
    assert_int_equal(il, 1);
    assert_int_equal(script.seen_now, 123456);
    expect_reason(f, "work_submit", "kind", "noop", "work");
    /* the same value again changes nothing */
    assert_false(hooks_work_submit_decide(f->h, &t, 2, HOOK_SUBMIT_TOKEN_REQUEST, &ts, &il));
    assert_true(te_find(&f->te, "work_submit", "timeslice", "noop") >= 0);
    int j = -1;
    for (int k = 0; k < f->te.nrec; k++) {
        if (strcmp(f->te.rec[k].reason, "token_request") == 0)
            j = k;
    }
    assert_true(j >= 0);
}

static void work_submit_without_outputs_rejects_setter(void **state)
{
    struct fixture *f = *state;
    script.submit[0] = (struct action){ACT_SET_TS, 1000000, NULL, 0};
    struct hook_task t = te_task(4, "lc");
    hooks_work_submit(f->h, &t, 2, HOOK_SUBMIT_WORK);
    assert_int_equal(script.results[0], POLICY_REJECT_ACTION);
    expect_reason(f, "work_submit", "timeslice", "reject", "set_timeslice not allowed in work_submit");
}

/* ---- task_destroy ---- */

static void task_destroy_reaches_policy_every_time(void **state)
{
    struct fixture *f = *state;
    struct hook_task t = te_task(4, "lc");
    hooks_task_destroy(f->h, &t);
    hooks_task_destroy(f->h, &t);
    assert_int_equal(script.destroyed, 2);
}

/* ---- attaching and loading ---- */

static void attach_refuses_bad_version_size_args_and_second_policy(void **state)
{
    (void)state;
    memset(&script, 0, sizeof script);
    struct testenv te;
    te_init(&te, 8);
    struct hooks *h = hooks_create(&te.env);
    char err[256];

    struct policy_ops wrong = scripted;
    wrong.api_version = NVEMU_POLICY_API_VERSION + 1;
    assert_int_equal(hooks_attach_ops(h, &wrong, NULL, 0, err, sizeof err), -1);
    assert_non_null(strstr(err, "API version"));

    struct policy_ops small = scripted;
    small.size = 16;
    assert_int_equal(hooks_attach_ops(h, &small, NULL, 0, err, sizeof err), -1);
    assert_non_null(strstr(err, "smaller"));

    const char *bad_args[] = {"novalue"};
    assert_int_equal(hooks_attach_ops(h, &scripted, bad_args, 1, err, sizeof err), -1);
    assert_non_null(strstr(err, "not key=value"));

    const char *fail_args[] = {"fail=1"};
    assert_int_equal(hooks_attach_ops(h, &scripted, fail_args, 1, err, sizeof err), -1);
    assert_non_null(strstr(err, "told to fail"));
    assert_false(hooks_active(h));

    assert_int_equal(hooks_attach_ops(h, &scripted, NULL, 0, err, sizeof err), 0);
    assert_string_equal(hooks_policy_name(h), "scripted");
    assert_int_equal(hooks_attach_ops(h, &scripted, NULL, 0, err, sizeof err), -1);
    assert_non_null(strstr(err, "already attached"));
    hooks_destroy(h);
    assert_int_equal(script.finied, 1);
}

static void load_refuses_missing_file_symbol_and_version(void **state)
{
    (void)state;
    struct testenv te;
    te_init(&te, 8);
    struct hooks *h = hooks_create(&te.env);
    char err[512];
    assert_int_equal(hooks_load_policy_words(h, "/nonexistent/policy.so", NULL, 0, err, sizeof err), -1);
    assert_non_null(strstr(err, "cannot load policy /nonexistent/policy.so"));
    assert_int_equal(hooks_load_policy_words(h, TEST_NOSYM_SO, NULL, 0, err, sizeof err), -1);
    assert_non_null(strstr(err, "is not an nvemu policy"));
    assert_int_equal(hooks_load_policy_words(h, TEST_BADVER_SO, NULL, 0, err, sizeof err), -1);
    assert_non_null(strstr(err, "policy API version 999"));
    assert_int_equal(hooks_load_policy_words(h, NULL, NULL, 0, err, sizeof err), -1);
    assert_false(hooks_active(h));
    hooks_destroy(h);
}

/* A callback that sleeps past the callback limit, and one that checks the thread's deadline. */
static uint64_t seen_deadline;
static void slow_bind(void *st, const struct hook_task *t, struct policy_ctx *c)
{
    (void)st;
    (void)t;
    (void)c;
    seen_deadline = nvemu_deadline();
    nanosleep(&(struct timespec){.tv_nsec = 30000000}, NULL);
}

/* With a callback limit, a callback that comes back late detaches the policy for every caller (native
 * decisions from then on), names the hook and the times; during it the thread's deadline was set, after
 * it the outer one is back. Without a limit the same callback keeps the policy attached. */
static void test_callback_limit_detaches_late_policy(void **state)
{
    (void)state;
    memset(&script, 0, sizeof script);
    struct policy_ops slow = scripted;
    slow.on_bind = slow_bind;
    for (int limited = 0; limited < 2; limited++) {
        struct testenv te;
        te_init(&te, 8);
        struct hooks *h = hooks_create(&te.env);
        char err[256];
        assert_int_equal(hooks_attach_ops(h, &slow, NULL, 0, err, sizeof err), 0);
        hooks_set_callback_limit(h, limited ? 5000000u : 0);
        struct hook_task t = te_task(1, "lc");
        seen_deadline = 0;
        uint64_t before = nvemu_mono_ns();
        assert_true(hooks_bind(h, &t));
        assert_int_equal(nvemu_deadline(), 0);
        if (!limited) {
            assert_true(hooks_active(h));
            assert_int_equal(seen_deadline, 0);
        } else {
            assert_true(seen_deadline > before && seen_deadline <= before + 5000000u + 2000000u);
            assert_false(hooks_active(h));
            assert_non_null(hooks_policy_error(h));
            assert_non_null(strstr(hooks_policy_error(h), "on_bind took"));
            assert_non_null(strstr(hooks_policy_error(h), "past the 5.0 ms a callback may take"));
        }
        hooks_destroy(h);
    }
}

/* The kind of a policy file comes from its content (an EM_BPF ELF header), not its name; bare-name lookup
 * tries the kinds' suffixes in table order. */
static void policy_kind_is_chosen_by_file_content_through_one_table(void **state)
{
    (void)state;
    size_t n;
    const struct policy_loader *rows = hooks_policy_loaders(&n);
    assert_int_equal(n, 2);
    assert_string_equal(rows[0].suffix, ".so");
    assert_string_equal(rows[1].suffix, ".bpf.o");
    const struct policy_loader *bpf = hooks_policy_loader_named("bpf"), *plugin = hooks_policy_loader_named("plugin");
    assert_non_null(bpf);
    assert_non_null(plugin);
    assert_null(hooks_policy_loader_named("wasm"));
    assert_ptr_equal(hooks_policy_loader_for(TEST_NOSYM_SO), plugin);
    char obj[] = "/tmp/nvemu-kind-XXXXXX";
    int fd = mkstemp(obj); /* no .bpf.o suffix: the header alone decides */
    assert_true(fd >= 0);
    unsigned char h[20] = {0x7f, 'E', 'L', 'F'};
    h[18] = 247; /* EM_BPF */
    assert_int_equal(write(fd, h, sizeof h), (ssize_t)sizeof h);
    close(fd);
    assert_ptr_equal(hooks_policy_loader_for(obj), bpf);
    char err[256] = "";
    assert_int_equal(hooks_check_plugin_words(obj, NULL, 0, err, sizeof err), 1); /* checked by a load */
    unlink(obj);
}

/* hooks_check_plugin reads the ELF file only: the plugin's constructor does not run; a file without the
 * symbol, with another API version, or that is not a shared object is refused with the load's message. */
static void test_check_plugin_runs_no_code(void **state)
{
    (void)state;
    char mark[] = "/tmp/nvemu-ctor-mark-XXXXXX";
    int fd = mkstemp(mark);
    assert_true(fd >= 0);
    close(fd);
    unlink(mark);
    setenv("NVEMU_TEST_CTOR_MARK", mark, 1);
    char err[512] = "";
    assert_int_equal(hooks_check_plugin_words(TEST_CTOR_SO, NULL, 0, err, sizeof err), 0);
    assert_int_not_equal(access(mark, F_OK), 0);
    assert_int_equal(hooks_check_plugin_words(TEST_NOSYM_SO, NULL, 0, err, sizeof err), -1);
    assert_non_null(strstr(err, "is not an nvemu policy"));
    assert_int_equal(hooks_check_plugin_words(TEST_BADVER_SO, NULL, 0, err, sizeof err), -1);
    assert_non_null(strstr(err, "policy API version 999"));
    assert_int_equal(hooks_check_plugin_words("/etc/hostname", NULL, 0, err, sizeof err), -1);
    assert_non_null(strstr(err, "not an ELF shared object"));
    /* a FIFO named as the plugin is refused at once, not waited on */
    char fifo[] = "/tmp/nvemu-plugin-fifo-XXXXXX";
    assert_non_null(mkdtemp(fifo));
    char fifo_path[64];
    snprintf(fifo_path, sizeof fifo_path, "%s/p.so", fifo);
    assert_int_equal(mkfifo(fifo_path, 0600), 0);
    assert_int_equal(hooks_check_plugin_words(fifo_path, NULL, 0, err, sizeof err), -1);
    assert_non_null(strstr(err, "not a regular file"));
    unlink(fifo_path);
    rmdir(fifo);
    const char *bad_arg[] = {"novalue"};
    assert_int_equal(hooks_check_plugin_words(TEST_CTOR_SO, bad_arg, 1, err, sizeof err), -1);
    assert_non_null(strstr(err, "is not key=value"));
    /* the same file loaded does run its constructor: the check above could have seen it */
    struct testenv te;
    te_init(&te, 8);
    struct hooks *h = hooks_create(&te.env);
    assert_int_equal(hooks_load_policy_words(h, TEST_CTOR_SO, NULL, 0, err, sizeof err), 0);
    assert_int_equal(access(mark, F_OK), 0);
    hooks_destroy(h);
    unlink(mark);
    unsetenv("NVEMU_TEST_CTOR_MARK");
}

/* A table of exactly the version-1 minimum size (what an older plugin build has) is accepted and used. */
static void minimum_size_ops_table_is_accepted_and_used(void **state)
{
    (void)state;
    memset(&script, 0, sizeof script);
    struct testenv te;
    te_init(&te, 8);
    struct hooks *h = hooks_create(&te.env);
    struct policy_ops ops = scripted;
    ops.size = (uint32_t)POLICY_OPS_MIN_SIZE;
    char err[256];
    assert_int_equal(hooks_attach_ops(h, &ops, NULL, 0, err, sizeof err), 0);
    struct hook_task t = te_task(1, "x");
    hooks_task_destroy(h, &t);
    assert_int_equal(script.destroyed, 1);
    hooks_destroy(h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(no_policy_leaves_every_native_value),
        cmocka_unit_test_setup_teardown(task_init_applies_timeslice_and_low_interleave, setup, teardown),
        cmocka_unit_test_setup_teardown(task_init_without_decision_keeps_native_values, setup, teardown),
        cmocka_unit_test_setup_teardown(task_init_same_value_twice_is_a_repeat_noop, setup, teardown),
        cmocka_unit_test_setup_teardown(test_task_init_conflict_keeps_native, setup, teardown),
        cmocka_unit_test_setup_teardown(task_init_out_of_range_values_are_rejected, setup, teardown),
        cmocka_unit_test_setup_teardown(task_init_zero_timeslice_is_rejected_interleave_still_applies, setup, teardown),
        cmocka_unit_test_setup_teardown(task_init_refuses_setters_of_other_hooks, setup, teardown),
        cmocka_unit_test_setup_teardown(bind_reject_refuses_the_bind_once_then_repeats, setup, teardown),
        cmocka_unit_test_setup_teardown(bind_refuses_timeslice_setter, setup, teardown),
        cmocka_unit_test_setup_teardown(timeslice_set_replacement_is_applied, setup, teardown),
        cmocka_unit_test_setup_teardown(timeslice_set_invalid_or_conflicting_value_keeps_current, setup, teardown),
        cmocka_unit_test_setup_teardown(runlist_permutation_is_applied, setup, teardown),
        cmocka_unit_test_setup_teardown(runlist_order_adding_or_dropping_entries_is_rejected, setup, teardown),
        cmocka_unit_test_setup_teardown(runlist_conflicting_orders_keep_native, setup, teardown),
        cmocka_unit_test_setup_teardown(work_submit_decision_changes_timeslice_once, setup, teardown),
        cmocka_unit_test_setup_teardown(work_submit_without_outputs_rejects_setter, setup, teardown),
        cmocka_unit_test_setup_teardown(task_destroy_reaches_policy_every_time, setup, teardown),
        cmocka_unit_test(attach_refuses_bad_version_size_args_and_second_policy),
        cmocka_unit_test(load_refuses_missing_file_symbol_and_version),
        cmocka_unit_test(test_check_plugin_runs_no_code),
        cmocka_unit_test(policy_kind_is_chosen_by_file_content_through_one_table),
        cmocka_unit_test(test_callback_limit_detaches_late_policy),
        cmocka_unit_test(minimum_size_ops_table_is_accepted_and_used),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
