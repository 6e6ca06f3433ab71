/*
 * ABI check of a policy object's BTF against the layouts in bpf_abi.h. The
 * tables below are the expectation; the diff lists every member that is
 * missing, moved, resized or unexpected, so an author sees which header the
 * object was built with.
 */
#include "bpf/bpf_abi.h"

#include <bpf/btf.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

struct abi_field {
    const char *name;
    uint32_t offset, size;
};

struct abi_struct {
    const char *name;
    uint32_t size;
    const struct abi_field *fields;
    int n;
};

#define FIELDS(a) a, (int)(sizeof(a) / sizeof(a[0]))

static const struct abi_field task_init_fields[] = {
    {"tsg_id", 0, 8}, {"engine_type", 8, 4}, {"default_timeslice", 16, 8},
    {"default_interleave", 24, 4}, {"runlist_id", 28, 4},
};
static const struct abi_field bind_fields[] = {
    {"tsg_id", 0, 8}, {"runlist_id", 8, 4}, {"channel_count", 12, 4},
    {"timeslice_us", 16, 8}, {"interleave_level", 24, 4}, {"allow", 28, 4},
};
static const struct abi_field destroy_fields[] = {
    {"tsg_id", 0, 8}, {"runlist_id", 8, 4}, {"engine_type", 12, 4},
};
static const struct abi_field tsc_fields[] = {
    {"tsg_id", 0, 8}, {"requested_timeslice_us", 8, 8}, {"engine_type", 16, 4}, {"runlist_id", 20, 4},
    {"hclient", 24, 4}, {"htsg", 28, 4}, {"gpu_instance", 32, 4}, {"phase", 36, 4},
};

static const struct abi_struct ctx_structs[BPF_ABI_MEMBER_COUNT] = {
    [BPF_ABI_ON_TASK_INIT] = {"nv_gpu_task_init_ctx", 32, FIELDS(task_init_fields)},
    [BPF_ABI_ON_BIND] = {"nv_gpu_bind_ctx", 32, FIELDS(bind_fields)},
    [BPF_ABI_ON_TASK_DESTROY] = {"nv_gpu_task_destroy_ctx", 16, FIELDS(destroy_fields)},
    [BPF_ABI_ON_TIMESLICE_CONTROL] = {"nv_gpu_timeslice_control_ctx", 40, FIELDS(tsc_fields)},
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

/* The older task_init ABI: 48 bytes, output fields written by void kfuncs. */
static bool is_old_task_init(const struct btf *btf, const struct btf_type *t)
{
    if (t->size != 48)
        return false;
    const struct btf_member *m = btf_members(t);
    for (int i = 0; i < btf_vlen(t); i++) {
        const char *n = btf__name_by_offset(btf, m[i].name_off);
        if (n && strcmp(n, "interleave_level") == 0 && btf_member_bit_offset(t, i) == 40 * 8)
            return true;
    }
    return false;
}

static void check_ctx(const struct btf *btf, enum bpf_abi_member mem, uint32_t id, struct diff *d)
{
    const struct abi_struct *want = &ctx_structs[mem];
    const struct btf_type *t = btf__type_by_id(btf, id);
    const char *name = struct_name(btf, t);
    if (strcmp(name, want->name) != 0)
        diff_add(d, "%s: expected struct %s, found struct %s", member_names[mem], want->name, name);
    if (mem == BPF_ABI_ON_TASK_INIT && is_old_task_init(btf, t)) {
        diff_add(d, "struct %s: expected the current 32-byte layout, found the older 48-byte ABI with output "
                 "fields (timeslice @32, interleave_level @40) written by void kfuncs; rebuild against the "
                 "current header", name);
        return;
    }
    if (t->size != want->size)
        diff_add(d, "struct %s: expected %u bytes, found %u", name, want->size, t->size);
    const struct btf_member *m = btf_members(t);
    int vlen = btf_vlen(t);
    for (int f = 0; f < want->n; f++) {
        const struct abi_field *w = &want->fields[f];
        int found = -1;
        for (int i = 0; i < vlen; i++) {
            const char *n = btf__name_by_offset(btf, m[i].name_off);
            if (n && strcmp(n, w->name) == 0)
                found = i;
        }
        if (found < 0) {
            diff_add(d, "struct %s: expected member %s @%u (%u bytes), not found", name, w->name, w->offset, w->size);
            continue;
        }
        uint32_t off_bits = btf_member_bit_offset(t, (uint32_t)found);
        int64_t sz = btf__resolve_size(btf, m[found].type);
        if (off_bits != w->offset * 8 || sz != (int64_t)w->size)
            diff_add(d, "struct %s: expected %s @%u (%u bytes), found @%u%s (%lld bytes)", name, w->name, w->offset,
                     w->size, off_bits / 8, off_bits % 8 ? "+bits" : "", (long long)sz);
    }
    for (int i = 0; i < vlen; i++) {
        const char *n = btf__name_by_offset(btf, m[i].name_off);
        bool known = false;
        for (int f = 0; f < want->n && n; f++)
            known |= strcmp(n, want->fields[f].name) == 0;
        if (!known)
            diff_add(d, "struct %s: unexpected member %s @%u", name, n && *n ? n : "(anonymous)",
                     btf_member_bit_offset(t, (uint32_t)i) / 8);
    }
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
        uint32_t ctx = member_ctx_struct(btf, m[i].type);
        if (ctx)
            check_ctx(btf, (enum bpf_abi_member)mem, ctx, &d);
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
