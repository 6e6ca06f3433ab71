/* base/util.h: slurp, JSON escaping, mkdir -p. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "base/util.h"

static char dir[] = "/tmp/nvemu-util-XXXXXX";

static int setup(void **state)
{
    (void)state;
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static void slurp_reads_a_whole_file_nul_terminated(void **state)
{
    (void)state;
    char path[256], err[256];
    snprintf(path, sizeof path, "%s/f.txt", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    for (int i = 0; i < 10000; i++)
        fputs("0123456789", f);
    fclose(f);
    size_t len = 0;
    char *s = nvemu_slurp(path, 1 << 20, &len, err, sizeof err);
    assert_non_null(s);
    assert_int_equal(len, 100000);
    assert_int_equal(strlen(s), 100000);
    assert_memory_equal(s + 99990, "0123456789", 10);
    free(s);
}

static void slurp_refuses_a_file_over_its_limit(void **state)
{
    (void)state;
    char path[256], err[256];
    snprintf(path, sizeof path, "%s/big.txt", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("0123456789", f);
    fclose(f);
    assert_null(nvemu_slurp(path, 9, NULL, err, sizeof err));
    assert_non_null(strstr(err, "larger than 9 bytes"));
}

static void slurp_refuses_a_fifo_instead_of_blocking(void **state)
{
    (void)state;
    char path[256], err[256];
    snprintf(path, sizeof path, "%s/fifo", dir);
    assert_int_equal(mkfifo(path, 0600), 0);
    assert_null(nvemu_slurp(path, 1 << 20, NULL, err, sizeof err));
    assert_non_null(strstr(err, "not a regular file"));
}

static void json_escape_escapes_quotes_backslashes_and_controls(void **state)
{
    (void)state;
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    assert_non_null(m);
    nvemu_json_escape(m, "a\"b\\c\n\x01" "d");
    nvemu_json_escape(m, NULL);
    fclose(m);
    assert_string_equal(buf, "a\\\"b\\\\c\\u000a\\u0001d");
    free(buf);
}

static void mkdir_p_creates_missing_parents_and_accepts_existing(void **state)
{
    (void)state;
    char path[256], err[256];
    struct stat st;
    snprintf(path, sizeof path, "%s/a/b//c/", dir);
    assert_int_equal(nvemu_mkdir_p(path, err, sizeof err), 0);
    assert_int_equal(stat(path, &st), 0);
    assert_true(S_ISDIR(st.st_mode));
    assert_int_equal(nvemu_mkdir_p(path, err, sizeof err), 0);
}

static void mkdir_p_names_the_file_in_the_way(void **state)
{
    (void)state;
    char file[256], path[300], err[512];
    snprintf(file, sizeof file, "%s/plain", dir);
    FILE *f = fopen(file, "w");
    assert_non_null(f);
    fclose(f);
    snprintf(path, sizeof path, "%s/sub", file);
    assert_int_equal(nvemu_mkdir_p(path, err, sizeof err), -1);
    assert_non_null(strstr(err, file));
    assert_int_equal(nvemu_mkdir_p(file, err, sizeof err), -1);
    assert_non_null(strstr(err, "a file is in the way"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(slurp_reads_a_whole_file_nul_terminated),
        cmocka_unit_test(slurp_refuses_a_file_over_its_limit),
        cmocka_unit_test(slurp_refuses_a_fifo_instead_of_blocking),
        cmocka_unit_test(json_escape_escapes_quotes_backslashes_and_controls),
        cmocka_unit_test(mkdir_p_creates_missing_parents_and_accepts_existing),
        cmocka_unit_test(mkdir_p_names_the_file_in_the_way),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
