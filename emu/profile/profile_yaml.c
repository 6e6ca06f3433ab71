/*
 * Strict YAML -> struct profile. The schema is a set of field tables: every
 * key must be known, every value must have the right type and range, and
 * every error names "file:line:column". Layout of the document: see
 * emu/profiles/h200.yaml, which documents each key.
 */
#include "profile/profile_yaml.h"

#include <ctype.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile/profile_base.h"
#include "yaml/yschema.h"

/* The profile being filled, for readers of sections whose rules span the whole profile. */
#define PROF(c) ((struct profile *)(c)->user)

static int parse_uint(struct yctx *c, const struct ynode *n, const char *what, uint64_t max, uint64_t *out)
{
    return yread_u64(c, n, what, 0, max, out);
}

static int hexval(char ch)
{
    return isdigit((unsigned char)ch) ? ch - '0' : tolower((unsigned char)ch) - 'a' + 10;
}

int profile_hex_decode(const char *s, uint32_t maxlen, uint8_t **out, uint32_t *outlen, char *why, size_t whylen)
{
    uint8_t *buf = NULL;
    size_t total = 0;
    for (int pass = 0; pass < 2; pass++) {
        size_t k = 0;
        const char *q = s;
        while (*q) {
            if (isspace((unsigned char)*q)) {
                q++;
                continue;
            }
            const char *t = q;
            while (isxdigit((unsigned char)*q))
                q++;
            size_t nd = (size_t)(q - t);
            if (*q == '*') {
                char *e;
                if (nd != 2)
                    return free(buf), snprintf(why, whylen, "repeat token needs one byte before '*'"), -1;
                unsigned long rep = strtoul(q + 1, &e, 10);
                if (e == q + 1 || (*e && !isspace((unsigned char)*e)) || rep == 0 || rep > maxlen)
                    return free(buf), snprintf(why, whylen, "bad repeat count in hex byte string"), -1;
                if (buf)
                    memset(buf + k, hexval(t[0]) << 4 | hexval(t[1]), rep);
                k += rep;
                q = e;
            } else {
                if (*q && !isspace((unsigned char)*q))
                    return free(buf), snprintf(why, whylen, "invalid character '%c' in hex byte string", *q), -1;
                if (nd % 2)
                    return free(buf), snprintf(why, whylen, "hex token with an odd number of digits"), -1;
                for (size_t i = 0; i < nd; i += 2, k++)
                    if (buf)
                        buf[k] = (uint8_t)(hexval(t[i]) << 4 | hexval(t[i + 1]));
            }
            if (k > maxlen)
                return free(buf), snprintf(why, whylen, "hex byte string longer than %u bytes", maxlen), -1;
        }
        if (pass == 0) {
            if (k == 0)
                return snprintf(why, whylen, "empty hex byte string"), -1;
            total = k;
            buf = malloc(total);
            if (!buf)
                return snprintf(why, whylen, "out of memory"), -1;
        }
    }
    *out = buf;
    *outlen = (uint32_t)total;
    return 0;
}

static int parse_hex(struct yctx *c, const struct ynode *n, const char *what, uint32_t maxlen, uint8_t **out,
                     uint32_t *outlen)
{
    char why[96];
    if (yexpect(c, n, YNODE_SCALAR, what))
        return -1;
    if (profile_hex_decode(n->scalar, maxlen, out, outlen, why, sizeof why))
        return yfail(c, n, "%s: %s", what, why);
    return 0;
}

/* ---- custom sections ---- */

#define P(field) offsetof(struct profile, field)
#define PSTR(key, field, ...) YFIELD(key, YF_STR, P(field), .size = sizeof(((struct profile *)0)->field), __VA_ARGS__)

static int parse_classes(struct yctx *c, const struct ynode *n, void *base)
{
    struct profile *p = base;
    if (yexpect(c, n, YNODE_SEQ, "classes"))
        return -1;
    for (size_t i = 0; i < n->count; i++) {
        const struct ynode *v = n->items[i];
        uint64_t x;
        if (parse_uint(c, v, "classes item", 0xFFFF, &x))
            return -1;
        if (p->class_count >= PROFILE_MAX_CLASSES)
            return yfail(c, v, "more than %d classes", PROFILE_MAX_CLASSES);
        for (uint32_t j = 0; j < p->class_count; j++)
            if (p->classes[j] == x)
                return yfail(c, v, "class 0x%llx listed twice", (unsigned long long)x);
        p->classes[p->class_count++] = (uint32_t)x;
    }
    return 0;
}

static const struct yfield engine_fields[] = {
    YFIELD("name", YF_STR, offsetof(struct profile_engine, name), .size = sizeof(((struct profile_engine *)0)->name),
           .required = true),
    YFIELD("type", YF_U32, offsetof(struct profile_engine, engine_type), .min = 1, .max = 0x53, .required = true),
    YFIELD("runlist", YF_U32, offsetof(struct profile_engine, runlist_id), .max = 63, .required = true),
    YFIELD_END,
};
static const struct ytable engine_table = {"engine", "an engine", engine_fields, NULL};

static int parse_engine(struct yctx *c, const struct ynode *n, void *elem)
{
    struct profile *p = PROF(c);
    struct profile_engine *e = elem;
    if (ywalk(c, n, &engine_table, e))
        return -1;
    for (const struct profile_engine *o = p->engines; o < e; o++)
        if (o->engine_type == e->engine_type)
            return yfail(c, n, "engine type 0x%x listed twice", e->engine_type);
    return 0;
}

/* index: value mapping into an info table. */
static int parse_info_map(struct yctx *c, const struct ynode *n, const char *what, struct profile_info *tbl,
                          uint32_t *count)
{
    if (yexpect(c, n, YNODE_MAP, what))
        return -1;
    for (size_t i = 0; i < n->count; i++) {
        const struct ynode *k = n->keys[i], *v = n->items[i];
        uint64_t idx, val;
        if (parse_uint(c, k, "index", 0xFFFFFFFFu, &idx) || parse_uint(c, v, "value", 0xFFFFFFFFu, &val))
            return -1;
        if (*count >= PROFILE_MAX_INFO)
            return yfail(c, k, "%s has more than %d entries", what, PROFILE_MAX_INFO);
        for (uint32_t j = 0; j < *count; j++)
            if (tbl[j].index == idx)
                return yfail(c, k, "index 0x%llx listed twice", (unsigned long long)idx);
        tbl[*count].index = (uint32_t)idx;
        tbl[*count].value = (uint32_t)val;
        (*count)++;
    }
    return 0;
}

static int parse_gpu_info(struct yctx *c, const struct ynode *n, void *base)
{
    struct profile *p = base;
    return parse_info_map(c, n, "gpu_info", p->gpu_info, &p->gpu_info_count);
}

static int parse_gr_info(struct yctx *c, const struct ynode *n, void *base)
{
    struct profile *p = base;
    return parse_info_map(c, n, "gr.info", p->gr_info, &p->gr_info_count);
}

static int parse_table_entries(struct yctx *c, const struct ynode *n, void *base)
{
    struct profile_info_table *t = base;
    return parse_info_map(c, n, "info_tables.entries", t->entries, &t->count);
}

static const struct yfield table_fields[] = {
    YFIELD("cmd", YF_U32, offsetof(struct profile_info_table, cmd), .min = 1, .max = 0xFFFFFFFFu, .required = true),
    YFIELD("entries", YF_CUSTOM, 0, .required = true, .custom = parse_table_entries),
    YFIELD_END,
};
static const struct ytable info_table_table = {"info_tables", "an info table", table_fields, NULL};

static int parse_info_table(struct yctx *c, const struct ynode *n, void *elem)
{
    struct profile *p = PROF(c);
    struct profile_info_table *t = elem;
    if (ywalk(c, n, &info_table_table, t))
        return -1;
    for (const struct profile_info_table *o = p->info_tables; o < t; o++)
        if (o->cmd == t->cmd)
            return yfail(c, n, "table for cmd 0x%x listed twice", t->cmd);
    return 0;
}

/* A canned control while it is parsed: `out` may be shorter than `size` (zero tail). */
struct canned_tmp {
    struct profile_canned_ctrl ctrl;  /* first: field offsets below are into it */
    uint32_t out_len;
};

/* Parsed into out_len; the size key (if any) pads it with zeros afterwards. */
static int parse_canned_out(struct yctx *c, const struct ynode *n, void *base)
{
    struct canned_tmp *k = base;
    return parse_hex(c, n, "canned.out", CANNED_MAX_BYTES, &k->ctrl.out, &k->out_len);
}

static int parse_canned_in(struct yctx *c, const struct ynode *n, void *base)
{
    struct canned_tmp *k = base;
    return parse_hex(c, n, "canned.in", CANNED_MAX_BYTES, &k->ctrl.in, &k->ctrl.in_size);
}

static const struct yfield canned_fields[] = {
    YFIELD("cmd", YF_U32, offsetof(struct canned_tmp, ctrl.cmd), .min = 1, .max = 0xFFFFFFFFu, .required = true),
    YFIELD("source", YF_STR, offsetof(struct canned_tmp, ctrl.source),
           .size = sizeof(((struct profile_canned_ctrl *)0)->source), .required = true),
    YFIELD("size", YF_U32, offsetof(struct canned_tmp, ctrl.size), .min = 1, .max = CANNED_MAX_BYTES),
    YFIELD("in", YF_CUSTOM, 0, .custom = parse_canned_in),
    YFIELD("out", YF_CUSTOM, 0, .required = true, .custom = parse_canned_out),
    YFIELD("status", YF_U32, offsetof(struct canned_tmp, ctrl.status), .max = 0xFFFFu),
    YFIELD_END,
};
static const struct ytable canned_table = {"canned", "a canned control", canned_fields, NULL};

static int parse_canned(struct yctx *c, const struct ynode *v, void *elem)
{
    struct profile *p = PROF(c);
    struct profile_canned_ctrl *k = elem;
    struct canned_tmp tmp = {0};
    int rc = ywalk(c, v, &canned_table, &tmp);
    *k = tmp.ctrl;
    if (rc)
        return -1;
    if (!k->size)
        k->size = tmp.out_len;
    if (tmp.out_len > k->size)
        return yfail(c, v, "'out' holds %u bytes but size is %u", tmp.out_len, k->size);
    if (tmp.out_len < k->size) {
        uint8_t *grown = realloc(k->out, k->size);
        if (!grown)
            return yfail(c, v, "out of memory");
        memset(grown + tmp.out_len, 0, k->size - tmp.out_len);
        k->out = grown;
    }
    if (k->in && k->in_size > k->size)
        return yfail(c, v, "'in' holds %u bytes but 'out' holds %u", k->in_size, k->size);
    if (k->in && k->in_size < k->size) {
        uint8_t *grown = realloc(k->in, k->size);
        if (!grown)
            return yfail(c, v, "out of memory");
        memset(grown + k->in_size, 0, k->size - k->in_size);
        k->in = grown;
        k->in_size = k->size;
    }
    for (const struct profile_canned_ctrl *o = p->canned; o < k; o++) {
        if (o->cmd != k->cmd)
            continue;
        if (o->size != k->size)
            return yfail(c, v, "cmd 0x%x answered with %u bytes here and %u bytes before", k->cmd, k->size, o->size);
        if (!o->in)
            return yfail(c, v, "cmd 0x%x already has an answer for every input", k->cmd);
        if (k->in && !memcmp(o->in, k->in, k->in_size))
            return yfail(c, v, "cmd 0x%x: same input listed twice", k->cmd);
    }
    return 0;
}

/* "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" -> 16 bytes. */
static int parse_uuid_into(struct yctx *c, const struct ynode *n, uint8_t *uuid)
{
    static const char shape[] = "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx";
    if (yexpect(c, n, YNODE_SCALAR, "uuid"))
        return -1;
    const char *s = n->scalar;
    if (n->len != sizeof shape - 1)
        return yfail(c, n, "uuid must look like %s", shape);
    int k = 0;
    for (size_t i = 0; i < sizeof shape - 1; i++) {
        if (shape[i] != 'x') {
            if (s[i] != shape[i])
                return yfail(c, n, "uuid must look like %s", shape);
            continue;
        }
        if (!isxdigit((unsigned char)s[i]))
            return yfail(c, n, "uuid must look like %s", shape);
        int v = hexval(s[i]);
        if (k % 2 == 0)
            uuid[k / 2] = (uint8_t)(v << 4);
        else
            uuid[k / 2] |= (uint8_t)v;
        k++;
    }
    return 0;
}

static int parse_uuid(struct yctx *c, const struct ynode *n, void *base)
{
    return parse_uuid_into(c, n, ((struct profile *)base)->uuid);
}

/* `uuids:` the UUIDs of GPU 1, 2, ... of a multi-GPU profile. */
static int parse_uuids(struct yctx *c, const struct ynode *n, void *base)
{
    struct profile *p = base;
    if (yexpect(c, n, YNODE_SEQ, "uuids"))
        return -1;
    if (n->count > sizeof p->extra_uuids / sizeof p->extra_uuids[0])
        return yfail(c, n, "uuids lists more than %zu GPUs", sizeof p->extra_uuids / sizeof p->extra_uuids[0]);
    for (size_t i = 0; i < n->count; i++)
        if (parse_uuid_into(c, n->items[i], p->extra_uuids[i]))
            return -1;
    p->extra_uuid_count = (uint32_t)n->count;
    return 0;
}

/* pci.next_gpu: which part of the PCI location GPU i+1 steps from GPU i's. */
static int parse_next_gpu(struct yctx *c, const struct ynode *n, void *base)
{
    struct profile *p = base;
    if (yexpect(c, n, YNODE_SCALAR, "next_gpu"))
        return -1;
    if (!strcmp(n->scalar, "bus") || !strcmp(n->scalar, "slot")) {
        p->pci_gpus_by_slot = !strcmp(n->scalar, "slot");
        return 0;
    }
    return yfail(c, n, "next_gpu must be bus or slot, not '%s'", n->scalar);
}

static const struct yfield gpu_bars_fields[] = {
    YFIELD("bar0_address", YF_U64, offsetof(struct profile_gpu_bars, bar0_address), .max = UINT64_MAX,
           .required = true),
    YFIELD("fb_address", YF_U64, offsetof(struct profile_gpu_bars, fb_address), .max = UINT64_MAX, .required = true),
    YFIELD("bar2_address", YF_U64, offsetof(struct profile_gpu_bars, bar2_address), .max = UINT64_MAX),
    YFIELD_END,
};
static const struct ytable gpu_bars_table = {"pci.next_gpus", "a GPU's BARs", gpu_bars_fields, NULL};

static const struct yfield pci_fields[] = {
    YFIELD("domain", YF_U32, P(pci_domain), .max = 0xFFFF, .required = true),
    YFIELD("bus", YF_U32, P(pci_bus), .max = 0xFF, .required = true),
    YFIELD("slot", YF_U32, P(pci_slot), .max = 31, .required = true),
    YFIELD("function", YF_U32, P(pci_function), .max = 7, .required = true),
    YFIELD("vendor_id", YF_U16, P(pci_vendor_id), .min = 1, .max = 0xFFFE, .required = true),
    YFIELD("device_id", YF_U16, P(pci_device_id), .min = 1, .max = 0xFFFE, .required = true),
    YFIELD("subsystem_id", YF_U32, P(pci_subsystem_id), .max = 0xFFFFFFFFu, .required = true),
    YFIELD("revision_id", YF_U32, P(pci_revision_id), .max = 0xFF, .required = true),
    YFIELD("ext_device_id", YF_U32, P(pci_ext_device_id), .max = 0xFFFF, .required = true),
    YFIELD("bar0_address", YF_U64, P(bar0_address), .max = UINT64_MAX, .required = true),
    YFIELD("bar0_size", YF_U64, P(bar0_size), .min = 1, .max = UINT64_MAX, .required = true),
    YFIELD("fb_address", YF_U64, P(fb_address), .max = UINT64_MAX, .required = true),
    YFIELD("fb_size", YF_U64, P(fb_size), .min = 1, .max = UINT64_MAX, .required = true),
    YFIELD("interrupt_line", YF_U16, P(interrupt_line), .max = 0xFFFF, .required = true),
    YFIELD("next_gpu", YF_CUSTOM, 0, .custom = parse_next_gpu),
    YFIELD("bar2_address", YF_U64, P(bar2_address), .max = UINT64_MAX),
    YFIELD("next_gpus", YF_SEQ, P(next_gpu_bars), .size = sizeof(struct profile_gpu_bars),
           .count_off = P(next_gpu_bars_count), .max_items = 31, .sub = &gpu_bars_table),
    YFIELD_END,
};

static const char *const kernel_module_names[] = {"open", "proprietary", NULL};

static const struct yfield build_fields[] = {
    PSTR("driver_version", driver_version, .required = true),
    PSTR("version", build_version, .required = true),
    PSTR("title", build_title, .required = true),
    YFIELD("kernel_module", YF_ENUM, P(kernel_module), .names = kernel_module_names),
    YFIELD("changelist", YF_U32, P(changelist), .max = 0xFFFFFFFFu, .required = true),
    YFIELD("official_changelist", YF_U32, P(official_changelist), .max = 0xFFFFFFFFu, .required = true),
    YFIELD_END,
};

static const struct yfield arch_fields[] = {
    YFIELD("architecture", YF_U32, P(arch_id), .max = 0xFFFFFFFFu, .required = true),
    YFIELD("implementation", YF_U32, P(arch_impl), .max = 0xFFFFFFFFu, .required = true),
    YFIELD("revision", YF_U32, P(arch_revision), .max = 0xFFFFFFFFu, .required = true),
    YFIELD("subrevision", YF_U32, P(arch_subrevision), .max = 0xFFFFFFFFu, .required = true),
    YFIELD_END,
};

static const struct yfield gr_fields[] = {
    YFIELD("sm_count", YF_U32, P(sm_count), .min = 1, .max = 1024, .required = true),
    YFIELD("gpc_count", YF_U32, P(gpc_count), .min = 1, .max = 32, .required = true),
    YFIELD("tpc_per_gpc", YF_U32, P(tpc_per_gpc), .min = 1, .max = 32, .required = true),
    YFIELD("sm_per_tpc", YF_U32, P(sm_per_tpc), .min = 1, .max = 8, .required = true),
    YFIELD("info_max", YF_U32, P(gr_info_max), .min = 1, .max = PROFILE_MAX_INFO, .required = true),
    YFIELD("ctx_buffer_size", YF_U64, P(gr_ctx_buffer_size), .min = 1, .max = UINT64_MAX, .required = true),
    YFIELD("info", YF_CUSTOM, 0, .required = true, .custom = parse_gr_info),
    YFIELD_END,
};

/* One hour: no modelled latency is anywhere near it; larger is a unit mistake. */
#define TMAX 3600000000000ull
/* Timeslices in us up to 10^9 (the FIFO_GET_INFO answer is 32 bits of us). */
#define TSMAX 1000000000000000ull

static int fifo_check(struct yctx *c, const struct ynode *map, void *base, const struct ynode *const *got)
{
    (void)got;
    struct profile *p = base;
    if (p->per_runlist_chram && !p->per_runlist_chram_hw)
        return yfail(c, map, "per_runlist_chram needs per_runlist_chram_hw");
    if (p->min_timeslice_us > p->default_timeslice_us)
        return yfail(c, map, "min_timeslice_us %llu exceeds default_timeslice_us %llu",
                     (unsigned long long)p->min_timeslice_us, (unsigned long long)p->default_timeslice_us);
    return 0;
}

static const struct yfield fifo_fields[] = {
    YFIELD("default_timeslice", YF_DURATION_US, P(default_timeslice_us), .min = 1000, .max = TSMAX,
           .legacy_us = "default_timeslice_us", .required = true),
    YFIELD("min_timeslice", YF_DURATION_US, P(min_timeslice_us), .max = TSMAX, .legacy_us = "min_timeslice_us",
           .required = true),
    YFIELD("timeslice_scale_max", YF_U32, P(timeslice_scale_max), .max = 15, .required = true),
    YFIELD("max_channel_groups", YF_U32, P(max_channel_groups), .min = 1, .max = 65536, .required = true),
    YFIELD("max_channels_per_group", YF_U32, P(max_channels_per_group), .min = 1, .max = 128, .required = true),
    YFIELD("max_subcontexts", YF_U32, P(max_subcontexts), .min = 1, .max = 64, .required = true),
    YFIELD("per_runlist_chram", YF_BOOL, P(per_runlist_chram), .required = true),
    YFIELD("per_runlist_chram_hw", YF_BOOL, P(per_runlist_chram_hw), .required = true),
    YFIELD("reserved_chids", YF_U32, P(reserved_chids), .max = 4095, .required = true),
    YFIELD("channel_uid_first", YF_U32, P(channel_uid_first), .max = 0xFFFFFFFFu, .required = true),
    YFIELD("default_compute_preempt_mode", YF_ENUM, P(default_compute_preempt_mode),
           .names = profile_preempt_mode_names, .required = true),
    YFIELD_END,
};

#define T(key, field) \
    YFIELD(key, YF_DURATION, P(timing.field), .max = TMAX, .legacy_us = key "_us", .required = true)
static const struct yfield timing_fields[] = {
    T("ctxsw", ctxsw_ns),
    T("runlist_update", runlist_update_ns),
    T("wfi_overhead", wfi_overhead_ns),
    T("cta_overhead", cta_overhead_ns),
    T("cilp_save", cilp_save_ns),
    T("preempt_timeout", preempt_timeout_ns),
    T("lat_get_timeslice", lat_get_timeslice_ns),
    T("lat_set_timeslice", lat_set_timeslice_ns),
    T("lat_preempt", lat_preempt_ns),
    T("lat_tsg_alloc", lat_tsg_alloc_ns),
    T("lat_channel_alloc", lat_channel_alloc_ns),
    T("lat_control", lat_control_ns),
    /* optional: 0 where a profile does not model them (emu/profile/profile.h) */
    YFIELD("save_per_kb", YF_DURATION, P(timing.save_ns_per_kb), .max = TMAX, .legacy_us = "save_per_kb_us"),
    YFIELD("restore_per_kb", YF_DURATION, P(timing.restore_ns_per_kb), .max = TMAX,
           .legacy_us = "restore_per_kb_us"),
    YFIELD("idle_save", YF_DURATION, P(timing.idle_save_ns), .max = TMAX, .legacy_us = "idle_save_us"),
    YFIELD("restore_busy", YF_DURATION, P(timing.restore_busy_ns), .max = TMAX, .legacy_us = "restore_busy_us"),
    YFIELD("cilp_save_per_sm", YF_DURATION, P(timing.cilp_save_per_sm_ns), .max = TMAX),
    YFIELD("cilp_resave", YF_DURATION, P(timing.cilp_resave_ns), .max = TMAX, .legacy_us = "cilp_resave_us"),
    YFIELD("cilp_restore", YF_DURATION, P(timing.cilp_restore_ns), .max = TMAX, .legacy_us = "cilp_restore_us"),
    YFIELD("cilp_restore_per_sm", YF_DURATION, P(timing.cilp_restore_per_sm_ns), .max = TMAX),
    YFIELD("short_slice_restore", YF_DURATION, P(timing.short_slice_restore_ns), .max = TMAX),
    YFIELD("short_slice_restore_per_us", YF_DURATION, P(timing.short_slice_restore_per_us_ns), .max = TMAX),
    YFIELD("lock_left", YF_DURATION, P(timing.lock_left_ns), .max = TMAX),
    YFIELD("lock_ran", YF_DURATION, P(timing.lock_ran_ns), .max = TMAX),
    YFIELD("wait_hides_gap", YF_BOOL, P(timing.wait_hides_gap)),
    YFIELD("sm_threads", YF_U32, P(timing.sm_threads), .max = 4096),
    YFIELD("sm_regs", YF_U32, P(timing.sm_regs), .max = 1u << 20),
    YFIELD("sm_blocks", YF_U32, P(timing.sm_blocks), .max = 64),
    YFIELD("sm_shared_kb", YF_U32, P(timing.sm_shared_kb), .max = 1024),
    YFIELD("kernel_regs", YF_U32, P(timing.kernel_regs), .max = 255),
    YFIELD("restore_per_thread_kb", YF_DURATION, P(timing.restore_ns_per_thread_kb), .max = TMAX,
           .legacy_us = "restore_per_thread_kb_us"),
    YFIELD("restore_per_sm_kb", YF_DURATION, P(timing.restore_ns_per_sm_kb), .max = TMAX),
    YFIELD("restore_thread_free_bytes", YF_U32, P(timing.restore_thread_free_bytes), .max = 1u << 20),
    YFIELD("timeslice_tick", YF_DURATION, P(timing.timeslice_tick_ns), .max = TMAX),
    YFIELD("yield_skips_late_work", YF_BOOL, P(timing.yield_skips_late_work)),
    YFIELD("yield_skip_min_run", YF_DURATION, P(timing.yield_skip_min_run_ns), .max = TMAX),
    YFIELD("expiry_skips_late_work", YF_BOOL, P(timing.expiry_skips_late_work)),
    YFIELD("wake_after", YF_DURATION, P(timing.wake_after_ns), .max = TMAX, .legacy_us = "wake_after_us"),
    YFIELD("wake_per_ms", YF_DURATION, P(timing.wake_per_ms_ns), .max = TMAX, .legacy_us = "wake_per_ms_us"),
    YFIELD("wake_max", YF_DURATION, P(timing.wake_max_ns), .max = TMAX, .legacy_us = "wake_max_us"),
    YFIELD("kernel_gap", YF_DURATION, P(timing.kernel_gap_ns), .max = TMAX, .legacy_us = "kernel_gap_us"),
    YFIELD("kernel_gap_overlap", YF_DURATION, P(timing.kernel_gap_overlap_ns), .max = TMAX,
           .legacy_us = "kernel_gap_overlap_us"),
    YFIELD("overlap_wave", YF_DURATION, P(timing.overlap_wave_ns), .max = TMAX, .legacy_us = "overlap_wave_us"),
    YFIELD("launch", YF_DURATION, P(timing.launch_ns), .max = TMAX, .legacy_us = "launch_us"),
    YFIELD("completion", YF_DURATION, P(timing.completion_ns), .max = TMAX, .legacy_us = "completion_us"),
    YFIELD("host_jitter", YF_DURATION, P(timing.host_jitter_ns), .max = TMAX, .legacy_us = "host_jitter_us"),
    YFIELD_END,
};
#undef T

/* The driver version picks the release whose layouts, classes and controls answer (nv_abi_desc.h). */
static int build_check(struct yctx *c, const struct ynode *map, void *base, const struct ynode *const *got)
{
    (void)map;
    struct profile *p = base;
    if (nv_release_parse(p->driver_version, &p->release))
        return 0;
    return yfail(c, got[0], "build.driver_version %s: nvemu models the driver releases 550, 575 and 580",
                 p->driver_version);
}

static const struct ytable build_table = {"build", "build", build_fields, build_check};
static const struct ytable pci_table = {"pci", "pci", pci_fields, NULL};
static const struct ytable arch_table = {"arch_info", "arch_info", arch_fields, NULL};
static const struct ytable gr_table = {"gr", "gr", gr_fields, NULL};
static const struct ytable fifo_table = {"fifo", "fifo", fifo_fields, fifo_check};
static const struct ytable timing_table = {"timing", "timing", timing_fields, NULL};

#define S(key, field, max_) YFIELD(key, YF_U32, P(sensors.field), .min = 1, .max = (max_), .required = true)
static const struct yfield sensors_fields[] = {
    S("graphics_idle_mhz", graphics_idle_mhz, 10000),
    S("graphics_max_mhz", graphics_max_mhz, 10000),
    S("memory_mhz", memory_mhz, 20000),
    S("video_mhz", video_mhz, 10000),
    S("power_idle_mw", power_idle_mw, 5000000),
    S("power_busy_mw", power_busy_mw, 5000000),
    S("power_limit_mw", power_limit_mw, 5000000),
    S("gpu_temp_idle_c", gpu_temp_idle_c, 150),
    S("gpu_temp_busy_c", gpu_temp_busy_c, 150),
    S("memory_temp_idle_c", memory_temp_idle_c, 150),
    S("memory_temp_busy_c", memory_temp_busy_c, 150),
    YFIELD("thermal_tau", YF_DURATION, P(sensors.thermal_tau_ns), .min = 1000000, .max = 3600000000000ull,
           .required = true),
    YFIELD_END,
};
#undef S

static int sensors_check(struct yctx *c, const struct ynode *map, void *base, const struct ynode *const *got)
{
    (void)got;
    const struct profile_sensors *s = &((struct profile *)base)->sensors;
    if (s->graphics_idle_mhz > s->graphics_max_mhz || s->power_idle_mw > s->power_busy_mw ||
        s->power_busy_mw > s->power_limit_mw)
        return yfail(c, map, "sensors: idle values exceed busy ones, or the busy power the limit");
    return 0;
}
static const struct ytable sensors_table = {"sensors", "sensors", sensors_fields, sensors_check};

static const struct yfield nvlink_fields[] = {
    YFIELD("caps", YF_U32, P(nvlink.caps), .min = 1, .max = 0xFFFFu, .required = true),
    YFIELD("version", YF_U32, P(nvlink.version), .min = 1, .max = 0xFFu, .required = true),
    YFIELD("nci_version", YF_U32, P(nvlink.nci_version), .max = 0xFFu),
    YFIELD("links", YF_U64, P(nvlink.links), .min = 1, .max = UINT64_MAX, .required = true),
    YFIELD("p2p_read_ces", YF_U32, P(nvlink.p2p_read_ces), .max = 0xFFFFFFFFu, .required = true),
    YFIELD("p2p_write_ces", YF_U32, P(nvlink.p2p_write_ces), .max = 0xFFFFFFFFu, .required = true),
    YFIELD_END,
};
static const struct ytable nvlink_table = {"nvlink", "NVLink", nvlink_fields, NULL};

/* Relations between sections that no single field's range can express. */
static int top_check(struct yctx *c, const struct ynode *root, void *base, const struct ynode *const *got)
{
    (void)got;
    struct profile *p = base;
    static const char *const arches[] = {"volta", "turing", "ampere", "ada", "hopper", "blackwell", NULL};
    bool arch_ok = false;
    for (int i = 0; arches[i]; i++)
        arch_ok |= !strcmp(p->arch, arches[i]);
    if (!arch_ok)
        return yfail(c, root, "arch '%s' is not one of volta, turing, ampere, ada, hopper, blackwell", p->arch);
    if (!p->pci_gpus_by_slot && p->pci_bus + p->gpu_count - 1 > 0xFF)
        return yfail(c, root, "gpu_count %u does not fit after PCI bus %u", p->gpu_count, p->pci_bus);
    if (p->pci_gpus_by_slot && p->pci_slot + p->gpu_count - 1 > 31)
        return yfail(c, root, "gpu_count %u does not fit after PCI slot %u", p->gpu_count, p->pci_slot);
    if (p->extra_uuid_count && p->extra_uuid_count != p->gpu_count - 1)
        return yfail(c, root, "uuids lists %u GPUs; gpu_count %u needs %u", p->extra_uuid_count, p->gpu_count,
                     p->gpu_count - 1);
    if (!profile_engine(p, 1))
        return yfail(c, root, "engines must include GR0 (type 1)");
    for (uint32_t i = 0; i < p->gr_info_count; i++)
        if (p->gr_info[i].index >= p->gr_info_max)
            return yfail(c, root, "gr.info index 0x%x is not below gr.info_max 0x%x", p->gr_info[i].index,
                         p->gr_info_max);
    return 0;
}

/* A provenance row names a top-level key, or KEY.FIELD below one. */
static bool provenance_key_ok(const char *key);

/* provenance: {KEY: "KIND, SOURCE"}, KIND one of profile_source_names. */
static int parse_provenance(struct yctx *c, const struct ynode *n, void *base)
{
    struct profile *p = base;
    if (yexpect(c, n, YNODE_MAP, "provenance"))
        return -1;
    if (n->count > PROFILE_MAX_PROVENANCE)
        return yfail(c, n, "provenance: at most %d rows", PROFILE_MAX_PROVENANCE);
    for (size_t i = 0; i < n->count; i++) {
        const struct ynode *k = n->keys[i], *v = n->items[i];
        if (yexpect(c, v, YNODE_SCALAR, "a provenance row"))
            return -1;
        if (!provenance_key_ok(k->scalar))
            return yfail(c, k, "provenance: '%s' is not a key of the profile", k->scalar);
        if (k->len >= sizeof p->provenance[0].key)
            return yfail(c, k, "provenance: key '%s' is too long", k->scalar);
        const char *comma = strchr(v->scalar, ',');
        int kind = -1;
        for (int j = 0; profile_source_names[j]; j++)
            if (comma && (size_t)(comma - v->scalar) == strlen(profile_source_names[j]) &&
                !strncmp(v->scalar, profile_source_names[j], (size_t)(comma - v->scalar)))
                kind = j;
        if (kind < 0)
            return yfail(c, v, "provenance.%s must be 'measured|derived|assumed, SOURCE'", k->scalar);
        const char *src = comma + 1;
        while (*src == ' ')
            src++;
        if (!*src)
            return yfail(c, v, "provenance.%s names no source", k->scalar);
        struct profile_provenance *r = &p->provenance[p->provenance_count++];
        snprintf(r->key, sizeof r->key, "%s", k->scalar);
        r->kind = kind;
        snprintf(r->source, sizeof r->source, "%s", src);
    }
    return 0;
}

static const struct yfield top_fields[] = {
    PSTR("name", name, .required = true),
    PSTR("chip", chip, .required = true),
    PSTR("arch", arch, .required = true),
    PSTR("marketing_name", marketing_name, .required = true),
    PSTR("short_name", short_name, .required = true),
    PSTR("notes", notes, .required = true),
    YFIELD("gpu_count", YF_U32, P(gpu_count), .min = 1, .max = 32, .required = true),
    YFIELD("sli_status", YF_U32, P(sli_status), .max = 0xFFFFFFFFu, .required = true),
    YFIELD("uuid", YF_CUSTOM, 0, .required = true, .custom = parse_uuid),
    YFIELD("uuids", YF_CUSTOM, 0, .custom = parse_uuids),
    YFIELD("build", YF_MAP, 0, .required = true, .sub = &build_table),
    YFIELD("pci", YF_MAP, 0, .required = true, .sub = &pci_table),
    YFIELD("arch_info", YF_MAP, 0, .required = true, .sub = &arch_table),
    YFIELD("classes", YF_CUSTOM, 0, .required = true, .custom = parse_classes),
    YFIELD("gr", YF_MAP, 0, .required = true, .sub = &gr_table),
    YFIELD("engines", YF_SEQ, P(engines), .size = sizeof(struct profile_engine), .count_off = P(engine_count),
           .max_items = PROFILE_MAX_ENGINES, .required = true, .custom = parse_engine),
    YFIELD("fifo", YF_MAP, 0, .required = true, .sub = &fifo_table),
    YFIELD("timing", YF_MAP, 0, .required = true, .sub = &timing_table),
    YFIELD("sensors", YF_MAP, 0, .sub = &sensors_table),
    YFIELD("nvlink", YF_MAP, 0, .sub = &nvlink_table),
    YFIELD("gpu_info", YF_CUSTOM, 0, .required = true, .custom = parse_gpu_info),
    YFIELD("info_tables", YF_SEQ, P(info_tables), .size = sizeof(struct profile_info_table),
           .count_off = P(info_table_count), .max_items = PROFILE_MAX_INFO_TABLES, .custom = parse_info_table),
    YFIELD("canned", YF_SEQ, P(canned), .size = sizeof(struct profile_canned_ctrl), .count_off = P(canned_count),
           .max_items = PROFILE_MAX_CANNED, .custom = parse_canned),
    YFIELD("provenance", YF_CUSTOM, 0, .custom = parse_provenance),
    YFIELD_END,
};

static bool provenance_key_ok(const char *key)
{
    size_t n = strcspn(key, ".");
    for (const struct yfield *f = top_fields; f->key; f++)
        if (strlen(f->key) == n && !strncmp(f->key, key, n) && strcmp(f->key, "provenance"))
            return true;
    return false;
}
static const struct ytable top_table = {"", "the profile", top_fields, top_check};

/* Profile files stay small; canned blobs are the largest part (a few KiB of hex each). */
static const struct ylimits profile_limits = {.max_bytes = PROFILE_FILE_MAX};

struct profile *profile_parse_yaml_set(const char *file, const char *text, size_t len, const char *const *set,
                                       int nset, char *err, size_t errlen)
{
    struct ynode *root = ytree_parse(file, text, len, &profile_limits, err, errlen);
    if (!root)
        return NULL;
    if (profile_resolve_base(file, &root, err, errlen)) {
        ytree_free(root);
        return NULL;
    }
    for (int i = 0; i < nset; i++) {
        char serr[256];
        if (ytree_set_path(root, set[i], serr, sizeof(serr)) != 0) {
            snprintf(err, errlen, "%s: %s", file, serr);
            ytree_free(root);
            return NULL;
        }
    }
    struct profile *p = calloc(1, sizeof *p);
    struct yctx c = {.file = file, .err = err, .errlen = errlen, .user = p};
    int rc = p ? ywalk(&c, root, &top_table, p) : yfail(&c, NULL, "out of memory");
    ytree_free(root);
    if (rc) {
        profile_free(p);
        return NULL;
    }
    return p;
}

struct profile *profile_parse_yaml(const char *file, const char *text, size_t len, char *err, size_t errlen)
{
    return profile_parse_yaml_set(file, text, len, NULL, 0, err, errlen);
}

bool profile_timing_get(const struct profile *p, const char *key, uint64_t *ns)
{
    for (const struct yfield *f = timing_fields; f->key; f++) {
        if (f->type != YF_DURATION || (strcmp(f->key, key) && (!f->legacy_us || strcmp(f->legacy_us, key))))
            continue;
        memcpy(ns, (const char *)p + f->off, sizeof *ns);
        return true;
    }
    return false;
}
