/*
 * The tree is built from libyaml's event stream with an explicit stack, so
 * nesting costs heap, not C stack, and the depth limit is checked on the
 * event that opens the level: libyaml's scanner does work per token that
 * grows with the flow nesting level, so refusing early keeps deep flow
 * collections linear.
 */
#include "yaml/ytree.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yaml.h>

/* No file either loader reads comes near these; larger input is a mistake or an attack. */
#define DEFAULT_MAX_BYTES (4u << 20)
#define DEFAULT_MAX_DEPTH 64u
#define DEFAULT_MAX_NODES (1u << 18)
#define DEFAULT_MAX_ENTRIES 4096u

struct frame {
    struct ynode *node;
    struct ynode *key;         /* a mapping's key whose value has not started yet */
};

struct builder {
    yaml_parser_t parser;
    const char *name;
    char *err;
    size_t errlen;
    struct ylimits lim;
    size_t nodes;
    struct frame *stack;
    uint32_t depth, stack_cap;
    struct ynode *root;
};

__attribute__((format(printf, 4, 5)))
static void fail_at(struct builder *b, size_t line, size_t col, const char *fmt, ...)
{
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    snprintf(b->err, b->errlen, "%s:%zu:%zu: %s", b->name, line, col, msg);
}

/* A scalar's text lives in its node's own allocation (scalar_node): one allocation per scalar, not two. */
static void free_one(struct ynode *n)
{
    free(n->keys);
    free(n->items);
    free(n);
}

/* A zeroed scalar node holding a copy of text (len bytes, NUL added), or NULL when out of memory. */
static struct ynode *scalar_node(const char *text, size_t len)
{
    struct ynode *n = len < SIZE_MAX - sizeof(*n) ? calloc(1, sizeof(*n) + len + 1) : NULL;
    if (!n)
        return NULL;
    n->kind = YNODE_SCALAR;
    n->scalar = (char *)(n + 1);
    memcpy(n->scalar, text, len);
    n->scalar[len] = '\0';
    n->len = len;
    return n;
}

void ytree_free(struct ynode *n)
{
    if (!n)
        return;
    /* Children are moved onto a work list instead of recursing. */
    size_t len = 0, cap = 16;
    struct ynode **work = malloc(cap * sizeof(*work));
    if (!work)
        return;
    work[len++] = n;
    while (len) {
        struct ynode *x = work[--len];
        size_t need = len + (x->keys ? 2 : 1) * x->count;
        if (need > cap) {
            size_t ncap = cap;
            while (ncap < need)
                ncap *= 2;
            struct ynode **nw = realloc(work, ncap * sizeof(*nw));
            if (!nw) {
                /* Out of memory while freeing: give up on this subtree rather than recurse. */
                free_one(x);
                continue;
            }
            work = nw;
            cap = ncap;
        }
        for (size_t i = 0; i < x->count; i++) {
            if (x->keys && x->keys[i])
                work[len++] = x->keys[i];
            if (x->items[i])
                work[len++] = x->items[i];
        }
        free_one(x);
    }
    free(work);
}

static int append(struct ynode *parent, struct ynode *key, struct ynode *item)
{
    if (parent->count == parent->cap) {
        size_t cap = parent->cap ? parent->cap * 2 : 4;
        struct ynode **items = realloc(parent->items, cap * sizeof(*items));
        if (!items)
            return -1;
        parent->items = items;
        if (parent->kind == YNODE_MAP) {
            struct ynode **keys = realloc(parent->keys, cap * sizeof(*keys));
            if (!keys)
                return -1;
            parent->keys = keys;
        }
        parent->cap = cap;
    }
    if (parent->kind == YNODE_MAP)
        parent->keys[parent->count] = key;
    parent->items[parent->count] = item;
    parent->count++;
    return 0;
}

/* A new node at m; a scalar gets its text (len bytes of text) in the same allocation. */
static struct ynode *node_new(struct builder *b, enum ynode_kind kind, const yaml_mark_t *m, const char *text,
                              size_t len)
{
    if (++b->nodes > b->lim.max_nodes) {
        fail_at(b, m->line + 1, m->column + 1, "more than %zu YAML nodes in one file", b->lim.max_nodes);
        return NULL;
    }
    struct ynode *n = kind == YNODE_SCALAR ? scalar_node(text, len) : calloc(1, sizeof(*n));
    if (!n) {
        fail_at(b, m->line + 1, m->column + 1, "out of memory");
        return NULL;
    }
    n->kind = kind;
    n->line = (uint32_t)m->line + 1;
    n->column = (uint32_t)m->column + 1;
    return n;
}

/* Hangs a finished or opening node under the innermost open collection; takes n in every case. */
static int attach(struct builder *b, struct ynode *n)
{
    if (!b->depth) {
        b->root = n;
        return 0;
    }
    struct frame *top = &b->stack[b->depth - 1];
    struct ynode *p = top->node;
    if (p->kind == YNODE_MAP && !top->key) {
        if (n->kind != YNODE_SCALAR) {
            fail_at(b, n->line, n->column, "mapping keys must be plain names");
            ytree_free(n);
            return -1;
        }
        for (size_t i = 0; i < p->count; i++) {
            const struct ynode *k = p->keys[i];
            if (k->len == n->len && memcmp(k->scalar, n->scalar, n->len) == 0) {
                fail_at(b, n->line, n->column, "duplicate key '%s' (first at line %u)", n->scalar, p->keys[i]->line);
                ytree_free(n);
                return -1;
            }
        }
        if (p->count >= b->lim.max_entries) {
            fail_at(b, n->line, n->column, "more than %zu keys in one mapping", b->lim.max_entries);
            ytree_free(n);
            return -1;
        }
        top->key = n;
        return 0;
    }
    if (p->kind == YNODE_SEQ && p->count >= b->lim.max_entries) {
        fail_at(b, n->line, n->column, "more than %zu items in one sequence", b->lim.max_entries);
        ytree_free(n);
        return -1;
    }
    if (append(p, top->key, n) != 0) {
        fail_at(b, n->line, n->column, "out of memory");
        ytree_free(n);
        return -1;
    }
    top->key = NULL;
    return 0;
}

static int push(struct builder *b, struct ynode *n)
{
    if (b->depth == b->stack_cap) {
        uint32_t cap = b->stack_cap ? b->stack_cap * 2 : 16;
        struct frame *s = realloc(b->stack, cap * sizeof(*s));
        if (!s) {
            fail_at(b, n->line, n->column, "out of memory");
            return -1;
        }
        b->stack = s;
        b->stack_cap = cap;
    }
    b->stack[b->depth++] = (struct frame){.node = n};
    return 0;
}

/* Refuses what a plain data file has no use for: anchors and tags on any node. */
static int plain_node(struct builder *b, const yaml_event_t *ev)
{
    const yaml_char_t *anchor = NULL, *tag = NULL;
    switch (ev->type) {
    case YAML_SCALAR_EVENT:
        anchor = ev->data.scalar.anchor;
        tag = ev->data.scalar.tag;
        break;
    case YAML_MAPPING_START_EVENT:
        anchor = ev->data.mapping_start.anchor;
        tag = ev->data.mapping_start.tag;
        break;
    case YAML_SEQUENCE_START_EVENT:
        anchor = ev->data.sequence_start.anchor;
        tag = ev->data.sequence_start.tag;
        break;
    default:
        break;
    }
    const yaml_mark_t *m = &ev->start_mark;
    if (anchor) {
        fail_at(b, m->line + 1, m->column + 1, "anchors (&%s) are not allowed in data files", (const char *)anchor);
        return -1;
    }
    if (tag) {
        fail_at(b, m->line + 1, m->column + 1, "tags (%s) are not allowed in data files", (const char *)tag);
        return -1;
    }
    return 0;
}

/* One event; 1 at the end of the stream, -1 on error. */
static int step(struct builder *b, yaml_event_t *ev, int *docs)
{
    const yaml_mark_t *m = &ev->start_mark;
    struct ynode *n;
    switch (ev->type) {
    case YAML_STREAM_START_EVENT:
    case YAML_DOCUMENT_END_EVENT:
    case YAML_NO_EVENT:
        return 0;
    case YAML_STREAM_END_EVENT:
        return 1;
    case YAML_DOCUMENT_START_EVENT:
        if (++*docs > 1) {
            fail_at(b, m->line + 1, m->column + 1, "a data file holds one YAML document; a second one starts here");
            return -1;
        }
        return 0;
    case YAML_ALIAS_EVENT:
        fail_at(b, m->line + 1, m->column + 1, "aliases are not allowed in data files");
        return -1;
    case YAML_SCALAR_EVENT:
        if (plain_node(b, ev) ||
            !(n = node_new(b, YNODE_SCALAR, m, (const char *)ev->data.scalar.value, ev->data.scalar.length)))
            return -1;
        n->quoted = ev->data.scalar.style == YAML_SINGLE_QUOTED_SCALAR_STYLE ||
                    ev->data.scalar.style == YAML_DOUBLE_QUOTED_SCALAR_STYLE;
        return attach(b, n);
    case YAML_MAPPING_START_EVENT:
    case YAML_SEQUENCE_START_EVENT:
        if (plain_node(b, ev) ||
            !(n = node_new(b, ev->type == YAML_MAPPING_START_EVENT ? YNODE_MAP : YNODE_SEQ, m, NULL, 0)))
            return -1;
        if (b->depth >= b->lim.max_depth) {
            fail_at(b, n->line, n->column, "nested deeper than %u levels", b->lim.max_depth);
            free(n);
            return -1;
        }
        return attach(b, n) != 0 ? -1 : push(b, n);
    case YAML_MAPPING_END_EVENT:
    case YAML_SEQUENCE_END_EVENT:
        b->depth--;
        return 0;
    }
    return 0;
}

struct ynode *ytree_parse(const char *name, const char *text, size_t len, const struct ylimits *lim, char *err,
                          size_t errlen)
{
    struct builder b = {.name = name, .err = err, .errlen = errlen};
    if (lim)
        b.lim = *lim;
    if (!b.lim.max_bytes)
        b.lim.max_bytes = DEFAULT_MAX_BYTES;
    if (!b.lim.max_depth)
        b.lim.max_depth = DEFAULT_MAX_DEPTH;
    if (!b.lim.max_nodes)
        b.lim.max_nodes = DEFAULT_MAX_NODES;
    if (!b.lim.max_entries)
        b.lim.max_entries = DEFAULT_MAX_ENTRIES;
    err[0] = '\0';
    if (len > b.lim.max_bytes) {
        snprintf(err, errlen, "%s:1:1: %zu bytes; a data file may hold at most %zu", name, len, b.lim.max_bytes);
        return NULL;
    }
    if (!yaml_parser_initialize(&b.parser)) {
        snprintf(err, errlen, "%s:1:1: cannot initialise the YAML parser", name);
        return NULL;
    }
    yaml_parser_set_input_string(&b.parser, (const unsigned char *)text, len);
    int docs = 0, rc = 0;
    while (rc == 0) {
        yaml_event_t ev;
        if (!yaml_parser_parse(&b.parser, &ev)) {
            fail_at(&b, b.parser.problem_mark.line + 1, b.parser.problem_mark.column + 1, "%s",
                    b.parser.problem ? b.parser.problem : "YAML syntax error");
            rc = -1;
            break;
        }
        rc = step(&b, &ev, &docs);
        yaml_event_delete(&ev);
    }
    yaml_parser_delete(&b.parser);
    /* Keys whose values never started belong to no node yet. */
    for (uint32_t i = 0; i < b.depth; i++)
        ytree_free(b.stack[i].key);
    free(b.stack);
    if (rc < 0) {
        ytree_free(b.root);
        return NULL;
    }
    if (!b.root)
        snprintf(err, errlen, "%s:1:1: empty document", name);
    return b.root;
}

static void too_big(const char *path, size_t max_bytes, char *err, size_t errlen)
{
    snprintf(err, errlen, "%s:1:1: more than %zu bytes; a data file may hold at most that", path, max_bytes);
}

char *ytree_read_file(const char *path, size_t max_bytes, size_t *len, char *err, size_t errlen)
{
    if (!max_bytes)
        max_bytes = DEFAULT_MAX_BYTES;
    bool is_stdin = strcmp(path, "-") == 0;
    int fd = is_stdin ? STDIN_FILENO : open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return NULL;
    }
    struct stat st;
    if (!is_stdin) {
        if (fstat(fd, &st) != 0) {
            snprintf(err, errlen, "%s: %s", path, strerror(errno));
            close(fd);
            return NULL;
        }
        if (!S_ISREG(st.st_mode)) {
            snprintf(err, errlen, "%s: %s", path,
                     S_ISDIR(st.st_mode) ? "is a directory, not a file"
                     : S_ISFIFO(st.st_mode) ? "is a FIFO, not a regular file (use '-' to read standard input)"
                                           : "is not a regular file");
            close(fd);
            return NULL;
        }
        if ((uint64_t)st.st_size > max_bytes) {
            snprintf(err, errlen, "%s:1:1: %lld bytes; a data file may hold at most %zu", path, (long long)st.st_size,
                     max_bytes);
            close(fd);
            return NULL;
        }
    }
    /* O_NONBLOCK stays on: a regular file's data never "would block", but a file that only looks
     * regular (/proc/kmsg, a driver's or FUSE file honouring the flag) answers EAGAIN instead of
     * holding the reader forever. */
    size_t cap = is_stdin ? 65536 : (size_t)st.st_size + 1, n = 0;
    char *buf = malloc(cap + 1);
    for (;;) {
        if (!buf) {
            snprintf(err, errlen, "%s: out of memory", path);
            break;
        }
        if (n == cap) {
            if (cap > max_bytes) {
                too_big(path, max_bytes, err, errlen);
                break;
            }
            size_t ncap = cap * 2 > max_bytes + 1 ? max_bytes + 1 : cap * 2;
            char *nb = realloc(buf, ncap + 1);
            if (!nb) {
                snprintf(err, errlen, "%s: out of memory", path);
                break;
            }
            buf = nb;
            cap = ncap;
        }
        ssize_t r = read(fd, buf + n, cap - n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) && !is_stdin) {
            snprintf(err, errlen, "%s: reading it would block; not a data file", path);
            break;
        }
        if (r < 0) {
            snprintf(err, errlen, "%s: %s", path, strerror(errno));
            break;
        }
        if (r == 0) {
            if (!is_stdin)
                close(fd);
            if (n > max_bytes) {
                too_big(path, max_bytes, err, errlen);
                free(buf);
                return NULL;
            }
            buf[n] = '\0';
            *len = n;
            return buf;
        }
        n += (size_t)r;
    }
    if (!is_stdin)
        close(fd);
    free(buf);
    return NULL;
}

struct ynode *ytree_load_file(const char *path, const struct ylimits *lim, char *err, size_t errlen)
{
    size_t len = 0;
    char *text = ytree_read_file(path, lim ? lim->max_bytes : 0, &len, err, errlen);
    if (!text)
        return NULL;
    struct ynode *root = ytree_parse(path, text, len, lim, err, errlen);
    free(text);
    return root;
}

const struct ynode *ytree_get(const struct ynode *map, const char *key)
{
    if (!map || map->kind != YNODE_MAP)
        return NULL;
    for (size_t i = 0; i < map->count; i++)
        if (strcmp(map->keys[i]->scalar, key) == 0)
            return map->items[i];
    return NULL;
}

const char *ytree_kind_name(enum ynode_kind k)
{
    static const char *const names[] = {"a scalar", "a mapping", "a sequence"};
    return names[k];
}

/* ---- overrides ---- */

static struct ynode *scalar_at(const char *text, size_t len, const struct ynode *where)
{
    struct ynode *n = scalar_node(text, len);
    if (!n)
        return NULL;
    n->line = where->line;
    n->column = where->column;
    n->overridden = true;
    return n;
}

/* Index of the item a segment names in a sequence, or -1. */
static long seq_index(const struct ynode *seq, const char *seg, size_t seglen)
{
    if (seglen && strspn(seg, "0123456789") >= seglen) {
        long idx = 0;
        for (size_t i = 0; i < seglen && idx <= (long)seq->count; i++)
            idx = idx * 10 + (seg[i] - '0');
        return idx < (long)seq->count ? idx : -1;
    }
    for (size_t i = 0; i < seq->count; i++) {
        const struct ynode *name = ytree_get(seq->items[i], "name");
        if (name && name->kind == YNODE_SCALAR && name->len == seglen && !memcmp(name->scalar, seg, seglen))
            return (long)i;
    }
    return -1;
}

int ytree_set_path(struct ynode *root, const char *assignment, char *err, size_t errlen)
{
    const char *eq = strchr(assignment, '=');
    size_t plen = eq ? (size_t)(eq - assignment) : 0;
    if (!eq || !plen || assignment[0] == '.' || assignment[plen - 1] == '.' || memmem(assignment, plen, "..", 2)) {
        snprintf(err, errlen, "override '%s': write PATH=VALUE with a dotted PATH (e.g. tasks.be.count=4)",
                 assignment);
        return -1;
    }
    const char *value = eq + 1;
    struct ynode *node = root;
    const char *seg = assignment;
    for (;;) {
        const char *dot = memchr(seg, '.', (size_t)(eq - seg));
        size_t seglen = dot ? (size_t)(dot - seg) : (size_t)(eq - seg);
        bool last = !dot;
        struct ynode **slot = NULL;
        if (node->kind == YNODE_MAP) {
            for (size_t i = 0; i < node->count && !slot; i++)
                if (node->keys[i]->len == seglen && !memcmp(node->keys[i]->scalar, seg, seglen))
                    slot = &node->items[i];
            if (!slot) {
                struct ynode *key = scalar_at(seg, seglen, node);
                struct ynode *val = last ? scalar_at(value, strlen(value), node) : calloc(1, sizeof(*val));
                if (val && !last) {
                    val->kind = YNODE_MAP;
                    val->line = node->line;
                    val->column = node->column;
                    val->overridden = true;
                }
                if (!key || !val || append(node, key, val) != 0) {
                    ytree_free(key);
                    ytree_free(val);
                    snprintf(err, errlen, "override '%s': out of memory", assignment);
                    return -1;
                }
                slot = &node->items[node->count - 1];
                if (last)
                    return 0;
            }
        } else if (node->kind == YNODE_SEQ) {
            long idx = seq_index(node, seg, seglen);
            if (idx < 0) {
                snprintf(err, errlen, "override '%s': no '%.*s' in the sequence at line %u (give an index or "
                         "an item's name)", assignment, (int)seglen, seg, node->line);
                return -1;
            }
            slot = &node->items[idx];
        } else {
            snprintf(err, errlen, "override '%s': '%.*s' is inside a scalar (line %u)", assignment,
                     (int)(seg - assignment - 1), assignment, node->line);
            return -1;
        }
        if (last) {
            struct ynode *val = scalar_at(value, strlen(value), *slot);
            if (!val) {
                snprintf(err, errlen, "override '%s': out of memory", assignment);
                return -1;
            }
            ytree_free(*slot);
            *slot = val;
            return 0;
        }
        node = *slot;
        seg = dot + 1;
    }
}
