/*
 * The loader's ELF phases (bpf_obj_internal.h): the image through libelf into sections, symbols and
 * the relocation tables of program and struct_ops sections, and the license.
 */
#include "bpf/bpf_obj_internal.h"

#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool is_data_section(const char *n)
{
    return strcmp(n, ".data") == 0 || bpf_obj_starts_with(n, ".data.") || strcmp(n, ".bss") == 0 ||
           bpf_obj_starts_with(n, ".bss.") || strcmp(n, ".rodata") == 0 || bpf_obj_starts_with(n, ".rodata.");
}

int bpf_obj_elf_sections(struct bpf_obj *obj)
{
    struct bpf_obj_priv *P = obj->priv;
    elf_version(EV_CURRENT);
    P->elf = elf_memory((char *)P->image, P->image_len);
    if (!P->elf || elf_kind(P->elf) != ELF_K_ELF)
        return bpf_obj_fail(P, "not an ELF file");
    GElf_Ehdr eh;
    if (!gelf_getehdr(P->elf, &eh))
        return bpf_obj_fail(P, "unreadable ELF header");
    if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_ident[EI_DATA] != ELFDATA2LSB)
        return bpf_obj_fail(P, "not a 64-bit little-endian ELF (build with -target bpf or bpfel)");
    if (eh.e_machine != EM_BPF)
        return bpf_obj_fail(P, "ELF machine %u is not BPF (%u): a policy object is built with clang -target bpf",
                            eh.e_machine, EM_BPF);
    if (eh.e_type != ET_REL)
        return bpf_obj_fail(P, "ELF type %u is not a relocatable object", eh.e_type);
    size_t shnum, shstrndx;
    if (elf_getshdrnum(P->elf, &shnum) || elf_getshdrstrndx(P->elf, &shstrndx) || shnum == 0 || shnum > 65536)
        return bpf_obj_fail(P, "unreadable section table");
    P->secs = calloc(shnum, sizeof *P->secs);
    if (!P->secs)
        return bpf_obj_fail(P, "out of memory");
    P->n_secs = shnum;
    for (size_t i = 1; i < shnum; i++) {
        Elf_Scn *scn = elf_getscn(P->elf, i);
        struct sec *s = &P->secs[i];
        if (!scn || !gelf_getshdr(scn, &s->sh))
            return bpf_obj_fail(P, "unreadable section %zu", i);
        s->name = elf_strptr(P->elf, shstrndx, s->sh.sh_name);
        if (!s->name)
            return bpf_obj_fail(P, "section %zu has no name", i);
        s->map = -1;
        if (s->sh.sh_type != SHT_NOBITS && s->sh.sh_type != SHT_NULL) {
            Elf_Data *d = elf_getdata(scn, NULL);
            if (!d && s->sh.sh_size)
                return bpf_obj_fail(P, "section %s: unreadable data", s->name);
            if (d) {
                if (d->d_size != s->sh.sh_size || (d->d_size && !d->d_buf))
                    return bpf_obj_fail(P, "section %s: data size %zu, header says %llu", s->name, d->d_size,
                                        (unsigned long long)s->sh.sh_size);
                s->data = d->d_buf;
                s->size = d->d_size;
            }
        } else {
            s->size = s->sh.sh_size;
        }
        if (s->sh.sh_type == SHT_PROGBITS && (s->sh.sh_flags & SHF_EXECINSTR))
            s->kind = SEC_PROG;
        else if (strcmp(s->name, ".maps") == 0)
            s->kind = SEC_MAPS;
        else if (strcmp(s->name, ".struct_ops") == 0 || strcmp(s->name, ".struct_ops.link") == 0)
            s->kind = SEC_STRUCT_OPS;
        else if (strcmp(s->name, ".ksyms") == 0)
            s->kind = SEC_KSYMS;
        else if ((s->sh.sh_type == SHT_PROGBITS || s->sh.sh_type == SHT_NOBITS) && is_data_section(s->name))
            s->kind = SEC_DATA;
        if (s->kind == SEC_PROG && s->size % INSN_SZ)
            return bpf_obj_fail(P, "program section %s: %zu bytes is not a whole number of instructions", s->name,
                                s->size);
    }
    return 0;
}

int bpf_obj_elf_symbols(struct bpf_obj *obj)
{
    struct bpf_obj_priv *P = obj->priv;
    size_t symtab = 0;
    for (size_t i = 1; i < P->n_secs; i++) {
        if (P->secs[i].sh.sh_type == SHT_SYMTAB) {
            if (symtab)
                return bpf_obj_fail(P, "more than one symbol table");
            symtab = i;
        }
    }
    if (!symtab)
        return bpf_obj_fail(P, "no symbol table (was the object stripped?)");
    const struct sec *st = &P->secs[symtab];
    if (st->sh.sh_link >= P->n_secs || st->sh.sh_entsize != sizeof(Elf64_Sym))
        return bpf_obj_fail(P, "malformed symbol table");
    Elf_Data *d = elf_getdata(elf_getscn(P->elf, symtab), NULL);
    size_t n = st->size / sizeof(Elf64_Sym);
    P->syms = calloc(n ? n : 1, sizeof *P->syms);
    if (!P->syms)
        return bpf_obj_fail(P, "out of memory");
    P->n_syms = n;
    for (size_t i = 0; i < n; i++) {
        if (!gelf_getsym(d, (int)i, &P->syms[i].s))
            return bpf_obj_fail(P, "unreadable symbol %zu", i);
        const char *name = elf_strptr(P->elf, st->sh.sh_link, P->syms[i].s.st_name);
        P->syms[i].name = name ? name : "";
    }
    return 0;
}

int bpf_obj_elf_relocations(struct bpf_obj *obj)
{
    struct bpf_obj_priv *P = obj->priv;
    for (size_t i = 1; i < P->n_secs; i++) {
        const struct sec *r = &P->secs[i];
        if (r->sh.sh_type == SHT_RELA)
            return bpf_obj_fail(P, "section %s: RELA relocations are not produced by the BPF backend", r->name);
        if (r->sh.sh_type != SHT_REL)
            continue;
        if (r->sh.sh_info == 0 || r->sh.sh_info >= P->n_secs)
            return bpf_obj_fail(P, "relocation section %s targets section %u", r->name, r->sh.sh_info);
        struct sec *t = &P->secs[r->sh.sh_info];
        if (t->kind != SEC_PROG && t->kind != SEC_STRUCT_OPS)
            continue;
        if (r->sh.sh_entsize != sizeof(Elf64_Rel) || r->size % sizeof(Elf64_Rel))
            return bpf_obj_fail(P, "malformed relocation section %s", r->name);
        if (t->rels)
            return bpf_obj_fail(P, "section %s has two relocation sections", t->name);
        size_t n = r->size / sizeof(Elf64_Rel);
        t->rels = calloc(n ? n : 1, sizeof *t->rels);
        if (!t->rels)
            return bpf_obj_fail(P, "out of memory");
        Elf_Data *d = elf_getdata(elf_getscn(P->elf, i), NULL);
        for (size_t k = 0; k < n; k++) {
            GElf_Rel rel;
            if (!gelf_getrel(d, (int)k, &rel))
                return bpf_obj_fail(P, "%s: unreadable relocation %zu", r->name, k);
            uint32_t sym = (uint32_t)GELF_R_SYM(rel.r_info);
            if (sym == 0 || sym >= P->n_syms)
                return bpf_obj_fail(P, "%s: relocation %zu names symbol %u of %zu", r->name, k, sym, P->n_syms);
            t->rels[t->n_rels++] = (struct rel){rel.r_offset, sym, (uint32_t)GELF_R_TYPE(rel.r_info)};
        }
    }
    return 0;
}

int bpf_obj_elf_license(struct bpf_obj *obj)
{
    struct bpf_obj_priv *P = obj->priv;
    for (size_t i = 1; i < P->n_secs; i++) {
        const struct sec *s = &P->secs[i];
        if (strcmp(s->name, "license") == 0 && s->data && s->size)
            snprintf(obj->license, sizeof obj->license, "%.*s", (int)(s->size < 63 ? s->size : 63),
                     (const char *)s->data);
    }
    return 0;
}
