/*
 * `nvemu scenario sweep-merge` on shards it did not write: a parameter without values, a point count that
 * is not the grid's, a header of the right length but other names are refused with a message (never a
 * division by zero); a cell the JSON grammar has no number for (-inf, nan, 0x10) becomes a JSON string, so
 * the merged sweep.json stays valid JSON; an input that is not a regular file is refused, not waited on.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <cmocka.h>

#include "sweep.h"
#include "test_slurp.h"

#define GRID "{\"scenario\": \"s.yaml\", \"parameters\": [{\"path\": \"a\", \"values\": [\"1\", \"2\"]}], " \
             "\"seeds\": 0, \"points\": 2, \"columns\": [\"point\", \"a\", \"seed\", \"pass\", \"error\", \"m\"]}"
#define HEADER "point,a,seed,pass,error,m\n"

static int merge_one(struct sweep *sw, const char *json, const char *csv, char *err, size_t errlen)
{
    char *text = strdup(csv);
    assert_non_null(text);
    int rc = sweep_merge_shard(sw, json, text, "shard", true, err, errlen);
    free(text);
    return rc;
}

static void test_parameter_without_values_refused(void **state)
{
    (void)state;
    struct sweep sw = {0};
    char err[256] = "";
    const char *json = "{\"scenario\": \"s.yaml\", \"parameters\": [{\"path\": \"a\", \"values\": []}], "
                       "\"seeds\": 0, \"points\": 1, \"columns\": [\"point\", \"a\", \"seed\", \"pass\", \"error\"]}";
    assert_int_equal(merge_one(&sw, json, "point,a,seed,pass,error\n0,,0,true,\n", err, sizeof err), -1);
    assert_non_null(strstr(err, "has no values"));
    sweep_free(&sw);
}

static void test_point_count_not_the_grids_refused(void **state)
{
    (void)state;
    struct sweep sw = {0};
    char err[256] = "";
    char json[] = GRID;
    *strstr(json, "\"points\": 2") = '\0';
    char *bad = NULL;
    assert_true(asprintf(&bad, "%s\"points\": 3, %s", json, strstr(GRID, "\"columns\"")) > 0);
    assert_int_equal(merge_one(&sw, bad, HEADER "0,1,0,true,,1\n", err, sizeof err), -1);
    assert_non_null(strstr(err, "is not the grid's"));
    free(bad);
    sweep_free(&sw);
}

static void test_header_compared_by_names(void **state)
{
    (void)state;
    struct sweep sw = {0};
    char err[256] = "";
    /* same length as HEADER, one name different */
    assert_int_equal(merge_one(&sw, GRID, "point,b,seed,pass,error,m\n0,1,0,true,,1\n", err, sizeof err), -1);
    assert_non_null(strstr(err, "header differs"));
    sweep_free(&sw);
    memset(&sw, 0, sizeof sw);
    assert_int_equal(merge_one(&sw, GRID, "point,a,seed,pass,error,m,x\n", err, sizeof err), -1);
    sweep_free(&sw);
}

static void test_non_finite_cells_stay_valid_json(void **state)
{
    (void)state;
    struct sweep sw = {0};
    char err[256] = "";
    assert_int_equal(merge_one(&sw, GRID, HEADER "0,1,0,true,,-inf\n1,2,0,true,,0x10\n", err, sizeof err), 0);
    char dir[] = "/tmp/nvemu-sweep-merge-XXXXXX";
    assert_non_null(mkdtemp(dir));
    assert_int_equal(sweep_write(&sw, dir, NULL, 0, err, sizeof err), 0);
    char path[256];
    snprintf(path, sizeof path, "%s/sweep.json", dir);
    char *text = slurp(path);
    assert_non_null(text);
    cJSON *j = cJSON_Parse(text);
    assert_non_null(j);
    const cJSON *rows = cJSON_GetObjectItemCaseSensitive(j, "rows");
    assert_int_equal(cJSON_GetArraySize(rows), 2);
    const cJSON *m0 = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(rows, 0), "m");
    const cJSON *m1 = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(rows, 1), "m");
    assert_true(cJSON_IsString(m0));
    assert_string_equal(m0->valuestring, "-inf");
    assert_true(cJSON_IsString(m1));
    assert_string_equal(m1->valuestring, "0x10");
    cJSON_Delete(j);
    free(text);
    for (const char *f = "sweep.csv\0sweep.json\0sweep.html\0"; *f; f += strlen(f) + 1) {
        snprintf(path, sizeof path, "%s/%s", dir, f);
        unlink(path);
    }
    rmdir(dir);
    sweep_free(&sw);
}

static void test_fifo_shard_refused(void **state)
{
    (void)state;
    char dir[] = "/tmp/nvemu-sweep-fifo-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[256];
    snprintf(path, sizeof path, "%s/sweep.json", dir);
    assert_int_equal(mkfifo(path, 0600), 0);
    struct sweep sw = {0};
    char err[256] = "";
    const char *dirs[] = {dir};
    assert_int_equal(sweep_merge(&sw, dirs, 1, err, sizeof err), -1);
    assert_non_null(strstr(err, "FIFO"));
    sweep_free(&sw);
    unlink(path);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parameter_without_values_refused),
        cmocka_unit_test(test_point_count_not_the_grids_refused),
        cmocka_unit_test(test_header_compared_by_names),
        cmocka_unit_test(test_non_finite_cells_stay_valid_json),
        cmocka_unit_test(test_fifo_shard_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
