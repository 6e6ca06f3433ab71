/*
 * In-process memory accessors, for callers in the emulator's own process
 * (every layer may need one: the dispatcher when a front-end passes none, the
 * resource server when it tears down an opener's clients).
 *
 *   nvemu_access_inproc (declared in nvemu/nvemu.h) never crashes: it copies
 *     through process_vm_readv/process_vm_writev on the own pid, so a bad
 *     address yields -EFAULT. resolve_fd = NULL.
 *   nvemu_access_inproc_trusted is a plain memcpy, only for callers that build
 *     every pointer themselves (benchmarks, libnvrm after its own checks). A
 *     bad pointer crashes.
 */
#ifndef NVEMU_BASE_ACCESS_H
#define NVEMU_BASE_ACCESS_H

#include <stddef.h>
#include <stdint.h>

#include "nvemu/nvemu.h"

extern const nvemu_access nvemu_access_inproc_trusted;

/* Copies via the safe accessor; 0 or -EFAULT. */
int nvemu_inproc_read(uint64_t addr, void *dst, size_t len);
int nvemu_inproc_write(uint64_t addr, const void *src, size_t len);

#endif
