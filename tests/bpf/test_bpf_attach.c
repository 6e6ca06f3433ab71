/*
 * Attach points beside struct_ops, end to end through scenarios (objects in tests/bpf/attach, written
 * for these tests):
 *  - a GPreempt-style policy: bare uprobes attached by the scenario to the bridge library's markers, which
 *    each task calls before and after its context is created with its real handles; a kprobe/kretprobe
 *    pair on nvidia_unlocked_ioctl reading the caller's NVOS21/NVOS64 block with bpf_probe_read_user to
 *    catch the channel group allocation and its handle; on_task_init setting LC 1,000,000 us / BE 1 us on
 *    the GR groups by role; sched_process_exit cleaning up. Every error counter stays 0;
 *  - the same object without the scenario's attach: its bare uprobes never run (warned), so no group
 *    gets a role and no decision is made.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <cmocka.h>

#include "results.h"
#include "runner.h"
#include "scenario.h"

static const char *const variants[] = {"bpf", "clang19.bpf"};
#define N_VARIANTS (HAVE_CLANG19 ? 2 : 1)

static void fixture(char *buf, size_t len, const char *name, const char *variant)
{
    snprintf(buf, len, "%s/attach_%s.%s.o", BPF_FIXTURE_DIR, name, variant);
}

/* Runs the scenario text; the results stay in res. */
static int run_text(const char *text, struct sc_results *res, struct scenario **scp)
{
    char err[512] = "";
    struct scenario *sc = scenario_load_string("attach.yaml", text, err, sizeof err);
    if (!sc)
        print_error("%s\n", err);
    assert_non_null(sc);
    struct sc_run_opts o = {0};
    int rc = sc_run(sc, &o, res, err, sizeof err);
    if (rc)
        print_message("sc_run: %s\n", err);
    *scp = sc;
    return rc;
}

/* policy_maps[map][key] as a number (-1 when missing). */
static double map_value(const struct sc_results *res, const char *map, const char *key)
{
    assert_non_null(res->policy_maps);
    cJSON *root = cJSON_Parse(res->policy_maps);
    assert_non_null(root);
    const cJSON *m = cJSON_GetObjectItem(root, map);
    const cJSON *v = m ? cJSON_GetObjectItem(m, key) : NULL;
    double d = cJSON_IsNumber(v) ? v->valuedouble : -1;
    cJSON_Delete(root);
    return d;
}

/* The timeslice task_init applied to each instance's groups: count and the values seen. */
struct applied {
    unsigned count;
    uint64_t value;
};

static void task_init_applies(const struct sc_results *res, struct applied out[2])
{
    memset(out, 0, 2 * sizeof *out);
    for (size_t i = 0; i < res->hook_count; i++) {
        const struct sc_hook_event *h = &res->hooks[i];
        const struct sc_decision *d = &res->decisions[h->decision];
        if (strcmp(d->hook, "task_init") || strcmp(d->field, "timeslice") || strcmp(d->result, "apply"))
            continue;
        assert_true(d->task == 0 || d->task == 1);
        out[d->task].count++;
        out[d->task].value = h->value;
    }
}

static const char gpreempt_fmt[] =
    "name: attach-gpreempt\n"
    "duration: 50ms\n"
    "policy:\n"
    "  bpf: %s\n"
    "%s"
    "tasks:\n"
    "  - name: lc\n"
    "    class: LC\n"
    "    arrival: {type: periodic, rate: 200}\n"
    "    request: {kernels: [{duration: 100us}]}\n"
    "    calls:\n"
    "      - {func: 'libgpreempt_bridge.so:gpreempt_bpf_scope_enter', when: before_context, args: [1]}\n"
    "      - {func: 'libgpreempt_bridge.so:gpreempt_bpf_register', when: after_context,\n"
    "         args: ['${context}', '${hClient}', '${hTSG}', 1]}\n"
    "      - {func: 'libgpreempt_bridge.so:gpreempt_bpf_scope_leave', when: after_context}\n"
    "  - name: be\n"
    "    class: BE\n"
    "    arrival: {type: closed}\n"
    "    request: {kernels: [{duration: 1ms}]}\n"
    "    calls:\n"
    "      - {func: 'libgpreempt_bridge.so:gpreempt_bpf_scope_enter', when: before_context, args: [2]}\n"
    "      - {func: 'libgpreempt_bridge.so:gpreempt_bpf_register', when: after_context,\n"
    "         args: ['${context}', '${hClient}', '${hTSG}', 2]}\n"
    "      - {func: 'libgpreempt_bridge.so:gpreempt_bpf_scope_leave', when: after_context}\n";

static const char gpreempt_attach[] =
    "  attach:\n"
    "    scope_enter: libgpreempt_bridge.so:gpreempt_bpf_scope_enter\n"
    "    scope_register: /opt/app/lib/libgpreempt_bridge.so.1:gpreempt_bpf_register\n"
    "    scope_leave: libgpreempt_bridge.so:gpreempt_bpf_scope_leave\n";

static void test_gpreempt_style_policy_sets_lc_and_be_timeslices(void **state)
{
    (void)state;
    for (int v = 0; v < N_VARIANTS; v++) {
        char obj[512], text[4096];
        fixture(obj, sizeof obj, "gpreempt_style", variants[v]);
        snprintf(text, sizeof text, gpreempt_fmt, obj, gpreempt_attach);
        struct sc_results res;
        struct scenario *sc;
        assert_int_equal(run_text(text, &res, &sc), 0);
        struct applied a[2];
        task_init_applies(&res, a);
        /* one GR group each: LC 1,000,000 us, BE 1 us */
        assert_int_equal(a[0].count, 1);
        assert_int_equal(a[0].value, 1000000);
        assert_int_equal(a[1].count, 1);
        assert_int_equal(a[1].value, 1);
        for (int e = 0; e < 4; e++) {
            char k[4];
            snprintf(k, sizeof k, "%d", e);
            assert_int_equal(map_value(&res, "errors", k), 0);
        }
        assert_int_equal(map_value(&res, "stats", "0"), 2); /* scopes entered */
        assert_true(map_value(&res, "stats", "2") >= 2);    /* channel groups caught at the ioctl return */
        assert_int_equal(map_value(&res, "stats", "3"), 2); /* decisions */
        assert_int_equal(map_value(&res, "stats", "4"), 2); /* processes that exited */
        assert_int_equal(map_value(&res, "stats", "5"), 2); /* registrations */
        sc_results_free(&res);
        scenario_free(sc);
    }
}

static void test_unattached_bare_uprobes_never_run(void **state)
{
    (void)state;
    char obj[512], text[4096];
    fixture(obj, sizeof obj, "gpreempt_style", "bpf");
    snprintf(text, sizeof text, gpreempt_fmt, obj, "");
    struct sc_results res;
    struct scenario *sc;
    assert_int_equal(run_text(text, &res, &sc), 0);
    struct applied a[2];
    task_init_applies(&res, a);
    assert_int_equal(a[0].count, 0);
    assert_int_equal(a[1].count, 0);
    assert_int_equal(map_value(&res, "stats", "0"), 0); /* no scope entered */
    assert_int_equal(map_value(&res, "errors", "0"), 2); /* each GR group's task_init found no scope */
    sc_results_free(&res);
    scenario_free(sc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gpreempt_style_policy_sets_lc_and_be_timeslices),
        cmocka_unit_test(test_unattached_bare_uprobes_never_run),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
