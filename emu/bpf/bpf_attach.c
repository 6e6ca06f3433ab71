/*
 * Program sections and the sites nvemu fires them at (bpf_attach.h). The
 * tables below are the whole attach model: a section prefix per program
 * type, a row per fired site.
 */
#include "bpf/bpf_attach.h"

#include <stdio.h>
#include <string.h>

#include "nvemu/policy.h"

struct prefix_row {
    const char *prefix;          /* up to and including the '/' that starts the target, or the bare name */
    enum bpf_attach_kind kind;
    bool sleepable;
    bool bare_ok;                /* the section may be the bare name: the loader attaches it */
};

/* Longest prefix first where one is the start of another ("uprobe.s" before "uprobe"). */
static const struct prefix_row prefixes[] = {
    {"struct_ops.s", BPF_ATTACH_STRUCT_OPS, true, false},
    {"struct_ops", BPF_ATTACH_STRUCT_OPS, false, false},
    {"kretprobe", BPF_ATTACH_KRETPROBE, false, false},
    {"kprobe", BPF_ATTACH_KPROBE, false, false},
    {"uretprobe.s", BPF_ATTACH_URETPROBE, true, true},
    {"uretprobe", BPF_ATTACH_URETPROBE, false, true},
    {"uprobe.s", BPF_ATTACH_UPROBE, true, true},
    {"uprobe", BPF_ATTACH_UPROBE, false, true},
    {"tracepoint", BPF_ATTACH_TRACEPOINT, false, false},
    {"tp_btf", BPF_ATTACH_TP_BTF, false, false},
    {"tp", BPF_ATTACH_TRACEPOINT, false, false},
    {"raw_tracepoint", BPF_ATTACH_RAW_TP, false, false},
    {"raw_tp", BPF_ATTACH_RAW_TP, false, false},
};

static const char *const kind_names[] = {
    [BPF_ATTACH_NONE] = "unknown",        [BPF_ATTACH_STRUCT_OPS] = "struct_ops",
    [BPF_ATTACH_KPROBE] = "kprobe",       [BPF_ATTACH_KRETPROBE] = "kretprobe",
    [BPF_ATTACH_UPROBE] = "uprobe",       [BPF_ATTACH_URETPROBE] = "uretprobe",
    [BPF_ATTACH_TRACEPOINT] = "tracepoint", [BPF_ATTACH_TP_BTF] = "tp_btf",
    [BPF_ATTACH_RAW_TP] = "raw_tp",
};

const char *bpf_attach_kind_name(enum bpf_attach_kind kind)
{
    return (unsigned)kind < sizeof kind_names / sizeof *kind_names ? kind_names[kind] : "unknown";
}

/* A site nvemu fires: probes on a driver function, or a tracepoint by CATEGORY:NAME. */
struct site_row {
    enum bpf_attach_site site;
    bool tracepoint;
    const char *name;
};

static const struct site_row sites[] = {
    {BPF_SITE_IOCTL, false, "nvidia_unlocked_ioctl"},
    {BPF_SITE_TASK_INIT_FN, false, "nv_gpu_sched_task_init"},
    {BPF_SITE_BIND_FN, false, "nv_gpu_sched_bind"},
    {BPF_SITE_TOKEN_FN, false, "nv_gpu_sched_token_request"},
    {BPF_SITE_DESTROY_FN, false, "nv_gpu_sched_task_destroy"},
    {BPF_SITE_PROCESS_EXIT, true, "sched:sched_process_exit"},
    {BPF_SITE_XID, true, "nvidia:nvidia_dev_xid"},
    {BPF_SITE_USER, false, "user function"},
};

const char *bpf_attach_site_name(enum bpf_attach_site site)
{
    for (size_t i = 0; i < sizeof sites / sizeof *sites; i++)
        if (sites[i].site == site)
            return sites[i].name;
    return "?";
}

int bpf_attach_site_of(enum bpf_attach_kind kind, const char *target)
{
    bool tp = kind == BPF_ATTACH_TRACEPOINT;
    if (!tp && kind != BPF_ATTACH_KPROBE && kind != BPF_ATTACH_KRETPROBE)
        return -1;
    for (size_t i = 0; i < sizeof sites / sizeof *sites; i++)
        if (sites[i].site != BPF_SITE_USER && sites[i].tracepoint == tp && strcmp(sites[i].name, target) == 0)
            return (int)sites[i].site;
    return -1;
}

int bpf_attach_parse_section(const char *section, struct bpf_attach_section *out, char *why, size_t len)
{
    memset(out, 0, sizeof *out);
    const struct prefix_row *row = NULL;
    const char *rest = NULL;
    for (size_t i = 0; i < sizeof prefixes / sizeof *prefixes && !row; i++) {
        size_t n = strlen(prefixes[i].prefix);
        if (strncmp(section, prefixes[i].prefix, n) == 0 && (section[n] == '\0' || section[n] == '/')) {
            row = &prefixes[i];
            rest = section[n] == '/' ? section + n + 1 : section + n;
        }
    }
    if (!row)
        return 0;
    out->kind = row->kind;
    out->sleepable = row->sleepable;
    if (row->kind == BPF_ATTACH_STRUCT_OPS)
        return 0;
    if (!*rest && !row->bare_ok) {
        snprintf(why, len, "section %s: a %s needs a target (%s/NAME)", section, kind_names[row->kind],
                 row->prefix);
        return -1;
    }
    /* a probe's +OFFSET is where inside the function: the function is the attach point */
    size_t n = row->kind == BPF_ATTACH_TRACEPOINT ? strlen(rest) : strcspn(rest, "+");
    if (n >= sizeof out->target) {
        snprintf(why, len, "section %s: target too long", section);
        return -1;
    }
    memcpy(out->target, rest, n);
    out->target[n] = '\0';
    if (row->kind != BPF_ATTACH_TRACEPOINT)
        return 0;
    char *slash = strchr(out->target, '/');
    if (!slash || slash == out->target || !slash[1]) {
        snprintf(why, len, "section %s: a tracepoint is tracepoint/CATEGORY/NAME", section);
        return -1;
    }
    *slash = ':';
    if (strncmp(out->target, "nvidia:", 7) == 0 && strcmp(out->target, "nvidia:nvidia_dev_xid") != 0) {
        snprintf(why, len, "section %s: tracepoint %s does not exist: the nvidia module defines only "
                 "nvidia:nvidia_dev_xid (the kernel refuses the attach with -ENOENT)", section, out->target);
        return -1;
    }
    return 0;
}

/* "libcuda.so.1" -> length of "libcuda.so" */
static size_t lib_stem(const char *lib, size_t n)
{
    for (size_t i = 0; i + 3 <= n; i++)
        if (memcmp(lib + i, ".so", 3) == 0 && (i + 3 == n || lib[i + 3] == '.'))
            return i + 3;
    return n;
}

bool bpf_attach_user_match(const char *target, const char *lib, const char *func)
{
    const char *colon = strrchr(target, ':');
    const char *tfunc = colon ? colon + 1 : target;
    if (strcmp(tfunc, func) != 0)
        return false;
    if (!colon || colon == target)
        return true;
    const char *tl = target;
    for (const char *s = target; s < colon; s++)
        if (*s == '/')
            tl = s + 1;
    const char *base = strrchr(lib, '/');
    base = base ? base + 1 : lib;
    size_t tn = lib_stem(tl, (size_t)(colon - tl)), bn = lib_stem(base, strlen(base));
    return tn == bn && memcmp(tl, base, tn) == 0;
}

void bpf_attach_regs(const struct bpf_attach_event *ev, struct bpf_attach_pt_regs *r)
{
    memset(r, 0, sizeof *r);
    r->di = ev->args[0];
    r->si = ev->args[1];
    r->dx = ev->args[2];
    r->cx = ev->args[3];
    r->r8 = ev->args[4];
    r->r9 = ev->args[5];
    r->ax = ev->rc;
    /* a user stack address: arguments past the sixth would be read from there with probe_read_user */
    r->sp = 0x7ffc00000000ull;
}

/* The 8-byte header every trace event record starts with. */
static void record_head(uint8_t *buf, const struct hook_task *who)
{
    int32_t pid = who ? who->tid : 0;
    memset(buf, 0, 8);
    memcpy(buf + 4, &pid, 4);
}

size_t bpf_attach_record(const struct bpf_attach_event *ev, uint8_t *buf, size_t len)
{
    if (ev->site == BPF_SITE_PROCESS_EXIT) {
        /* sched_process_template: comm[16] @8, pid @24, prio @28 */
        if (len < 32)
            return 0;
        record_head(buf, ev->who);
        memset(buf + 8, 0, 24);
        if (ev->who) {
            memcpy(buf + 8, ev->who->comm, 15);
            int32_t pid = ev->who->tid, prio = 120;
            memcpy(buf + 24, &pid, 4);
            memcpy(buf + 28, &prio, 4);
        }
        return 32;
    }
    if (ev->site == BPF_SITE_XID) {
        /* __data_loc char[] dev @8 (offset | length << 16), u32 error_code @12, the string from 16 */
        const char *dev = ev->xid_dev ? ev->xid_dev : "0000:00:00.0";
        size_t dl = strlen(dev) + 1;
        if (len < 16 + dl)
            return 0;
        record_head(buf, ev->who);
        uint32_t loc = 16u | (uint32_t)dl << 16;
        memcpy(buf + 8, &loc, 4);
        memcpy(buf + 12, &ev->xid, 4);
        memcpy(buf + 16, dev, dl);
        return 16 + dl;
    }
    return 0;
}
