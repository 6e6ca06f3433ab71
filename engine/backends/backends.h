/*
 * The scenario backends this build has, one row each (backends.c), found by
 * name (`--backend NAME` on scenario run and sweep): emu, the emulator's
 * runner; hw, the hardware backend. Adding a backend is one row plus its run
 * function (backend.h says what a row is).
 */
#ifndef NVEMU_BACKENDS_H
#define NVEMU_BACKENDS_H

#include <stddef.h>

#include "backend.h"

/* The backend called name, or NULL. */
const struct sc_backend *sc_backend_find(const char *name);
/* The default backend (the emulator). */
const struct sc_backend *sc_backend_default(void);
/* Names of every backend, '|'-separated ("emu|hw"), into buf (truncated to len). */
void sc_backend_names(char *buf, size_t len);

#endif
