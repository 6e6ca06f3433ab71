/*
 * The external-task protocol (scenarios/README.md, `tasks[].process`): what
 * a task process of its own and the scenario runner agree on, and nothing
 * else, so that a task needs no emulator header (installed with the public
 * headers: a task built elsewhere includes it too).
 *
 * The runner gives each replica these variables:
 *   NVEMU_MOUNT              where the daemon serves the nodes (else /dev)
 *   NVEMU_SCENARIO_INSTANCE  instance id its request marks carry (a)
 *   NVEMU_SCENARIO_END_NS    virtual end of the run: no wait goes past it
 *   NVEMU_SCENARIO_READY_FD  one byte is written here once the context
 *                            exists and the process is a registered participant;
 *                            then a WL_SLEEP until 0 waits for the start (the
 *                            process's turn, once all are ready)
 *   NVEMU_SCENARIO_COMM      process name to take (policies classify by it)
 * The task reports its requests with marks (the workload escape's mark
 * record, a = instance, b = request number or the value named below); the
 * runner's own synthetic tasks trace the same names, and the analyzer reads
 * both alike.
 */
#ifndef NVEMU_SCENARIO_TASK_H
#define NVEMU_SCENARIO_TASK_H

#define SC_ENV_MOUNT "NVEMU_MOUNT"
#define SC_ENV_INSTANCE "NVEMU_SCENARIO_INSTANCE"
#define SC_ENV_END_NS "NVEMU_SCENARIO_END_NS"
#define SC_ENV_READY_FD "NVEMU_SCENARIO_READY_FD"
#define SC_ENV_COMM "NVEMU_SCENARIO_COMM"

/* Names of the request marks: a = instance, b = request number (or TSG id / 0). */
#define SC_MARK_ARRIVE "req_arrive"
#define SC_MARK_DONE "req_done"
#define SC_MARK_FAIL "req_fail"       /* a request the bench reports as failed (fault) */
#define SC_MARK_OPEN "req_open"       /* still in flight when the run ended */
#define SC_MARK_TSG "inst_tsg"        /* b = hardware id of the instance's compute TSG */

#endif
