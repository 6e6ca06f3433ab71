#include "profile/profile_base.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile/profile_builtin.h"
#include "profile/profile_yaml.h"

#define BASE_MAX_DEPTH 8

static const struct ylimits base_limits = {.max_bytes = PROFILE_FILE_MAX};

/* A canned row's key field (cmd, in), or NULL. */
static const struct ynode *row_field(const struct ynode *row, const char *key)
{
    if (row->kind != YNODE_MAP)
        return NULL;
    for (size_t i = 0; i < row->count; i++)
        if (!strcmp(row->keys[i]->scalar, key))
            return row->items[i];
    return NULL;
}

/*
 * The same input bytes: a row's `in` is zero-padded to its size when parsed, so "00" and "00*24" are one key.
 * Text that does not decode is compared as written (the parse reports it later).
 */
static bool same_input(const char *a, const char *b)
{
    uint8_t *x = NULL, *y = NULL;
    uint32_t nx = 0, ny = 0;
    char why[96];
    bool same;
    if (profile_hex_decode(a, CANNED_MAX_BYTES, &x, &nx, why, sizeof why) ||
        profile_hex_decode(b, CANNED_MAX_BYTES, &y, &ny, why, sizeof why)) {
        same = !strcmp(a, b);
    } else {
        while (nx && !x[nx - 1])
            nx--;
        while (ny && !y[ny - 1])
            ny--;
        same = nx == ny && !memcmp(x, y, nx);
    }
    free(x);
    free(y);
    return same;
}

/*
 * Whether a derived profile's canned row over takes the place of the base's row: same control and the same
 * input, or either of the two answering every input of that control (no `in`).
 */
static bool canned_row_replaces(const struct ynode *over, const struct ynode *base)
{
    const struct ynode *oc = row_field(over, "cmd"), *bc = row_field(base, "cmd");
    if (!oc || !bc || oc->kind != YNODE_SCALAR || bc->kind != YNODE_SCALAR)
        return false;
    if (strtoull(oc->scalar, NULL, 0) != strtoull(bc->scalar, NULL, 0))
        return false;
    const struct ynode *oi = row_field(over, "in"), *bi = row_field(base, "in");
    if (!oi || !bi)
        return true;
    return oi->kind == YNODE_SCALAR && bi->kind == YNODE_SCALAR && same_input(oi->scalar, bi->scalar);
}

static int seq_append(struct ynode *seq, struct ynode *item)
{
    if (seq->count == seq->cap) {
        size_t cap = seq->cap ? seq->cap * 2 : 8;
        struct ynode **items = realloc(seq->items, cap * sizeof(*items));
        if (!items)
            return -1;
        seq->items = items;
        seq->cap = cap;
    }
    seq->items[seq->count++] = item;
    return 0;
}

/*
 * The canned list of a derived profile adds to its base's: each of over's rows replaces the base's rows it
 * answers for (canned_row_replaces; the first in place, the others dropped) or is appended. Dropped and
 * replaced rows move to over, which the caller frees.
 */
static int merge_canned(struct ynode *base, struct ynode *over)
{
    for (size_t i = 0; i < over->count; i++) {
        struct ynode *row = over->items[i];
        row->overridden = true;
        bool placed = false;
        size_t keep = 0;
        for (size_t j = 0; j < base->count; j++) {
            struct ynode *old = base->items[j];
            if (!canned_row_replaces(row, old)) {
                base->items[keep++] = old;
                continue;
            }
            if (!placed) {
                base->items[keep++] = row;
                placed = true;
            }
            /* over's slot i holds one replaced row; the further ones are freed here */
            if (over->items[i] == row)
                over->items[i] = old;
            else
                ytree_free(old);
        }
        base->count = keep;
        if (!placed) {
            if (seq_append(base, row))
                return -1;
            over->items[i] = NULL;
        }
    }
    return 0;
}

/* Lays over onto base (both mappings): a key both hold as mappings merges, any other value of over replaces
 * base's (the canned list excepted: merge_canned), a key base lacks is added. Nodes move from over to base;
 * over keeps what they replaced. A moved value is marked overridden, so it wins over the base's other spelling of the same field (ctxsw over ctxsw_us). */
static int merge(struct ynode *base, struct ynode *over)
{
    for (size_t i = 0; i < over->count; i++) {
        const char *k = over->keys[i]->scalar;
        size_t j = 0;
        while (j < base->count && strcmp(base->keys[j]->scalar, k))
            j++;
        if (j < base->count) {
            if (base->items[j]->kind == YNODE_MAP && over->items[i]->kind == YNODE_MAP) {
                if (merge(base->items[j], over->items[i]))
                    return -1;
            } else if (!strcmp(k, "canned") && base->items[j]->kind == YNODE_SEQ &&
                       over->items[i]->kind == YNODE_SEQ) {
                if (merge_canned(base->items[j], over->items[i]))
                    return -1;
            } else {
                struct ynode *old = base->items[j];
                over->items[i]->overridden = true;
                base->items[j] = over->items[i];
                over->items[i] = old;
            }
            continue;
        }
        if (base->count == base->cap) {
            size_t cap = base->cap ? base->cap * 2 : 8;
            struct ynode **keys = realloc(base->keys, cap * sizeof(*keys));
            if (!keys)
                return -1;
            base->keys = keys;
            struct ynode **items = realloc(base->items, cap * sizeof(*items));
            if (!items)
                return -1;
            base->items = items;
            base->cap = cap;
        }
        over->items[i]->overridden = true;
        base->keys[base->count] = over->keys[i];
        base->items[base->count++] = over->items[i];
        over->keys[i] = over->items[i] = NULL;
    }
    return 0;
}

/* The document of a base profile: a built-in name, else a path relative to the directory of `from`. */
static struct ynode *load_base(const char *from, const struct ynode *name, char *path, size_t pathlen, char *err,
                               size_t errlen)
{
    for (const struct profile_builtin *b = profile_builtins; b->name; b++)
        if (!strcmp(b->name, name->scalar)) {
            snprintf(path, pathlen, "%s", b->file);
            return ytree_parse(b->file, b->text, b->len, &base_limits, err, errlen);
        }
    const char *slash = strrchr(from, '/');
    int w = name->scalar[0] == '/' || !slash
                ? snprintf(path, pathlen, "%s", name->scalar)
                : snprintf(path, pathlen, "%.*s/%s", (int)(slash - from), from, name->scalar);
    if (w < 0 || (size_t)w >= pathlen) {
        snprintf(err, errlen, "%s:%u:%u: base '%s': path too long", from, name->line, name->column, name->scalar);
        return NULL;
    }
    if (!strchr(name->scalar, '/') && !strstr(name->scalar, ".yaml") && !strstr(name->scalar, ".yml")) {
        snprintf(err, errlen, "%s:%u:%u: base '%s': no built-in profile of that name (nvemu profile list)", from,
                 name->line, name->column, name->scalar);
        return NULL;
    }
    return ytree_load_file(path, &base_limits, err, errlen);
}

static int resolve(const char *file, struct ynode **root, int depth, char *err, size_t errlen)
{
    struct ynode *over = *root;
    if (over->kind != YNODE_MAP)
        return 0;
    size_t at = 0;
    while (at < over->count && strcmp(over->keys[at]->scalar, "base"))
        at++;
    if (at == over->count)
        return 0;
    const struct ynode *name = over->items[at];
    if (name->kind != YNODE_SCALAR || !name->scalar[0]) {
        snprintf(err, errlen, "%s:%u:%u: base must be a profile name or file", file, name->line, name->column);
        return -1;
    }
    if (depth >= BASE_MAX_DEPTH) {
        snprintf(err, errlen, "%s:%u:%u: base: more than %d profiles deep (a cycle?)", file, name->line, name->column,
                 BASE_MAX_DEPTH);
        return -1;
    }
    char path[1024];
    struct ynode *base = load_base(file, name, path, sizeof path, err, errlen);
    if (!base)
        return -1;
    if (resolve(path, &base, depth + 1, err, errlen)) {
        ytree_free(base);
        return -1;
    }
    if (base->kind != YNODE_MAP) {
        snprintf(err, errlen, "%s: a profile is a mapping", path);
        ytree_free(base);
        return -1;
    }
    /* the base key itself is not a profile field */
    ytree_free(over->keys[at]);
    ytree_free(over->items[at]);
    memmove(over->keys + at, over->keys + at + 1, (over->count - at - 1) * sizeof(*over->keys));
    memmove(over->items + at, over->items + at + 1, (over->count - at - 1) * sizeof(*over->items));
    over->count--;
    if (merge(base, over)) {
        snprintf(err, errlen, "%s: out of memory", file);
        ytree_free(base);
        return -1;
    }
    ytree_free(over);
    *root = base;
    return 0;
}

int profile_resolve_base(const char *file, struct ynode **root, char *err, size_t errlen)
{
    return resolve(file, root, 0, err, errlen);
}
