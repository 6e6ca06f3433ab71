/*
 * `nvemu scenario compare`: rows only for metrics both runs have, the ratio
 * B / A, the tolerance decides, headline-only judging ignores the rest; the
 * --html page: both sides' headers, every row, the out-of-tolerance marking,
 * the runs' report.html by relative path or a note saying there is none.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "compare.h"
#include "test_slurp.h"

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

static void p99_ratio_past_the_tolerance_is_a_headline_miss(void **state)
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

static void headline_only_checks_the_three_headline_rows(void **state)
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

static void zero_baseline_gives_an_infinite_ratio_and_a_file_without_tasks_is_refused(void **state)
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

static void put(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
}

/* The page's text of one metric row: its <tr ...> with the classes that mark it. */
static void expect_row_class(const char *page, const char *metric, const char *cls)
{
    char tr[256];
    snprintf(tr, sizeof(tr), "<tr class=\"%s\" data-metric=\"%s\">", cls, metric);
    if (!strstr(page, tr))
        fail_msg("no %s in the page", tr);
}

static void relpath_gives_the_link_from_a_dir_to_a_file(void **state)
{
    (void)state;
    static const char *const cases[][3] = {
        {"/w/cmp", "/w/run/report.html", "../run/report.html"},
        {"/w", "/w/run/report.html", "run/report.html"},
        {"/w/ab", "/w/abc/report.html", "../abc/report.html"},
        {"/", "/x/report.html", "x/report.html"},
        {"/a/b/c", "/a", "../.."},
        {"/a", "/a", "."},
        {"/x/y", "/z/report.html", "../../z/report.html"},
    };
    char out[64];
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        assert_int_equal(cmp_relpath(cases[i][0], cases[i][1], out, sizeof(out)), 0);
        assert_string_equal(out, cases[i][2]);
    }
    assert_int_equal(cmp_relpath("/a/b/c/d", "/e/f", out, 8), -1);
}

/* Two results.json files: both headers, every row, the p99 row out of tolerance, no report to show. */
static void compare_page_shows_both_files_every_row_and_the_miss(void **state)
{
    (void)state;
    char dir[] = "/tmp/nvemu-cmp-XXXXXX", a[96], b[96], page_path[96], err[512];
    assert_non_null(mkdtemp(dir));
    snprintf(a, sizeof(a), "%s/emu.json", dir);
    snprintf(b, sizeof(b), "%s/hw.json", dir);
    snprintf(page_path, sizeof(page_path), "%s/compare.html", dir);
    put(a, emu_json);
    put(b, hw_json);
    struct cmp_result r;
    assert_int_equal(cmp_files(a, b, 0.10, false, &r, err, sizeof(err)), 0);
    assert_int_equal(cmp_html(&r, a, b, 0.10, false, page_path, err, sizeof(err)), 0);
    char *page = slurp(page_path);
    assert_non_null(strstr(page, "<td>emulator</td><td>hw</td>"));
    assert_non_null(strstr(page, r.name_a));
    assert_non_null(strstr(page, r.name_b));
    for (size_t i = 0; i < r.count; i++) {
        char attr[160];
        snprintf(attr, sizeof(attr), "data-metric=\"%s\"", r.rows[i].metric);
        if (!strstr(page, attr))
            fail_msg("row %s missing from the page", r.rows[i].metric);
    }
    expect_row_class(page, "lc.p99_vs_alone", "row headline bad");
    expect_row_class(page, "lc.p50_vs_alone", "row headline");
    expect_row_class(page, "be.throughput_rps", "row headline");
    expect_row_class(page, "lc.p99_us", "row bad");
    assert_non_null(strstr(page, "id=\"pair-0\" class=\"pair\" data-task=\"lc\""));
    assert_non_null(strstr(page, "id=\"pair-1\" class=\"pair\" data-task=\"be\""));
    assert_non_null(strstr(page, "id=\"no-report-a\""));
    assert_non_null(strstr(page, "id=\"no-report-b\""));
    assert_non_null(strstr(page, "a results.json file"));
    assert_null(strstr(page, "<iframe"));
    assert_null(strstr(page, "<script"));
    free(page);

    /* judging only the headline rows: p99_us still differs, but is not marked failing */
    assert_int_equal(cmp_html(&r, a, b, 0.10, true, page_path, err, sizeof(err)), 0);
    page = slurp(page_path);
    expect_row_class(page, "lc.p99_us", "row off");
    expect_row_class(page, "lc.p99_vs_alone", "row headline bad");
    free(page);

    /* a page that cannot be written: the reason names it */
    snprintf(page_path, sizeof(page_path), "%s/no-such-dir/compare.html", dir);
    assert_int_equal(cmp_html(&r, a, b, 0.10, false, page_path, err, sizeof(err)), -1);
    assert_non_null(strstr(err, page_path));
    cmp_result_free(&r);
    unlink(a);
    unlink(b);
    snprintf(page_path, sizeof(page_path), "%s/compare.html", dir);
    unlink(page_path);
    assert_int_equal(rmdir(dir), 0);
}

/* Two run directories, one with report.html: an iframe by a path relative to the page, a note for the other. */
static void test_html_run_dirs(void **state)
{
    (void)state;
    char root[] = "/tmp/nvemu-cmp-XXXXXX", path[6][128], err[512];
    assert_non_null(mkdtemp(root));
    const char *const rel[6] = {"/runs", "/runs/run a", "/runs/b", "/runs/run a/results.json",
                                "/runs/run a/report.html", "/runs/b/results.json"};
    for (int i = 0; i < 6; i++) {
        snprintf(path[i], sizeof(path[i]), "%s%s", root, rel[i]);
        if (i < 3)
            assert_int_equal(mkdir(path[i], 0755), 0);
    }
    put(path[3], emu_json);
    put(path[4], "<html></html>");
    put(path[5], hw_json);
    char pages[128], page_path[160];
    snprintf(pages, sizeof(pages), "%s/pages", root);
    assert_int_equal(mkdir(pages, 0755), 0);
    snprintf(page_path, sizeof(page_path), "%s/compare.html", pages);
    struct cmp_result r;
    assert_int_equal(cmp_files(path[1], path[2], 0.10, false, &r, err, sizeof(err)), 0);
    assert_int_equal(cmp_html(&r, path[1], path[2], 0.10, false, page_path, err, sizeof(err)), 0);
    char *page = slurp(page_path);
    assert_non_null(strstr(page, "<iframe id=\"report-a\" src=\"../runs/run%20a/report.html\""));
    assert_null(strstr(page, "id=\"report-b\""));
    assert_null(strstr(page, "id=\"no-report-a\""));
    assert_non_null(strstr(page, "id=\"no-report-b\""));
    assert_non_null(strstr(page, "a run directory without report.html"));
    free(page);

    /* both with report.html, the page beside them (written through a relative path) */
    char b_report[160], cwd[512];
    snprintf(b_report, sizeof(b_report), "%s/report.html", path[2]);
    put(b_report, "<html></html>");
    assert_non_null(getcwd(cwd, sizeof(cwd)));
    assert_int_equal(chdir(path[0]), 0);
    assert_int_equal(cmp_html(&r, path[1], "b", 0.10, false, "compare.html", err, sizeof(err)), 0);
    page = slurp("compare.html");
    assert_non_null(strstr(page, "<iframe id=\"report-a\" src=\"run%20a/report.html\""));
    assert_non_null(strstr(page, "<iframe id=\"report-b\" src=\"b/report.html\""));
    assert_null(strstr(page, "id=\"no-report-"));
    free(page);
    unlink("compare.html");
    assert_int_equal(chdir(cwd), 0);
    cmp_result_free(&r);

    unlink(b_report);
    unlink(page_path);
    for (int i = 5; i >= 3; i--)
        unlink(path[i]);
    rmdir(pages);
    for (int i = 2; i >= 0; i--)
        rmdir(path[i]);
    assert_int_equal(rmdir(root), 0);
}

/* Two recordings on the hardware (r1 and r2 of one scenario): the page shows the GPU, driver and calibration. */
static void compare_page_shows_the_gpu_driver_and_calibration(void **state)
{
    (void)state;
    const char *a = NVEMU_HW_FIXTURES "/r1/v06-gpreempt-1be-lcM-poisson200";
    const char *b = NVEMU_HW_FIXTURES "/r2/v06-gpreempt-1be-lcM-poisson200/results.json";
    char dir[] = "/tmp/nvemu-cmp-XXXXXX", page_path[96], err[512];
    assert_non_null(mkdtemp(dir));
    snprintf(page_path, sizeof(page_path), "%s/compare.html", dir);
    struct cmp_result r;
    assert_int_equal(cmp_files(a, b, 0.25, true, &r, err, sizeof(err)), 0);
    assert_int_equal(cmp_html(&r, a, b, 0.25, true, page_path, err, sizeof(err)), 0);
    char *page = slurp(page_path);
    assert_non_null(strstr(page, "<td>hw</td><td>hw</td>"));
    assert_non_null(strstr(page, "<td>NVIDIA H200</td><td>NVIDIA H200</td>"));
    assert_non_null(strstr(page, "<td>580.159.04</td><td>580.159.04</td>"));
    assert_non_null(strstr(page, "ns_per_round 187."));
    assert_non_null(strstr(page, "v06-gpreempt-1be-lcM-poisson200"));
    assert_non_null(strstr(page, "a run directory without report.html"));
    assert_non_null(strstr(page, "a results.json file"));
    free(page);
    cmp_result_free(&r);
    unlink(page_path);
    assert_int_equal(rmdir(dir), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(p99_ratio_past_the_tolerance_is_a_headline_miss),
        cmocka_unit_test(headline_only_checks_the_three_headline_rows),
        cmocka_unit_test(test_same_run_and_engines),
        cmocka_unit_test(zero_baseline_gives_an_infinite_ratio_and_a_file_without_tasks_is_refused),
        cmocka_unit_test(relpath_gives_the_link_from_a_dir_to_a_file),
        cmocka_unit_test(compare_page_shows_both_files_every_row_and_the_miss),
        cmocka_unit_test(test_html_run_dirs),
        cmocka_unit_test(compare_page_shows_the_gpu_driver_and_calibration),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
