#include "yoverride.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct ynode *scalar(const char *text, uint32_t line, uint32_t column)
{
    struct ynode *n = calloc(1, sizeof *n);
    if (!n || !(n->scalar = strdup(text))) {
        free(n);
        return NULL;
    }
    n->kind = YNODE_SCALAR;
    n->line = line;
    n->column = column;
    return n;
}

/* Index of the child named seg in a map or sequence node, or -1. */
static long child(const struct ynode *n, const char *seg)
{
    if (n->kind == YNODE_MAP) {
        for (size_t i = 0; i < n->count; i++)
            if (strcmp(n->keys[i]->scalar, seg) == 0)
                return (long)i;
        return -1;
    }
    if (n->kind != YNODE_SEQ)
        return -1;
    char *end;
    unsigned long idx = strtoul(seg, &end, 10);
    if (*seg && !*end)
        return idx < n->count ? (long)idx : -1;
    for (size_t i = 0; i < n->count; i++) {
        const struct ynode *name = n->items[i]->kind == YNODE_MAP ? ydoc_get(n->items[i], "name") : NULL;
        if (name && name->kind == YNODE_SCALAR && strcmp(name->scalar, seg) == 0)
            return (long)i;
    }
    return -1;
}

static int add_key(struct ynode *map, const char *key, struct ynode *value)
{
    struct ynode *k = scalar(key, value->line, value->column);
    struct ynode **keys = k ? realloc(map->keys, (map->count + 1) * sizeof *keys) : NULL;
    if (!keys) {
        ydoc_free(k);
        return -1;
    }
    map->keys = keys;
    struct ynode **items = realloc(map->items, (map->count + 1) * sizeof *items);
    if (!items) {
        ydoc_free(k);
        return -1;
    }
    map->items = items;
    map->keys[map->count] = k;
    map->items[map->count++] = value;
    return 0;
}

int ydoc_override(struct ynode *root, const char *path, const char *value, char *err, size_t errlen)
{
    char buf[256];
    if (!root || snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf || !*buf) {
        snprintf(err, errlen, "--set %.64s: bad path", path);
        return -1;
    }
    struct ynode *n = root;
    char *save = NULL;
    for (char *seg = strtok_r(buf, ".", &save); seg; seg = strtok_r(NULL, ".", &save)) {
        bool last = save == NULL || *save == '\0';
        long i = child(n, seg);
        if (i < 0 && !(last && n->kind == YNODE_MAP)) {
            snprintf(err, errlen, "--set %s: no '%s' in %s at line %u", path, seg, ydoc_kind_name(n->kind),
                     n->line);
            return -1;
        }
        if (!last) {
            n = n->items[i];
            continue;
        }
        struct ynode *v = scalar(value, i >= 0 ? n->items[i]->line : n->line, i >= 0 ? n->items[i]->column : n->column);
        if (!v || (i < 0 && add_key(n, seg, v) != 0)) {
            ydoc_free(v);
            snprintf(err, errlen, "--set %s: out of memory", path);
            return -1;
        }
        if (i >= 0) {
            ydoc_free(n->items[i]);
            n->items[i] = v;
        }
    }
    return 0;
}
