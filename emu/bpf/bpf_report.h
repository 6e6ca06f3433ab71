/*
 * Human-readable views of a policy object, for `nvemu policy FILE.bpf.o` and
 * `nvemu bpf dump|disasm`.
 */
#ifndef NVEMU_BPF_REPORT_H
#define NVEMU_BPF_REPORT_H

#include <stdio.h>

#include "bpf/bpf_abi.h"

struct bpf_obj;

/*
 * `nvemu policy FILE.bpf.o`: opens the object with every load-time check for
 * gpu_ext driver generation driver (BPF_ABI_GEN_NONE: the newest that loads
 * it) and prints the driver ABI it was built for, the generations that load
 * it, the callbacks bound, the maps, the kfuncs and helpers used and what
 * nvemu does not run; then "accepted" or "refused: REASON". Returns 0 when
 * accepted, 1 when refused.
 */
int bpf_report_check(const char *path, enum bpf_abi_gen driver, FILE *out);

/* Programs (bound or not), maps with their definitions, global variables with their values. */
void bpf_report_dump(const struct bpf_obj *obj, FILE *out);

/* Every bound program's instructions with the source lines from .BTF.ext. */
void bpf_report_disasm(const struct bpf_obj *obj, FILE *out);

#endif
