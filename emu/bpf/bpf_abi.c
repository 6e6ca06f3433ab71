/*
 * ABI check of a policy object's BTF against the ops struct in bpf_abi.h, and
 * the driver generations K1..K4: which one an object was built for (from its
 * BTF) and which ones load it (from what its programs do).
 */
#include "bpf/bpf_abi.h"

#include <bpf/btf.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* The ctx struct each member's callback gets from the newest driver (K4). */
static const struct {
    const char *name;
    uint32_t size;
} ctx_structs[BPF_ABI_MEMBER_COUNT] = {
    [BPF_ABI_ON_TASK_INIT] = {"nv_gpu_task_init_ctx", 32},
    [BPF_ABI_ON_BIND] = {"nv_gpu_bind_ctx", 32},
    [BPF_ABI_ON_TASK_DESTROY] = {"nv_gpu_task_destroy_ctx", 16},
    [BPF_ABI_ON_TIMESLICE_CONTROL] = {"nv_gpu_timeslice_control_ctx", 40},
};

static const char *const member_names[BPF_ABI_MEMBER_COUNT] = {
    [BPF_ABI_ON_TASK_INIT] = "on_task_init",
    [BPF_ABI_ON_BIND] = "on_bind",
    [BPF_ABI_ON_TASK_DESTROY] = "on_task_destroy",
    [BPF_ABI_ON_TIMESLICE_CONTROL] = "on_timeslice_control",
};

#define OPS_NAME "nv_gpu_sched_ops"

const char *bpf_abi_member_name(enum bpf_abi_member m)
{
    return (unsigned)m < BPF_ABI_MEMBER_COUNT ? member_names[m] : "?";
}

const char *bpf_abi_ctx_name(enum bpf_abi_member m)
{
    return (unsigned)m < BPF_ABI_MEMBER_COUNT ? ctx_structs[m].name : "?";
}

uint32_t bpf_abi_ctx_size(enum bpf_abi_member m)
{
    return (unsigned)m < BPF_ABI_MEMBER_COUNT ? ctx_structs[m].size : 0;
}

int bpf_abi_member_at(uint32_t offset)
{
    return offset % 8 == 0 && offset / 8 < BPF_ABI_MEMBER_COUNT ? (int)(offset / 8) : -1;
}

/* Appends one line to the diff. */
struct diff {
    char *buf;
    size_t len, used;
    int lines;
};

__attribute__((format(printf, 2, 3))) static void diff_add(struct diff *d, const char *fmt, ...)
{
    if (d->used + 1 >= d->len)
        return;
    if (d->lines++)
        d->buf[d->used++] = '\n';
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(d->buf + d->used, d->len - d->used, fmt, ap);
    va_end(ap);
    if (w > 0)
        d->used = d->used + (size_t)w < d->len ? d->used + (size_t)w : d->len - 1;
}

const struct btf_type *bpf_btf_skip_mods(const struct btf *btf, uint32_t id, uint32_t *out_id)
{
    const struct btf_type *t = btf__type_by_id(btf, id);
    for (int guard = 0; t && guard < 32; guard++) {
        int k = btf_kind(t);
        if (k != BTF_KIND_TYPEDEF && k != BTF_KIND_VOLATILE && k != BTF_KIND_CONST && k != BTF_KIND_RESTRICT &&
            k != BTF_KIND_TYPE_TAG)
            break;
        id = t->type;
        t = btf__type_by_id(btf, id);
    }
    if (out_id)
        *out_id = id;
    return t;
}

/* The struct a function-pointer member's first parameter points at (0 when there is none). */
static uint32_t member_ctx_struct(const struct btf *btf, uint32_t member_type)
{
    const struct btf_type *t = bpf_btf_skip_mods(btf, member_type, NULL);
    if (!t || !btf_is_ptr(t))
        return 0;
    t = bpf_btf_skip_mods(btf, t->type, NULL);
    if (!t || !btf_is_func_proto(t) || btf_vlen(t) < 1)
        return 0;
    uint32_t id;
    t = bpf_btf_skip_mods(btf, btf_params(t)[0].type, NULL);
    if (!t || !btf_is_ptr(t))
        return 0;
    t = bpf_btf_skip_mods(btf, t->type, &id);
    return t && btf_is_struct(t) ? id : 0;
}

static const char *struct_name(const struct btf *btf, const struct btf_type *t)
{
    const char *n = btf__name_by_offset(btf, t->name_off);
    return n && *n ? n : "(anonymous)";
}

int bpf_abi_check_ops(const struct btf *btf, uint32_t type_id, enum bpf_abi_ops *ops, char *err, size_t errlen)
{
    struct diff d = {err, errlen, 0, 0};
    if (errlen)
        err[0] = '\0';
    uint32_t id;
    const struct btf_type *t = bpf_btf_skip_mods(btf, type_id, &id);
    if (!t || !btf_is_struct(t)) {
        diff_add(&d, "the struct_ops instance is not a struct");
        return -1;
    }
    const char *name = struct_name(btf, t);
    if (strcmp(name, OPS_NAME) != 0) {
        diff_add(&d, "struct_ops type: expected struct %s, found struct %s (nvemu emulates only %s)", OPS_NAME,
                 name, OPS_NAME);
        return -1;
    }
    const struct btf_member *m = btf_members(t);
    int vlen = btf_vlen(t);
    bool seen[BPF_ABI_MEMBER_COUNT] = {false};
    for (int i = 0; i < vlen; i++) {
        const char *n = btf__name_by_offset(btf, m[i].name_off);
        uint32_t off = btf_member_bit_offset(t, (uint32_t)i) / 8;
        int mem = -1;
        for (int k = 0; k < BPF_ABI_MEMBER_COUNT && n; k++)
            if (strcmp(n, member_names[k]) == 0)
                mem = k;
        if (mem < 0) {
            diff_add(&d, "struct %s: unknown ops member '%s' @%u (the driver has on_task_init, on_bind, "
                     "on_task_destroy, on_timeslice_control)", OPS_NAME, n && *n ? n : "(anonymous)", off);
            continue;
        }
        seen[mem] = true;
        if (off != (uint32_t)mem * 8)
            diff_add(&d, "struct %s: expected %s @%u, found @%u", OPS_NAME, member_names[mem], mem * 8, off);
    }
    for (int k = 0; k < BPF_ABI_ON_TIMESLICE_CONTROL; k++)
        if (!seen[k])
            diff_add(&d, "struct %s: expected member %s @%d, not found", OPS_NAME, member_names[k], k * 8);
    bool three = !seen[BPF_ABI_ON_TIMESLICE_CONTROL];
    uint32_t want_size = three ? 24 : 32;
    if (t->size != want_size)
        diff_add(&d, "struct %s: expected %u bytes, found %u", OPS_NAME, want_size, t->size);
    if (d.lines)
        return -1;
    *ops = three ? BPF_ABI_OPS_THREE_MEMBER : BPF_ABI_OPS_CURRENT;
    return 0;
}

/* ---- driver generations ---- */

/* ctx bytes per generation and member (0: the generation has no such member). */
static const uint32_t gen_ctx[BPF_ABI_GEN_NEWEST + 1][BPF_ABI_MEMBER_COUNT] = {
    [BPF_ABI_K1] = {48, 32, 8, 0},
    [BPF_ABI_K2] = {32, 32, 8, 0},
    [BPF_ABI_K3] = {32, 32, 16, 0},
    [BPF_ABI_K4] = {32, 32, 16, 40},
};

static const struct {
    const char *name;
    enum bpf_abi_ret ret[BPF_ABI_GEN_NEWEST + 1];
} gen_kfuncs[] = {
    {"bpf_nv_gpu_set_timeslice", {0, BPF_ABI_RET_VOID, BPF_ABI_RET_INT, BPF_ABI_RET_INT, BPF_ABI_RET_INT}},
    {"bpf_nv_gpu_set_interleave", {0, BPF_ABI_RET_VOID, BPF_ABI_RET_INT, BPF_ABI_RET_INT, BPF_ABI_RET_INT}},
    {"bpf_nv_gpu_reject_bind", {0, BPF_ABI_RET_VOID, BPF_ABI_RET_VOID, BPF_ABI_RET_VOID, BPF_ABI_RET_VOID}},
    {"bpf_nv_gpu_preempt_tsg", {0, BPF_ABI_RET_INT, BPF_ABI_RET_INT, BPF_ABI_RET_INT, BPF_ABI_RET_INT}},
    {"bpf_nv_gpu_override_timeslice",
     {0, BPF_ABI_RET_ABSENT, BPF_ABI_RET_ABSENT, BPF_ABI_RET_ABSENT, BPF_ABI_RET_INT}},
    /* the kernel's own bpf_wq kfuncs: there under every driver */
    {"bpf_wq_init", {0, BPF_ABI_RET_INT, BPF_ABI_RET_INT, BPF_ABI_RET_INT, BPF_ABI_RET_INT}},
    {"bpf_wq_set_callback_impl", {0, BPF_ABI_RET_INT, BPF_ABI_RET_INT, BPF_ABI_RET_INT, BPF_ABI_RET_INT}},
    {"bpf_wq_start", {0, BPF_ABI_RET_INT, BPF_ABI_RET_INT, BPF_ABI_RET_INT, BPF_ABI_RET_INT}},
};

const char *bpf_abi_gen_name(enum bpf_abi_gen g)
{
    static const char *const names[] = {"?", "K1", "K2", "K3", "K4"};
    return (unsigned)g <= BPF_ABI_GEN_NEWEST ? names[g] : "?";
}

enum bpf_abi_gen bpf_abi_gen_parse(const char *s)
{
    if (!s || (s[0] != 'K' && s[0] != 'k') || s[1] < '1' || s[1] > '0' + BPF_ABI_GEN_NEWEST || s[2])
        return BPF_ABI_GEN_NONE;
    return (enum bpf_abi_gen)(s[1] - '0');
}

uint32_t bpf_abi_gen_ctx_size(enum bpf_abi_gen g, enum bpf_abi_member m)
{
    return g >= BPF_ABI_K1 && g <= BPF_ABI_GEN_NEWEST && (unsigned)m < BPF_ABI_MEMBER_COUNT ? gen_ctx[g][m] : 0;
}

enum bpf_abi_ret bpf_abi_gen_kfunc(enum bpf_abi_gen g, const char *name)
{
    if (g < BPF_ABI_K1 || g > BPF_ABI_GEN_NEWEST || !name)
        return BPF_ABI_RET_ABSENT;
    for (size_t i = 0; i < sizeof gen_kfuncs / sizeof gen_kfuncs[0]; i++)
        if (strcmp(gen_kfuncs[i].name, name) == 0)
            return gen_kfuncs[i].ret[g];
    return BPF_ABI_RET_ABSENT;
}

static const char *ret_name(enum bpf_abi_ret r)
{
    return r == BPF_ABI_RET_VOID ? "void" : r == BPF_ABI_RET_INT ? "int" : "?";
}

int bpf_abi_gen_refuses(enum bpf_abi_gen g, const struct bpf_abi_use *u, char *why, size_t len)
{
    const char *gn = bpf_abi_gen_name(g);
    for (int m = 0; m < BPF_ABI_MEMBER_COUNT; m++) {
        if (!(u->members & (1u << m)))
            continue;
        uint32_t size = bpf_abi_gen_ctx_size(g, (enum bpf_abi_member)m);
        if (!size) {
            snprintf(why, len, "the %s driver's struct nv_gpu_sched_ops has no member %s, which the object sets "
                     "(libbpf refuses a non-NULL member the kernel's struct lacks)", gn, member_names[m]);
            return -1;
        }
        if (u->ctx_reach[m] > size) {
            snprintf(why, len, "%s reads %u bytes into its ctx (insn %u); the %s driver's struct %s has %u "
                     "(the verifier checks each access against the driver's own layout)", member_names[m],
                     u->ctx_reach[m], u->ctx_reach_insn[m], gn, ctx_structs[m].name, size);
            return -1;
        }
    }
    for (uint32_t k = 0; k < u->n_kfuncs; k++) {
        enum bpf_abi_ret have = bpf_abi_gen_kfunc(g, u->kfuncs[k].name), want = u->kfuncs[k].declared;
        if (have == BPF_ABI_RET_ABSENT) {
            snprintf(why, len, "calls kfunc %s, which the %s driver does not export", u->kfuncs[k].name, gn);
            return -1;
        }
        if (want != BPF_ABI_RET_UNKNOWN && want != have) {
            snprintf(why, len, "declares kfunc %s returning %s; the %s driver's returns %s (libbpf leaves the "
                     "extern unresolved and the verifier refuses the call)", u->kfuncs[k].name, ret_name(want), gn,
                     ret_name(have));
            return -1;
        }
    }
    return 0;
}

enum bpf_abi_ret bpf_abi_btf_kfunc_ret(const struct btf *btf, const char *name)
{
    int id = btf ? btf__find_by_name_kind(btf, name, BTF_KIND_FUNC) : -1;
    const struct btf_type *f = id > 0 ? btf__type_by_id(btf, (uint32_t)id) : NULL;
    const struct btf_type *proto = f ? btf__type_by_id(btf, f->type) : NULL;
    if (!proto || !btf_is_func_proto(proto))
        return BPF_ABI_RET_UNKNOWN;
    return proto->type == 0 ? BPF_ABI_RET_VOID : BPF_ABI_RET_INT;
}

/* Size of the ctx struct the object's member m points at, 0 when the member or its struct is unknown. */
static uint32_t object_ctx_size(const struct btf *btf, const struct btf_type *ops, const char *member)
{
    const struct btf_member *m = btf_members(ops);
    for (int i = 0; i < btf_vlen(ops); i++) {
        const char *n = btf__name_by_offset(btf, m[i].name_off);
        if (!n || strcmp(n, member) != 0)
            continue;
        uint32_t id = member_ctx_struct(btf, m[i].type);
        const struct btf_type *t = id ? btf__type_by_id(btf, id) : NULL;
        return t ? t->size : 0;
    }
    return 0;
}

enum bpf_abi_gen bpf_abi_built_for(const struct btf *btf, uint32_t type_id, char *why, size_t len)
{
    const struct btf_type *ops = bpf_btf_skip_mods(btf, type_id, NULL);
    if (!ops || !btf_is_struct(ops)) {
        snprintf(why, len, "no ops struct");
        return BPF_ABI_GEN_NONE;
    }
    uint32_t init = object_ctx_size(btf, ops, "on_task_init"), destroy = object_ctx_size(btf, ops, "on_task_destroy");
    bool tsc = false;
    const struct btf_member *m = btf_members(ops);
    for (int i = 0; i < btf_vlen(ops); i++) {
        const char *n = btf__name_by_offset(btf, m[i].name_off);
        tsc |= n && strcmp(n, "on_timeslice_control") == 0;
    }
    enum bpf_abi_ret ts = bpf_abi_btf_kfunc_ret(btf, "bpf_nv_gpu_set_timeslice"),
                     il = bpf_abi_btf_kfunc_ret(btf, "bpf_nv_gpu_set_interleave"),
                     ovr = bpf_abi_btf_kfunc_ret(btf, "bpf_nv_gpu_override_timeslice");
    enum bpf_abi_gen g;
    if (tsc || ovr != BPF_ABI_RET_UNKNOWN) {
        g = BPF_ABI_K4;
        snprintf(why, len, "%s",
                 tsc ? "ops struct with on_timeslice_control" : "declares bpf_nv_gpu_override_timeslice");
    } else if (destroy == 16) {
        g = BPF_ABI_K3;
        snprintf(why, len, "3-member ops, 16-byte task_destroy ctx");
    } else if (init == 48 || ts == BPF_ABI_RET_VOID || il == BPF_ABI_RET_VOID) {
        g = BPF_ABI_K1;
        snprintf(why, len, "%s", init == 48 ? "48-byte task_init ctx with output fields"
                                            : "void setter kfunc prototypes");
    } else {
        g = BPF_ABI_K2;
        snprintf(why, len, "3-member ops, %u-byte task_init ctx, %s setters, %u-byte task_destroy ctx", init,
                 ts == BPF_ABI_RET_INT || il == BPF_ABI_RET_INT ? "int" : "no", destroy);
    }
    return g;
}
