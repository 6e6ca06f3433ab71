/*
 * The kernel helpers a struct_ops policy may call, with the kernel's argument rules and return
 * values (Linux kernel/bpf/helpers.c, kernel/trace/bpf_trace.c, kernel/bpf/ringbuf.c,
 * kernel/bpf/bpf_iter.c). Pointer arguments are checked against their regions before use;
 * what the emulator provides (clock, PRNG state, caller, printk sink) comes from the env.
 */
#include "bpf/bpf_vm_internal.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "base/deadline.h"

#define MAX_BPRINTF_BUF 512
#define MAX_BPRINTF_VARARGS 12
#define BPF_MAX_LOOPS (8u * 1024 * 1024)
/* lib/vsprintf.c keeps a field width in 24 signed bits (struct printf_spec) and clamps it to
 * FIELD_WIDTH_MAX = (1 << 23) - 1 (set_field_width: "field width %d too large"). */
#define FIELD_WIDTH_MAX ((1u << 23) - 1)
/* The budget counts a helper's work, not one instruction per call: one instruction per this many bytes
 * it hashes, copies, zeroes or formats, charged before the work is done. */
#define CHARGE_BYTES 8u

#define NAME_OF(x) #x
static const char *const helper_names[] = {__BPF_FUNC_MAPPER(NAME_OF)};
#define N_HELPER_NAMES (int32_t)(sizeof helper_names / sizeof helper_names[0])

const char *bpf_helper_name(int32_t id)
{
    return id > 0 && id < N_HELPER_NAMES ? helper_names[id] : NULL;
}

/* --- cost --- */

/* Charges `bytes` of a helper's work to the run's instruction budget; false (a budget fault, naming the
 * helper) when the budget cannot pay for it, before any of the work is done. */
static bool charge(struct vm *vm, uint64_t bytes, const char *helper)
{
    uint64_t units = bytes / CHARGE_BYTES + 1;
    uint64_t left = vm->budget > vm->executed ? vm->budget - vm->executed : 0;
    if (units > left) {
        vm_fault(vm, BPF_FAULT_BUDGET, "instruction budget of %llu exhausted: %s would handle %llu bytes",
                 (unsigned long long)vm->budget, helper, (unsigned long long)bytes);
        return false;
    }
    if (nvemu_deadline_passed()) {
        vm_fault(vm, BPF_FAULT_BUDGET, "the callback's wall-clock limit passed (in %s)", helper);
        return false;
    }
    vm->executed += units;
    return true;
}

/* --- argument access --- */

static struct bpf_map *arg_map(struct vm *vm, int reg, const char *helper)
{
    if (vm->t[reg].kind != R_MAP) {
        vm_fault(vm, BPF_FAULT_POINTER, "argument %d of %s must be a map", reg, helper);
        return NULL;
    }
    return (struct bpf_map *)vm->t[reg].base;
}

/* Pointer argument reg of len bytes (len 0 with a NULL pointer is allowed, as ARG_CONST_SIZE_OR_ZERO). */
static void *arg_mem(struct vm *vm, int reg, uint64_t len, bool write, const char *helper)
{
    if (len == 0 && vm->t[reg].kind == R_SCALAR && vm->r[reg] == 0)
        return NULL;
    if (vm_region_ok(&vm->t[reg], vm->r[reg], len, write)) {
        if (write)
            vm_stack_written(vm, &vm->t[reg], vm->r[reg], len);
        return (void *)(uintptr_t)vm->r[reg];
    }
    char what[64];
    snprintf(what, sizeof what, "argument %d of %s", reg, helper);
    void *p = vm_region_access(vm, &vm->t[reg], vm->r[reg], len, write, what);
    if (p && write)
        vm_stack_written(vm, &vm->t[reg], vm->r[reg], len);
    return p;
}

static void ret(struct vm *vm, uint64_t v)
{
    vm->r[0] = v;
    vm->t[0].kind = R_SCALAR;
}

static uint64_t err(int e)
{
    return (uint64_t)(int64_t)e;
}

/* --- maps --- */

static int h_map_lookup_elem(struct vm *vm)
{
    struct bpf_map *m = arg_map(vm, 1, "map_lookup_elem");
    const struct bpf_map_def *d = m ? bpf_map_definition(m) : NULL;
    const void *key = d ? arg_mem(vm, 2, d->key_size, false, "map_lookup_elem") : NULL;
    if (!key || !charge(vm, d->key_size, "map_lookup_elem"))
        return -1;
    void *v = bpf_map_lookup(m, key);
    ret(vm, (uint64_t)(uintptr_t)v);
    if (v)
        vm->t[0] = (struct tag){(uintptr_t)v, d->value_size, R_VALUE,
                                (uint8_t)(((d->map_flags & BPF_F_WRONLY_PROG) ? 0 : T_READ) |
                                          ((d->map_flags & BPF_F_RDONLY_PROG) ? 0 : T_WRITE))};
    return 0;
}

static int h_map_lookup_percpu_elem(struct vm *vm)
{
    if (vm->r[3] != vm->env->cpu) {
        if (!arg_map(vm, 1, "map_lookup_percpu_elem"))
            return -1;
        ret(vm, 0);
        return 0;
    }
    return h_map_lookup_elem(vm);
}

static int h_map_update_elem(struct vm *vm)
{
    struct bpf_map *m = arg_map(vm, 1, "map_update_elem");
    if (!m)
        return -1;
    const struct bpf_map_def *d = bpf_map_definition(m);
    if (bpf_map_prog_readonly(m))
        return vm_fault(vm, BPF_FAULT_READONLY, "map_update_elem on read-only map '%s'", d->name);
    const void *key = arg_mem(vm, 2, d->key_size, false, "map_update_elem");
    const void *val = key ? arg_mem(vm, 3, d->value_size, false, "map_update_elem") : NULL;
    if (!val || !charge(vm, (uint64_t)d->key_size + d->value_size, "map_update_elem"))
        return -1;
    ret(vm, err(bpf_map_update(m, key, val, vm->r[4])));
    return 0;
}

static int h_map_delete_elem(struct vm *vm)
{
    struct bpf_map *m = arg_map(vm, 1, "map_delete_elem");
    if (!m)
        return -1;
    const struct bpf_map_def *d = bpf_map_definition(m);
    if (bpf_map_prog_readonly(m))
        return vm_fault(vm, BPF_FAULT_READONLY, "map_delete_elem on read-only map '%s'", d->name);
    const void *key = arg_mem(vm, 2, d->key_size, false, "map_delete_elem");
    if (!key || !charge(vm, d->key_size, "map_delete_elem"))
        return -1;
    ret(vm, err(bpf_map_delete(m, key)));
    return 0;
}

/* --- probe_read family: a source that is not a known region reads as a fault (-EFAULT, dst zeroed) --- */

static const void *probe_src(struct vm *vm, uint64_t len)
{
    struct tag t = vm->t[3];
    if (t.kind == R_SCALAR || t.kind > R_LAST_MEMORY) {
        if (!vm_find_region(vm, vm->r[3], len ? len : 1, &t))
            return NULL;
    }
    uint64_t rel = vm->r[3] - t.base;
    if (!(t.flags & T_READ) || rel > t.size || len > t.size - rel)
        return NULL;
    return (const void *)(uintptr_t)vm->r[3];
}

/* The reader for addresses outside the program's regions: the caller's memory (user) or the probed function's
 * data (kernel); NULL for plain probe_read, which the kernel resolves as one or the other only on some arches. */
typedef int (*outside_read)(void *ctx, uint64_t addr, void *dst, size_t len);

static outside_read outside_of(const struct vm *vm, const char *name)
{
    if (strstr(name, "_user"))
        return vm->env->read_user;
    if (strstr(name, "_kernel"))
        return vm->env->read_kernel;
    return NULL;
}

static int probe_read(struct vm *vm, const char *name)
{
    uint64_t len = (uint32_t)vm->r[2];
    uint8_t *dst = arg_mem(vm, 1, len, true, name);
    if ((!dst && len) || !charge(vm, len, name))
        return -1;
    const void *src = probe_src(vm, len);
    if (!src) {
        outside_read rd = outside_of(vm, name);
        if (len && rd && rd(vm->env->ctx, vm->r[3], dst, len) == 0) {
            ret(vm, 0);
            return 0;
        }
        if (len)
            memset(dst, 0, len);
        ret(vm, err(-EFAULT));
        return 0;
    }
    if (len)
        memmove(dst, src, len);
    ret(vm, 0);
    return 0;
}

/* A string outside the program's regions, a byte at a time as the kernel's strncpy_from_user: its length with the
 * NUL, or -EFAULT. */
static int64_t outside_str(struct vm *vm, outside_read rd, uint8_t *dst, uint64_t len)
{
    uint64_t n = 0;
    for (; n + 1 < len; n++) {
        if (rd(vm->env->ctx, vm->r[3] + n, dst + n, 1) != 0)
            return -EFAULT;
        if (!dst[n])
            return (int64_t)n + 1;
    }
    dst[n] = '\0';
    return (int64_t)n + 1;
}

static int probe_read_str(struct vm *vm, const char *name)
{
    uint64_t len = (uint32_t)vm->r[2];
    uint8_t *dst = arg_mem(vm, 1, len, true, name);
    if ((!dst && len) || !charge(vm, len, name))
        return -1;
    if (len == 0) {
        ret(vm, 0);
        return 0;
    }
    struct tag t = vm->t[3];
    if ((t.kind == R_SCALAR || t.kind > R_LAST_MEMORY) && !vm_find_region(vm, vm->r[3], 1, &t)) {
        outside_read rd = outside_of(vm, name);
        int64_t n = rd ? outside_str(vm, rd, dst, len) : -EFAULT;
        if (n < 0)
            memset(dst, 0, len);
        ret(vm, n < 0 ? err(-EFAULT) : (uint64_t)n);
        return 0;
    }
    uint64_t rel = vm->r[3] - t.base;
    if (!(t.flags & T_READ) || rel >= t.size) {
        memset(dst, 0, len);
        ret(vm, err(-EFAULT));
        return 0;
    }
    const uint8_t *src = (const uint8_t *)(uintptr_t)vm->r[3];
    uint64_t avail = t.size - rel, n = 0;
    while (n + 1 < len && n < avail && src[n])
        n++;
    if (n == avail && n + 1 < len) {
        /* The string runs off its region before its end: the kernel reports the fault. */
        memset(dst, 0, len);
        ret(vm, err(-EFAULT));
        return 0;
    }
    memmove(dst, src, n);
    dst[n] = '\0';
    ret(vm, n + 1);
    return 0;
}

static int h_probe_read(struct vm *vm) { return probe_read(vm, "probe_read"); }
static int h_probe_read_user(struct vm *vm) { return probe_read(vm, "probe_read_user"); }
static int h_probe_read_kernel(struct vm *vm) { return probe_read(vm, "probe_read_kernel"); }
static int h_probe_read_str(struct vm *vm) { return probe_read_str(vm, "probe_read_str"); }
static int h_probe_read_user_str(struct vm *vm) { return probe_read_str(vm, "probe_read_user_str"); }
static int h_probe_read_kernel_str(struct vm *vm) { return probe_read_str(vm, "probe_read_kernel_str"); }

/* --- time, randomness, cpu, current task --- */

static int h_ktime_get_ns(struct vm *vm)
{
    ret(vm, vm->env->clock_ns(vm->env->ctx));
    return 0;
}

static int h_ktime_get_boot_ns(struct vm *vm)
{
    const struct bpf_vm_env *e = vm->env;
    ret(vm, e->boot_clock_ns ? e->boot_clock_ns(e->ctx) : e->clock_ns(e->ctx));
    return 0;
}

/* splitmix64: deterministic from the seed the env holds. */
static int h_get_prandom_u32(struct vm *vm)
{
    uint64_t z = (*vm->env->prng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    ret(vm, (uint32_t)((z ^ (z >> 31)) >> 32));
    return 0;
}

static int h_get_smp_processor_id(struct vm *vm)
{
    ret(vm, vm->env->cpu);
    return 0;
}

static bool current(struct vm *vm, struct bpf_vm_task *task)
{
    memset(task, 0, sizeof *task);
    return vm->env->current_task(vm->env->ctx, task);
}

static int h_get_current_pid_tgid(struct vm *vm)
{
    struct bpf_vm_task task;
    ret(vm, current(vm, &task) ? (uint64_t)task.tgid << 32 | task.pid : err(-EINVAL));
    return 0;
}

static int h_get_current_uid_gid(struct vm *vm)
{
    struct bpf_vm_task task;
    ret(vm, current(vm, &task) ? (uint64_t)task.gid << 32 | task.uid : err(-EINVAL));
    return 0;
}

static int h_get_current_comm(struct vm *vm)
{
    uint64_t len = (uint32_t)vm->r[2];
    char *buf = arg_mem(vm, 1, len, true, "get_current_comm");
    if ((!buf && len) || !charge(vm, len, "get_current_comm"))
        return -1;
    struct bpf_vm_task task;
    if (!current(vm, &task)) {
        if (len)
            memset(buf, 0, len);
        ret(vm, err(-EINVAL));
        return 0;
    }
    if (len) {
        /* strscpy_pad: NUL-terminated, zero-filled, truncated to the buffer. */
        memset(buf, 0, len);
        size_t n = strnlen(task.comm, sizeof task.comm);
        if (n >= len)
            n = len - 1;
        memcpy(buf, task.comm, n);
    }
    ret(vm, 0);
    return 0;
}

/* --- formatted output: the kernel's bpf_bprintf_prepare rules ---
 * Conversions %d %i %u %x %X %c %s %p %px %pK %%, with flags [-+ 0#], a width, and the length
 * modifiers l and ll; at most `max_args` arguments; anything else is -EINVAL. %s reads a string
 * from a region the program may read (anything else prints as empty, as the kernel's nofault copy
 * does on an unreadable address). A width is clamped to FIELD_WIDTH_MAX as the kernel does; the output
 * never holds more than outlen bytes, so a field is formatted no wider than twice the buffer (the
 * bytes that reach the output are the same) and each field's bytes are charged to the budget. A budget
 * fault returns INT_MIN (vm->failed set). */
static int format(struct vm *vm, const char *fmt, uint32_t fmt_size, const uint64_t *args, uint32_t nargs,
                  uint32_t max_args, char *out, size_t outlen, const char *helper)
{
    size_t fmt_len = fmt_size ? strnlen(fmt, fmt_size) : 0;
    if (!charge(vm, fmt_len, helper))
        return INT_MIN;
    if (fmt_size == 0 || fmt_len == fmt_size)
        return -EINVAL;
    size_t o = 0;
    uint32_t used = 0;
    out[0] = '\0';
    for (const char *p = fmt; *p; p++) {
        if (*p != '%') {
            if (o + 1 < outlen)
                out[o++] = *p;
            continue;
        }
        if (p[1] == '%') {
            if (o + 1 < outlen)
                out[o++] = '%';
            p++;
            continue;
        }
        const char *start = p++;
        while (*p && strchr("-+ 0#", *p))
            p++;
        const char *flags_end = p;
        uint32_t width = 0;
        bool has_width = false;
        for (; *p >= '0' && *p <= '9'; p++) {
            has_width = true;
            width = width * 10 + (uint32_t)(*p - '0');
            if (width > FIELD_WIDTH_MAX)
                width = FIELD_WIDTH_MAX;
        }
        int lmod = 0;
        while (*p == 'l' && lmod < 2) {
            lmod++;
            p++;
        }
        char conv = *p;
        if (!conv || !strchr("diuxXcsp", conv) || used >= max_args)
            return -EINVAL;
        if (used >= nargs)
            return -EINVAL;
        uint64_t a = args[used++];
        char spec[48];
        size_t flen = (size_t)(p - start);
        if (flen > 20)
            return -EINVAL;
        /* "%" and the flags, then the width as it can show in the output; the length modifiers are
         * dropped: the value is widened below */
        size_t nflags = (size_t)(flags_end - start);
        memcpy(spec, start, nflags);
        spec[nflags] = '\0';
        if (has_width)
            snprintf(spec + nflags, sizeof spec - nflags, "%u",
                     width < 2 * MAX_BPRINTF_BUF ? width : 2 * MAX_BPRINTF_BUF);
        char piece[MAX_BPRINTF_BUF];
        if (conv == 'p') {
            if (p[1] == 'x' || p[1] == 'K')
                p++;
            else if (p[1] && strchr("BiIsSuk", p[1]))
                return -EINVAL;
            snprintf(piece, sizeof piece, "0x%016" PRIx64, a);
        } else if (conv == 's') {
            char str[MAX_BPRINTF_BUF];
            struct tag t;
            str[0] = '\0';
            if (a && vm_find_region(vm, a, 1, &t) && (t.flags & T_READ)) {
                const char *s = (const char *)(uintptr_t)a;
                size_t avail = t.size - (size_t)(a - t.base);
                size_t n = strnlen(s, avail < sizeof str - 1 ? avail : sizeof str - 1);
                memcpy(str, s, n);
                str[n] = '\0';
            }
            strcat(spec, "s");
            snprintf(piece, sizeof piece, spec, str);
        } else if (conv == 'c') {
            strcat(spec, "c");
            snprintf(piece, sizeof piece, spec, (int)(unsigned char)a);
        } else {
            bool sgn = conv == 'd' || conv == 'i';
            /* Without l/ll the kernel passes an int: the value is truncated to 32 bits. */
            if (lmod == 0)
                a = sgn ? (uint64_t)(int64_t)(int32_t)a : (uint32_t)a;
            char c[2] = {conv, '\0'};
            strcat(spec, sgn ? "lld" : "ll");
            if (!sgn)
                strcat(spec, c);
            snprintf(piece, sizeof piece, spec, (long long)a);
        }
        if (!charge(vm, strlen(piece) + (has_width && width < 2 * MAX_BPRINTF_BUF ? width : 2 * MAX_BPRINTF_BUF),
                    helper))
            return INT_MIN;
        for (const char *q = piece; *q && o + 1 < outlen; q++)
            out[o++] = *q;
    }
    out[o] = '\0';
    return (int)o;
}

static void emit(struct vm *vm, char *line)
{
    size_t n = strlen(line);
    while (n && line[n - 1] == '\n')
        line[--n] = '\0';
    vm->env->printk(vm->env->ctx, vm->prog, line);
}

static int h_trace_printk(struct vm *vm)
{
    uint32_t fsz = (uint32_t)vm->r[2];
    const char *fmt = arg_mem(vm, 1, fsz, false, "trace_printk");
    if (!fmt)
        return vm->failed ? -1 : (ret(vm, err(-EINVAL)), 0);
    uint64_t args[3] = {vm->r[3], vm->r[4], vm->r[5]};
    char line[MAX_BPRINTF_BUF];
    int n = format(vm, fmt, fsz, args, 3, 3, line, sizeof line, "trace_printk");
    if (n == INT_MIN)
        return -1;
    if (n >= 0)
        emit(vm, line);
    ret(vm, err(n));
    return 0;
}

/*
 * Formats fmt with the dlen bytes of u64 arguments register reg points at (the bprintf helpers'
 * convention) into line, the length or a negative errno in *n. 1 when formatted; 0 when the size was
 * refused (r0 = -EINVAL already set); -1 on a fault.
 */
static int bprintf(struct vm *vm, const char *fmt, uint32_t fsz, int reg, uint32_t dlen, const char *what,
                   char *line, size_t len, int *n)
{
    if (dlen % 8 || dlen > MAX_BPRINTF_VARARGS * 8) {
        ret(vm, err(-EINVAL));
        return 0;
    }
    const void *data = arg_mem(vm, reg, dlen, false, what);
    if (!data && dlen)
        return -1;
    uint64_t args[MAX_BPRINTF_VARARGS];
    if (dlen)
        memcpy(args, data, dlen);
    *n = format(vm, fmt, fsz, args, dlen / 8, MAX_BPRINTF_VARARGS, line, len, what);
    return *n == INT_MIN ? -1 : 1;
}

static int h_trace_vprintk(struct vm *vm)
{
    uint32_t fsz = (uint32_t)vm->r[2], dlen = (uint32_t)vm->r[4];
    const char *fmt = arg_mem(vm, 1, fsz, false, "trace_vprintk");
    if (!fmt)
        return vm->failed ? -1 : (ret(vm, err(-EINVAL)), 0);
    if (dlen && vm->r[3] == 0) {
        ret(vm, err(-EINVAL));
        return 0;
    }
    char line[MAX_BPRINTF_BUF];
    int n;
    int rc = bprintf(vm, fmt, fsz, 3, dlen, "trace_vprintk", line, sizeof line, &n);
    if (rc <= 0)
        return rc;
    if (n >= 0)
        emit(vm, line);
    ret(vm, err(n));
    return 0;
}

static int h_snprintf(struct vm *vm)
{
    uint32_t size = (uint32_t)vm->r[2], dlen = (uint32_t)vm->r[5];
    char *str = arg_mem(vm, 1, size, true, "snprintf");
    if (!str && size)
        return -1;
    const char *fmt = vm->t[3].kind == R_VALUE && (vm->t[3].flags & T_WRITE) == 0
                          ? (const char *)(uintptr_t)vm->r[3] : NULL;
    if (!fmt)
        return vm_fault(vm, BPF_FAULT_POINTER, "argument 3 of snprintf must point into read-only data");
    uint32_t fsz = (uint32_t)(vm->t[3].base + vm->t[3].size - vm->r[3]);
    char line[MAX_BPRINTF_BUF];
    int n;
    int rc = bprintf(vm, fmt, fsz, 4, dlen, "snprintf", line, sizeof line, &n);
    if (rc <= 0)
        return rc;
    if (n < 0) {
        ret(vm, err(n));
        return 0;
    }
    if (size) {
        size_t c = (size_t)n < size - 1 ? (size_t)n : size - 1;
        memcpy(str, line, c);
        str[c] = '\0';
    }
    ret(vm, (uint64_t)n + 1);
    return 0;
}

/* --- ringbuf --- */

static int h_ringbuf_output(struct vm *vm)
{
    struct bpf_map *m = arg_map(vm, 1, "ringbuf_output");
    if (!m)
        return -1;
    const void *data = arg_mem(vm, 2, vm->r[3], false, "ringbuf_output");
    if ((data || vm->r[3] == 0) && !charge(vm, vm->r[3], "ringbuf_output"))
        return -1;
    if (!data && vm->r[3])
        return -1;
    ret(vm, err(bpf_map_ringbuf_output(m, data ? data : "", vm->r[3], vm->r[4])));
    return 0;
}

static int h_ringbuf_reserve(struct vm *vm)
{
    struct bpf_map *m = arg_map(vm, 1, "ringbuf_reserve");
    if (!m)
        return -1;
    if (!charge(vm, vm->r[2] <= UINT32_MAX ? vm->r[2] : 0, "ringbuf_reserve"))
        return -1;
    void *rec = bpf_map_ringbuf_reserve(m, vm->r[2], vm->r[3]);
    ret(vm, (uint64_t)(uintptr_t)rec);
    if (rec)
        vm->t[0] = (struct tag){(uintptr_t)rec, (uint32_t)vm->r[2], R_RBREC, T_READ | T_WRITE};
    return 0;
}

static int ringbuf_commit(struct vm *vm, bool discard)
{
    const char *name = discard ? "ringbuf_discard" : "ringbuf_submit";
    if (vm->t[1].kind != R_RBREC || vm->r[1] != vm->t[1].base)
        return vm_fault(vm, BPF_FAULT_POINTER, "argument 1 of %s must be a record from ringbuf_reserve", name);
    uintptr_t rec = vm->t[1].base;
    int rc = -EINVAL;
    for (uint32_t i = 0; i < vm->prog->n_maps && rc; i++)
        rc = discard ? bpf_map_ringbuf_discard(vm->prog->maps[i], (void *)rec, vm->r[2])
                     : bpf_map_ringbuf_submit(vm->prog->maps[i], (void *)rec, vm->r[2]);
    if (rc)
        return vm_fault(vm, BPF_FAULT_POINTER, "%s of a record that is no longer reserved", name);
    vm_forget_record(vm, rec);
    ret(vm, 0);
    return 0;
}

static int h_ringbuf_submit(struct vm *vm) { return ringbuf_commit(vm, false); }
static int h_ringbuf_discard(struct vm *vm) { return ringbuf_commit(vm, true); }

static int h_ringbuf_query(struct vm *vm)
{
    struct bpf_map *m = arg_map(vm, 1, "ringbuf_query");
    if (!m)
        return -1;
    ret(vm, bpf_map_ringbuf_query(m, vm->r[2]));
    return 0;
}

/* --- bpf_loop(nr, callback, ctx, flags): callback(index, ctx) returns 0 to go on, 1 to stop --- */

static int h_loop(struct vm *vm)
{
    uint64_t nr = (uint32_t)vm->r[1];
    if (vm->t[2].kind != R_FUNC)
        return vm_fault(vm, BPF_FAULT_POINTER, "argument 2 of loop must be a function reference");
    if (vm->r[4]) {
        ret(vm, err(-EINVAL));
        return 0;
    }
    if (nr > BPF_MAX_LOOPS) {
        ret(vm, err(-E2BIG));
        return 0;
    }
    uint32_t target = (uint32_t)vm->t[2].base;
    uint64_t ctx = vm->r[3];
    struct tag ctx_tag = vm->t[3];
    uint64_t i = 0;
    while (i < nr) {
        uint64_t r0;
        if (vm_call_subprog(vm, target, i, ctx, &ctx_tag, &r0))
            return -1;
        i++;
        if (r0)
            break;
    }
    ret(vm, i);
    return 0;
}

/* --- the table --- */

struct helper {
    int (*fn)(struct vm *vm);
    uint8_t need;
};

static const struct helper helpers[] = {
    [BPF_FUNC_map_lookup_elem] = {h_map_lookup_elem, NEED_NONE},
    [BPF_FUNC_map_update_elem] = {h_map_update_elem, NEED_NONE},
    [BPF_FUNC_map_delete_elem] = {h_map_delete_elem, NEED_NONE},
    [BPF_FUNC_probe_read] = {h_probe_read, NEED_NONE},
    [BPF_FUNC_ktime_get_ns] = {h_ktime_get_ns, NEED_CLOCK},
    [BPF_FUNC_trace_printk] = {h_trace_printk, NEED_PRINTK},
    [BPF_FUNC_get_prandom_u32] = {h_get_prandom_u32, NEED_PRNG},
    [BPF_FUNC_get_smp_processor_id] = {h_get_smp_processor_id, NEED_NONE},
    [BPF_FUNC_get_current_pid_tgid] = {h_get_current_pid_tgid, NEED_TASK},
    [BPF_FUNC_get_current_uid_gid] = {h_get_current_uid_gid, NEED_TASK},
    [BPF_FUNC_get_current_comm] = {h_get_current_comm, NEED_TASK},
    [BPF_FUNC_probe_read_str] = {h_probe_read_str, NEED_NONE},
    [BPF_FUNC_probe_read_user] = {h_probe_read_user, NEED_NONE},
    [BPF_FUNC_probe_read_kernel] = {h_probe_read_kernel, NEED_NONE},
    [BPF_FUNC_probe_read_user_str] = {h_probe_read_user_str, NEED_NONE},
    [BPF_FUNC_probe_read_kernel_str] = {h_probe_read_kernel_str, NEED_NONE},
    [BPF_FUNC_ktime_get_boot_ns] = {h_ktime_get_boot_ns, NEED_CLOCK},
    [BPF_FUNC_ringbuf_output] = {h_ringbuf_output, NEED_NONE},
    [BPF_FUNC_ringbuf_reserve] = {h_ringbuf_reserve, NEED_NONE},
    [BPF_FUNC_ringbuf_submit] = {h_ringbuf_submit, NEED_NONE},
    [BPF_FUNC_ringbuf_discard] = {h_ringbuf_discard, NEED_NONE},
    [BPF_FUNC_ringbuf_query] = {h_ringbuf_query, NEED_NONE},
    [BPF_FUNC_ktime_get_coarse_ns] = {h_ktime_get_ns, NEED_CLOCK},
    [BPF_FUNC_snprintf] = {h_snprintf, NEED_NONE},
    [BPF_FUNC_trace_vprintk] = {h_trace_vprintk, NEED_PRINTK},
    [BPF_FUNC_loop] = {h_loop, NEED_NONE},
    [BPF_FUNC_map_lookup_percpu_elem] = {h_map_lookup_percpu_elem, NEED_NONE},
    [BPF_FUNC_ktime_get_tai_ns] = {h_ktime_get_ns, NEED_CLOCK},
};
#define N_HELPERS (int32_t)(sizeof helpers / sizeof helpers[0])

int vm_helper_need(int32_t id)
{
    return id > 0 && id < N_HELPERS && helpers[id].fn ? helpers[id].need : -1;
}

bool bpf_helper_supported(int32_t id)
{
    return vm_helper_need(id) >= 0;
}

bool vm_env_serves(const struct bpf_vm_env *env, int need)
{
    switch (need) {
    case NEED_CLOCK: return env->clock_ns != NULL;
    case NEED_PRNG: return env->prng_state != NULL;
    case NEED_TASK: return env->current_task != NULL;
    case NEED_PRINTK: return env->printk != NULL;
    default: return true;
    }
}

int vm_call_helper(struct vm *vm, int32_t id)
{
    int need = vm_helper_need(id);
    if (need < 0)
        return vm_fault(vm, BPF_FAULT_HELPER, "unsupported helper %d (%s)", id,
                        bpf_helper_name(id) ? bpf_helper_name(id) : "unknown to the kernel");
    if (!vm_env_serves(vm->env, need))
        return vm_fault(vm, BPF_FAULT_HELPER, "helper %s is not available in this environment", bpf_helper_name(id));
    return helpers[id].fn(vm);
}
