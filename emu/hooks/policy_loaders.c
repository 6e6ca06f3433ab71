/*
 * The policy kinds, one row each (hooks.h: struct policy_loader). Lookup, loading, checking, the policy
 * command and the scenario schema walk this table, so a new kind is a row here plus its code.
 */
#include <string.h>

#include "bpf/bpf_policy.h"
#include "hooks/hooks.h"
#include "hooks/policy_loader_rows.h"

const struct arg_spec hooks_plugin_args[] = {
    {.name = "", .type = ARG_PAIR, .help = "a KEY=VALUE pair for the plugin's init (scenario policy.args)"},
    {.name = NULL},
};

/* Row order is lookup order: a bare NAME finds NAME.so before NAME.bpf.o. */
static const struct policy_loader loaders[] = {
    /* a shared object: any file no other row claims, judged by dlopen at load */
    {.name = "plugin", .suffix = ".so", .probe = NULL, .args = hooks_plugin_args, .attach = hooks_attach_plugin,
     .check = hooks_check_plugin_elf},
    /* a gpu_ext struct_ops object, run by emu/bpf; checked by a load, which runs none of its code natively */
    {.name = "bpf", .suffix = ".bpf.o", .probe = bpf_policy_is_object, .args = bpf_policy_args,
     .attach = hooks_attach_bpf, .check = NULL},
};

const struct policy_loader *hooks_policy_loaders(size_t *count)
{
    *count = sizeof loaders / sizeof loaders[0];
    return loaders;
}

const struct policy_loader *hooks_policy_loader_for(const char *path)
{
    const struct policy_loader *fallback = NULL;
    for (size_t i = 0; i < sizeof loaders / sizeof loaders[0]; i++) {
        if (!loaders[i].probe)
            fallback = fallback ? fallback : &loaders[i];
        else if (loaders[i].probe(path))
            return &loaders[i];
    }
    return fallback;
}

const struct policy_loader *hooks_policy_loader_named(const char *name)
{
    for (size_t i = 0; i < sizeof loaders / sizeof loaders[0]; i++)
        if (name && strcmp(loaders[i].name, name) == 0)
            return &loaders[i];
    return NULL;
}

int hooks_policy_args_parse(const char *path, const char *const *words, int nwords, struct arg_list *out,
                            char *err, size_t errlen)
{
    if (nwords <= 0)
        return 0;
    const struct policy_loader *kind = hooks_policy_loader_for(path);
    for (int i = 0; i < nwords; i++)
        if (arg_list_parse(out, kind->args, words[i], err, errlen))
            return -1;
    return 0;
}
