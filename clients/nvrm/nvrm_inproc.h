/*
 * In-process transport for libnvrm: the same calls, served by an emulator in
 * this process through the emulator's fd table (emu/front/inproc.h) — no daemon,
 * no /dev nodes. Used by the scenario runner, the in-process GPreempt
 * scheduler and unit tests. Each transport carries the identity its opens
 * present (process name, pid, tid): that is what policies classify by and what
 * GPreempt's query matches on.
 */
#ifndef NVEMU_NVRM_INPROC_H
#define NVEMU_NVRM_INPROC_H

#include "front/inproc.h"
#include "nvrm.h"

struct nvrm_inproc {
    struct nvrm_transport tp;   /* pass &ip->tp to nvrm_open */
    nvemu_fdtable *table;
    nvemu_identity who;
};

/*
 * Wires ip to table; opens made through it present *who (NULL: the calling
 * thread, nvemu_identity_self) and its ioctls run as thread who->tid (0: the
 * calling thread), so one runner thread can play many tasks. ip must outlive
 * every connection using it.
 */
void nvrm_inproc_init(struct nvrm_inproc *ip, nvemu_fdtable *table, const nvemu_identity *who);

#endif
