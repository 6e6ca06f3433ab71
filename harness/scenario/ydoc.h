/*
 * A YAML document as a small tree that remembers where every node was
 * written, so that the scenario validator can answer "file:line:column:
 * message" for any value it refuses. Anchors/aliases and tags are refused:
 * a scenario file is plain data.
 */
#ifndef NVEMU_SCENARIO_YDOC_H
#define NVEMU_SCENARIO_YDOC_H

#include <stddef.h>
#include <stdint.h>

enum ynode_kind { YNODE_SCALAR, YNODE_MAP, YNODE_SEQ };

struct ynode {
    enum ynode_kind kind;
    uint32_t line, column;     /* 1-based position of the node's first character */
    char *scalar;              /* YNODE_SCALAR: the text (never NULL) */
    int quoted;                /* YNODE_SCALAR: written in quotes (so "1" is a string) */
    size_t count;              /* YNODE_MAP: pairs; YNODE_SEQ: items */
    struct ynode **keys;       /* YNODE_MAP: scalar keys, in file order */
    struct ynode **items;      /* YNODE_MAP: values; YNODE_SEQ: items */
};

/*
 * Parses the first document of a file. Returns NULL and writes
 * "file:line:column: message" into err on a syntax error, an alias, a
 * non-scalar key, a duplicate key or an empty file.
 */
struct ynode *ydoc_load_file(const char *path, char *err, size_t errlen);

/* Same for a string already in memory; `name` is used in messages. */
struct ynode *ydoc_load_string(const char *name, const char *text, size_t len, char *err, size_t errlen);

/* Frees n and its whole subtree; NULL is a no-op. */
void ydoc_free(struct ynode *n);

/* Value of `key` in a map node, or NULL. */
const struct ynode *ydoc_get(const struct ynode *map, const char *key);

/* Name of a node kind for messages ("a scalar", "a mapping", "a sequence"). */
const char *ydoc_kind_name(enum ynode_kind k);

#endif
