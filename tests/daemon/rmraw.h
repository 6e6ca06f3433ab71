/*
 * Raw RM ioctl structs and calls for the daemon tests, written from the
 * driver's headers (docs/driver-sources.md sections A, C, D, E) with nothing
 * from nvemu: these programs talk to /dev/nvidiactl exactly as a foreign
 * binary would.
 */
#ifndef NVEMU_TESTS_RMRAW_H
#define NVEMU_TESTS_RMRAW_H

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>

typedef struct {
    uint32_t hRoot, hObjectParent, hObjectNew, hClass;
    uint64_t pAllocParms;
    uint32_t paramsSize, status;
} raw_nvos21;
_Static_assert(sizeof(raw_nvos21) == 32 && offsetof(raw_nvos21, status) == 28, "NVOS21");

typedef struct {
    uint32_t hClient, hObject, cmd, flags;
    uint64_t params;
    uint32_t paramsSize, status;
} raw_nvos54;
_Static_assert(sizeof(raw_nvos54) == 32 && offsetof(raw_nvos54, status) == 28, "NVOS54");

typedef struct {
    uint32_t hRoot, hObjectParent, hObjectOld, status;
} raw_nvos00;
_Static_assert(sizeof(raw_nvos00) == 16, "NVOS00");

typedef struct {
    uint32_t deviceId, hClientShare, hTargetClient, hTargetDevice, flags;
    uint32_t pad;
    uint64_t vaSpaceSize, vaStartInternal, vaLimitInternal;
    uint32_t vaMode, pad2;
} raw_nv0080_alloc;
_Static_assert(sizeof(raw_nv0080_alloc) == 56 && offsetof(raw_nv0080_alloc, vaMode) == 48, "NV0080 alloc");

typedef struct {
    uint32_t hObjectError, hObjectEccError, hVASpace, engineType;
    uint8_t bIsCallingContextVgpuPlugin;
} raw_tsg_alloc;
_Static_assert(sizeof(raw_tsg_alloc) == 20 && offsetof(raw_tsg_alloc, engineType) == 12, "TSG alloc");

#define RAW_REQ(nr, size) (0xC0000000u | ((uint32_t)(size) << 16) | 0x4600u | (uint32_t)(nr))
#define RAW_ESC_RM_FREE 0x29u
#define RAW_ESC_RM_CONTROL 0x2Au
#define RAW_ESC_RM_ALLOC 0x2Bu
#define RAW_ESC_REGISTER_FD 201u

#define RAW_CLASS_CLIENT 0x41u
#define RAW_CLASS_DEVICE 0x80u
#define RAW_CLASS_SUBDEVICE 0x2080u
#define RAW_CLASS_TSG 0xA06Cu
#define RAW_ENGINE_GR0 1u
#define RAW_CTRL_SET_TIMESLICE 0xA06C0103u
#define RAW_CTRL_GET_TIMESLICE 0xA06C0104u
#define RAW_NV_OK 0u
#define RAW_NV_ERR_INVALID_CLIENT 0x23u

/* The RM status stored in the struct, or 0x80000000|errno when the syscall itself failed. */
static inline uint32_t raw_alloc(int fd, uint32_t hRoot, uint32_t hParent, uint32_t *hNew, uint32_t hClass,
                                 void *params, uint32_t size)
{
    raw_nvos21 p = {hRoot, hParent, *hNew, hClass, (uint64_t)(uintptr_t)params, size, 0xFFFFFFFFu};
    if (ioctl(fd, RAW_REQ(RAW_ESC_RM_ALLOC, sizeof(p)), &p) != 0)
        return 0x80000000u | (uint32_t)errno;
    *hNew = p.hObjectNew;
    return p.status;
}

static inline uint32_t raw_control(int fd, uint32_t hClient, uint32_t hObject, uint32_t cmd, void *params,
                                   uint32_t size)
{
    raw_nvos54 p = {hClient, hObject, cmd, 0, (uint64_t)(uintptr_t)params, size, 0xFFFFFFFFu};
    if (ioctl(fd, RAW_REQ(RAW_ESC_RM_CONTROL, sizeof(p)), &p) != 0)
        return 0x80000000u | (uint32_t)errno;
    return p.status;
}

static inline uint32_t raw_free(int fd, uint32_t hClient, uint32_t hObject)
{
    raw_nvos00 p = {hClient, 0, hObject, 0xFFFFFFFFu};
    if (ioctl(fd, RAW_REQ(RAW_ESC_RM_FREE, sizeof(p)), &p) != 0)
        return 0x80000000u | (uint32_t)errno;
    return p.status;
}

/*
 * Client (handle chosen by RM) + device 0 with handle hDevice. Returns 0 or
 * the failing status. Like on the real driver, the calling process must hold
 * /dev/nvidia0 open (raw_open_gpu) or the device alloc answers
 * NV_ERR_INSUFFICIENT_PERMISSIONS.
 */
static inline uint32_t raw_client_device(int fd, uint32_t *hClient, uint32_t hDevice)
{
    uint32_t h = 0, st;
    uint32_t root_param = 0;
    *hClient = 0;
    if ((st = raw_alloc(fd, 0, 0, &h, RAW_CLASS_CLIENT, &root_param, sizeof(root_param))) != RAW_NV_OK)
        return st;
    *hClient = h;
    raw_nv0080_alloc dev;
    memset(&dev, 0, sizeof(dev));
    uint32_t hd = hDevice;
    return raw_alloc(fd, h, h, &hd, RAW_CLASS_DEVICE, &dev, sizeof(dev));
}

/* Opens /dev/nvidia0 for this process (kept open by the caller); -1 with errno on failure. */
static inline int raw_open_gpu(void)
{
    return open("/dev/nvidia0", O_RDWR | O_CLOEXEC);
}

static inline uint32_t raw_tsg(int fd, uint32_t hClient, uint32_t hDevice, uint32_t hTsg)
{
    raw_tsg_alloc t;
    memset(&t, 0, sizeof(t));
    t.engineType = RAW_ENGINE_GR0;
    uint32_t h = hTsg;
    return raw_alloc(fd, hClient, hDevice, &h, RAW_CLASS_TSG, &t, sizeof(t));
}

static inline uint32_t raw_timeslice(int fd, uint32_t hClient, uint32_t hTsg, uint32_t cmd, uint64_t *us)
{
    return raw_control(fd, hClient, hTsg, cmd, us, sizeof(*us));
}

#endif
