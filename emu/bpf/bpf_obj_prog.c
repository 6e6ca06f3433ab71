/*
 * The loader's program phase (bpf_obj_internal.h): which functions are programs, and what their
 * section says they attach to (emu/bpf/bpf_attach.h parses the section name).
 */
#include "bpf/bpf_obj_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int bpf_obj_progs_find(struct bpf_obj *obj)
{
    struct bpf_obj_priv *P = obj->priv;
    for (size_t i = 0; i < P->n_syms; i++) {
        const struct sym *sy = &P->syms[i];
        if (GELF_ST_TYPE(sy->s.st_info) != STT_FUNC || sy->s.st_shndx == SHN_UNDEF || sy->s.st_shndx >= P->n_secs)
            continue;
        const struct sec *s = &P->secs[sy->s.st_shndx];
        if (s->kind != SEC_PROG || strcmp(s->name, ".text") == 0 || GELF_ST_BIND(sy->s.st_info) != STB_GLOBAL)
            continue;
        if (sy->s.st_value % INSN_SZ || sy->s.st_value > s->size || sy->s.st_size > s->size - sy->s.st_value ||
            sy->s.st_size == 0)
            return bpf_obj_fail(P, "program %s: bad extent in section %s", sy->name, s->name);
        struct bpf_obj_prog *p = realloc(obj->progs, (obj->n_progs + 1) * sizeof *p);
        if (!p)
            return bpf_obj_fail(P, "out of memory");
        obj->progs = p;
        p = &obj->progs[obj->n_progs++];
        memset(p, 0, sizeof *p);
        snprintf(p->name, sizeof p->name, "%s", sy->name);
        snprintf(p->section, sizeof p->section, "%s", s->name);
        struct bpf_attach_section as;
        char why[256];
        if (bpf_attach_parse_section(s->name, &as, why, sizeof why))
            return bpf_obj_fail(P, "program %s: %s", sy->name, why);
        p->struct_ops = as.kind == BPF_ATTACH_STRUCT_OPS;
        p->kind = as.kind;
        p->sleepable = as.sleepable;
        snprintf(p->target, sizeof p->target, "%s", as.target);
        p->shndx = sy->s.st_shndx;
        p->offset = sy->s.st_value;
        p->size = sy->s.st_size;
        p->member = -1;
    }
    return 0;
}
