/*
 * task.calls: the user functions a task's process calls, where a policy's
 * uprobes see them (a bridge library's markers, a scope around the context).
 *   calls:
 *     - {func: "libbridge.so:scope_enter", when: before_context, args: [1]}
 *     - {func: "libbridge.so:register", when: after_context, args: ["${context}", "${hClient}", "${hTSG}", 1]}
 * when: before_context (before its context is created), after_context (with the context's real handles),
 * request (at every request's arrival), exit (as the process ends).
 */
#ifndef NVEMU_SCENARIO_CALLS_H
#define NVEMU_SCENARIO_CALLS_H

#include <stdint.h>

#include "scenario.h"
#include "yaml/yschema.h"

/* The YAML reader of task.calls (a YF_CUSTOM field on struct sc_task). */
int scenario_task_calls(struct yctx *c, const struct ynode *n, void *task);

/* The task's real objects a call's arguments name (0 before the context exists). */
struct sc_call_vars {
    uint64_t pid, hclient, htsg, tsg_id, context;
};

/* The argument registers of a call: numbers as written, ${NAME} from vars, the rest 0. */
void sc_call_regs(const struct sc_call *call, const struct sc_call_vars *vars, uint64_t regs[6]);

#endif
