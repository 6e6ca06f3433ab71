/*
 * The loader's struct_ops phase (bpf_obj_internal.h): the ops instance's BTF checked against the
 * layouts nvemu emulates (bpf_abi.h), and its members bound to programs by their R_BPF_64_ABS64
 * relocations, as libbpf binds them; an object of probes alone has no instance.
 */
#include "bpf/bpf_obj_internal.h"

#include <bpf/btf.h>
#include <stdio.h>
#include <string.h>

/* The program whose function starts at byte off of section shndx, or -1. */
static int prog_at(const struct bpf_obj *obj, size_t shndx, uint64_t off)
{
    const struct bpf_obj_priv *P = obj->priv;
    for (size_t i = 0; i < P->n_syms; i++) {
        const struct sym *sy = &P->syms[i];
        if (GELF_ST_TYPE(sy->s.st_info) == STT_FUNC && sy->s.st_shndx == shndx && sy->s.st_value == off) {
            for (uint32_t k = 0; k < obj->n_progs; k++)
                if (strcmp(obj->progs[k].name, sy->name) == 0 &&
                    strcmp(obj->progs[k].section, P->secs[shndx].name) == 0)
                    return (int)k;
        }
    }
    return -1;
}

int bpf_obj_struct_ops_bind(struct bpf_obj *obj)
{
    struct bpf_obj_priv *P = obj->priv;
    for (int m = 0; m < BPF_ABI_MEMBER_COUNT; m++)
        obj->member_prog[m] = -1;
    size_t ops_sec = 0, ops_sym = 0;
    int instances = 0;
    for (size_t i = 0; i < P->n_syms; i++) {
        const struct sym *sy = &P->syms[i];
        if (sy->s.st_shndx == SHN_UNDEF || sy->s.st_shndx >= P->n_secs ||
            P->secs[sy->s.st_shndx].kind != SEC_STRUCT_OPS || GELF_ST_TYPE(sy->s.st_info) != STT_OBJECT)
            continue;
        instances++;
        ops_sec = sy->s.st_shndx;
        ops_sym = i;
    }
    bool probes = false;
    for (uint32_t i = 0; i < obj->n_progs; i++)
        probes |= bpf_obj_prog_is_probe(&obj->progs[i]);
    if (instances == 0 && probes)
        return 0;
    if (instances == 0)
        return bpf_obj_fail(P, "no struct_ops instance (a global `struct nv_gpu_sched_ops` in SEC(\".struct_ops\") "
                               "or SEC(\".struct_ops.link\")) and no probe program");
    if (instances > 1)
        return bpf_obj_fail(P, "%d struct_ops instances; nvemu attaches one ops instance at a time, as the driver",
                            instances);
    const struct sym *os = &P->syms[ops_sym];
    const struct sec *s = &P->secs[ops_sec];
    snprintf(obj->ops_var, sizeof obj->ops_var, "%s", os->name);
    snprintf(obj->ops_section, sizeof obj->ops_section, "%s", s->name);
    int var = btf__find_by_name_kind(P->btf, os->name, BTF_KIND_VAR);
    if (var <= 0)
        return bpf_obj_fail(P, "struct_ops instance %s has no BTF description", os->name);
    char abi[768];
    if (bpf_abi_check_ops(P->btf, btf__type_by_id(P->btf, (uint32_t)var)->type, &obj->ops_abi, abi, sizeof abi))
        return bpf_obj_fail(P, "ABI mismatch in struct_ops instance %s:\n%s", os->name, abi);
    obj->built_for = bpf_abi_built_for(P->btf, btf__type_by_id(P->btf, (uint32_t)var)->type, obj->built_for_why,
                                       sizeof obj->built_for_why);
    uint64_t ops_size = obj->ops_abi == BPF_ABI_OPS_THREE_MEMBER ? 24 : 32;
    if (os->s.st_value > s->size || s->size - os->s.st_value < ops_size)
        return bpf_obj_fail(P, "struct_ops instance %s lies outside %s", os->name, s->name);
    const uint8_t *inst = s->data ? s->data + os->s.st_value : NULL;
    for (size_t r = 0; r < s->n_rels; r++) {
        const struct rel *rl = &s->rels[r];
        if (rl->off < os->s.st_value || rl->off - os->s.st_value >= ops_size)
            continue;
        uint32_t moff = (uint32_t)(rl->off - os->s.st_value);
        int mem = bpf_abi_member_at(moff);
        if (mem < 0 || rl->type != R_BPF_64_ABS64)
            return bpf_obj_fail(P, "%s: relocation type %u at byte %u of %s is not a member binding", s->name, rl->type,
                                moff, os->name);
        const struct sym *fs = &P->syms[rl->sym];
        if (fs->s.st_shndx == SHN_UNDEF || fs->s.st_shndx >= P->n_secs || P->secs[fs->s.st_shndx].kind != SEC_PROG)
            return bpf_obj_fail(P, "%s.%s is bound to '%s', which is not a program", os->name,
                                bpf_abi_member_name((enum bpf_abi_member)mem), fs->name);
        uint64_t addend = 0;
        if (inst)
            memcpy(&addend, inst + moff, sizeof addend);
        uint64_t foff = fs->s.st_value + (GELF_ST_TYPE(fs->s.st_info) == STT_SECTION ? addend : 0);
        int pi = prog_at(obj, fs->s.st_shndx, foff);
        if (pi < 0)
            return bpf_obj_fail(P, "%s.%s is bound to byte %llu of %s, where no global program starts", os->name,
                                bpf_abi_member_name((enum bpf_abi_member)mem), (unsigned long long)foff,
                                P->secs[fs->s.st_shndx].name);
        struct bpf_obj_prog *p = &obj->progs[pi];
        if (!p->struct_ops)
            return bpf_obj_fail(P, "%s.%s is bound to program %s in section %s, not a struct_ops/ section", os->name,
                                bpf_abi_member_name((enum bpf_abi_member)mem), p->name, p->section);
        if (p->member >= 0)
            return bpf_obj_fail(P, "program %s is bound to two members (%s and %s)", p->name,
                                bpf_abi_member_name((enum bpf_abi_member)p->member),
                                bpf_abi_member_name((enum bpf_abi_member)mem));
        p->member = mem;
        obj->member_prog[mem] = pi;
    }
    /* the remaining members must be NULL: nvemu binds programs by relocation only */
    for (int m = 0; inst && m < (int)(ops_size / 8); m++) {
        uint64_t v;
        memcpy(&v, inst + m * 8, sizeof v);
        if (obj->member_prog[m] < 0 && v != 0)
            return bpf_obj_fail(P, "%s.%s holds a value but no program relocation", os->name,
                                bpf_abi_member_name((enum bpf_abi_member)m));
    }
    bool any = false;
    for (int m = 0; m < BPF_ABI_MEMBER_COUNT; m++)
        any |= obj->member_prog[m] >= 0;
    if (!any)
        return bpf_obj_fail(P, "struct_ops instance %s binds no callback", os->name);
    for (uint32_t i = 0; i < obj->n_progs; i++)
        if (!bpf_obj_prog_runs(&obj->progs[i]))
            bpf_obj_note(obj, "program %s (section %s) is neither an ops member nor a probe: not run by nvemu",
                         obj->progs[i].name, obj->progs[i].section);
    return 0;
}
