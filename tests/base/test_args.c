/* base/args.h: typed arguments described by a table, parsed from their written form or from parts. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "base/args.h"

/* A table of every type, shaped like a policy kind's (ids are the owner's numbers). */
static const struct arg_spec table[] = {
    {.name = "rodata", .type = ARG_KNOB, .id = 1, .help = "a knob"},
    {.name = "map", .type = ARG_ELEMENT, .id = 2, .help = "an element"},
    {.name = "attach", .type = ARG_TARGET, .id = 3, .help = "a target"},
    {.name = "budget", .type = ARG_COUNT, .id = 4, .help = "a count"},
    {.name = "driver_abi", .type = ARG_CHOICE, .choices = "K1,K2,K3,K4", .id = 5, .help = "a choice"},
    {.name = NULL},
};

static const struct arg_spec pairs[] = {
    {.name = "", .type = ARG_PAIR, .help = "any key"},
    {.name = NULL},
};

/* Parses text into a fresh list, expecting success, and checks its written form comes back unchanged. */
static struct arg_list parse_ok(const struct arg_spec *t, const char *text)
{
    struct arg_list l = {0};
    char err[256] = "";
    if (arg_list_parse(&l, t, text, err, sizeof err))
        fail_msg("'%s' refused: %s", text, err);
    assert_int_equal(l.n, 1);
    char *back = arg_text(&l.v[0]);
    assert_non_null(back);
    assert_string_equal(back, text);
    free(back);
    return l;
}

/* Parses text, expecting a refusal whose message contains want. */
static void parse_refused(const struct arg_spec *t, const char *text, const char *want)
{
    struct arg_list l = {0};
    char err[256] = "";
    assert_int_equal(arg_list_parse(&l, t, text, err, sizeof err), -1);
    assert_int_equal(l.n, 0);
    if (!strstr(err, want))
        fail_msg("'%s': '%s' lacks '%s'", text, err, want);
    arg_list_free(&l);
}

static void parse_splits_each_written_form_into_its_typed_parts(void **state)
{
    (void)state;
    struct arg_list l = parse_ok(table, "rodata:be_us=100");
    assert_int_equal(l.v[0].spec->id, 1);
    assert_string_equal(l.v[0].name, "be_us");
    assert_string_equal(l.v[0].value, "100");
    assert_null(l.v[0].key);
    arg_list_free(&l);

    l = parse_ok(table, "map:process_class[lc-server]=1");
    assert_int_equal(l.v[0].spec->type, ARG_ELEMENT);
    assert_string_equal(l.v[0].name, "process_class");
    assert_string_equal(l.v[0].key, "lc-server");
    assert_string_equal(l.v[0].value, "1");
    arg_list_free(&l);

    l = parse_ok(table, "attach:on_launch=libcuda.so.1:cuLaunchKernel");
    assert_string_equal(l.v[0].name, "on_launch");
    assert_string_equal(l.v[0].value, "libcuda.so.1:cuLaunchKernel");
    arg_list_free(&l);

    l = parse_ok(table, "budget=5000");
    assert_int_equal(l.v[0].count, 5000);
    arg_list_free(&l);

    l = parse_ok(pairs, "lc=lc*");
    assert_string_equal(l.v[0].name, "lc");
    assert_string_equal(l.v[0].value, "lc*");
    arg_list_free(&l);
}

static void parse_takes_a_choice_in_any_case_and_keeps_the_tables_spelling(void **state)
{
    (void)state;
    struct arg_list l = {0};
    char err[256];
    assert_int_equal(arg_list_parse(&l, table, "driver_abi=k2", err, sizeof err), 0);
    assert_string_equal(l.v[0].value, "K2");
    arg_list_free(&l);
}

static void parse_refuses_a_bad_value_naming_the_argument(void **state)
{
    (void)state;
    parse_refused(table, "budget=abc", "budget='abc' is not a positive number");
    parse_refused(table, "budget=0", "budget='0' is not a positive number");
    parse_refused(table, "budget=-3", "budget='-3' is not a positive number");
    parse_refused(table, "budget=99999999999999999999999", "not a positive number");
    parse_refused(table, "driver_abi=K5", "driver_abi='K5' is not one of K1, K2, K3, K4");
    parse_refused(table, "attach:p=nocolon", "attach: p='nocolon' is not LIBRARY:FUNCTION");
    parse_refused(table, "attach:p=:func", "is not LIBRARY:FUNCTION");
    parse_refused(table, "map:m=1", "is not map:NAME[KEY]=VALUE");
    parse_refused(table, "map:m[a=b]=1", "a key may not contain");
    parse_refused(table, "rodata:novalue", "is not rodata:NAME=VALUE");
}

static void parse_refuses_an_unknown_argument_listing_what_the_table_accepts(void **state)
{
    (void)state;
    parse_refused(table, "lc=lc", "unknown argument 'lc=lc' (accepted: rodata:NAME=VALUE, map:NAME[KEY]=VALUE, "
                                   "attach:PROG=LIB:FUNC, budget=N, driver_abi=K1|K2|K3|K4)");
    parse_refused(pairs, "novalue", "argument 'novalue' is not key=value");
    parse_refused(pairs, "=1", "is not key=value");
}

static void add_checks_parts_like_their_written_form(void **state)
{
    (void)state;
    struct arg_list l = {0};
    char err[256] = "";
    assert_int_equal(arg_list_add(&l, table, "map", "m", "k", "7", err, sizeof err), 0);
    assert_int_equal(arg_list_add(&l, table, "driver_abi", NULL, NULL, "K5", err, sizeof err), -1);
    assert_non_null(strstr(err, "driver_abi='K5'"));
    assert_int_equal(arg_list_add(&l, table, "maps", "m", "k", "7", err, sizeof err), -1);
    assert_non_null(strstr(err, "unknown argument 'maps'"));
    assert_int_equal(arg_list_add(&l, table, "map", "m", "a]b", "7", err, sizeof err), -1);
    assert_non_null(strstr(err, "may not contain"));
    assert_int_equal(l.n, 1);
    /* a copy is deep: freeing the original leaves it whole */
    struct arg_list c = {0};
    assert_int_equal(arg_list_copy(&c, &l), 0);
    arg_list_free(&l);
    assert_int_equal(c.n, 1);
    assert_string_equal(c.v[0].key, "k");
    assert_ptr_equal(c.v[0].spec, &table[1]);
    arg_list_free(&c);
    assert_int_equal(c.n, 0);
}

static void spec_form_writes_each_rows_shape(void **state)
{
    (void)state;
    char form[96];
    arg_spec_form(&table[4], form, sizeof form);
    assert_string_equal(form, "driver_abi=K1|K2|K3|K4");
    arg_spec_form(&pairs[0], form, sizeof form);
    assert_string_equal(form, "KEY=VALUE");
    char small[8];
    arg_table_forms(table, small, sizeof small);
    assert_int_equal(strlen(small), sizeof small - 1); /* truncated, still terminated */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(parse_splits_each_written_form_into_its_typed_parts),
        cmocka_unit_test(parse_takes_a_choice_in_any_case_and_keeps_the_tables_spelling),
        cmocka_unit_test(parse_refuses_a_bad_value_naming_the_argument),
        cmocka_unit_test(parse_refuses_an_unknown_argument_listing_what_the_table_accepts),
        cmocka_unit_test(add_checks_parts_like_their_written_form),
        cmocka_unit_test(spec_form_writes_each_rows_shape),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
