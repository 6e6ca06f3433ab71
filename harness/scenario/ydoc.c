#include "ydoc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

struct builder {
    yaml_parser_t parser;
    const char *name;
    char *err;
    size_t errlen;
};

static struct ynode *node_new(enum ynode_kind kind, const yaml_mark_t *m)
{
    struct ynode *n = calloc(1, sizeof(*n));
    if (!n)
        return NULL;
    n->kind = kind;
    n->line = (uint32_t)m->line + 1;
    n->column = (uint32_t)m->column + 1;
    return n;
}

void ydoc_free(struct ynode *n)
{
    if (!n)
        return;
    for (size_t i = 0; i < n->count; i++) {
        if (n->keys)
            ydoc_free(n->keys[i]);
        ydoc_free(n->items[i]);
    }
    free(n->keys);
    free(n->items);
    free(n->scalar);
    free(n);
}

static int append(struct ynode *parent, struct ynode *key, struct ynode *item)
{
    size_t cap = parent->count + 1;
    struct ynode **items = realloc(parent->items, cap * sizeof(*items));
    if (!items)
        return -1;
    parent->items = items;
    if (parent->kind == YNODE_MAP) {
        struct ynode **keys = realloc(parent->keys, cap * sizeof(*keys));
        if (!keys)
            return -1;
        parent->keys = keys;
        parent->keys[parent->count] = key;
    }
    parent->items[parent->count] = item;
    parent->count++;
    return 0;
}

static void fail_at(struct builder *b, const yaml_mark_t *m, const char *msg)
{
    snprintf(b->err, b->errlen, "%s:%zu:%zu: %s", b->name, m->line + 1, m->column + 1, msg);
}

/* The parser's next event, or -1 with the syntax error's position in b->err. */
static int next_event(struct builder *b, yaml_event_t *ev)
{
    if (yaml_parser_parse(&b->parser, ev))
        return 0;
    fail_at(b, &b->parser.problem_mark, b->parser.problem ? b->parser.problem : "YAML syntax error");
    return -1;
}

static struct ynode *build_node(struct builder *b, yaml_event_t *ev);

/* Reads children until the closing event of a mapping or sequence. */
static int build_children(struct builder *b, struct ynode *parent, yaml_event_type_t end)
{
    for (;;) {
        yaml_event_t ev;
        if (next_event(b, &ev) != 0) {
            return -1;
        }
        if (ev.type == end) {
            yaml_event_delete(&ev);
            return 0;
        }
        struct ynode *key = NULL;
        if (parent->kind == YNODE_MAP) {
            key = build_node(b, &ev);
            if (!key)
                return -1;
            if (key->kind != YNODE_SCALAR) {
                snprintf(b->err, b->errlen, "%s:%u:%u: mapping keys must be plain names", b->name,
                         key->line, key->column);
                ydoc_free(key);
                return -1;
            }
            for (size_t i = 0; i < parent->count; i++) {
                if (strcmp(parent->keys[i]->scalar, key->scalar) == 0) {
                    snprintf(b->err, b->errlen, "%s:%u:%u: duplicate key '%s' (first at line %u)", b->name,
                             key->line, key->column, key->scalar, parent->keys[i]->line);
                    ydoc_free(key);
                    return -1;
                }
            }
            if (!yaml_parser_parse(&b->parser, &ev)) {
                snprintf(b->err, b->errlen, "%s:%zu:%zu: %s", b->name, b->parser.problem_mark.line + 1,
                         b->parser.problem_mark.column + 1,
                         b->parser.problem ? b->parser.problem : "YAML syntax error");
                ydoc_free(key);
                return -1;
            }
        }
        struct ynode *item = build_node(b, &ev);
        if (!item || append(parent, key, item) != 0) {
            if (item && !b->err[0])
                snprintf(b->err, b->errlen, "%s: out of memory", b->name);
            ydoc_free(key);
            ydoc_free(item);
            return -1;
        }
    }
}

/* Builds the node that starts with *ev (consumed here). */
static struct ynode *build_node(struct builder *b, yaml_event_t *ev)
{
    struct ynode *n = NULL;
    switch (ev->type) {
    case YAML_SCALAR_EVENT:
        n = node_new(YNODE_SCALAR, &ev->start_mark);
        if (n) {
            n->scalar = strndup((const char *)ev->data.scalar.value, ev->data.scalar.length);
            n->quoted = ev->data.scalar.style == YAML_SINGLE_QUOTED_SCALAR_STYLE ||
                        ev->data.scalar.style == YAML_DOUBLE_QUOTED_SCALAR_STYLE;
            if (!n->scalar) {
                free(n);
                n = NULL;
            }
        }
        break;
    case YAML_MAPPING_START_EVENT:
    case YAML_SEQUENCE_START_EVENT: {
        int is_map = ev->type == YAML_MAPPING_START_EVENT;
        n = node_new(is_map ? YNODE_MAP : YNODE_SEQ, &ev->start_mark);
        yaml_event_delete(ev);
        if (n && build_children(b, n, is_map ? YAML_MAPPING_END_EVENT : YAML_SEQUENCE_END_EVENT) != 0) {
            ydoc_free(n);
            return NULL;
        }
        if (!n)
            snprintf(b->err, b->errlen, "%s: out of memory", b->name);
        return n;
    }
    case YAML_ALIAS_EVENT:
        fail_at(b, &ev->start_mark, "aliases are not allowed in scenario files");
        break;
    default:
        fail_at(b, &ev->start_mark, "unexpected YAML construct");
        break;
    }
    yaml_event_delete(ev);
    return n;
}

static struct ynode *load(struct builder *b)
{
    struct ynode *root = NULL;
    b->err[0] = '\0';
    for (;;) {
        yaml_event_t ev;
        if (next_event(b, &ev) != 0) {
            ydoc_free(root);
            return NULL;
        }
        yaml_event_type_t t = ev.type;
        if (t == YAML_STREAM_END_EVENT || (t == YAML_DOCUMENT_END_EVENT && root)) {
            yaml_event_delete(&ev);
            break;
        }
        if (t == YAML_STREAM_START_EVENT || t == YAML_DOCUMENT_START_EVENT || t == YAML_DOCUMENT_END_EVENT) {
            yaml_event_delete(&ev);
            continue;
        }
        root = build_node(b, &ev);
        if (!root)
            return NULL;
    }
    if (!root)
        snprintf(b->err, b->errlen, "%s:1:1: empty scenario file", b->name);
    return root;
}

struct ynode *ydoc_load_string(const char *name, const char *text, size_t len, char *err, size_t errlen)
{
    struct builder b = {.name = name, .err = err, .errlen = errlen};
    if (!yaml_parser_initialize(&b.parser)) {
        snprintf(err, errlen, "%s: cannot initialise the YAML parser", name);
        return NULL;
    }
    yaml_parser_set_input_string(&b.parser, (const unsigned char *)text, len);
    struct ynode *root = load(&b);
    yaml_parser_delete(&b.parser);
    return root;
}

struct ynode *ydoc_load_file(const char *path, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return NULL;
    }
    struct builder b = {.name = path, .err = err, .errlen = errlen};
    if (!yaml_parser_initialize(&b.parser)) {
        fclose(f);
        snprintf(err, errlen, "%s: cannot initialise the YAML parser", path);
        return NULL;
    }
    yaml_parser_set_input_file(&b.parser, f);
    struct ynode *root = load(&b);
    yaml_parser_delete(&b.parser);
    fclose(f);
    return root;
}

const struct ynode *ydoc_get(const struct ynode *map, const char *key)
{
    if (!map || map->kind != YNODE_MAP)
        return NULL;
    for (size_t i = 0; i < map->count; i++)
        if (strcmp(map->keys[i]->scalar, key) == 0)
            return map->items[i];
    return NULL;
}

const char *ydoc_kind_name(enum ynode_kind k)
{
    static const char *const names[] = {"a scalar", "a mapping", "a sequence"};
    return names[k];
}
