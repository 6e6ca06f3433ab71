/*
 * The policy's report (bpf_policy_internal.h): the final contents of the object's maps and global
 * data as JSON.
 */
#include "bpf/bpf_policy_internal.h"

#include <bpf/btf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpf/bpf_btf_json.h"

/* A JSON string of any text (a map's name comes from the object's symbols: quotes, backslashes, control bytes). */
static void json_name(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20 || c == 0x7f)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

/* JSON string of bytes: printable text up to the first NUL, else hex. */
static void json_bytes(FILE *f, const uint8_t *b, uint32_t n, bool as_string)
{
    uint32_t len = 0;
    while (as_string && len < n && b[len] >= 0x20 && b[len] < 0x7f && b[len] != '"' && b[len] != '\\')
        len++;
    bool text = as_string && len > 0;
    for (uint32_t i = len; text && i < n; i++)
        text = b[i] == 0;
    if (text) {
        fprintf(f, "\"%.*s\"", (int)len, (const char *)b);
        return;
    }
    if (n == 1 || n == 2 || n == 4 || n == 8) {
        uint64_t v = 0;
        for (uint32_t i = 0; i < n; i++)
            v |= (uint64_t)b[i] << (8 * i);
        fprintf(f, "%" PRIu64, v);
        return;
    }
    fputs("\"0x", f);
    for (uint32_t i = 0; i < n; i++)
        fprintf(f, "%02x", b[i]);
    fputc('"', f);
}

/* A map value: decoded through its BTF type when the object describes it, else as before (number or hex). */
static void map_value_json(FILE *f, const struct bpf_obj *obj, const struct bpf_obj_map *m, const uint8_t *val)
{
    if (m->value_btf)
        bpf_btf_json(f, bpf_obj_btf(obj), m->value_btf, val, m->def.value_size);
    else
        json_bytes(f, val, m->def.value_size, false);
}

/* A data section as {variable: value}: its variables from the symbol table, their types from BTF. */
static void data_section_json(FILE *f, const struct bpf_obj *obj, uint32_t mi, const uint8_t *val)
{
    const struct btf *btf = bpf_obj_btf(obj);
    fputc('{', f);
    bool first = true;
    for (uint32_t i = 0; i < obj->n_vars; i++) {
        const struct bpf_obj_var *v = &obj->vars[i];
        if (v->map != mi || v->offset > obj->maps[mi].def.value_size ||
            v->size > obj->maps[mi].def.value_size - v->offset)
            continue;
        int var = btf ? btf__find_by_name_kind(btf, v->name, BTF_KIND_VAR) : -1;
        const struct btf_type *vt = var > 0 ? btf__type_by_id(btf, (uint32_t)var) : NULL;
        fprintf(f, "%s\"%s\":", first ? "" : ",", v->name);
        first = false;
        bpf_btf_json(f, btf, vt ? vt->type : 0, val + v->offset, v->size);
    }
    fputc('}', f);
}

/*
 * The final contents of the object's maps and global data as gpu_ext's loaders print them:
 * {"map": {"key": value, ...}, ".bss": {"variable": value, ...}}, values decoded through BTF.
 */
char *bpf_policy_report_json(void *state)
{
    struct bpf_policy *p = state;
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return NULL;
    fputc('{', f);
    bool first_map = true;
    for (uint32_t i = 0; i < p->obj->n_maps; i++) {
        struct bpf_obj_map *m = &p->obj->maps[i];
        if (m->kind != BPF_OBJ_MAP_USER) {
            uint32_t zero = 0;
            const uint8_t *val = bpf_map_lookup(m->map, &zero);
            if (!val)
                continue;
            fprintf(f, "%s\"%s\":", first_map ? "" : ",", m->name);
            first_map = false;
            data_section_json(f, p->obj, i, val);
            continue;
        }
        if (m->def.type == BPF_MAP_TYPE_RINGBUF || m->def.key_size > 256)
            continue;
        fputs(first_map ? "" : ",", f);
        json_name(f, m->name);
        fputc(':', f);
        fputc('{', f);
        first_map = false;
        uint8_t *key = calloc(2, m->def.key_size + 1);
        uint8_t *next = key ? key + m->def.key_size + 1 : NULL;
        bool first = true;
        for (int rc = key ? bpf_map_get_next_key(m->map, NULL, next) : -1; rc == 0;
             rc = bpf_map_get_next_key(m->map, key, next)) {
            memcpy(key, next, m->def.key_size);
            const uint8_t *val = bpf_map_lookup(m->map, key);
            if (!val)
                continue;
            fputs(first ? "" : ",", f);
            first = false;
            if (m->key_is_string) {
                json_bytes(f, key, m->def.key_size, true);
            } else {
                fputc('"', f);
                uint64_t v = 0;
                for (uint32_t b = 0; b < m->def.key_size && b < 8; b++)
                    v |= (uint64_t)key[b] << (8 * b);
                if (m->def.key_size <= 8)
                    fprintf(f, "%" PRIu64, v);
                else
                    for (uint32_t b = 0; b < m->def.key_size; b++)
                        fprintf(f, "%02x", key[b]);
                fputc('"', f);
            }
            fputc(':', f);
            map_value_json(f, p->obj, m, val);
        }
        free(key);
        fputc('}', f);
    }
    fputc('}', f);
    fclose(f);
    return text;
}
