/*
 * Unit tests of how `nvemu calibrate` forms the measured value from recordings (cal_read_dir): the median of one
 * board's repeats, and across boards (DIR/boardN) the median of the boards' medians. The two-board test fails on
 * the reader that took the top-level repeats alone; the three-board one on a reader that pooled every repeat.
 */
#include <ftw.h>
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

#include "calibrate.h"

#define EXP "s-ts200-t32-smem200-bps1"

/* DIR/SUB/EXP/results.json of a hardware run whose task be completed rps requests per second. */
static void put(const char *dir, const char *sub, double rps)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, sub);
    for (char *p = path + strlen(dir) + 1; *p; p++)
        if (*p == '/') {
            *p = 0;
            mkdir(path, 0755);
            *p = '/';
        }
    mkdir(path, 0755);
    snprintf(path + strlen(path), sizeof path - strlen(path), "/%s", EXP);
    mkdir(path, 0755);
    snprintf(path + strlen(path), sizeof path - strlen(path), "/results.json");
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "{\"backend\": \"hw\", \"seed\": 1, \"tasks\": [{\"name\": \"be\", \"throughput_rps\": %g}]}\n", rps);
    fclose(f);
}

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    return remove(p);
}

/* The be task's requests per second as cal_read_dir forms it from dir. */
static double measured(const char *dir)
{
    struct cal_data d = {0};
    char err[256] = "";
    assert_true(cal_read_dir(&d, dir, err, sizeof err) > 0);
    double v = 0;
    assert_true(cal_measured(&d, EXP, "be", CAL_RPS, &v));
    cal_data_free(&d);
    nftw(dir, rm_one, 8, FTW_DEPTH | FTW_PHYS);
    return v;
}

static char *tmpdir(void)
{
    static char dir[64];
    snprintf(dir, sizeof dir, "/tmp/test_cal_read.XXXXXX");
    assert_non_null(mkdtemp(dir));
    return dir;
}

static void one_board_takes_the_median_of_its_repeats(void **state)
{
    (void)state;
    char *dir = tmpdir();
    put(dir, "r1", 8), put(dir, "r2", 9), put(dir, "r3", 100);
    assert_float_equal(measured(dir), 9, 1e-9);
}

static void two_boards_take_the_mean_of_their_medians(void **state)
{
    (void)state;
    char *dir = tmpdir();
    put(dir, "r1", 8), put(dir, "r2", 9), put(dir, "r3", 10);
    put(dir, "board2/r1", 12);
    assert_float_equal(measured(dir), 10.5, 1e-9);
}

static void a_board_with_more_repeats_has_one_vote(void **state)
{
    (void)state;
    char *dir = tmpdir();
    put(dir, "r1", 9);
    put(dir, "board2/r1", 11), put(dir, "board2/r2", 11.5), put(dir, "board2/r3", 30), put(dir, "board2/r4", 31);
    put(dir, "board3/r1", 14);
    /* boards 9, 20.75, 14: median 14 (every repeat pooled: 11.5 + 14 over 2 = 12.75) */
    assert_float_equal(measured(dir), 14, 1e-9);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(one_board_takes_the_median_of_its_repeats),
        cmocka_unit_test(two_boards_take_the_mean_of_their_medians),
        cmocka_unit_test(a_board_with_more_repeats_has_one_vote),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
