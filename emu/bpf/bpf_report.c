/*
 * Text views of a loaded object (bpf_report.h). Reads only what the loader
 * recorded; prints helper names through the interpreter's table.
 */
#include "bpf/bpf_report.h"

#include <inttypes.h>
#include <string.h>

#include "bpf/bpf_obj.h"
#include "bpf/bpf_policy.h"

static const char *map_type_name(uint32_t type)
{
    static const struct {
        uint32_t type;
        const char *name;
    } names[] = {
        {BPF_MAP_TYPE_HASH, "HASH"}, {BPF_MAP_TYPE_ARRAY, "ARRAY"}, {BPF_MAP_TYPE_PERCPU_HASH, "PERCPU_HASH"},
        {BPF_MAP_TYPE_PERCPU_ARRAY, "PERCPU_ARRAY"}, {BPF_MAP_TYPE_LRU_HASH, "LRU_HASH"},
        {BPF_MAP_TYPE_RINGBUF, "RINGBUF"},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (names[i].type == type)
            return names[i].name;
    return "?";
}

static const char *map_kind_name(enum bpf_obj_map_kind k)
{
    static const char *const names[] = {[BPF_OBJ_MAP_USER] = "map", [BPF_OBJ_MAP_RODATA] = "global data, read-only",
                                        [BPF_OBJ_MAP_DATA] = "global data", [BPF_OBJ_MAP_BSS] = "global data, zeroed"};
    return names[k];
}

static void print_maps(const struct bpf_obj *obj, FILE *out)
{
    fprintf(out, "maps:\n");
    for (uint32_t i = 0; i < obj->n_maps; i++) {
        const struct bpf_obj_map *m = &obj->maps[i];
        fprintf(out, "  %-20s %-12s key %u%s value %u max_entries %u flags 0x%x (%s)\n", m->name,
                map_type_name(m->def.type), m->def.key_size, m->key_is_string ? " (string)" : "", m->def.value_size,
                m->def.max_entries, m->def.map_flags, map_kind_name(m->kind));
    }
}

static void print_vars(const struct bpf_obj *obj, FILE *out)
{
    if (!obj->n_vars)
        return;
    fprintf(out, "global variables:\n");
    for (uint32_t i = 0; i < obj->n_vars; i++) {
        const struct bpf_obj_var *v = &obj->vars[i];
        uint32_t size = 0;
        const uint8_t *base = bpf_map_value_base(obj->maps[v->map].map, &size);
        fprintf(out, "  %-20s %s+%u (%u bytes)", v->name, obj->maps[v->map].name, v->offset, v->size);
        if (base && v->offset <= size && v->size <= size - v->offset && v->size && v->size <= 8) {
            uint64_t x = 0;
            for (uint32_t b = 0; b < v->size; b++)
                x |= (uint64_t)base[v->offset + b] << (8 * b);
            fprintf(out, " = %" PRIu64, x);
        }
        fputc('\n', out);
    }
}

static void print_callbacks(const struct bpf_obj *obj, FILE *out)
{
    if (!obj->ops_var[0]) {
        fprintf(out, "ABI: no struct_ops instance: probes alone (every hook takes the native path)\n");
    } else {
        fprintf(out, "ABI: struct nv_gpu_sched_ops (%s) instance '%s' in %s\n",
                obj->ops_abi == BPF_ABI_OPS_CURRENT ? "4 members, 32 bytes" : "3 members, without on_timeslice_control",
                obj->ops_var, obj->ops_section);
        fprintf(out, "built for gpu_ext driver ABI %s (%s); loads on", bpf_abi_gen_name(obj->built_for),
                obj->built_for_why);
        const char *sep = " ";
        for (int g = BPF_ABI_K1; g <= BPF_ABI_GEN_NEWEST; g++)
            if (obj->target_fits & (1u << g)) {
                fprintf(out, "%s%s", sep, bpf_abi_gen_name((enum bpf_abi_gen)g));
                sep = ", ";
            }
        fprintf(out, "; runs as %s\n", bpf_abi_gen_name(obj->target));
    }
    fprintf(out, "callbacks:\n");
    for (int m = 0; m < BPF_ABI_MEMBER_COUNT; m++) {
        int pi = obj->member_prog[m];
        if (pi < 0) {
            fprintf(out, "  %-22s (none: native behaviour)\n", bpf_abi_member_name((enum bpf_abi_member)m));
            continue;
        }
        const struct bpf_obj_prog *p = &obj->progs[pi];
        fprintf(out, "  %-22s %s (%s, %u instructions, ctx struct %s %u bytes read-only)\n",
                bpf_abi_member_name((enum bpf_abi_member)m), p->name, p->section, p->prog.n,
                bpf_abi_ctx_name((enum bpf_abi_member)m),
                bpf_abi_gen_ctx_size(obj->target, (enum bpf_abi_member)m));
    }
    for (uint32_t i = 0; i < obj->n_progs; i++) {
        const struct bpf_obj_prog *p = &obj->progs[i];
        if (!bpf_obj_prog_is_probe(p))
            continue;
        char at[200];
        snprintf(at, sizeof at, "%s %s", bpf_attach_kind_name(p->kind), p->target[0] ? p->target : "(bare)");
        fprintf(out, "  %-22s %s (%s, %u instructions%s, ctx %s read-only)\n", at, p->name, p->section, p->prog.n,
                p->sleepable ? ", sleepable" : "",
                p->kind == BPF_ATTACH_TRACEPOINT ? "its tracepoint record" : "struct pt_regs 168 bytes");
    }
}

static void print_usage(const struct bpf_obj *obj, FILE *out)
{
    uint32_t kf = 0;
    uint32_t helpers[64];
    uint32_t nh = 0;
    for (uint32_t i = 0; i < obj->n_progs; i++) {
        const struct bpf_obj_prog *p = &obj->progs[i];
        if (!bpf_obj_prog_runs(p))
            continue;
        kf |= p->kfuncs_used;
        for (uint32_t k = 0; k < p->n_helpers; k++) {
            bool seen = false;
            for (uint32_t j = 0; j < nh; j++)
                seen |= helpers[j] == p->helpers_used[k];
            if (!seen && nh < 64)
                helpers[nh++] = p->helpers_used[k];
        }
    }
    fprintf(out, "kfuncs:");
    for (int k = 0; k < BPF_NV_KFUNC_COUNT; k++)
        if (kf & (1u << k))
            fprintf(out, " %s", bpf_nv_kfuncs[k].name);
    fprintf(out, "%s\nhelpers:", kf ? "" : " (none)");
    for (uint32_t j = 0; j < nh; j++) {
        const char *n = bpf_helper_name((int32_t)helpers[j]);
        fprintf(out, " %s(%u)%s", n ? n : "unknown", helpers[j],
                bpf_helper_supported((int32_t)helpers[j]) ? "" : " [unsupported]");
    }
    fprintf(out, "%s\n", nh ? "" : " (none)");
}

int bpf_report_check(const char *path, enum bpf_abi_gen driver, FILE *out)
{
    char err[2048];
    struct bpf_obj *obj = bpf_policy_check_for(path, driver, err, sizeof err);
    if (!obj) {
        fprintf(out, "refused: %s\n", err);
        return 1;
    }
    fprintf(out, "object: %s (license %s)\n", obj->path, obj->license[0] ? obj->license : "none");
    print_callbacks(obj, out);
    print_maps(obj, out);
    print_usage(obj, out);
    if (obj->notes[0])
        fprintf(out, "not run:\n  %s\n", obj->notes);
    fprintf(out, "accepted\n");
    bpf_obj_close(obj);
    return 0;
}

void bpf_report_dump(const struct bpf_obj *obj, FILE *out)
{
    fprintf(out, "object: %s (license %s)\n", obj->path, obj->license[0] ? obj->license : "none");
    print_callbacks(obj, out);
    fprintf(out, "programs:\n");
    for (uint32_t i = 0; i < obj->n_progs; i++) {
        const struct bpf_obj_prog *p = &obj->progs[i];
        fprintf(out, "  %-24s %-32s %" PRIu64 " instructions%s%s\n", p->name, p->section, p->size / 8,
                p->sleepable ? ", sleepable" : "",
                p->member >= 0 ? "" : bpf_obj_prog_is_probe(p) ? ", a probe" : ", not bound (not run)");
    }
    print_maps(obj, out);
    print_vars(obj, out);
    print_usage(obj, out);
}

/* "r1 = map[NAME]" / "r1 = map_value[.rodata+8]" instead of host addresses; 0 when insn is not such a load. */
static int map_load_text(const struct bpf_obj *obj, const struct bpf_insn *in, uint32_t avail, char *buf, size_t len)
{
    if (avail < 2 || !bpf_insn_is_wide(in) || (in->src_reg != BPF_PSEUDO_MAP_FD && in->src_reg != BPF_PSEUDO_MAP_VALUE))
        return 0;
    uintptr_t addr = (uintptr_t)bpf_insn_imm64(in);
    for (uint32_t i = 0; i < obj->n_maps; i++) {
        const struct bpf_obj_map *m = &obj->maps[i];
        if (in->src_reg == BPF_PSEUDO_MAP_FD && (uintptr_t)m->map == addr) {
            snprintf(buf, len, "r%u = map[%s]", in->dst_reg, m->name);
            return 2;
        }
        uint32_t size = 0;
        uintptr_t base = (uintptr_t)bpf_map_value_base(m->map, &size);
        if (in->src_reg == BPF_PSEUDO_MAP_VALUE && base && addr >= base && addr - base < size) {
            snprintf(buf, len, "r%u = map_value[%s+%lu]", in->dst_reg, m->name, (unsigned long)(addr - base));
            return 2;
        }
    }
    return 0;
}

void bpf_report_disasm(const struct bpf_obj *obj, FILE *out)
{
    for (uint32_t i = 0; i < obj->n_progs; i++) {
        const struct bpf_obj_prog *p = &obj->progs[i];
        if (!bpf_obj_prog_runs(p))
            continue;
        fprintf(out, "%s: program %s (%s)\n",
                p->member >= 0 ? bpf_abi_member_name((enum bpf_abi_member)p->member) : "uprobe cuLaunchKernel",
                p->name, p->section);
        uint32_t last_line = 0;
        for (uint32_t pc = 0; pc < p->prog.n;) {
            const struct bpf_line *l = bpf_obj_line(&p->prog, pc);
            if (l && l->insn == pc && l->line != last_line) {
                fprintf(out, "; %s:%u: %s\n", l->file ? l->file : "?", l->line, l->src ? l->src : "");
                last_line = l->line;
            }
            char text[128];
            int used = map_load_text(obj, &p->prog.insns[pc], p->prog.n - pc, text, sizeof text);
            if (!used)
                used = bpf_disasm(&p->prog.insns[pc], p->prog.n - pc, text, sizeof text);
            const struct bpf_insn *in = &p->prog.insns[pc];
            const char *note = "";
            if (in->code == (BPF_JMP | BPF_CALL) && in->src_reg == BPF_PSEUDO_KFUNC_CALL && in->imm >= 0 &&
                in->imm < BPF_NV_KFUNC_COUNT)
                note = bpf_nv_kfuncs[in->imm].name;
            fprintf(out, "%5u: %s%s%s\n", pc, text, note[0] ? "  ; " : "", note);
            pc += used > 0 ? (uint32_t)used : 1;
        }
        fputc('\n', out);
    }
}
