/*
 * One schema walker for every YAML data file (GPU profiles, scenarios): a
 * mapping is described by a table of fields, each with its key, type, where
 * the value goes and its range. The walker refuses unknown, duplicate and
 * missing keys and wrong types or ranges with one error format,
 * "file:line:column: message", where the message names the value by its
 * dotted path ("task.count must be between 1 and 256, not 300").
 *
 * Scalars: integers are decimal or 0x-hex, unsigned, unquoted; booleans are
 * true/false; durations follow one grammar, a decimal number and a unit
 * (ns, us, µs, ms, s), e.g. "250us", "1.5 ms", or a bare 0. A duration field
 * may name a legacy key spelled with an `_us` suffix, where a bare number is
 * microseconds ("ctxsw_us: 3.5"), as profiles were first written.
 */
#ifndef NVEMU_YAML_YSCHEMA_H
#define NVEMU_YAML_YSCHEMA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "yaml/ytree.h"

/* Where messages go while one file is walked. */
struct yctx {
    const char *file;          /* named in every message */
    char *err;
    size_t errlen;
    void *user;                /* the loader's own state, for custom readers */
};

enum yftype {
    YF_U8, YF_U16, YF_U32, YF_U64,   /* unsigned integer in [min, max] */
    YF_BOOL,                         /* bool */
    YF_ENUM,                         /* int: index of the scalar in names[] */
    YF_DURATION,                     /* uint64_t ns in [min, max] */
    YF_DURATION_US,                  /* uint64_t whole microseconds; min/max in ns */
    YF_DOUBLE,                       /* finite double (min/max unused) */
    YF_STR,                          /* char[size], NUL-terminated */
    YF_STRDUP,                       /* char *, malloc'd (the caller frees) */
    YF_MAP,                          /* nested mapping walked with `sub` on the same base */
    YF_SEQ,                          /* sequence into an array: see below */
    YF_CUSTOM,                       /* custom(c, value, base) reads it */
};

struct ycheck;
struct ytable;

struct yfield {
    const char *key;
    enum yftype type;
    size_t off;                      /* into the base the table is walked with */
    size_t size;                     /* YF_STR: buffer size; YF_SEQ: size of one array element */
    uint64_t min, max;               /* integers; durations in ns (min 1: "greater than 0") */
    bool required;
    bool nonempty;                   /* YF_STR, YF_STRDUP: "" is refused */
    const char *legacy_us;           /* durations: an older key for the same value, bare numbers in us */
    const char *const *names;        /* YF_ENUM: NULL-terminated */
    const struct ytable *sub;        /* YF_MAP: the nested mapping; YF_SEQ: each item (a mapping) */
    /* YF_CUSTOM: reads the value; YF_SEQ: reads one item into its element (instead of `sub`) */
    int (*custom)(struct yctx *c, const struct ynode *n, void *base);
    size_t count_off;                /* YF_SEQ: uint32_t item count */
    uint32_t min_items, max_items;   /* YF_SEQ */
};

/* Field row helpers: designated initialisers keep the tables readable. */
#define YFIELD(k, t, o, ...) {.key = (k), .type = (t), .off = (o), __VA_ARGS__}
#define YFIELD_END {.key = NULL}

/*
 * A mapping's schema. `path` prefixes every key in messages ("gpu.timing" ->
 * "gpu.timing.ctxsw"; "" for the top level); `name` is what the mapping is
 * called in "unknown key 'x' in NAME" and "NAME needs 'key'". check (may be
 * NULL) runs after every field was read: got[i] is the node of fields[i] (or
 * NULL when absent), for rules that span fields and their positions.
 */
struct ytable {
    const char *path;
    const char *name;
    const struct yfield *fields;     /* ended by YFIELD_END; at most 64 */
    int (*check)(struct yctx *c, const struct ynode *map, void *base, const struct ynode *const *got);
};

/* Writes "file:line:column: message" (position of n, 1:1 when NULL) into c->err; returns -1. */
__attribute__((format(printf, 3, 4)))
int yfail(struct yctx *c, const struct ynode *n, const char *fmt, ...);

/* Walks mapping n with table t into base. 0, or -1 with the message in c->err. */
int ywalk(struct yctx *c, const struct ynode *n, const struct ytable *t, void *base);

/* -1 with "WHAT must be A, not B" unless n has kind k. */
int yexpect(struct yctx *c, const struct ynode *n, enum ynode_kind k, const char *what);

/* Typed readers of one scalar, with the walker's messages; `what` names the value. */
int yread_u64(struct yctx *c, const struct ynode *n, const char *what, uint64_t min, uint64_t max, uint64_t *out);
int yread_double(struct yctx *c, const struct ynode *n, const char *what, double *out);
int yread_bool(struct yctx *c, const struct ynode *n, const char *what, bool *out);
int yread_enum(struct yctx *c, const struct ynode *n, const char *what, const char *const *names, int *out);
int yread_str(struct yctx *c, const struct ynode *n, const char *what, bool nonempty, char *buf, size_t len);
int yread_duration(struct yctx *c, const struct ynode *n, const char *what, uint64_t min_ns, uint64_t max_ns,
                   uint64_t *out);

/*
 * The duration grammar on a bare string: "250us", "1.5 ms", "0"; with
 * bare_us a unit-less number is microseconds. Returns 0 with *ns, or -1 with
 * *why set to the end of a message ("needs a unit (ns, us, ms or s)").
 */
int yparse_duration(const char *s, bool bare_us, uint64_t *ns, const char **why);

#endif
