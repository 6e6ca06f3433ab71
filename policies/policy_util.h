/*
 * Helpers shared by the reference policies (compiled into each plugin; a
 * plugin links nothing from the executable): key=value argument parsing,
 * process-name classification and a per-channel-group table keyed by
 * (gpu, runlist_id, tsg_id) — grpIDs are allocated per runlist, so a GR and a
 * CE channel group can share a numeric id.
 */
#ifndef NVEMU_POLICY_UTIL_H
#define NVEMU_POLICY_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nvemu/policy.h"

/* ---- arguments ---- */

/* One accepted argument key; pu_args_parse fills value (parse numbers with pu_arg_u64). */
struct pu_arg {
    const char *key;
    const char *value;   /* points into the caller's args; NULL when absent */
};

/*
 * Matches every "key=value" of args against keys[] (n entries). Returns 0, or
 * -1 with "unknown argument 'k' (accepted: a b c)" or "duplicate argument" in err.
 */
int pu_args_parse(struct pu_arg *keys, int n, const char *const *args, int nargs, char *err, size_t errlen);

/*
 * Parses the value of key into *out (decimal, no sign, no trailing junk), keeping
 * *out when the key is absent. Returns 0, or -1 with a reason in err.
 */
int pu_arg_u64(const struct pu_arg *a, uint64_t *out, uint64_t min, uint64_t max, char *err, size_t errlen);

/*
 * Value of key as an index into names (NULL-terminated), keeping *out when
 * value is NULL. Returns 0, or -1 with "key='v' must be a, b or c" in err.
 */
int pu_choice(const char *key, const char *value, const char *const *names, int *out, char *err, size_t errlen);

/* ---- classification ---- */

enum pu_class { PU_NONE = 0, PU_LC = 1, PU_BE = 2 };

/* Comma-separated fnmatch(3) patterns ("vllm*,infer") matched against a process name. */
struct pu_patterns {
    char *buf;          /* owned copy of the list, split in place */
    const char **pat;
    int n;
};

/*
 * The class of a channel group from its creator's process name: `lc` patterns
 * first, then `be`, else the default class; channel groups outside the engine
 * filter are PU_NONE.
 */
struct pu_classifier {
    struct pu_patterns lc, be;
    int default_cls;    /* enum pu_class */
    bool gr_only;
};

/*
 * Fills k from the lc=, be=, default=none|lc|be and engines= values (each NULL
 * when absent; engines defaults to gr). Returns 0, or -1 with a reason in err.
 * k must start zeroed; release it with pu_classifier_free whatever the result.
 */
int pu_classifier_init(struct pu_classifier *k, const char *lc, const char *be, const char *def,
                       const char *engines, char *err, size_t errlen);
void pu_classifier_free(struct pu_classifier *k);
/* Bytes of a process name the kernel keeps (comm: 16 with its NUL): what a pattern is matched against. */
#define PU_COMM_MAX 15

/*
 * The first lc/be pattern no process name can match (even its shortest match is longer than PU_COMM_MAX,
 * e.g. "inference-server-main" for a process the kernel calls "inference-serve"), or NULL. A policy logs it
 * as a warning at init.
 */
const char *pu_classifier_unmatchable(const struct pu_classifier *k);

/* PU_LC, PU_BE or PU_NONE for t. */
int pu_classify(const struct pu_classifier *k, const struct hook_task *t);

/* Engine filter: "gr" (GR0..GR7, engine types 1..8) or "all". Returns 0 or -1 with a reason. */
int pu_engines_parse(const char *value, bool *gr_only, char *err, size_t errlen);
bool pu_engine_selected(bool gr_only, uint32_t engine_type);

/* ---- per-channel-group table ---- */

#define PU_RATE_BUCKETS 10

struct pu_entry {
    uint32_t gpu, runlist_id;
    uint64_t tsg_id;
    /* policy data */
    int cls;
    /* adaptive: sliding window of PU_RATE_BUCKETS buckets of virtual time */
    bool started;
    uint64_t first_ns;
    uint64_t slot;                     /* index of the newest bucket (now / bucket length) */
    uint32_t buckets[PU_RATE_BUCKETS];
    bool admitted;
    struct pu_entry *next;
};

#define PU_BUCKETS 256
struct pu_table {
    struct pu_entry *bucket[PU_BUCKETS];
    uint32_t count;
};

/* Entry of t's channel group, or NULL. */
struct pu_entry *pu_find(struct pu_table *tb, const struct hook_task *t);
/* Entry of t's channel group, created zeroed when absent (NULL only when out of memory). */
struct pu_entry *pu_get(struct pu_table *tb, const struct hook_task *t);
void pu_remove(struct pu_table *tb, const struct hook_task *t);
void pu_clear(struct pu_table *tb);

/* Formats one line and sends it through host->log. */
void pu_log(const struct policy_host *host, int level, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
