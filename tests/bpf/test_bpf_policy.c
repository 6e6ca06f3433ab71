/*
 * BPF policy objects: the loader against libbpf's own reading of the same
 * objects, the negative fixtures, the kfunc rules and the helpers'
 * environment, faults, and the BPF twins against their C plugins on the same
 * hook sequence (same outputs, same trace records).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/libbpf.h>
#include <cmocka.h>

#include "bpf/bpf_obj.h"
#include "bpf/bpf_policy.h"
#include "hooks/hooks.h"
#include "hooks_testenv.h"

static const char *const variants[] = {"bpf", "v2.bpf", "clang19.bpf"};
#define N_VARIANTS (HAVE_CLANG19 ? 3 : 2)

static void object_path(char *buf, size_t len, const char *name, const char *variant)
{
    snprintf(buf, len, "%s/%s.%s.o", NVEMU_POLICY_DIR, name, variant);
}

static void fixture_path(char *buf, size_t len, const char *name)
{
    snprintf(buf, len, "%s/%s.bpf.o", BPF_FIXTURE_DIR, name);
}

/* ---- loader ---- */

struct expect_obj {
    const char *name;
    const char *members[BPF_ABI_MEMBER_COUNT]; /* bound program per member, NULL = none */
    const char *maps[6];
};

static const struct expect_obj expected[] = {
    {"lc_be_timeslice", {"lcbe_task_init", NULL, "lcbe_task_destroy", "lcbe_timeslice_control"},
     {"process_class", "task_class", ".rodata", NULL}},
    {"gpreempt", {"lcbe_task_init", NULL, "lcbe_task_destroy", "lcbe_timeslice_control"},
     {"process_class", "task_class", ".rodata", NULL}},
    {"admission", {NULL, "admission_bind", "admission_task_destroy", NULL},
     {"process_class", "task_admitted", ".rodata", ".bss", NULL}},
    {"gpu_ext_timeslice", {"gx_task_init", "gx_bind", "gx_task_destroy", "gx_timeslice_control"},
     {"process_timeslice", "process_interleave", "stats", "result_count", "events", NULL}},
    {"preempt_on_launch", {NULL, NULL, "pol_task_destroy", "pol_timeslice_control"},
     {"process_class", "be_groups", "stats", ".rodata", ".bss", NULL}},
};

/* libbpf's reading of the object: same programs (name, section, instruction count) and map definitions. */
static void cross_check_libbpf(const char *path, const struct bpf_obj *obj)
{
    struct bpf_object *lo = bpf_object__open_file(path, NULL);
    if (libbpf_get_error(lo)) {
        print_message("libbpf cannot open %s (libbpf 1.1 does not know .struct_ops.link): cross-check skipped\n",
                      path);
        return;
    }
    int nprogs = 0;
    struct bpf_program *lp;
    bpf_object__for_each_program(lp, lo) {
        nprogs++;
        const struct bpf_obj_prog *mine = NULL;
        for (uint32_t i = 0; i < obj->n_progs; i++)
            if (strcmp(obj->progs[i].name, bpf_program__name(lp)) == 0)
                mine = &obj->progs[i];
        assert_non_null(mine);
        assert_string_equal(mine->section, bpf_program__section_name(lp));
        assert_int_equal(mine->size / 8, bpf_program__insn_cnt(lp));
    }
    assert_int_equal(nprogs, obj->n_progs);
    struct bpf_map *lm;
    int nmaps = 0;
    bpf_object__for_each_map(lm, lo) {
        const char *ln = bpf_map__name(lm);
        const struct bpf_obj_map *mine = NULL;
        for (uint32_t i = 0; i < obj->n_maps; i++) {
            const char *n = obj->maps[i].name;
            size_t a = strlen(ln), b = strlen(n);
            /* libbpf names global data "<object prefix>.rodata" */
            if (strcmp(n, ln) == 0 || (n[0] == '.' && a >= b && strcmp(ln + a - b, n) == 0))
                mine = &obj->maps[i];
        }
        if (bpf_map__type(lm) == BPF_MAP_TYPE_STRUCT_OPS)
            continue;
        nmaps++;
        assert_non_null(mine);
        assert_int_equal(mine->def.type, bpf_map__type(lm));
        assert_int_equal(mine->def.key_size, bpf_map__key_size(lm));
        assert_int_equal(mine->def.value_size, bpf_map__value_size(lm));
        assert_int_equal(mine->def.max_entries, bpf_map__max_entries(lm));
        if (mine->kind != BPF_OBJ_MAP_USER) {
            size_t isz = 0;
            const void *init = bpf_map__initial_value(lm, &isz);
            uint32_t vsz = 0;
            const void *val = bpf_map_value_base(mine->map, &vsz);
            assert_int_equal(isz, vsz);
            if (init && mine->kind != BPF_OBJ_MAP_BSS)
                assert_memory_equal(init, val, isz);
        }
    }
    assert_int_equal(nmaps, obj->n_maps);
    bpf_object__close(lo);
}

static void reference_objects_load_in_every_compiler_variant(void **state)
{
    (void)state;
    for (size_t e = 0; e < sizeof expected / sizeof expected[0]; e++) {
        for (int v = 0; v < N_VARIANTS; v++) {
            char path[512], err[2048];
            object_path(path, sizeof path, expected[e].name, variants[v]);
            struct bpf_obj *obj = bpf_policy_check(path, err, sizeof err);
            if (!obj)
                fail_msg("%s refused: %s", path, err);
            for (int m = 0; m < BPF_ABI_MEMBER_COUNT; m++) {
                int pi = obj->member_prog[m];
                if (!expected[e].members[m]) {
                    assert_int_equal(pi, -1);
                    continue;
                }
                assert_true(pi >= 0);
                assert_string_equal(obj->progs[pi].name, expected[e].members[m]);
                assert_int_equal(obj->progs[pi].member, m);
                assert_true(obj->progs[pi].prog.n > 0);
                assert_true(obj->progs[pi].prog.n_lines > 0);
                assert_string_equal(obj->progs[pi].prog.name, expected[e].members[m]);
            }
            for (int k = 0; expected[e].maps[k]; k++)
                assert_non_null(bpf_obj_find_map(obj, expected[e].maps[k]));
            cross_check_libbpf(path, obj);
            bpf_obj_close(obj);
        }
    }
}

static void gpu_ext_object_check_finds_its_callbacks_and_maps(void **state)
{
    (void)state;
    char path[512], err[2048];
    object_path(path, sizeof path, "gpu_ext_timeslice", "bpf");
    struct bpf_obj *obj = bpf_policy_check(path, err, sizeof err);
    assert_non_null(obj);
    assert_string_equal(obj->ops_section, ".struct_ops.link");
    assert_int_equal(obj->ops_abi, BPF_ABI_OPS_CURRENT);
    struct bpf_obj_map *m = bpf_obj_find_map(obj, "process_timeslice");
    assert_non_null(m);
    assert_int_equal(m->def.type, BPF_MAP_TYPE_HASH);
    assert_int_equal(m->def.key_size, 16);
    assert_true(m->key_is_string);
    assert_int_equal(m->def.value_size, 8);
    m = bpf_obj_find_map(obj, "events");
    assert_non_null(m);
    assert_int_equal(m->def.type, BPF_MAP_TYPE_RINGBUF);
    assert_int_equal(m->def.max_entries, 4096);
    m = bpf_obj_find_map(obj, "stats");
    assert_int_equal(m->def.type, BPF_MAP_TYPE_ARRAY);
    /* the .rodata knob before load: set, read back through the map value */
    assert_int_equal(bpf_obj_set_var(obj, "default_us", "300", err, sizeof err), 0);
    assert_int_not_equal(bpf_obj_set_var(obj, "no_such_knob", "1", err, sizeof err), 0);
    assert_non_null(strstr(err, "no global variable 'no_such_knob'"));
    assert_int_not_equal(bpf_obj_set_var(obj, "verbose", "4294967296", err, sizeof err), 0);
    assert_int_equal(bpf_obj_map_set(obj, "process_timeslice", "lc-server", "1000000", err, sizeof err), 0);
    assert_int_not_equal(bpf_obj_map_set(obj, "process_timeslice", "a-name-of-16-chars", "1", err, sizeof err), 0);
    char key[16] = "lc-server";
    const uint64_t *v = bpf_map_lookup(bpf_obj_find_map(obj, "process_timeslice")->map, key);
    assert_non_null(v);
    assert_int_equal(*v, 1000000);
    bpf_obj_close(obj);
}

/* ---- negative fixtures ---- */

static void broken_objects_are_refused_with_their_reason(void **state)
{
    (void)state;
    static const struct {
        const char *fixture, *reason;
    } cases[] = {
        {"ctx_write", "store into the read-only ctx"},
        {"ctx_store_past", "store into the read-only ctx"},
        {"sleepable_kfunc", "sleepable kfunc bpf_nv_gpu_preempt_tsg"},
        {"gen_none", "no gpu_ext driver generation loads it"},
        {"ctx_arith", "arithmetic on the struct_ops args pointer"},
        {"kfunc_arg", "kfunc bpf_nv_gpu_set_timeslice: argument r1 must be the callback's ctx itself"},
        {"unbounded_loop", "without a provable bound"},
        {"null_deref", "not yet checked for NULL: dereference refused"},
        {"gpl_helper", "helper trace_printk is GPL-only and the program's license is not GPL-compatible"},
        {"stack_513", "stack access of 8 bytes at fp-520 outside the 512-byte stack"},
        {"unknown_member", "unknown ops member 'on_runlist_update'"},
        {"unknown_kfunc", "calls kfunc bpf_nv_gpu_set_priority, which the driver does not provide"},
        {"unknown_helper", "unknown helper 999"},
        {"map_memory_cap", "would need 1200 MiB, more than the 1024 MiB an object's maps may hold"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char path[512], err[2048] = "";
        fixture_path(path, sizeof path, cases[i].fixture);
        struct bpf_obj *obj = bpf_policy_check(path, err, sizeof err);
        if (obj)
            fail_msg("%s was accepted", cases[i].fixture);
        if (!strstr(err, cases[i].reason))
            fail_msg("%s: message '%s' lacks '%s'", cases[i].fixture, err, cases[i].reason);
        /* the message names where: the program and its source line, or the ABI diff */
        assert_non_null(strstr(err, cases[i].fixture));
    }
    /* the same refusal through the hook framework's loader */
    struct testenv te;
    te_init(&te, 1);
    struct hooks *h = hooks_create(&te.env);
    char path[512], err[2048];
    fixture_path(path, sizeof path, "ctx_write");
    assert_int_not_equal(hooks_load_policy_words(h, path, NULL, 0, err, sizeof err), 0);
    assert_non_null(strstr(err, "ctx_write.bpf.c:8"));
    assert_false(hooks_active(h));
    hooks_destroy(h);
}

static void test_three_member_ops_accepted(void **state)
{
    (void)state;
    char path[512], err[2048];
    fixture_path(path, sizeof path, "three_member");
    struct bpf_obj *obj = bpf_policy_check(path, err, sizeof err);
    if (!obj)
        fail_msg("refused: %s", err);
    assert_int_equal(obj->ops_abi, BPF_ABI_OPS_THREE_MEMBER);
    bpf_obj_close(obj);
    struct testenv te;
    te_init(&te, 1);
    struct hooks *h = hooks_create(&te.env);
    assert_int_equal(hooks_load_policy_words(h, path, NULL, 0, err, sizeof err), 0);
    struct hook_task t = te_task(7, "x");
    uint64_t ts = 1024;
    uint32_t il = 1;
    hooks_task_init(h, &t, &ts, &il);
    assert_int_equal(ts, 4096); /* the weak kfunc is present: the guarded call ran */
    hooks_destroy(h);
}

/* r8 = args[0]; call bpf_get_current_pid_tgid (no declared arguments) while r1 still holds the args: loads and runs. */
static void test_helper_without_args_after_args_load(void **state)
{
    (void)state;
    char path[512], err[2048];
    fixture_path(path, sizeof path, "args_then_helper");
    struct bpf_obj *obj = bpf_policy_check(path, err, sizeof err);
    if (!obj)
        fail_msg("refused: %s", err);
    bpf_obj_close(obj);
    struct testenv te;
    te_init(&te, 1);
    struct hooks *h = hooks_create(&te.env);
    assert_int_equal(hooks_load_policy_words(h, path, NULL, 0, err, sizeof err), 0);
    struct hook_task t = te_task(7, "x");
    uint64_t ts = 1024;
    uint32_t il = 1;
    t.pid = 4242;
    hooks_task_init(h, &t, &ts, &il);
    assert_int_equal(ts, 5000); /* the ctx kept in r8 reached the kfunc; the helper saw the caller's tgid */
    t.pid = 1;
    ts = 1024;
    hooks_task_init(h, &t, &ts, &il);
    assert_int_equal(ts, 6000);
    assert_null(hooks_policy_error(h));
    hooks_destroy(h);
}

/* ---- kfunc rules, helpers, faults ---- */

static struct hooks *attach(struct testenv *te, const char *path, const char *const *args, int nargs)
{
    char err[2048];
    struct hooks *h = hooks_create(&te->env);
    assert_non_null(h);
    if (hooks_load_policy_words(h, path, args, nargs, err, sizeof err) != 0)
        fail_msg("%s: %s", path, err);
    return h;
}

/* Value of key in map of the policy's report ("\"key\":value"), or -1. */
static long long report_value(struct hooks *h, const char *map, const char *key)
{
    char *json = hooks_policy_report(h);
    assert_non_null(json);
    char pat[96];
    snprintf(pat, sizeof pat, "\"%s\":{", map);
    const char *m = strstr(json, pat);
    long long v = -1;
    if (m) {
        const char *end = strchr(m + strlen(pat), '}');
        snprintf(pat, sizeof pat, "\"%s\":", key);
        const char *k = strstr(m, pat);
        if (k && (!end || k < end))
            v = strtoll(k + strlen(pat), NULL, 10);
    }
    free(json);
    return v;
}

/* Which generation each object was built for, which drivers load it, and what each refusing one says. */
static void each_object_loads_on_its_generations_and_refusals_say_why(void **state)
{
    (void)state;
    static const struct {
        const char *fixture;
        enum bpf_abi_gen built_for;
        uint32_t fits;              /* bit g */
        enum bpf_abi_gen runs_as;   /* the default: the newest that loads it */
    } cases[] = {
        {"gen_k1", BPF_ABI_K1, 1u << 1, BPF_ABI_K1},
        /* its 8-byte destroy ctx read at offset 0 is valid on every later driver */
        {"gen_k2", BPF_ABI_K2, 1u << 2 | 1u << 3 | 1u << 4, BPF_ABI_K4},
        {"gen_k3", BPF_ABI_K3, 1u << 3 | 1u << 4, BPF_ABI_K4},
        {"gen_k4", BPF_ABI_K4, 1u << 4, BPF_ABI_K4},
        /* 48-byte ctx header, reads only runlist_id @28, no kfunc: every driver loads it */
        {"abi_old", BPF_ABI_K1, 0x1e, BPF_ABI_K4},
        {"three_member", BPF_ABI_K3, 0x1c, BPF_ABI_K4},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char path[512], err[2048];
        fixture_path(path, sizeof path, cases[i].fixture);
        struct bpf_obj *obj = bpf_policy_check(path, err, sizeof err);
        if (!obj)
            fail_msg("%s refused: %s", cases[i].fixture, err);
        if (obj->built_for != cases[i].built_for || obj->target_fits != cases[i].fits ||
            obj->target != cases[i].runs_as)
            fail_msg("%s: built for %s, fits 0x%x, runs as %s", cases[i].fixture, bpf_abi_gen_name(obj->built_for),
                     obj->target_fits, bpf_abi_gen_name(obj->target));
        bpf_obj_close(obj);
        for (int g = BPF_ABI_K1; g <= BPF_ABI_GEN_NEWEST; g++) {
            obj = bpf_policy_check_for(path, (enum bpf_abi_gen)g, err, sizeof err);
            assert_int_equal(obj != NULL, (cases[i].fits >> g) & 1);
            if (obj)
                assert_int_equal(obj->target, g);
            bpf_obj_close(obj);
        }
    }
    static const struct {
        const char *fixture;
        enum bpf_abi_gen driver;
        const char *reason;
    } refused[] = {
        {"gen_k4", BPF_ABI_K3, "the K3 driver's struct nv_gpu_sched_ops has no member on_timeslice_control"},
        {"gen_k3", BPF_ABI_K2, "on_task_destroy reads 16 bytes into its ctx (insn "},
        {"gen_k1", BPF_ABI_K2, "on_task_init reads 44 bytes into its ctx"},
        {"gen_k2", BPF_ABI_K1, "declares kfunc bpf_nv_gpu_set_timeslice returning int; the K1 driver's returns void"},
        {"gen_k4", BPF_ABI_K2, "the gpu_ext K2 driver refuses it"},
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        char path[512], err[2048] = "";
        fixture_path(path, sizeof path, refused[i].fixture);
        struct bpf_obj *obj = bpf_policy_check_for(path, refused[i].driver, err, sizeof err);
        assert_null(obj);
        if (!strstr(err, refused[i].reason))
            fail_msg("%s on %s: '%s' lacks '%s'", refused[i].fixture, bpf_abi_gen_name(refused[i].driver), err,
                     refused[i].reason);
    }
    /* the policy argument chooses the generation; a bad one is named */
    char path[512], err[2048];
    fixture_path(path, sizeof path, "gen_k2");
    struct testenv te;
    te_init(&te, 1);
    struct hooks *h = hooks_create(&te.env);
    const char *bad[] = {"driver_abi=K5"};
    assert_int_not_equal(hooks_load_policy_words(h, path, bad, 1, err, sizeof err), 0);
    assert_non_null(strstr(err, "one of K1, K2, K3, K4"));
    const char *k1[] = {"driver_abi=K1"};
    assert_int_not_equal(hooks_load_policy_words(h, path, k1, 1, err, sizeof err), 0);
    assert_non_null(strstr(err, "the K1 driver's returns void"));
    hooks_destroy(h);
}

/* A profile answering as 575 (gpu_ext's patched driver) runs objects as the generation it carries, K4. */
static void test_driver_575_profile_selects_k4(void **state)
{
    (void)state;
    char path[512], err[2048] = "";
    fixture_path(path, sizeof path, "gen_k1");
    struct testenv te;
    te_init(&te, 1);
    snprintf(te.profile.driver_version, sizeof te.profile.driver_version, "575.57.08");
    te.profile.release = NV_REL_575;
    struct hooks *h = hooks_create(&te.env);
    assert_int_not_equal(hooks_load_policy(h, path, NULL, err, sizeof err), 0);
    if (!strstr(err, "the gpu_ext K4 driver refuses it"))
        fail_msg("gen_k1 on a 575 profile: '%s'", err);
    hooks_destroy(h);
    /* the same object on a 580 profile runs as the newest generation that loads it, K1 */
    te.profile.release = NV_REL_580;
    snprintf(te.profile.driver_version, sizeof te.profile.driver_version, "580.159.04");
    h = hooks_create(&te.env);
    assert_int_equal(hooks_load_policy(h, path, NULL, err, sizeof err), 0);
    hooks_destroy(h);
}

/* An explicit driver_abi= wins over the generation a 575 profile carries. */
static void test_driver_abi_wins_over_575_profile(void **state)
{
    (void)state;
    char path[512];
    fixture_path(path, sizeof path, "gen_k1");
    struct testenv te;
    te_init(&te, 1);
    snprintf(te.profile.driver_version, sizeof te.profile.driver_version, "575.57.08");
    te.profile.release = NV_REL_575;
    const char *k1[] = {"driver_abi=K1", "map:process_class[lc]=1"};
    struct hooks *h = attach(&te, path, k1, 2);
    struct hook_task lc = te_task(1, "lc");
    uint64_t ts = 1024;
    uint32_t il = 1;
    hooks_task_init(h, &lc, &ts, &il);
    assert_int_equal(ts, 1000000); /* K1's output fields applied: it ran as K1 */
    hooks_destroy(h);
}

/* K1: the void setters write the ctx's output fields, which the driver applies after the callback. */
static void test_k1_output_fields_applied(void **state)
{
    (void)state;
    char path[512];
    fixture_path(path, sizeof path, "gen_k1");
    struct testenv te;
    te_init(&te, 1);
    const char *args[] = {"map:process_class[lc]=1", "map:process_class[be]=2"};
    struct hooks *h = attach(&te, path, args, 2);
    struct hook_task lc = te_task(1, "lc"), be = te_task(2, "be"), other = te_task(3, "other");
    uint64_t ts = 1024;
    uint32_t il = 1;
    hooks_task_init(h, &lc, &ts, &il);
    assert_int_equal(ts, 1000000);
    assert_int_equal(il, 2);
    ts = 1024;
    il = 1;
    hooks_task_init(h, &be, &ts, &il);
    assert_int_equal(ts, 1);
    assert_int_equal(il, 1); /* interleave_level left 0: no change */
    ts = 1024;
    hooks_task_init(h, &other, &ts, &il);
    assert_int_equal(ts, 1024);
    assert_int_equal(report_value(h, "counts", "0"), 3); /* the output fields start at 0 on every call */
    assert_null(hooks_policy_error(h));
    hooks_destroy(h);
}

/* A map named with a quote and a backslash: the report is still JSON, the name escaped (results.json parses it
 * and left policy_maps out when it could not). */
static void test_report_escapes_map_names(void **state)
{
    (void)state;
    char path[512];
    fixture_path(path, sizeof path, "map_name_quote");
    struct testenv te;
    te_init(&te, 1);
    struct hooks *h = attach(&te, path, NULL, 0);
    struct hook_task t = te_task(1, "x");
    uint64_t ts = 1024;
    uint32_t il = 1;
    hooks_task_init(h, &t, &ts, &il);
    char *json = hooks_policy_report(h);
    assert_non_null(json);
    assert_string_equal(json, "{\"say\\\"hi\\\\\":{\"0\":7}}");
    free(json);
    hooks_destroy(h);
}

static void kfuncs_return_the_drivers_codes_and_helpers_obey_the_rules(void **state)
{
    (void)state;
    char path[512];
    fixture_path(path, sizeof path, "rules");
    struct testenv te;
    te_init(&te, 100);
    te.env.seed = 42;
    te.now_ns = 123456789;
    struct hooks *h = attach(&te, path, NULL, 0);
    struct hook_task t = te_task(3, "proc");
    t.pid = 4242;
    t.uid = 1000;
    t.gid = 1001;
    uint64_t ts = 1024;
    uint32_t il = 1;
    hooks_task_init(h, &t, &ts, &il);
    assert_int_equal(report_value(h, "codes", "0"), 0); /* APPLY */
    assert_int_equal(report_value(h, "codes", "1"), 2); /* NOOP_REPEAT */
    assert_int_equal(report_value(h, "codes", "2"), 4); /* NOOP_CONFLICT */
    assert_int_equal(report_value(h, "codes", "3"), 0); /* interleave 5: APPLY, REJECT_RANGE after the callback */
    assert_int_equal(report_value(h, "codes", "4"), 7); /* NULL ctx: REJECT_IDENTITY */
    assert_int_equal(report_value(h, "codes", "7"), 1); /* weak kfunc present */
    assert_int_equal(report_value(h, "codes", "8"), 0); /* weak kfunc absent */
    assert_int_equal(report_value(h, "codes", "9"), 123456789); /* ktime = virtual clock */
    assert_int_equal(report_value(h, "codes", "10"), 4242);     /* tgid of the caller */
    assert_int_equal(report_value(h, "codes", "11"), 1000);     /* uid */
    assert_int_equal(report_value(h, "codes", "14"), 1001);     /* gid */
    /* the conflict keeps the native timeslice; the interleave decision is out of range */
    assert_int_equal(ts, 1024);
    assert_int_equal(il, 1);
    assert_true(te_find(&te, "task_init", "timeslice", "noop") >= 0);
    assert_true(te_find(&te, "task_init", "interleave", "reject") >= 0);

    uint64_t req = 2048;
    hooks_timeslice_set(h, &t, &req);
    assert_int_equal(report_value(h, "codes", "5"), 6); /* 2,000,000 us: REJECT_RANGE */
    assert_int_equal(report_value(h, "codes", "6"), 4); /* 700 us after the recorded 2,000,000: NOOP_CONFLICT */
    assert_int_equal(report_value(h, "codes", "13"), 1); /* phase */
    assert_int_equal(req, 2048); /* the conflict keeps the incoming value */
    /* an incoming value outside 1..1,000,000 takes the native path without the program */
    req = 2000000;
    hooks_timeslice_set(h, &t, &req);
    assert_int_equal(req, 2000000);
    assert_string_equal(te.rec[te.nrec - 1].reason, "no decision");

    assert_false(hooks_bind(h, &t)); /* reject_bind -> BUSY_RETRY */
    assert_int_equal(report_value(h, "codes", "12"), 1); /* allow preset to 1 */

    /* one ops instance at a time */
    char err[512];
    assert_int_not_equal(hooks_load_policy_words(h, path, NULL, 0, err, sizeof err), 0);
    assert_non_null(strstr(err, "already attached"));
    hooks_destroy(h);
}

/*
 * The driver's answers for every sequence of one decision kfunc in one callback: the code of each call
 * and what the group ends with after the post-callback validation (native 1024 us / MEDIUM, incoming
 * SET_TIMESLICE 2048 us, profile minimum 100 us).
 */
enum { K_TS = 0, K_IL = 1, K_OVR = 2 };
static const struct code_case {
    int kfunc;
    int n;
    uint64_t values[6];
    int codes[6];
    uint64_t final; /* timeslice (K_TS), interleave (K_IL) or the SET_TIMESLICE value (K_OVR) after validation */
} code_cases[] = {
    {K_TS, 1, {500}, {POLICY_APPLY}, 500},
    {K_TS, 2, {500, 500}, {POLICY_APPLY, POLICY_NOOP_REPEAT}, 500},
    {K_TS, 2, {500, 600}, {POLICY_APPLY, POLICY_NOOP_CONFLICT}, 1024},
    {K_TS, 3, {500, 600, 500}, {POLICY_APPLY, POLICY_NOOP_CONFLICT, POLICY_NOOP_CONFLICT}, 1024},
    {K_TS, 3, {500, 600, 600}, {POLICY_APPLY, POLICY_NOOP_CONFLICT, POLICY_NOOP_CONFLICT}, 1024},
    {K_TS, 1, {50}, {POLICY_APPLY}, 1024},               /* below the minimum: APPLY, then REJECT_RANGE */
    {K_TS, 2, {0, 0}, {POLICY_APPLY, POLICY_NOOP_REPEAT}, 1024},
    {K_IL, 1, {2}, {POLICY_APPLY}, 2},
    {K_IL, 1, {3}, {POLICY_APPLY}, 1},                   /* APPLY at the call, REJECT_RANGE in validation */
    {K_IL, 2, {3, 3}, {POLICY_APPLY, POLICY_NOOP_REPEAT}, 1},
    {K_IL, 3, {0, 2, 0}, {POLICY_APPLY, POLICY_NOOP_CONFLICT, POLICY_NOOP_CONFLICT}, 1},
    {K_IL, 2, {3, 0}, {POLICY_APPLY, POLICY_NOOP_CONFLICT}, 1},
    {K_OVR, 1, {700}, {POLICY_APPLY}, 700},
    {K_OVR, 2, {700, 700}, {POLICY_APPLY, POLICY_NOOP_REPEAT}, 700},
    {K_OVR, 3, {700, 800, 700}, {POLICY_APPLY, POLICY_NOOP_CONFLICT, POLICY_NOOP_CONFLICT}, 2048},
    {K_OVR, 1, {2000000}, {POLICY_REJECT_RANGE}, 2048},
    {K_OVR, 2, {2000000, 700}, {POLICY_REJECT_RANGE, POLICY_NOOP_CONFLICT}, 2048}, /* recorded: conflict */
    {K_OVR, 2, {0, 700}, {POLICY_REJECT_RANGE, POLICY_NOOP_CONFLICT}, 2048},
    {K_OVR, 2, {700, 2000000}, {POLICY_APPLY, POLICY_REJECT_RANGE}, 2048},
    {K_OVR, 1, {1000000}, {POLICY_APPLY}, 1000000},
    {K_OVR, 1, {50}, {POLICY_APPLY}, 2048},              /* in the domain, below the minimum: validation */
};

static void kfunc_code_sequences_run_without_a_policy_error(void **state)
{
    (void)state;
    char path[512];
    fixture_path(path, sizeof path, "codes_table");
    for (size_t c = 0; c < sizeof code_cases / sizeof code_cases[0]; c++) {
        const struct code_case *k = &code_cases[c];
        char args[8][64];
        const char *argv[8];
        int na = 0;
        snprintf(args[na++], sizeof args[0], "map:seq[0]=%d", k->kfunc);
        snprintf(args[na++], sizeof args[0], "map:seq[1]=%d", k->n);
        for (int i = 0; i < k->n; i++)
            snprintf(args[na++], sizeof args[0], "map:seq[%d]=%llu", i + 2, (unsigned long long)k->values[i]);
        for (int i = 0; i < na; i++)
            argv[i] = args[i];
        struct testenv te;
        te_init(&te, 100);
        struct hooks *h = attach(&te, path, argv, na);
        struct hook_task t = te_task(5, "x");
        uint64_t ts = 1024, req = 2048;
        uint32_t il = 1;
        hooks_task_init(h, &t, &ts, &il);
        hooks_timeslice_set(h, &t, &req);
        for (int i = 0; i < k->n; i++) {
            char key[16];
            snprintf(key, sizeof key, "%d", i);
            long long got = report_value(h, "out", key);
            if (got != 100 + k->codes[i])
                fail_msg("case %zu call %d: code %lld, the driver answers %d", c, i, got - 100, k->codes[i]);
        }
        uint64_t final = k->kfunc == K_TS ? ts : k->kfunc == K_IL ? il : req;
        if (final != k->final)
            fail_msg("case %zu: ends %llu, the driver ends %llu", c, (unsigned long long)final,
                     (unsigned long long)k->final);
        assert_null(hooks_policy_error(h));
        hooks_destroy(h);
    }
}

static void test_fault_fails_cleanly(void **state)
{
    (void)state;
    char path[512];
    fixture_path(path, sizeof path, "ctx_read_past");
    struct testenv te;
    te_init(&te, 1);
    struct hooks *h = attach(&te, path, NULL, 0);
    assert_null(hooks_policy_error(h));
    struct hook_task t = te_task(9, "x");
    hooks_task_destroy(h, &t);
    const char *e = hooks_policy_error(h);
    assert_non_null(e);
    assert_non_null(strstr(e, "read_past_destroy"));
    assert_non_null(strstr(e, "insn"));
    assert_non_null(strstr(e, "ctx_read_past.bpf.c:10"));
    assert_true(te_find(&te, "task_destroy", "policy", "fault") >= 0);
    /* the policy is no longer called: native from now on */
    assert_false(hooks_active(h));
    hooks_destroy(h);
}

static void bad_args_are_refused_and_a_tiny_budget_faults_the_callback(void **state)
{
    (void)state;
    char path[512], err[2048];
    object_path(path, sizeof path, "lc_be_timeslice", "bpf");
    struct testenv te;
    te_init(&te, 1);
    struct hooks *h = hooks_create(&te.env);
    const char *bad[] = {"lc=lc"};
    assert_int_not_equal(hooks_load_policy_words(h, path, bad, 1, err, sizeof err), 0);
    assert_non_null(strstr(err, "unknown argument 'lc=lc'"));
    const char *badmap[] = {"map:nope[x]=1"};
    assert_int_not_equal(hooks_load_policy_words(h, path, badmap, 1, err, sizeof err), 0);
    assert_non_null(strstr(err, "no map 'nope'"));
    /* a budget too small for the callback faults it */
    const char *tiny[] = {"budget=5", "map:process_class[lc]=1"};
    assert_int_equal(hooks_load_policy_words(h, path, tiny, 2, err, sizeof err), 0);
    struct hook_task t = te_task(1, "lc");
    uint64_t ts = 1024;
    uint32_t il = 1;
    hooks_task_init(h, &t, &ts, &il);
    assert_int_equal(ts, 1024);
    assert_non_null(hooks_policy_error(h));
    assert_non_null(strstr(hooks_policy_error(h), "budget"));
    hooks_destroy(h);
}

/* ---- twins: C plugin vs BPF object on one hook sequence ---- */

enum step_kind { S_INIT, S_TSC, S_BIND, S_DESTROY };
struct step {
    enum step_kind kind;
    uint64_t tsg;
    const char *comm;
    uint32_t engine, runlist;
    uint64_t value;
};

struct outcome {
    uint64_t ts[16];
    uint32_t il[16];
    bool bound[16];
    struct testenv te;
};

static void play(const char *path, const char *const *args, int nargs, const struct step *steps, int n,
                 uint64_t min_us, struct outcome *o)
{
    memset(o, 0, sizeof *o);
    te_init(&o->te, min_us);
    struct hooks *h = attach(&o->te, path, args, nargs);
    for (int i = 0; i < n && i < 16; i++) {
        struct hook_task t = te_task(steps[i].tsg, steps[i].comm);
        t.engine_type = steps[i].engine;
        t.runlist_id = steps[i].runlist;
        o->ts[i] = steps[i].value;
        o->il[i] = 1;
        switch (steps[i].kind) {
        case S_INIT: hooks_task_init(h, &t, &o->ts[i], &o->il[i]); break;
        case S_TSC: hooks_timeslice_set(h, &t, &o->ts[i]); break;
        case S_BIND: o->bound[i] = hooks_bind(h, &t); break;
        case S_DESTROY: hooks_task_destroy(h, &t); break;
        }
    }
    assert_null(hooks_policy_error(h));
    hooks_destroy(h);
}

static void compare(const struct outcome *c, const struct outcome *b, const char *what)
{
    for (int i = 0; i < 16; i++)
        if (c->ts[i] != b->ts[i] || c->il[i] != b->il[i] || c->bound[i] != b->bound[i])
            fail_msg("%s: step %d: C timeslice %llu interleave %u bound %d, BPF %llu %u %d", what, i,
                     (unsigned long long)c->ts[i], c->il[i], c->bound[i], (unsigned long long)b->ts[i], b->il[i],
                     b->bound[i]);
    if (c->te.nrec != b->te.nrec)
        fail_msg("%s: %d trace records from the C plugin, %d from the object", what, c->te.nrec, b->te.nrec);
    for (int i = 0; i < c->te.nrec; i++) {
        const struct te_rec *x = &c->te.rec[i], *y = &b->te.rec[i];
        if (strcmp(x->hook, y->hook) || strcmp(x->field, y->field) || strcmp(x->result, y->result) ||
            strcmp(x->reason, y->reason) || x->value != y->value || x->tsg != y->tsg)
            fail_msg("%s: trace record %d: C %s/%s/%s/%s %llu, BPF %s/%s/%s/%s %llu", what, i, x->hook, x->field,
                     x->result, x->reason, (unsigned long long)x->value, y->hook, y->field, y->result, y->reason,
                     (unsigned long long)y->value);
    }
    assert_true(c->te.nrec > 0);
}

static const struct step timeslice_steps[] = {
    {S_INIT, 1, "lc", 1, 13, 1024},    {S_INIT, 2, "be", 1, 13, 1024},     {S_INIT, 3, "other", 1, 13, 1024},
    {S_INIT, 4, "lc", 10, 2, 1024},    {S_TSC, 1, "lc", 1, 13, 2048},      {S_TSC, 2, "be", 1, 13, 2048},
    {S_TSC, 3, "other", 1, 13, 2048},  {S_TSC, 4, "lc", 10, 2, 2048},      {S_BIND, 1, "lc", 1, 13, 0},
    {S_DESTROY, 1, "lc", 1, 13, 0},    {S_TSC, 1, "lc", 1, 13, 2048},      {S_INIT, 1, "be", 1, 13, 1024},
    {S_TSC, 1, "be", 1, 13, 4096},
};

static const struct step admission_steps[] = {
    {S_BIND, 1, "lc", 1, 13, 0},       {S_BIND, 2, "lc", 1, 13, 0},        {S_BIND, 3, "be", 1, 13, 0},
    {S_BIND, 4, "lc", 10, 2, 0},       {S_BIND, 1, "lc", 1, 13, 0},        {S_DESTROY, 1, "lc", 1, 13, 0},
    {S_BIND, 2, "lc", 1, 13, 0},       {S_BIND, 5, "other", 1, 13, 0},     {S_DESTROY, 2, "lc", 1, 13, 0},
    {S_DESTROY, 9, "lc", 1, 13, 0},    {S_BIND, 6, "lc", 1, 13, 0},
};

static void twin(const char *name, const char *const *c_args, int c_n, const char *const *b_args, int b_n,
                 const struct step *steps, int n, uint64_t min_us)
{
    char so[512];
    snprintf(so, sizeof so, "%s/%s.so", NVEMU_POLICY_DIR, name);
    struct outcome *c = calloc(1, sizeof *c), *b = calloc(1, sizeof *b);
    assert_non_null(c);
    assert_non_null(b);
    play(so, c_args, c_n, steps, n, min_us, c);
    for (int v = 0; v < N_VARIANTS; v++) {
        char obj[512], what[1100];
        object_path(obj, sizeof obj, name, variants[v]);
        snprintf(what, sizeof what, "%s vs %s", so, obj);
        play(obj, b_args, b_n, steps, n, min_us, b);
        compare(c, b, what);
    }
    free(c);
    free(b);
}

static void bpf_twins_decide_as_their_c_plugins(void **state)
{
    (void)state;
    const int nts = (int)(sizeof timeslice_steps / sizeof timeslice_steps[0]);
    const char *c1[] = {"lc=lc", "be=be"};
    const char *b1[] = {"map:process_class[lc]=1", "map:process_class[be]=2"};
    twin("lc_be_timeslice", c1, 2, b1, 2, timeslice_steps, nts, 1);
    twin("gpreempt", c1, 2, b1, 2, timeslice_steps, nts, 1);
    /* a profile whose minimum rejects gpreempt's 1 us: the same rejection on both */
    twin("gpreempt", c1, 2, b1, 2, timeslice_steps, nts, 2);
    const char *c2[] = {"lc=lc", "be=be", "lc_us=5000", "be_us=300", "lc_il=2", "be_il=0", "hold=0", "default=be"};
    const char *b2[] = {"map:process_class[lc]=1", "map:process_class[be]=2", "rodata:lc_us=5000",
                        "rodata:be_us=300", "rodata:lc_il=2", "rodata:be_il=0", "rodata:hold=0",
                        "rodata:default_cls=2"};
    twin("lc_be_timeslice", c2, 8, b2, 8, timeslice_steps, nts, 1);
    const char *c3[] = {"max_lc=1", "lc=lc", "be=be"};
    const char *b3[] = {"rodata:max_lc=1", "map:process_class[lc]=1", "map:process_class[be]=2",
                        "rodata:gr_runlist=13"};
    twin("admission", c3, 3, b3, 4, admission_steps, (int)(sizeof admission_steps / sizeof admission_steps[0]), 1);
}

/* ---- the gpu_ext-shaped object end to end at the hooks ---- */

static void gpu_ext_object_applies_its_per_process_timeslice_and_interleave(void **state)
{
    (void)state;
    char path[512];
    object_path(path, sizeof path, "gpu_ext_timeslice", "bpf");
    struct testenv te;
    te_init(&te, 1);
    const char *args[] = {"rodata:default_us=300", "map:process_timeslice[lc-server]=1000000",
                          "map:process_interleave[lc-server]=2"};
    struct hooks *h = attach(&te, path, args, 3);
    struct hook_task lc = te_task(1, "lc-server"), be = te_task(2, "be-train"), ce = te_task(3, "be-train");
    ce.engine_type = 10;
    uint64_t ts = 1024;
    uint32_t il = 1;
    hooks_task_init(h, &lc, &ts, &il);
    assert_int_equal(ts, 1000000);
    assert_int_equal(il, 2);
    ts = 1024;
    il = 1;
    hooks_task_init(h, &be, &ts, &il);
    assert_int_equal(ts, 300);
    assert_int_equal(il, 1);
    ts = 1024;
    hooks_task_init(h, &ce, &ts, &il);
    assert_int_equal(ts, 1024);
    uint64_t req = 2048;
    hooks_timeslice_set(h, &lc, &req);
    assert_int_equal(req, 1000000);
    req = 2048;
    hooks_timeslice_set(h, &be, &req);
    assert_int_equal(req, 300);
    assert_true(hooks_bind(h, &lc));
    hooks_task_destroy(h, &lc);
    /* bpf_printk lands in the trace */
    int p = te_find(&te, "task_init", "printk", "log");
    assert_true(p >= 0);
    assert_non_null(strstr(te.rec[p].reason, "task_init tsg 1 lc-server: timeslice 1000000 us"));
    /* statistics: 3 task_init, 2 applied, 2 overrides, 1 bind, 1 destroy */
    assert_int_equal(report_value(h, "stats", "0"), 3);
    assert_int_equal(report_value(h, "stats", "1"), 2);
    assert_int_equal(report_value(h, "stats", "2"), 2);
    assert_int_equal(report_value(h, "stats", "3"), 1);
    assert_int_equal(report_value(h, "stats", "4"), 1);
    assert_int_equal(report_value(h, "result_count", "0"), 4);
    assert_int_equal(report_value(h, "process_timeslice", "lc-server"), 1000000);
    hooks_destroy(h);
}

/* ---- the cuLaunchKernel uprobe and bpf_nv_gpu_preempt_tsg ---- */

struct preempt_log {
    uint32_t calls, hclient, htsg;
    uint32_t fail_htsg;            /* this group answers like a handle the driver does not know */
};

static int fake_preempt(void *ctx, uint32_t hclient, uint32_t htsg, char *why, size_t len)
{
    struct preempt_log *l = ctx;
    l->calls++;
    l->hclient = hclient;
    l->htsg = htsg;
    if (htsg == l->fail_htsg) {
        snprintf(why, len, "PREEMPT of 0x%08x: NV_ERR_OBJECT_NOT_FOUND, -EIO", htsg);
        return -EIO;
    }
    return 0;
}

static void test_preempt_on_launch(void **state)
{
    (void)state;
    for (int v = 0; v < N_VARIANTS; v++) {
        char path[512];
        object_path(path, sizeof path, "preempt_on_launch", variants[v]);
        struct testenv te;
        te_init(&te, 1);
        struct preempt_log log = {.fail_htsg = 0x5c0000ff};
        te.env.preempt_tsg = fake_preempt;
        te.env.preempt_ctx = &log;
        te.now_ns = 10000000;
        const char *args[] = {"map:process_class[lc]=1", "map:process_class[be]=2"};
        struct hooks *h = attach(&te, path, args, 2);
        struct hook_task lc = te_task(1, "lc"), be = te_task(2, "be");
        lc.htsg = 0x5c000001;
        be.hclient = 0xc1d00002;
        be.htsg = 0x5c000002;
        /* the BE group's handles come from libcuda's SET_TIMESLICE; the timeslice itself stays */
        uint64_t req = 2048;
        hooks_timeslice_set(h, &be, &req);
        assert_int_equal(req, 2048);
        hooks_timeslice_set(h, &lc, &req);
        /* a token request is not a launch; a launch by BE preempts nothing */
        hooks_work_submit(h, &lc, 0, HOOK_SUBMIT_TOKEN_REQUEST);
        hooks_work_submit(h, &be, 0, HOOK_SUBMIT_WORK);
        assert_int_equal(log.calls, 0);
        /* LC launches: BE's group is preempted, once per cooldown */
        hooks_work_submit(h, &lc, 0, HOOK_SUBMIT_WORK);
        assert_int_equal(log.calls, 1);
        assert_int_equal(log.hclient, 0xc1d00002);
        assert_int_equal(log.htsg, 0x5c000002);
        int r = te_find(&te, "work_submit", "preempt_tsg", "apply");
        assert_true(r >= 0);
        assert_int_equal(te.rec[r].value, 0x5c000002);
        hooks_work_submit(h, &lc, 0, HOOK_SUBMIT_WORK);
        assert_int_equal(log.calls, 1);
        te.now_ns += 2000000;
        hooks_work_submit(h, &lc, 0, HOOK_SUBMIT_WORK);
        assert_int_equal(log.calls, 2);
        assert_int_equal(report_value(h, "stats", "0"), 3); /* LC launches */
        assert_int_equal(report_value(h, "stats", "1"), 2); /* preempts that succeeded */
        assert_int_equal(report_value(h, "stats", "3"), 1); /* inside the cooldown */
        /* the group is gone: nothing to preempt */
        hooks_task_destroy(h, &be);
        te.now_ns += 2000000;
        hooks_work_submit(h, &lc, 0, HOOK_SUBMIT_WORK);
        assert_int_equal(log.calls, 2);
        /* a handle the driver does not know: -EIO, a zero handle: -EINVAL without reaching the driver */
        struct hook_task gone = te_task(3, "be"), zero = te_task(4, "be");
        gone.htsg = log.fail_htsg;
        zero.hclient = 0xc1d00004;
        zero.htsg = 0;
        hooks_timeslice_set(h, &gone, &req);
        hooks_timeslice_set(h, &zero, &req);
        te.now_ns += 2000000;
        hooks_work_submit(h, &lc, 0, HOOK_SUBMIT_WORK);
        assert_int_equal(log.calls, 3);
        assert_int_equal(report_value(h, "stats", "2"), 2); /* preempts that failed */
        r = te_find(&te, "work_submit", "preempt_tsg", "reject");
        assert_true(r >= 0);
        assert_non_null(strstr(te.rec[r].reason, "NV_ERR_OBJECT_NOT_FOUND"));
        assert_true(te_find(&te, "work_submit", "printk", "log") >= 0);
        hooks_destroy(h);
    }
    /* a host without channel groups (a policy check): -EIO, recorded */
    char path[512];
    object_path(path, sizeof path, "preempt_on_launch", "bpf");
    struct testenv te;
    te_init(&te, 1);
    const char *args[] = {"map:process_class[lc]=1", "map:process_class[be]=2"};
    struct hooks *h = attach(&te, path, args, 2);
    struct hook_task lc = te_task(1, "lc"), be = te_task(2, "be");
    uint64_t req = 2048;
    hooks_timeslice_set(h, &be, &req);
    hooks_work_submit(h, &lc, 0, HOOK_SUBMIT_WORK);
    int r = te_find(&te, "work_submit", "preempt_tsg", "reject");
    assert_true(r >= 0);
    assert_non_null(strstr(te.rec[r].reason, "no emulated GPU"));
    assert_int_equal(report_value(h, "stats", "2"), 1);
    hooks_destroy(h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(reference_objects_load_in_every_compiler_variant),
        cmocka_unit_test(gpu_ext_object_check_finds_its_callbacks_and_maps),
        cmocka_unit_test(broken_objects_are_refused_with_their_reason),
        cmocka_unit_test(test_three_member_ops_accepted),
        cmocka_unit_test(test_helper_without_args_after_args_load),
        cmocka_unit_test(each_object_loads_on_its_generations_and_refusals_say_why),
        cmocka_unit_test(test_driver_575_profile_selects_k4),
        cmocka_unit_test(test_driver_abi_wins_over_575_profile),
        cmocka_unit_test(test_k1_output_fields_applied),
        cmocka_unit_test(kfuncs_return_the_drivers_codes_and_helpers_obey_the_rules),
        cmocka_unit_test(kfunc_code_sequences_run_without_a_policy_error),
        cmocka_unit_test(test_report_escapes_map_names),
        cmocka_unit_test(test_fault_fails_cleanly),
        cmocka_unit_test(bad_args_are_refused_and_a_tiny_budget_faults_the_callback),
        cmocka_unit_test(bpf_twins_decide_as_their_c_plugins),
        cmocka_unit_test(gpu_ext_object_applies_its_per_process_timeslice_and_interleave),
        cmocka_unit_test(test_preempt_on_launch),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
