/*
 * Writes the fuzzer's seed corpus from a recorded trace (line format of
 * fixtures/replay/ traces): one seed per RM ALLOC/CONTROL/FREE and OS escape
 * line (its recorded argument block as one record), plus seeds of whole
 * sessions built on the arena (client, device, subdevice, controls), also
 * with a fault injected (busy retry of the session's control, GPU lost).
 * usage: fuzz_seed_gen TRACE OUTDIR
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "abi/nv_alloc.h"
#include "abi/nv_classes.h"
#include "abi/nv_escape.h"

#define ARENA_BASE 0x10000000ull

static int seeds;

static void put_record(FILE *f, uint8_t who, uint8_t nr, const void *arg, uint16_t len)
{
    uint8_t h[4] = {who, nr, (uint8_t)len, (uint8_t)(len >> 8)};
    fwrite(h, 1, 4, f);
    fwrite(arg, 1, len, f);
}

static FILE *new_seed(const char *dir)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s/seed-%04d", dir, seeds++);
    return fopen(path, "wb");
}

static int hexval(int c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

enum seed_fault { FAULT_NONE, FAULT_BUSY_RETRY, FAULT_GPU_LOST };

/* One session on the arena: client, device 0, subdevice, a name-string control, a free. */
static void session_seed(const char *dir, enum seed_fault fault)
{
    FILE *f = new_seed(dir);
    if (!f)
        return;
    NV0080_ALLOC_PARAMETERS dp = {0};
    put_record(f, 0xFF, 0x01, &dp, sizeof(dp));             /* device params at arena 0x100 */
    NVOS64_PARAMETERS a = {0};
    a.hClass = NV01_ROOT_CLIENT;
    a.hRoot = 0xC1D00000u;
    put_record(f, 0, NV_ESC_RM_ALLOC, &a, sizeof(a));
    a.hObjectParent = a.hRoot;
    a.hObjectNew = 0x5C000002u;
    a.hClass = NV01_DEVICE_0;
    a.pAllocParms = ARENA_BASE + 0x100;
    put_record(f, 0, NV_ESC_RM_ALLOC, &a, sizeof(a));
    a.hObjectParent = 0x5C000002u;
    a.hObjectNew = 0x5C000003u;
    a.hClass = NV20_SUBDEVICE_0;
    a.pAllocParms = 0;
    put_record(f, 0, NV_ESC_RM_ALLOC, &a, sizeof(a));
    /* fuzz_ioctl's fault record: who 0xFE, nr odd = busy retry x (nr >> 1) of the LE command, 0x0E = GPU 0 lost */
    uint32_t cmd = 0x20800110u;
    if (fault == FAULT_BUSY_RETRY)
        put_record(f, 0xFE, 2 << 1 | 1, &cmd, sizeof(cmd));
    else if (fault == FAULT_GPU_LOST)
        put_record(f, 0xFE, 0x0E, &cmd, 0);
    NVOS54_PARAMETERS c = {0xC1D00000u, 0x5C000003u, 0x20800110u, 0, ARENA_BASE + 0x200, 132, 0};
    put_record(f, 0, NV_ESC_RM_CONTROL, &c, sizeof(c));
    nv_ioctl_register_fd_t r = {0};
    put_record(f, 2, NV_ESC_REGISTER_FD, &r, sizeof(r));
    nv_ioctl_xfer_t x = {NV_ESC_RM_CONTROL, sizeof(c), ARENA_BASE + 0x300};
    put_record(f, 0xFF, 0x03, &c, sizeof(c));
    put_record(f, 0, NV_ESC_IOCTL_XFER_CMD, &x, sizeof(x));
    NVOS00_PARAMETERS fr = {0xC1D00000u, 0xC1D00000u, 0x5C000002u, 0};
    put_record(f, 0, NV_ESC_RM_FREE, &fr, sizeof(fr));
    fclose(f);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s TRACE OUTDIR\n", argv[0]);
        return 2;
    }
    FILE *in = fopen(argv[1], "r");
    if (!in) {
        perror(argv[1]);
        return 1;
    }
    session_seed(argv[2], FAULT_NONE);
    session_seed(argv[2], FAULT_BUSY_RETRY);
    session_seed(argv[2], FAULT_GPU_LOST);
    static char line[1 << 16];
    static unsigned char arg[1 << 14];
    while (fgets(line, sizeof(line), in)) {
        const char *p = strstr(line, " nr=0x");
        const char *s = strstr(line, " size=");
        const char *hx = strstr(line, " in=");
        if (!p || !s || !hx || strstr(line, "nvidia-uvm"))
            continue;
        unsigned nr = (unsigned)strtoul(p + 6, NULL, 16);
        unsigned size = (unsigned)strtoul(s + 6, NULL, 10);
        if (size == 0 || size > sizeof(arg))
            continue;
        hx += 4;
        unsigned n = 0;
        while (n < size && hexval(hx[0]) >= 0 && hexval(hx[1]) >= 0) {
            arg[n++] = (unsigned char)(hexval(hx[0]) << 4 | hexval(hx[1]));
            hx += 2;
        }
        if (n != size)
            continue;
        FILE *f = new_seed(argv[2]);
        if (!f)
            break;
        put_record(f, strstr(line, "/dev/nvidia0") ? 2 : 0, (uint8_t)nr, arg, (uint16_t)size);
        fclose(f);
    }
    fclose(in);
    printf("%d seeds\n", seeds);
    return 0;
}
