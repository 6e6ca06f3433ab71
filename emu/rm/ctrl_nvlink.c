/*
 * NVLink and the P2P capabilities between GPUs, from the profile's `nvlink:` section: NV2080
 * NVLINK_GET_NVLINK_CAPS (each GPU's global caps, versions, links) and NV0000 SYSTEM_GET_P2P_CAPS_V2 (what a set
 * of GPUs can do to each other, and the peer ids their buses use). open-gpu-kernel-modules 580.x:
 * ctrl2080nvlink.h and ctrl0000system.h for the layouts, rmapi/client_resource.c (CliGetSystemP2pCaps,
 * cliresCtrlCmdSystemGetP2pCapsV2_IMPL: two equal ids are one GPU, "loopback") for the semantics. Values as
 * fixtures/hw/h200-580.159.04/programs2 recorded them: the two-H200 machine answered the caps with links
 * present on both GPUs (trace-nccl-p1/p2, trace-smi-topo-2gpu), the one-H200 machine with zeros (trace-jax).
 * SYSTEM_GET_P2P_CAPS_MATRIX (cliresCtrlCmdSystemGetP2pCapsMatrix_IMPL) asks the same of every pair of two
 * groups of GPUs, both directions. NVLINK_GET_NVLINK_STATUS answers each link's state, clocks, and the devices at
 * both ends from the profile's recorded answer (GPU 0's), each GPU naming itself as the local device.
 *
 * A peer id exists once the buses of two GPUs are mapped to each other: on these machines the UVM driver does
 * that when one VA space registers both NVLink GPUs (its peer objects are kernel-internal, not in a trace);
 * before that the ids answer INVALID_PEER (trace-nccl-p0 and trace-smi-topo-2gpu, which register no GPU with
 * UVM, versus -p1/-p2 after their second UVM_REGISTER_GPU). Deviation: the mapping is kept for the emulator's
 * life (the driver drops it with the last peer object).
 */
#include <string.h>

#include "abi/nv_alloc.h"
#include "abi/nv_ctrl_monitoring.h"
#include "base/log.h"
#include "profile/profile.h"
#include "rm/gpu.h"
#include "rm/rm_internal.h"

#define MAX_ATTACHED_GPUS 32u
#define CAPS_INDEX_TABLE_SIZE 9u
#define INVALID_PEER 0xFFFFFFFFu

typedef struct {
    uint32_t lenMasks;
    uint32_t pad;
    uint64_t masks[1];
} nvlink_link_mask;

typedef struct {
    uint32_t capsTbl;
    uint8_t lowestNvlinkVersion, highestNvlinkVersion, lowestNciVersion, highestNciVersion;
    uint32_t discoveredLinkMask, enabledLinkMask;
    nvlink_link_mask discoveredLinks, enabledLinks;
} nvlink_caps_params;
_Static_assert(sizeof(nvlink_caps_params) == NV2080_CTRL_CMD_NVLINK_GET_NVLINK_CAPS_PARAMS_SIZE, "NVLINK_CAPS");
_Static_assert(offsetof(nvlink_caps_params, discoveredLinks) == 16, "NVLINK_CAPS.discoveredLinks");
_Static_assert(offsetof(nvlink_caps_params, enabledLinks) == 32, "NVLINK_CAPS.enabledLinks");

typedef struct {
    uint32_t gpuIds[MAX_ATTACHED_GPUS];
    uint32_t gpuCount;
    uint32_t p2pCaps, p2pOptimalReadCEs, p2pOptimalWriteCEs;
    uint8_t p2pCapsStatus[CAPS_INDEX_TABLE_SIZE];
    uint32_t busPeerIds[MAX_ATTACHED_GPUS * MAX_ATTACHED_GPUS];
    uint32_t busEgmPeerIds[MAX_ATTACHED_GPUS * MAX_ATTACHED_GPUS];
} p2p_caps_v2_params;
_Static_assert(sizeof(p2p_caps_v2_params) == NV0000_CTRL_CMD_SYSTEM_GET_P2P_CAPS_V2_PARAMS_SIZE, "P2P_CAPS_V2");
_Static_assert(offsetof(p2p_caps_v2_params, busPeerIds) == 156, "P2P_CAPS_V2.busPeerIds");

/* NV0000_CTRL_P2P_CAPS_INDEX_* and NV0000_CTRL_SYSTEM_GET_P2P_CAPS_* bits */
enum { IDX_READ, IDX_WRITE, IDX_NVLINK, IDX_ATOMICS };
#define P2P_WRITES (1u << 0)
#define P2P_READS (1u << 1)
#define P2P_NVLINK (1u << 3)
#define P2P_ATOMICS (1u << 4)
#define STATUS_OK 0u
#define STATUS_NOT_SUPPORTED 5u
#define NVLINK_CAPS_P2P_ATOMICS 0x08u   /* NV2080_CTRL_NVLINK_CAPS_P2P_ATOMICS, byte 0 */

#define MAX_P2P_GROUP_GPUS 8u
typedef uint32_t p2p_caps_matrix_row[MAX_P2P_GROUP_GPUS];
typedef struct {
    uint32_t grpACount, grpBCount;
    uint32_t gpuIdGrpA[MAX_P2P_GROUP_GPUS], gpuIdGrpB[MAX_P2P_GROUP_GPUS];
    p2p_caps_matrix_row p2pCaps[MAX_P2P_GROUP_GPUS];
    p2p_caps_matrix_row a2bOptimalReadCes[MAX_P2P_GROUP_GPUS], a2bOptimalWriteCes[MAX_P2P_GROUP_GPUS];
    p2p_caps_matrix_row b2aOptimalReadCes[MAX_P2P_GROUP_GPUS], b2aOptimalWriteCes[MAX_P2P_GROUP_GPUS];
} p2p_caps_matrix_params;
_Static_assert(sizeof(p2p_caps_matrix_params) == NV0000_CTRL_CMD_SYSTEM_GET_P2P_CAPS_MATRIX_PARAMS_SIZE,
               "P2P_CAPS_MATRIX");
_Static_assert(offsetof(p2p_caps_matrix_params, p2pCaps) == 72, "P2P_CAPS_MATRIX.p2pCaps");

/* NV2080_CTRL_NVLINK_DEVICE_INFO: one end of a link. */
typedef struct {
    uint32_t deviceIdFlags, domain;
    uint16_t bus, device, function, pad;
    uint32_t pciDeviceId;
    NvU64A deviceType;
    uint8_t deviceUUID[16];
    uint32_t fabricRecoveryStatusMask;
} nvlink_device_info;
_Static_assert(sizeof(nvlink_device_info) == 56, "NVLINK_DEVICE_INFO");
_Static_assert(offsetof(nvlink_device_info, deviceType) == 24, "NVLINK_DEVICE_INFO.deviceType");

/* NV2080_CTRL_NVLINK_LINK_STATUS_INFO, the fields the emulator reads or writes named; the rest as recorded. */
typedef struct {
    uint32_t capsTbl;
    uint8_t phy[4];
    uint32_t linkState;
    uint8_t rxSublinkStatus, txSublinkStatus, bLaneReversal, versions[5];
    uint8_t clocks[36];
    uint8_t connected, loopProperty, remoteDeviceLinkNumber, localDeviceLinkNumber;
    NvU64A remoteLinkSid, localLinkSid;
    uint32_t laneRxdetStatusMask, l1Threshold[3];
    nvlink_device_info remoteDeviceInfo, localDeviceInfo;
} nvlink_link_status;
_Static_assert(sizeof(nvlink_link_status) == NVLINK_LINK_STATUS_SIZE, "NVLINK_LINK_STATUS_INFO");
_Static_assert(offsetof(nvlink_link_status, linkState) == NVLINK_LINK_STATUS_STATE_OFF, "LINK_STATUS.linkState");
_Static_assert(offsetof(nvlink_link_status, connected) == 56, "LINK_STATUS.connected");
_Static_assert(offsetof(nvlink_link_status, localLinkSid) == 72, "LINK_STATUS.localLinkSid");
_Static_assert(offsetof(nvlink_link_status, localDeviceInfo) == 152, "LINK_STATUS.localDeviceInfo");

typedef struct {
    uint32_t enabledLinkMask, pad;
    nvlink_link_mask enabledLinks;
    uint8_t bSublinkStateInst, bNvleModeEnabled, pad2[6];
    nvlink_link_status linkInfo[NVLINK_MAX_LINKS];
} nvlink_status_params;
_Static_assert(sizeof(nvlink_status_params) == NV2080_CTRL_CMD_NVLINK_GET_NVLINK_STATUS_PARAMS_SIZE, "NVLINK_STATUS");
_Static_assert(offsetof(nvlink_status_params, linkInfo) == NVLINK_STATUS_LINKS_OFF, "NVLINK_STATUS.linkInfo");

RM_CTRL_HANDLER(ctrl_nvlink_caps, nvlink_caps_params)
{
    const struct profile_nvlink *n = &c->gpu->profile->nvlink;
    memset(p, 0, sizeof *p);
    if (!n->links)
        return NV_OK;
    p->capsTbl = n->caps;
    p->lowestNvlinkVersion = p->highestNvlinkVersion = (uint8_t)n->version;
    p->lowestNciVersion = p->highestNciVersion = (uint8_t)n->nci_version;
    p->discoveredLinkMask = p->enabledLinkMask = (uint32_t)n->links;
    p->discoveredLinks.lenMasks = p->enabledLinks.lenMasks = 1;
    p->discoveredLinks.masks[0] = p->enabledLinks.masks[0] = n->links;
    return NV_OK;
}

/*
 * The profile's recorded answer (a board without NVLink recorded zeros), with what the call names from its own
 * side: the caller's two request flags come back as sent (the H200 echoed bSublinkStateInst), and each link
 * present names this GPU's PCI location as its local end (the two-H200 machine: slots 6 and 7,
 * fixtures/hw/h200-580.159.04/programs2/trace-nccl-p1.log.gz lines 184 and 186). A GPU's lane reversal and link
 * SIDs are its board's wiring, answered as the recording's GPU (replay classes them as board identity); the
 * link power states are values of the moment (volatile).
 */
RM_CTRL_HANDLER(ctrl_nvlink_status, nvlink_status_params)
{
    uint8_t inst = p->bSublinkStateInst, nvle = p->bNvleModeEnabled;
    NV_STATUS st = rm_ctrl_canned(c, p);
    if (st != NV_OK)
        return st;
    p->bSublinkStateInst = inst;
    p->bNvleModeEnabled = nvle;
    for (uint32_t k = 0; c->gpu && k < NVLINK_MAX_LINKS; k++) {
        nvlink_device_info *l = &p->linkInfo[k].localDeviceInfo;
        if (!l->deviceIdFlags)
            continue;
        l->domain = c->gpu->profile->pci_domain;
        l->bus = (uint16_t)c->gpu->pci_bus;
        l->device = (uint16_t)c->gpu->pci_slot;
        l->function = (uint16_t)c->gpu->profile->pci_function;
    }
    return NV_OK;
}

#define LINK_VOLATILE(k)                                                                                        \
    {.off = NVLINK_STATUS_LINKS_OFF + (k) * NVLINK_LINK_STATUS_SIZE + NVLINK_LINK_STATUS_STATE_OFF, .len = 6, \
     .why = "link and sublink power states of the moment"}
#define LINKS_VOLATILE8(k)                                                                                      \
    LINK_VOLATILE(k), LINK_VOLATILE(k + 1), LINK_VOLATILE(k + 2), LINK_VOLATILE(k + 3), LINK_VOLATILE(k + 4),  \
        LINK_VOLATILE(k + 5), LINK_VOLATILE(k + 6), LINK_VOLATILE(k + 7)
static const struct rm_ctrl_volatile link_states_volatile[] = {
    LINKS_VOLATILE8(0),  LINKS_VOLATILE8(8),  LINKS_VOLATILE8(16), LINKS_VOLATILE8(24),
    LINKS_VOLATILE8(32), LINKS_VOLATILE8(40), LINKS_VOLATILE8(48), LINKS_VOLATILE8(56),
    {.why = NULL},
};
_Static_assert(sizeof link_states_volatile / sizeof link_states_volatile[0] == NVLINK_MAX_LINKS + 1, "every link");

/* The peer id local's bus gives peer: the rank of peer among local's mapped peers (lowest free id first). */
static uint32_t peer_id(const struct rm_server *rs, const struct gpu *local, const struct gpu *peer)
{
    uint32_t mapped = rs->nvlink_peers;
    if (local == peer || !(mapped & (1u << local->index)) || !(mapped & (1u << peer->index)))
        return INVALID_PEER;
    uint32_t below = mapped & ((1u << peer->index) - 1u) & ~(1u << local->index);
    return (uint32_t)__builtin_popcount(below);
}

/*
 * CliGetSystemP2pCaps' caps and optimal CEs for count GPUs g (all with NVLink: g[0]'s links answer). A set of
 * one GPU without NVLink answers no caps (the one-H200 machine's matrix, fixtures/hw/h200-580.159.04/programs
 * trace-streams line 99); more than one such GPU is not modelled: NV_ERR_NOT_SUPPORTED with a log line.
 */
static NV_STATUS system_p2p_caps(struct rm_call *c, struct gpu *const *g, uint32_t count, uint32_t *caps,
                                 uint32_t *read_ces, uint32_t *write_ces)
{
    uint32_t without = 0;
    for (uint32_t i = 0; i < count; i++)
        without += !g[i]->profile->nvlink.links;
    if (without == 1 && count == 1) {
        *caps = *read_ces = *write_ces = 0;
        return NV_OK;
    }
    if (without) {
        LOG_WARN("rm", "control 0x%08x: P2P caps of a GPU without NVLink are not modelled", c->cmd);
        return NV_ERR_NOT_SUPPORTED;
    }
    const struct profile_nvlink *n = &g[0]->profile->nvlink;
    *caps = P2P_WRITES | P2P_READS | P2P_NVLINK | ((n->caps & NVLINK_CAPS_P2P_ATOMICS) ? P2P_ATOMICS : 0);
    /* the optimal CEs are answered for one or two GPUs only */
    *read_ces = count <= 2 ? n->p2p_read_ces : 0;
    *write_ces = count <= 2 ? n->p2p_write_ces : 0;
    return NV_OK;
}

RM_CTRL_HANDLER(ctrl_p2p_caps_v2, p2p_caps_v2_params)
{
    if (!p->gpuCount || p->gpuCount > MAX_ATTACHED_GPUS)
        return NV_ERR_INVALID_ARGUMENT;
    /* two equal ids ask about one GPU's path to itself */
    uint32_t count = p->gpuCount == 2 && p->gpuIds[0] == p->gpuIds[1] ? 1 : p->gpuCount;
    struct gpu *g[MAX_ATTACHED_GPUS];
    for (uint32_t i = 0; i < count; i++)
        if (!(g[i] = rm_gpu_by_id(c->rs, p->gpuIds[i])))
            return NV_ERR_INVALID_ARGUMENT;
    for (uint32_t i = 0; i < count; i++)
        if (!g[i]->profile->nvlink.links) {
            LOG_WARN("rm", "control 0x%08x: P2P caps of a GPU without NVLink are not modelled", c->cmd);
            return NV_ERR_NOT_SUPPORTED;
        }
    NV_STATUS st = system_p2p_caps(c, g, count, &p->p2pCaps, &p->p2pOptimalReadCEs, &p->p2pOptimalWriteCEs);
    if (st != NV_OK)
        return st;
    memset(p->p2pCapsStatus, STATUS_NOT_SUPPORTED, sizeof p->p2pCapsStatus);
    p->p2pCapsStatus[IDX_READ] = p->p2pCapsStatus[IDX_WRITE] = p->p2pCapsStatus[IDX_NVLINK] = STATUS_OK;
    if (p->p2pCaps & P2P_ATOMICS)
        p->p2pCapsStatus[IDX_ATOMICS] = STATUS_OK;
    for (uint32_t i = 0; i < count; i++)
        for (uint32_t j = 0; j < count; j++) {
            p->busPeerIds[i * count + j] = peer_id(c->rs, g[i], g[j]);
            /* no GPU here has extended GPU memory (EGM) */
            p->busEgmPeerIds[i * count + j] = INVALID_PEER;
        }
    return NV_OK;
}

/*
 * Each pair (A[i], B[j]) answers its caps and A-to-B CEs, and B-to-A CEs unless it is one GPU against itself in
 * the reflexive case (grpBCount 0: B is A, and the lower triangle is mirrored into the upper one).
 */
RM_CTRL_HANDLER(ctrl_p2p_caps_matrix, p2p_caps_matrix_params)
{
    if (!p->grpACount || p->grpACount > MAX_P2P_GROUP_GPUS || p->grpBCount > MAX_P2P_GROUP_GPUS)
        return NV_ERR_INVALID_ARGUMENT;
    if (!rm_gpu_by_id(c->rs, p->gpuIdGrpA[0]))
        return NV_ERR_INVALID_ARGUMENT;
    bool reflexive = p->grpBCount == 0;
    const uint32_t *grp_b = reflexive ? p->gpuIdGrpA : p->gpuIdGrpB;
    for (uint32_t a = 0; a < p->grpACount; a++)
        for (uint32_t b = 0; reflexive ? b <= a : b < p->grpBCount; b++) {
            struct gpu *ab[2] = {rm_gpu_by_id(c->rs, p->gpuIdGrpA[a]), rm_gpu_by_id(c->rs, grp_b[b])};
            if (!ab[0] || !ab[1])
                return NV_ERR_INVALID_ARGUMENT;
            uint32_t count = ab[0] == ab[1] ? 1 : 2, caps;
            NV_STATUS st = system_p2p_caps(c, ab, count, &p->p2pCaps[a][b], &p->a2bOptimalReadCes[a][b],
                                           &p->a2bOptimalWriteCes[a][b]);
            if (st != NV_OK)
                return st;
            if (reflexive && a == b)
                continue;
            struct gpu *ba[2] = {ab[1], ab[0]};
            st = system_p2p_caps(c, ba, count, &caps, &p->b2aOptimalReadCes[a][b], &p->b2aOptimalWriteCes[a][b]);
            if (st != NV_OK)
                return st;
            if (reflexive) {
                p->p2pCaps[b][a] = p->p2pCaps[a][b];
                p->a2bOptimalReadCes[b][a] = p->b2aOptimalReadCes[a][b];
                p->a2bOptimalWriteCes[b][a] = p->b2aOptimalWriteCes[a][b];
                p->b2aOptimalReadCes[b][a] = p->a2bOptimalReadCes[a][b];
                p->b2aOptimalWriteCes[b][a] = p->a2bOptimalWriteCes[a][b];
            }
        }
    return NV_OK;
}

/* A subdevice of the caller's client, or NULL (subdeviceGetByHandle). */
static struct rm_object *client_subdevice(struct rm_call *c, uint32_t h)
{
    struct rm_object *o = rm_client_find(c->client, h);
    return o && !o->lost && o->family == RM_FAM_SUBDEVICE && o->gpu ? o : NULL;
}

static bool at_most_one_bit(uint32_t m)
{
    return (m & (m - 1u)) == 0;
}

/*
 * NV50_P2P (p2p_api.c, p2papiConstruct_IMPL, 580.x): both subdevices must be the client's (else
 * INVALID_ARGUMENT); a peer id mask that is not 0 names one id, and a loopback (one subdevice twice) asks the
 * same ids both ways (else INVALID_ARGUMENT); the GPUs' SYSTEM_GET_P2P_CAPS_V2 must name a connection that reads
 * or writes (else NOT_SUPPORTED: here a GPU without NVLink). SPA-only mappings need ATS, which no profile has.
 * The BAR1 P2P DMA infos answer "none" (NV_U64_MAX, 0): BAR1 P2P is not the connection here. The object
 * depends on both subdevices (freed with either).
 */
NV_STATUS rm_p2p_construct(struct rm_call *c, struct rm_object *obj, void *params)
{
    NV503B_ALLOC_PARAMETERS *p = params;
    struct rm_object *sub = client_subdevice(c, p->hSubDevice), *peer = client_subdevice(c, p->hPeerSubDevice);
    if (!sub || !peer)
        return NV_ERR_INVALID_ARGUMENT;
    if (!at_most_one_bit(p->subDevicePeerIdMask) || !at_most_one_bit(p->peerSubDevicePeerIdMask) ||
        !at_most_one_bit(p->subDeviceEgmPeerIdMask) || !at_most_one_bit(p->peerSubDeviceEgmPeerIdMask))
        return NV_ERR_INVALID_ARGUMENT;
    if (p->hSubDevice == p->hPeerSubDevice && (p->subDevicePeerIdMask != p->peerSubDevicePeerIdMask ||
                                               p->subDeviceEgmPeerIdMask != p->peerSubDeviceEgmPeerIdMask))
        return NV_ERR_INVALID_ARGUMENT;
    if (p->flags & NV503B_FLAGS_P2P_TYPE_SPA)
        return NV_ERR_INVALID_ARGUMENT;
    struct gpu *g[2] = {sub->gpu, peer->gpu};
    uint32_t caps = 0, read_ces, write_ces;
    NV_STATUS st = system_p2p_caps(c, g, g[0] == g[1] ? 1 : 2, &caps, &read_ces, &write_ces);
    if (st != NV_OK)
        return st;
    if (!(caps & (P2P_READS | P2P_WRITES))) {
        LOG_INFO("rm", "NV50_P2P between GPU %u and %u: no P2P connection", g[0]->index, g[1]->index);
        return NV_ERR_NOT_SUPPORTED;
    }
    p->l2pBar1P2PDmaInfo = p->p2lBar1P2PDmaInfo = (NV503B_BAR1_P2P_DMA_INFO){UINT64_MAX, 0};
    if ((st = rm_add_dependant(sub, obj)) != NV_OK)
        return st;
    return peer == sub ? NV_OK : rm_add_dependant(peer, obj);
}

void rm_nvlink_uvm_register_gpu(struct rm_server *rs, nvemu_opener *uvm, const uint8_t uuid[16])
{
    for (uint32_t i = 0; i < rm_gpu_count(rs); i++) {
        struct gpu *g = rm_gpu(rs, i);
        if (memcmp(g->uuid, uuid, 16) || !g->profile->nvlink.links)
            continue;
        uvm->uvm_nvlink_gpus |= 1u << i;
        break;
    }
    if (__builtin_popcount(uvm->uvm_nvlink_gpus) >= 2)
        rs->nvlink_peers |= uvm->uvm_nvlink_gpus;
}

/* NON_PRIVILEGED (g_subdevice_nvoc.c, g_client_resource_nvoc.c, 580.x). */
const struct rm_ctrl_row rm_ctrl_rows_nvlink[] = {
    RM_CTRL(NV2080_CTRL_CMD_NVLINK_GET_NVLINK_CAPS, nvlink_caps_params, RM_FAM_SUBDEVICE, RM_PRIV_USER,
            ctrl_nvlink_caps),
    RM_CTRL(NV2080_CTRL_CMD_NVLINK_GET_NVLINK_STATUS, nvlink_status_params, RM_FAM_SUBDEVICE, RM_PRIV_USER,
            ctrl_nvlink_status, .flags = RM_CTRL_CANNED, .volatile_out = link_states_volatile),
    RM_CTRL(NV0000_CTRL_CMD_SYSTEM_GET_P2P_CAPS_V2, p2p_caps_v2_params, RM_FAM_CLIENT, RM_PRIV_USER,
            ctrl_p2p_caps_v2),
    RM_CTRL(NV0000_CTRL_CMD_SYSTEM_GET_P2P_CAPS_MATRIX, p2p_caps_matrix_params, RM_FAM_CLIENT, RM_PRIV_USER,
            ctrl_p2p_caps_matrix),
    {.name = NULL},
};
