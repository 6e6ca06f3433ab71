/*
 * The dispatcher: decodes one ioctl like nvidia_ioctl (only the escape number
 * and the byte count matter), handles XFER, applies each escape's node and
 * size rule and runs its handler against the resource server or the workload
 * layer; on /dev/nvidia-uvm it routes UVM's plain request numbers like the
 * driver's uvm_ioctl. The composition root (emu/core) creates one per emulator and calls
 * it from nvemu_ioctl with the emulator lock held.
 */
#ifndef NVEMU_DISPATCH_H
#define NVEMU_DISPATCH_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "abi/nv_status.h"
#include "nvemu/nvemu.h"

struct dispatch;
struct profile;
struct rm_server;
struct sim;
struct workload;

/* What the dispatcher works on, fixed at creation (all outlive it). */
struct dispatch_env {
    struct rm_server *rs;
    struct workload *wl;
    struct sim *sim;
    const struct profile *profile;
    pthread_mutex_t *lock;           /* the emulator lock: blocking workload escapes release it */
    bool gpreempt_compat;            /* answer GPreempt's escape 0x60 */
    bool workload_restricted;        /* workload escapes only for workload_uid / workload_gid (nvemu_config) */
    uint32_t workload_uid;
    bool workload_gid_set;
    uint32_t workload_gid;
};

/* A dispatcher, or NULL when out of memory. */
struct dispatch *dispatch_create(const struct dispatch_env *env);
void dispatch_destroy(struct dispatch *d);

/*
 * How a request word reads on a node: on /dev/nvidiactl and /dev/nvidiaN the
 * escape number and byte count of the _IOC word (magic and direction ignored,
 * as the driver does); on /dev/nvidia-uvm the word is the request number
 * itself and the byte count that of its parameter block (nr UINT32_MAX and
 * size 0 for a number the driver does not route). Needs no dispatcher.
 */
void dispatch_decode(nvemu_node node, unsigned long request, uint32_t *nr, uint32_t *size);

/*
 * One ioctl (see nvemu_ioctl) from thread tid on opener op, lock held.
 * Returns 0 or a negative errno; *st gets the NV_STATUS the handler stored in
 * the struct (NV_OK when none) so the caller can count errors.
 */
int dispatch_ioctl(struct dispatch *d, nvemu_opener *op, uint32_t nr, uint32_t size, void *arg,
                   const nvemu_access *acc, int32_t tid, NV_STATUS *st);

#endif
