/*
 * libFuzzer target over nvemu_ioctl. Input = a sequence of records:
 *   u8 who; u8 nr; u16 size (LE); size bytes
 * who 0..3 picks one of four openers (two nvidiactl, two nvidia0; 4..7 the
 * same with CAP_SYS_NICE callers); who 0xFF writes the bytes into the arena
 * at offset nr << 8 instead of issuing an ioctl; who 0xFE injects a fault
 * (core/emulator.h): nr odd -> the next nr >> 1 controls with the command in
 * the record's first 4 bytes (LE) answer NV_ERR_BUSY_RETRY; nr & 0x0F == 0x0E
 * -> GPU nr >> 4 lost; other even nr: nothing; who 0xFD issues a /dev/nvidia-uvm
 * request through nvemu_ioctl_request (number nr, or UVM_INITIALIZE/
 * DEINITIALIZE 0x30000000 | (nr & 0xF) for nr >= 0xF0) whose block is the
 * record's bytes, placed in the arena at UVM_BLOCK (the UVM opener is opened
 * at the first such record).
 * Embedded pointers are only valid inside a private 64 KiB arena at
 * ARENA_BASE (the accessor refuses everything else with -EFAULT), so fuzzed
 * pointer values can never touch real memory.
 * One emulator per configuration (GPreempt compatibility off/on) lives for
 * the whole process; each input opens fresh openers (those it names) and
 * closes them all at its end, which frees every client, object and OS event it made, and its
 * busy-retry faults are withdrawn. A lost GPU stays lost: inputs that lose
 * one run on a third emulator of their own, where losses accumulate
 * (rebuilding per input costs 30x the input itself). Run alone, such an
 * input sees its GPU lost only from its fault record on.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "abi/nv_escape.h"
#include "core/emulator.h"
#include "base/log.h"
#include "nvemu/nvemu.h"

#define ARENA_BASE 0x10000000ull
#define ARENA_SIZE 0x10000u
#define OPENERS 4
#define UVM_BLOCK 0xD000u   /* arena offset of a UVM record's block (the largest is 9264 bytes) */

struct fz {
    unsigned char arena[ARENA_SIZE];
    size_t dirty;                 /* arena bytes [0, dirty) may be non-zero (cleared before the next input) */
    nvemu_opener *ops[OPENERS * 2];
    nvemu_opener *uvm;
};

static int arena_read(void *ctx, uint64_t addr, void *dst, size_t len)
{
    struct fz *z = ctx;
    if (len == 0)
        return 0;
    if (addr < ARENA_BASE || addr - ARENA_BASE > ARENA_SIZE || len > ARENA_SIZE - (addr - ARENA_BASE))
        return -EFAULT;
    memcpy(dst, z->arena + (addr - ARENA_BASE), len);
    return 0;
}

static int arena_write(void *ctx, uint64_t addr, const void *src, size_t len)
{
    struct fz *z = ctx;
    if (len == 0)
        return 0;
    if (addr < ARENA_BASE || addr - ARENA_BASE > ARENA_SIZE || len > ARENA_SIZE - (addr - ARENA_BASE))
        return -EFAULT;
    memcpy(z->arena + (addr - ARENA_BASE), src, len);
    if (addr - ARENA_BASE + len > z->dirty)
        z->dirty = addr - ARENA_BASE + len;
    return 0;
}

#define MAX_BUSY 16

/* Busy-retry commands go to busy[] (withdrawn after the input). */
static void inject_fault(nvemu *emu, uint8_t nr, const uint8_t *bytes, size_t n, uint32_t *busy, uint32_t *nbusy)
{
    if (!(nr & 1)) {
        if ((nr & 0x0F) == 0x0E)
            nvemu_fault_gpu_lost(emu, nr >> 4);
        return;
    }
    uint32_t cmd = 0;
    for (size_t i = 0; i < 4 && i < n; i++)
        cmd |= (uint32_t)bytes[i] << (8 * i);
    if (*nbusy == MAX_BUSY)
        return;
    busy[(*nbusy)++] = cmd;
    nvemu_fault_busy_retry(emu, cmd, nr >> 1);
}

static nvemu_opener *arena_resolve(void *ctx, int fd)
{
    struct fz *z = ctx;
    return fd >= 0 && fd < OPENERS * 2 ? z->ops[fd] : NULL;
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    nvemu_log_set_level(NVEMU_LOG_ERROR);
    return 0;
}

/* [compat]: inputs without a GPU loss; [2 + compat]: inputs with one. */
static nvemu *emus[4];

static nvemu *emulator(unsigned which)
{
    nvemu **e = &emus[which];
    if (!*e) {
        nvemu_config cfg;
        nvemu_config_init(&cfg);
        cfg.gpreempt_compat = which & 1;
        *e = nvemu_create(&cfg, NULL, 0);
        if (!*e)
            abort();
    }
    return *e;
}

/* Whether the input holds a GPU-loss record (see inject_fault). */
static bool loses_gpu(const uint8_t *data, size_t size)
{
    for (size_t off = 0; off + 4 <= size;) {
        if (data[off] == 0xFE && (data[off + 1] & 0x0F) == 0x0E)
            return true;
        size_t len = (size_t)(data[off + 2] | (data[off + 3] << 8));
        off += 4 + (size - off - 4 < len ? size - off - 4 : len);
    }
    return false;
}

/*
 * The openers the input names: each record's `who`, REGISTER_FD's ctl_fd, and
 * the GPU node of every process whose control node is named (a CUDA process
 * holds both; the device alloc needs nvidia0 open). Only these are opened and
 * released: an opener's release walks every client of the emulator, and most
 * inputs name one or two of the eight.
 */
static unsigned named_openers(const uint8_t *data, size_t size)
{
    unsigned m = 0;
    for (size_t off = 0; off + 4 <= size;) {
        uint8_t who = data[off], nr = data[off + 1];
        size_t len = (size_t)(data[off + 2] | (data[off + 3] << 8));
        size_t avail = size - off - 4 < len ? size - off - 4 : len;
        if (who < 0xFE)
            m |= 1u << (who % (OPENERS * 2));
        if (who < 0xFE && nr == NV_ESC_REGISTER_FD && avail >= 4) {
            uint32_t fd = (uint32_t)data[off + 4] | (uint32_t)data[off + 5] << 8 | (uint32_t)data[off + 6] << 16 |
                          (uint32_t)data[off + 7] << 24;
            if (fd < OPENERS * 2)
                m |= 1u << fd;
        }
        off += 4 + avail;
    }
    for (unsigned i = 0; i < OPENERS * 2; i++)
        if ((m & (1u << i)) && i % OPENERS < 2)
            m |= 1u << (i + 2);
    return m;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* clearing only what the last input wrote: a whole-arena memset was a tenth of the time per input */
    static struct fz z;
    memset(z.arena, 0, z.dirty);
    z.dirty = 0;
    bool compat = size > 0 && (data[0] & 0x80);
    nvemu *emu = emulator((loses_gpu(data, size) ? 2u : 0u) | compat);
    uint32_t busy[MAX_BUSY], nbusy = 0;
    unsigned named = named_openers(data, size);
    for (int i = 0; i < OPENERS * 2; i++) {
        nvemu_identity who = {.pid = 10 + (i & 1), .tid = 10 + (i & 1), .uid = 1000,
                              .caps = i >= OPENERS ? NVEMU_CAP_SYS_NICE : 0, .comm = "fuzz"};
        z.ops[i] = !(named & (1u << i)) ? NULL
                   : nvemu_open(emu, (i % OPENERS) < 2 ? NVEMU_NODE_CTL : NVEMU_NODE_GPU, 0, &who, NULL);
    }
    z.uvm = NULL;
    nvemu_access acc = {.read = arena_read, .write = arena_write, .resolve_fd = arena_resolve, .ctx = &z};
    size_t off = 0;
    unsigned char arg[0x4000];
    while (off + 4 <= size) {
        uint8_t who = data[off];
        uint8_t nr = data[off + 1];
        uint16_t len = (uint16_t)(data[off + 2] | (data[off + 3] << 8));
        off += 4;
        size_t avail = size - off < len ? size - off : len;
        if (who == 0xFF) {
            /* arena write: offset = nr << 8 */
            size_t at = (size_t)nr << 8;
            size_t n = avail < ARENA_SIZE - at ? avail : ARENA_SIZE - at;
            memcpy(z.arena + at, data + off, n);
            if (at + n > z.dirty)
                z.dirty = at + n;
        } else if (who == 0xFE) {
            inject_fault(emu, nr, data + off, avail, busy, &nbusy);
        } else if (who == 0xFD) {
            size_t n = avail < ARENA_SIZE - UVM_BLOCK ? avail : ARENA_SIZE - UVM_BLOCK;
            memcpy(z.arena + UVM_BLOCK, data + off, n);
            if (UVM_BLOCK + n > z.dirty)
                z.dirty = UVM_BLOCK + n;
            if (!z.uvm) {
                nvemu_identity uwho = {.pid = 10, .tid = 10, .uid = 1000, .comm = "fuzz"};
                z.uvm = nvemu_open(emu, NVEMU_NODE_UVM, 0, &uwho, NULL);
            }
            acc.tid = 10;
            unsigned long cmd = nr >= 0xF0 ? 0x30000000u | (nr & 0xFu) : nr;
            if (z.uvm)
                nvemu_ioctl_request(emu, z.uvm, cmd, ARENA_BASE + UVM_BLOCK, &acc);
        } else {
            uint32_t sz = len & 0x3FFF;
            memset(arg, 0, sz);
            memcpy(arg, data + off, avail < sz ? avail : sz);
            acc.tid = 10 + (who & 1);
            if (z.ops[who % (OPENERS * 2)])
                nvemu_ioctl(emu, z.ops[who % (OPENERS * 2)], nr, sz, arg, &acc);
        }
        off += avail;
    }
    for (int i = 0; i < OPENERS * 2; i++)
        nvemu_release(emu, z.ops[i]);
    nvemu_release(emu, z.uvm);
    for (uint32_t i = 0; i < nbusy; i++)
        nvemu_fault_busy_retry(emu, busy[i], 0);
    return 0;
}
