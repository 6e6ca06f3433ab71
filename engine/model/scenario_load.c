/*
 * Strict scenario validation through the shared schema walker (emu/yaml):
 * each mapping of the format is a field table, so an unknown key, a wrong
 * type or a value out of range is refused where it was written. Rules that
 * span fields run in each table's check; rules that span sections (task names
 * referenced by faults and expectations, ratio bounds that need `baseline`,
 * the size of the run) run last.
 */
#include "scenario.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "expect.h"
#include "hooks/hooks.h"
#include "profile/profile.h"
#include "scenario_calls.h"
#include "trace_import.h"
#include "yaml/yschema.h"

_Static_assert(sizeof(enum sc_class) == sizeof(int) && sizeof(enum sc_arrival) == sizeof(int) &&
                   sizeof(enum sc_preempt_mode) == sizeof(int) && sizeof(enum sc_stat) == sizeof(int),
               "YF_ENUM fields are written as int");

const char *const sc_class_names[] = {SC_CLASS_LIST(SC_ENUM_NAME) NULL};
const char *const sc_clock_names[] = {SC_CLOCK_LIST(SC_ENUM_NAME) NULL};
const char *const sc_arrival_names[] = {SC_ARRIVAL_LIST(SC_ENUM_NAME) NULL};
const char *const sc_context_names[] = {SC_CONTEXT_LIST(SC_ENUM_NAME) NULL};
const char *const sc_sched_kind_names[] = {SC_SCHED_KIND_LIST(SC_ENUM_NAME) NULL};
const char *const sc_sched_action_names[] = {SC_SCHED_ACTION_LIST(SC_ENUM_NAME) NULL};
const char *const sc_fault_kind_names[] = {SC_FAULT_KIND_LIST(SC_ENUM_NAME) NULL};
const char *const sc_stat_names[] = {SC_STAT_LIST(SC_ENUM_NAME) NULL};
const char *const sc_timing_names[SC_T_COUNT + 1] = {SC_TIMING_LIST(SC_ENUM_NAME) NULL};

/* A scenario file is a page of YAML; anything near these limits is not a scenario. */
static const struct ylimits scenario_limits = {.max_bytes = 1u << 20, .max_depth = 32, .max_entries = 1024};

struct ld {
    struct yctx c;
    char dir[512];                      /* relative paths resolve here ("" = the current directory) */
};

#define LD(c) ((struct ld *)(c)->user)
#define S(field) offsetof(struct scenario, field)

/* Path of `rel` relative to the scenario's directory; -1 (with a message at n) when it does not fit. */
static int resolve(struct yctx *c, const struct ynode *n, const char *rel, char *out, size_t len)
{
    const char *dir = LD(c)->dir;
    int w = rel[0] == '/' || !dir[0] ? snprintf(out, len, "%s", rel) : snprintf(out, len, "%s/%s", dir, rel);
    if (w < 0 || (size_t)w >= len)
        return yfail(c, n, "path '%s' is too long", rel);
    return 0;
}

static struct sc_pos pos_of(const struct ynode *n)
{
    return (struct sc_pos){n->line, n->column};
}

/* ---- gpu ---- */

static int gpu_timing_check(struct yctx *c, const struct ynode *map, void *base, const struct ynode *const *got)
{
    (void)c;
    (void)map;
    struct sc_gpu *g = base;
    for (int f = 0; f < SC_T_COUNT; f++)
        g->timing[f].set = got[f] != NULL;
    return 0;
}

/* Fixed overheads may be 0; a switch, a save or a timeout of 0 is not a real GPU. */
#define GT(id, name) [id] = YFIELD(name, YF_DURATION, offsetof(struct sc_gpu, timing[id].value_ns), \
                                   .min = id == SC_T_CTXSW || id == SC_T_CILP_SAVE || id == SC_T_PREEMPT_TIMEOUT),
static const struct yfield gpu_timing_fields[] = {SC_TIMING_LIST(GT) YFIELD_END};
#undef GT
static const struct ytable gpu_timing_table = {"gpu.timing", "gpu.timing", gpu_timing_fields, gpu_timing_check};

static int gpu_check(struct yctx *c, const struct ynode *map, void *base, const struct ynode *const *got)
{
    (void)c;
    struct sc_gpu *g = base;
    g->pos = pos_of(got[0] ? got[0] : map);
    return 0;
}

static const struct yfield gpu_fields[] = {
    YFIELD("profile", YF_STR, offsetof(struct sc_gpu, profile), .size = sizeof(((struct sc_gpu *)0)->profile),
           .nonempty = true),
    YFIELD("timeslice", YF_DURATION_US, offsetof(struct sc_gpu, timeslice_us), .min = 1),
    YFIELD("preempt_mode", YF_ENUM, offsetof(struct sc_gpu, preempt_mode), .names = profile_preempt_mode_names),
    YFIELD("timing", YF_MAP, 0, .sub = &gpu_timing_table),
    YFIELD("inject_latency", YF_BOOL, offsetof(struct sc_gpu, inject_latency)),
    YFIELD_END,
};
static const struct ytable gpu_table = {"gpu", "gpu", gpu_fields, gpu_check};

int sc_gpu_profile_set(const struct sc_gpu *g, char set[][SC_GPU_SET_LEN])
{
    int n = 0;
    if (g->timeslice_us)
        snprintf(set[n++], SC_GPU_SET_LEN, "fifo.default_timeslice=%lluus", (unsigned long long)g->timeslice_us);
    if (g->preempt_mode != SC_PREEMPT_PROFILE)
        snprintf(set[n++], SC_GPU_SET_LEN, "fifo.default_compute_preempt_mode=%s",
                 profile_preempt_mode_names[g->preempt_mode]);
    for (int f = 0; f < SC_T_COUNT; f++)
        if (g->timing[f].set)
            snprintf(set[n++], SC_GPU_SET_LEN, "timing.%s=%lluns", sc_timing_names[f],
                     (unsigned long long)g->timing[f].value_ns);
    return n;
}

/* ---- policy / scheduler ---- */

/* A sequence of strings (a program's argv after argv[0]). */
static int load_args_seq(struct yctx *c, const struct ynode *n, const char *what, char **args, int *nargs)
{
    if (yexpect(c, n, YNODE_SEQ, what))
        return -1;
    if (n->count > SC_MAX_ARGS)
        return yfail(c, n, "%s has more than %d items", what, SC_MAX_ARGS);
    char item[64];
    snprintf(item, sizeof(item), "%s item", what);
    for (size_t i = 0; i < n->count; i++) {
        const struct ynode *v = n->items[i];
        if (yexpect(c, v, YNODE_SCALAR, item))
            return -1;
        if (strlen(v->scalar) != v->len)
            return yfail(c, v, "%s contains a NUL character", item);
        if (!(args[*nargs] = strdup(v->scalar)))
            return yfail(c, v, "out of memory");
        (*nargs)++;
    }
    return 0;
}

static bool scalar_ok(const struct ynode *n)
{
    return n->kind == YNODE_SCALAR && strlen(n->scalar) == n->len;
}

/*
 * Appends one argument of the policy kind called kind ("plugin", "bpf") by its parts, checked against that
 * kind's table (hooks.h: struct policy_loader's args); a refusal names the scenario key.
 */
static int policy_arg(struct yctx *c, const struct ynode *n, struct sc_policy *p, const char *kind, const char *key,
                      const char *spec, const char *name, const char *elem, const char *value)
{
    char why[384];
    if (p->args.n >= SC_MAX_ARGS)
        return yfail(c, n, "policy has more than %d arguments", SC_MAX_ARGS);
    if (arg_list_add(&p->args, hooks_policy_loader_named(kind)->args, spec, name, elem, value, why, sizeof why))
        return yfail(c, n, "policy.%s: %s", key, why);
    return 0;
}

/* policy.args {key: value}: a plugin's arguments, handed to its init as "key=value". */
static int policy_args(struct yctx *c, const struct ynode *n, void *base)
{
    if (yexpect(c, n, YNODE_MAP, "policy.args"))
        return -1;
    for (size_t i = 0; i < n->count; i++) {
        const struct ynode *k = n->keys[i], *v = n->items[i];
        if (v->kind != YNODE_SCALAR)
            return yfail(c, v, "policy.args.%s must be a scalar", k->scalar);
        if (!scalar_ok(k) || !scalar_ok(v))
            return yfail(c, v, "policy.args.%s contains a NUL character", k->scalar);
        if (policy_arg(c, v, base, "plugin", "args", "", k->scalar, NULL, v->scalar))
            return -1;
    }
    return 0;
}

/* policy.rodata {knob: value}: the object's `const volatile` knobs (argument rodata). */
static int policy_rodata(struct yctx *c, const struct ynode *n, void *base)
{
    if (yexpect(c, n, YNODE_MAP, "policy.rodata"))
        return -1;
    for (size_t i = 0; i < n->count; i++) {
        const struct ynode *k = n->keys[i], *v = n->items[i];
        if (!scalar_ok(k) || !scalar_ok(v))
            return yfail(c, v, "policy.rodata.%s must be a scalar", k->scalar);
        if (policy_arg(c, v, base, "bpf", "rodata", "rodata", k->scalar, NULL, v->scalar))
            return -1;
    }
    return 0;
}

/* policy.maps {map: {key: value}}: elements written before attach (argument map). */
static int policy_maps(struct yctx *c, const struct ynode *n, void *base)
{
    if (yexpect(c, n, YNODE_MAP, "policy.maps"))
        return -1;
    for (size_t i = 0; i < n->count; i++) {
        const struct ynode *m = n->items[i];
        const char *map = n->keys[i]->scalar;
        if (yexpect(c, m, YNODE_MAP, "policy.maps entry ({key: value, ...})"))
            return -1;
        for (size_t k = 0; k < m->count; k++) {
            const struct ynode *key = m->keys[k], *v = m->items[k];
            if (!scalar_ok(key) || !scalar_ok(v))
                return yfail(c, v, "policy.maps.%s values must be scalars", map);
            if (policy_arg(c, key, base, "bpf", "maps", "map", map, key->scalar, v->scalar))
                return -1;
        }
    }
    return 0;
}

/* policy.attach {program: "LIB:FUNC"}: bare uprobes attached by symbol (argument attach). */
static int policy_attach(struct yctx *c, const struct ynode *n, void *base)
{
    if (yexpect(c, n, YNODE_MAP, "policy.attach ({program: LIBRARY:FUNCTION})"))
        return -1;
    for (size_t i = 0; i < n->count; i++) {
        const struct ynode *k = n->keys[i], *v = n->items[i];
        /* the schema's own words for the one shape this key has; the table checks it again */
        if (!scalar_ok(k) || !scalar_ok(v) || !strchr(v->scalar, ':'))
            return yfail(c, v, "policy.attach.%s must be LIBRARY:FUNCTION", k->scalar);
        if (policy_arg(c, v, base, "bpf", "attach", "attach", k->scalar, NULL, v->scalar))
            return -1;
    }
    return 0;
}

/* policy.driver_abi K1..K4: the gpu_ext driver generation the object runs as (argument driver_abi). */
static int policy_driver_abi(struct yctx *c, const struct ynode *n, void *base)
{
    if (!scalar_ok(n))
        return yfail(c, n, "policy.driver_abi must be one of K1, K2, K3, K4");
    return policy_arg(c, n, base, "bpf", "driver_abi", "driver_abi", NULL, NULL, n->scalar);
}

enum { POL_PLUGIN, POL_ARGS, POL_BPF, POL_RODATA, POL_MAPS, POL_ATTACH, POL_DRIVER_ABI };

static int policy_check(struct yctx *c, const struct ynode *map, void *base, const struct ynode *const *got)
{
    struct sc_policy *p = base;
    if (!got[POL_PLUGIN] == !got[POL_BPF])
        return yfail(c, map, "policy needs exactly one of 'plugin' (a C plugin) or 'bpf' (a struct_ops object)");
    if (!got[POL_BPF] && (got[POL_RODATA] || got[POL_MAPS] || got[POL_ATTACH] || got[POL_DRIVER_ABI]))
        return yfail(c, map, "policy.rodata, policy.maps, policy.attach and policy.driver_abi need policy.bpf");
    if (got[POL_BPF] && got[POL_ARGS])
        return yfail(c, got[POL_ARGS], "policy.args are a plugin's KEY=VALUE; a BPF object takes policy.rodata, "
                                       "policy.maps, policy.attach and policy.driver_abi");
    const struct ynode *name = got[POL_PLUGIN] ? got[POL_PLUGIN] : got[POL_BPF];
    p->pos = pos_of(name);
    /* Anything with a slash is a path; a bare name is a file beside the scenario when one of that name is
     * there, else a policy built with nvemu (NAME.so, NAME.bpf.o). */
    char rel[sizeof(p->plugin)];
    memcpy(rel, p->plugin, sizeof(rel));
    if (strchr(p->plugin, '/'))
        return resolve(c, name, rel, p->plugin, sizeof(p->plugin));
    char beside[sizeof(p->plugin)];
    if (resolve(c, name, rel, beside, sizeof(beside)))
        return -1;
    struct stat st;
    if (stat(beside, &st) == 0 && S_ISREG(st.st_mode)) {
        /* "./" keeps a file of the current directory a path, not a bundled name */
        int w = snprintf(p->plugin, sizeof(p->plugin), "%s%s", strchr(beside, '/') ? "" : "./", beside);
        if (w < 0 || (size_t)w >= sizeof(p->plugin))
            return yfail(c, name, "path '%s' is too long", rel);
        return 0;
    }
    size_t len = strlen(p->plugin);
    bool has_suffix = len > 2 && strcmp(p->plugin + len - 2, ".o") == 0;
    if (got[POL_BPF] && !has_suffix) {
        const char *suffix = hooks_policy_loader_named("bpf")->suffix;
        if (len + strlen(suffix) + 1 > sizeof(p->plugin))
            return yfail(c, name, "policy.bpf name is too long");
        memcpy(p->plugin + len, suffix, strlen(suffix) + 1);
    }
    return 0;
}

static const struct yfield policy_fields[] = {
    [POL_PLUGIN] = YFIELD("plugin", YF_STR, offsetof(struct sc_policy, plugin),
                          .size = sizeof(((struct sc_policy *)0)->plugin), .nonempty = true),
    [POL_ARGS] = YFIELD("args", YF_CUSTOM, 0, .custom = policy_args),
    /* a gpu_ext struct_ops object run as compiled, its knobs and map elements set before attach */
    [POL_BPF] = YFIELD("bpf", YF_STR, offsetof(struct sc_policy, plugin),
                       .size = sizeof(((struct sc_policy *)0)->plugin), .nonempty = true),
    [POL_RODATA] = YFIELD("rodata", YF_CUSTOM, 0, .custom = policy_rodata),
    [POL_MAPS] = YFIELD("maps", YF_CUSTOM, 0, .custom = policy_maps),
    [POL_ATTACH] = YFIELD("attach", YF_CUSTOM, 0, .custom = policy_attach),
    [POL_DRIVER_ABI] = YFIELD("driver_abi", YF_CUSTOM, 0, .custom = policy_driver_abi),
    YFIELD_END,
};
static const struct ytable policy_table = {"policy", "policy", policy_fields, policy_check};

static int load_policy(struct yctx *c, const struct ynode *n, void *base)
{
    struct scenario *s = base;
    if (n->kind == YNODE_SCALAR && strcmp(n->scalar, "none") == 0)
        return 0;
    if (yexpect(c, n, YNODE_MAP, "policy (or 'none')"))
        return -1;
    return ywalk(c, n, &policy_table, &s->policy);
}

int scenario_set_policy(struct scenario *s, const char *path, const char *const *args, int nargs, char *err,
                        size_t errlen)
{
    if (!path || !*path || strlen(path) >= sizeof(s->policy.plugin) || nargs < 0 || nargs > SC_MAX_ARGS) {
        snprintf(err, errlen, "policy path empty or too long, or more than %d arguments", SC_MAX_ARGS);
        return -1;
    }
    /* the words parse against the kind of the file the name finds; a name that finds none fails its run
     * with the lookup's reason, as when no word was given */
    struct arg_list typed = {0};
    char found[1024], why[384];
    if (nargs > 0) {
        if (hooks_find_policy(path, found, sizeof found, why, sizeof why) != 0) {
            snprintf(err, errlen, "policy '%s': %s", path, why);
            return -1;
        }
        if (hooks_policy_args_parse(found, args, nargs, &typed, why, sizeof why) != 0) {
            snprintf(err, errlen, "policy '%s': %s", path, why);
            arg_list_free(&typed);
            return -1;
        }
    }
    arg_list_free(&s->policy.args);
    /* a bare name is a file of the current directory when there is one, else a bundled policy
     * (hooks_find_policy) */
    snprintf(s->policy.plugin, sizeof(s->policy.plugin), "%s", path);
    s->policy.args = typed;
    return 0;
}

static int sched_args(struct yctx *c, const struct ynode *n, void *base)
{
    struct sc_scheduler *s = base;
    return load_args_seq(c, n, "scheduler.args", s->args, &s->nargs);
}

enum { SCH_KIND, SCH_ACTION, SCH_LC, SCH_BE, SCH_BINARY, SCH_ARGS };

static int sched_check(struct yctx *c, const struct ynode *map, void *base, const struct ynode *const *got)
{
    struct sc_scheduler *s = base;
    s->set_timeslices = got[SCH_LC] || got[SCH_BE] || s->action == SC_SCHED_TIMESLICE;
    if (s->kind == SC_SCHED_PROCESS) {
        if (!s->binary)
            return yfail(c, map, "scheduler of kind 'process' needs 'binary'");
        char path[512];
        if (resolve(c, got[SCH_BINARY], s->binary, path, sizeof(path)))
            return -1;
        free(s->binary);
        if (!(s->binary = strdup(path)))
            return yfail(c, got[SCH_BINARY], "out of memory");
        s->pos = pos_of(got[SCH_BINARY]);
    } else if (got[SCH_BINARY]) {
        return yfail(c, got[SCH_BINARY], "'binary' is only for a scheduler of kind 'process'");
    }
    return 0;
}

static const struct yfield sched_fields[] = {
    [SCH_KIND] = YFIELD("kind", YF_ENUM, offsetof(struct sc_scheduler, kind), .names = sc_sched_kind_names,
                        .required = true),
    [SCH_ACTION] = YFIELD("action", YF_ENUM, offsetof(struct sc_scheduler, action), .names = sc_sched_action_names),
    [SCH_LC] = YFIELD("lc_timeslice", YF_DURATION_US, offsetof(struct sc_scheduler, lc_timeslice_us), .min = 1),
    [SCH_BE] = YFIELD("be_timeslice", YF_DURATION_US, offsetof(struct sc_scheduler, be_timeslice_us), .min = 1),
    [SCH_BINARY] = YFIELD("binary", YF_STRDUP, offsetof(struct sc_scheduler, binary), .nonempty = true),
    [SCH_ARGS] = YFIELD("args", YF_CUSTOM, 0, .custom = sched_args),
    YFIELD_END,
};
static const struct ytable sched_table = {"scheduler", "scheduler", sched_fields, sched_check};

static int load_scheduler(struct yctx *c, const struct ynode *n, void *base)
{
    struct sc_scheduler *s = &((struct scenario *)base)->scheduler;
    s->lc_timeslice_us = 1000000;   /* GPreempt's set_priority values */
    s->be_timeslice_us = 1;
    return ywalk(c, n, &sched_table, s);
}

/* ---- tasks ---- */

/* One arrival offset per line ("1.5ms"; '#' starts a comment), in time order. */
static int load_trace_file(struct yctx *c, const struct ynode *n, struct sc_task *t)
{
    char path[512];
    if (yexpect(c, n, YNODE_SCALAR, "arrival.file") || resolve(c, n, n->scalar, path, sizeof(path)))
        return -1;
    char rerr[600];
    size_t len = 0;
    char *text = ytree_read_file(path, SC_TRACE_FILE_MAX, &len, rerr, sizeof(rerr));
    if (!text)
        return yfail(c, n, "cannot open arrival trace %s", rerr);
    if (memchr(text, '\0', len)) {
        free(text);
        return yfail(c, n, "arrival trace %s is not a text file (it holds NUL bytes)", path);
    }
    unsigned lineno = 0;
    size_t cap = 0;
    uint64_t prev = 0;
    int rc = 0;
    for (char *line = text, *next; line && *line && !rc; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        lineno++;
        line[strcspn(line, "#\r")] = '\0';
        char *s = line;
        while (*s == ' ' || *s == '\t')
            s++;
        size_t end = strlen(s);
        while (end && (s[end - 1] == ' ' || s[end - 1] == '\t'))
            s[--end] = '\0';
        if (!*s)
            continue;
        uint64_t ns;
        const char *why = NULL;
        if (yparse_duration(s, false, &ns, &why)) {
            snprintf(c->err, c->errlen, "%s:%u:1: arrival '%s' %s", path, lineno, s, why);
            rc = -1;
        } else if (ns < prev) {
            snprintf(c->err, c->errlen, "%s:%u:1: arrivals must be in time order", path, lineno);
            rc = -1;
        } else if (t->trace_count >= SC_TRACE_MAX_ARRIVALS) {
            snprintf(c->err, c->errlen, "%s:%u:1: more than %u arrivals in one trace", path, lineno,
                     SC_TRACE_MAX_ARRIVALS);
            rc = -1;
        } else {
            prev = ns;
            if (t->trace_count == cap) {
                cap = cap ? cap * 2 : 64;
                uint64_t *nt = realloc(t->trace_ns, cap * sizeof(*nt));
                if (!nt) {
                    rc = yfail(c, n, "out of memory");
                    break;
                }
                t->trace_ns = nt;
            }
            t->trace_ns[t->trace_count++] = ns;
        }
    }
    free(text);
    if (!rc && !t->trace_count)
        return yfail(c, n, "arrival trace %s holds no arrivals", path);
    return rc;
}

enum { AR_TYPE, AR_RATE, AR_THINK, AR_FILE, AR_START };

static int arrival_check(struct yctx *c, const struct ynode *map, void *base, const struct ynode *const *got)
{
    struct sc_task *t = base;
    bool open_loop = t->arrival == SC_ARRIVAL_PERIODIC || t->arrival == SC_ARRIVAL_POISSON;
    if (open_loop) {
        if (!got[AR_RATE])
            return yfail(c, map, "a %s arrival needs 'rate' (requests per second)", sc_arrival_names[t->arrival]);
        if (t->rate <= 0)
            return yfail(c, got[AR_RATE], "arrival.rate must be greater than 0 (requests per second), not %s",
                         got[AR_RATE]->scalar);
        if (t->rate > 1e7)
            return yfail(c, got[AR_RATE], "arrival.rate %s is above 10,000,000 requests per second",
                         got[AR_RATE]->scalar);
    } else if (got[AR_RATE]) {
        return yfail(c, got[AR_RATE], "'rate' is only for periodic and poisson arrivals");
    }
    if (got[AR_THINK] && t->arrival != SC_ARRIVAL_CLOSED)
        return yfail(c, got[AR_THINK], "'think' is only for closed arrivals");
    if (t->arrival == SC_ARRIVAL_TRACE) {
        if (!got[AR_FILE])
            return yfail(c, map, "a trace arrival needs 'file'");
        return load_trace_file(c, got[AR_FILE], t);
    }
    if (got[AR_FILE])
        return yfail(c, got[AR_FILE], "'file' is only for trace arrivals");
    return 0;
}

/* `file` is read by the check once the type is known; here it only has to be a non-empty string. */
static int arrival_file(struct yctx *c, const struct ynode *n, void *base)
{
    (void)base;
    char buf[256];
    return yread_str(c, n, "arrival.file", true, buf, sizeof(buf));
}

static const struct yfield arrival_fields[] = {
    [AR_TYPE] = YFIELD("type", YF_ENUM, offsetof(struct sc_task, arrival), .names = sc_arrival_names,
                       .required = true),
    [AR_RATE] = YFIELD("rate", YF_DOUBLE, offsetof(struct sc_task, rate)),
    [AR_THINK] = YFIELD("think", YF_DURATION, offsetof(struct sc_task, think_ns)),
    [AR_FILE] = YFIELD("file", YF_CUSTOM, 0, .custom = arrival_file),
    [AR_START] = YFIELD("start", YF_DURATION, offsetof(struct sc_task, start_ns)),
    YFIELD_END,
};
static const struct ytable arrival_table = {"arrival", "arrival", arrival_fields, arrival_check};

static const struct yfield kernel_fields[] = {
    YFIELD("duration", YF_DURATION, offsetof(struct sc_kernel, duration_ns), .min = 1, .required = true),
    YFIELD("blocks", YF_U32, offsetof(struct sc_kernel, blocks), .min = 1, .max = 1u << 24),
    YFIELD("stream", YF_U32, offsetof(struct sc_kernel, stream), .max = SC_MAX_STREAMS - 1),
    YFIELD("repeat", YF_U32, offsetof(struct sc_kernel, repeat), .min = 1, .max = 100000),
    /* 227 KiB: the most shared memory one block may have on Hopper (Volta: 96) */
    YFIELD("shared_kb", YF_U32, offsetof(struct sc_kernel, shared_kb), .max = 227),
    /* 1024 threads and 255 registers: the most a block and a thread may have (Volta to Hopper); 32 blocks per SM */
    YFIELD("threads", YF_U32, offsetof(struct sc_kernel, threads), .min = 1, .max = 1024),
    YFIELD("regs", YF_U32, offsetof(struct sc_kernel, regs), .min = 1, .max = 255),
    YFIELD("blocks_per_sm", YF_U32, offsetof(struct sc_kernel, blocks_per_sm), .min = 1, .max = 32),
    YFIELD("launch_gap", YF_DURATION, offsetof(struct sc_kernel, launch_gap_ns)),
    YFIELD_END,
};
static const struct ytable kernel_table = {"kernel", "kernel", kernel_fields, NULL};

static int load_kernel(struct yctx *c, const struct ynode *n, void *elem)
{
    struct sc_kernel *k = elem;
    k->blocks = 1;
    k->repeat = 1;
    return ywalk(c, n, &kernel_table, k);
}

enum { RQ_PREPROCESS, RQ_KERNELS, RQ_FROM_TRACE, RQ_ITERATION, RQ_CPU_SCALE, RQ_CPU_SPREAD };

/* A request from a profiler trace: the kernels (and the CPU time before the first launch) of one step. */
static int request_from_trace(struct yctx *c, const struct ynode *const *got, struct sc_task *t)
{
    if (got[RQ_KERNELS])
        return yfail(c, got[RQ_KERNELS], "a request has either 'kernels' or 'from_trace', not both");
    char path[512];
    if (yexpect(c, got[RQ_FROM_TRACE], YNODE_SCALAR, "request.from_trace") ||
        resolve(c, got[RQ_FROM_TRACE], got[RQ_FROM_TRACE]->scalar, path, sizeof(path)))
        return -1;
    const char *iteration = got[RQ_ITERATION] ? got[RQ_ITERATION]->scalar : "ProfilerStep";
    uint64_t preprocess = t->preprocess_ns;
    char err[700];
    if (sc_trace_import(path, iteration, t, err, sizeof(err)))
        return yfail(c, got[RQ_FROM_TRACE], "%s", err);
    if (got[RQ_CPU_SCALE]) {
        /* the profiler's own CPU cost taken out: the step's CPU time as the program spends it unprofiled */
        double scale;
        if (yread_double(c, got[RQ_CPU_SCALE], "request.cpu_scale", &scale))
            return -1;
        if (!(scale > 0 && scale <= 100))
            return yfail(c, got[RQ_CPU_SCALE], "request.cpu_scale must be above 0 and at most 100");
        t->preprocess_ns = (uint64_t)llround((double)t->preprocess_ns * scale);
        for (uint32_t i = 0; i < t->kernel_count; i++)
            t->kernels[i].launch_gap_ns = (uint64_t)llround((double)t->kernels[i].launch_gap_ns * scale);
    }
    if (got[RQ_PREPROCESS])
        t->preprocess_ns = preprocess;
    return 0;
}

/*
 * The log-space standard deviation of each request's CPU factor. Above 1 the factor's p99 would be ten times
 * its median: no longer one program's request-to-request variation.
 */
static int request_cpu_spread(struct yctx *c, const struct ynode *n, void *base)
{
    struct sc_task *t = base;
    if (yread_double(c, n, "request.cpu_spread", &t->cpu_spread))
        return -1;
    if (!(t->cpu_spread >= 0 && t->cpu_spread <= 1))
        return yfail(c, n, "request.cpu_spread must be at least 0 and at most 1 (a log-normal's sigma)");
    return 0;
}

static int request_check(struct yctx *c, const struct ynode *map, void *base, const struct ynode *const *got)
{
    struct sc_task *t = base;
    if (got[RQ_FROM_TRACE])
        return request_from_trace(c, got, t);
    if (got[RQ_ITERATION])
        return yfail(c, got[RQ_ITERATION], "'iteration' is only for a request 'from_trace'");
    if (got[RQ_CPU_SCALE])
        return yfail(c, got[RQ_CPU_SCALE], "'cpu_scale' is only for a request 'from_trace'");
    if (!got[RQ_KERNELS])
        return yfail(c, map, "a request needs 'kernels' (or 'from_trace')");
    t->streams = 1;
    for (uint32_t i = 0; i < t->kernel_count; i++)
        if (t->kernels[i].stream + 1 > t->streams)
            t->streams = t->kernels[i].stream + 1;
    return 0;
}

static int request_string(struct yctx *c, const struct ynode *n, void *base)
{
    (void)base;
    char buf[256];
    return yread_str(c, n, "request string", true, buf, sizeof(buf));
}

static int request_number(struct yctx *c, const struct ynode *n, void *base)
{
    (void)base;
    double v;
    return yread_double(c, n, "request number", &v);
}

static const struct yfield request_fields[] = {
    [RQ_PREPROCESS] = YFIELD("preprocess", YF_DURATION, offsetof(struct sc_task, preprocess_ns)),
    [RQ_KERNELS] = YFIELD("kernels", YF_SEQ, offsetof(struct sc_task, kernels), .size = sizeof(struct sc_kernel),
                          .count_off = offsetof(struct sc_task, kernel_count), .min_items = 1,
                          .max_items = SC_MAX_KERNELS, .custom = load_kernel),
    [RQ_FROM_TRACE] = YFIELD("from_trace", YF_CUSTOM, 0, .custom = request_string),
    [RQ_ITERATION] = YFIELD("iteration", YF_CUSTOM, 0, .custom = request_string),
    [RQ_CPU_SCALE] = YFIELD("cpu_scale", YF_CUSTOM, 0, .custom = request_number),
    [RQ_CPU_SPREAD] = YFIELD("cpu_spread", YF_CUSTOM, 0, .custom = request_cpu_spread),
    YFIELD_END,
};
static const struct ytable request_table = {"request", "request", request_fields, request_check};

static int process_args(struct yctx *c, const struct ynode *n, void *base)
{
    struct sc_task *t = base;
    return load_args_seq(c, n, "process.args", t->process_args, &t->process_nargs);
}

static int process_check(struct yctx *c, const struct ynode *map, void *base, const struct ynode *const *got)
{
    (void)map;
    struct sc_task *t = base;
    /* A bare name is looked up in $PATH when the run starts, as a shell would; a path is the scenario's. */
    if (!strchr(t->process, '/'))
        return 0;
    char path[512];
    if (resolve(c, got[0], t->process, path, sizeof(path)))
        return -1;
    free(t->process);
    if (!(t->process = strdup(path)))
        return yfail(c, got[0], "out of memory");
    return 0;
}

static const struct yfield process_fields[] = {
    YFIELD("binary", YF_STRDUP, offsetof(struct sc_task, process), .nonempty = true, .required = true),
    YFIELD("args", YF_CUSTOM, 0, .custom = process_args),
    YFIELD_END,
};
static const struct ytable process_table = {"process", "process", process_fields, process_check};

enum { TK_NAME, TK_CLASS, TK_COUNT, TK_COMM, TK_CONTEXT, TK_PREEMPT, TK_PROCESS, TK_REQUEST, TK_ARRIVAL, TK_CALLS,
       TK_GPU };

static int task_check(struct yctx *c, const struct ynode *map, void *base, const struct ynode *const *got)
{
    struct sc_task *t = base;
    if (strpbrk(t->name, "#\"<>&"))
        return yfail(c, got[TK_NAME], "task.name '%s' must not contain # \" < > &", t->name);
    if (!got[TK_COMM]) {
        /* Policies match the process name, which the kernel keeps to 15 bytes: never cut it silently. */
        if (strlen(t->name) >= sizeof(t->comm))
            return yfail(c, got[TK_NAME],
                         "task.name '%s' is longer than the %zu-byte process name policies match on; shorten it "
                         "or give 'comm' (the process name) explicitly",
                         t->name, sizeof(t->comm) - 1);
        memcpy(t->comm, t->name, strlen(t->name) + 1);
    }
    if (!got[TK_PREEMPT])
        t->preempt_mode = t->context == SC_CONTEXT_CUDA ? SC_PREEMPT_CILP : SC_PREEMPT_PROFILE;
    if (got[TK_PROCESS] && got[TK_REQUEST])
        return yfail(c, got[TK_REQUEST], "a task runs either 'process' or a synthetic 'request', not both");
    if (!got[TK_PROCESS] && !got[TK_REQUEST])
        return yfail(c, map, "task '%s' needs 'request' (or 'process')", t->name);
    if (!got[TK_ARRIVAL] && !got[TK_PROCESS])
        return yfail(c, map, "task '%s' needs 'arrival'", t->name);
    return 0;
}

static int task_sub(struct yctx *c, const struct ynode *n, void *base, const struct ytable *t)
{
    return ywalk(c, n, t, base);
}

static int task_process(struct yctx *c, const struct ynode *n, void *base)
{
    return task_sub(c, n, base, &process_table);
}

static int task_request(struct yctx *c, const struct ynode *n, void *base)
{
    return task_sub(c, n, base, &request_table);
}

static int task_arrival(struct yctx *c, const struct ynode *n, void *base)
{
    return task_sub(c, n, base, &arrival_table);
}

static const struct yfield task_fields[] = {
    [TK_NAME] = YFIELD("name", YF_STR, offsetof(struct sc_task, name), .size = SC_NAME_MAX, .nonempty = true,
                       .required = true),
    [TK_CLASS] = YFIELD("class", YF_ENUM, offsetof(struct sc_task, cls), .names = sc_class_names, .required = true),
    [TK_COUNT] = YFIELD("count", YF_U32, offsetof(struct sc_task, count), .min = 1, .max = 256),
    [TK_COMM] = YFIELD("comm", YF_STR, offsetof(struct sc_task, comm), .size = sizeof(((struct sc_task *)0)->comm),
                       .nonempty = true),
    [TK_CONTEXT] = YFIELD("context", YF_ENUM, offsetof(struct sc_task, context), .names = sc_context_names),
    [TK_PREEMPT] = YFIELD("preempt_mode", YF_ENUM, offsetof(struct sc_task, preempt_mode),
                          .names = profile_preempt_mode_names),
    [TK_PROCESS] = YFIELD("process", YF_CUSTOM, 0, .custom = task_process),
    [TK_REQUEST] = YFIELD("request", YF_CUSTOM, 0, .custom = task_request),
    [TK_ARRIVAL] = YFIELD("arrival", YF_CUSTOM, 0, .custom = task_arrival),
    [TK_CALLS] = YFIELD("calls", YF_CUSTOM, 0, .custom = scenario_task_calls),
    /* GPUs beyond the profile's count are refused by check (sc_check_deps), which loads the profile */
    [TK_GPU] = YFIELD("gpu", YF_U32, offsetof(struct sc_task, gpu), .max = 63),
    YFIELD_END,
};
static const struct ytable task_table = {"task", "task", task_fields, task_check};

static int load_task(struct yctx *c, const struct ynode *n, void *elem)
{
    struct sc_task *t = elem;
    t->pos = pos_of(n);
    t->count = 1;
    return ywalk(c, n, &task_table, t);
}

/* ---- faults ---- */

enum { FT_TYPE, FT_AT, FT_DURATION, FT_TASK, FT_REPLICA };

static int fault_check(struct yctx *c, const struct ynode *map, void *base, const struct ynode *const *got)
{
    struct sc_fault *f = base;
    const char *type = sc_fault_kind_names[f->kind];
    bool needs_task = f->kind == SC_FAULT_PREEMPT_TIMEOUT || f->kind == SC_FAULT_CLIENT_KILL;
    if (!got[FT_AT] && f->kind != SC_FAULT_PREEMPT_TIMEOUT)
        return yfail(c, map, "a %s fault needs 'at'", type);
    if (got[FT_DURATION] && f->kind != SC_FAULT_BUSY_RETRY && f->kind != SC_FAULT_PREEMPT_TIMEOUT)
        return yfail(c, got[FT_DURATION], "'duration' is only for busy_retry and preempt_timeout faults");
    if (!got[FT_DURATION] && f->kind == SC_FAULT_BUSY_RETRY)
        return yfail(c, map, "a busy_retry fault needs 'duration'");
    if (got[FT_TASK] && !needs_task)
        return yfail(c, got[FT_TASK], "'task' is only for preempt_timeout and client_kill faults");
    if (!got[FT_TASK] && needs_task)
        return yfail(c, map, "a %s fault needs 'task'", type);
    if (got[FT_REPLICA] && !needs_task)
        return yfail(c, got[FT_REPLICA], "'replica' is only for faults that name a task");
    return 0;
}

static const struct yfield fault_fields[] = {
    [FT_TYPE] = YFIELD("type", YF_ENUM, offsetof(struct sc_fault, kind), .names = sc_fault_kind_names,
                       .required = true),
    [FT_AT] = YFIELD("at", YF_DURATION, offsetof(struct sc_fault, at_ns)),
    [FT_DURATION] = YFIELD("duration", YF_DURATION, offsetof(struct sc_fault, duration_ns), .min = 1),
    [FT_TASK] = YFIELD("task", YF_STR, offsetof(struct sc_fault, task), .size = SC_NAME_MAX, .nonempty = true),
    [FT_REPLICA] = YFIELD("replica", YF_U32, offsetof(struct sc_fault, replica), .max = 255),
    YFIELD_END,
};
static const struct ytable fault_table = {"fault", "fault", fault_fields, fault_check};

static int load_fault(struct yctx *c, const struct ynode *n, void *elem)
{
    struct sc_fault *f = elem;
    f->pos = pos_of(n);
    return ywalk(c, n, &fault_table, f);
}

/* ---- cross-section checks ---- */

__attribute__((format(printf, 3, 4)))
static int fail_pos(struct yctx *c, struct sc_pos p, const char *fmt, ...)
{
    char msg[384];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    snprintf(c->err, c->errlen, "%s:%u:%u: %s", c->file, p.line, p.column, msg);
    return -1;
}

/*
 * Requests the run would complete, from rates and service times: what the
 * runner's result memory grows with. A closed task's request takes at least
 * its kernels (or the CPU gaps between their launches, when longer), preprocessing and think time.
 */
static double estimated_requests(const struct scenario *s, uint32_t t)
{
    const struct sc_task *k = &s->tasks[t];
    if (k->process)
        return 0;
    double busy_ns = (double)k->preprocess_ns + (double)k->think_ns, gpu_ns = 0, cpu_ns = 0;
    for (uint32_t i = 0; i < k->kernel_count; i++) {
        gpu_ns += (double)k->kernels[i].repeat * (double)k->kernels[i].duration_ns;
        cpu_ns += (double)k->kernels[i].repeat * (double)k->kernels[i].launch_gap_ns;
    }
    busy_ns += gpu_ns > cpu_ns ? gpu_ns : cpu_ns;
    double span = (double)s->duration_ns, requests;
    switch (k->arrival) {
    case SC_ARRIVAL_PERIODIC:
    case SC_ARRIVAL_POISSON:
        requests = k->rate * span / 1e9 + 1;
        break;
    case SC_ARRIVAL_CLOSED:
        requests = span / (busy_ns > 1 ? busy_ns : 1) + 1;
        break;
    default:
        requests = (double)k->trace_count;
        break;
    }
    return requests * k->count;
}

/* SC_MAX_RUN_MEMORY, or NVEMU_MAX_RUN_MEMORY (bytes, or a number with K, M, G or T); 0 when that is not a size. */
static double run_memory_limit(void)
{
    const char *v = getenv("NVEMU_MAX_RUN_MEMORY");
    if (!v || !*v)
        return (double)SC_MAX_RUN_MEMORY;
    char *end;
    double n = strtod(v, &end);
    static const char units[] = "KMGT";
    const char *u = *end ? strchr(units, *end) : NULL;
    if (u && end[1] == '\0')
        n *= pow(1024.0, (double)(u - units + 1));
    else if (*end)
        return 0;
    return n > 0 ? n : 0;
}

enum { RT_NAME, RT_DESCRIPTION, RT_GPU, RT_CLOCK, RT_SEED, RT_DURATION, RT_WARMUP, RT_BASELINE, RT_POLICY,
       RT_SCHEDULER, RT_TASKS, RT_FAULTS, RT_EXPECT };

static int root_check(struct yctx *c, const struct ynode *root, void *base, const struct ynode *const *got)
{
    (void)root;
    struct scenario *s = base;
    for (uint32_t i = 0; i < s->task_count; i++)
        for (uint32_t j = 0; j < i; j++)
            if (strcmp(s->tasks[i].name, s->tasks[j].name) == 0)
                return fail_pos(c, s->tasks[i].pos, "task name '%s' is used twice (first at line %u)",
                                s->tasks[i].name, s->tasks[j].pos.line);
    for (uint32_t i = 0; i < s->fault_count; i++) {
        struct sc_fault *f = &s->faults[i];
        if (f->at_ns >= s->duration_ns && f->kind != SC_FAULT_PREEMPT_TIMEOUT)
            return fail_pos(c, f->pos, "fault time is not before the end of the run");
        if (f->kind == SC_FAULT_PREEMPT_TIMEOUT &&
            (s->scheduler.kind != SC_SCHED_GPREEMPT || s->scheduler.action != SC_SCHED_PREEMPT))
            return fail_pos(c, f->pos, "a preempt_timeout fault needs 'scheduler: {kind: gpreempt, action: "
                                       "preempt}' (only the scheduler's waiting PREEMPT can time out)");
        if (f->kind == SC_FAULT_BUSY_RETRY &&
            (s->scheduler.kind != SC_SCHED_GPREEMPT || s->scheduler.action == SC_SCHED_TIMESLICE))
            return fail_pos(c, f->pos, "a busy_retry fault needs 'scheduler: {kind: gpreempt, action: "
                                       "preempt|disable}' (its PREEMPT / DISABLE_CHANNELS are the controls issued "
                                       "during the run)");
        if (!f->task[0])
            continue;
        int t = scenario_find_task(s, f->task);
        if (t < 0 || f->replica >= s->tasks[t].count)
            return fail_pos(c, f->pos, "fault names %s '%s' replica %u",
                            t < 0 ? "unknown task" : "a missing replica of", f->task, f->replica);
    }
    for (uint32_t i = 0; i < s->expect_count; i++) {
        struct sc_expect *e = &s->expects[i];
        if (e->task[0] && scenario_find_task(s, e->task) < 0)
            return fail_pos(c, e->pos, "expectation names unknown task '%s'", e->task);
        if ((e->has_ratio_min || e->has_ratio_max) && !s->baseline)
            return fail_pos(c, e->pos,
                            "a *_vs_alone bound needs 'baseline: true' (the runner then runs each task alone)");
    }
    if (s->warmup_ns >= s->duration_ns)
        return yfail(c, got[RT_WARMUP], "warmup must be shorter than duration");
    double total = 0;
    for (uint32_t i = 0; i < s->task_count; i++)
        total += estimated_requests(s, i);
    double limit = run_memory_limit(), need = total * SC_BYTES_PER_REQUEST * (s->baseline ? 2 : 1);
    if (limit <= 0)
        return yfail(c, got[RT_DURATION], "NVEMU_MAX_RUN_MEMORY='%s' is not a size (e.g. 4096M, 16G)",
                     getenv("NVEMU_MAX_RUN_MEMORY"));
    if (need > limit)
        return yfail(c, got[RT_DURATION],
                     "the run would keep about %.3g requests (rates x duration x count), %.3g GiB of results; "
                     "the limit is %.3g GiB: shorten the duration, lower the rates or raise NVEMU_MAX_RUN_MEMORY",
                     total, need / (double)(1ull << 30), limit / (double)(1ull << 30));
    return 0;
}

static int root_gpu(struct yctx *c, const struct ynode *n, void *base)
{
    return ywalk(c, n, &gpu_table, &((struct scenario *)base)->gpu);
}

static const struct yfield root_fields[] = {
    [RT_NAME] = YFIELD("name", YF_STR, S(name), .size = SC_NAME_MAX, .nonempty = true, .required = true),
    [RT_DESCRIPTION] = YFIELD("description", YF_STRDUP, S(description)),
    [RT_GPU] = YFIELD("gpu", YF_CUSTOM, 0, .custom = root_gpu),
    [RT_CLOCK] = YFIELD("clock", YF_ENUM, S(clock), .names = sc_clock_names),
    [RT_SEED] = YFIELD("seed", YF_U64, S(seed), .max = UINT64_MAX),
    [RT_DURATION] = YFIELD("duration", YF_DURATION, S(duration_ns), .min = 1, .required = true),
    [RT_WARMUP] = YFIELD("warmup", YF_DURATION, S(warmup_ns)),
    [RT_BASELINE] = YFIELD("baseline", YF_BOOL, S(baseline)),
    [RT_POLICY] = YFIELD("policy", YF_CUSTOM, 0, .custom = load_policy),
    [RT_SCHEDULER] = YFIELD("scheduler", YF_CUSTOM, 0, .custom = load_scheduler),
    [RT_TASKS] = YFIELD("tasks", YF_SEQ, S(tasks), .size = sizeof(struct sc_task), .count_off = S(task_count),
                        .min_items = 1, .max_items = SC_MAX_TASKS, .custom = load_task, .required = true),
    [RT_FAULTS] = YFIELD("faults", YF_SEQ, S(faults), .size = sizeof(struct sc_fault), .count_off = S(fault_count),
                         .max_items = SC_MAX_FAULTS, .custom = load_fault),
    [RT_EXPECT] = YFIELD("expect", YF_SEQ, S(expects), .size = sizeof(struct sc_expect),
                         .count_off = S(expect_count), .max_items = SC_MAX_EXPECT, .custom = sc_expect_load),
    YFIELD_END,
};
static const struct ytable root_table = {"", "the scenario", root_fields, root_check};

struct scenario *scenario_load_set(const char *path, const char *text, size_t len, const char *const *set,
                                   int nset, char *err, size_t errlen)
{
    struct ld L = {.c = {.file = path, .err = err, .errlen = errlen}};
    L.c.user = &L;
    const char *slash = strrchr(path, '/');
    if (text && slash)
        slash = NULL;  /* text from memory: relative paths are the current directory's */
    if (slash)
        snprintf(L.dir, sizeof(L.dir), "%.*s", (int)(slash - path), path);
    struct ynode *root = text ? ytree_parse(path, text, len, &scenario_limits, err, errlen)
                              : ytree_load_file(path, &scenario_limits, err, errlen);
    if (!root)
        return NULL;
    for (int i = 0; i < nset; i++) {
        char serr[400];
        if (ytree_set_path(root, set[i], serr, sizeof(serr)) != 0) {
            snprintf(err, errlen, "%s: %s", path, serr);
            ytree_free(root);
            return NULL;
        }
    }
    struct scenario *s = calloc(1, sizeof(*s));
    if (!s || !(s->path = strdup(path))) {
        free(s);
        ytree_free(root);
        snprintf(err, errlen, "%s: out of memory", path);
        return NULL;
    }
    snprintf(s->gpu.profile, sizeof(s->gpu.profile), "h200");
    s->gpu.preempt_mode = SC_PREEMPT_PROFILE;
    s->seed = 1;
    int rc = ywalk(&L.c, root, &root_table, s);
    ytree_free(root);
    if (rc) {
        scenario_free(s);
        return NULL;
    }
    return s;
}

struct scenario *scenario_load(const char *path, char *err, size_t errlen)
{
    return scenario_load_set(path, NULL, 0, NULL, 0, err, errlen);
}

struct scenario *scenario_load_overridden(const char *path, const char *const *keys, const char *const *values,
                                          size_t n, char *err, size_t errlen)
{
    char **set = calloc(n ? n : 1, sizeof(*set));
    struct scenario *s = NULL;
    size_t i;
    for (i = 0; set && i < n; i++) {
        size_t len = strlen(keys[i]) + strlen(values[i]) + 2;
        if (strchr(keys[i], '=') || !(set[i] = malloc(len)))
            break;
        snprintf(set[i], len, "%s=%s", keys[i], values[i]);
    }
    if (!set || i < n)
        snprintf(err, errlen, "%s: override '%s': %s", path, set && i < n ? keys[i] : "",
                 set && i < n && strchr(keys[i], '=') ? "a path has no '='" : "out of memory");
    else
        s = scenario_load_set(path, NULL, 0, (const char *const *)set, (int)n, err, errlen);
    for (size_t j = 0; set && j < n; j++)
        free(set[j]);
    free(set);
    return s;
}

struct scenario *scenario_load_string(const char *name, const char *text, char *err, size_t errlen)
{
    return scenario_load_set(name, text, strlen(text), NULL, 0, err, errlen);
}

void scenario_free(struct scenario *s)
{
    if (!s)
        return;
    for (uint32_t i = 0; i < s->task_count; i++) {
        free(s->tasks[i].trace_ns);
        free(s->tasks[i].process);
        for (int a = 0; a < s->tasks[i].process_nargs; a++)
            free(s->tasks[i].process_args[a]);
    }
    arg_list_free(&s->policy.args);
    for (int a = 0; a < s->scheduler.nargs; a++)
        free(s->scheduler.args[a]);
    free(s->scheduler.binary);
    free(s->description);
    free(s->path);
    free(s);
}
