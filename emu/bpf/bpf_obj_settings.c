/*
 * The settings pass (bpf_obj.h: bpf_obj_set_var, bpf_obj_map_set): a loader's configuration written
 * into global variables and maps after the object is opened and before its first run.
 */
#include "bpf/bpf_obj_internal.h"

#include <bpf/btf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Parses a decimal or 0x number that fits in size bytes. */
static int parse_number(const char *s, uint32_t size, uint64_t *out)
{
    if (!s || !*s || *s == '-' || *s == '+' || *s == ' ')
        return -1;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 0);
    if (errno || *end)
        return -1;
    if (size < 8 && v >> (size * 8))
        return -1;
    *out = v;
    return 0;
}

/* Fills buf (size bytes) from a value string: a string for char arrays, else a little-endian number. */
static int encode(const char *value, bool is_string, uint32_t size, uint8_t *buf, char *err, size_t errlen,
                  const char *what)
{
    memset(buf, 0, size);
    if (is_string) {
        size_t n = strlen(value);
        if (n >= size) {
            snprintf(err, errlen, "%s: '%s' does not fit in %u bytes with its NUL", what, value, size);
            return -1;
        }
        memcpy(buf, value, n);
        return 0;
    }
    uint64_t v;
    if ((size != 1 && size != 2 && size != 4 && size != 8) || parse_number(value, size, &v)) {
        snprintf(err, errlen, "%s: '%s' is not a number that fits in %u bytes", what, value, size);
        return -1;
    }
    for (uint32_t i = 0; i < size; i++)
        buf[i] = (uint8_t)(v >> (8 * i));
    return 0;
}

int bpf_obj_set_var(struct bpf_obj *obj, const char *var, const char *value, char *err, size_t errlen)
{
    for (uint32_t i = 0; i < obj->n_vars; i++) {
        const struct bpf_obj_var *v = &obj->vars[i];
        if (strcmp(v->name, var) != 0)
            continue;
        int tid = btf__find_by_name_kind(obj->priv->btf, var, BTF_KIND_VAR);
        bool is_string = tid > 0 && bpf_obj_btf_is_char_array(obj->priv->btf,
                                                               btf__type_by_id(obj->priv->btf, (uint32_t)tid)->type);
        uint32_t size = 0;
        uint8_t *base = bpf_map_value_base(obj->maps[v->map].map, &size);
        if (!base || v->offset > size || v->size > size - v->offset) {
            snprintf(err, errlen, "variable %s lies outside its section", var);
            return -1;
        }
        uint8_t tmp[256];
        if (v->size > sizeof tmp) {
            snprintf(err, errlen, "variable %s: %u bytes cannot be set from a string", var, v->size);
            return -1;
        }
        if (encode(value, is_string, v->size, tmp, err, errlen, var))
            return -1;
        memcpy(base + v->offset, tmp, v->size);
        return 0;
    }
    snprintf(err, errlen, "no global variable '%s' in %s", var, obj->path);
    return -1;
}

int bpf_obj_map_set(struct bpf_obj *obj, const char *map, const char *key, const char *value, char *err,
                    size_t errlen)
{
    struct bpf_obj_map *m = bpf_obj_find_map(obj, map);
    if (!m || m->kind != BPF_OBJ_MAP_USER) {
        snprintf(err, errlen, "no map '%s' in %s", map, obj->path);
        return -1;
    }
    if (m->def.type == BPF_MAP_TYPE_RINGBUF || m->def.key_size > 256 || m->def.value_size > 4096) {
        snprintf(err, errlen, "map %s cannot be filled from the configuration", map);
        return -1;
    }
    uint8_t *k = calloc(1, m->def.key_size + 1), *v = calloc(1, m->def.value_size + 1);
    int rc = -1;
    char what[96];
    snprintf(what, sizeof what, "map %s key", map);
    if (k && v && !encode(key, m->key_is_string, m->def.key_size, k, err, errlen, what)) {
        snprintf(what, sizeof what, "map %s value", map);
        if (!encode(value, false, m->def.value_size, v, err, errlen, what)) {
            int e = bpf_map_update(m->map, k, v, BPF_ANY);
            if (e)
                snprintf(err, errlen, "map %s: update of key '%s' failed (%s)", map, key, strerror(-e));
            else
                rc = 0;
        }
    }
    free(k);
    free(v);
    return rc;
}
