/*
 * The object loader's state and phases, shared by its files; not part of the module's interface
 * (bpf_obj.h is). bpf_obj_open_mem (bpf_obj.c) runs the phases in the order listed, each on what the
 * ones before it filled in; a phase returns 0, or -1 after bpf_obj_fail wrote why, and the object
 * is then closed. Every offset, index and size read from the file is checked before use.
 */
#ifndef NVEMU_BPF_OBJ_INTERNAL_H
#define NVEMU_BPF_OBJ_INTERNAL_H

#include <gelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "bpf/bpf_obj.h"

#ifndef EM_BPF
#define EM_BPF 247
#endif

/* ELF relocation types of the BPF backend (llvm/BinaryFormat/ELFRelocs/BPF.def); older elf.h lacks some. */
#ifndef R_BPF_64_64
#define R_BPF_64_64 1
#endif
#ifndef R_BPF_64_ABS64
#define R_BPF_64_ABS64 2
#endif
#ifndef R_BPF_64_32
#define R_BPF_64_32 10
#endif

#define MAX_OBJECT_BYTES (64u << 20)
#define INSN_SZ 8u

enum sec_kind { SEC_OTHER, SEC_PROG, SEC_MAPS, SEC_DATA, SEC_STRUCT_OPS, SEC_KSYMS };

struct rel {
    uint64_t off;
    uint32_t sym;
    uint32_t type;
};

struct sec {
    const char *name;
    GElf_Shdr sh;
    const uint8_t *data;              /* NULL for NOBITS */
    size_t size;
    enum sec_kind kind;
    int map;                          /* SEC_DATA: index into obj->maps */
    struct rel *rels;                 /* relocations that apply to this section */
    size_t n_rels;
    /* .BTF.ext line info of this section: 4 words per record */
    const uint32_t *lines;
    uint32_t n_lines;
};

struct sym {
    const char *name;
    GElf_Sym s;
};

struct bpf_obj_priv {
    uint8_t *image;                   /* private copy of the file */
    size_t image_len;
    Elf *elf;
    struct btf *btf;
    struct sec *secs;
    size_t n_secs;
    struct sym *syms;
    size_t n_syms;
    struct bpf_map **map_ptrs;        /* every map, for bpf_prog.maps */
    const struct bpf_kfunc *kfuncs;
    uint32_t n_kfuncs;
    char *err;
    size_t errlen;
    const char *oname;
};

/* One function of the object linked into a program. */
struct func {
    size_t sec;
    uint64_t start, end;              /* bytes in the section */
    uint32_t dest;                    /* first instruction in the linked program */
};

/* One program being linked: its function first, then every subprogram it reaches. */
struct linker {
    struct bpf_obj *obj;
    struct bpf_obj_prog *prog;
    struct func *funcs;
    uint32_t n_funcs, cap_funcs;
    struct bpf_insn *insns;
    uint32_t n;
    struct bpf_line *lines;
    uint32_t n_lines;
};

static inline bool bpf_obj_starts_with(const char *s, const char *p)
{
    return strncmp(s, p, strlen(p)) == 0;
}

/* ---- bpf_obj.c: the object's state ---- */

/* Writes "object: message" into the open's error buffer (when it has one); always -1. */
__attribute__((format(printf, 2, 3))) int bpf_obj_fail(struct bpf_obj_priv *P, const char *fmt, ...);

/* Appends a line to obj->notes (what was seen but is not run); silently stops when notes is full. */
__attribute__((format(printf, 2, 3))) void bpf_obj_note(struct bpf_obj *obj, const char *fmt, ...);

/* ---- the phases, in the order bpf_obj_open_mem runs them ---- */

/* bpf_obj_elf.c: the section table of a 64-bit little-endian BPF ET_REL image, each section's kind and data. */
int bpf_obj_elf_sections(struct bpf_obj *obj);

/* bpf_obj_elf.c: the one symbol table, every symbol named ("" when the name is unreadable). */
int bpf_obj_elf_symbols(struct bpf_obj *obj);

/* bpf_obj_elf.c: the REL entries of program and struct_ops sections onto those sections; RELA refused. */
int bpf_obj_elf_relocations(struct bpf_obj *obj);

/* bpf_obj_btf.c: the object's .BTF parsed (required: maps and the ops struct are described there). */
int bpf_obj_btf_load(struct bpf_obj *obj);

/* bpf_obj_btf.c: .BTF.ext line info onto program sections; a missing or malformed one leaves none (0). */
int bpf_obj_btf_lines(struct bpf_obj *obj);

/* bpf_obj_elf.c: the "license" section into obj->license (at most 63 bytes); always 0. */
int bpf_obj_elf_license(struct bpf_obj *obj);

/* bpf_obj_maps.c: every map created (BTF-defined .maps, then global data sections), data variables listed. */
int bpf_obj_maps_create(struct bpf_obj *obj);

/* bpf_obj_prog.c: every global function of an executable section (not .text) as a program with its attach kind. */
int bpf_obj_progs_find(struct bpf_obj *obj);

/* bpf_obj_struct_ops.c: the one ops instance checked against the ABI and its members bound to programs. */
int bpf_obj_struct_ops_bind(struct bpf_obj *obj);

/* bpf_obj_reloc.c: every program that runs linked: subprograms appended, relocations applied, lines, use. */
int bpf_obj_reloc_programs(struct bpf_obj *obj);

/* ---- used by the phases and the settings pass ---- */

/* bpf_obj_btf.c: true when type id is a char array (a process name, a string setting). */
bool bpf_obj_btf_is_char_array(const struct btf *btf, uint32_t id);

/* ---- a pass over one linked program ---- */

/* bpf_obj_args.c: struct_ops args[0] loads of L's entry function become copies of r1; other args uses refused. */
int bpf_obj_args_rewrite(struct linker *L);

#endif
