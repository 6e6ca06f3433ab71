/*
 * Load-time checks beyond the loader's (bpf_policy_internal.h): which driver generation loads the
 * object, kfuncs called from a callback whose ctx they do not take, and the interpreter's load-time
 * check and verifier over every program that runs.
 */
#include "bpf/bpf_policy_internal.h"

#include <stdio.h>
#include <string.h>

/* What a program is called in messages: its ops member, or its program type and target. */
const char *bpf_policy_prog_role(const struct bpf_obj_prog *p, char *buf, size_t len)
{
    if (p->member >= 0)
        return bpf_abi_member_name((enum bpf_abi_member)p->member);
    snprintf(buf, len, "%s%s%s", bpf_attach_kind_name(p->kind), p->target[0] ? " on " : "", p->target);
    return buf;
}

/* The kernel's license_is_gpl_compatible(). */
static bool license_is_gpl(const char *l)
{
    static const char *const gpl[] = {"GPL", "GPL v2", "GPL and additional rights", "Dual BSD/GPL", "Dual MIT/GPL",
                                      "Dual MPL/GPL"};
    for (size_t i = 0; i < sizeof gpl / sizeof gpl[0]; i++)
        if (strcmp(l, gpl[i]) == 0)
            return true;
    return false;
}

int bpf_policy_check_object(const struct bpf_obj *obj, const struct bpf_vm_env *env, char *err, size_t errlen)
{
    for (uint32_t i = 0; i < obj->n_progs; i++) {
        const struct bpf_obj_prog *p = &obj->progs[i];
        if (!bpf_obj_prog_runs(p))
            continue;
        for (int k = 0; k < BPF_NV_KFUNC_COUNT; k++) {
            if (!(p->kfuncs_used & (1u << k)) || bpf_policy_kfunc_member[k] < 0 ||
                bpf_policy_kfunc_member[k] == p->member)
                continue;
            char role[200];
            bpf_policy_prog_role(p, role, sizeof role);
            snprintf(err, errlen, "%s: program %s (%s) calls %s, which takes struct %s; %s gets %s%s", obj->path,
                     p->name, role, bpf_nv_kfuncs[k].name,
                     bpf_abi_ctx_name((enum bpf_abi_member)bpf_policy_kfunc_member[k]), role,
                     p->member >= 0 ? "struct " : "",
                     p->member >= 0 ? bpf_abi_ctx_name((enum bpf_abi_member)p->member)
                                    : p->kind == BPF_ATTACH_TRACEPOINT ? "its tracepoint record" : "struct pt_regs");
            return -1;
        }
        struct bpf_fault why;
        memset(&why, 0, sizeof why);
        if (bpf_vm_check(env, &p->prog, true, &why) ||
            bpf_vm_verify(env, &p->prog, license_is_gpl(obj->license), &why)) {
            char f[512];
            snprintf(err, errlen, "%.200s: refused at load: %s", obj->path, bpf_fault_format(&why, f, sizeof f));
            return -1;
        }
    }
    return 0;
}

/* What of the object decides which driver generations load it. */
static int collect_use(const struct bpf_obj *obj, struct bpf_abi_use *u, char *err, size_t errlen)
{
    memset(u, 0, sizeof *u);
    uint32_t kf = 0;
    for (uint32_t i = 0; i < obj->n_progs; i++) {
        const struct bpf_obj_prog *p = &obj->progs[i];
        if (!bpf_obj_prog_runs(p))
            continue;
        kf |= p->kfuncs_used;
        if (p->member < 0)
            continue;
        u->members |= 1u << p->member;
        if (bpf_vm_ctx_reach(&p->prog, &u->ctx_reach[p->member], &u->ctx_reach_insn[p->member])) {
            snprintf(err, errlen, "out of memory");
            return -1;
        }
    }
    for (int k = 0; k < BPF_NV_KFUNC_COUNT; k++)
        if (kf & (1u << k)) {
            u->kfuncs[u->n_kfuncs].name = bpf_nv_kfuncs[k].name;
            u->kfuncs[u->n_kfuncs++].declared = obj->kfunc_declared[k];
        }
    return 0;
}

/*
 * Opens the object for a driver generation: the requested one (want), or the newest whose driver
 * loads it. The object is opened once against every kfunc to learn what it uses, then again against
 * the chosen generation's kfuncs (a weak kfunc's presence is that driver's).
 */
struct bpf_obj *bpf_policy_open_for_driver(const char *path, enum bpf_abi_gen want, char *err, size_t errlen)
{
    struct bpf_obj *obj = bpf_obj_open_file(path, bpf_nv_kfuncs, BPF_NV_KFUNC_COUNT, err, errlen);
    if (!obj)
        return NULL;
    struct bpf_abi_use u;
    if (collect_use(obj, &u, err, errlen)) {
        bpf_obj_close(obj);
        return NULL;
    }
    char why[BPF_ABI_GEN_NEWEST + 1][384];
    uint32_t fits = 0;
    for (int g = BPF_ABI_K1; g <= BPF_ABI_GEN_NEWEST; g++)
        if (bpf_abi_gen_refuses((enum bpf_abi_gen)g, &u, why[g], sizeof why[g]) == 0)
            fits |= 1u << g;
    enum bpf_abi_gen pick = want;
    for (int g = BPF_ABI_GEN_NEWEST; !want && g >= BPF_ABI_K1; g--)
        if ((fits & (1u << g)) && !pick)
            pick = (enum bpf_abi_gen)g;
    if (!pick || !(fits & (1u << pick))) {
        if (want) {
            snprintf(err, errlen, "%.200s: the gpu_ext %s driver refuses it: %s", path, bpf_abi_gen_name(want),
                     why[want]);
        } else {
            int w = snprintf(err, errlen, "%.200s: no gpu_ext driver generation loads it:", path);
            for (int g = BPF_ABI_GEN_NEWEST; g >= BPF_ABI_K1 && w > 0 && (size_t)w < errlen; g--)
                w += snprintf(err + w, errlen - (size_t)w, "\n  %s: %s", bpf_abi_gen_name((enum bpf_abi_gen)g),
                              why[g]);
        }
        bpf_obj_close(obj);
        return NULL;
    }
    if (pick != BPF_ABI_K4) {
        bpf_obj_close(obj);
        obj = bpf_obj_open_file(path, bpf_policy_kfuncs_of(pick), BPF_NV_KFUNC_COUNT, err, errlen);
        if (!obj)
            return NULL;
    }
    obj->target = pick;
    obj->target_fits = fits;
    return obj;
}

struct bpf_obj *bpf_policy_check_for(const char *path, enum bpf_abi_gen driver, char *err, size_t errlen)
{
    struct bpf_obj *obj = bpf_policy_open_for_driver(path, driver, err, errlen);
    if (!obj)
        return NULL;
    uint64_t prng = 1;
    struct bpf_vm_env env = bpf_policy_check_env;
    env.kfuncs = bpf_policy_kfuncs_of(obj->target);
    env.prng_state = &prng;
    if (bpf_policy_check_object(obj, &env, err, errlen)) {
        bpf_obj_close(obj);
        return NULL;
    }
    return obj;
}

struct bpf_obj *bpf_policy_check(const char *path, char *err, size_t errlen)
{
    return bpf_policy_check_for(path, BPF_ABI_GEN_NONE, err, errlen);
}
