/*
 * The expectation kinds of a scenario (`expect:`, scenarios/README.md), one
 * row each in expect.c: loading, evaluation and labels go through here.
 */
#ifndef NVEMU_SCENARIO_EXPECT_H
#define NVEMU_SCENARIO_EXPECT_H

#include "results.h"
#include "scenario.h"
#include "yaml/yschema.h"

/* Reads one `expect:` item (a mapping of one kind to its body) into elem (a struct sc_expect): a YF_SEQ item loader. */
int sc_expect_load(struct yctx *c, const struct ynode *n, void *elem);

/* Fills o->pass and o->actual for e against the results. */
void sc_expect_evaluate(struct sc_results *r, const struct sc_expect *e, struct sc_expect_outcome *o);

/* The kind's YAML name ("latency"), "?" for no kind. */
const char *sc_expect_kind_name(enum sc_expect_kind k);

#endif
