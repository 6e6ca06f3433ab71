/*
 * The loader's link phase (bpf_obj_internal.h): each program that runs gets its own instructions,
 * its function first, then every subprogram it reaches, with relocations applied (maps, global
 * data, kfunc calls and weak kfunc presence, BPF-to-BPF calls), its line info, the struct_ops args
 * rewrite (bpf_obj_args.c) and the helpers and kfuncs it calls.
 */
#include "bpf/bpf_obj_internal.h"

#include <bpf/btf.h>
#include <stdlib.h>
#include <string.h>

/* Extent of the function starting at byte off of section sec (its STT_FUNC symbol), or -1. */
static int func_extent(const struct bpf_obj_priv *P, size_t sec, uint64_t off, uint64_t *end)
{
    for (size_t i = 0; i < P->n_syms; i++) {
        const struct sym *sy = &P->syms[i];
        if (GELF_ST_TYPE(sy->s.st_info) == STT_FUNC && sy->s.st_shndx == sec && sy->s.st_value == off &&
            sy->s.st_size && sy->s.st_size <= P->secs[sec].size - off && sy->s.st_size % INSN_SZ == 0) {
            *end = off + sy->s.st_size;
            return 0;
        }
    }
    return -1;
}

/* Appends the function at (sec, off) unless already linked; its first instruction index in *dest. */
static int link_func(struct linker *L, size_t sec, uint64_t off, uint32_t *dest)
{
    struct bpf_obj_priv *P = L->obj->priv;
    for (uint32_t i = 0; i < L->n_funcs; i++) {
        if (L->funcs[i].sec == sec && L->funcs[i].start == off) {
            *dest = L->funcs[i].dest;
            return 0;
        }
    }
    uint64_t end;
    if (off % INSN_SZ || off >= P->secs[sec].size || func_extent(P, sec, off, &end))
        return bpf_obj_fail(P, "program %s calls byte %llu of %s, where no function starts", L->prog->name,
                            (unsigned long long)off, P->secs[sec].name);
    uint64_t count = (end - off) / INSN_SZ;
    if ((uint64_t)L->n + count > BPF_VM_MAX_INSNS)
        return bpf_obj_fail(P, "program %s: more than %u instructions", L->prog->name, BPF_VM_MAX_INSNS);
    if (L->n_funcs == L->cap_funcs) {
        uint32_t cap = L->cap_funcs ? L->cap_funcs * 2 : 8;
        struct func *f = realloc(L->funcs, cap * sizeof *f);
        if (!f)
            return bpf_obj_fail(P, "out of memory");
        L->funcs = f;
        L->cap_funcs = cap;
    }
    struct bpf_insn *ni = realloc(L->insns, (L->n + count) * sizeof *ni);
    if (!ni)
        return bpf_obj_fail(P, "out of memory");
    L->insns = ni;
    memcpy(L->insns + L->n, P->secs[sec].data + off, count * INSN_SZ);
    L->funcs[L->n_funcs++] = (struct func){sec, off, end, L->n};
    *dest = L->n;
    L->n += (uint32_t)count;
    return 0;
}

static void set_imm64(struct bpf_insn *insn, uint64_t v)
{
    insn[0].imm = (int32_t)(uint32_t)v;
    insn[1].imm = (int32_t)(uint32_t)(v >> 32);
}

static bool is_weak_ksym(const struct bpf_obj_priv *P, const struct sym *sy)
{
    (void)P;
    return GELF_ST_BIND(sy->s.st_info) == STB_WEAK;
}

static int reloc_one(struct linker *L, const struct func *f, const struct rel *r)
{
    struct bpf_obj *obj = L->obj;
    struct bpf_obj_priv *P = obj->priv;
    const char *pn = L->prog->name;
    uint32_t idx = f->dest + (uint32_t)((r->off - f->start) / INSN_SZ);
    if ((r->off - f->start) % INSN_SZ)
        return bpf_obj_fail(P, "program %s: relocation at byte %llu is inside an instruction", pn,
                            (unsigned long long)r->off);
    struct bpf_insn *in = &L->insns[idx];
    const struct sym *sy = &P->syms[r->sym];
    bool undef = sy->s.st_shndx == SHN_UNDEF;
    const struct sec *ts = !undef && sy->s.st_shndx < P->n_secs ? &P->secs[sy->s.st_shndx] : NULL;
    if (!undef && !ts)
        return bpf_obj_fail(P, "program %s insn %u: symbol %s in section %u", pn, idx, sy->name, sy->s.st_shndx);
    if (r->type == R_BPF_64_64) {
        if (!bpf_insn_is_wide(in) || idx + 1 >= L->n || (r->off + INSN_SZ) >= f->end + INSN_SZ)
            return bpf_obj_fail(P, "program %s insn %u: R_BPF_64_64 on an instruction that is not LD_IMM64", pn, idx);
        if (undef) {
            if (!is_weak_ksym(P, sy))
                return bpf_obj_fail(P, "program %s insn %u: address of extern %s (typed ksyms are not supported; "
                                       "declare kfuncs __weak to test their presence)", pn, idx, sy->name);
            bool have = bpf_kfunc_index(P->kfuncs, P->n_kfuncs, sy->name) >= 0;
            in->src_reg = 0;
            set_imm64(in, have ? 1 : 0);
            return 0;
        }
        if (ts->kind == SEC_MAPS) {
            for (uint32_t m = 0; m < obj->n_maps; m++) {
                if (obj->maps[m].kind == BPF_OBJ_MAP_USER && strcmp(obj->maps[m].name, sy->name) == 0) {
                    in->src_reg = BPF_PSEUDO_MAP_FD;
                    set_imm64(in, (uint64_t)(uintptr_t)obj->maps[m].map);
                    return 0;
                }
            }
            return bpf_obj_fail(P, "program %s insn %u: map %s was not created", pn, idx, sy->name);
        }
        if (ts->kind == SEC_DATA) {
            if (ts->map < 0)
                return bpf_obj_fail(P, "program %s insn %u: refers to empty section %s", pn, idx, ts->name);
            uint64_t off = (uint64_t)(uint32_t)in->imm +
                           (GELF_ST_TYPE(sy->s.st_info) == STT_SECTION ? 0 : sy->s.st_value);
            uint32_t size = 0;
            uint8_t *base = bpf_map_value_base(obj->maps[ts->map].map, &size);
            if (!base || off >= size)
                return bpf_obj_fail(P, "program %s insn %u: offset %llu outside %s (%u bytes)", pn, idx,
                                    (unsigned long long)off, ts->name, size);
            in->src_reg = BPF_PSEUDO_MAP_VALUE;
            set_imm64(in, (uint64_t)(uintptr_t)(base + off));
            return 0;
        }
        if (ts->kind == SEC_PROG) {
            uint64_t toff = GELF_ST_TYPE(sy->s.st_info) == STT_SECTION ? (uint64_t)(uint32_t)in->imm : sy->s.st_value;
            uint32_t dest;
            if (link_func(L, sy->s.st_shndx, toff, &dest))
                return -1;
            in = &L->insns[idx];
            in->src_reg = BPF_PSEUDO_FUNC;
            in[0].imm = (int32_t)dest - (int32_t)idx - 1;
            in[1].imm = 0;
            return 0;
        }
        return bpf_obj_fail(P, "program %s insn %u: LD_IMM64 of %s in section %s is not a map, global data or a "
                               "kfunc", pn, idx, sy->name, ts->name);
    }
    if (r->type == R_BPF_64_32) {
        if (in->code != (BPF_JMP | BPF_CALL))
            return bpf_obj_fail(P, "program %s insn %u: R_BPF_64_32 on an instruction that is not a call", pn, idx);
        if (undef) {
            int k = bpf_kfunc_index(P->kfuncs, P->n_kfuncs, sy->name);
            if (k < 0)
                return bpf_obj_fail(P, "program %s insn %u: calls kfunc %s, which the driver does not provide "
                                       "(kfuncs: bpf_nv_gpu_set_timeslice, _set_interleave, _override_timeslice, "
                                       "_reject_bind, _preempt_tsg)", pn, idx, sy->name);
            in->src_reg = BPF_PSEUDO_KFUNC_CALL;
            in->off = 0;
            in->imm = k;
            if (k < 32)
                obj->kfunc_declared[k] = bpf_abi_btf_kfunc_ret(P->btf, sy->name);
            return 0;
        }
        if (ts->kind != SEC_PROG)
            return bpf_obj_fail(P, "program %s insn %u: calls %s, which is not code", pn, idx, sy->name);
        int64_t toff = (int64_t)sy->s.st_value + ((int64_t)in->imm + 1) * INSN_SZ;
        if (toff < 0)
            return bpf_obj_fail(P, "program %s insn %u: call before the start of %s", pn, idx, ts->name);
        uint32_t dest;
        if (link_func(L, sy->s.st_shndx, (uint64_t)toff, &dest))
            return -1;
        in = &L->insns[idx];
        in->src_reg = BPF_PSEUDO_CALL;
        in->imm = (int32_t)dest - (int32_t)idx - 1;
        return 0;
    }
    return bpf_obj_fail(P, "program %s insn %u: relocation type %u is not supported", pn, idx, r->type);
}

static int reloc_func(struct linker *L, uint32_t fi)
{
    struct bpf_obj_priv *P = L->obj->priv;
    struct func f = L->funcs[fi];
    const struct sec *s = &P->secs[f.sec];
    bool *has_rel = calloc((f.end - f.start) / INSN_SZ + 1, sizeof *has_rel);
    if (!has_rel)
        return bpf_obj_fail(P, "out of memory");
    int rc = 0;
    for (size_t i = 0; i < s->n_rels && !rc; i++) {
        const struct rel *r = &s->rels[i];
        if (r->off < f.start || r->off >= f.end)
            continue;
        has_rel[(r->off - f.start) / INSN_SZ] = true;
        rc = reloc_one(L, &f, r);
    }
    /* calls within the section without a relocation are already pc-relative there */
    for (uint64_t off = f.start; off < f.end && !rc; off += INSN_SZ) {
        uint32_t idx = f.dest + (uint32_t)((off - f.start) / INSN_SZ);
        struct bpf_insn *in = &L->insns[idx];
        if (has_rel[(off - f.start) / INSN_SZ] || in->code != (BPF_JMP | BPF_CALL) || in->src_reg != BPF_PSEUDO_CALL)
            continue;
        int64_t toff = (int64_t)off + ((int64_t)in->imm + 1) * INSN_SZ;
        uint32_t dest;
        if (toff < 0) {
            rc = bpf_obj_fail(P, "program %s insn %u: call before the start of %s", L->prog->name, idx, s->name);
            break;
        }
        if (toff >= (int64_t)f.start && toff < (int64_t)f.end) {
            continue;
        }
        rc = link_func(L, f.sec, (uint64_t)toff, &dest);
        if (!rc)
            L->insns[idx].imm = (int32_t)dest - (int32_t)idx - 1;
    }
    free(has_rel);
    return rc;
}

static int cmp_line(const void *a, const void *b)
{
    const struct bpf_line *x = a, *y = b;
    return (x->insn > y->insn) - (x->insn < y->insn);
}

static int link_lines(struct linker *L)
{
    struct bpf_obj_priv *P = L->obj->priv;
    uint32_t total = 0;
    for (uint32_t i = 0; i < L->n_funcs; i++)
        total += P->secs[L->funcs[i].sec].n_lines;
    if (!total)
        return 0;
    L->lines = calloc(total, sizeof *L->lines);
    if (!L->lines)
        return bpf_obj_fail(P, "out of memory");
    for (uint32_t i = 0; i < L->n_funcs; i++) {
        const struct func *f = &L->funcs[i];
        const struct sec *s = &P->secs[f->sec];
        for (uint32_t k = 0; k < s->n_lines; k++) {
            const uint32_t *rec = s->lines + 4 * (size_t)k;
            if (rec[0] < f->start || rec[0] >= f->end)
                continue;
            const char *file = btf__name_by_offset(P->btf, rec[1]);
            const char *src = btf__name_by_offset(P->btf, rec[2]);
            const char *base = file ? strrchr(file, '/') : NULL;
            L->lines[L->n_lines++] = (struct bpf_line){
                .insn = f->dest + (uint32_t)((rec[0] - f->start) / INSN_SZ),
                .line = rec[3] >> 10,
                .col = rec[3] & 0x3ff,
                .file = base ? base + 1 : file,
                .src = src,
            };
        }
    }
    qsort(L->lines, L->n_lines, sizeof *L->lines, cmp_line);
    return 0;
}

static void scan_usage(struct bpf_obj_prog *p)
{
    for (uint32_t i = 0; i < p->prog.n; i++) {
        const struct bpf_insn *in = &p->prog.insns[i];
        if (bpf_insn_is_wide(in)) {
            i++;
            continue;
        }
        if (in->code != (BPF_JMP | BPF_CALL))
            continue;
        if (in->src_reg == BPF_PSEUDO_KFUNC_CALL && in->imm >= 0 && in->imm < 32) {
            p->kfuncs_used |= 1u << in->imm;
        } else if (in->src_reg == 0) {
            uint32_t id = (uint32_t)in->imm, k = 0;
            while (k < p->n_helpers && p->helpers_used[k] < id)
                k++;
            if ((k < p->n_helpers && p->helpers_used[k] == id) || p->n_helpers == 32)
                continue;
            memmove(&p->helpers_used[k + 1], &p->helpers_used[k], (p->n_helpers - k) * sizeof(uint32_t));
            p->helpers_used[k] = id;
            p->n_helpers++;
        }
    }
}

static int link_program(struct bpf_obj *obj, struct bpf_obj_prog *p)
{
    struct bpf_obj_priv *P = obj->priv;
    struct linker L = {.obj = obj, .prog = p};
    uint32_t dest;
    int rc = link_func(&L, p->shndx, p->offset, &dest);
    for (uint32_t fi = 0; !rc && fi < L.n_funcs; fi++)
        rc = reloc_func(&L, fi);
    if (!rc)
        rc = link_lines(&L);
    /* only a struct_ops program gets its ctx through an args array; a uprobe's r1 is pt_regs itself */
    if (!rc && p->struct_ops)
        rc = bpf_obj_args_rewrite(&L);
    free(L.funcs);
    p->prog.name = p->name;
    p->prog.sleepable = p->sleepable;
    p->prog.insns = L.insns;
    p->prog.n = L.n;
    p->prog.lines = L.lines;
    p->prog.n_lines = L.n_lines;
    p->prog.maps = P->map_ptrs;
    p->prog.n_maps = obj->n_maps;
    if (!rc)
        scan_usage(p);
    return rc;
}

int bpf_obj_reloc_programs(struct bpf_obj *obj)
{
    for (uint32_t i = 0; i < obj->n_progs; i++) {
        if (bpf_obj_prog_runs(&obj->progs[i]) && link_program(obj, &obj->progs[i]))
            return -1;
    }
    return 0;
}
