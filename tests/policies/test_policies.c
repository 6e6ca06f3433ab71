/*
 * Reference policies, loaded as the plugins they ship as (build/policies/NAME.so)
 * through hooks_load_policy and driven through the hook call sites.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "hooks_testenv.h"

#define SO(name) NVEMU_POLICY_DIR "/" name ".so"

struct fixture {
    struct testenv te;
    struct hooks *h;
};

/* Loads so with args (NULL-terminated) on a profile with minimum min_us; fails the test on error. */
static struct fixture *load(const char *so, uint64_t min_us, const char *const *args)
{
    struct fixture *f = calloc(1, sizeof *f);
    assert_non_null(f);
    te_init(&f->te, min_us);
    f->h = hooks_create(&f->te.env);
    int n = 0;
    while (args && args[n])
        n++;
    char err[512] = "";
    int rc = hooks_load_policy_words(f->h, so, args, n, err, sizeof err);
    if (rc != 0)
        fail_msg("load %s: %s", so, err);
    return f;
}

static void unload(struct fixture *f)
{
    hooks_destroy(f->h);
    free(f);
}

/* Returns the load error for so with args (empty string when it loaded). */
/* Loading so with args (NULL-terminated) must fail with a reason containing `reason`. */
static void expect_load_error(const char *so, const char *const *args, const char *reason)
{
    struct testenv te;
    te_init(&te, 1);
    struct hooks *h = hooks_create(&te.env);
    int n = 0;
    while (args && args[n])
        n++;
    char err[512] = "";
    int rc = hooks_load_policy_words(h, so, args, n, err, sizeof err);
    hooks_destroy(h);
    assert_int_equal(rc, -1);
    assert_non_null(strstr(err, reason));
}

static uint64_t init_ts(struct fixture *f, struct hook_task *t, uint32_t *il_out)
{
    uint64_t ts = t->timeslice_us;
    uint32_t il = t->interleave;
    hooks_task_init(f->h, t, &ts, &il);
    if (il_out)
        *il_out = il;
    return ts;
}

static uint64_t set_ts(struct fixture *f, struct hook_task *t, uint64_t requested)
{
    uint64_t ts = requested;
    hooks_timeslice_set(f->h, t, &ts);
    return ts;
}

/* ---- lc_be_timeslice ---- */

static void lcbe_gives_lc_be_and_other_processes_their_timeslices(void **state)
{
    (void)state;
    const char *args[] = {"lc=infer*,lc_app", "be=train", NULL};
    struct fixture *f = load(SO("lc_be_timeslice"), 1, args);
    assert_string_equal(hooks_policy_name(f->h), "lc_be_timeslice");
    struct hook_task lc = te_task(1, "inference");
    struct hook_task be = te_task(2, "train");
    struct hook_task other = te_task(3, "bash");
    uint32_t il;
    assert_int_equal(init_ts(f, &lc, &il), 1000000);
    assert_int_equal(il, 1);
    assert_int_equal(init_ts(f, &be, NULL), 200);
    assert_int_equal(init_ts(f, &other, NULL), 1024);
    unload(f);
}

/* libcuda's SET_TIMESLICE 2048 after creation: held with hold=1 (default), lost with hold=0. */
static void test_lcbe_hold(void **state)
{
    (void)state;
    const char *held[] = {"lc=lc_app", "be=be_app", NULL};
    struct fixture *f = load(SO("lc_be_timeslice"), 1, held);
    struct hook_task lc = te_task(1, "lc_app");
    struct hook_task be = te_task(2, "be_app");
    struct hook_task other = te_task(3, "other");
    init_ts(f, &lc, NULL);
    init_ts(f, &be, NULL);
    assert_int_equal(set_ts(f, &lc, 2048), 1000000);
    assert_int_equal(set_ts(f, &be, 2048), 200);
    assert_int_equal(set_ts(f, &other, 2048), 2048);
    unload(f);

    const char *init_only[] = {"lc=lc_app", "be=be_app", "hold=0", NULL};
    f = load(SO("lc_be_timeslice"), 1, init_only);
    assert_int_equal(init_ts(f, &lc, NULL), 1000000);
    assert_int_equal(set_ts(f, &lc, 2048), 2048);
    unload(f);
}

static void lcbe_applies_the_given_timeslices_and_interleave_levels(void **state)
{
    (void)state;
    const char *args[] = {"lc=a", "be=b", "lc_us=5000", "be_us=300", "lc_il=2", "be_il=0", NULL};
    struct fixture *f = load(SO("lc_be_timeslice"), 1, args);
    struct hook_task a = te_task(1, "a");
    struct hook_task b = te_task(2, "b");
    uint32_t il;
    assert_int_equal(init_ts(f, &a, &il), 5000);
    assert_int_equal(il, 2);
    assert_int_equal(init_ts(f, &b, &il), 300);
    assert_int_equal(il, 0);
    unload(f);
}

static void lcbe_leaves_copy_engines_native_and_applies_the_default_class(void **state)
{
    (void)state;
    const char *gr[] = {"default=be", NULL};
    struct fixture *f = load(SO("lc_be_timeslice"), 1, gr);
    struct hook_task ce = te_task(1, "any");
    ce.engine_type = 0x0b; /* COPY2 */
    struct hook_task grt = te_task(2, "any");
    assert_int_equal(init_ts(f, &ce, NULL), 1024);
    assert_int_equal(init_ts(f, &grt, NULL), 200);
    unload(f);
    const char *all[] = {"default=lc", "engines=all", NULL};
    f = load(SO("lc_be_timeslice"), 1, all);
    assert_int_equal(init_ts(f, &ce, NULL), 1000000);
    unload(f);
}

static void test_lcbe_destroy_forgets(void **state)
{
    (void)state;
    const char *args[] = {"lc=lc_app", NULL};
    struct fixture *f = load(SO("lc_be_timeslice"), 1, args);
    struct hook_task lc = te_task(1, "lc_app");
    init_ts(f, &lc, NULL);
    hooks_task_destroy(f->h, &lc);
    /* grpID 1 reused by another process's channel group: classified afresh by its own name */
    struct hook_task reused = te_task(1, "other");
    assert_int_equal(set_ts(f, &reused, 2048), 2048);
    unload(f);
}

static void lcbe_refuses_unknown_and_out_of_range_args(void **state)
{
    (void)state;
    const char *unknown[] = {"lc=a", "speed=9", NULL};
    expect_load_error(SO("lc_be_timeslice"), unknown, "unknown argument 'speed'");
    const char *level[] = {"lc=a", "lc_il=3", NULL};
    expect_load_error(SO("lc_be_timeslice"), level, "lc_il=3 out of range");
    const char *nothing[] = {NULL};
    expect_load_error(SO("lc_be_timeslice"), nothing, "nothing to classify");
    const char *num[] = {"lc=a", "lc_us=12x", NULL};
    expect_load_error(SO("lc_be_timeslice"), num, "not a number");
    const char *dup[] = {"lc=a", "lc=b", NULL};
    expect_load_error(SO("lc_be_timeslice"), dup, "duplicate");
}

/* The argument keys each plugin exports for `scenario check` (read from its file, no code run) are the keys
 * its init accepts: an unknown key gets the same "accepted:" list from both, a known one passes the check. */
static void test_exported_arg_keys_match_init(void **state)
{
    (void)state;
    static const struct {
        const char *so, *known;
    } plugins[] = {
        {SO("lc_be_timeslice"), "hold=1"}, {SO("gpreempt"), "be_us=1"}, {SO("adaptive"), "window_ms=5"},
        {SO("admission"), "max_lc=1"},
    };
    for (size_t i = 0; i < sizeof plugins / sizeof plugins[0]; i++) {
        const char *bogus[] = {"bogus=1"};
        char check_err[512] = "", load_err[512] = "";
        assert_int_equal(hooks_check_plugin_words(plugins[i].so, bogus, 1, check_err, sizeof check_err), -1);
        struct testenv te;
        te_init(&te, 1);
        struct hooks *h = hooks_create(&te.env);
        assert_int_equal(hooks_load_policy_words(h, plugins[i].so, bogus, 1, load_err, sizeof load_err), -1);
        hooks_destroy(h);
        if (!strstr(check_err, "unknown argument 'bogus' (accepted: ") || !strstr(load_err, check_err))
            fail_msg("%s: check says '%s', init says '%s'", plugins[i].so, check_err, load_err);
        const char *known[] = {plugins[i].known};
        assert_int_equal(hooks_check_plugin_words(plugins[i].so, known, 1, check_err, sizeof check_err), 0);
    }
}

/* ---- gpreempt ---- */

static void gpreempt_gives_lc_one_second_and_be_one_microsecond(void **state)
{
    (void)state;
    const char *args[] = {"lc=rt", "be=be", NULL};
    struct fixture *f = load(SO("gpreempt"), 1, args);
    assert_string_equal(hooks_policy_name(f->h), "gpreempt");
    struct hook_task rt = te_task(1, "rt");
    struct hook_task be = te_task(2, "be");
    assert_int_equal(init_ts(f, &rt, NULL), 1000000);
    assert_int_equal(init_ts(f, &be, NULL), 1);
    assert_int_equal(set_ts(f, &be, 2048), 1);
    unload(f);
}

/* On a profile whose minimum is above 1 us GPreempt's BE value is rejected, the native value kept. */
static void gpreempt_be_value_below_the_minimum_is_rejected(void **state)
{
    (void)state;
    const char *args[] = {"be=be", NULL};
    struct fixture *f = load(SO("gpreempt"), 8, args);
    struct hook_task be = te_task(2, "be");
    assert_int_equal(init_ts(f, &be, NULL), 1024);
    int i = te_find(&f->te, "task_init", "timeslice", "reject");
    assert_true(i >= 0);
    assert_string_equal(f->te.rec[i].reason, "below minimum 8 us");
    unload(f);
}

/* ---- adaptive ---- */

/* Submits n times, one every gap_ns; returns the timeslice the caller ends with. */
static uint64_t submit(struct fixture *f, struct hook_task *t, int n, uint64_t gap_ns, enum hook_submit_kind kind)
{
    uint64_t ts = t->timeslice_us;
    uint32_t il = t->interleave;
    for (int i = 0; i < n; i++) {
        f->te.now_ns += gap_ns;
        if (hooks_work_submit_decide(f->h, t, 0, kind, &ts, &il))
            t->timeslice_us = ts;
    }
    return t->timeslice_us;
}

static void test_adaptive_reclassifies(void **state)
{
    (void)state;
    const char *args[] = {"window_ms=100", "hi_rate=1000", "lo_rate=100", NULL};
    struct fixture *f = load(SO("adaptive"), 1, args);
    struct hook_task t = te_task(5, "svc");
    /* 2000/s for 60 ms: the first window is still open, nothing decided */
    assert_int_equal(submit(f, &t, 120, 500000, HOOK_SUBMIT_WORK), 1024);
    /* 2000/s until the 100 ms window closes: LC */
    assert_int_equal(submit(f, &t, 120, 500000, HOOK_SUBMIT_WORK), 1000000);
    /* 500/s for 300 ms: between the thresholds, class kept */
    assert_int_equal(submit(f, &t, 150, 2000000, HOOK_SUBMIT_WORK), 1000000);
    /* 50/s for 300 ms: BE */
    assert_int_equal(submit(f, &t, 15, 20000000, HOOK_SUBMIT_WORK), 200);
    assert_true(te_find(&f->te, "work_submit", "timeslice", "apply") >= 0);
    /* the class is held against SET_TIMESLICE */
    assert_int_equal(set_ts(f, &t, 2048), 200);
    unload(f);
}

/* A burst straddling the first window boundary: a resetting window (the seeds' example) would
 * see 81 submissions in [0, 100 ms) and miss it; the sliding window sees 1500/s. */
static void test_adaptive_window_slides(void **state)
{
    (void)state;
    const char *args[] = {"window_ms=100", "hi_rate=1000", "lo_rate=100", NULL};
    struct fixture *f = load(SO("adaptive"), 1, args);
    struct hook_task t = te_task(5, "svc");
    assert_int_equal(submit(f, &t, 1, 1000, HOOK_SUBMIT_WORK), 1024);
    f->te.now_ns = 60000000;
    assert_int_equal(submit(f, &t, 80, 500000, HOOK_SUBMIT_WORK), 1024);   /* up to 100 ms */
    assert_int_equal(submit(f, &t, 70, 500000, HOOK_SUBMIT_WORK), 1000000); /* up to 135 ms */
    unload(f);
}

static void test_adaptive_counts_selected_kind(void **state)
{
    (void)state;
    const char *args[] = {"window_ms=100", "count=token", NULL};
    struct fixture *f = load(SO("adaptive"), 1, args);
    struct hook_task t = te_task(5, "svc");
    /* work submissions are invisible in token mode: never classified */
    assert_int_equal(submit(f, &t, 300, 500000, HOOK_SUBMIT_WORK), 1024);
    assert_int_equal(submit(f, &t, 300, 500000, HOOK_SUBMIT_TOKEN_REQUEST), 1000000);
    unload(f);
}

static void adaptive_refuses_inconsistent_rates_and_bad_kinds(void **state)
{
    (void)state;
    const char *inv[] = {"hi_rate=10", "lo_rate=20", NULL};
    expect_load_error(SO("adaptive"), inv, "lo_rate=20 above hi_rate=10");
    const char *kind[] = {"count=some", NULL};
    expect_load_error(SO("adaptive"), kind, "count='some'");
}

/* ---- admission ---- */

static void admission_refuses_lc_binds_beyond_max_lc(void **state)
{
    (void)state;
    const char *args[] = {"max_lc=1", "lc=lc*", NULL};
    struct fixture *f = load(SO("admission"), 1, args);
    struct hook_task a = te_task(1, "lc_a");
    struct hook_task b = te_task(2, "lc_b");
    struct hook_task be = te_task(3, "batch");
    assert_true(hooks_bind(f->h, &a));
    assert_false(hooks_bind(f->h, &b));
    assert_true(hooks_bind(f->h, &be));
    assert_true(hooks_bind(f->h, &a)); /* an admitted group may re-enable */
    int i = te_find(&f->te, "bind", "allow", "apply");
    assert_true(i >= 0);
    assert_int_equal(f->te.rec[i].tsg, 2);
    hooks_task_destroy(f->h, &a);
    assert_true(hooks_bind(f->h, &b));
    unload(f);
}

static void admission_with_max_lc_zero_refuses_every_lc_bind(void **state)
{
    (void)state;
    const char *args[] = {"max_lc=0", "default=lc", NULL};
    struct fixture *f = load(SO("admission"), 1, args);
    struct hook_task a = te_task(1, "x");
    assert_false(hooks_bind(f->h, &a));
    unload(f);
    const char *none[] = {"lc=a", NULL};
    expect_load_error(SO("admission"), none, "max_lc= is required");
    const char *nolc[] = {"max_lc=2", NULL};
    expect_load_error(SO("admission"), nolc, "no channel group can be LC");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(lcbe_gives_lc_be_and_other_processes_their_timeslices),
        cmocka_unit_test(test_exported_arg_keys_match_init),
        cmocka_unit_test(test_lcbe_hold),
        cmocka_unit_test(lcbe_applies_the_given_timeslices_and_interleave_levels),
        cmocka_unit_test(lcbe_leaves_copy_engines_native_and_applies_the_default_class),
        cmocka_unit_test(test_lcbe_destroy_forgets),
        cmocka_unit_test(lcbe_refuses_unknown_and_out_of_range_args),
        cmocka_unit_test(gpreempt_gives_lc_one_second_and_be_one_microsecond),
        cmocka_unit_test(gpreempt_be_value_below_the_minimum_is_rejected),
        cmocka_unit_test(test_adaptive_reclassifies),
        cmocka_unit_test(test_adaptive_window_slides),
        cmocka_unit_test(test_adaptive_counts_selected_kind),
        cmocka_unit_test(adaptive_refuses_inconsistent_rates_and_bad_kinds),
        cmocka_unit_test(admission_refuses_lc_binds_beyond_max_lc),
        cmocka_unit_test(admission_with_max_lc_zero_refuses_every_lc_bind),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
