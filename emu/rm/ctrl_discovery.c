/*
 * Discovery controls on the client (NV0000), device (NV0080) and subdevice
 * (NV2080): GPU ids, names, class lists, GPU/GR/FB/BUS info tables, engine
 * lists. Every answer comes from the GPU profile (emu/profiles/NAME.yaml),
 * so another program on the same GPU gets the same answers the hardware
 * gives. Controls whose semantics are not modelled answer the profile's
 * recorded bytes (RM_CTRL_CANNED rows).
 *
 * Embedded user pointers (GET_CLASSLIST, GR_GET_INFO, SYSTEM_GET_BUILD_VERSION)
 * follow the driver's embedded_param_copy rules: count 0 or count x element
 * size above 1 MiB -> NV_ERR_INVALID_ARGUMENT; an unreadable/unwritable
 * pointer -> NV_ERR_INVALID_ADDRESS.
 */
#include <stddef.h>
#include <string.h>

#include "abi/nv_classes.h"
#include "abi/nv_ctrl_core.h"
#include "abi/nv_ctrl_discovery.h"
#include "abi/nv_ctrl_monitoring.h"
#include "base/log.h"
#include "profile/profile.h"
#include "rm/gpu.h"
#include "rm/opener.h"
#include "rm/rm.h"

/* rmapiParamsSizeCheck: what every embedded list must pass before it is copied. */
static NV_STATUS list_size_check(uint32_t count, uint32_t elem)
{
    if (count == 0 || (uint64_t)count * elem > NV_RMAPI_PARAM_COPY_MAX_PARAMS_SIZE)
        return NV_ERR_INVALID_ARGUMENT;
    return NV_OK;
}

static NV_STATUS user_read(struct rm_call *c, uint64_t addr, void *dst, size_t len)
{
    return c->acc->read(c->acc->ctx, addr, dst, len) == 0 ? NV_OK : NV_ERR_INVALID_ADDRESS;
}

static NV_STATUS user_write(struct rm_call *c, uint64_t addr, const void *src, size_t len)
{
    return c->acc->write(c->acc->ctx, addr, src, len) == 0 ? NV_OK : NV_ERR_INVALID_ADDRESS;
}

/* ---------------- NV0000: client ---------------- */

RM_CTRL_HANDLER(ctrl_build_version, NV0000_CTRL_SYSTEM_GET_BUILD_VERSION_PARAMS)
{
    const struct profile *pr = rm_call_profile(c);
    const char *strs[3] = {pr->driver_version, pr->build_version, pr->build_title};
    const uint64_t dst[3] = {p->pDriverVersionBuffer, p->pVersionBuffer, p->pTitleBuffer};
    uint32_t needed = 0;
    for (int i = 0; i < 3; i++)
        if (strlen(strs[i]) + 1 > needed)
            needed = (uint32_t)strlen(strs[i]) + 1;
    p->changelistNumber = pr->changelist;
    p->officialChangelistNumber = pr->official_changelist;
    /* Any NULL buffer turns the call into a size query. */
    if (!dst[0] || !dst[1] || !dst[2]) {
        p->sizeOfStrings = needed;
        return NV_OK;
    }
    if (p->sizeOfStrings < needed)
        return NV_ERR_INVALID_PARAM_STRUCT;
    for (int i = 0; i < 3; i++) {
        NV_STATUS st = user_write(c, dst[i], strs[i], strlen(strs[i]) + 1);
        if (st != NV_OK)
            return st;
    }
    return NV_OK;
}

static void fill_gpu_ids(struct rm_server *rs, uint32_t *ids)
{
    uint32_t n = rm_gpu_count(rs);
    for (uint32_t i = 0; i < NV0000_CTRL_GPU_MAX_ATTACHED_GPUS; i++) {
        struct gpu *g = i < n ? rm_gpu(rs, i) : NULL;
        ids[i] = g ? g->gpu_id : NV0000_CTRL_GPU_INVALID_ID;
    }
}

RM_CTRL_HANDLER(ctrl_attached_ids, NV0000_CTRL_GPU_GET_ATTACHED_IDS_PARAMS)
{
    fill_gpu_ids(c->rs, p->gpuIds);
    return NV_OK;
}

RM_CTRL_HANDLER(ctrl_probed_ids, NV0000_CTRL_GPU_GET_PROBED_IDS_PARAMS)
{
    fill_gpu_ids(c->rs, p->gpuIds);
    for (uint32_t i = 0; i < NV0000_CTRL_GPU_MAX_ATTACHED_GPUS; i++) {
        p->excludedGpuIds[i] = NV0000_CTRL_GPU_INVALID_ID;
        p->gpuFlags[i] = 0;
    }
    return NV_OK;
}

/*
 * GPU_GET_ID_INFO_V2 answer, which V1 shares. IN_USE: set while any client has an
 * NV01_DEVICE_0 on the GPU (clear before and set after the device alloc in
 * the reference trace, lines 24/27/32; set for a second process while the
 * first holds a device, fixtures/hw/h200-580.159.04/trace-share-p1.log line 21).
 */
RM_CTRL_HANDLER(ctrl_id_info_v2, NV0000_CTRL_GPU_GET_ID_INFO_V2_PARAMS)
{
    struct gpu *g = rm_gpu_by_id(c->rs, p->gpuId);
    if (!g)
        return NV_ERR_INVALID_ARGUMENT;
    p->gpuFlags = rm_gpu_device_count(c->rs, g) ? NV0000_CTRL_GPU_ID_INFO_IN_USE : 0;
    p->deviceInstance = gpu_index(g);
    p->subDeviceInstance = 0;
    p->sliStatus = g->profile->sli_status;
    p->boardId = g->gpu_id;   /* recorded boardId equals the gpu id (trace line 24) */
    p->gpuInstance = gpu_index(g);
    p->numaId = -1;           /* no NUMA-onlined GPU memory on the recorded x86 host */
    return NV_OK;
}

/* V1 is V2 with RM's unused 8-byte szName pointer after subDeviceInstance; szName is left as given. */
NV_ASSERT_OFF(NV0000_CTRL_GPU_GET_ID_INFO_PARAMS, szName, offsetof(NV0000_CTRL_GPU_GET_ID_INFO_V2_PARAMS, sliStatus));
NV_ASSERT_OFF(NV0000_CTRL_GPU_GET_ID_INFO_PARAMS, sliStatus,
              offsetof(NV0000_CTRL_GPU_GET_ID_INFO_V2_PARAMS, sliStatus) + 8);
NV_ASSERT_SIZE(NV0000_CTRL_GPU_GET_ID_INFO_PARAMS, sizeof(NV0000_CTRL_GPU_GET_ID_INFO_V2_PARAMS) + 8);

RM_CTRL_HANDLER(ctrl_id_info, NV0000_CTRL_GPU_GET_ID_INFO_PARAMS)
{
    NV0000_CTRL_GPU_GET_ID_INFO_V2_PARAMS v2 = {.gpuId = p->gpuId};
    NV_STATUS st = ctrl_id_info_v2_typed(c, &v2);
    if (st != NV_OK)
        return st;
    const size_t head = offsetof(NV0000_CTRL_GPU_GET_ID_INFO_V2_PARAMS, sliStatus);
    memcpy(p, &v2, head);
    memcpy(&p->sliStatus, &v2.sliStatus, sizeof v2 - head);
    return NV_OK;
}

/*
 * Address space behind a mappable object, per class as the H200 recording
 * answers (trace lines 78-434): system memory and RM shared data live in
 * sysmem, local user memory in vidmem, usermode doorbells are registers
 * unless mapped through BAR1 (bBar1Mapping, trace lines 80-81: vidmem); every
 * usermode class (its kind in the class descriptors) is registers.
 */
static const struct {
    uint32_t hclass;
    uint32_t space;
} addr_space_rows[] = {
    {NV01_MEMORY_SYSTEM, NV0000_CTRL_CMD_CLIENT_GET_ADDR_SPACE_TYPE_SYSMEM},
    {NV01_MEMORY_SYSTEM_OS_DESCRIPTOR, NV0000_CTRL_CMD_CLIENT_GET_ADDR_SPACE_TYPE_SYSMEM},
    {RM_USER_SHARED_DATA, NV0000_CTRL_CMD_CLIENT_GET_ADDR_SPACE_TYPE_SYSMEM},
    {NV01_MEMORY_LOCAL_USER, NV0000_CTRL_CMD_CLIENT_GET_ADDR_SPACE_TYPE_VIDMEM},
};

RM_CTRL_HANDLER(ctrl_addr_space_type, NV0000_CTRL_CLIENT_GET_ADDR_SPACE_TYPE_PARAMS)
{
    struct rm_object *o = rm_client_find(c->client, p->hObject);
    if (!o)
        return NV_ERR_OBJECT_NOT_FOUND;
    uint32_t hclass = rm_object_class(o);
    if (rm_object_family(o) == RM_FAM_USERMODE) {
        p->addrSpaceType = rm_usermode_bar1(o) ? NV0000_CTRL_CMD_CLIENT_GET_ADDR_SPACE_TYPE_VIDMEM
                                               : NV0000_CTRL_CMD_CLIENT_GET_ADDR_SPACE_TYPE_REGMEM;
        return NV_OK;
    }
    for (size_t i = 0; i < sizeof addr_space_rows / sizeof addr_space_rows[0]; i++)
        if (addr_space_rows[i].hclass == hclass) {
            p->addrSpaceType = addr_space_rows[i].space;
            return NV_OK;
        }
    LOG_INFO("discovery", "CLIENT_GET_ADDR_SPACE_TYPE: object 0x%08x of class 0x%04x is not mappable", p->hObject,
             hclass);
    return NV_ERR_INVALID_ARGUMENT;
}

/* Object sharing is not modelled: the policy is accepted and has no effect. */
RM_CTRL_HANDLER(ctrl_set_share_policy, NV0000_CTRL_CLIENT_SET_INHERITED_SHARE_POLICY_PARAMS)
{
    LOG_DEBUG("discovery", "client 0x%08x: inherited share policy type %u action %u mask 0x%x ignored",
              rm_client_handle(c->client), p->type, p->action, p->accessMask);
    return NV_OK;
}

/* ---------------- NV0080: device ---------------- */

RM_CTRL_HANDLER(ctrl_classlist, NV0080_CTRL_GPU_GET_CLASSLIST_PARAMS)
{
    const struct profile *pr = rm_call_profile(c);
    if (!p->classList) {
        p->numClasses = pr->class_count;
        return NV_OK;
    }
    NV_STATUS st = list_size_check(p->numClasses, sizeof(uint32_t));
    if (st != NV_OK)
        return st;
    if (p->numClasses < pr->class_count)
        return NV_ERR_INVALID_PARAM_STRUCT;
    st = user_write(c, p->classList, pr->classes, pr->class_count * sizeof(uint32_t));
    if (st != NV_OK)
        return st;
    p->numClasses = pr->class_count;
    return NV_OK;
}

RM_CTRL_HANDLER(ctrl_classlist_v2, NV0080_CTRL_GPU_GET_CLASSLIST_V2_PARAMS)
{
    const struct profile *pr = rm_call_profile(c);
    if (pr->class_count > NV0080_CTRL_GPU_CLASSLIST_MAX_SIZE)
        return NV_ERR_INVALID_PARAM_STRUCT;
    memset(p->classList, 0, sizeof p->classList);
    memcpy(p->classList, pr->classes, pr->class_count * sizeof(uint32_t));
    p->numClasses = pr->class_count;
    return NV_OK;
}

/* One subdevice per device: the emulator has no SLI. */
RM_CTRL_HANDLER(ctrl_num_subdevices, NV0080_CTRL_GPU_GET_NUM_SUBDEVICES_PARAMS)
{
    p->numSubDevices = 1;
    return NV_OK;
}

/* ---------------- NV2080: subdevice ---------------- */

/*
 * {listSize, {index,data}[max]} controls: each index is looked up in the
 * table; list size 0 or above max, or an index the table lacks -> INVALID_ARGUMENT.
 */
static NV_STATUS answer_info_list(const char *what, uint32_t *list_size, nv_ctrl_info_pair *list, uint32_t max,
                                  const struct profile_info *tbl, uint32_t tbl_count)
{
    if (*list_size == 0 || *list_size > max)
        return NV_ERR_INVALID_ARGUMENT;
    for (uint32_t i = 0; i < *list_size; i++) {
        uint32_t k;
        for (k = 0; k < tbl_count; k++)
            if (tbl[k].index == list[i].index)
                break;
        if (k == tbl_count) {
            LOG_INFO("discovery", "%s: index 0x%x not in the profile", what, list[i].index);
            return NV_ERR_INVALID_ARGUMENT;
        }
        list[i].data = tbl[k].value;
    }
    return NV_OK;
}

RM_CTRL_HANDLER(ctrl_gpu_info_v2, NV2080_CTRL_GPU_GET_INFO_V2_PARAMS)
{
    const struct profile *pr = rm_call_profile(c);
    return answer_info_list("GPU_GET_INFO_V2", &p->gpuInfoListSize, p->gpuInfoList,
                            NV2080_CTRL_GPU_INFO_MAX_LIST_SIZE, pr->gpu_info, pr->gpu_info_count);
}

static NV_STATUS table_list(struct rm_call *c, uint32_t cmd, const char *what, uint32_t *list_size,
                            nv_ctrl_info_pair *list, uint32_t max)
{
    const struct profile_info_table *t = profile_info_table(rm_call_profile(c), cmd);
    if (!t) {
        LOG_INFO("discovery", "%s: profile %s has no table", what, rm_call_profile(c)->name);
        return NV_ERR_NOT_SUPPORTED;
    }
    return answer_info_list(what, list_size, list, max, t->entries, t->count);
}

RM_CTRL_HANDLER(ctrl_fb_info_v2, NV2080_CTRL_FB_GET_INFO_V2_PARAMS)
{
    return table_list(c, NV2080_CTRL_CMD_FB_GET_INFO_V2, "FB_GET_INFO_V2", &p->fbInfoListSize, p->fbInfoList,
                      NV2080_CTRL_FB_INFO_MAX_LIST_SIZE);
}

/*
 * The bus info indices of the GPU's PCI location answer each GPU's own (kbusGetInfo: gpuGetDomain, gpuGetBus,
 * gpuGetDevice of the GPU asked), not GPU 0's from the profile's table (the two-H200 machine answered slots 6
 * and 7: fixtures/hw/h200-580.159.04/programs2/trace-nccl-p1.log.gz lines 49 and 127).
 */
#define BUS_INFO_INDEX_BUS_NUMBER 0x0Fu
#define BUS_INFO_INDEX_DEVICE_NUMBER 0x10u
#define BUS_INFO_INDEX_DOMAIN_NUMBER 0x2Cu
static NV_STATUS bus_table_list(struct rm_call *c, uint32_t cmd, const char *what, uint32_t *list_size,
                                nv_ctrl_info_pair *list, uint32_t max)
{
    NV_STATUS st = table_list(c, cmd, what, list_size, list, max);
    for (uint32_t i = 0; st == NV_OK && c->gpu && i < *list_size; i++) {
        if (list[i].index == BUS_INFO_INDEX_BUS_NUMBER)
            list[i].data = c->gpu->pci_bus;
        else if (list[i].index == BUS_INFO_INDEX_DEVICE_NUMBER)
            list[i].data = c->gpu->pci_slot;
        else if (list[i].index == BUS_INFO_INDEX_DOMAIN_NUMBER)
            list[i].data = c->gpu->profile->pci_domain;
    }
    return st;
}

RM_CTRL_HANDLER(ctrl_bus_info_v2, NV2080_CTRL_BUS_GET_INFO_V2_PARAMS)
{
    return bus_table_list(c, NV2080_CTRL_CMD_BUS_GET_INFO_V2, "BUS_GET_INFO_V2", &p->busInfoListSize,
                          p->busInfoList, NV2080_CTRL_BUS_INFO_MAX_LIST_SIZE);
}

/* How a list control answers its pairs from the profile's table of cmd (table_list, bus_table_list). */
typedef NV_STATUS (*table_list_fn)(struct rm_call *c, uint32_t cmd, const char *what, uint32_t *list_size,
                                   nv_ctrl_info_pair *list, uint32_t max);

#define PCI_BAR_INFO_MAX_COUNT 8u
typedef struct {
    uint32_t pciBarCount;
    struct {
        uint32_t flags, barSize;
        NvU64A barSizeBytes, barOffset;
    } pciBarInfo[PCI_BAR_INFO_MAX_COUNT];
} bus_pci_bar_info_params;
_Static_assert(sizeof(bus_pci_bar_info_params) == NV2080_CTRL_CMD_BUS_GET_PCI_BAR_INFO_PARAMS_SIZE, "PCI_BAR_INFO");
_Static_assert(offsetof(bus_pci_bar_info_params, pciBarInfo[1].barOffset) == 48, "PCI_BAR_INFO.barOffset");

/*
 * BUS_GET_PCIE_SUPPORTED_GPU_ATOMICS (ctrl2080bus.h): capType asks about atomics to system memory (SYSMEM), of
 * the GPU alone (GPU) or to the peer GPU at PCI address dbdf (P2P). The open driver forwards the control to GSP
 * (subdeviceCtrlCmdBusGetPcieSupportedGpuAtomics, 580.x: only the VF variant has a body), so no public source says
 * how it answers. Recorded: every SYSMEM call on every board answered NV_OK with the profile's table; every P2P
 * call (each NCCL rank's third call, naming the other H200, fixtures/hw/h200-580.159.04/programs2 and
 * programs4-nccl trace-nccl-p1/p2 line 183, two machines) answered NV_ERR_NOT_SUPPORTED: those GPUs reach each
 * other over NVLink, not PCIe. No GPU here has a PCIe peer, so P2P answers that; the rest the recorded table.
 */
RM_CTRL_HANDLER(ctrl_pcie_atomics, nv2080_pcie_supported_gpu_atomics_params)
{
    if (p->capType == NV2080_CTRL_CMD_BUS_PCIE_ATOMICS_CAPTYPE_P2P) {
        LOG_INFO("rm", "BUS_GET_PCIE_SUPPORTED_GPU_ATOMICS: P2P atomics to peer 0x%x: no PCIe peer, not supported",
                 p->dbdf);
        return NV_ERR_NOT_SUPPORTED;
    }
    uint32_t cap = p->capType, dbdf = p->dbdf;
    NV_STATUS st = rm_ctrl_canned(c, p);
    p->capType = cap;
    p->dbdf = dbdf;
    return st;
}

/*
 * BUS_GET_PCI_BAR_INFO (ctrl2080bus.h): the profile's recorded answer, which lists GPU 0's BARs; on another GPU
 * each BAR at one of GPU 0's addresses is at that GPU's (pci.next_gpus), as the two-H200 machine answered
 * (fixtures/hw/h200-580.159.04/programs2/trace-nccl-p1.log.gz lines 50 and 128: same sizes, own addresses).
 */
RM_CTRL_HANDLER(ctrl_pci_bar_info, bus_pci_bar_info_params)
{
    NV_STATUS st = rm_ctrl_canned(c, p);
    if (st != NV_OK || !c->gpu || c->gpu->index == 0)
        return st;
    const struct profile *pr = c->gpu->profile;
    const uint64_t gpu0[] = {pr->bar0_address, pr->fb_address, pr->bar2_address};
    const uint64_t own[] = {c->gpu->bar0_address, c->gpu->fb_address, c->gpu->bar2_address};
    for (uint32_t i = 0; i < p->pciBarCount && i < PCI_BAR_INFO_MAX_COUNT; i++)
        for (size_t k = 0; k < sizeof gpu0 / sizeof gpu0[0]; k++)
            if (gpu0[k] && p->pciBarInfo[i].barSizeBytes && p->pciBarInfo[i].barOffset == gpu0[k]) {
                p->pciBarInfo[i].barOffset = own[k];
                break;
            }
    return NV_OK;
}

/*
 * A legacy list control, which the driver converts to its _V2 form (rmapi_deprecated_control.c): the n pairs
 * behind the caller's pointer are read, answered as the _V2 control v2_cmd answers them (answer), and written back.
 */
static NV_STATUS legacy_table_list(struct rm_call *c, table_list_fn answer, uint32_t v2_cmd, const char *what,
                                   uint32_t n, uint64_t ptr, uint32_t max)
{
    nv_ctrl_info_pair list[NV2080_CTRL_BUS_INFO_MAX_LIST_SIZE];
    _Static_assert(NV2080_CTRL_BIOS_INFO_MAX_SIZE <= NV2080_CTRL_BUS_INFO_MAX_LIST_SIZE, "every legacy list fits");
    if (n == 0 || n > max || !ptr)
        return NV_ERR_INVALID_ARGUMENT;
    NV_STATUS st = user_read(c, ptr, list, n * sizeof list[0]);
    if (st == NV_OK)
        st = answer(c, v2_cmd, what, &n, list, max);
    return st == NV_OK ? user_write(c, ptr, list, n * sizeof list[0]) : st;
}

/* The legacy BUS_GET_INFO: the same indices and table as BUS_GET_INFO_V2. */
RM_CTRL_HANDLER(ctrl_bus_info, NV2080_CTRL_BUS_GET_INFO_PARAMS)
{
    return legacy_table_list(c, bus_table_list, NV2080_CTRL_CMD_BUS_GET_INFO_V2, "BUS_GET_INFO", p->busInfoListSize,
                             p->busInfoList, NV2080_CTRL_BUS_INFO_MAX_LIST_SIZE);
}

/* The legacy BIOS_GET_INFO: answered from the profile's BIOS_GET_INFO_V2 table (VBIOS revision, OEM revision). */
RM_CTRL_HANDLER(ctrl_bios_info, NV2080_CTRL_BIOS_GET_INFO_PARAMS)
{
    return legacy_table_list(c, table_list, NV2080_CTRL_CMD_BIOS_GET_INFO_V2, "BIOS_GET_INFO", p->biosInfoListSize,
                             p->biosInfoList, NV2080_CTRL_BIOS_INFO_MAX_SIZE);
}

RM_CTRL_HANDLER(ctrl_name_string, NV2080_CTRL_GPU_GET_NAME_STRING_PARAMS)
{
    const char *name = rm_call_profile(c)->marketing_name;
    size_t n = strlen(name);
    if (n >= NV2080_GPU_MAX_NAME_STRING_LENGTH)
        n = NV2080_GPU_MAX_NAME_STRING_LENGTH - 1;
    memset(&p->gpuNameString, 0, sizeof p->gpuNameString);
    if (p->gpuNameStringFlags == NV2080_CTRL_GPU_GET_NAME_STRING_FLAGS_TYPE_ASCII) {
        memcpy(p->gpuNameString.ascii, name, n);
    } else if (p->gpuNameStringFlags == NV2080_CTRL_GPU_GET_NAME_STRING_FLAGS_TYPE_UNICODE) {
        for (size_t i = 0; i < n; i++)
            p->gpuNameString.unicode[i] = (uint8_t)name[i];
    } else {
        return NV_ERR_INVALID_ARGUMENT;
    }
    return NV_OK;
}

RM_CTRL_HANDLER(ctrl_short_name, NV2080_CTRL_GPU_GET_SHORT_NAME_STRING_PARAMS)
{
    const char *name = rm_call_profile(c)->short_name;
    memset(p->gpuShortNameString, 0, sizeof p->gpuShortNameString);
    memcpy(p->gpuShortNameString, name, strnlen(name, sizeof p->gpuShortNameString - 1));
    return NV_OK;
}

/* UUID as 16 binary bytes or as the "GPU-xxxxxxxx-..." string (41 bytes with its NUL). */
RM_CTRL_HANDLER(ctrl_gid_info, NV2080_CTRL_GPU_GET_GID_INFO_PARAMS)
{
    const uint8_t *u = c->gpu ? c->gpu->uuid : rm_call_profile(c)->uuid;
    if (p->index != 0)
        return NV_ERR_INVALID_ARGUMENT;
    memset(p->data, 0, sizeof p->data);
    switch (p->flags & NV2080_GPU_CMD_GPU_GET_GID_FLAGS_FORMAT_MASK) {
    case NV2080_GPU_CMD_GPU_GET_GID_FLAGS_FORMAT_BINARY:
        memcpy(p->data, u, 16);
        p->length = 16;
        return NV_OK;
    case NV2080_GPU_CMD_GPU_GET_GID_FLAGS_FORMAT_ASCII: {
        static const char hex[] = "0123456789abcdef";
        static const int dash_after[] = {4, 6, 8, 10};
        size_t k = 0;
        memcpy(p->data, "GPU-", 4);
        k = 4;
        for (int i = 0, d = 0; i < 16; i++) {
            if (d < 4 && i == dash_after[d]) {
                p->data[k++] = '-';
                d++;
            }
            p->data[k++] = (uint8_t)hex[u[i] >> 4];
            p->data[k++] = (uint8_t)hex[u[i] & 15];
        }
        p->length = (uint32_t)k + 1;
        return NV_OK;
    }
    default:
        return NV_ERR_INVALID_ARGUMENT;
    }
}

RM_CTRL_HANDLER(ctrl_engines_v2, NV2080_CTRL_GPU_GET_ENGINES_V2_PARAMS)
{
    const struct profile *pr = rm_call_profile(c);
    if (pr->engine_count > NV2080_GPU_MAX_ENGINES_LIST_SIZE)
        return NV_ERR_INVALID_PARAM_STRUCT;
    memset(p->engineList, 0, sizeof p->engineList);
    for (uint32_t i = 0; i < pr->engine_count; i++)
        p->engineList[i] = pr->engines[i].engine_type;
    p->engineCount = pr->engine_count;
    return NV_OK;
}

/* GR info: indices below the driver's NV0080_CTRL_GR_INFO_MAX_SIZE the profile does not list read 0. */
RM_CTRL_HANDLER(ctrl_gr_info, NV2080_CTRL_GR_GET_INFO_PARAMS)
{
    const struct profile *pr = rm_call_profile(c);
    NV_STATUS st = list_size_check(p->grInfoListSize, sizeof(nv_ctrl_info_pair));
    if (st != NV_OK)
        return st;
    if (!p->grInfoList)
        return NV_ERR_INVALID_ARGUMENT;
    if (p->grInfoListSize > pr->gr_info_max)
        return NV_ERR_INVALID_ARGUMENT;
    nv_ctrl_info_pair list[PROFILE_MAX_INFO];
    st = user_read(c, p->grInfoList, list, p->grInfoListSize * sizeof list[0]);
    if (st != NV_OK)
        return st;
    for (uint32_t i = 0; i < p->grInfoListSize; i++) {
        if (list[i].index >= pr->gr_info_max)
            return NV_ERR_INVALID_ARGUMENT;
        list[i].data = 0;
        for (uint32_t k = 0; k < pr->gr_info_count; k++)
            if (pr->gr_info[k].index == list[i].index)
                list[i].data = pr->gr_info[k].value;
    }
    return user_write(c, p->grInfoList, list, p->grInfoListSize * sizeof list[0]);
}

RM_CTRL_HANDLER(ctrl_gr_ctx_buffer_size, NV2080_CTRL_GR_GET_CTX_BUFFER_SIZE_PARAMS)
{
    struct rm_object *o = rm_client_find(c->client, p->hChannel);
    if (!o || rm_object_family(o) != RM_FAM_CHANNEL)
        return NV_ERR_INVALID_OBJECT_HANDLE;
    p->totalBufferSize = rm_call_profile(c)->gr_ctx_buffer_size;
    return NV_OK;
}

RM_CTRL_HANDLER(ctrl_arch_info, NV2080_CTRL_MC_GET_ARCH_INFO_PARAMS)
{
    const struct profile *pr = rm_call_profile(c);
    p->architecture = pr->arch_id;
    p->implementation = pr->arch_impl;
    p->revision = pr->arch_revision;
    p->subRevision = pr->arch_subrevision;
    return NV_OK;
}

RM_CTRL_HANDLER(ctrl_pci_info, NV2080_CTRL_BUS_GET_PCI_INFO_PARAMS)
{
    const struct profile *pr = rm_call_profile(c);
    p->pciDeviceId = (uint32_t)pr->pci_device_id << 16 | pr->pci_vendor_id;
    p->pciSubSystemId = pr->pci_subsystem_id;
    p->pciRevisionId = pr->pci_revision_id;
    p->pciExtDeviceId = pr->pci_ext_device_id;
    return NV_OK;
}

/* Parameterless controls the recording shows answering NV_OK (their status is the answer); nothing to model. */
RM_CTRL_HANDLER(ctrl_no_params, void)
{
    return NV_OK;
}

/* GPU_GET_ID_INFO.szName: a pointer the driver ignores and passes back as given. */
static const struct rm_ctrl_volatile id_info_volatile[] = {
    {.off = 16, .len = 8, .why = "GPU_GET_ID_INFO.szName: unused pointer, passed through as given"},
    {.why = NULL},
};
/* FB_GET_INFO_V2 index 0x16 (NV2080_CTRL_FB_INFO_INDEX_HEAP_FREE): what every process on the GPU holds. */
static const struct rm_ctrl_volatile fb_info_volatile[] = {
    {.off = 0, .info_index = 0x16 + 1, .why = "HEAP_FREE: free framebuffer depends on every process's allocations"},
    {.why = NULL},
};

#define NP RM_PRIV_USER
#define CLI RM_FAM_CLIENT
#define DEV RM_FAM_DEVICE
#define SUB RM_FAM_SUBDEVICE

/*
 * Privilege: docs/driver-sources.md's NON_PRIVILEGED for the structured controls;
 * canned ones are those libcuda issued as an ordinary user in the recording.
 * Canned sizes are the recorded paramsSize.
 */
const struct rm_ctrl_row rm_ctrl_rows_discovery[] = {
    /* NV0000 client */
    RM_CTRL(NV0000_CTRL_CMD_SYSTEM_GET_BUILD_VERSION, NV0000_CTRL_SYSTEM_GET_BUILD_VERSION_PARAMS, CLI, NP,
            ctrl_build_version),
    RM_CTRL_RECORDED(NV0000_CTRL_CMD_SYSTEM_GET_FEATURES, CLI, rm_ctrl_canned),
    RM_CTRL(NV0000_CTRL_CMD_GPU_GET_ATTACHED_IDS, NV0000_CTRL_GPU_GET_ATTACHED_IDS_PARAMS, CLI, NP, ctrl_attached_ids),
    RM_CTRL(NV0000_CTRL_CMD_GPU_GET_ID_INFO, NV0000_CTRL_GPU_GET_ID_INFO_PARAMS, CLI, NP, ctrl_id_info,
            .volatile_out = id_info_volatile),
    RM_CTRL(NV0000_CTRL_CMD_GPU_GET_ID_INFO_V2, NV0000_CTRL_GPU_GET_ID_INFO_V2_PARAMS, CLI, NP, ctrl_id_info_v2),
    RM_CTRL(NV0000_CTRL_CMD_GPU_GET_PROBED_IDS, NV0000_CTRL_GPU_GET_PROBED_IDS_PARAMS, CLI, NP, ctrl_probed_ids),
    RM_CTRL_RECORDED(NV0000_CTRL_CMD_GPU_GET_MEMOP_ENABLE, CLI, rm_ctrl_canned),
    RM_CTRL_RECORDED(NV0000_CTRL_CMD_SYNC_GPU_BOOST_GROUP_INFO, CLI, rm_ctrl_canned),
    RM_CTRL(NV0000_CTRL_CMD_CLIENT_GET_ADDR_SPACE_TYPE, NV0000_CTRL_CLIENT_GET_ADDR_SPACE_TYPE_PARAMS, CLI, NP,
            ctrl_addr_space_type),
    RM_CTRL(NV0000_CTRL_CMD_CLIENT_SET_INHERITED_SHARE_POLICY, NV0000_CTRL_CLIENT_SET_INHERITED_SHARE_POLICY_PARAMS,
            CLI, NP, ctrl_set_share_policy),
    /* NV0080 device */
    RM_CTRL(NV0080_CTRL_CMD_GPU_GET_CLASSLIST, NV0080_CTRL_GPU_GET_CLASSLIST_PARAMS, DEV, NP, ctrl_classlist),
    RM_CTRL(NV0080_CTRL_CMD_GPU_GET_NUM_SUBDEVICES, NV0080_CTRL_GPU_GET_NUM_SUBDEVICES_PARAMS, DEV, NP,
            ctrl_num_subdevices),
    RM_CTRL_RECORDED(NV0080_CTRL_CMD_GPU_GET_VIRTUALIZATION_MODE, DEV, rm_ctrl_canned),
    RM_CTRL(NV0080_CTRL_CMD_GPU_GET_CLASSLIST_V2, NV0080_CTRL_GPU_GET_CLASSLIST_V2_PARAMS, DEV, NP, ctrl_classlist_v2),
    RM_CTRL_RECORDED(NV0080_CTRL_CMD_FB_GET_CAPS_V2, DEV, rm_ctrl_canned),
    RM_CTRL_RECORDED(NV0080_CTRL_CMD_HOST_GET_CAPS_V2, DEV, rm_ctrl_canned),
    RM_CTRL_RECORDED(NV0080_CTRL_CMD_PERF_CUDA_LIMIT_SET_CONTROL, DEV, rm_ctrl_canned),
    /* NV2080 subdevice */
    RM_CTRL(NV2080_CTRL_CMD_GPU_GET_INFO_V2, NV2080_CTRL_GPU_GET_INFO_V2_PARAMS, SUB, NP, ctrl_gpu_info_v2),
    RM_CTRL(NV2080_CTRL_CMD_GPU_GET_NAME_STRING, NV2080_CTRL_GPU_GET_NAME_STRING_PARAMS, SUB, NP, ctrl_name_string),
    RM_CTRL(NV2080_CTRL_CMD_GPU_GET_SHORT_NAME_STRING, NV2080_CTRL_GPU_GET_SHORT_NAME_STRING_PARAMS, SUB, NP,
            ctrl_short_name),
    RM_CTRL_RECORDED(NV2080_CTRL_CMD_GPU_GET_SIMULATION_INFO, SUB, rm_ctrl_canned),
    RM_CTRL_RECORDED(NV2080_CTRL_CMD_GPU_QUERY_ECC_STATUS, SUB, rm_ctrl_canned),
    RM_CTRL_RECORDED(NV2080_CTRL_CMD_GPU_QUERY_COMPUTE_MODE_RULES, SUB, rm_ctrl_canned),
    RM_CTRL_BYTES(NV2080_CTRL_CMD_UNPUBLISHED_0145, 0, SUB, NP, ctrl_no_params),
    RM_CTRL(NV2080_CTRL_CMD_GPU_GET_GID_INFO, NV2080_CTRL_GPU_GET_GID_INFO_PARAMS, SUB, NP, ctrl_gid_info),
    RM_CTRL(NV2080_CTRL_CMD_GPU_GET_ENGINES_V2, NV2080_CTRL_GPU_GET_ENGINES_V2_PARAMS, SUB, NP, ctrl_engines_v2),
    RM_CTRL_RECORDED(NV2080_CTRL_CMD_GPU_GET_COMPUTE_POLICY_CONFIG, SUB, rm_ctrl_canned),
    RM_CTRL_RECORDED(NV2080_CTRL_CMD_GET_GPU_FABRIC_PROBE_INFO, SUB, rm_ctrl_canned),
    RM_CTRL(NV2080_CTRL_CMD_GR_GET_INFO, NV2080_CTRL_GR_GET_INFO_PARAMS, SUB, NP, ctrl_gr_info),
    RM_CTRL(NV2080_CTRL_CMD_GR_GET_CTX_BUFFER_SIZE, NV2080_CTRL_GR_GET_CTX_BUFFER_SIZE_PARAMS, SUB, NP,
            ctrl_gr_ctx_buffer_size),
    RM_CTRL_RECORDED(NV2080_CTRL_CMD_GR_GET_GLOBAL_SM_ORDER, SUB, rm_ctrl_canned),
    RM_CTRL_RECORDED(NV2080_CTRL_CMD_GR_GET_CAPS_V2, SUB, rm_ctrl_canned),
    RM_CTRL_RECORDED(NV2080_CTRL_CMD_GR_GET_GPC_MASK, SUB, rm_ctrl_canned),
    RM_CTRL_RECORDED(NV2080_CTRL_CMD_GR_GET_TPC_MASK, SUB, rm_ctrl_canned),
    RM_CTRL_RECORDED(NV2080_CTRL_CMD_GR_GET_SM_ISSUE_RATE_MODIFIER, SUB, rm_ctrl_canned),
    RM_CTRL(NV2080_CTRL_CMD_FB_GET_INFO_V2, NV2080_CTRL_FB_GET_INFO_V2_PARAMS, SUB, NP, ctrl_fb_info_v2,
            .volatile_out = fb_info_volatile),
    RM_CTRL(NV2080_CTRL_CMD_MC_GET_ARCH_INFO, NV2080_CTRL_MC_GET_ARCH_INFO_PARAMS, SUB, NP, ctrl_arch_info),
    RM_CTRL(NV2080_CTRL_CMD_BUS_GET_PCI_INFO, NV2080_CTRL_BUS_GET_PCI_INFO_PARAMS, SUB, NP, ctrl_pci_info),
    RM_CTRL(NV2080_CTRL_CMD_BUS_GET_PCI_BAR_INFO, bus_pci_bar_info_params, SUB, NP, ctrl_pci_bar_info,
            .flags = RM_CTRL_CANNED),
    RM_CTRL(NV2080_CTRL_CMD_BUS_GET_INFO_V2, NV2080_CTRL_BUS_GET_INFO_V2_PARAMS, SUB, NP, ctrl_bus_info_v2),
    RM_CTRL(NV2080_CTRL_CMD_BUS_GET_INFO, NV2080_CTRL_BUS_GET_INFO_PARAMS, SUB, NP, ctrl_bus_info),
    RM_CTRL(NV2080_CTRL_CMD_BIOS_GET_INFO, NV2080_CTRL_BIOS_GET_INFO_PARAMS, SUB, NP, ctrl_bios_info),
    RM_CTRL(NV2080_CTRL_CMD_BUS_GET_PCIE_SUPPORTED_GPU_ATOMICS, nv2080_pcie_supported_gpu_atomics_params, SUB, NP,
            ctrl_pcie_atomics, .flags = RM_CTRL_CANNED),
    RM_CTRL_RECORDED(NV2080_CTRL_CMD_BUS_GET_C2C_INFO, SUB, rm_ctrl_canned),
    RM_CTRL_RECORDED(NV2080_CTRL_CMD_PERF_BOOST, SUB, rm_ctrl_canned),
    RM_CTRL_BYTES(NV2080_CTRL_CMD_UNPUBLISHED_220C, 0, SUB, NP, ctrl_no_params),
    RM_CTRL_BYTES(NV2080_CTRL_CMD_UNPUBLISHED_2210, 0, SUB, NP, ctrl_no_params),
    RM_CTRL_RECORDED(NV2080_CTRL_CMD_CE_GET_ALL_CAPS, SUB, rm_ctrl_canned),
    RM_CTRL_RECORDED(NV2080_CTRL_CMD_GSP_GET_FEATURES, SUB, rm_ctrl_canned),
    RM_CTRL_RECORDED(NV2080_CTRL_CMD_GRMGR_GET_GR_FS_INFO, SUB, rm_ctrl_canned),
    RM_CTRL_RECORDED(NV2080_CTRL_CMD_UNPUBLISHED_8159, SUB, rm_ctrl_canned),
    RM_CTRL_RECORDED(NV2080_CTRL_CMD_UNPUBLISHED_8162, SUB, rm_ctrl_canned),
    RM_CTRL_RECORDED(NV2080_CTRL_CMD_UNPUBLISHED_9038, SUB, rm_ctrl_canned),
    {.name = NULL},
};
