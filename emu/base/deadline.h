/*
 * A wall-clock deadline for the policy code running on this thread: the hook framework sets it around
 * a callback when its emulator limits callbacks (the daemon does), and policy runtimes that can stop
 * part-way (the BPF machine) check it and end the callback with a fault when it has passed.
 */
#ifndef NVEMU_BASE_DEADLINE_H
#define NVEMU_BASE_DEADLINE_H

#include <stdbool.h>
#include <stdint.h>

/* CLOCK_MONOTONIC in nanoseconds. */
uint64_t nvemu_mono_ns(void);

/* Sets this thread's deadline (CLOCK_MONOTONIC ns; 0: none) and returns the one it replaces. */
uint64_t nvemu_deadline_set(uint64_t mono_ns);

/* This thread's deadline, 0 when none. */
uint64_t nvemu_deadline(void);

/* True when this thread has a deadline and it has passed. */
bool nvemu_deadline_passed(void);

#endif
