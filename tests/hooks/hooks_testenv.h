/*
 * Test environment for the hook framework: a fake profile, a settable virtual
 * clock and a trace recorder standing in for the emulator (header-only; used
 * by tests/hooks and tests/policies).
 */
#ifndef NVEMU_TEST_HOOKS_TESTENV_H
#define NVEMU_TEST_HOOKS_TESTENV_H

#include <stdio.h>
#include <string.h>

#include "hooks/hooks.h"

#define TE_MAX_RECS 256

struct te_rec {
    char hook[24], field[16], result[8], reason[96];
    uint64_t value;
    uint64_t tsg;
};

struct testenv {
    struct profile profile;
    uint64_t now_ns;
    struct te_rec rec[TE_MAX_RECS];
    int nrec;
    struct hooks_env env;
};

static inline uint64_t te_now(void *ctx)
{
    return ((struct testenv *)ctx)->now_ns;
}

static inline void te_trace(void *ctx, const char *hook, const struct hook_task *t, const char *field, uint64_t value,
                     const char *result, const char *reason)
{
    struct testenv *te = ctx;
    if (te->nrec >= TE_MAX_RECS)
        return;
    struct te_rec *r = &te->rec[te->nrec++];
    snprintf(r->hook, sizeof r->hook, "%s", hook);
    snprintf(r->field, sizeof r->field, "%s", field);
    snprintf(r->result, sizeof r->result, "%s", result);
    snprintf(r->reason, sizeof r->reason, "%s", reason);
    r->value = value;
    r->tsg = t ? t->tsg_id : ~0ull;
}

/* Fills te with a profile of min timeslice min_us and default 1024 us. */
static inline void te_init(struct testenv *te, uint64_t min_us)
{
    memset(te, 0, sizeof *te);
    snprintf(te->profile.name, sizeof te->profile.name, "test");
    te->profile.min_timeslice_us = min_us;
    te->profile.default_timeslice_us = 1024;
    te->env = (struct hooks_env){.profile = &te->profile, .now = te_now, .trace = te_trace, .ctx = te};
}

/* Index of the first record matching hook/field/result (NULL = any), or -1. */
static inline int te_find(const struct testenv *te, const char *hook, const char *field, const char *result)
{
    for (int i = 0; i < te->nrec; i++) {
        const struct te_rec *r = &te->rec[i];
        if ((!hook || strcmp(r->hook, hook) == 0) && (!field || strcmp(r->field, field) == 0) &&
            (!result || strcmp(r->result, result) == 0))
            return i;
    }
    return -1;
}

/* A GR0 channel group of process comm. */
static inline struct hook_task te_task(uint64_t tsg, const char *comm)
{
    struct hook_task t = {.gpu = 0, .tsg_id = tsg, .runlist_id = 13, .engine_type = 1, .hclient = 0xc1d00001,
                          .htsg = 0x5c000015, .pid = 100, .tid = 100, .timeslice_us = 1024, .interleave = 1,
                          .channel_count = 8};
    snprintf(t.comm, sizeof t.comm, "%s", comm);
    return t;
}

#endif
