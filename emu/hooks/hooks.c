/*
 * Hook framework: dispatches the FIFO model's hook call sites to the attached
 * policy plugin and validates every decision the plugin makes through the
 * setters of policy_api.h before the caller commits it. With no policy every
 * entry point returns at once with the native values untouched and writes no
 * trace record, so native runs are unaffected byte for byte.
 */
#include "hooks/hooks.h"

#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "abi/nv_abi_desc.h"
#include "abi/nv_engine.h"
#include "base/deadline.h"
#include "base/log.h"
#include "bpf/bpf_attach.h"
#include "bpf/bpf_policy.h"
#include "hooks/policy_api.h"
#include "hooks/policy_loader_rows.h"

/* The public plugin header names the driver's numbers itself: they must stay the same. */
_Static_assert(NVEMU_ENGINE_GR0 == NV2080_ENGINE_TYPE_GR0 && NVEMU_ENGINE_GR7 == NV2080_ENGINE_TYPE_GR7 &&
                   NVEMU_ENGINE_COPY0 == NV2080_ENGINE_TYPE_COPY0 && NVEMU_ENGINE_COPY9 == NV2080_ENGINE_TYPE_COPY9 &&
                   NVEMU_ENGINE_NVDEC0 == NV2080_ENGINE_TYPE_NVDEC0 && NVEMU_ENGINE_NVENC0 == NV2080_ENGINE_TYPE_NVENC0 &&
                   NVEMU_ENGINE_SW == NV2080_ENGINE_TYPE_SW,
               "nvemu/policy.h engine numbers differ from emu/abi/nv_engine.h");

#define COMP "hooks"

/* One decision field per setter: a setter is only legal in the hooks that list its field. */
enum field { F_TIMESLICE, F_INTERLEAVE, F_BIND, F_REPLACE, F_RUNLIST, F_COUNT };

static const struct {
    const char *setter;
    const char *trace_field;
} field_info[F_COUNT] = {
    [F_TIMESLICE] = {"set_timeslice", "timeslice"},
    [F_INTERLEAVE] = {"set_interleave", "interleave"},
    [F_BIND] = {"reject_bind", "allow"},
    [F_REPLACE] = {"replace_timeslice", "timeslice"},
    [F_RUNLIST] = {"reorder_runlist", "runlist"},
};

struct decision {
    bool attempted;
    bool conflict;
    uint64_t value;
};

struct policy_ctx {
    struct hooks *h;
    const char *hook;
    const struct hook_task *t;
    unsigned allowed;             /* bitmask of enum field */
    struct decision d[F_COUNT];
    /* runlist_update only */
    const uint64_t *native;
    uint64_t *proposal;
    uint32_t n;
    bool proposal_bad;
};

struct hooks {
    struct hooks_env env;
    struct policy_host host;
    struct policy_ops ops;        /* plugin's table, callbacks beyond its size zeroed */
    bool attached;
    void *state;
    void *dl;
    char name[64];
    bool failed;                  /* policy_host.fail was called: the policy is no longer called */
    char error[1024];
    bool bpf;                     /* the policy is a BPF object: events beside the hooks reach its probes */
    uint64_t limit_ns;            /* wall-clock limit of one callback (hooks_set_callback_limit), 0: none */
    uint64_t cb_start_ns;         /* when the running callback began */
    uint64_t outer_deadline;      /* the thread's deadline before the running callback's */
    const char *cb_hook;          /* the running callback */
    const struct hook_task *cb_task;
};

static void trace(struct hooks *h, const char *hook, const struct hook_task *t, const char *field,
                  uint64_t value, const char *result, const char *reason)
{
    if (h->env.trace)
        h->env.trace(h->env.ctx, hook, t, field, value, result, reason);
}

/* The driver's domain of an override (timeslice control), checked when it is recorded. */
#define REPLACE_MAX_US 1000000u

/* NULL when v is a legal value for the field; otherwise the reason, written to buf. */
static const char *invalid_reason(const struct hooks *h, enum field f, uint64_t v, char *buf, size_t len)
{
    switch (f) {
    case F_TIMESLICE:
    case F_REPLACE:
        if (v == 0)
            return "zero timeslice";
        if (f == F_REPLACE && v > REPLACE_MAX_US)
            return "override outside 1..1000000 us";
        if (v < h->host.min_timeslice_us) {
            snprintf(buf, len, "below minimum %" PRIu64 " us", h->host.min_timeslice_us);
            return buf;
        }
        return NULL;
    case F_INTERLEAVE:
        return v > 2 ? "interleave not in {0,1,2}" : NULL;
    default:
        return NULL;
    }
}

/*
 * Records one setter call as the driver's decision record does: the first call APPLY, the same
 * value again NOOP_REPEAT, a different one NOOP_CONFLICT; the conflict is sticky (the first value
 * repeated after it is still NOOP_CONFLICT). Ranges are the post-callback validation's, with one
 * exception the driver makes: an override outside 1..1,000,000 us answers REJECT_RANGE at once
 * (range_ok false) and is still recorded, so a later different value is a conflict.
 */
static int record(struct policy_ctx *c, enum field f, uint64_t v, bool range_ok)
{
    char reason[96];
    if (!(c->allowed & (1u << f))) {
        snprintf(reason, sizeof reason, "%s not allowed in %s", field_info[f].setter, c->hook);
        trace(c->h, c->hook, c->t, field_info[f].trace_field, v, "reject", reason);
        return POLICY_REJECT_ACTION;
    }
    struct decision *d = &c->d[f];
    if (!d->attempted) {
        d->attempted = true;
        d->value = v;
        return range_ok ? POLICY_APPLY : POLICY_REJECT_RANGE;
    }
    if (d->value == v && !d->conflict) {
        trace(c->h, c->hook, c->t, field_info[f].trace_field, v, "noop", "repeat");
        return range_ok ? POLICY_NOOP_REPEAT : POLICY_REJECT_RANGE;
    }
    d->conflict = true;
    snprintf(reason, sizeof reason, "conflict with earlier %" PRIu64, d->value);
    trace(c->h, c->hook, c->t, field_info[f].trace_field, v, "noop", reason);
    return range_ok ? POLICY_NOOP_CONFLICT : POLICY_REJECT_RANGE;
}

static int scalar_setter(struct policy_ctx *c, enum field f, uint64_t v)
{
    return record(c, f, v, f != F_REPLACE || (v >= 1 && v <= REPLACE_MAX_US));
}

static int set_timeslice(struct policy_ctx *c, uint64_t us) { return scalar_setter(c, F_TIMESLICE, us); }
static int set_interleave(struct policy_ctx *c, uint32_t level) { return scalar_setter(c, F_INTERLEAVE, level); }
static int reject_bind(struct policy_ctx *c) { return record(c, F_BIND, 1, true); }
static int replace_timeslice(struct policy_ctx *c, uint64_t us) { return scalar_setter(c, F_REPLACE, us); }

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* True when b is a permutation of a (same multiset: interleave repetitions included). */
static bool is_permutation(const uint64_t *a, const uint64_t *b, uint32_t n)
{
    uint64_t *sa = malloc(2 * (size_t)n * sizeof *sa + 1);
    if (!sa)
        return false;
    uint64_t *sb = sa + n;
    memcpy(sa, a, n * sizeof *sa);
    memcpy(sb, b, n * sizeof *sb);
    qsort(sa, n, sizeof *sa, cmp_u64);
    qsort(sb, n, sizeof *sb, cmp_u64);
    bool same = memcmp(sa, sb, n * sizeof *sa) == 0;
    free(sa);
    return same;
}

static int reorder_runlist(struct policy_ctx *c, const uint64_t *entries, uint32_t n)
{
    if (!(c->allowed & (1u << F_RUNLIST)))
        return record(c, F_RUNLIST, n, true);
    bool ok = entries && n == c->n && is_permutation(c->native, entries, n);
    struct decision *d = &c->d[F_RUNLIST];
    if (!d->attempted) {
        d->attempted = true;
        d->value = n;
        c->proposal_bad = !ok;
        if (ok)
            memcpy(c->proposal, entries, n * sizeof *entries);
        return ok ? POLICY_APPLY : POLICY_REJECT_RANGE;
    }
    bool same = ok && !c->proposal_bad && memcmp(c->proposal, entries, n * sizeof *entries) == 0;
    if (same) {
        trace(c->h, c->hook, c->t, "runlist", n, "noop", "repeat");
        return POLICY_NOOP_REPEAT;
    }
    d->conflict = true;
    trace(c->h, c->hook, c->t, "runlist", n, "noop", "conflict with earlier order");
    return POLICY_NOOP_CONFLICT;
}

static uint64_t host_now(const struct policy_host *host)
{
    const struct hooks *h = host->host_ctx;
    return h->env.now ? h->env.now(h->env.ctx) : 0;
}

static void host_log(const struct policy_host *host, int level, const char *msg)
{
    const struct hooks *h = host->host_ctx;
    if (level < NVEMU_LOG_ERROR || level > NVEMU_LOG_DEBUG)
        level = NVEMU_LOG_INFO;
    nvemu_log((enum nvemu_log_level)level, "policy", "%s: %s", h->name, msg ? msg : "");
}

static void host_trace_note(const struct policy_host *host, const char *hook, const struct hook_task *t,
                            const char *field, const char *text)
{
    struct hooks *h = host->host_ctx;
    trace(h, hook ? hook : "policy", t, field ? field : "note", 0, "log", text ? text : "");
}

static void host_fail(const struct policy_host *host, const char *hook, const struct hook_task *t, const char *reason)
{
    struct hooks *h = host->host_ctx;
    if (h->failed)
        return;
    h->failed = true;
    snprintf(h->error, sizeof h->error, "%s", reason ? reason : "policy failed");
    LOG_ERROR(COMP, "policy %s failed, native scheduling from now on: %s", h->name, h->error);
    trace(h, hook ? hook : "policy", t, "policy", 0, "fault", h->error);
}

static int host_preempt_tsg(const struct policy_host *host, const char *hook, const struct hook_task *t,
                            uint32_t hclient, uint32_t htsg)
{
    struct hooks *h = host->host_ctx;
    hook = hook ? hook : "policy";
    if (!hclient || !htsg) {
        trace(h, hook, t, "preempt_tsg", htsg, "reject", "zero handle: -EINVAL");
        return -EINVAL;
    }
    char why[160] = "no emulated GPU to preempt on";
    int rc = h->env.preempt_tsg ? h->env.preempt_tsg(h->env.preempt_ctx, hclient, htsg, why, sizeof why) : -EIO;
    if (rc == 0) {
        trace(h, hook, t, "preempt_tsg", htsg, "apply", "");
        return 0;
    }
    char reason[224];
    snprintf(reason, sizeof reason, "client 0x%08x: %s", hclient, why);
    trace(h, hook, t, "preempt_tsg", htsg, "reject", reason);
    return rc;
}

void hooks_set_callback_limit(struct hooks *h, uint64_t limit_ns)
{
    h->limit_ns = limit_ns;
}

/* A callback came back after the limit: the policy is detached for every caller, loudly, as a fault would. */
static void overran(struct hooks *h, const struct hook_task *t, uint64_t took_ns)
{
    if (h->failed)
        return;
    h->failed = true;
    snprintf(h->error, sizeof h->error, "%s took %.1f ms, past the %.1f ms a callback may take", h->cb_hook,
             (double)took_ns / 1e6, (double)h->limit_ns / 1e6);
    LOG_ERROR(COMP, "policy %s overran its wall-clock limit, detached (native scheduling for every caller from now "
              "on): %s", h->name, h->error);
    trace(h, h->cb_hook, t, "policy", 0, "fault", h->error);
}

/* Marks entry into (hook != NULL) or exit from policy code; with a callback limit, times the callback: the
 * thread's deadline (base/deadline.h) lets a BPF policy stop part-way, and a callback that comes back late
 * detaches the policy. */
static void watch_mark(struct hooks *h, const char *hook, const struct hook_task *t)
{
    struct hooks_watch *watch = h->env.watch;
    if (h->limit_ns && hook) {
        h->cb_hook = hook;
        h->cb_task = t;
        h->cb_start_ns = nvemu_mono_ns();
        h->outer_deadline = nvemu_deadline_set(h->cb_start_ns + h->limit_ns);
    } else if (h->limit_ns && h->cb_hook) {
        uint64_t took = nvemu_mono_ns() - h->cb_start_ns;
        nvemu_deadline_set(h->outer_deadline);
        if (took > h->limit_ns)
            overran(h, h->cb_task, took);
        h->cb_hook = NULL;
    }
    if (!watch)
        return;
    if (!hook) {
        watch->policy[0] = '\0';
        return;
    }
    snprintf(watch->hook, sizeof watch->hook, "%s", hook);
    snprintf(watch->task, sizeof watch->task, "%s", t ? t->comm : "");
    snprintf(watch->policy, sizeof watch->policy, "%s", h->name);
    watch->now_ns = h->env.now ? h->env.now(h->env.ctx) : 0;
    watch->calls++;
}

struct hooks *hooks_create(const struct hooks_env *env)
{
    struct hooks *h = calloc(1, sizeof *h);
    if (!h)
        return NULL;
    if (env)
        h->env = *env;
    h->host = (struct policy_host){
        .api_version = NVEMU_POLICY_API_VERSION,
        .size = sizeof(struct policy_host),
        .min_timeslice_us = h->env.profile ? h->env.profile->min_timeslice_us : 0,
        .default_timeslice_us = h->env.profile ? h->env.profile->default_timeslice_us : 0,
        .set_timeslice = set_timeslice,
        .set_interleave = set_interleave,
        .reject_bind = reject_bind,
        .replace_timeslice = replace_timeslice,
        .reorder_runlist = reorder_runlist,
        .now_ns = host_now,
        .log = host_log,
        .host_ctx = h,
        .seed = h->env.seed,
        .trace_note = host_trace_note,
        .fail = host_fail,
        .preempt_tsg = host_preempt_tsg,
        .driver_major = h->env.profile && h->env.profile->driver_version[0]
                            ? nv_release_info(h->env.profile->release)->major : 0,
    };
    return h;
}

static void detach(struct hooks *h)
{
    if (h->attached && h->ops.fini) {
        watch_mark(h, "fini", NULL);
        h->ops.fini(h->state);
        watch_mark(h, NULL, NULL);
    }
    if (h->dl)
        dlclose(h->dl);
    h->attached = false;
    h->failed = false;
    h->error[0] = '\0';
    h->state = NULL;
    h->dl = NULL;
    h->bpf = false;
    memset(&h->ops, 0, sizeof h->ops);
    h->name[0] = '\0';
}

void hooks_destroy(struct hooks *h)
{
    if (!h)
        return;
    detach(h);
    free(h);
}

/* How a policy's state is made: by its ops' init from key=value strings, or by a runtime's typed start. */
struct starter {
    const char *const *args;
    int nargs;
    int (*start)(void **state, const struct policy_host *host, const void *arg, char *err, size_t errlen);
    const void *arg;
};

static int attach_common(struct hooks *h, const struct policy_ops *ops, const struct starter *st, char *err,
                         size_t errlen)
{
    char dummy[1];
    if (!err || errlen == 0) {
        err = dummy;
        errlen = sizeof dummy;
    }
    err[0] = '\0';
    if (h->attached) {
        snprintf(err, errlen, "a policy is already attached (%s); one policy at a time", h->name);
        return -1;
    }
    if (!ops) {
        snprintf(err, errlen, "no policy ops table");
        return -1;
    }
    if (ops->api_version != NVEMU_POLICY_API_VERSION) {
        snprintf(err, errlen, "policy API version %u, this nvemu speaks version %u", ops->api_version,
                 NVEMU_POLICY_API_VERSION);
        return -1;
    }
    if (ops->size < POLICY_OPS_MIN_SIZE) {
        snprintf(err, errlen, "policy ops table of %u bytes is smaller than the version-%u minimum %zu",
                 ops->size, NVEMU_POLICY_API_VERSION, (size_t)POLICY_OPS_MIN_SIZE);
        return -1;
    }
    for (int i = 0; i < st->nargs; i++) {
        if (!st->args[i] || !strchr(st->args[i], '=') || st->args[i][0] == '=') {
            snprintf(err, errlen, "policy argument '%s' is not key=value", st->args[i] ? st->args[i] : "(null)");
            return -1;
        }
    }
    memset(&h->ops, 0, sizeof h->ops);
    memcpy(&h->ops, ops, ops->size < sizeof h->ops ? ops->size : sizeof h->ops);
    snprintf(h->name, sizeof h->name, "%s", ops->name ? ops->name : "unnamed");
    h->state = NULL;
    if (h->ops.init || st->start) {
        char perr[192] = "";
        watch_mark(h, "init", NULL);
        int irc = st->start ? st->start(&h->state, &h->host, st->arg, perr, sizeof perr)
                            : h->ops.init(&h->state, &h->host, st->args, st->nargs, perr, sizeof perr);
        watch_mark(h, NULL, NULL);
        if (irc != 0) {
            snprintf(err, errlen, "policy %s refused to start: %s", h->name, perr[0] ? perr : "init failed");
            memset(&h->ops, 0, sizeof h->ops);
            h->name[0] = '\0';
            return -1;
        }
    }
    h->attached = true;
    LOG_INFO(COMP, "policy %s attached", h->name);
    return 0;
}

int hooks_attach_ops(struct hooks *h, const struct policy_ops *ops, const char *const *args, int nargs,
                     char *err, size_t errlen)
{
    const struct starter st = {.args = args, .nargs = nargs > 0 ? nargs : 0};
    return attach_common(h, ops, &st, err, errlen);
}

int hooks_attach_started(struct hooks *h, const struct policy_ops *ops,
                         int (*start)(void **state, const struct policy_host *host, const void *arg, char *err,
                                      size_t errlen),
                         const void *arg, char *err, size_t errlen)
{
    const struct starter st = {.start = start, .arg = arg};
    return attach_common(h, ops, &st, err, errlen);
}

int hooks_load_policy(struct hooks *h, const char *path, const struct arg_list *args, char *err, size_t errlen)
{
    char dummy[1];
    if (!err || errlen == 0) {
        err = dummy;
        errlen = sizeof dummy;
    }
    if (h->attached) {
        snprintf(err, errlen, "a policy is already attached (%s); one policy at a time", h->name);
        return -1;
    }
    if (!path || !*path) {
        snprintf(err, errlen, "no policy path given");
        return -1;
    }
    char found[1024];
    if (hooks_find_policy(path, found, sizeof found, err, errlen) != 0)
        return -1;
    static const struct arg_list none;
    return hooks_policy_loader_for(found)->attach(h, found, args ? args : &none, err, errlen);
}

int hooks_load_policy_words(struct hooks *h, const char *path, const char *const *words, int nwords, char *err,
                            size_t errlen)
{
    char dummy[1];
    if (!err || errlen == 0) {
        err = dummy;
        errlen = sizeof dummy;
    }
    if (h->attached || !path || !*path)
        return hooks_load_policy(h, path, NULL, err, errlen);
    char found[1024];
    struct arg_list args = {0};
    int rc = -1;
    if (hooks_find_policy(path, found, sizeof found, err, errlen) == 0 &&
        hooks_policy_args_parse(found, words, nwords, &args, err, errlen) == 0)
        rc = hooks_load_policy(h, found, &args, err, errlen);
    arg_list_free(&args);
    return rc;
}

int hooks_attach_bpf(struct hooks *h, const char *path, const struct arg_list *args, char *err, size_t errlen)
{
    int rc = bpf_policy_attach(h, hooks_attach_started, path, args, err, errlen);
    h->bpf = rc == 0;
    return rc;
}

int hooks_attach_plugin(struct hooks *h, const char *path, const struct arg_list *args, char *err, size_t errlen)
{
    /* a plugin's init takes its arguments as the public ABI's "key=value" strings */
    char **words = calloc((size_t)args->n + 1, sizeof *words);
    bool oom = !words;
    for (int i = 0; !oom && i < args->n; i++)
        oom = !(words[i] = arg_text(&args->v[i]));
    int rc = -1;
    void *dl = NULL;
    if (oom) {
        snprintf(err, errlen, "out of memory");
    } else if (!(dl = dlopen(path, RTLD_NOW | RTLD_LOCAL))) {
        const char *why = dlerror();
        snprintf(err, errlen, "cannot load policy %s: %s", path, why ? why : "dlopen failed");
    } else {
        const struct policy_ops *ops = dlsym(dl, NVEMU_POLICY_SYMBOL);
        char aerr[256];
        if (!ops)
            snprintf(err, errlen, "%s is not an nvemu policy: no symbol '%s'", path, NVEMU_POLICY_SYMBOL);
        else if (hooks_attach_ops(h, ops, (const char *const *)words, args->n, aerr, sizeof aerr) != 0)
            snprintf(err, errlen, "%s: %s", path, aerr);
        else
            rc = 0;
        if (rc == 0)
            h->dl = dl;
        else
            dlclose(dl);
    }
    for (int i = 0; words && i < args->n; i++)
        free(words[i]);
    free(words);
    return rc;
}

bool hooks_active(const struct hooks *h)
{
    return h && h->attached && !h->failed;
}

const char *hooks_policy_error(const struct hooks *h)
{
    return h && h->failed ? h->error : NULL;
}

char *hooks_policy_report(const struct hooks *h)
{
    return h && h->attached && h->ops.report_json ? h->ops.report_json(h->state) : NULL;
}

bool hooks_acts_on_work_submit(const struct hooks *h)
{
    return hooks_active(h) && h->ops.on_work_submit;
}

const char *hooks_policy_name(const struct hooks *h)
{
    return h && h->attached ? h->name : NULL;
}

static void ctx_init(struct policy_ctx *c, struct hooks *h, const char *hook, const struct hook_task *t,
                     unsigned allowed)
{
    memset(c, 0, sizeof *c);
    c->h = h;
    c->hook = hook;
    c->t = t;
    c->allowed = allowed;
}

/*
 * Validates one scalar field after the callback and commits it into *value.
 * Returns true when *value changed.
 */
static bool commit_scalar(struct policy_ctx *c, enum field f, uint64_t *value, bool trace_default)
{
    const struct decision *d = &c->d[f];
    const char *tf = field_info[f].trace_field;
    if (!d->attempted) {
        if (trace_default)
            trace(c->h, c->hook, c->t, tf, *value, "noop", "no decision");
        return false;
    }
    if (d->conflict) {
        trace(c->h, c->hook, c->t, tf, *value, "noop", "conflict, native value kept");
        return false;
    }
    char buf[64];
    const char *bad = invalid_reason(c->h, f, d->value, buf, sizeof buf);
    if (bad) {
        trace(c->h, c->hook, c->t, tf, d->value, "reject", bad);
        return false;
    }
    if (d->value == *value) {
        trace(c->h, c->hook, c->t, tf, d->value, "noop", "equals current value");
        return false;
    }
    *value = d->value;
    trace(c->h, c->hook, c->t, tf, d->value, "apply", "policy decision");
    return true;
}

/* Scalar fields the caller can receive; a NULL output makes the matching setter illegal. */
static bool decide_fields(struct policy_ctx *c, uint64_t *timeslice_us, uint32_t *interleave, bool trace_default)
{
    bool changed = false;
    if (timeslice_us)
        changed |= commit_scalar(c, F_TIMESLICE, timeslice_us, trace_default);
    if (interleave) {
        uint64_t il = *interleave;
        if (commit_scalar(c, F_INTERLEAVE, &il, trace_default)) {
            *interleave = (uint32_t)il;
            changed = true;
        }
    }
    return changed;
}

void hooks_task_init(struct hooks *h, const struct hook_task *t, uint64_t *timeslice_us, uint32_t *interleave)
{
    if (!hooks_active(h) || !h->ops.on_task_init)
        return;
    struct policy_ctx c;
    ctx_init(&c, h, "task_init", t, (timeslice_us ? 1u << F_TIMESLICE : 0) | (interleave ? 1u << F_INTERLEAVE : 0));
    watch_mark(h, "on_task_init", t);
    h->ops.on_task_init(h->state, t, &c);
    watch_mark(h, NULL, NULL);
    decide_fields(&c, timeslice_us, interleave, true);
}

bool hooks_bind(struct hooks *h, const struct hook_task *t)
{
    if (!hooks_active(h) || !h->ops.on_bind)
        return true;
    struct policy_ctx c;
    ctx_init(&c, h, "bind", t, 1u << F_BIND);
    watch_mark(h, "on_bind", t);
    h->ops.on_bind(h->state, t, &c);
    watch_mark(h, NULL, NULL);
    if (c.d[F_BIND].attempted) {
        trace(h, "bind", t, "allow", 0, "apply", "rejected by policy: BUSY_RETRY");
        return false;
    }
    trace(h, "bind", t, "allow", 1, "noop", "no decision");
    return true;
}

bool hooks_work_submit_decide(struct hooks *h, const struct hook_task *t, uint32_t chid,
                              enum hook_submit_kind kind, uint64_t *timeslice_us, uint32_t *interleave)
{
    if (!hooks_active(h) || !h->ops.on_work_submit)
        return false;
    struct policy_ctx c;
    ctx_init(&c, h, "work_submit", t,
             (timeslice_us ? 1u << F_TIMESLICE : 0) | (interleave ? 1u << F_INTERLEAVE : 0));
    trace(h, "work_submit", t, "kind", kind, "noop",
          kind == HOOK_SUBMIT_TOKEN_REQUEST ? "token_request" : "work");
    watch_mark(h, "on_work_submit", t);
    h->ops.on_work_submit(h->state, t, chid, kind, &c);
    watch_mark(h, NULL, NULL);
    return decide_fields(&c, timeslice_us, interleave, false);
}

void hooks_work_submit(struct hooks *h, const struct hook_task *t, uint32_t chid, enum hook_submit_kind kind)
{
    hooks_work_submit_decide(h, t, chid, kind, NULL, NULL);
}

void hooks_timeslice_set(struct hooks *h, const struct hook_task *t, uint64_t *timeslice_us)
{
    if (!hooks_active(h) || !h->ops.on_timeslice_set || !timeslice_us)
        return;
    struct policy_ctx c;
    ctx_init(&c, h, "timeslice_set", t, 1u << F_REPLACE);
    watch_mark(h, "on_timeslice_set", t);
    h->ops.on_timeslice_set(h->state, t, *timeslice_us, &c);
    watch_mark(h, NULL, NULL);
    commit_scalar(&c, F_REPLACE, timeslice_us, true);
}

void hooks_runlist_update(struct hooks *h, uint32_t gpu, uint32_t runlist_id, uint64_t *entries, uint32_t n)
{
    if (!hooks_active(h) || !h->ops.on_runlist_update)
        return;
    struct hook_task rt = {.gpu = gpu, .runlist_id = runlist_id};
    struct policy_ctx c;
    ctx_init(&c, h, "runlist_update", &rt, 1u << F_RUNLIST);
    c.native = entries;
    c.n = n;
    c.proposal = calloc(n ? n : 1, sizeof *c.proposal);
    if (!c.proposal) {
        LOG_WARN(COMP, "runlist_update: out of memory, native order kept");
        return;
    }
    watch_mark(h, "on_runlist_update", NULL);
    h->ops.on_runlist_update(h->state, gpu, runlist_id, entries, n, &c);
    watch_mark(h, NULL, NULL);
    const struct decision *d = &c.d[F_RUNLIST];
    if (!d->attempted)
        trace(h, "runlist_update", &rt, "runlist", n, "noop", "no decision");
    else if (d->conflict)
        trace(h, "runlist_update", &rt, "runlist", n, "noop", "conflict, native order kept");
    else if (c.proposal_bad)
        trace(h, "runlist_update", &rt, "runlist", n, "reject", "order adds or drops entries");
    else if (n == 0 || memcmp(c.proposal, entries, n * sizeof *entries) == 0)
        trace(h, "runlist_update", &rt, "runlist", n, "noop", "equals native order");
    else {
        memcpy(entries, c.proposal, n * sizeof *entries);
        trace(h, "runlist_update", &rt, "runlist", n, "apply", "policy order");
    }
    free(c.proposal);
}

void hooks_task_destroy(struct hooks *h, const struct hook_task *t)
{
    if (!hooks_active(h) || !h->ops.on_task_destroy)
        return;
    watch_mark(h, "on_task_destroy", t);
    h->ops.on_task_destroy(h->state, t);
    watch_mark(h, NULL, NULL);
}

/* ---- events beside the hooks ---- */

static const enum bpf_attach_site event_site[] = {
    [HOOK_EVENT_IOCTL] = BPF_SITE_IOCTL,
    [HOOK_EVENT_PROCESS_EXIT] = BPF_SITE_PROCESS_EXIT,
    [HOOK_EVENT_XID] = BPF_SITE_XID,
    [HOOK_EVENT_USER_CALL] = BPF_SITE_USER,
};

bool hooks_wants(const struct hooks *h, enum hook_event e)
{
    return hooks_active(h) && h->bpf && (bpf_policy_sites(h->state) & 1u << event_site[e]);
}

static void fire(struct hooks *h, const struct bpf_attach_event *ev, const char *what)
{
    watch_mark(h, what, ev->who);
    bpf_policy_fire(h->state, ev);
    watch_mark(h, NULL, NULL);
}

void hooks_ioctl(struct hooks *h, bool ret, uint64_t file, uint64_t cmd, uint64_t arg, int64_t rc,
                 const struct hook_task *who, hook_read_fn read, void *read_ctx)
{
    if (!hooks_wants(h, HOOK_EVENT_IOCTL))
        return;
    struct bpf_attach_event ev = {.site = BPF_SITE_IOCTL, .ret = ret, .args = {file, cmd, arg}, .rc = (uint64_t)rc,
                                  .who = who, .read_user = read, .user_ctx = read_ctx};
    fire(h, &ev, ret ? "kretprobe nvidia_unlocked_ioctl" : "kprobe nvidia_unlocked_ioctl");
}

void hooks_process_exit(struct hooks *h, const struct hook_task *who)
{
    if (!hooks_wants(h, HOOK_EVENT_PROCESS_EXIT))
        return;
    struct bpf_attach_event ev = {.site = BPF_SITE_PROCESS_EXIT, .who = who};
    fire(h, &ev, "tracepoint sched_process_exit");
}

void hooks_xid(struct hooks *h, uint32_t xid, const char *dev)
{
    if (!hooks_wants(h, HOOK_EVENT_XID))
        return;
    struct bpf_attach_event ev = {.site = BPF_SITE_XID, .xid = xid, .xid_dev = dev};
    fire(h, &ev, "tracepoint nvidia_dev_xid");
}

void hooks_user_call_half(struct hooks *h, const char *lib, const char *func, const uint64_t args[6], uint64_t rc,
                          const struct hook_task *who, bool ret)
{
    if (!hooks_wants(h, HOOK_EVENT_USER_CALL))
        return;
    struct bpf_attach_event ev = {.site = BPF_SITE_USER, .ret = ret, .lib = lib, .func = func, .rc = ret ? rc : 0,
                                  .who = who};
    memcpy(ev.args, args, sizeof ev.args);
    fire(h, &ev, ret ? "uretprobe" : "uprobe");
}

void hooks_user_call(struct hooks *h, const char *lib, const char *func, const uint64_t args[6], uint64_t rc,
                     const struct hook_task *who)
{
    hooks_user_call_half(h, lib, func, args, rc, who, false);
    hooks_user_call_half(h, lib, func, args, rc, who, true);
}
