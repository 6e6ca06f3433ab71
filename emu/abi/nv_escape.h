/*
 * Escape numbers and the parameter blocks of the nvidia.ko ioctl interface
 * (driver 580.x, x86-64 LP64). Own definitions (docs/driver-sources.md §A, B,
 * C, J); every size and offset is asserted at compile time.
 */
#ifndef NVEMU_ABI_NV_ESCAPE_H
#define NVEMU_ABI_NV_ESCAPE_H

#include <stddef.h>
#include <stdint.h>

#include "abi/nv_abi_assert.h"
#include "abi/nv_status.h"

typedef uint32_t NvHandle;
typedef uint64_t NvP64 __attribute__((aligned(8)));   /* user pointer carrier */
typedef uint64_t NvU64A __attribute__((aligned(8)));  /* NV_DECLARE_ALIGNED(NvU64, 8) */

#define NV_IOCTL_MAGIC 'F'
/* What user space builds: _IOWR('F', nr, size). The driver only looks at nr and size. */
#define NV_IOCTL_REQUEST(nr, size) (0xC0000000u | ((uint32_t)(size) << 16) | (0x46u << 8) | (uint32_t)(nr))
#define NV_IOCTL_NR(req)   ((uint32_t)(req) & 0xFFu)
#define NV_IOCTL_SIZE(req) (((uint32_t)(req) >> 16) & 0x3FFFu)

#define NV_ABSOLUTE_MAX_IOCTL_SIZE 16384u   /* XFER inner size cap */
#define RMAPI_PARAM_COPY_MAX_PARAMS_SIZE (1u << 20)

/* ---- OS-layer escapes (NV_IOCTL_BASE = 200) ---- */
#define NV_ESC_CARD_INFO              200u
#define NV_ESC_REGISTER_FD            201u
#define NV_ESC_ALLOC_OS_EVENT         206u
#define NV_ESC_FREE_OS_EVENT          207u
#define NV_ESC_STATUS_CODE            209u
#define NV_ESC_CHECK_VERSION_STR      210u
#define NV_ESC_IOCTL_XFER_CMD         211u
#define NV_ESC_ATTACH_GPUS_TO_FD      212u
#define NV_ESC_QUERY_DEVICE_INTR      213u
#define NV_ESC_SYS_PARAMS             214u
#define NV_ESC_NUMA_INFO              215u
#define NV_ESC_SET_NUMA_STATUS        216u
#define NV_ESC_EXPORT_TO_DMABUF_FD    217u
#define NV_ESC_WAIT_OPEN_COMPLETE     218u

/* ---- RM escapes (raw numbers) ---- */
#define NV_ESC_RM_ALLOC_MEMORY                 0x27u
#define NV_ESC_RM_ALLOC_OBJECT                 0x28u
#define NV_ESC_RM_FREE                         0x29u
#define NV_ESC_RM_CONTROL                      0x2Au
#define NV_ESC_RM_ALLOC                        0x2Bu
#define NV_ESC_RM_CONFIG_GET                   0x32u
#define NV_ESC_RM_CONFIG_SET                   0x33u
#define NV_ESC_RM_DUP_OBJECT                   0x34u
#define NV_ESC_RM_SHARE                        0x35u
#define NV_ESC_RM_CONFIG_GET_EX                0x37u
#define NV_ESC_RM_CONFIG_SET_EX                0x38u
#define NV_ESC_RM_I2C_ACCESS                   0x39u
#define NV_ESC_RM_IDLE_CHANNELS                0x41u
#define NV_ESC_RM_VID_HEAP_CONTROL             0x4Au
#define NV_ESC_RM_ACCESS_REGISTRY              0x4Du
#define NV_ESC_RM_MAP_MEMORY                   0x4Eu
#define NV_ESC_RM_UNMAP_MEMORY                 0x4Fu
#define NV_ESC_RM_GET_EVENT_DATA               0x52u
#define NV_ESC_RM_ALLOC_CONTEXT_DMA2           0x54u
#define NV_ESC_RM_ADD_VBLANK_CALLBACK          0x56u
#define NV_ESC_RM_MAP_MEMORY_DMA               0x57u
#define NV_ESC_RM_UNMAP_MEMORY_DMA             0x58u
#define NV_ESC_RM_BIND_CONTEXT_DMA             0x59u
#define NV_ESC_RM_EXPORT_OBJECT_TO_FD          0x5Cu
#define NV_ESC_RM_IMPORT_OBJECT_FROM_FD        0x5Du
#define NV_ESC_RM_UPDATE_DEVICE_MAPPING_INFO   0x5Eu
#define NV_ESC_RM_LOCKLESS_DIAGNOSTIC          0x5Fu
/* GPreempt's patched driver only (stock driver: -EINVAL). */
#define NV_ESC_RM_QUERY_GROUP                  0x60u

/* nvemu-private escapes (the workload escapes, abi/nv_workload.h); never issued to a real driver. */
#define NVEMU_ESC_PRIVATE_FIRST                0xF0u
#define NVEMU_ESC_PRIVATE_LAST                 0xFFu

#define NV_CTL_DEVICE_MINOR 255u


/* ================= OS-layer structs ================= */

typedef struct nv_ioctl_xfer {
    uint32_t cmd;
    uint32_t size;
    NvP64 ptr;
} nv_ioctl_xfer_t;
NV_ASSERT_LAYOUT(nv_ioctl_xfer_t, 16, 8);
NV_ASSERT_OFF(nv_ioctl_xfer_t, cmd, 0);
NV_ASSERT_OFF(nv_ioctl_xfer_t, size, 4);
NV_ASSERT_OFF(nv_ioctl_xfer_t, ptr, 8);

typedef struct nv_pci_info {
    uint32_t domain;
    uint8_t bus;
    uint8_t slot;
    uint8_t function;
    uint16_t vendor_id;
    uint16_t device_id;
} nv_pci_info_t;
NV_ASSERT_LAYOUT(nv_pci_info_t, 12, 4);
NV_ASSERT_OFF(nv_pci_info_t, domain, 0);
NV_ASSERT_OFF(nv_pci_info_t, bus, 4);
NV_ASSERT_OFF(nv_pci_info_t, slot, 5);
NV_ASSERT_OFF(nv_pci_info_t, function, 6);
NV_ASSERT_OFF(nv_pci_info_t, vendor_id, 8);
NV_ASSERT_OFF(nv_pci_info_t, device_id, 10);

typedef struct nv_ioctl_card_info {
    uint8_t valid;
    nv_pci_info_t pci_info;
    uint32_t gpu_id;
    uint16_t interrupt_line;
    NvU64A reg_address;
    NvU64A reg_size;
    NvU64A fb_address;
    NvU64A fb_size;
    uint32_t minor_number;
    uint8_t dev_name[10];
} nv_ioctl_card_info_t;
NV_ASSERT_LAYOUT(nv_ioctl_card_info_t, 72, 8);
NV_ASSERT_OFF(nv_ioctl_card_info_t, valid, 0);
NV_ASSERT_OFF(nv_ioctl_card_info_t, pci_info, 4);
NV_ASSERT_OFF(nv_ioctl_card_info_t, gpu_id, 16);
NV_ASSERT_OFF(nv_ioctl_card_info_t, interrupt_line, 20);
NV_ASSERT_OFF(nv_ioctl_card_info_t, reg_address, 24);
NV_ASSERT_OFF(nv_ioctl_card_info_t, reg_size, 32);
NV_ASSERT_OFF(nv_ioctl_card_info_t, fb_address, 40);
NV_ASSERT_OFF(nv_ioctl_card_info_t, fb_size, 48);
NV_ASSERT_OFF(nv_ioctl_card_info_t, minor_number, 56);
NV_ASSERT_OFF(nv_ioctl_card_info_t, dev_name, 60);

/* ALLOC_OS_EVENT and FREE_OS_EVENT share one layout. */
typedef struct nv_ioctl_os_event {
    NvHandle hClient;
    NvHandle hDevice;
    uint32_t fd;
    uint32_t Status;
} nv_ioctl_alloc_os_event_t, nv_ioctl_free_os_event_t;
NV_ASSERT_LAYOUT(nv_ioctl_alloc_os_event_t, 16, 4);
NV_ASSERT_OFF(nv_ioctl_alloc_os_event_t, hClient, 0);
NV_ASSERT_OFF(nv_ioctl_alloc_os_event_t, hDevice, 4);
NV_ASSERT_OFF(nv_ioctl_alloc_os_event_t, fd, 8);
NV_ASSERT_OFF(nv_ioctl_alloc_os_event_t, Status, 12);

typedef struct nv_ioctl_status_code {
    uint32_t domain;
    uint8_t bus;
    uint8_t slot;
    uint32_t status;
} nv_ioctl_status_code_t;
NV_ASSERT_LAYOUT(nv_ioctl_status_code_t, 12, 4);
NV_ASSERT_OFF(nv_ioctl_status_code_t, domain, 0);
NV_ASSERT_OFF(nv_ioctl_status_code_t, bus, 4);
NV_ASSERT_OFF(nv_ioctl_status_code_t, slot, 5);
NV_ASSERT_OFF(nv_ioctl_status_code_t, status, 8);

#define NV_RM_API_VERSION_CMD_STRICT  0u
#define NV_RM_API_VERSION_CMD_RELAXED '1'
#define NV_RM_API_VERSION_CMD_QUERY   '2'
#define NV_RM_API_VERSION_REPLY_UNRECOGNIZED 0u
#define NV_RM_API_VERSION_REPLY_RECOGNIZED   1u
#define NV_RM_API_VERSION_STRING_LENGTH 64u
typedef struct nv_ioctl_rm_api_version {
    uint32_t cmd;
    uint32_t reply;
    char versionString[NV_RM_API_VERSION_STRING_LENGTH];
} nv_ioctl_rm_api_version_t;
NV_ASSERT_LAYOUT(nv_ioctl_rm_api_version_t, 72, 4);
NV_ASSERT_OFF(nv_ioctl_rm_api_version_t, cmd, 0);
NV_ASSERT_OFF(nv_ioctl_rm_api_version_t, reply, 4);
NV_ASSERT_OFF(nv_ioctl_rm_api_version_t, versionString, 8);

typedef struct nv_ioctl_sys_params {
    NvU64A memblock_size;
} nv_ioctl_sys_params_t;
NV_ASSERT_LAYOUT(nv_ioctl_sys_params_t, 8, 8);
NV_ASSERT_OFF(nv_ioctl_sys_params_t, memblock_size, 0);

typedef struct nv_ioctl_register_fd {
    int32_t ctl_fd;
} nv_ioctl_register_fd_t;
NV_ASSERT_LAYOUT(nv_ioctl_register_fd_t, 4, 4);
NV_ASSERT_OFF(nv_ioctl_register_fd_t, ctl_fd, 0);

#define NV_IOCTL_NUMA_INFO_MAX_OFFLINE_ADDRESSES 64
typedef struct nv_offline_addresses {
    NvU64A addresses[NV_IOCTL_NUMA_INFO_MAX_OFFLINE_ADDRESSES];
    uint32_t numEntries;
} nv_offline_addresses_t;
NV_ASSERT_LAYOUT(nv_offline_addresses_t, 520, 8);
NV_ASSERT_OFF(nv_offline_addresses_t, addresses, 0);
NV_ASSERT_OFF(nv_offline_addresses_t, numEntries, 512);

typedef struct nv_ioctl_numa_info {
    int32_t nid;
    int32_t status;
    NvU64A memblock_size;
    NvU64A numa_mem_addr;
    NvU64A numa_mem_size;
    uint8_t use_auto_online;
    nv_offline_addresses_t offline_addresses;
} nv_ioctl_numa_info_t;
NV_ASSERT_LAYOUT(nv_ioctl_numa_info_t, 560, 8);
NV_ASSERT_OFF(nv_ioctl_numa_info_t, nid, 0);
NV_ASSERT_OFF(nv_ioctl_numa_info_t, status, 4);
NV_ASSERT_OFF(nv_ioctl_numa_info_t, memblock_size, 8);
NV_ASSERT_OFF(nv_ioctl_numa_info_t, numa_mem_addr, 16);
NV_ASSERT_OFF(nv_ioctl_numa_info_t, numa_mem_size, 24);
NV_ASSERT_OFF(nv_ioctl_numa_info_t, use_auto_online, 32);
NV_ASSERT_OFF(nv_ioctl_numa_info_t, offline_addresses, 40);

typedef struct nv_ioctl_wait_open_complete {
    int32_t rc;
    uint32_t adapterStatus;
} nv_ioctl_wait_open_complete_t;
NV_ASSERT_LAYOUT(nv_ioctl_wait_open_complete_t, 8, 4);
NV_ASSERT_OFF(nv_ioctl_wait_open_complete_t, rc, 0);
NV_ASSERT_OFF(nv_ioctl_wait_open_complete_t, adapterStatus, 4);

typedef struct nv_ioctl_query_device_intr {
    uint32_t intrStatus;
    uint32_t status;
} nv_ioctl_query_device_intr_t;
NV_ASSERT_LAYOUT(nv_ioctl_query_device_intr_t, 8, 4);

typedef struct nv_ioctl_set_numa_status {
    int32_t status;
} nv_ioctl_set_numa_status_t;
NV_ASSERT_LAYOUT(nv_ioctl_set_numa_status_t, 4, 4);

#define NV_IOCTL_EXPORT_TO_DMABUF_FD_SIZE 2608u
/* nv_ioctl_export_to_dma_buf_fd_t: fd, handles and page arrays (not decoded here), status its last word. */
typedef struct nv_ioctl_export_to_dma_buf_fd {
    uint64_t opaque[325];
    NV_STATUS status;
    uint32_t pad;
} nv_ioctl_export_to_dma_buf_fd_t;
NV_ASSERT_LAYOUT(nv_ioctl_export_to_dma_buf_fd_t, NV_IOCTL_EXPORT_TO_DMABUF_FD_SIZE, 8);
NV_ASSERT_OFF(nv_ioctl_export_to_dma_buf_fd_t, status, 2600);

/* ================= RM structs ================= */

typedef struct NVOS00_PARAMETERS {
    NvHandle hRoot;
    NvHandle hObjectParent;
    NvHandle hObjectOld;
    NV_STATUS status;
} NVOS00_PARAMETERS;
NV_ASSERT_LAYOUT(NVOS00_PARAMETERS, 16, 4);
NV_ASSERT_OFF(NVOS00_PARAMETERS, hRoot, 0);
NV_ASSERT_OFF(NVOS00_PARAMETERS, hObjectParent, 4);
NV_ASSERT_OFF(NVOS00_PARAMETERS, hObjectOld, 8);
NV_ASSERT_OFF(NVOS00_PARAMETERS, status, 12);

typedef struct NVOS02_PARAMETERS {
    NvHandle hRoot;
    NvHandle hObjectParent;
    NvHandle hObjectNew;
    uint32_t hClass;
    uint32_t flags;
    NvP64 pMemory;
    NvU64A limit;
    NV_STATUS status;
} NVOS02_PARAMETERS;
NV_ASSERT_LAYOUT(NVOS02_PARAMETERS, 48, 8);
NV_ASSERT_OFF(NVOS02_PARAMETERS, hRoot, 0);
NV_ASSERT_OFF(NVOS02_PARAMETERS, hObjectParent, 4);
NV_ASSERT_OFF(NVOS02_PARAMETERS, hObjectNew, 8);
NV_ASSERT_OFF(NVOS02_PARAMETERS, hClass, 12);
NV_ASSERT_OFF(NVOS02_PARAMETERS, flags, 16);
NV_ASSERT_OFF(NVOS02_PARAMETERS, pMemory, 24);
NV_ASSERT_OFF(NVOS02_PARAMETERS, limit, 32);
NV_ASSERT_OFF(NVOS02_PARAMETERS, status, 40);

typedef struct nv_ioctl_nvos02_parameters_with_fd {
    NVOS02_PARAMETERS params;
    int32_t fd;
} nv_ioctl_nvos02_parameters_with_fd;
NV_ASSERT_LAYOUT(nv_ioctl_nvos02_parameters_with_fd, 56, 8);
NV_ASSERT_OFF(nv_ioctl_nvos02_parameters_with_fd, params, 0);
NV_ASSERT_OFF(nv_ioctl_nvos02_parameters_with_fd, fd, 48);

typedef struct NVOS05_PARAMETERS {
    NvHandle hRoot;
    NvHandle hObjectParent;
    NvHandle hObjectNew;
    uint32_t hClass;
    NV_STATUS status;
} NVOS05_PARAMETERS;
NV_ASSERT_LAYOUT(NVOS05_PARAMETERS, 20, 4);
NV_ASSERT_OFF(NVOS05_PARAMETERS, hRoot, 0);
NV_ASSERT_OFF(NVOS05_PARAMETERS, hObjectParent, 4);
NV_ASSERT_OFF(NVOS05_PARAMETERS, hObjectNew, 8);
NV_ASSERT_OFF(NVOS05_PARAMETERS, hClass, 12);
NV_ASSERT_OFF(NVOS05_PARAMETERS, status, 16);

typedef struct NVOS21_PARAMETERS {
    NvHandle hRoot;
    NvHandle hObjectParent;
    NvHandle hObjectNew;
    uint32_t hClass;
    NvP64 pAllocParms;
    uint32_t paramsSize;
    NV_STATUS status;
} NVOS21_PARAMETERS;
NV_ASSERT_LAYOUT(NVOS21_PARAMETERS, 32, 8);
NV_ASSERT_OFF(NVOS21_PARAMETERS, hRoot, 0);
NV_ASSERT_OFF(NVOS21_PARAMETERS, hObjectParent, 4);
NV_ASSERT_OFF(NVOS21_PARAMETERS, hObjectNew, 8);
NV_ASSERT_OFF(NVOS21_PARAMETERS, hClass, 12);
NV_ASSERT_OFF(NVOS21_PARAMETERS, pAllocParms, 16);
NV_ASSERT_OFF(NVOS21_PARAMETERS, paramsSize, 24);
NV_ASSERT_OFF(NVOS21_PARAMETERS, status, 28);

#define NVOS64_FLAGS_FINN_SERIALIZED 0x1u
typedef struct NVOS64_PARAMETERS {
    NvHandle hRoot;
    NvHandle hObjectParent;
    NvHandle hObjectNew;
    uint32_t hClass;
    NvP64 pAllocParms;
    NvP64 pRightsRequested;
    uint32_t paramsSize;
    uint32_t flags;
    NV_STATUS status;
} NVOS64_PARAMETERS;
NV_ASSERT_LAYOUT(NVOS64_PARAMETERS, 48, 8);
NV_ASSERT_OFF(NVOS64_PARAMETERS, hRoot, 0);
NV_ASSERT_OFF(NVOS64_PARAMETERS, hObjectParent, 4);
NV_ASSERT_OFF(NVOS64_PARAMETERS, hObjectNew, 8);
NV_ASSERT_OFF(NVOS64_PARAMETERS, hClass, 12);
NV_ASSERT_OFF(NVOS64_PARAMETERS, pAllocParms, 16);
NV_ASSERT_OFF(NVOS64_PARAMETERS, pRightsRequested, 24);
NV_ASSERT_OFF(NVOS64_PARAMETERS, paramsSize, 32);
NV_ASSERT_OFF(NVOS64_PARAMETERS, flags, 36);
NV_ASSERT_OFF(NVOS64_PARAMETERS, status, 40);

#define NVOS54_FLAGS_IRQL_RAISED     0x1u
#define NVOS54_FLAGS_LOCK_BYPASS     0x2u
#define NVOS54_FLAGS_FINN_SERIALIZED 0x4u
typedef struct NVOS54_PARAMETERS {
    NvHandle hClient;
    NvHandle hObject;
    uint32_t cmd;
    uint32_t flags;
    NvP64 params;
    uint32_t paramsSize;
    NV_STATUS status;
} NVOS54_PARAMETERS;
NV_ASSERT_LAYOUT(NVOS54_PARAMETERS, 32, 8);
NV_ASSERT_OFF(NVOS54_PARAMETERS, hClient, 0);
NV_ASSERT_OFF(NVOS54_PARAMETERS, hObject, 4);
NV_ASSERT_OFF(NVOS54_PARAMETERS, cmd, 8);
NV_ASSERT_OFF(NVOS54_PARAMETERS, flags, 12);
NV_ASSERT_OFF(NVOS54_PARAMETERS, params, 16);
NV_ASSERT_OFF(NVOS54_PARAMETERS, paramsSize, 24);
NV_ASSERT_OFF(NVOS54_PARAMETERS, status, 28);

#define NV04_DUP_HANDLE_FLAGS_REJECT_KERNEL_DUP_PRIVILEGE 0x1u
typedef struct NVOS55_PARAMETERS {
    NvHandle hClient;
    NvHandle hParent;
    NvHandle hObject;
    NvHandle hClientSrc;
    NvHandle hObjectSrc;
    uint32_t flags;
    NV_STATUS status;
} NVOS55_PARAMETERS;
NV_ASSERT_LAYOUT(NVOS55_PARAMETERS, 28, 4);
NV_ASSERT_OFF(NVOS55_PARAMETERS, hClient, 0);
NV_ASSERT_OFF(NVOS55_PARAMETERS, hParent, 4);
NV_ASSERT_OFF(NVOS55_PARAMETERS, hObject, 8);
NV_ASSERT_OFF(NVOS55_PARAMETERS, hClientSrc, 12);
NV_ASSERT_OFF(NVOS55_PARAMETERS, hObjectSrc, 16);
NV_ASSERT_OFF(NVOS55_PARAMETERS, flags, 20);
NV_ASSERT_OFF(NVOS55_PARAMETERS, status, 24);

typedef struct RS_SHARE_POLICY {
    uint32_t target;
    uint32_t accessMask;
    uint16_t type;
    uint8_t action;
} RS_SHARE_POLICY;
NV_ASSERT_LAYOUT(RS_SHARE_POLICY, 12, 4);
NV_ASSERT_OFF(RS_SHARE_POLICY, target, 0);
NV_ASSERT_OFF(RS_SHARE_POLICY, accessMask, 4);
NV_ASSERT_OFF(RS_SHARE_POLICY, type, 8);
NV_ASSERT_OFF(RS_SHARE_POLICY, action, 10);

typedef struct NVOS57_PARAMETERS {
    NvHandle hClient;
    NvHandle hObject;
    RS_SHARE_POLICY sharePolicy;
    NV_STATUS status;
} NVOS57_PARAMETERS;
NV_ASSERT_LAYOUT(NVOS57_PARAMETERS, 24, 4);
NV_ASSERT_OFF(NVOS57_PARAMETERS, hClient, 0);
NV_ASSERT_OFF(NVOS57_PARAMETERS, hObject, 4);
NV_ASSERT_OFF(NVOS57_PARAMETERS, sharePolicy, 8);
NV_ASSERT_OFF(NVOS57_PARAMETERS, status, 20);

typedef struct NVOS30_PARAMETERS {
    NvHandle hClient;
    NvHandle hDevice;
    NvHandle hChannel;
    uint32_t numChannels;
    NvP64 phClients;
    NvP64 phDevices;
    NvP64 phChannels;
    uint32_t flags;
    uint32_t timeout;
    NV_STATUS status;
} NVOS30_PARAMETERS;
NV_ASSERT_LAYOUT(NVOS30_PARAMETERS, 56, 8);
NV_ASSERT_OFF(NVOS30_PARAMETERS, hClient, 0);
NV_ASSERT_OFF(NVOS30_PARAMETERS, hDevice, 4);
NV_ASSERT_OFF(NVOS30_PARAMETERS, hChannel, 8);
NV_ASSERT_OFF(NVOS30_PARAMETERS, numChannels, 12);
NV_ASSERT_OFF(NVOS30_PARAMETERS, phClients, 16);
NV_ASSERT_OFF(NVOS30_PARAMETERS, phDevices, 24);
NV_ASSERT_OFF(NVOS30_PARAMETERS, phChannels, 32);
NV_ASSERT_OFF(NVOS30_PARAMETERS, flags, 40);
NV_ASSERT_OFF(NVOS30_PARAMETERS, timeout, 44);
NV_ASSERT_OFF(NVOS30_PARAMETERS, status, 48);

/* VID_HEAP_CONTROL: only the common 40-byte header is interpreted (status); the union is opaque. */
#define NVOS32_PARAMETERS_SIZE 184u
#define NVOS32_HEADER_SIZE 40u
typedef struct NVOS32_HEADER {
    NvHandle hRoot;
    NvHandle hObjectParent;
    uint32_t function;
    NvHandle hVASpace;
    int16_t ivcHeapNumber;
    NV_STATUS status;
    NvU64A total;
    NvU64A free;
} NVOS32_HEADER;
NV_ASSERT_LAYOUT(NVOS32_HEADER, NVOS32_HEADER_SIZE, 8);
NV_ASSERT_OFF(NVOS32_HEADER, status, 20);
typedef struct NVOS32_PARAMETERS {
    NVOS32_HEADER hdr;
    uint8_t data[NVOS32_PARAMETERS_SIZE - NVOS32_HEADER_SIZE];
} NVOS32_PARAMETERS;
NV_ASSERT_LAYOUT(NVOS32_PARAMETERS, 184, 8);

/*
 * NVOS33 flags the driver rewrites on return: CACHING_TYPE (bits 25:23) is the
 * caching actually used, MAPPING (bits 16:15) the mapping kind. Values as
 * recorded on the H200 (trace lines of RM_MAP_MEMORY).
 */
#define NVOS33_FLAGS_CACHING_TYPE_MASK          0x03800000u
#define NVOS33_FLAGS_CACHING_TYPE_UNCACHED      (1u << 23)
#define NVOS33_FLAGS_CACHING_TYPE_WRITECOMBINED (2u << 23)
#define NVOS33_FLAGS_CACHING_TYPE_DEFAULT       (6u << 23)
#define NVOS33_FLAGS_MAPPING_MASK               0x00018000u
#define NVOS33_FLAGS_MAPPING_SYSMEM             (1u << 15)
#define NVOS33_FLAGS_MAPPING_BAR                (2u << 15)

typedef struct NVOS33_PARAMETERS {
    NvHandle hClient;
    NvHandle hDevice;
    NvHandle hMemory;
    NvU64A offset;
    NvU64A length;
    NvP64 pLinearAddress;
    NV_STATUS status;
    uint32_t flags;
} NVOS33_PARAMETERS;
NV_ASSERT_LAYOUT(NVOS33_PARAMETERS, 48, 8);
NV_ASSERT_OFF(NVOS33_PARAMETERS, hClient, 0);
NV_ASSERT_OFF(NVOS33_PARAMETERS, hDevice, 4);
NV_ASSERT_OFF(NVOS33_PARAMETERS, hMemory, 8);
NV_ASSERT_OFF(NVOS33_PARAMETERS, offset, 16);
NV_ASSERT_OFF(NVOS33_PARAMETERS, length, 24);
NV_ASSERT_OFF(NVOS33_PARAMETERS, pLinearAddress, 32);
NV_ASSERT_OFF(NVOS33_PARAMETERS, status, 40);
NV_ASSERT_OFF(NVOS33_PARAMETERS, flags, 44);

typedef struct nv_ioctl_nvos33_parameters_with_fd {
    NVOS33_PARAMETERS params;
    int32_t fd;
} nv_ioctl_nvos33_parameters_with_fd;
NV_ASSERT_LAYOUT(nv_ioctl_nvos33_parameters_with_fd, 56, 8);
NV_ASSERT_OFF(nv_ioctl_nvos33_parameters_with_fd, params, 0);
NV_ASSERT_OFF(nv_ioctl_nvos33_parameters_with_fd, fd, 48);

typedef struct NVOS34_PARAMETERS {
    NvHandle hClient;
    NvHandle hDevice;
    NvHandle hMemory;
    NvP64 pLinearAddress;
    NV_STATUS status;
    uint32_t flags;
} NVOS34_PARAMETERS;
NV_ASSERT_LAYOUT(NVOS34_PARAMETERS, 32, 8);
NV_ASSERT_OFF(NVOS34_PARAMETERS, hClient, 0);
NV_ASSERT_OFF(NVOS34_PARAMETERS, hDevice, 4);
NV_ASSERT_OFF(NVOS34_PARAMETERS, hMemory, 8);
NV_ASSERT_OFF(NVOS34_PARAMETERS, pLinearAddress, 16);
NV_ASSERT_OFF(NVOS34_PARAMETERS, status, 24);
NV_ASSERT_OFF(NVOS34_PARAMETERS, flags, 28);

typedef struct NvUnixEvent {
    uint32_t hObject;
    uint32_t NotifyIndex;
    uint32_t info32;
    uint16_t info16;
} NvUnixEvent;
NV_ASSERT_LAYOUT(NvUnixEvent, 16, 4);

typedef struct NVOS41_PARAMETERS {
    NvP64 pEvent;
    uint32_t MoreEvents;
    NV_STATUS status;
} NVOS41_PARAMETERS;
NV_ASSERT_LAYOUT(NVOS41_PARAMETERS, 16, 8);
NV_ASSERT_OFF(NVOS41_PARAMETERS, pEvent, 0);
NV_ASSERT_OFF(NVOS41_PARAMETERS, MoreEvents, 8);
NV_ASSERT_OFF(NVOS41_PARAMETERS, status, 12);

typedef struct NVOS46_PARAMETERS {
    NvHandle hClient;
    NvHandle hDevice;
    NvHandle hDma;
    NvHandle hMemory;
    NvU64A offset;
    NvU64A length;
    uint32_t flags;
    uint32_t flags2;
    uint32_t kindOverride;
    NvU64A dmaOffset;
    NV_STATUS status;
} NVOS46_PARAMETERS;
NV_ASSERT_LAYOUT(NVOS46_PARAMETERS, 64, 8);
NV_ASSERT_OFF(NVOS46_PARAMETERS, hClient, 0);
NV_ASSERT_OFF(NVOS46_PARAMETERS, hDevice, 4);
NV_ASSERT_OFF(NVOS46_PARAMETERS, hDma, 8);
NV_ASSERT_OFF(NVOS46_PARAMETERS, hMemory, 12);
NV_ASSERT_OFF(NVOS46_PARAMETERS, offset, 16);
NV_ASSERT_OFF(NVOS46_PARAMETERS, length, 24);
NV_ASSERT_OFF(NVOS46_PARAMETERS, flags, 32);
NV_ASSERT_OFF(NVOS46_PARAMETERS, flags2, 36);
NV_ASSERT_OFF(NVOS46_PARAMETERS, kindOverride, 40);
NV_ASSERT_OFF(NVOS46_PARAMETERS, dmaOffset, 48);
NV_ASSERT_OFF(NVOS46_PARAMETERS, status, 56);

typedef struct NVOS47_PARAMETERS {
    NvHandle hClient;
    NvHandle hDevice;
    NvHandle hDma;
    NvHandle hMemory;
    uint32_t flags;
    NvU64A dmaOffset;
    NvU64A size;
    NV_STATUS status;
} NVOS47_PARAMETERS;
NV_ASSERT_LAYOUT(NVOS47_PARAMETERS, 48, 8);
NV_ASSERT_OFF(NVOS47_PARAMETERS, hClient, 0);
NV_ASSERT_OFF(NVOS47_PARAMETERS, hDevice, 4);
NV_ASSERT_OFF(NVOS47_PARAMETERS, hDma, 8);
NV_ASSERT_OFF(NVOS47_PARAMETERS, hMemory, 12);
NV_ASSERT_OFF(NVOS47_PARAMETERS, flags, 16);
NV_ASSERT_OFF(NVOS47_PARAMETERS, dmaOffset, 24);
NV_ASSERT_OFF(NVOS47_PARAMETERS, size, 32);
NV_ASSERT_OFF(NVOS47_PARAMETERS, status, 40);

typedef struct NVOS56_PARAMETERS {
    NvHandle hClient;
    NvHandle hDevice;
    NvHandle hMemory;
    NvP64 pOldCpuAddress;
    NvP64 pNewCpuAddress;
    NV_STATUS status;
} NVOS56_PARAMETERS;
NV_ASSERT_LAYOUT(NVOS56_PARAMETERS, 40, 8);
NV_ASSERT_OFF(NVOS56_PARAMETERS, hClient, 0);
NV_ASSERT_OFF(NVOS56_PARAMETERS, hDevice, 4);
NV_ASSERT_OFF(NVOS56_PARAMETERS, hMemory, 8);
NV_ASSERT_OFF(NVOS56_PARAMETERS, pOldCpuAddress, 16);
NV_ASSERT_OFF(NVOS56_PARAMETERS, pNewCpuAddress, 24);
NV_ASSERT_OFF(NVOS56_PARAMETERS, status, 32);

/*
 * Escapes the emulator answers "unsupported" for: only their size and the
 * offset of their status word matter (from nvos.h layouts).
 */
typedef struct NVOS38_PARAMETERS {       /* ACCESS_REGISTRY */
    NvHandle hClient;
    NvHandle hObject;
    uint32_t AccessType;
    uint32_t DevNodeLength;
    NvP64 pDevNode;
    uint32_t ParmStrLength;
    NvP64 pParmStr;
    uint32_t BinaryDataLength;
    NvP64 pBinaryData;
    uint32_t Data;
    uint32_t Entry;
    NV_STATUS status;
} NVOS38_PARAMETERS;
NV_ASSERT_LAYOUT(NVOS38_PARAMETERS, 72, 8);
NV_ASSERT_OFF(NVOS38_PARAMETERS, status, 64);

typedef struct NVOS39_PARAMETERS {       /* ALLOC_CONTEXT_DMA2 */
    NvHandle hObjectParent;
    NvHandle hSubDevice;
    NvHandle hObjectNew;
    uint32_t hClass;
    uint32_t flags;
    uint32_t selector;
    NvHandle hMemory;
    NvU64A offset;
    NvU64A limit;
    NV_STATUS status;
} NVOS39_PARAMETERS;
NV_ASSERT_LAYOUT(NVOS39_PARAMETERS, 56, 8);
NV_ASSERT_OFF(NVOS39_PARAMETERS, status, 48);

typedef struct NVOS49_PARAMETERS {       /* BIND_CONTEXT_DMA */
    NvHandle hClient;
    NvHandle hChannel;
    NvHandle hCtxDma;
    NV_STATUS status;
} NVOS49_PARAMETERS;
NV_ASSERT_LAYOUT(NVOS49_PARAMETERS, 16, 4);
NV_ASSERT_OFF(NVOS49_PARAMETERS, status, 12);

typedef struct NVOS_I2C_ACCESS_PARAMS {  /* I2C_ACCESS */
    NvHandle hClient;
    NvHandle hDevice;
    uint32_t paramSize;
    NvP64 paramStructPtr;
    NV_STATUS status;
} NVOS_I2C_ACCESS_PARAMS;
NV_ASSERT_LAYOUT(NVOS_I2C_ACCESS_PARAMS, 32, 8);
NV_ASSERT_OFF(NVOS_I2C_ACCESS_PARAMS, status, 24);

#endif
