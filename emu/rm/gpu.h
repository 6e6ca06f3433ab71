/*
 * One emulated GPU as the resource server sees it (the driver's OBJGPU):
 * /dev/nvidia<index>, its profile, its FIFO model and its fault state. The
 * composition root (emu/core) allocates an emulator's GPUs, has gpu_init build
 * each and hands them to the resource server at creation; rm, dispatch and the
 * fault injection read them through these functions.
 */
#ifndef NVEMU_RM_GPU_H
#define NVEMU_RM_GPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rm/rusd.h"

struct fifo;
struct hooks;
struct profile;
struct sim;
struct rm_server;

struct gpu {
    uint32_t index;                  /* minor number and NV0080 deviceId */
    uint32_t gpu_id;                 /* (domain & 0xFFFF) << 16 | bus << 8 | slot */
    uint32_t pci_bus;                /* profile->pci_bus + index, or profile->pci_bus (pci_gpus_by_slot) */
    uint32_t pci_slot;               /* profile->pci_slot, or profile->pci_slot + index (pci_gpus_by_slot) */
    const uint8_t *uuid;             /* the profile's UUID of this GPU (16 bytes) */
    uint64_t bar0_address, fb_address, bar2_address;  /* its PCI BARs: GPU 0's, or the profile's pci.next_gpus */
    const struct profile *profile;
    struct fifo *fifo;
    uint64_t *class_map;             /* bit per 16-bit class id of the profile's class list */
    bool lost;                       /* fallen off the bus (nvemu_fault_gpu_lost), for good */
    struct rusd_state rusd;          /* its user-shared-data page's sampler */
};

/*
 * Builds GPU number index of profile p: its ids (from the profile's PCI location), its FIFO model on
 * sim s with hooks h, its class table. 0, or -1 with a reason in err (what was built is freed).
 */
int gpu_init(struct gpu *g, const struct profile *p, uint32_t index, struct sim *s, struct hooks *h,
             bool inject_latency, char *err, size_t errlen);
/* Frees what gpu_init built (after every client of the GPU is gone); a zeroed gpu is a no-op. */
void gpu_fini(struct gpu *g);

/* profile_has_class in O(1) (the alloc path asks on every engine object). */
bool gpu_has_class(const struct gpu *g, uint32_t hclass);
/* The GPU's FIFO model (never NULL for a GPU of a live emulator). */
struct fifo *gpu_fifo(struct gpu *g);
/* Position of g in the emulator (the N of /dev/nvidiaN). */
uint32_t gpu_index(const struct gpu *g);
/* True once the GPU was marked lost. */
bool gpu_is_lost(const struct gpu *g);
/* Marks it lost for good and tells its FIFO model (which fails what it runs). False when it already was. */
bool gpu_mark_lost(struct gpu *g);

/* Number of GPUs the server was created with. */
uint32_t rm_gpu_count(const struct rm_server *rs);
/* GPU by index, or NULL. */
struct gpu *rm_gpu(struct rm_server *rs, uint32_t index);
/* GPU by 32-bit gpu id (CARD_INFO / NV0000 ids), or NULL. */
struct gpu *rm_gpu_by_id(struct rm_server *rs, uint32_t gpu_id);

#endif
