/*
 * `nvemu scenario compare`: rows only for metrics both runs have, the ratio
 * B / A, the tolerance decides, headline-only judging ignores the rest.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "compare.h"

/* An emulator run: LC and BE with baselines, one engine. */
static const char emu_json[] =
    "{\"scenario\":\"s\",\"tasks\":["
    "{\"name\":\"lc\",\"class\":\"LC\",\"latency_us\":{\"p50\":200,\"p99\":400,\"max\":500},\"throughput_rps\":100,"
    "\"alone\":{\"p50_us\":100,\"p99_us\":200,\"max_us\":250,\"throughput_rps\":100}},"
    "{\"name\":\"be\",\"class\":\"BE\",\"latency_us\":{\"p50\":5000,\"p99\":6000,\"max\":7000},\"throughput_rps\":80,"
    "\"alone\":{\"p50_us\":4000,\"p99_us\":4500,\"max_us\":5000,\"throughput_rps\":100}}],"
    "\"engines\":[{\"name\":\"GR0\",\"switches\":1000,\"preemptions\":900}]}";

/* A hardware run: LC p99 25% higher, BE throughput 5% lower, no engine counters. */
static const char hw_json[] =
    "{\"scenario\":\"s\",\"backend\":\"hw\",\"tasks\":["
    "{\"name\":\"lc\",\"class\":\"LC\",\"latency_us\":{\"p50\":210,\"p99\":500,\"max\":500},\"throughput_rps\":100,"
    "\"alone\":{\"p50_us\":100,\"p99_us\":200,\"max_us\":250,\"throughput_rps\":100}},"
    "{\"name\":\"be\",\"class\":\"BE\",\"latency_us\":{\"p50\":5000,\"p99\":6000,\"max\":7000},\"throughput_rps\":76,"
    "\"alone\":{\"p50_us\":4000,\"p99_us\":4500,\"max_us\":5000,\"throughput_rps\":100}}],"
    "\"engines\":[{\"name\":\"GR0\"}]}";

static const struct cmp_row *row(const struct cmp_result *r, const char *metric)
{
    for (size_t i = 0; i < r->count; i++)
        if (strcmp(r->rows[i].metric, metric) == 0)
            return &r->rows[i];
    return NULL;
}

static void test_ratio_and_tolerance(void **state)
{
    (void)state;
    struct cmp_result r;
    char err[256];
    assert_int_equal(cmp_texts(emu_json, "a", hw_json, "b", 0.10, false, &r, err, sizeof(err)), 0);
    const struct cmp_row *p99 = row(&r, "lc.p99_vs_alone");
    assert_non_null(p99);
    assert_true(fabs(p99->ratio - 1.25) < 1e-9);
    assert_false(p99->within);
    assert_true(p99->headline);
    const struct cmp_row *p50 = row(&r, "lc.p50_vs_alone");
    assert_true(fabs(p50->ratio - 1.05) < 1e-9);
    assert_true(p50->within);
    const struct cmp_row *be = row(&r, "be.throughput_rps");
    assert_true(be->headline);
    assert_true(be->within);
    /* only the emulator counts switches: no row */
    assert_null(row(&r, "GR0.switches"));
    assert_true(r.passed < r.checked);
    cmp_result_free(&r);

    /* 30% tolerance: the 25% p99 difference passes */
    assert_int_equal(cmp_texts(emu_json, "a", hw_json, "b", 0.30, false, &r, err, sizeof(err)), 0);
    assert_int_equal(r.passed, r.checked);
    cmp_result_free(&r);
}

static void test_headline_only(void **state)
{
    (void)state;
    struct cmp_result r;
    char err[256];
    assert_int_equal(cmp_texts(emu_json, "a", hw_json, "b", 0.10, true, &r, err, sizeof(err)), 0);
    /* lc p50/alone, lc p99/alone, be throughput */
    assert_int_equal(r.checked, 3);
    assert_int_equal(r.passed, 2);
    cmp_result_free(&r);
}

static void test_same_run_and_engines(void **state)
{
    (void)state;
    struct cmp_result r;
    char err[256];
    assert_int_equal(cmp_texts(emu_json, "a", emu_json, "b", 0.0, false, &r, err, sizeof(err)), 0);
    assert_int_equal(r.passed, r.checked);
    assert_non_null(row(&r, "GR0.switches"));
    assert_non_null(row(&r, "GR0.preemptions"));
    cmp_result_free(&r);
}

static void test_zero_and_errors(void **state)
{
    (void)state;
    struct cmp_result r;
    char err[256];
    const char *a = "{\"tasks\":[{\"name\":\"be\",\"class\":\"BE\",\"throughput_rps\":0}]}";
    const char *b = "{\"tasks\":[{\"name\":\"be\",\"class\":\"BE\",\"throughput_rps\":3}]}";
    assert_int_equal(cmp_texts(a, "a", b, "b", 0.5, false, &r, err, sizeof(err)), 0);
    assert_true(isinf(r.rows[0].ratio));
    assert_false(r.rows[0].within);
    cmp_result_free(&r);
    assert_int_equal(cmp_texts(a, "a", a, "b", 0.0, false, &r, err, sizeof(err)), 0);
    assert_true(r.rows[0].within);
    cmp_result_free(&r);
    assert_int_equal(cmp_texts("{}", "x.json", a, "b", 0.1, false, &r, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "x.json"));
    const char *other = "{\"tasks\":[{\"name\":\"zz\",\"class\":\"BE\",\"throughput_rps\":3}]}";
    assert_int_equal(cmp_texts(a, "a", other, "b", 0.1, false, &r, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "share no metric"));
    assert_int_equal(cmp_files("/nonexistent/results.json", "/nonexistent", 0.1, false, &r, err, sizeof(err)), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ratio_and_tolerance),
        cmocka_unit_test(test_headline_only),
        cmocka_unit_test(test_same_run_and_engines),
        cmocka_unit_test(test_zero_and_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
