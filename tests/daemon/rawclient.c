/*
 * A program that knows nothing about nvemu: only <sys/ioctl.h>, libc and RM
 * structs defined right here (from the driver's published layouts). It does
 * what a user tool does on a real driver: client, device, subdevice, a
 * channel group, GET/SET_TIMESLICE, REGISTER_FD, UVM_INITIALIZE and a few other
 * UVM requests, an object exported into an nvidiactl fd and imported by a second
 * client (NV0000 OS_UNIX controls, which name the fd inside their params), free.
 * Exit 0 only when every answer is what the 580 driver gives.
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

struct nvos21 { uint32_t hRoot, hObjectParent, hObjectNew, hClass; uint64_t pAllocParms; uint32_t paramsSize, status; };
struct nvos54 { uint32_t hClient, hObject, cmd, flags; uint64_t params; uint32_t paramsSize, status; };
struct nvos00 { uint32_t hRoot, hObjectParent, hObjectOld, status; };
struct nv0080_alloc { uint32_t deviceId, hClientShare, hTargetClient, hTargetDevice, flags, pad;
                      uint64_t vaSpaceSize, vaStartInternal, vaLimitInternal; uint32_t vaMode, pad2; };
struct tsg_alloc { uint32_t hObjectError, hObjectEccError, hVASpace, engineType; uint8_t bVgpu; };
struct uvm_init { uint64_t flags; uint32_t rmStatus; };
/* ctrl0000unix.h: EXPORT_OBJECTS_TO_FD (0x3d0b), GET_EXPORT_OBJECT_INFO (0x3d08), IMPORT_OBJECT_FROM_FD (0x3d06) */
struct export_objects { int32_t fd; uint32_t hDevice; uint16_t maxObjects; uint8_t metadata[64]; uint32_t objects[512];
                        uint16_t numObjects, index; };
struct export_info { int32_t fd; uint32_t deviceInstance, gpuInstanceId; uint16_t maxObjects; uint8_t metadata[64]; };
struct import_object { int32_t fd; uint32_t type, hDevice, hParent, hObject; };
_Static_assert(sizeof(struct export_objects) == 2128 && sizeof(struct export_info) == 80 &&
               sizeof(struct import_object) == 20, "os_unix");
struct uvm_pageable { uint8_t access; uint8_t pad[3]; uint32_t rmStatus; };
_Static_assert(sizeof(struct nvos21) == 32 && sizeof(struct nvos54) == 32 && sizeof(struct nvos00) == 16, "rm");
_Static_assert(sizeof(struct nv0080_alloc) == 56 && sizeof(struct tsg_alloc) == 20, "alloc params");
_Static_assert(sizeof(struct uvm_init) == 16 && sizeof(struct uvm_pageable) == 8, "uvm");

#define REQ(nr, size) (0xC0000000u | ((unsigned)(size) << 16) | 0x4600u | (nr))
#define H_DEVICE 0xD0000001u
#define H_SUBDEV 0xD0000002u
#define H_TSG 0xD0000003u

static int failures;

#define CHECK(cond, ...)                                         \
    do {                                                         \
        if (!(cond)) {                                           \
            fprintf(stderr, "rawclient: FAIL line %d: ", __LINE__); \
            fprintf(stderr, __VA_ARGS__);                        \
            fprintf(stderr, "\n");                               \
            failures++;                                          \
        }                                                        \
    } while (0)

static uint32_t alloc(int fd, uint32_t root, uint32_t parent, uint32_t *h, uint32_t cls, void *p, uint32_t n)
{
    struct nvos21 a = {root, parent, *h, cls, (uint64_t)(uintptr_t)p, n, 0xFFFFFFFFu};
    int rc = ioctl(fd, REQ(0x2B, sizeof(a)), &a);
    CHECK(rc == 0, "RM_ALLOC class 0x%x: ioctl %d errno %d", cls, rc, errno);
    *h = a.hObjectNew;
    return a.status;
}

static uint32_t control(int fd, uint32_t client, uint32_t obj, uint32_t cmd, void *p, uint32_t n)
{
    struct nvos54 c = {client, obj, cmd, 0, (uint64_t)(uintptr_t)p, n, 0xFFFFFFFFu};
    int rc = ioctl(fd, REQ(0x2A, sizeof(c)), &c);
    CHECK(rc == 0, "RM_CONTROL 0x%x: ioctl %d errno %d", cmd, rc, errno);
    return c.status;
}

int main(void)
{
    int ctl = open("/dev/nvidiactl", O_RDWR | O_CLOEXEC);
    int gpu = open("/dev/nvidia0", O_RDWR | O_CLOEXEC);
    int uvm = open("/dev/nvidia-uvm", O_RDWR | O_CLOEXEC);
    if (ctl < 0 || gpu < 0 || uvm < 0) {
        fprintf(stderr, "rawclient: cannot open the nodes: %s\n", strerror(errno));
        return 1;
    }

    uint32_t client = 0, root_param = 0;
    CHECK(alloc(ctl, 0, 0, &client, 0x41, &root_param, 4) == 0, "client alloc");
    CHECK(client != 0 && root_param == client, "client handle %#x, params %#x", client, root_param);

    int ctl_fd = ctl;
    CHECK(ioctl(gpu, REQ(201, sizeof(ctl_fd)), &ctl_fd) == 0, "REGISTER_FD: errno %d", errno);
    int self_fd = gpu;
    CHECK(ioctl(gpu, REQ(201, sizeof(self_fd)), &self_fd) != 0 && errno == EINVAL, "second REGISTER_FD accepted");
    int gpu2 = open("/dev/nvidia0", O_RDWR | O_CLOEXEC), null_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
    CHECK(ioctl(gpu2, REQ(201, sizeof(null_fd)), &null_fd) != 0 && errno == EINVAL, "REGISTER_FD of /dev/null");
    CHECK(ioctl(gpu2, REQ(201, sizeof(ctl_fd)), &ctl_fd) == 0, "REGISTER_FD after a refused one: errno %d", errno);
    close(null_fd);
    close(gpu2);

    struct nv0080_alloc dev;
    memset(&dev, 0, sizeof(dev));
    uint32_t h = H_DEVICE;
    CHECK(alloc(ctl, client, client, &h, 0x80, &dev, sizeof(dev)) == 0, "device alloc");
    uint32_t sub_param = 0;
    h = H_SUBDEV;
    CHECK(alloc(ctl, client, H_DEVICE, &h, 0x2080, &sub_param, 4) == 0, "subdevice alloc");
    struct tsg_alloc tsg;
    memset(&tsg, 0, sizeof(tsg));
    tsg.engineType = 1;
    h = H_TSG;
    CHECK(alloc(ctl, client, H_DEVICE, &h, 0xA06C, &tsg, sizeof(tsg)) == 0, "channel group alloc");

    uint64_t ts = 0;
    CHECK(control(ctl, client, H_TSG, 0xA06C0104, &ts, 8) == 0 && ts > 0, "GET_TIMESLICE default %llu",
          (unsigned long long)ts);
    printf("rawclient: default timeslice %llu us\n", (unsigned long long)ts);
    ts = 2500;
    CHECK(control(ctl, client, H_TSG, 0xA06C0103, &ts, 8) == 0, "SET_TIMESLICE");
    ts = 0;
    CHECK(control(ctl, client, H_TSG, 0xA06C0104, &ts, 8) == 0 && ts == 2500, "GET_TIMESLICE after set: %llu",
          (unsigned long long)ts);
    CHECK(control(ctl, 0xC1D0FFFFu, H_TSG, 0xA06C0104, &ts, 8) == 0x23, "unknown client not INVALID_CLIENT");
    CHECK(control(ctl, client, H_TSG, 0xA06C0104, &ts, 4) == 0x1F, "short params not INVALID_ARGUMENT");

    struct uvm_init ui = {0, 0xFFFFFFFFu};
    CHECK(ioctl(uvm, 0x30000001, &ui) == 0 && ui.rmStatus == 0, "UVM_INITIALIZE status %#x", ui.rmStatus);
    struct uvm_pageable up = {1, {0}, 0xFFFFFFFFu};
    CHECK(ioctl(uvm, 39, &up) == 0 && up.rmStatus == 0 && up.access == 0, "UVM_PAGEABLE_MEM_ACCESS status %#x",
          up.rmStatus);
    /* UVM_REGISTER_GPU_VASPACE (25): uuid[16], rmCtrlFd, hClient, hVaSpace, rmStatus @28; 32 bytes. */
    uint8_t vas[32];
    memset(vas, 0xEE, sizeof(vas));
    uint32_t vst;
    CHECK(ioctl(uvm, 25, vas) == 0, "UVM_REGISTER_GPU_VASPACE: errno %d", errno);
    memcpy(&vst, vas + 28, 4);
    /* hClient 0xEEEEEEEE is no client: the RM side of the registration answers NV_ERR_INVALID_CLIENT */
    CHECK(vst == 0x23 && vas[27] == 0xEE, "UVM_REGISTER_GPU_VASPACE status %#x", vst);
    errno = 0;
    CHECK(ioctl(uvm, 1, vas) == -1 && errno == EINVAL, "UVM_RESERVE_VA (not routed): errno %d", errno);

    /* the channel group exported into a fresh nvidiactl file; a second client imports it from that fd */
    int xfd = open("/dev/nvidiactl", O_RDWR | O_CLOEXEC), nfd = open("/dev/null", O_RDWR | O_CLOEXEC);
    static struct export_objects ex;
    ex.fd = xfd;
    ex.hDevice = H_DEVICE;
    ex.maxObjects = 1;
    ex.objects[0] = H_TSG;
    ex.numObjects = 1;
    CHECK(control(ctl, client, client, 0x3d0b, &ex, sizeof(ex)) == 0, "EXPORT_OBJECTS_TO_FD");
    struct export_info xi = {.fd = xfd};
    CHECK(control(ctl, client, client, 0x3d08, &xi, sizeof(xi)) == 0 && xi.maxObjects == 1 && xi.deviceInstance == 0,
          "GET_EXPORT_OBJECT_INFO: max %u device %u", xi.maxObjects, xi.deviceInstance);
    xi.fd = nfd;
    CHECK(control(ctl, client, client, 0x3d08, &xi, sizeof(xi)) == 0x3B, "GET_EXPORT_OBJECT_INFO of /dev/null");
    uint32_t client2 = 0, dev2 = H_DEVICE;
    CHECK(alloc(ctl, 0, 0, &client2, 0x41, &root_param, 4) == 0, "second client alloc");
    CHECK(alloc(ctl, client2, client2, &dev2, 0x80, &dev, sizeof(dev)) == 0, "second client's device");
    struct import_object im = {xfd, 1, 0, H_DEVICE, 0xD0000010u};
    CHECK(control(ctl, client2, client2, 0x3d06, &im, sizeof(im)) == 0, "IMPORT_OBJECT_FROM_FD");
    ts = 0;
    CHECK(control(ctl, client2, 0xD0000010u, 0xA06C0104, &ts, 8) == 0 && ts == 2500,
          "imported channel group's timeslice %llu", (unsigned long long)ts);
    close(nfd);
    close(xfd);

    struct nvos00 fr = {client, 0, client, 0xFFFFFFFFu};
    CHECK(ioctl(ctl, REQ(0x29, sizeof(fr)), &fr) == 0 && fr.status == 0, "free client: %#x", fr.status);
    CHECK(control(ctl, client, H_TSG, 0xA06C0104, &ts, 8) == 0x23, "freed client still answers");

    close(uvm);
    close(gpu);
    close(ctl);
    if (failures) {
        fprintf(stderr, "rawclient: %d check(s) failed\n", failures);
        return 1;
    }
    printf("rawclient: OK\n");
    return 0;
}
