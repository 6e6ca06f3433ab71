#include "policy_util.h"

#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int pu_args_parse(struct pu_arg *keys, int n, const char *const *args, int nargs, char *err, size_t errlen)
{
    for (int k = 0; k < n; k++)
        keys[k].value = NULL;
    for (int i = 0; i < nargs; i++) {
        const char *eq = args[i] ? strchr(args[i], '=') : NULL;
        if (!eq) {
            snprintf(err, errlen, "argument '%s' is not key=value", args[i] ? args[i] : "(null)");
            return -1;
        }
        size_t klen = (size_t)(eq - args[i]);
        int found = -1;
        for (int k = 0; k < n; k++) {
            if (strlen(keys[k].key) == klen && strncmp(keys[k].key, args[i], klen) == 0)
                found = k;
        }
        if (found < 0) {
            size_t off = (size_t)snprintf(err, errlen, "unknown argument '%.*s' (accepted:", (int)klen, args[i]);
            for (int k = 0; k < n && off < errlen; k++)
                off += (size_t)snprintf(err + off, errlen - off, " %s", keys[k].key);
            if (off < errlen)
                snprintf(err + off, errlen - off, ")");
            return -1;
        }
        if (keys[found].value) {
            snprintf(err, errlen, "duplicate argument '%s'", keys[found].key);
            return -1;
        }
        keys[found].value = eq + 1;
    }
    return 0;
}

int pu_arg_u64(const struct pu_arg *a, uint64_t *out, uint64_t min, uint64_t max, char *err, size_t errlen)
{
    if (!a->value)
        return 0;
    const char *s = a->value;
    if (*s < '0' || *s > '9') {
        snprintf(err, errlen, "%s='%s' is not a number", a->key, s);
        return -1;
    }
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end != '\0') {
        snprintf(err, errlen, "%s='%s' is not a number", a->key, s);
        return -1;
    }
    if (v < min || v > max) {
        snprintf(err, errlen, "%s=%llu out of range [%" PRIu64 ", %" PRIu64 "]", a->key, v, min, max);
        return -1;
    }
    *out = v;
    return 0;
}

int pu_choice(const char *key, const char *value, const char *const *names, int *out, char *err, size_t errlen)
{
    if (!value)
        return 0;
    int n = 0;
    for (; names[n]; n++) {
        if (strcmp(value, names[n]) == 0) {
            *out = n;
            return 0;
        }
    }
    int len = snprintf(err, errlen, "%s='%s' must be ", key, value);
    for (int i = 0; i < n && len >= 0 && (size_t)len < errlen; i++)
        len += snprintf(err + len, errlen - (size_t)len, "%s%s", names[i], i + 2 < n ? ", " : i + 1 < n ? " or " : "");
    return -1;
}

static void patterns_free(struct pu_patterns *p)
{
    free(p->buf);
    free(p->pat);
    memset(p, 0, sizeof *p);
}

/* Splits list into patterns (empty or NULL list: no patterns). Returns 0 or -1 (no memory). */
static int patterns_init(struct pu_patterns *p, const char *list)
{
    memset(p, 0, sizeof *p);
    if (!list || !*list)
        return 0;
    p->buf = strdup(list);
    size_t commas = 1;
    for (const char *c = list; *c; c++)
        commas += *c == ',';
    p->pat = calloc(commas, sizeof *p->pat);
    if (!p->buf || !p->pat) {
        patterns_free(p);
        return -1;
    }
    char *save = NULL;
    for (char *tok = strtok_r(p->buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
        p->pat[p->n++] = tok;
    return 0;
}

static bool patterns_match(const struct pu_patterns *p, const char *comm)
{
    char name[17];
    snprintf(name, sizeof name, "%.16s", comm ? comm : "");
    for (int i = 0; i < p->n; i++) {
        if (fnmatch(p->pat[i], name, 0) == 0)
            return true;
    }
    return false;
}

/* Characters the shortest name matching fnmatch pattern pat has: '*' none, '?', a [...] set or a character one. */
static size_t pattern_min_len(const char *pat)
{
    size_t n = 0;
    for (const char *c = pat; *c; c++) {
        if (*c == '*')
            continue;
        n++;
        if (*c == '\\' && c[1]) {
            c++;
        } else if (*c == '[') {
            const char *end = strchr(c + 2, ']');   /* a ']' right after '[' or "[!" is a member */
            if (end)
                c = end;
        }
    }
    return n;
}

const char *pu_classifier_unmatchable(const struct pu_classifier *k)
{
    const struct pu_patterns *sets[] = {&k->lc, &k->be};
    for (size_t s = 0; s < 2; s++)
        for (int i = 0; i < sets[s]->n; i++)
            if (pattern_min_len(sets[s]->pat[i]) > PU_COMM_MAX)
                return sets[s]->pat[i];
    return NULL;
}

int pu_engines_parse(const char *value, bool *gr_only, char *err, size_t errlen)
{
    if (!value || strcmp(value, "gr") == 0) {
        *gr_only = true;
        return 0;
    }
    if (strcmp(value, "all") == 0) {
        *gr_only = false;
        return 0;
    }
    snprintf(err, errlen, "engines='%s' must be gr or all", value);
    return -1;
}

bool pu_engine_selected(bool gr_only, uint32_t engine_type)
{
    /* RM engine types: GR0..GR7 are 1..8. */
    return !gr_only || (engine_type >= NVEMU_ENGINE_GR0 && engine_type <= NVEMU_ENGINE_GR7);
}

int pu_classifier_init(struct pu_classifier *k, const char *lc, const char *be, const char *def,
                       const char *engines, char *err, size_t errlen)
{
    k->default_cls = PU_NONE;
    static const char *const classes[] = {[PU_NONE] = "none", [PU_LC] = "lc", [PU_BE] = "be", NULL};
    if (pu_choice("default", def, classes, &k->default_cls, err, errlen) ||
        pu_engines_parse(engines, &k->gr_only, err, errlen))
        return -1;
    if (patterns_init(&k->lc, lc) || patterns_init(&k->be, be)) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    return 0;
}

void pu_classifier_free(struct pu_classifier *k)
{
    patterns_free(&k->lc);
    patterns_free(&k->be);
}

int pu_classify(const struct pu_classifier *k, const struct hook_task *t)
{
    if (!pu_engine_selected(k->gr_only, t->engine_type))
        return PU_NONE;
    if (patterns_match(&k->lc, t->comm))
        return PU_LC;
    if (patterns_match(&k->be, t->comm))
        return PU_BE;
    return k->default_cls;
}

static unsigned bucket_of(uint32_t gpu, uint32_t runlist, uint64_t tsg)
{
    uint64_t h = tsg * 0x9E3779B97F4A7C15ull ^ ((uint64_t)runlist << 32 | gpu) * 0xC2B2AE3D27D4EB4Full;
    return (unsigned)(h >> 56) % PU_BUCKETS;
}

struct pu_entry *pu_find(struct pu_table *tb, const struct hook_task *t)
{
    for (struct pu_entry *e = tb->bucket[bucket_of(t->gpu, t->runlist_id, t->tsg_id)]; e; e = e->next) {
        if (e->gpu == t->gpu && e->runlist_id == t->runlist_id && e->tsg_id == t->tsg_id)
            return e;
    }
    return NULL;
}

struct pu_entry *pu_get(struct pu_table *tb, const struct hook_task *t)
{
    struct pu_entry *e = pu_find(tb, t);
    if (e)
        return e;
    e = calloc(1, sizeof *e);
    if (!e)
        return NULL;
    e->gpu = t->gpu;
    e->runlist_id = t->runlist_id;
    e->tsg_id = t->tsg_id;
    unsigned b = bucket_of(t->gpu, t->runlist_id, t->tsg_id);
    e->next = tb->bucket[b];
    tb->bucket[b] = e;
    tb->count++;
    return e;
}

void pu_remove(struct pu_table *tb, const struct hook_task *t)
{
    struct pu_entry **pp = &tb->bucket[bucket_of(t->gpu, t->runlist_id, t->tsg_id)];
    for (; *pp; pp = &(*pp)->next) {
        struct pu_entry *e = *pp;
        if (e->gpu == t->gpu && e->runlist_id == t->runlist_id && e->tsg_id == t->tsg_id) {
            *pp = e->next;
            free(e);
            tb->count--;
            return;
        }
    }
}

void pu_clear(struct pu_table *tb)
{
    for (int b = 0; b < PU_BUCKETS; b++) {
        while (tb->bucket[b]) {
            struct pu_entry *e = tb->bucket[b];
            tb->bucket[b] = e->next;
            free(e);
        }
    }
    tb->count = 0;
}

void pu_log(const struct policy_host *host, int level, const char *fmt, ...)
{
    char line[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (host && host->log)
        host->log(host, level, line);
}
