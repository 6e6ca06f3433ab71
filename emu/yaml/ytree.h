/*
 * A YAML document as a small tree that remembers where every node was
 * written, so that a loader can answer "file:line:column: message" for any
 * value it refuses. The profile and scenario loaders both read files through
 * it. A data file is plain data: anchors, aliases, tags and a second document
 * are refused where they are written, and size, depth and count limits are
 * checked while the file is parsed, before anything large is built.
 */
#ifndef NVEMU_YAML_YTREE_H
#define NVEMU_YAML_YTREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum ynode_kind { YNODE_SCALAR, YNODE_MAP, YNODE_SEQ };

struct ynode {
    enum ynode_kind kind;
    uint32_t line, column;     /* 1-based position of the node's first character */
    bool quoted;               /* YNODE_SCALAR: written in quotes (so "1" is a string) */
    bool overridden;           /* set by ytree_set_path, not read from the file */
    char *scalar;              /* YNODE_SCALAR: the text, NUL-terminated (never NULL) */
    size_t len;                /* YNODE_SCALAR: bytes of text (it may hold a NUL written as \0) */
    size_t count;              /* YNODE_MAP: pairs; YNODE_SEQ: items */
    size_t cap;
    struct ynode **keys;       /* YNODE_MAP: scalar keys, in file order */
    struct ynode **items;      /* YNODE_MAP: values; YNODE_SEQ: items */
};

/* Limits a file must stay within; 0 in a field means that field's default (see ytree.c). */
struct ylimits {
    size_t max_bytes;          /* file size */
    uint32_t max_depth;        /* nested mappings/sequences */
    size_t max_nodes;          /* every scalar, mapping and sequence */
    size_t max_entries;        /* pairs of one mapping, items of one sequence */
};

/*
 * Parses the one document of `len` bytes of text. `name` is used in
 * messages. Returns the root or NULL with "name:line:column: message" in err
 * (syntax error, alias, anchor, tag, second document, non-scalar or duplicate
 * key, a limit exceeded, empty document). lim may be NULL (defaults).
 */
struct ynode *ytree_parse(const char *name, const char *text, size_t len, const struct ylimits *lim, char *err,
                          size_t errlen);

/*
 * Reads a whole file into memory (NUL-terminated, length in *len). "-" is
 * standard input. A directory, FIFO, device or other non-regular file, and a
 * file over max_bytes, are refused with "path: message" in err without
 * reading it (a FIFO is not opened for reading, so a missing writer cannot
 * block); a file that looks regular but whose read would block (/proc/kmsg)
 * is refused too. Returns NULL on failure; free() the result.
 */
char *ytree_read_file(const char *path, size_t max_bytes, size_t *len, char *err, size_t errlen);

/* ytree_read_file + ytree_parse; messages name `path`. */
struct ynode *ytree_load_file(const char *path, const struct ylimits *lim, char *err, size_t errlen);

/* Frees n and its whole subtree; NULL is a no-op. Iterative: any depth is safe. */
void ytree_free(struct ynode *n);

/* Value of `key` in a map node, or NULL. */
const struct ynode *ytree_get(const struct ynode *map, const char *key);

/* "a scalar", "a mapping", "a sequence", for messages. */
const char *ytree_kind_name(enum ynode_kind k);

/*
 * Applies "dotted.path=value" to a tree before it is validated, the way a
 * command-line override (`--set tasks.be.count=4`) or a profile override
 * reaches a loader. Path segments walk mappings by key and sequences by
 * index ("tasks.0") or, for a sequence of mappings, by the item whose `name`
 * is the segment ("tasks.be"). The last segment's value is replaced by the
 * scalar `value` (a plain, unquoted scalar; the empty string is allowed), or
 * added when the mapping lacks it; a missing intermediate mapping is created.
 * The new node keeps the position of what it replaces (or of its parent
 * mapping) and is marked `overridden`, so a schema walker may let it win over
 * another spelling of the same field. Returns 0, or -1 with "override
 * 'PATH': message" in err (bad syntax, a path through a scalar, an index out
 * of range, no item named so).
 */
int ytree_set_path(struct ynode *root, const char *assignment, char *err, size_t errlen);

#endif
