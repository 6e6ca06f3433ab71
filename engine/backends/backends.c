/* The backend table (backends.h). */
#include "backends.h"

#include <stdio.h>
#include <string.h>

#include "hw_run.h"
#include "runner.h"

static const struct sc_backend backends[] = {
    {"emu", "the in-process emulator in virtual time (deterministic)", true, sc_run},
    {"hw", "the tasks as processes on the real NVIDIA GPU 0 (libcuda, Volta+)", false, sc_run_hw},
};

const struct sc_backend *sc_backend_find(const char *name)
{
    for (size_t i = 0; i < sizeof(backends) / sizeof(backends[0]); i++)
        if (strcmp(backends[i].name, name) == 0)
            return &backends[i];
    return NULL;
}

const struct sc_backend *sc_backend_default(void)
{
    return &backends[0];
}

void sc_backend_names(char *buf, size_t len)
{
    size_t at = 0;
    if (len)
        buf[0] = '\0';
    for (size_t i = 0; i < sizeof(backends) / sizeof(backends[0]) && at < len; i++) {
        int w = snprintf(buf + at, len - at, "%s%s", i ? "|" : "", backends[i].name);
        at += w > 0 ? (size_t)w : 0;
    }
}
