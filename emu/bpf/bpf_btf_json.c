/* BTF-typed values as JSON (bpf_btf_json.h). */
#include "bpf/bpf_btf_json.h"

#include <bpf/btf.h>
#include <inttypes.h>
#include <string.h>

#include "bpf/bpf_abi.h"

#define MAX_DEPTH 16

void bpf_btf_json_hex(FILE *f, const uint8_t *data, uint32_t size)
{
    fputs("\"0x", f);
    for (uint32_t i = 0; i < size; i++)
        fprintf(f, "%02x", data[i]);
    fputc('"', f);
}

static void json_string(FILE *f, const uint8_t *s, uint32_t n)
{
    fputc('"', f);
    for (uint32_t i = 0; i < n && s[i]; i++) {
        if (s[i] == '"' || s[i] == '\\')
            fprintf(f, "\\%c", s[i]);
        else if (s[i] < 0x20 || s[i] >= 0x7f)
            fprintf(f, "\\u%04x", s[i]);
        else
            fputc(s[i], f);
    }
    fputc('"', f);
}

/* Bits [bit_off, bit_off + bits) of data, little-endian. */
static uint64_t bits_at(const uint8_t *data, uint32_t size, uint32_t bit_off, uint32_t bits)
{
    uint64_t v = 0;
    for (uint32_t b = 0; b < bits && b < 64; b++) {
        uint32_t at = bit_off + b;
        if (at / 8 < size && (data[at / 8] >> (at % 8) & 1))
            v |= 1ull << b;
    }
    return v;
}

static void int_value(FILE *f, const struct btf_type *t, uint64_t v, uint32_t bits)
{
    uint8_t enc = btf_int_encoding(t);
    if (enc & BTF_INT_BOOL) {
        fputs(v ? "true" : "false", f);
    } else if ((enc & BTF_INT_SIGNED) && bits && bits < 64 && (v >> (bits - 1) & 1)) {
        fprintf(f, "%" PRId64, (int64_t)(v | ~0ull << bits));
    } else if ((enc & BTF_INT_SIGNED) && bits == 64) {
        fprintf(f, "%" PRId64, (int64_t)v);
    } else {
        fprintf(f, "%" PRIu64, v);
    }
}

static void value(FILE *f, const struct btf *btf, uint32_t type, const uint8_t *data, uint32_t size, int depth);

static void members(FILE *f, const struct btf *btf, const struct btf_type *t, const uint8_t *data, uint32_t size,
                    int depth)
{
    fputc('{', f);
    const struct btf_member *m = btf_members(t);
    bool first = true;
    for (int i = 0; i < btf_vlen(t); i++) {
        const char *name = btf__name_by_offset(btf, m[i].name_off);
        uint32_t bit_off = btf_member_bit_offset(t, (uint32_t)i), bits = btf_member_bitfield_size(t, (uint32_t)i);
        int64_t msz = btf__resolve_size(btf, m[i].type);
        fprintf(f, "%s\"%s\":", first ? "" : ",", name && *name ? name : "?");
        first = false;
        uint32_t id;
        const struct btf_type *mt = bpf_btf_skip_mods(btf, m[i].type, &id);
        if (bits || bit_off % 8) {
            uint32_t nbits = bits ? bits : (uint32_t)(msz > 0 ? msz * 8 : 0);
            if (mt && btf_is_int(mt))
                int_value(f, mt, bits_at(data, size, bit_off, nbits), nbits);
            else
                fprintf(f, "%" PRIu64, bits_at(data, size, bit_off, nbits));
            continue;
        }
        uint32_t off = bit_off / 8;
        if (msz < 0 || off > size || (uint64_t)msz > size - off) {
            fputs("null", f);
            continue;
        }
        value(f, btf, m[i].type, data + off, (uint32_t)msz, depth + 1);
    }
    fputc('}', f);
}

static void datasec(FILE *f, const struct btf *btf, const struct btf_type *t, const uint8_t *data, uint32_t size,
                    int depth)
{
    fputc('{', f);
    const struct btf_var_secinfo *v = btf_var_secinfos(t);
    bool first = true;
    for (int i = 0; i < btf_vlen(t); i++) {
        const struct btf_type *var = btf__type_by_id(btf, v[i].type);
        if (!var || !btf_is_var(var) || v[i].offset > size || v[i].size > size - v[i].offset)
            continue;
        const char *name = btf__name_by_offset(btf, var->name_off);
        fprintf(f, "%s\"%s\":", first ? "" : ",", name && *name ? name : "?");
        first = false;
        value(f, btf, var->type, data + v[i].offset, v[i].size, depth + 1);
    }
    fputc('}', f);
}

static void value(FILE *f, const struct btf *btf, uint32_t type, const uint8_t *data, uint32_t size, int depth)
{
    uint32_t id = 0;
    const struct btf_type *t = btf && type ? bpf_btf_skip_mods(btf, type, &id) : NULL;
    if (!t || depth > MAX_DEPTH) {
        bpf_btf_json_hex(f, data, size);
        return;
    }
    if (btf_is_int(t) || btf_is_enum(t) || btf_is_ptr(t) || btf_is_enum64(t)) {
        uint32_t n = t->size;
        if (btf_is_int(t))
            n = ((uint32_t)btf_int_bits(t) + 7) / 8;
        else if (btf_is_ptr(t))
            n = 8;
        if (n > size || n > 8) {
            bpf_btf_json_hex(f, data, size);
            return;
        }
        uint64_t v = 0;
        for (uint32_t i = 0; i < n; i++)
            v |= (uint64_t)data[i] << (8 * i);
        if (btf_is_int(t))
            int_value(f, t, v, btf_int_bits(t));
        else
            fprintf(f, "%" PRIu64, v);
        return;
    }
    if (btf_is_array(t)) {
        const struct btf_array *a = btf_array(t);
        const struct btf_type *e = bpf_btf_skip_mods(btf, a->type, NULL);
        int64_t esz = btf__resolve_size(btf, a->type);
        if (e && btf_is_int(e) && e->size == 1 && !(btf_int_encoding(e) & BTF_INT_BOOL)) {
            json_string(f, data, a->nelems < size ? a->nelems : size);
            return;
        }
        if (esz <= 0 || (uint64_t)esz * a->nelems > size) {
            bpf_btf_json_hex(f, data, size);
            return;
        }
        fputc('[', f);
        for (uint32_t i = 0; i < a->nelems; i++) {
            fputs(i ? "," : "", f);
            value(f, btf, a->type, data + i * (uint64_t)esz, (uint32_t)esz, depth + 1);
        }
        fputc(']', f);
        return;
    }
    if (btf_is_struct(t) || btf_is_union(t)) {
        members(f, btf, t, data, size, depth);
        return;
    }
    if (btf_is_datasec(t)) {
        datasec(f, btf, t, data, size, depth);
        return;
    }
    bpf_btf_json_hex(f, data, size);
}

void bpf_btf_json(FILE *f, const struct btf *btf, uint32_t type, const uint8_t *data, uint32_t size)
{
    value(f, btf, type, data, size, 0);
}
