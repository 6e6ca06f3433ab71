/*
 * libnvemu-record.so: an LD_PRELOAD interposer around ioctl(2) that writes every ioctl on a
 * /dev/nvidia* node in the shared trace line format (fixtures/replay/README.md):
 *
 *   IOCTL tid=T fd=N path=DEV req=0xREQ nr=0xNR size=BYTES ret=RET us=US <decoded> in=HEX out=HEX
 *         [pin=HEX pout=HEX] [aparams=HEX]
 *
 * RET is ioctl(2)'s result; when it is -1 the line also carries errno=E right after ret (the
 * reference recording has no failing call, so this is the one addition). The output file is
 * $NVEMU_RECORD_FILE (appended; lines of concurrent processes never interleave; "%p" in it is
 * replaced by the process id, so each process of a multi-process program gets its own trace), else stderr.
 * Only fds whose path starts with $NVEMU_RECORD_MATCH (default "/dev/nvidia") are recorded.
 * Memory of the traced process is read with process_vm_readv, so a bad pointer passed by the
 * program is recorded as absent instead of crashing it.
 *
 * /dev/nvidia-uvm requests are plain integers, not _IOC words, so the request does not say how many
 * bytes the parameters take: for those the line carries " UVM op=NAME rmStatus=0x..." and the
 * parameter block before and after the call as pin/pout, sized from the layout table below
 * (open-gpu-kernel-modules 580.x, kernel-open/nvidia-uvm/uvm_ioctl.h, x86-64). A request missing
 * from the table is recorded without parameter bytes (op=0xNR).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#define TOP_CAP 4096u           /* in/out: whole argument block up to this many bytes */
#define PARAMS_CAP (1u << 20)   /* pin/pout: whole paramsSize up to the driver's own 1 MiB cap */

/* Allocation parameter sizes per class (580.x), for aparams. Classes not listed get no aparams. */
static const struct {
    uint32_t hclass, size;
} class_sizes[] = {
    {0x0000, 4},   {0x0001, 4},   {0x0041, 4},   {0x0080, 56},  {0x2080, 4},   {0x90f1, 56},  {0xa06c, 20},
    {0x9067, 12},  {0xc36f, 368}, {0xc46f, 368}, {0xc56f, 368}, {0xc86f, 368}, {0xc96f, 368}, {0xca6f, 368},
    {0xc5c0, 16},  {0xc6c0, 16},  {0xc7c0, 16},  {0xc9c0, 16},  {0xcbc0, 16},  {0xcdc0, 16},  {0xcec0, 16},
    {0x003e, 128}, {0x0040, 128}, {0x0070, 24},  {0xc661, 2},   {0xc761, 2},   {0x0005, 24},  {0x0079, 24},
    {0x0078, 24},  {0x007e, 24},
};

/* UVM request -> parameter block size and where its rmStatus lies. */
static const struct {
    uint32_t cmd, size, status_off;
    const char *name;
} uvm_layouts[] = {
    {0x17, 16, 8, "CREATE_RANGE_GROUP"},
    {0x18, 16, 8, "DESTROY_RANGE_GROUP"},
    {0x19, 32, 28, "REGISTER_GPU_VASPACE"},
    {0x1a, 20, 16, "UNREGISTER_GPU_VASPACE"},
    {0x1b, 56, 48, "REGISTER_CHANNEL"},
    {0x1c, 28, 24, "UNREGISTER_CHANNEL"},
    {0x1d, 36, 32, "ENABLE_PEER_ACCESS"},
    {0x1e, 36, 32, "DISABLE_PEER_ACCESS"},
    {0x1f, 32, 24, "SET_RANGE_GROUP"},
    {0x21, 9264, 9260, "MAP_EXTERNAL_ALLOCATION"},
    {0x22, 24, 16, "FREE"},
    {0x25, 40, 36, "REGISTER_GPU"},
    {0x26, 20, 16, "UNREGISTER_GPU"},
    {0x27, 8, 4, "PAGEABLE_MEM_ACCESS"},
    {0x28, 272, 264, "PREVENT_MIGRATION_RANGE_GROUPS"},
    {0x29, 272, 264, "ALLOW_MIGRATION_RANGE_GROUPS"},
    {0x2a, 40, 36, "SET_PREFERRED_LOCATION"},
    {0x2b, 24, 16, "UNSET_PREFERRED_LOCATION"},
    {0x2c, 24, 16, "ENABLE_READ_DUPLICATION"},
    {0x2d, 24, 16, "DISABLE_READ_DUPLICATION"},
    {0x2e, 40, 32, "SET_ACCESSED_BY"},
    {0x2f, 40, 32, "UNSET_ACCESSED_BY"},
    {0x30000001, 16, 8, "INITIALIZE"},
    {0x33, 80, 72, "MIGRATE"},
    {0x35, 32, 24, "MIGRATE_RANGE_GROUP"},
    {0x36, 20, 16, "ENABLE_SYSTEM_WIDE_ATOMICS"},
    {0x37, 20, 16, "DISABLE_SYSTEM_WIDE_ATOMICS"},
    {0x3e, 40, 32, "TOOLS_READ_PROCESS_MEMORY"},
    {0x3f, 40, 32, "TOOLS_WRITE_PROCESS_MEMORY"},
    {0x41, 40, 32, "MAP_DYNAMIC_PARALLELISM_REGION"},
    {0x42, 40, 32, "UNMAP_EXTERNAL"},
    {0x43, 4, 0, "TOOLS_FLUSH_EVENTS"},
    {0x44, 9248, 9240, "ALLOC_SEMAPHORE_POOL"},
    {0x45, 4, 0, "CLEAN_UP_ZOMBIE_RESOURCES"},
    {0x46, 24, 20, "PAGEABLE_MEM_ACCESS_ON_GPU"},
    {0x47, 24, 20, "POPULATE_PAGEABLE"},
    {0x48, 24, 16, "VALIDATE_VA_RANGE"},
    {0x49, 24, 16, "CREATE_EXTERNAL_RANGE"},
    {0x4a, 40, 32, "MAP_EXTERNAL_SPARSE"},
    {0x4b, 8, 4, "MM_INITIALIZE"},
    {0x4e, 56, 52, "ALLOC_DEVICE_P2P"},
    {0x4f, 4, 0, "CLEAR_ALL_ACCESS_COUNTERS"},
};

static int out_fd = -1;
static pid_t out_pid;

static uint32_t class_param_size(uint32_t hclass)
{
    for (size_t i = 0; i < sizeof class_sizes / sizeof class_sizes[0]; i++)
        if (class_sizes[i].hclass == hclass)
            return class_sizes[i].size;
    return 0;
}

/* A growable line buffer; on allocation failure the line is dropped, never the call. */
struct line {
    char *buf;
    size_t len, cap;
    int failed;
};

/* Makes room for `more` bytes plus the NUL; false (and the line marked failed) when memory runs out. */
static bool reserve(struct line *l, size_t more)
{
    if (l->failed)
        return false;
    if (l->cap - l->len > more)
        return true;
    size_t ncap = (l->len + more + 1) * 2;
    char *nb = realloc(l->buf, ncap);
    if (!nb) {
        l->failed = 1;
        return false;
    }
    l->buf = nb;
    l->cap = ncap;
    return true;
}

static void put(struct line *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(struct line *l, const char *fmt, ...)
{
    for (size_t want = 0; reserve(l, want);) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(l->buf + l->len, l->cap - l->len, fmt, ap);
        va_end(ap);
        if (n < 0) {
            l->failed = 1;
            return;
        }
        if ((size_t)n < l->cap - l->len) {
            l->len += (size_t)n;
            return;
        }
        want = (size_t)n;
    }
}

static void put_hex(struct line *l, const char *key, const uint8_t *p, size_t n)
{
    static const char digits[] = "0123456789abcdef";
    put(l, " %s=", key);
    if (!reserve(l, 2 * n))
        return;
    for (size_t i = 0; i < n; i++) {
        l->buf[l->len++] = digits[p[i] >> 4];
        l->buf[l->len++] = digits[p[i] & 15];
    }
    l->buf[l->len] = '\0';
}

/* Reads n bytes of our own memory at addr without faulting; returns bytes read (0 on a bad pointer). */
static size_t safe_read(uint64_t addr, void *dst, size_t n)
{
    if (addr == 0 || n == 0)
        return 0;
    struct iovec local = {dst, n}, remote = {(void *)(uintptr_t)addr, n};
    ssize_t r = process_vm_readv(getpid(), &local, 1, &remote, 1, 0);
    return r < 0 ? 0 : (size_t)r;
}

static uint32_t u32_at(const uint8_t *p, size_t off)
{
    uint32_t v;
    memcpy(&v, p + off, 4);
    return v;
}

static uint64_t u64_at(const uint8_t *p, size_t off)
{
    uint64_t v;
    memcpy(&v, p + off, 8);
    return v;
}

/* The UVM layout row of cmd, or -1. */
static int uvm_layout(uint32_t cmd)
{
    for (size_t i = 0; i < sizeof uvm_layouts / sizeof uvm_layouts[0]; i++)
        if (uvm_layouts[i].cmd == cmd)
            return (int)i;
    return -1;
}

static int fd_path(int fd, char *buf, size_t n)
{
    char link[64];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t r = readlink(link, buf, n - 1);
    if (r < 0)
        return -1;
    buf[r] = '\0';
    return 0;
}

/* Opens the output once per process (a forked child re-opens when the name carries %p). */
static void open_output(void)
{
    const char *tmpl = getenv("NVEMU_RECORD_FILE");
    pid_t pid = getpid();
    if (out_fd >= 0 && (pid == out_pid || !tmpl || !strstr(tmpl, "%p")))
        return;
    if (out_fd > 2)
        close(out_fd);
    out_fd = -1;
    out_pid = pid;
    if (tmpl && tmpl[0]) {
        char path[4096];
        const char *p = strstr(tmpl, "%p");
        if (p)
            snprintf(path, sizeof path, "%.*s%ld%s", (int)(p - tmpl), tmpl, (long)pid, p + 2);
        else
            snprintf(path, sizeof path, "%s", tmpl);
        out_fd = (int)syscall(SYS_openat, AT_FDCWD, path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    }
    if (out_fd < 0)
        out_fd = 2;
}

/* The decoded middle of a line for the RM escapes the format names. */
static void decode(struct line *l, uint32_t nr, uint32_t size, const uint8_t *out)
{
    if (nr == 0x2b && size == 48)
        put(l, " ALLOC64 hRoot=0x%x hParent=0x%x hNew=0x%x class=0x%x psize=%u flags=0x%x status=0x%x", u32_at(out, 0),
            u32_at(out, 4), u32_at(out, 8), u32_at(out, 12), u32_at(out, 32), u32_at(out, 36), u32_at(out, 40));
    else if (nr == 0x2b && size == 32)
        put(l, " ALLOC hRoot=0x%x hParent=0x%x hNew=0x%x class=0x%x psize=%u status=0x%x", u32_at(out, 0),
            u32_at(out, 4), u32_at(out, 8), u32_at(out, 12), u32_at(out, 24), u32_at(out, 28));
    else if (nr == 0x2a && size == 32)
        put(l, " CTRL hClient=0x%x hObject=0x%x cmd=0x%x flags=0x%x psize=%u status=0x%x", u32_at(out, 0),
            u32_at(out, 4), u32_at(out, 8), u32_at(out, 12), u32_at(out, 24), u32_at(out, 28));
    else if (nr == 0x29 && size == 16)
        put(l, " FREE hRoot=0x%x hParent=0x%x hObj=0x%x status=0x%x", u32_at(out, 0), u32_at(out, 4), u32_at(out, 8),
            u32_at(out, 12));
}

int ioctl(int fd, unsigned long req, ...)
{
    va_list ap;
    va_start(ap, req);
    void *arg = va_arg(ap, void *);
    va_end(ap);

    char path[256];
    const char *match = getenv("NVEMU_RECORD_MATCH");
    if (!match || !match[0])
        match = "/dev/nvidia";
    if (fd_path(fd, path, sizeof path) != 0 || strncmp(path, match, strlen(match)) != 0) {
        long r = syscall(SYS_ioctl, fd, req, arg);
        return (int)r;
    }
    uint32_t nr = (uint32_t)(req & 0xFF), size = (uint32_t)((req >> 16) & 0x3FFF);
    uint32_t top = size < TOP_CAP ? size : TOP_CAP;
    static __thread uint8_t in[TOP_CAP], out[TOP_CAP];
    size_t nin = safe_read((uint64_t)(uintptr_t)arg, in, top);

    /* Control params before the call (the driver reads them; we keep a copy for pin). */
    uint8_t *pin = NULL;
    uint64_t pptr = 0;
    uint32_t psize = 0;
    size_t npin = 0;
    if (nr == 0x2a && size == 32 && nin == 32) {
        pptr = u64_at(in, 16);
        psize = u32_at(in, 24);
        if (pptr && psize && psize <= PARAMS_CAP && (pin = malloc(psize)))
            npin = safe_read(pptr, pin, psize);
    }
    bool uvm = strcmp(path, "/dev/nvidia-uvm") == 0;
    int urow = uvm ? uvm_layout((uint32_t)req) : -1;
    if (urow >= 0) {
        pptr = (uint64_t)(uintptr_t)arg;
        psize = uvm_layouts[urow].size;
        if (pptr && (pin = malloc(psize)))
            npin = safe_read(pptr, pin, psize);
    }

    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    long r = syscall(SYS_ioctl, fd, req, arg);
    int saved = errno;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double us = (double)(t1.tv_sec - t0.tv_sec) * 1e6 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e3;

    open_output();
    size_t nout = safe_read((uint64_t)(uintptr_t)arg, out, top);
    struct line l = {malloc(512), 0, 512, 0};
    if (!l.buf)
        goto done;
    put(&l, "IOCTL tid=%ld fd=%d path=%s req=0x%lx nr=0x%x size=%u ret=%ld", (long)syscall(SYS_gettid), fd, path, req,
        nr, size, r);
    if (r < 0)
        put(&l, " errno=%d", saved);
    put(&l, " us=%.1f", us);
    if (nout == size && size > 0 && !uvm)
        decode(&l, nr, size, out);
    if (uvm && urow < 0)
        put(&l, " UVM op=0x%lx", req);
    if (urow >= 0) {
        uint32_t st = 0;
        safe_read(pptr + uvm_layouts[urow].status_off, &st, sizeof st);
        put(&l, " UVM op=%s rmStatus=0x%x", uvm_layouts[urow].name, st);
    }
    if (nin)
        put_hex(&l, "in", in, nin);
    if (nout)
        put_hex(&l, "out", out, nout);
    if (npin) {
        put_hex(&l, "pin", pin, npin);
        uint8_t *pout = malloc(psize);
        size_t npout = pout ? safe_read(pptr, pout, psize) : 0;
        if (npout)
            put_hex(&l, "pout", pout, npout);
        free(pout);
    }
    if (nr == 0x2b && (size == 48 || size == 32) && nout == size) {
        uint32_t asz = class_param_size(u32_at(out, 12));
        uint8_t ap_buf[512];
        size_t nap = asz ? safe_read(u64_at(out, 16), ap_buf, asz) : 0;
        if (nap)
            put_hex(&l, "aparams", ap_buf, nap);
    }
    put(&l, "\n");
    if (!l.failed) {
        size_t off = 0;
        while (off < l.len) {
            ssize_t w = write(out_fd, l.buf + off, l.len - off);
            if (w <= 0)
                break;
            off += (size_t)w;
        }
    }
    free(l.buf);
done:
    free(pin);
    errno = saved;
    return (int)r;
}
