/*
 * libFuzzer target over nvemu_ioctl. Input = a sequence of records:
 *   u8 who; u8 nr; u16 size (LE); size bytes
 * who 0..3 picks one of four openers (two nvidiactl, two nvidia0; 4..7 the
 * same with CAP_SYS_NICE callers); who 0xFF writes the bytes into the arena
 * at offset nr << 8 instead of issuing an ioctl; who 0xFE injects a fault
 * (core/emulator.h): nr even -> GPU nr >> 1 lost, nr odd -> the next nr >> 1
 * controls with the command in the record's first 4 bytes (LE) answer
 * NV_ERR_BUSY_RETRY.
 * Embedded pointers are only valid inside a private 64 KiB arena at
 * ARENA_BASE (the accessor refuses everything else with -EFAULT), so fuzzed
 * pointer values can never touch real memory. A fresh emulator per input
 * keeps runs independent and reproducible.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/emulator.h"
#include "core/log.h"
#include "nvemu/nvemu.h"

#define ARENA_BASE 0x10000000ull
#define ARENA_SIZE 0x10000u
#define OPENERS 4

struct fz {
    unsigned char arena[ARENA_SIZE];
    nvemu_opener *ops[OPENERS * 2];
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
    return 0;
}

static void inject_fault(nvemu *emu, uint8_t nr, const uint8_t *bytes, size_t n)
{
    if (!(nr & 1)) {
        nvemu_fault_gpu_lost(emu, nr >> 1);
        return;
    }
    uint32_t cmd = 0;
    for (size_t i = 0; i < 4 && i < n; i++)
        cmd |= (uint32_t)bytes[i] << (8 * i);
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct fz z;
    memset(&z, 0, sizeof(z));
    nvemu_config cfg;
    nvemu_config_init(&cfg);
    cfg.gpreempt_compat = size > 0 && (data[0] & 0x80);
    nvemu *emu = nvemu_create(&cfg, NULL, 0);
    if (!emu)
        abort();
    for (int i = 0; i < OPENERS * 2; i++) {
        nvemu_identity who = {.pid = 10 + (i & 1), .tid = 10 + (i & 1), .uid = 1000,
                              .caps = i >= OPENERS ? NVEMU_CAP_SYS_NICE : 0, .comm = "fuzz"};
        z.ops[i] = nvemu_open(emu, (i % OPENERS) < 2 ? NVEMU_NODE_CTL : NVEMU_NODE_GPU, 0, &who, NULL);
    }
    nvemu_access acc = {.read = arena_read, .write = arena_write, .resolve_fd = arena_resolve, .ctx = &z};
    size_t off = 0;
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
        } else if (who == 0xFE) {
            inject_fault(emu, nr, data + off, avail);
        } else {
            uint32_t sz = len & 0x3FFF;
            unsigned char *arg = malloc(sz ? sz : 1);
            memset(arg, 0, sz);
            memcpy(arg, data + off, avail < sz ? avail : sz);
            acc.tid = 10 + (who & 1);
            nvemu_ioctl(emu, z.ops[who % (OPENERS * 2)], nr, sz, arg, &acc);
            free(arg);
        }
        off += avail;
    }
    for (int i = 0; i < OPENERS * 2; i++)
        nvemu_release(emu, z.ops[i]);
    nvemu_destroy(emu);
    return 0;
}
