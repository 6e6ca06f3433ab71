#include "yaml/yschema.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Longest duration any file may give: about 31 years of virtual time. */
#define DURATION_MAX_NS 1000000000000000000ull

int yfail(struct yctx *c, const struct ynode *n, const char *fmt, ...)
{
    char msg[384];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    if (c->err && c->errlen)
        snprintf(c->err, c->errlen, "%s:%u:%u: %s%s", c->file, n ? n->line : 1, n ? n->column : 1, msg,
                 n && n->overridden ? " (value set by an override)" : "");
    return -1;
}

int yexpect(struct yctx *c, const struct ynode *n, enum ynode_kind k, const char *what)
{
    if (n->kind != k)
        return yfail(c, n, "%s must be %s, not %s", what, ytree_kind_name(k), ytree_kind_name(n->kind));
    return 0;
}

int yread_u64(struct yctx *c, const struct ynode *n, const char *what, uint64_t min, uint64_t max, uint64_t *out)
{
    if (yexpect(c, n, YNODE_SCALAR, what))
        return -1;
    const char *s = n->scalar, *d = s;
    int base = 10;
    if (d[0] == '0' && (d[1] == 'x' || d[1] == 'X')) {
        base = 16;
        d += 2;
    }
    if (n->quoted || !*d || strlen(s) != n->len)
        return yfail(c, n, "%s must be a whole number, not '%s'", what, s);
    uint64_t v = 0;
    for (const char *q = d; *q; q++) {
        int dig;
        if (isdigit((unsigned char)*q))
            dig = *q - '0';
        else if (base == 16 && isxdigit((unsigned char)*q))
            dig = tolower((unsigned char)*q) - 'a' + 10;
        else
            return yfail(c, n, "%s must be a whole number, not '%s'", what, s);
        if (v > (UINT64_MAX - (uint64_t)dig) / (uint64_t)base)
            return yfail(c, n, "%s '%s' does not fit in 64 bits", what, s);
        v = v * (uint64_t)base + (uint64_t)dig;
    }
    if (v < min || v > max)
        return yfail(c, n, "%s must be between %llu and %llu, not %s", what, (unsigned long long)min,
                     (unsigned long long)max, s);
    *out = v;
    return 0;
}

int yread_double(struct yctx *c, const struct ynode *n, const char *what, double *out)
{
    if (yexpect(c, n, YNODE_SCALAR, what))
        return -1;
    char *end = NULL;
    errno = 0;
    double v = strtod(n->scalar, &end);
    if (n->quoted || end == n->scalar || *end || errno || !isfinite(v) || strlen(n->scalar) != n->len)
        return yfail(c, n, "%s must be a number, not '%s'", what, n->scalar);
    *out = v;
    return 0;
}

int yread_bool(struct yctx *c, const struct ynode *n, const char *what, bool *out)
{
    if (yexpect(c, n, YNODE_SCALAR, what))
        return -1;
    if (!n->quoted && strcmp(n->scalar, "true") == 0)
        *out = true;
    else if (!n->quoted && strcmp(n->scalar, "false") == 0)
        *out = false;
    else
        return yfail(c, n, "%s must be true or false, not '%s'", what, n->scalar);
    return 0;
}

int yread_enum(struct yctx *c, const struct ynode *n, const char *what, const char *const *names, int *out)
{
    if (yexpect(c, n, YNODE_SCALAR, what))
        return -1;
    for (int i = 0; names[i]; i++) {
        if (strcmp(names[i], n->scalar) == 0) {
            *out = i;
            return 0;
        }
    }
    char list[256] = "";
    for (int i = 0; names[i]; i++) {
        strncat(list, names[i], sizeof(list) - strlen(list) - 1);
        if (names[i + 1])
            strncat(list, "|", sizeof(list) - strlen(list) - 1);
    }
    return yfail(c, n, "%s must be one of %s, not '%s'", what, list, n->scalar);
}

int yread_str(struct yctx *c, const struct ynode *n, const char *what, bool nonempty, char *buf, size_t len)
{
    if (yexpect(c, n, YNODE_SCALAR, what))
        return -1;
    if (strlen(n->scalar) != n->len)
        return yfail(c, n, "%s contains a NUL character", what);
    if (nonempty && !n->len)
        return yfail(c, n, "%s must not be empty", what);
    if (n->len >= len)
        return yfail(c, n, "%s is too long (at most %zu characters)", what, len - 1);
    memcpy(buf, n->scalar, n->len + 1);
    return 0;
}

static const struct {
    const char *suffix;
    uint64_t ns;
} units[] = {
    {"ns", 1}, {"us", 1000}, {"\xc2\xb5s", 1000}, {"ms", 1000000}, {"s", 1000000000},
};

int yparse_duration(const char *s, bool bare_us, uint64_t *ns, const char **why)
{
    const char *q = s;
    if (*q == '-') {
        *why = "must not be negative";
        return -1;
    }
    if (!isdigit((unsigned char)*q)) {
        *why = "is not a duration (write e.g. 250us, 1.5ms, 10s)";
        return -1;
    }
    /* Exact decimal arithmetic: digits of the whole and fractional part, scaled by the unit at the end. */
    uint64_t whole = 0, frac = 0, fscale = 1;
    for (; isdigit((unsigned char)*q); q++) {
        if (whole > DURATION_MAX_NS) {
            *why = "is too long";
            return -1;
        }
        whole = whole * 10 + (uint64_t)(*q - '0');
    }
    if (*q == '.') {
        q++;
        if (!isdigit((unsigned char)*q)) {
            *why = "is not a duration (write e.g. 250us, 1.5ms, 10s)";
            return -1;
        }
        for (; isdigit((unsigned char)*q); q++) {
            if (fscale >= 1000000000ull) {
                *why = "is finer than 1 ns";
                return -1;
            }
            frac = frac * 10 + (uint64_t)(*q - '0');
            fscale *= 10;
        }
    }
    while (*q == ' ')
        q++;
    uint64_t unit = 0;
    if (!*q) {
        if (bare_us)
            unit = 1000;
        else if (whole == 0 && frac == 0)
            unit = 1;
        else {
            *why = "needs a unit (ns, us, ms or s)";
            return -1;
        }
    } else {
        for (size_t i = 0; i < sizeof(units) / sizeof(units[0]) && !unit; i++)
            if (strcmp(q, units[i].suffix) == 0)
                unit = units[i].ns;
        if (!unit) {
            *why = "has an unknown unit (use ns, us, ms or s)";
            return -1;
        }
    }
    if (whole > DURATION_MAX_NS / unit) {
        *why = "is too long";
        return -1;
    }
    /* frac < fscale <= 1e9 and unit <= 1e9: the product fits in 64 bits */
    uint64_t fns = frac * unit;
    if (fns % fscale) {
        *why = "is finer than 1 ns";
        return -1;
    }
    uint64_t v = whole * unit + fns / fscale;
    if (v > DURATION_MAX_NS) {
        *why = "is too long";
        return -1;
    }
    *ns = v;
    return 0;
}

static int read_duration(struct yctx *c, const struct ynode *n, const char *what, bool bare_us, uint64_t min_ns,
                         uint64_t max_ns, uint64_t *out)
{
    if (yexpect(c, n, YNODE_SCALAR, what))
        return -1;
    const char *why = NULL;
    uint64_t v;
    if (n->quoted || strlen(n->scalar) != n->len)
        return yfail(c, n, "%s '%s' is not a duration (write e.g. 250us, 1.5ms, 10s)", what, n->scalar);
    if (yparse_duration(n->scalar, bare_us, &v, &why))
        return yfail(c, n, "%s '%s' %s", what, n->scalar, why);
    if (v < min_ns) {
        if (min_ns == 1)
            return yfail(c, n, "%s must be greater than 0", what);
        return yfail(c, n, "%s must be at least %llu ns, not '%s'", what, (unsigned long long)min_ns, n->scalar);
    }
    if (max_ns && v > max_ns)
        return yfail(c, n, "%s must be at most %llu ns, not '%s'", what, (unsigned long long)max_ns, n->scalar);
    *out = v;
    return 0;
}

int yread_duration(struct yctx *c, const struct ynode *n, const char *what, uint64_t min_ns, uint64_t max_ns,
                   uint64_t *out)
{
    return read_duration(c, n, what, false, min_ns, max_ns, out);
}

static void field_what(const struct ytable *t, const char *key, char *buf, size_t len)
{
    if (t->path && t->path[0])
        snprintf(buf, len, "%s.%s", t->path, key);
    else
        snprintf(buf, len, "%s", key);
}

static int read_seq(struct yctx *c, const struct yfield *f, const struct ynode *v, void *base, const char *what)
{
    if (yexpect(c, v, YNODE_SEQ, what))
        return -1;
    if (v->count < f->min_items || v->count > f->max_items) {
        if (f->min_items == f->max_items)
            return yfail(c, v, "%s must list %u items", what, f->min_items);
        if (v->count < f->min_items)
            return yfail(c, v, "%s must list at least %u item%s", what, f->min_items, f->min_items == 1 ? "" : "s");
        return yfail(c, v, "%s lists more than %u items", what, f->max_items);
    }
    uint32_t *count = (uint32_t *)((char *)base + f->count_off);
    char *arr = (char *)base + f->off;
    for (size_t i = 0; i < v->count; i++) {
        void *elem = arr + (size_t)*count * f->size;
        (*count)++;  /* counted before it is read, so the caller frees what a failed item allocated */
        if (f->custom ? f->custom(c, v->items[i], elem) : ywalk(c, v->items[i], f->sub, elem))
            return -1;
    }
    return 0;
}

static int read_field(struct yctx *c, const struct ytable *t, const struct yfield *f, const struct ynode *v,
                      bool legacy, void *base)
{
    char what[128];
    field_what(t, legacy ? f->legacy_us : f->key, what, sizeof(what));
    char *dst = (char *)base + f->off;
    uint64_t x;
    switch (f->type) {
    case YF_U8:
    case YF_U16:
    case YF_U32:
    case YF_U64:
        if (yread_u64(c, v, what, f->min, f->max, &x))
            return -1;
        if (f->type == YF_U8)
            *(uint8_t *)dst = (uint8_t)x;
        else if (f->type == YF_U16)
            *(uint16_t *)dst = (uint16_t)x;
        else if (f->type == YF_U32)
            *(uint32_t *)dst = (uint32_t)x;
        else
            *(uint64_t *)dst = x;
        return 0;
    case YF_BOOL:
        return yread_bool(c, v, what, (bool *)dst);
    case YF_ENUM: {
        int e;
        if (yread_enum(c, v, what, f->names, &e))
            return -1;
        *(int *)dst = e;
        return 0;
    }
    case YF_DURATION:
        return read_duration(c, v, what, legacy, f->min, f->max, (uint64_t *)dst);
    case YF_DURATION_US:
        if (read_duration(c, v, what, legacy, f->min, f->max, &x))
            return -1;
        if (x % 1000)
            return yfail(c, v, "%s must be a whole number of microseconds", what);
        *(uint64_t *)dst = x / 1000;
        return 0;
    case YF_DOUBLE:
        return yread_double(c, v, what, (double *)dst);
    case YF_STR:
        return yread_str(c, v, what, f->nonempty, dst, f->size);
    case YF_STRDUP: {
        if (yexpect(c, v, YNODE_SCALAR, what))
            return -1;
        if (strlen(v->scalar) != v->len)
            return yfail(c, v, "%s contains a NUL character", what);
        if (f->nonempty && !v->len)
            return yfail(c, v, "%s must not be empty", what);
        char **out = (char **)dst;
        free(*out);
        *out = strdup(v->scalar);
        return *out ? 0 : yfail(c, v, "out of memory");
    }
    case YF_MAP:
        return ywalk(c, v, f->sub, base);
    case YF_SEQ:
        return read_seq(c, f, v, base, what);
    case YF_CUSTOM:
        return f->custom(c, v, base);
    }
    return yfail(c, v, "internal: bad field type");
}

int ywalk(struct yctx *c, const struct ynode *n, const struct ytable *t, void *base)
{
    const struct yfield *fields = t->fields;
    const char *name = t->name && t->name[0] ? t->name : "the file";
    if (n->kind != YNODE_MAP)
        return yfail(c, n, "%s must be a mapping, not %s", t->path && t->path[0] ? t->path : name,
                     ytree_kind_name(n->kind));
    const struct ynode *got[64] = {0};
    bool got_legacy[64] = {0};
    size_t nf = 0;
    while (fields[nf].key)
        nf++;
    if (nf > 64)
        return yfail(c, n, "internal: table %s has more than 64 fields", name);
    /* First pass: which node feeds which field. An overridden value wins over the file's other spelling. */
    for (size_t p = 0; p < n->count; p++) {
        const struct ynode *k = n->keys[p];
        size_t i;
        bool legacy = false;
        /* first characters first: a whole string comparison per field and key was most of a load's time */
        for (i = 0; i < nf; i++) {
            if (fields[i].key[0] == k->scalar[0] && !strcmp(fields[i].key, k->scalar))
                break;
            if (fields[i].legacy_us && fields[i].legacy_us[0] == k->scalar[0] && !strcmp(fields[i].legacy_us, k->scalar)) {
                legacy = true;
                break;
            }
        }
        if (i == nf) {
            char list[320] = "";
            for (size_t j = 0; j < nf; j++) {
                strncat(list, fields[j].key, sizeof(list) - strlen(list) - 1);
                if (j + 1 < nf)
                    strncat(list, ", ", sizeof(list) - strlen(list) - 1);
            }
            return yfail(c, k, "unknown key '%s' in %s (allowed: %s)", k->scalar, name, list);
        }
        const struct ynode *v = n->items[p];
        if (got[i]) {
            if (got[i]->overridden == v->overridden)
                return yfail(c, k, "'%s' and '%s' give the same value twice", fields[i].key, fields[i].legacy_us);
            if (got[i]->overridden)
                continue;
        }
        got[i] = v;
        got_legacy[i] = legacy;
    }
    /* Every field given is read before a missing one is reported: an error in a later section is found
     * without the earlier ones complete (a document that only gives its canned answers is still checked
     * through), and the first missing field in table order is still the one named. */
    const struct yfield *missing = NULL;
    for (size_t i = 0; i < nf; i++) {
        if (!got[i]) {
            if (fields[i].required && !missing)
                missing = &fields[i];
            continue;
        }
        if (read_field(c, t, &fields[i], got[i], got_legacy[i], base))
            return -1;
    }
    if (missing)
        return yfail(c, n, "%s needs '%s'", name, missing->key);
    return t->check ? t->check(c, n, base, got) : 0;
}
