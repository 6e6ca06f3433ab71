/*
 * libnvemu-record.so: an LD_PRELOAD interposer around ioctl(2) that writes every ioctl on a
 * /dev/nvidia* node in the shared trace line format (fixtures/replay/README.md):
 *
 *   IOCTL tid=T fd=N path=DEV req=0xREQ nr=0xNR size=BYTES ret=RET us=US t=NS <decoded> in=HEX out=HEX
 *         [pin=HEX pout=HEX [ein=HEX eout=HEX]] [aparams=HEX]
 *
 * RET is ioctl(2)'s result; when it is -1 the line also carries errno=E right after ret (the
 * reference recording has no failing call, so this is the one addition). t is CLOCK_MONOTONIC in ns
 * when the call was issued: one clock for every process of the machine, so `nvemu replay A B ...`
 * can interleave the processes of one program as they ran. ein/eout are the lists behind the
 * pointers inside a control's params (the embedded-pointer table of emu/abi/nv_abi_desc.h, the one
 * replay uses), before and after the call. The output file is
 * $NVEMU_RECORD_FILE (appended; lines of concurrent processes never interleave; "%p" in it is
 * replaced by the process id, so each process of a multi-process program gets its own trace), else stderr.
 * Only fds whose path starts with $NVEMU_RECORD_MATCH (default "/dev/nvidia") are recorded.
 * Memory of the traced process is read with process_vm_readv, so a bad pointer passed by the
 * program is recorded as absent instead of crashing it.
 *
 * /dev/nvidia-uvm requests are plain integers, not _IOC words, so the request does not say how many
 * bytes the parameters take: for those the line carries " UVM op=NAME rmStatus=0x..." and the
 * parameter block before and after the call as pin/pout, sized from the UVM descriptor table
 * (emu/abi/nv_abi_desc.h: open-gpu-kernel-modules 580.x, kernel-open/nvidia-uvm/uvm_ioctl.h, x86-64).
 * A request missing from the table is recorded without parameter bytes (op=0xNR).
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

#include "abi/nv_abi_desc.h"
#include "abi/nv_escape.h"

#define TOP_CAP 4096u           /* in/out: whole argument block up to this many bytes */
#define PARAMS_CAP (1u << 20)   /* pin/pout: whole paramsSize up to the driver's own 1 MiB cap */
#define LIST_CAP (1u << 20)     /* ein/eout: one embedded list, up to the driver's 1 MiB param-copy cap */

static int out_fd = -1;
static pid_t out_pid;

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

/*
 * The lists behind control cmd's embedded pointers (pointer and element count from params, the
 * params before the call: the driver copies that many elements in and out), concatenated in table
 * order into a malloc'd buffer; a NULL pointer or a count of 0 adds nothing. NULL when the control has
 * none, or a list is over LIST_CAP or cannot be read whole (then the line carries no list at all).
 */
static uint8_t *embedded_lists(uint32_t cmd, const uint8_t *params, uint32_t psize, size_t *len)
{
    const struct nv_ctrl_embedded *e;
    uint32_t n = nv_ctrl_embedded(cmd, &e);
    uint64_t total = 0;
    *len = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (e[i].ptr_off + 8 > psize || e[i].count_off + 4 > psize)
            return NULL;
        uint64_t bytes = (uint64_t)u32_at(params, e[i].count_off) * e[i].elem;
        if (!u64_at(params, e[i].ptr_off))
            continue;
        if (bytes > LIST_CAP)
            return NULL;
        total += bytes;
    }
    uint8_t *buf = total ? malloc(total) : NULL;
    if (!buf)
        return NULL;
    size_t at = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint64_t ptr = u64_at(params, e[i].ptr_off);
        size_t bytes = (size_t)u32_at(params, e[i].count_off) * e[i].elem;
        if (!ptr || !bytes)
            continue;
        if (safe_read(ptr, buf + at, bytes) != bytes) {
            free(buf);
            return NULL;
        }
        at += bytes;
    }
    *len = at;
    return buf;
}

/* The layout of UVM request cmd, or NULL when it has no parameter block the table knows. */
static const struct nv_uvm_desc *uvm_layout(uint32_t cmd)
{
    const struct nv_uvm_desc *d = nv_uvm_desc(cmd);
    return d && d->size ? d : NULL;
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

#define U32(type, field) u32_at(out, offsetof(type, field))

/* The decoded middle of a line for the RM escapes the format names. */
static void decode(struct line *l, uint32_t nr, uint32_t size, const uint8_t *out)
{
    if (nr == NV_ESC_RM_ALLOC && size == sizeof(NVOS64_PARAMETERS))
        put(l, " ALLOC64 hRoot=0x%x hParent=0x%x hNew=0x%x class=0x%x psize=%u flags=0x%x status=0x%x",
            U32(NVOS64_PARAMETERS, hRoot), U32(NVOS64_PARAMETERS, hObjectParent), U32(NVOS64_PARAMETERS, hObjectNew),
            U32(NVOS64_PARAMETERS, hClass), U32(NVOS64_PARAMETERS, paramsSize), U32(NVOS64_PARAMETERS, flags),
            U32(NVOS64_PARAMETERS, status));
    else if (nr == NV_ESC_RM_ALLOC && size == sizeof(NVOS21_PARAMETERS))
        put(l, " ALLOC hRoot=0x%x hParent=0x%x hNew=0x%x class=0x%x psize=%u status=0x%x",
            U32(NVOS21_PARAMETERS, hRoot), U32(NVOS21_PARAMETERS, hObjectParent), U32(NVOS21_PARAMETERS, hObjectNew),
            U32(NVOS21_PARAMETERS, hClass), U32(NVOS21_PARAMETERS, paramsSize), U32(NVOS21_PARAMETERS, status));
    else if (nr == NV_ESC_RM_CONTROL && size == sizeof(NVOS54_PARAMETERS))
        put(l, " CTRL hClient=0x%x hObject=0x%x cmd=0x%x flags=0x%x psize=%u status=0x%x",
            U32(NVOS54_PARAMETERS, hClient), U32(NVOS54_PARAMETERS, hObject), U32(NVOS54_PARAMETERS, cmd),
            U32(NVOS54_PARAMETERS, flags), U32(NVOS54_PARAMETERS, paramsSize), U32(NVOS54_PARAMETERS, status));
    else if (nr == NV_ESC_RM_FREE && size == sizeof(NVOS00_PARAMETERS))
        put(l, " FREE hRoot=0x%x hParent=0x%x hObj=0x%x status=0x%x", U32(NVOS00_PARAMETERS, hRoot),
            U32(NVOS00_PARAMETERS, hObjectParent), U32(NVOS00_PARAMETERS, hObjectOld), U32(NVOS00_PARAMETERS, status));
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
    uint8_t *pin = NULL, *ein = NULL;
    uint64_t pptr = 0;
    uint32_t psize = 0, cmd = 0;
    size_t npin = 0, nein = 0;
    if (nr == NV_ESC_RM_CONTROL && size == sizeof(NVOS54_PARAMETERS) && nin == size) {
        pptr = u64_at(in, offsetof(NVOS54_PARAMETERS, params));
        psize = u32_at(in, offsetof(NVOS54_PARAMETERS, paramsSize));
        cmd = u32_at(in, offsetof(NVOS54_PARAMETERS, cmd));
        if (pptr && psize && psize <= PARAMS_CAP && (pin = malloc(psize)))
            npin = safe_read(pptr, pin, psize);
        if (npin == psize && npin)
            ein = embedded_lists(cmd, pin, psize, &nein);
    }
    bool uvm = strcmp(path, "/dev/nvidia-uvm") == 0;
    const struct nv_uvm_desc *urow = uvm ? uvm_layout((uint32_t)req) : NULL;
    if (urow) {
        pptr = (uint64_t)(uintptr_t)arg;
        psize = urow->size;
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
    uint64_t t_ns = (uint64_t)t0.tv_sec * 1000000000ull + (uint64_t)t0.tv_nsec;
    put(&l, " us=%.1f t=%llu", us, (unsigned long long)t_ns);
    if (nout == size && size > 0 && !uvm)
        decode(&l, nr, size, out);
    if (uvm && !urow)
        put(&l, " UVM op=0x%lx", req);
    if (urow) {
        uint32_t st = 0;
        safe_read(pptr + urow->status_at, &st, sizeof st);
        put(&l, " UVM op=%s rmStatus=0x%x", urow->name, st);
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
        /* the lists after the call: the same pointers and counts, which the driver restores in the params */
        size_t neout = 0;
        uint8_t *eout = ein ? embedded_lists(cmd, pin, psize, &neout) : NULL;
        if (eout && neout == nein) {
            put_hex(&l, "ein", ein, nein);
            put_hex(&l, "eout", eout, neout);
        }
        free(eout);
    }
    if (nr == NV_ESC_RM_ALLOC && (size == sizeof(NVOS64_PARAMETERS) || size == sizeof(NVOS21_PARAMETERS)) &&
        nout == size) {
        /* the allocation params the class descriptor names (NVOS21 is NVOS64's prefix up to pAllocParms) */
        uint32_t asz = nv_class_params_size(NV_REL_BASE, u32_at(out, offsetof(NVOS21_PARAMETERS, hClass)));
        uint8_t ap_buf[512];
        size_t nap = asz && asz <= sizeof ap_buf
                         ? safe_read(u64_at(out, offsetof(NVOS21_PARAMETERS, pAllocParms)), ap_buf, asz) : 0;
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
    free(ein);
    free(pin);
    errno = saved;
    return (int)r;
}
