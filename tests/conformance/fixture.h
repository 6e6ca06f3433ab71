/*
 * The libcuda object fixture (fixtures/hw/<gpu>-<driver>/libcuda-objects.txt): the objects libcuda
 * allocates for its compute channel group, with the exact alloc params it passed (from a trace).
 */
#ifndef NVEMU_CONFORMANCE_FIXTURE_H
#define NVEMU_CONFORMANCE_FIXTURE_H

#include <stddef.h>
#include <stdint.h>

#define FIXTURE_MAX_OBJS 64
#define FIXTURE_MAX_PARAMS 512

struct fixture_obj {
    char name[32];
    uint32_t handle, parent, hclass; /* parent 0 = the client */
    size_t nparams;                  /* 0 = NULL params */
    uint8_t params[FIXTURE_MAX_PARAMS];
};

struct fixture {
    uint32_t client; /* libcuda's client handle, replaced by ours wherever it appears in params */
    int nobjs;
    struct fixture_obj objs[FIXTURE_MAX_OBJS];
};

/* Loads PATH. Returns 0, or -1 with a message on stderr. */
int fixture_load(struct fixture *f, const char *path);

/* Finds an object by name, NULL if absent. */
const struct fixture_obj *fixture_find(const struct fixture *f, const char *name);

/*
 * Copies the object's params into out (cap bytes), replacing every aligned 32-bit word equal to
 * from[i] by to[i] (n pairs). Returns the param size (0 for NULL params).
 */
size_t fixture_params(const struct fixture_obj *o, uint8_t *out, size_t cap, const uint32_t *from,
                      const uint32_t *to, int n);

#endif
