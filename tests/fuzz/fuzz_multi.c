/*
 * libFuzzer target: sequences of RM calls across three processes (root with
 * CAP_SYS_NICE, two users), each with up to three fds, so that ownership,
 * REGISTER_FD, closes in the middle of a tree and OS events of other users
 * are in reach. Input = a sequence of operations; each starts with one byte:
 *   op % 8: 0 open, 1 close, 2 client, 3 alloc, 4 control, 5 free, 6 REGISTER_FD, 7 OS event
 * followed by that operation's bytes (see run_op). Param blocks come from the
 * input; an aligned u32 of the form 0xFFFFFFxx in them is replaced by handle
 * table entry xx % 16 (fixed object handles and the clients made so far), so
 * short inputs name real objects. Pointers reach only a private arena.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "abi/nv_classes.h"
#include "abi/nv_escape.h"
#include "core/emulator.h"
#include "base/log.h"
#include "nvemu/nvemu.h"

#define ARENA_BASE 0x20000000ull
#define ARENA_SIZE 0x4000u
#define PARAMS_AT 0x1000u
#define PROCS 3
#define SLOTS (PROCS * 3)
#define HANDLES 16

struct mz {
    unsigned char arena[ARENA_SIZE];
    nvemu_opener *fd[SLOTS];
    uint32_t h[HANDLES];
    uint32_t nclients;
    const uint8_t *p, *end;
};

static int arena_read(void *ctx, uint64_t addr, void *dst, size_t len)
{
    struct mz *z = ctx;
    if (len && (addr < ARENA_BASE || addr - ARENA_BASE > ARENA_SIZE || len > ARENA_SIZE - (addr - ARENA_BASE)))
        return -EFAULT;
    if (len)
        memcpy(dst, z->arena + (addr - ARENA_BASE), len);
    return 0;
}

static int arena_write(void *ctx, uint64_t addr, const void *src, size_t len)
{
    struct mz *z = ctx;
    if (len && (addr < ARENA_BASE || addr - ARENA_BASE > ARENA_SIZE || len > ARENA_SIZE - (addr - ARENA_BASE)))
        return -EFAULT;
    if (len)
        memcpy(z->arena + (addr - ARENA_BASE), src, len);
    return 0;
}

static nvemu_opener *slot_resolve(void *ctx, int fd)
{
    struct mz *z = ctx;
    return fd >= 0 && fd < SLOTS ? z->fd[fd] : NULL;
}

static uint8_t byte(struct mz *z)
{
    return z->p < z->end ? *z->p++ : 0;
}

static uint32_t handle(struct mz *z)
{
    return z->h[byte(z) % HANDLES];
}

/* n input bytes into the arena at PARAMS_AT, handle tokens replaced; returns the arena address. */
static uint64_t params(struct mz *z, uint32_t n)
{
    memset(z->arena + PARAMS_AT, 0, n);
    for (uint32_t i = 0; i < n && z->p < z->end; i++)
        z->arena[PARAMS_AT + i] = *z->p++;
    for (uint32_t off = 0; off + 4 <= n; off += 4) {
        uint32_t w;
        memcpy(&w, z->arena + PARAMS_AT + off, 4);
        if ((w & 0xFFFFFF00u) == 0xFFFFFF00u) {
            w = z->h[w % HANDLES];
            memcpy(z->arena + PARAMS_AT + off, &w, 4);
        }
    }
    return ARENA_BASE + PARAMS_AT;
}

static const uint32_t classes[] = {NV01_DEVICE_0,        NV20_SUBDEVICE_0,       FERMI_VASPACE_A,
                                   KEPLER_CHANNEL_GROUP_A, FERMI_CONTEXT_SHARE_A, HOPPER_CHANNEL_GPFIFO_A,
                                   AMPERE_DMA_COPY_A,    HOPPER_COMPUTE_A,       NV01_EVENT_OS_EVENT,
                                   NV01_MEMORY_SYSTEM,   NV01_MEMORY_LOCAL_USER};
static const uint32_t controls[] = {0xA06C0101, 0xA06C0103, 0xA06C0104, 0xA06C0105, 0xA06C0106, 0xA06C0107,
                                    0xA06C0110, 0x2080110B, 0x20801115, 0x20801109, 0xA06F0109, 0xA06F0111,
                                    0xA06F0103, 0xC36F0108, 0x00000201, 0x00800280,
                                    /* OS_UNIX export/import: an fd inside the params, objects across clients */
                                    0x00003d05, 0x00003d06, 0x00003d08, 0x00003d0a, 0x00003d0b, 0x00003d0c};

static void run_op(nvemu *emu, struct mz *z, nvemu_access *acc)
{
    uint8_t op = byte(z), s = byte(z) % SLOTS;
    nvemu_opener *o = z->fd[s];
    acc->tid = 20 + s / 3;
    unsigned char a[64];
    memset(a, 0, sizeof(a));
    switch (op % 8) {
    case 0:
        if (!o) {
            static const uint32_t uid[PROCS] = {0, 1000, 65534};
            nvemu_identity who = {.pid = 20 + s / 3, .tid = 20 + s / 3, .uid = uid[s / 3],
                                  .caps = s < 3 ? NVEMU_CAP_SYS_NICE : 0, .comm = "fuzz"};
            z->fd[s] = nvemu_open(emu, op & 0x80 ? NVEMU_NODE_GPU : NVEMU_NODE_CTL, 0, &who, NULL);
        }
        return;
    case 1:
        nvemu_release(emu, o);
        z->fd[s] = NULL;
        return;
    default:
        break;
    }
    if (!o)
        return;
    switch (op % 8) {
    case 2: {
        NVOS21_PARAMETERS *p = (void *)a;
        p->hClass = 0x41;
        if (nvemu_ioctl(emu, o, NV_ESC_RM_ALLOC, sizeof(*p), p, acc) == 0 && p->status == 0)
            z->h[8 + z->nclients++ % 8] = p->hObjectNew;
        return;
    }
    case 3: {
        NVOS21_PARAMETERS *p = (void *)a;
        p->hRoot = handle(z);
        p->hObjectParent = handle(z);
        p->hObjectNew = handle(z);
        p->hClass = classes[byte(z) % (sizeof(classes) / sizeof(classes[0]))];
        uint32_t n = byte(z) % 128;
        p->pAllocParms = n ? params(z, n) : 0;
        p->paramsSize = n;
        nvemu_ioctl(emu, o, NV_ESC_RM_ALLOC, sizeof(*p), p, acc);
        return;
    }
    case 4: {
        NVOS54_PARAMETERS *p = (void *)a;
        p->hClient = handle(z);
        p->hObject = handle(z);
        p->cmd = controls[byte(z) % (sizeof(controls) / sizeof(controls[0]))];
        uint32_t n = byte(z);
        /* the registered sizes of the larger blocks (536; OS_UNIX 2128, 652, 80, 76), else up to 63 bytes */
        n = n == 255 ? 536 : n == 254 ? 2128 : n == 253 ? 652 : n == 252 ? 80 : n == 251 ? 76 : n % 64;
        p->params = params(z, n);
        p->paramsSize = n;
        nvemu_ioctl(emu, o, NV_ESC_RM_CONTROL, sizeof(*p), p, acc);
        return;
    }
    case 5: {
        NVOS00_PARAMETERS *p = (void *)a;
        p->hRoot = handle(z);
        p->hObjectOld = byte(z) & 1 ? p->hRoot : handle(z);
        nvemu_ioctl(emu, o, NV_ESC_RM_FREE, sizeof(*p), p, acc);
        return;
    }
    case 6: {
        int ctl = byte(z) % SLOTS;
        memcpy(a, &ctl, sizeof(ctl));
        nvemu_ioctl(emu, o, NV_ESC_REGISTER_FD, sizeof(ctl), a, acc);
        return;
    }
    default: {
        nv_ioctl_alloc_os_event_t *p = (void *)a;
        p->hClient = handle(z);
        p->fd = byte(z) % SLOTS;
        nvemu_ioctl(emu, o, op & 0x80 ? NV_ESC_FREE_OS_EVENT : NV_ESC_ALLOC_OS_EVENT, sizeof(*p), p, acc);
        return;
    }
    }
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
    static nvemu *emu;
    static struct mz z;
    if (!emu) {
        nvemu_config cfg;
        nvemu_config_init(&cfg);
        emu = nvemu_create(&cfg, NULL, 0);
        if (!emu)
            abort();
    }
    memset(&z, 0, sizeof(z));
    for (uint32_t i = 0; i < 8; i++)
        z.h[i] = 0x5C000001u + i;
    z.p = data;
    z.end = data + size;
    nvemu_access acc = {.read = arena_read, .write = arena_write, .resolve_fd = slot_resolve, .ctx = &z};
    while (z.p < z.end)
        run_op(emu, &z, &acc);
    /* closes in an order the input chose last: ctl fds with registered fds outlive them */
    for (int i = 0; i < SLOTS; i++)
        nvemu_release(emu, z.fd[i]);
    return 0;
}
