/*
 * The object loader: reads a clang-built BPF ELF object (`clang -g -O2 -target bpf`) the way libbpf
 * and the kernel would for gpu_ext's nv_gpu_sched_ops struct_ops, without the kernel:
 *   - programs from executable sections (`struct_ops/NAME`, `struct_ops.s/NAME` sleepable), with
 *     the subprograms they call appended (BPF-to-BPF calls become CALL src=1 imm=relative pc);
 *   - maps from BTF-defined `.maps` (type, key/value size, max_entries, map_flags) and global data
 *     (`.rodata*` read-only to programs, `.data`, `.bss`) as 1-entry ARRAY maps, all created with
 *     bpf_map_create() and filled with their initial bytes;
 *   - relocations: R_BPF_64_64 on LD_IMM64 (map -> host address of the struct bpf_map with
 *     src=PSEUDO_MAP_FD; global data -> host address inside the value with src=PSEUDO_MAP_VALUE;
 *     undefined weak `.ksyms` symbol -> 1 when nvemu provides that kfunc, else 0), R_BPF_64_32 on
 *     calls (symbol in an executable section -> subprogram, undefined -> kfunc by name, CALL
 *     src=2 imm=index into bpf_kfuncs), R_BPF_64_ABS64 in `.rel.struct_ops*` (member -> program);
 *   - the ABI check of the ops struct and its ctx structs from the object's BTF against what nvemu
 *     emulates (emu/bpf/bpf_abi.h), with an expected-vs-found diff on a mismatch;
 *   - line info from `.BTF.ext` (file, line, column, source text per instruction);
 *   - a load-time pass that refuses what the kernel's verifier plainly would: stores through the
 *     ctx, a sleepable kfunc from a non-sleepable program, an unknown helper or kfunc.
 * Probe programs (kprobe, kretprobe, uprobe, uretprobe, tracepoint, tp_btf, raw_tp sections:
 * emu/bpf/bpf_attach.h) are relocated too; the policy runs them where the real system would. An
 * object may hold probes alone, without a struct_ops instance, as drivers since gpu_ext's 0c0e77e0
 * load them. A tracepoint that does not exist on the real system is refused naming it.
 */
#ifndef NVEMU_BPF_OBJ_H
#define NVEMU_BPF_OBJ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bpf/bpf_abi.h"
#include "bpf/bpf_attach.h"
#include "bpf/bpf_map.h"
#include "bpf/bpf_vm.h"

/* Where a map came from. */
enum bpf_obj_map_kind { BPF_OBJ_MAP_USER, BPF_OBJ_MAP_RODATA, BPF_OBJ_MAP_DATA, BPF_OBJ_MAP_BSS };

struct btf;

struct bpf_obj_map {
    char name[64];                    /* the .maps variable, or the section name for global data */
    enum bpf_obj_map_kind kind;
    struct bpf_map_def def;           /* def.name points at name */
    bool key_is_string;               /* key is a char array (process names): printed as a string */
    uint32_t key_btf, value_btf;      /* BTF type ids of key and value (a data section's DATASEC), 0 unknown */
    struct bpf_map *map;
};

/* A global variable in a data section, for setting `.rodata` knobs by name. */
struct bpf_obj_var {
    char name[64];
    uint32_t map;                     /* index into maps */
    uint32_t offset, size;
};

struct bpf_obj_prog {
    char name[64];                    /* the function symbol */
    char section[128];
    uint32_t shndx;                   /* where it is in the object: section index, byte offset, size */
    uint64_t offset, size;
    bool sleepable;                   /* struct_ops.s/, uprobe.s */
    bool struct_ops;                  /* in a struct_ops section */
    enum bpf_attach_kind kind;        /* the program type its section names */
    char target[160];                 /* where the section attaches it ("" for a bare uprobe) */
    int member;                       /* enum bpf_abi_member it is bound to, or -1 */
    struct bpf_prog prog;             /* relocated instructions and line info (bound programs only) */
    uint32_t args_loads;              /* struct_ops args[0] loads turned into ctx pointer copies */
    uint32_t helpers_used[32];        /* helper ids called, sorted, deduplicated */
    uint32_t n_helpers;
    uint32_t kfuncs_used;             /* bit i: bpf_kfuncs[i] called */
};

struct bpf_obj {
    char path[256];
    char ops_var[64];                 /* the ops instance's variable name ("" for an object of probes alone) */
    char ops_section[32];             /* ".struct_ops" or ".struct_ops.link" */
    enum bpf_abi_ops ops_abi;         /* which nv_gpu_sched_ops layout the object was built for */
    enum bpf_abi_gen built_for;       /* the driver generation its BTF says it was built for */
    char built_for_why[128];          /* the facts that said so */
    enum bpf_abi_gen target;          /* the generation it runs as (set by the policy layer; NONE: not chosen) */
    uint32_t target_fits;             /* bit g: generation g's driver loads it (set with target) */
    enum bpf_abi_ret kfunc_declared[32]; /* per kfunc table index: the object's prototype of a called kfunc */
    int member_prog[BPF_ABI_MEMBER_COUNT]; /* index into progs, -1 when the member is NULL */
    struct bpf_obj_prog *progs;
    uint32_t n_progs;
    struct bpf_obj_map *maps;
    uint32_t n_maps;
    struct bpf_obj_var *vars;
    uint32_t n_vars;
    char license[64];
    char notes[1024];                 /* what was seen but is not run (probe programs, ...) */
    struct bpf_obj_priv *priv;        /* the loader's (BTF, strings, instruction storage) */
};

/*
 * Opens the object in buf (len bytes; the loader keeps no pointer into it). Returns NULL with a
 * message naming the problem (section, program, instruction, or the ABI diff, one line each) in
 * err when the object cannot run as an nv_gpu_sched_ops policy. Never crashes on malformed input.
 */
struct bpf_obj *bpf_obj_open_mem(const void *buf, size_t len, const char *name, const struct bpf_kfunc *kfuncs,
                                 uint32_t n_kfuncs, char *err, size_t errlen);

/* Same from a file. */
struct bpf_obj *bpf_obj_open_file(const char *path, const struct bpf_kfunc *kfuncs, uint32_t n_kfuncs, char *err,
                                  size_t errlen);

/* Frees the object, its programs and its maps. NULL is a no-op. */
void bpf_obj_close(struct bpf_obj *obj);

/* The object's BTF (owned by the object), for decoding map values by their type. */
const struct btf *bpf_obj_btf(const struct bpf_obj *obj);

/* The map called name (a .maps variable or a section name like ".rodata"), or NULL. */
struct bpf_obj_map *bpf_obj_find_map(struct bpf_obj *obj, const char *name);

/*
 * Sets a `.rodata` / `.data` / `.bss` variable before the first run (a loader's "rodata knob"):
 * value is a decimal or 0x number stored little-endian in the variable's size, or for a char array
 * a string. 0, or -1 with a reason (no such variable, number too large, string too long).
 */
int bpf_obj_set_var(struct bpf_obj *obj, const char *var, const char *value, char *err, size_t errlen);

/*
 * Writes key -> value into a map of the object (a loader's configuration): key and value are
 * strings for char-array keys/values, otherwise numbers sized to key_size / value_size. 0, or -1
 * with a reason (no such map, bad number, the map's errno).
 */
int bpf_obj_map_set(struct bpf_obj *obj, const char *map, const char *key, const char *value, char *err,
                    size_t errlen);

/* True for a probe program (kprobe, uprobe, tracepoint, ...). */
static inline bool bpf_obj_prog_is_probe(const struct bpf_obj_prog *p)
{
    return p->kind != BPF_ATTACH_NONE && p->kind != BPF_ATTACH_STRUCT_OPS;
}

/* True for the programs nvemu loads to run: those bound to an ops member and the probes. */
static inline bool bpf_obj_prog_runs(const struct bpf_obj_prog *p)
{
    return p->member >= 0 || bpf_obj_prog_is_probe(p);
}

/* The line-info entry covering instruction pc of prog, or NULL when the object has none. */
const struct bpf_line *bpf_obj_line(const struct bpf_prog *prog, uint32_t pc);

#endif
