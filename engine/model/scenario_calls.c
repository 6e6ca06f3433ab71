/* task.calls (scenario_calls.h). */
#include "scenario_calls.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const when_names[] = {SC_CALL_WHEN_LIST(SC_ENUM_NAME) NULL};

/* The variables an argument may name, and where each is in struct sc_call_vars. */
static const struct {
    const char *name;
    size_t off;
} vars[] = {
    {"${pid}", offsetof(struct sc_call_vars, pid)},         {"${hClient}", offsetof(struct sc_call_vars, hclient)},
    {"${hTSG}", offsetof(struct sc_call_vars, htsg)},       {"${tsg_id}", offsetof(struct sc_call_vars, tsg_id)},
    {"${context}", offsetof(struct sc_call_vars, context)},
};

static int var_index(const char *s)
{
    for (size_t i = 0; i < sizeof vars / sizeof *vars; i++)
        if (strcmp(s, vars[i].name) == 0)
            return (int)i;
    return -1;
}

static int read_arg(struct yctx *c, const struct ynode *v, char out[24])
{
    if (yexpect(c, v, YNODE_SCALAR, "task.calls argument"))
        return -1;
    if (strncmp(v->scalar, "${", 2) == 0) {
        if (var_index(v->scalar) < 0)
            return yfail(c, v, "task.calls: unknown variable '%s' (known: ${pid}, ${hClient}, ${hTSG}, ${tsg_id}, "
                         "${context})", v->scalar);
    } else {
        char *end;
        (void)strtoull(v->scalar, &end, 0);
        if (!v->scalar[0] || *end || v->scalar[0] == '-')
            return yfail(c, v, "task.calls: argument '%s' is neither a number nor a ${variable}", v->scalar);
    }
    if (strlen(v->scalar) >= 24)
        return yfail(c, v, "task.calls: argument '%s' is too long", v->scalar);
    snprintf(out, 24, "%s", v->scalar);
    return 0;
}

static int read_call(struct yctx *c, const struct ynode *n, struct sc_call *call)
{
    if (yexpect(c, n, YNODE_MAP, "task.calls entry ({func: LIB:FUNC, when: ..., args: [...]})"))
        return -1;
    const struct ynode *func = NULL, *when = NULL, *args = NULL;
    for (size_t i = 0; i < n->count; i++) {
        const char *k = n->keys[i]->scalar;
        const struct ynode **slot = strcmp(k, "func") == 0 ? &func : strcmp(k, "when") == 0 ? &when
                                    : strcmp(k, "args") == 0 ? &args : NULL;
        if (!slot)
            return yfail(c, n->keys[i], "task.calls: unknown key '%s' (known: func, when, args)", k);
        *slot = n->items[i];
    }
    if (!func || !when)
        return yfail(c, n, "task.calls entry needs 'func' (LIB:FUNC) and 'when'");
    char fn[sizeof call->lib + sizeof call->func];
    if (yread_str(c, func, "task.calls.func", true, fn, sizeof fn))
        return -1;
    const char *colon = strrchr(fn, ':');
    if (!colon || colon == fn || !colon[1] || (size_t)(colon - fn) >= sizeof call->lib ||
        strlen(colon + 1) >= sizeof call->func)
        return yfail(c, func, "task.calls.func '%s' is not LIBRARY:FUNCTION", fn);
    memcpy(call->lib, fn, (size_t)(colon - fn));
    call->lib[colon - fn] = '\0';
    snprintf(call->func, sizeof call->func, "%s", colon + 1);
    int w;
    if (yread_enum(c, when, "task.calls.when", when_names, &w))
        return -1;
    call->when = (enum sc_call_when)w;
    if (!args)
        return 0;
    if (yexpect(c, args, YNODE_SEQ, "task.calls.args (a list)"))
        return -1;
    if (args->count > 6)
        return yfail(c, args, "task.calls.args: at most 6 (the argument registers)");
    for (size_t i = 0; i < args->count; i++)
        if (read_arg(c, args->items[i], call->args[i]))
            return -1;
    call->nargs = (uint32_t)args->count;
    return 0;
}

int scenario_task_calls(struct yctx *c, const struct ynode *n, void *task)
{
    struct sc_task *t = task;
    if (yexpect(c, n, YNODE_SEQ, "task.calls (a list)"))
        return -1;
    if (n->count > SC_MAX_CALLS)
        return yfail(c, n, "task.calls: at most %d calls", SC_MAX_CALLS);
    for (size_t i = 0; i < n->count; i++)
        if (read_call(c, n->items[i], &t->calls[i]))
            return -1;
    t->call_count = (uint32_t)n->count;
    return 0;
}

void sc_call_regs(const struct sc_call *call, const struct sc_call_vars *v, uint64_t regs[6])
{
    for (uint32_t i = 0; i < 6; i++) {
        regs[i] = 0;
        if (i >= call->nargs)
            continue;
        int k = var_index(call->args[i]);
        if (k >= 0)
            memcpy(&regs[i], (const char *)v + vars[k].off, sizeof regs[i]);
        else
            regs[i] = strtoull(call->args[i], NULL, 0);
    }
}
