/*
 * Attach points beside struct_ops, end to end through scenarios (objects in tests/bpf/attach, written
 * for these tests):
 *  - a GPreempt-style policy: bare uprobes attached by the scenario to the bridge library's markers, which
 *    each task calls before and after its context is created with its real handles; a kprobe/kretprobe
 *    pair on nvidia_unlocked_ioctl reading the caller's NVOS21/NVOS64 block with bpf_probe_read_user to
 *    catch the channel group allocation and its handle; on_task_init setting LC 1,000,000 us / BE 1 us on
 *    the GR groups by role; sched_process_exit cleaning up. Every error counter stays 0;
 *  - the same object without the scenario's attach: its bare uprobes never run (warned), so no group
 *    gets a role and no decision is made;
 *  - a printk line longer than 31 characters reaches the results, trace.json and report.html whole;
 *  - the maps and global data a loader would print are in the results decoded through BTF;
 *  - preempt-on-launch with no struct_ops: ioctl and nv_gpu_sched_task_init kprobes find the BE GR groups,
 *    a sleepable uprobe on libcuda's cuLaunchKernel preempts them at each LC request, the exit tracepoint
 *    forgets them;
 *  - a tracer with kprobes on the hook functions (ctx read with bpf_probe_read_kernel, task_init as the older
 *    48-byte layout) sees every hook call, its CUDA runtime uprobes every launch and every synchronisation
 *    (entry and return); nvidia:nvidia_dev_xid fires on an injected gpu_lost (XID 79);
 *  - a tracepoint the nvidia module never defined (nvidia_gpu_tsg_create) is refused, naming it;
 *  - bpf_wq: an LC launch starts a work item whose sleepable callback preempts the BE groups; a
 *    non-sleepable kretprobe starts another; each runs once per start, at the virtual time it was started;
 *  - an ioctl kprobe of a caller reached through an accessor (the daemon's case) reads that caller's own
 *    memory: the block at its address and what its embedded pointer points to; an unmapped address faults;
 *  - task.calls at each request (arguments from the task's objects) and at exit reach uprobes by symbol
 *    (a versioned library name in the section matches), the exit call before the exit tracepoint.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <cmocka.h>

#include "core/emulator.h"
#include "hooks/hooks.h"
#include "nvemu/nvemu.h"
#include "report.h"
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

/*
 * What a loader prints, decoded through BTF: .rodata knobs by name, the .bss history as a list of objects
 * with char arrays as strings, struct map values as objects.
 */
static void check_loader_view(const struct sc_results *res)
{
    cJSON *root = cJSON_Parse(res->policy_maps);
    assert_non_null(root);
    const cJSON *ro = cJSON_GetObjectItem(root, ".rodata"), *bss = cJSON_GetObjectItem(root, ".bss");
    assert_non_null(ro);
    assert_non_null(bss);
    assert_int_equal(cJSON_GetObjectItem(ro, "lc_timeslice_us")->valuedouble, 1000000);
    assert_int_equal(cJSON_GetObjectItem(ro, "be_timeslice_us")->valuedouble, 1);
    assert_int_equal(cJSON_GetObjectItem(bss, "history_len")->valuedouble, 2);
    const cJSON *hist = cJSON_GetObjectItem(bss, "history");
    assert_true(cJSON_IsArray(hist));
    assert_int_equal(cJSON_GetArraySize(hist), 8);
    const char *comm[2] = {"lc", "be"};
    for (int i = 0; i < 2; i++) {
        const cJSON *h = cJSON_GetArrayItem(hist, i);
        assert_string_equal(cJSON_GetObjectItem(h, "comm")->valuestring, comm[i]);
        assert_int_equal(cJSON_GetObjectItem(h, "role")->valuedouble, i + 1);
        assert_int_equal(cJSON_GetObjectItem(h, "pid")->valuedouble, 1000 + i);
        assert_true(cJSON_GetObjectItem(h, "htsg")->valuedouble > 0);
    }
    /* every caught group is an object {tgid, role} of one of the two processes */
    const cJSON *groups = cJSON_GetObjectItem(root, "groups"), *g;
    int n = 0;
    cJSON_ArrayForEach(g, groups) {
        double tgid = cJSON_GetObjectItem(g, "tgid")->valuedouble, role = cJSON_GetObjectItem(g, "role")->valuedouble;
        assert_true((tgid == 1000 && role == 1) || (tgid == 1001 && role == 2));
        n++;
    }
    assert_true(n >= 2);
    cJSON_Delete(root);
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
        check_loader_view(&res);
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

/* True when the file at path contains text. */
static bool file_has(const char *path, const char *text)
{
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    static char buf[1 << 22];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    return strstr(buf, text) != NULL;
}

static void test_printk_lines_are_kept_whole(void **state)
{
    (void)state;
    char obj[512], text[4096], err[256];
    fixture(obj, sizeof obj, "gpreempt_style", "bpf");
    snprintf(text, sizeof text, gpreempt_fmt, obj, gpreempt_attach);
    struct sc_results res;
    struct scenario *sc;
    assert_int_equal(run_text(text, &res, &sc), 0);
    const char *line = NULL;
    for (size_t i = 0; i < res.hook_count && !line; i++)
        if (strcmp(res.decisions[res.hooks[i].decision].result, "log") == 0)
            line = res.hooks[i].reason;
    assert_non_null(line);
    /* LC registers first: process 1000, role 1 */
    assert_non_null(strstr(line, "of process 1000 with role 1"));
    assert_true(strncmp(line, "registered channel group 0x", strlen("registered channel group 0x")) == 0);
    char dir[] = "/tmp/nvemu-attach-XXXXXX", chrome[300], html[300];
    assert_non_null(mkdtemp(dir));
    snprintf(chrome, sizeof chrome, "%s/trace.json", dir);
    snprintf(html, sizeof html, "%s/report.html", dir);
    assert_int_equal(report_chrome(&res, chrome, err, sizeof err), 0);
    assert_int_equal(report_html(&res, html, err, sizeof err), 0);
    assert_true(file_has(chrome, line));
    assert_true(file_has(html, line));
    unlink(chrome);
    unlink(html);
    rmdir(dir);
    sc_results_free(&res);
    scenario_free(sc);
}

static const char launch_fmt[] =
    "name: attach-launch-preempt\n"
    "duration: 300ms\n"
    "policy:\n"
    "  bpf: %s\n"
    "  maps: {process_class: {lc: 1, be: 2}}\n"
    "tasks:\n"
    "  - {name: lc, class: LC, arrival: {type: periodic, rate: 100},\n"
    "     request: {kernels: [{duration: 100us, blocks: 264, repeat: 16}]}}\n"
    "  - {name: be, class: BE, count: 2, arrival: {type: closed},\n"
    "     request: {kernels: [{duration: 200us, blocks: 1056, repeat: 25}]}}\n";

/* Count of decisions hook/field/result over all tasks. */
static uint64_t decisions(const struct sc_results *res, const char *hook, const char *field, const char *result)
{
    uint64_t n = 0;
    for (size_t i = 0; i < res->decision_count; i++) {
        const struct sc_decision *d = &res->decisions[i];
        if (!strcmp(d->hook, hook) && !strcmp(d->field, field) && !strcmp(d->result, result))
            n += d->count;
    }
    return n;
}

static void test_probe_only_object_preempts_be_at_lc_launch(void **state)
{
    (void)state;
    for (int v = 0; v < N_VARIANTS; v++) {
        char obj[512], text[2048];
        fixture(obj, sizeof obj, "launch_preempt", variants[v]);
        snprintf(text, sizeof text, launch_fmt, obj);
        struct sc_results res;
        struct scenario *sc;
        assert_int_equal(run_text(text, &res, &sc), 0);
        /* both BE GR groups caught through the ioctl and task_init probes, forgotten when their process ended */
        assert_int_equal(map_value(&res, "stats", "4"), 2);
        assert_int_equal(map_value(&res, "stats", "6"), 2);
        assert_int_equal(map_value(&res, "stats", "5"), 0);
        /* each LC request's 16 launches preempt both BE groups once (1 ms cooldown, 10 ms period) */
        uint64_t lc_requests = res.tasks[0].arrivals;
        assert_true(lc_requests >= 29);
        assert_int_equal(map_value(&res, "stats", "0"), 16 * lc_requests);
        assert_int_equal(map_value(&res, "stats", "1"), 2 * lc_requests);
        assert_int_equal(map_value(&res, "stats", "2"), 0);
        assert_int_equal(decisions(&res, "work_submit", "preempt_tsg", "apply"), 2 * lc_requests);
        assert_int_equal(decisions(&res, "work_submit", "preempt_tsg", "reject"), 0);
        /* no struct_ops: every scheduling decision stays native */
        assert_int_equal(decisions(&res, "task_init", "timeslice", "apply"), 0);
        sc_results_free(&res);
        scenario_free(sc);
    }
}

static const char tracer_fmt[] =
    "name: attach-hook-tracer\n"
    "duration: 50ms\n"
    "policy: {bpf: %s}\n"
    "tasks:\n"
    "  - {name: lc, class: LC, arrival: {type: periodic, rate: 200}, request: {kernels: [{duration: 100us}]}}\n"
    "  - {name: be, class: BE, count: 2, arrival: {type: closed}, request: {kernels: [{duration: 1ms}]}}\n"
    "%s";

/* Hook events of hook `hook` whose reason is `reason`. */
static uint64_t hook_events(const struct sc_results *res, const char *hook, const char *reason)
{
    uint64_t n = 0;
    for (size_t i = 0; i < res->hook_count; i++)
        n += !strcmp(res->decisions[res->hooks[i].decision].hook, hook) && !strcmp(res->hooks[i].reason, reason);
    return n;
}

static void test_hook_function_kprobes_see_every_hook(void **state)
{
    (void)state;
    for (int v = 0; v < N_VARIANTS; v++) {
        char obj[512], text[2048];
        fixture(obj, sizeof obj, "hook_tracer", variants[v]);
        snprintf(text, sizeof text, tracer_fmt, obj, "");
        struct sc_results res;
        struct scenario *sc;
        assert_int_equal(run_text(text, &res, &sc), 0);
        /* one kprobe run per hook call the framework recorded (it records task_init and bind once per group) */
        uint64_t groups = decisions(&res, "task_init", "timeslice", "noop");
        assert_true(groups >= 3);
        assert_int_equal(map_value(&res, "hooks", "0"), groups);
        assert_int_equal(map_value(&res, "hooks", "1"), decisions(&res, "bind", "allow", "noop"));
        assert_int_equal(map_value(&res, "hooks", "2"), hook_events(&res, "work_submit", "token_request"));
        assert_true(map_value(&res, "hooks", "2") > 0);
        /* every group created is destroyed when its process exits, each found by (runlist, tsg id) */
        assert_int_equal(map_value(&res, "hooks", "3"), groups);
        assert_int_equal(map_value(&res, "hooks", "5"), 0); /* no ctx read failed */
        assert_int_equal(map_value(&res, "hooks", "6"), 3); /* one GR group per process */
        assert_int_equal(map_value(&res, "hooks", "4"), 0); /* no XID */
        /* the CUDA runtime's calls: a launch per kernel, a synchronisation per request, entry and return */
        uint64_t requests = res.tasks[0].arrivals + res.tasks[1].arrivals, done = res.tasks[0].completed +
                                                                                  res.tasks[1].completed;
        assert_true(done >= 10);
        assert_true(map_value(&res, "hooks", "7") >= (double)done);
        assert_true(map_value(&res, "hooks", "8") >= (double)done && map_value(&res, "hooks", "8") <= (double)requests);
        assert_true(map_value(&res, "hooks", "9") >= (double)done);
        cJSON *root = cJSON_Parse(res.policy_maps);
        /* no wait is shorter than the shortest request's kernel (100 us) */
        assert_true(cJSON_GetObjectItem(cJSON_GetObjectItem(root, ".bss"), "sync_min_ns")->valuedouble >= 100000);
        cJSON_Delete(root);
        /* a tracer decides nothing */
        assert_int_equal(decisions(&res, "task_init", "timeslice", "apply"), 0);
        sc_results_free(&res);
        scenario_free(sc);
    }
}

static void test_xid_tracepoint_fires_on_gpu_lost(void **state)
{
    (void)state;
    char obj[512], text[2048];
    fixture(obj, sizeof obj, "hook_tracer", "bpf");
    snprintf(text, sizeof text, tracer_fmt, obj, "faults:\n  - {type: gpu_lost, at: 40ms}\n");
    struct sc_results res;
    struct scenario *sc;
    assert_int_equal(run_text(text, &res, &sc), 0);
    assert_int_equal(map_value(&res, "hooks", "4"), 1);
    cJSON *root = cJSON_Parse(res.policy_maps);
    assert_non_null(root);
    const cJSON *x = cJSON_GetObjectItem(cJSON_GetObjectItem(root, ".bss"), "xid");
    assert_non_null(x);
    assert_int_equal(cJSON_GetObjectItem(x, "code")->valuedouble, 79); /* fallen off the bus */
    /* the h200 profile's GPU 0 at PCI 0000:00:06.0, read from the record's __data_loc string */
    assert_string_equal(cJSON_GetObjectItem(x, "dev")->valuestring, "0000:00:06.0");
    cJSON_Delete(root);
    sc_results_free(&res);
    scenario_free(sc);
}

static void test_tracepoint_the_driver_never_had_is_refused(void **state)
{
    (void)state;
    char obj[512], text[2048], err[512] = "";
    fixture(obj, sizeof obj, "bad_tracepoint", "bpf");
    snprintf(text, sizeof text, tracer_fmt, obj, "");
    struct scenario *sc = scenario_load_string("attach.yaml", text, err, sizeof err);
    assert_non_null(sc);
    struct sc_results res;
    struct sc_run_opts o = {0};
    assert_int_not_equal(sc_run(sc, &o, &res, err, sizeof err), 0);
    assert_non_null(strstr(err, "tracepoint nvidia:nvidia_gpu_tsg_create does not exist"));
    sc_results_free(&res);
    scenario_free(sc);
}

static void test_bpf_wq_defers_preemption_to_process_context(void **state)
{
    (void)state;
    for (int v = 0; v < N_VARIANTS; v++) {
        char obj[512], text[2048];
        fixture(obj, sizeof obj, "wq_user", variants[v]);
        snprintf(text, sizeof text, launch_fmt, obj);
        struct sc_results res;
        struct scenario *sc;
        assert_int_equal(run_text(text, &res, &sc), 0);
        uint64_t lc_requests = res.tasks[0].arrivals;
        assert_true(lc_requests >= 29);
        assert_int_equal(map_value(&res, "stats", "6"), 0);                    /* no wq kfunc failed */
        assert_int_equal(map_value(&res, "stats", "1"), lc_requests);          /* one work item per LC request */
        assert_int_equal(map_value(&res, "stats", "2"), lc_requests);          /* each callback ran once */
        assert_int_equal(map_value(&res, "stats", "3"), 2 * lc_requests);      /* both BE groups preempted */
        assert_int_equal(map_value(&res, "stats", "4"), 0);
        assert_int_equal(map_value(&res, "stats", "5"), 2);                    /* started from a kretprobe */
        /* the preemption is the callback's, in process context: no task named */
        assert_int_equal(decisions(&res, "bpf_wq", "preempt_tsg", "apply"), 2 * lc_requests);
        assert_int_equal(decisions(&res, "work_submit", "preempt_tsg", "apply"), 0);
        /* on virtual time the worker runs it when the program that started it has returned */
        cJSON *root = cJSON_Parse(res.policy_maps);
        const cJSON *w0 = cJSON_GetObjectItem(cJSON_GetObjectItem(root, "work"), "0");
        assert_non_null(w0);
        assert_true(cJSON_GetObjectItem(w0, "started_ns")->valuedouble > 0);
        assert_true(cJSON_GetObjectItem(w0, "ran_ns")->valuedouble == cJSON_GetObjectItem(w0, "started_ns")->valuedouble);
        cJSON_Delete(root);
        sc_results_free(&res);
        scenario_free(sc);
    }
}

static const char calls_fmt[] =
    "name: attach-user-calls\n"
    "duration: 50ms\n"
    "policy: {bpf: %s}\n"
    "tasks:\n"
    "  - name: lc\n"
    "    class: LC\n"
    "    arrival: {type: periodic, rate: 200}\n"
    "    request: {kernels: [{duration: 100us}]}\n"
    "    calls:\n"
    "      - {func: 'libapp.so:on_request', when: request, args: ['${pid}', 7]}\n"
    "      - {func: '/opt/app/libapp.so:at_exit', when: exit}\n"
    "  - {name: be, class: BE, arrival: {type: closed}, request: {kernels: [{duration: 1ms}]}}\n";

static void test_task_calls_reach_uprobes_by_symbol(void **state)
{
    (void)state;
    char obj[512], text[2048];
    fixture(obj, sizeof obj, "user_calls", "bpf");
    snprintf(text, sizeof text, calls_fmt, obj);
    struct sc_results res;
    struct scenario *sc;
    assert_int_equal(run_text(text, &res, &sc), 0);
    cJSON *root = cJSON_Parse(res.policy_maps);
    const cJSON *seen = cJSON_GetObjectItem(cJSON_GetObjectItem(root, ".bss"), "seen");
    assert_non_null(seen);
    double arrivals = (double)res.tasks[0].arrivals;
    assert_true(arrivals >= 9);
    /* one call per LC request with its arguments, each returning */
    assert_true(cJSON_GetObjectItem(seen, "requests")->valuedouble == arrivals);
    assert_true(cJSON_GetObjectItem(seen, "returns")->valuedouble == arrivals);
    assert_int_equal(cJSON_GetObjectItem(seen, "last_pid_arg")->valuedouble, 1000);
    assert_int_equal(cJSON_GetObjectItem(seen, "last_tag")->valuedouble, 7);
    assert_int_equal(cJSON_GetObjectItem(seen, "last_rc")->valuedouble, 0);
    /* at_exit (libapp.so.2 in the section is the same library) ran before LC's process ended; BE has none */
    assert_int_equal(cJSON_GetObjectItem(seen, "exits")->valuedouble, 1);
    assert_int_equal(cJSON_GetObjectItem(seen, "exit_after_call")->valuedouble, 1);
    assert_int_equal(cJSON_GetObjectItem(seen, "exit_without_call")->valuedouble, 1);
    cJSON_Delete(root);
    sc_results_free(&res);
    scenario_free(sc);
}

/* task.calls and policy.attach refuse what no run could use, naming it. */
static void test_bad_calls_and_attach_are_refused(void **state)
{
    (void)state;
    static const struct {
        const char *policy, *calls, *message;
    } cases[] = {
        {"", "[{func: 'on_request', when: request}]", "is not LIBRARY:FUNCTION"},
        {"", "[{func: 'libapp.so:f', when: sometimes}]", "task.calls.when"},
        {"", "[{func: 'libapp.so:f', when: request, args: ['${hChannel}']}]", "unknown variable '${hChannel}'"},
        {"", "[{func: 'libapp.so:f', when: request, args: [-1]}]", "neither a number nor a ${variable}"},
        {"", "[{func: 'libapp.so:f', when: request, args: [1, 2, 3, 4, 5, 6, 7]}]", "at most 6"},
        {"", "[{func: 'libapp.so:f', when: request, where: here}]", "unknown key 'where'"},
        {"  attach: {scope_enter: nolibrary}\n", "[]", "policy.attach.scope_enter must be LIBRARY:FUNCTION"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char text[2048], err[512] = "";
        snprintf(text, sizeof text,
                 "name: bad\nduration: 10ms\npolicy:\n  bpf: x.bpf.o\n%s"
                 "tasks:\n  - {name: lc, class: LC, arrival: {type: closed}, request: {kernels: [{duration: 1ms}]},\n"
                 "     calls: %s}\n",
                 cases[i].policy, cases[i].calls);
        struct scenario *sc = scenario_load_string("bad.yaml", text, err, sizeof err);
        if (sc || !strstr(err, cases[i].message))
            print_error("case %zu: %s\n", i, sc ? "accepted" : err);
        assert_null(sc);
        assert_non_null(strstr(err, cases[i].message));
    }
}

/* A caller's address space as the daemon's accessor sees it: [base, base + sizeof mem), the rest unmapped. */
struct caller_mem {
    uint64_t base;
    _Alignas(8) uint8_t mem[4096];
};

static int caller_read(void *ctx, uint64_t addr, void *dst, size_t len)
{
    struct caller_mem *m = ctx;
    if (addr < m->base || len > sizeof m->mem || addr - m->base > sizeof m->mem - len)
        return -EFAULT;
    memcpy(dst, m->mem + (addr - m->base), len);
    return 0;
}

static int caller_write(void *ctx, uint64_t addr, const void *src, size_t len)
{
    struct caller_mem *m = ctx;
    if (addr < m->base || len > sizeof m->mem || addr - m->base > sizeof m->mem - len)
        return -EFAULT;
    memcpy(m->mem + (addr - m->base), src, len);
    return 0;
}

static void test_ioctl_kprobe_reads_the_callers_memory(void **state)
{
    (void)state;
    char obj[512], err[512] = "";
    fixture(obj, sizeof obj, "ioctl_reader", "bpf");
    nvemu_config cfg;
    nvemu_config_init(&cfg);
    cfg.policy_path = obj;
    nvemu *emu = nvemu_create(&cfg, err, sizeof err);
    if (!emu)
        print_error("%s\n", err);
    assert_non_null(emu);
    nvemu_identity who = {.pid = 4242, .tid = 4243, .uid = 1000, .gid = 1000, .comm = "reader"};
    int e = 0;
    nvemu_opener *op = nvemu_open(emu, NVEMU_NODE_CTL, 0, &who, &e);
    assert_non_null(op);
    /* NVOS21 at base: a root client (class 0x41) whose pAllocParms points at a marker 0x200 further */
    static struct caller_mem m = {.base = 0x7f1000000000ull};
    memset(m.mem, 0, sizeof m.mem);
    uint32_t nvos21[8] = {0, 0, 0xc1d0beef, 0x41, 0, 0, 0, 0};
    uint64_t params = m.base + 0x200, marker = 0x0011223344556677ull; /* below 2^53: exact as a JSON number */
    memcpy(nvos21 + 4, &params, sizeof params);
    memcpy(m.mem, nvos21, sizeof nvos21);
    memcpy(m.mem + 0x200, &marker, sizeof marker);
    nvemu_access acc = {.read = caller_read, .write = caller_write, .ctx = &m};
    unsigned long request = 3ul << 30 | 32ul << 16 | (unsigned long)'F' << 8 | 0x2b;
    int rc = nvemu_ioctl_request(emu, op, request, m.base, &acc);
    char *report = hooks_policy_report(nvemu_hooks(emu));
    assert_non_null(report);
    cJSON *root = cJSON_Parse(report);
    const cJSON *last = cJSON_GetObjectItem(cJSON_GetObjectItem(root, ".bss"), "last");
    assert_non_null(last);
    /* pt_regs held (file, cmd, arg) with the caller's own address; the reads went to its memory */
    assert_true(cJSON_GetObjectItem(last, "cmd")->valuedouble == (double)request);
    assert_true(cJSON_GetObjectItem(last, "arg")->valuedouble == (double)m.base);
    assert_int_equal(cJSON_GetObjectItem(last, "hclass")->valuedouble, 0x41);
    assert_true(cJSON_GetObjectItem(last, "params_word")->valuedouble == (double)marker);
    assert_int_equal(cJSON_GetObjectItem(last, "calls")->valuedouble, 1);
    assert_int_equal(cJSON_GetObjectItem(last, "returns")->valuedouble, 1);
    /* only the read far outside the caller's memory faulted */
    assert_int_equal(cJSON_GetObjectItem(last, "faults")->valuedouble, 1);
    /* the return saw the function's result and the status copied back to the caller */
    assert_int_equal(cJSON_GetObjectItem(last, "rc")->valuedouble, rc);
    uint32_t status;
    memcpy(&status, m.mem + 28, sizeof status);
    assert_int_equal(cJSON_GetObjectItem(last, "status")->valuedouble, status);
    cJSON_Delete(root);
    free(report);
    nvemu_release(emu, op);
    nvemu_destroy(emu);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gpreempt_style_policy_sets_lc_and_be_timeslices),
        cmocka_unit_test(test_unattached_bare_uprobes_never_run),
        cmocka_unit_test(test_printk_lines_are_kept_whole),
        cmocka_unit_test(test_probe_only_object_preempts_be_at_lc_launch),
        cmocka_unit_test(test_hook_function_kprobes_see_every_hook),
        cmocka_unit_test(test_xid_tracepoint_fires_on_gpu_lost),
        cmocka_unit_test(test_tracepoint_the_driver_never_had_is_refused),
        cmocka_unit_test(test_bpf_wq_defers_preemption_to_process_context),
        cmocka_unit_test(test_ioctl_kprobe_reads_the_callers_memory),
        cmocka_unit_test(test_task_calls_reach_uprobes_by_symbol),
        cmocka_unit_test(test_bad_calls_and_attach_are_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
