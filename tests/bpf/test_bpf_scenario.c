/*
 * The scenario schema's BPF policy fields: policy.bpf (a built object's name
 * or a path), policy.rodata and policy.maps become the object's arguments;
 * wrong combinations are refused with the file position.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "scenario.h"

#define TASKS "tasks:\n  - name: lc\n    class: LC\n    arrival: {type: closed}\n    request:\n" \
              "      kernels:\n        - {duration: 100us, blocks: 1}\n"

/* The argument's written form is want. */
static void expect_arg(const struct arg *a, const char *want)
{
    char *text = arg_text(a);
    assert_non_null(text);
    assert_string_equal(text, want);
    free(text);
}

static void bpf_keys_become_typed_object_arguments(void **state)
{
    (void)state;
    char err[512];
    const char *y = "name: t\nduration: 1s\npolicy:\n  bpf: gpu_ext_timeslice\n"
                    "  rodata: {default_us: 200, verbose: 0}\n"
                    "  maps: {process_timeslice: {lc-server: 1000000, be: 300}, process_interleave: {lc-server: 2}}\n"
                    TASKS;
    struct scenario *s = scenario_load_string("t.yaml", y, err, sizeof err);
    if (!s)
        fail_msg("%s", err);
    assert_string_equal(s->policy.plugin, "gpu_ext_timeslice.bpf.o");
    assert_int_equal(s->policy.args.n, 5);
    expect_arg(&s->policy.args.v[0], "rodata:default_us=200");
    expect_arg(&s->policy.args.v[1], "rodata:verbose=0");
    expect_arg(&s->policy.args.v[2], "map:process_timeslice[lc-server]=1000000");
    expect_arg(&s->policy.args.v[3], "map:process_timeslice[be]=300");
    expect_arg(&s->policy.args.v[4], "map:process_interleave[lc-server]=2");
    /* typed: the element's map, key and value are apart, as the object's loader takes them */
    assert_int_equal(s->policy.args.v[2].spec->type, ARG_ELEMENT);
    assert_string_equal(s->policy.args.v[2].name, "process_timeslice");
    assert_string_equal(s->policy.args.v[2].key, "lc-server");
    assert_string_equal(s->policy.args.v[2].value, "1000000");
    scenario_free(s);

    y = "name: t\nduration: 1s\npolicy:\n  bpf: objs/p.bpf.o\n" TASKS;
    s = scenario_load_string("t.yaml", y, err, sizeof err);
    assert_non_null(s);
    assert_string_equal(s->policy.plugin, "objs/p.bpf.o");
    scenario_free(s);
}

static void bpf_keys_refused_naming_the_key_and_argument(void **state)
{
    (void)state;
    static const struct {
        const char *policy, *reason;
    } cases[] = {
        {"  plugin: gpreempt\n  bpf: gpreempt\n", "exactly one of 'plugin'"},
        {"  plugin: gpreempt\n  rodata: {x: 1}\n", "need policy.bpf"},
        {"  bpf: gpreempt\n  maps: {m: 1}\n", "policy.maps entry"},
        {"  bpf: gpreempt\n  maps: {m: {\"a[b\": 1}}\n", "may not contain"},
        {"  bpf: gpreempt\n  rodata: {x: [1]}\n", "must be a scalar"},
        /* each key is a typed argument of the object kind, refused naming the key and the argument */
        {"  bpf: gpreempt\n  driver_abi: K5\n", "policy.driver_abi: driver_abi='K5' is not one of K1, K2, K3, K4"},
        {"  bpf: gpreempt\n  attach: {p: \":func\"}\n", "policy.attach: attach: p=':func' is not LIBRARY:FUNCTION"},
        {"  bpf: gpreempt\n  maps: {m: {\"k=1\": 1}}\n", "policy.maps: map: 'm[k=1]'"},
        {"  bpf: gpreempt\n  args: {lc: lc}\n", "policy.args are a plugin's KEY=VALUE"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char y[1024], err[512] = "";
        snprintf(y, sizeof y, "name: t\nduration: 1s\npolicy:\n%s%s", cases[i].policy, TASKS);
        struct scenario *s = scenario_load_string("t.yaml", y, err, sizeof err);
        if (s)
            fail_msg("case %zu accepted", i);
        if (!strstr(err, cases[i].reason))
            fail_msg("case %zu: '%s' lacks '%s'", i, err, cases[i].reason);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(bpf_keys_become_typed_object_arguments),
        cmocka_unit_test(bpf_keys_refused_naming_the_key_and_argument),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
