/*
 * Minimal raw RM ioctl ABI for the conformance tools (driver 580.x, x86-64).
 * Own definitions from docs/driver-sources.md, kept here so the
 * probe builds standalone (`cc -static`) and never depends on the emulator's
 * headers: it is the judge of the emulator, so it must not share its bugs.
 */
#ifndef NVEMU_CONFORMANCE_RMRAW_H
#define NVEMU_CONFORMANCE_RMRAW_H

#include <stddef.h>
#include <stdint.h>

#define RAW_REQ(nr, size) (0xC0000000ul | ((unsigned long)(size) << 16) | (0x46ul << 8) | (unsigned long)(nr))

enum {
    ESC_CARD_INFO = 200, ESC_REGISTER_FD = 201, ESC_STATUS_CODE = 209, ESC_CHECK_VERSION_STR = 210,
    ESC_IOCTL_XFER = 211, ESC_ATTACH_GPUS_TO_FD = 212, ESC_SYS_PARAMS = 214, ESC_NUMA_INFO = 215,
    ESC_WAIT_OPEN_COMPLETE = 218,
    ESC_RM_FREE = 0x29, ESC_RM_CONTROL = 0x2a, ESC_RM_ALLOC = 0x2b, ESC_RM_QUERY_GROUP = 0x60,
};

typedef struct { uint32_t hRoot, hObjectParent, hObjectNew, hClass; uint64_t pAllocParms; uint32_t paramsSize, status; } nvos21_t;
typedef struct {
    uint32_t hRoot, hObjectParent, hObjectNew, hClass;
    uint64_t pAllocParms, pRightsRequested;
    uint32_t paramsSize, flags, status, pad;
} nvos64_t;
typedef struct { uint32_t hClient, hObject, cmd, flags; uint64_t params; uint32_t paramsSize, status; } nvos54_t;
typedef struct { uint32_t hRoot, hObjectParent, hObjectOld, status; } nvos00_t;
typedef struct { uint32_t cmd, size; uint64_t ptr; } nv_xfer_t;
typedef struct { uint32_t cmd, reply; char versionString[64]; } nv_version_t;

_Static_assert(sizeof(nvos21_t) == 32 && offsetof(nvos21_t, status) == 28, "NVOS21");
_Static_assert(sizeof(nvos64_t) == 48 && offsetof(nvos64_t, paramsSize) == 32 && offsetof(nvos64_t, status) == 40, "NVOS64");
_Static_assert(sizeof(nvos54_t) == 32 && offsetof(nvos54_t, params) == 16 && offsetof(nvos54_t, status) == 28, "NVOS54");
_Static_assert(sizeof(nvos00_t) == 16, "NVOS00");
_Static_assert(sizeof(nv_xfer_t) == 16 && sizeof(nv_version_t) == 72, "xfer/version");

/* Classes used by the probes. */
enum {
    CL_ROOT = 0x0, CL_ROOT_NON_PRIV = 0x1, CL_ROOT_CLIENT = 0x41, CL_DEVICE = 0x80, CL_SUBDEVICE = 0x2080,
    CL_VASPACE = 0x90f1, CL_TSG = 0xa06c, CL_CTXSHARE = 0x9067, CL_CHANNEL_HOPPER = 0xc86f,
    CL_COMPUTE_HOPPER = 0xcbc0, CL_USERMODE_HOPPER = 0xc661,
};

/* Control commands used by the probes. */
enum {
    C_NULL = 0x0,
    C0000_GET_ATTACHED_IDS = 0x00000201, C0000_GET_ID_INFO_V2 = 0x00000205,
    C0080_GET_NUM_SUBDEVICES = 0x00800280, C0080_FIFO_GET_CHANNELLIST = 0x0080170d,
    C2080_FIFO_GET_INFO = 0x20801109, C2080_FIFO_DISABLE_CHANNELS = 0x2080110b,
    C2080_FIFO_SET_SCHED_POLICY = 0x20801115, C2080_GPU_GET_NAME_STRING = 0x20800110,
    CA06C_GPFIFO_SCHEDULE = 0xa06c0101, CA06C_SET_TIMESLICE = 0xa06c0103,
    CA06C_GET_TIMESLICE = 0xa06c0104, CA06C_PREEMPT = 0xa06c0105, CA06C_GET_INFO = 0xa06c0106,
    CA06C_SET_INTERLEAVE = 0xa06c0107, CA06C_GET_INTERLEAVE = 0xa06c0108, CA06C_MAKE_REALTIME = 0xa06c0110,
    CA06C_INTERNAL_SET_TIMESLICE = 0xa06c0202,
    CA06F_GPFIFO_SCHEDULE = 0xa06f0103, CA06F_SET_INTERLEAVE = 0xa06f0109, CA06F_GET_INTERLEAVE = 0xa06f0110,
    CA06F_RESTART_RUNLIST = 0xa06f0111, CA06F_STOP_CHANNEL = 0xa06f0112,
    CC36F_GET_WORK_SUBMIT_TOKEN = 0xc36f0108,
};

typedef struct { uint8_t bWait, bManualTimeout, pad[2]; uint32_t timeoutUs; } preempt_params_t;
typedef struct {
    uint8_t bDisable, pad0[3];
    uint32_t numChannels;
    uint8_t bOnlyDisableScheduling, bRewindGpPut, pad1[6];
    uint64_t pRunlistPreemptEvent;
    uint32_t hClientList[64];
    uint32_t hChannelList[64];
} disable_channels_t;
typedef struct { uint32_t index, data; } fifo_info_entry_t;
typedef struct { uint32_t fifoInfoTblSize; fifo_info_entry_t fifoInfoTbl[256]; uint32_t engineType; } fifo_get_info_t;
typedef struct { uint32_t flags, schedPolicy; } sched_policy_t;
typedef struct {
    uint32_t gpuId, gpuFlags, deviceInstance, subDeviceInstance, sliStatus, boardId, gpuInstance;
    int32_t numaId;
} gpu_id_info_v2_t;
typedef struct { uint32_t hObjectError, hObjectEccError, hVASpace, engineType; uint8_t bIsCallingContextVgpuPlugin, pad[3]; } tsg_alloc_t;
typedef struct { uint32_t hVASpace, flags, subctxId; } ctxshare_alloc_t;

_Static_assert(sizeof(preempt_params_t) == 8 && offsetof(preempt_params_t, timeoutUs) == 4, "PREEMPT");
_Static_assert(sizeof(disable_channels_t) == 536 && offsetof(disable_channels_t, pRunlistPreemptEvent) == 16 &&
               offsetof(disable_channels_t, hClientList) == 24 && offsetof(disable_channels_t, hChannelList) == 280,
               "DISABLE_CHANNELS");
_Static_assert(sizeof(fifo_get_info_t) == 2056 && offsetof(fifo_get_info_t, engineType) == 2052, "FIFO_GET_INFO");
_Static_assert(sizeof(gpu_id_info_v2_t) == 32, "GET_ID_INFO_V2");
_Static_assert(sizeof(tsg_alloc_t) == 20 && sizeof(ctxshare_alloc_t) == 12, "TSG/ctxshare params");

#define CHANNEL_PARAMS_SIZE 368u
#define CHANNEL_OFF_HOBJECTERROR 0u
#define CHANNEL_OFF_HVASPACE 28u
#define CHANNEL_OFF_HUSERD0 32u
#define CHANNEL_OFF_USERDOFFSET0 64u

/* One raw ioctl: returns ioctl(2)'s result and stores errno (0 on success). */
int raw_ioctl(int fd, unsigned long req, void *arg, int *err);

/* Result of one RM escape: ioctl(2)'s return, its errno, and the status field read back
 * (0xEEEEEEEE when the driver did not write the struct back). */
struct rm_result { int ret, err; uint32_t status; };
/* RM_ALLOC through NVOS64 (48 bytes, what libcuda uses); hNew is in/out. */
struct rm_result rm_alloc(int fd, uint32_t hClient, uint32_t hParent, uint32_t *hNew, uint32_t hClass, void *params);
struct rm_result rm_control(int fd, uint32_t hClient, uint32_t hObject, uint32_t cmd, void *params, uint32_t size);
struct rm_result rm_free(int fd, uint32_t hClient, uint32_t hObject);

/* Allocates a root client (hRoot = 0: auto handle) and returns its handle, 0 on failure. */
uint32_t rm_client(int fd);

/* Hex helpers. */
size_t hex_decode(const char *hex, uint8_t *out, size_t cap);
double now_us(void);

#endif
