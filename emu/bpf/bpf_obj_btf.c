/*
 * The loader's BTF phases (bpf_obj_internal.h): the object's .BTF through libbpf's BTF API, and the
 * line info of .BTF.ext, which libbpf 1.1 does not expose, read by hand.
 */
#include "bpf/bpf_obj_internal.h"

#include <bpf/btf.h>
#include <errno.h>
#include <string.h>

/* True when type id is a char array (a process name). */
bool bpf_obj_btf_is_char_array(const struct btf *btf, uint32_t id)
{
    const struct btf_type *t = bpf_btf_skip_mods(btf, id, NULL);
    if (!t || !btf_is_array(t))
        return false;
    const struct btf_type *e = bpf_btf_skip_mods(btf, btf_array(t)->type, NULL);
    return e && btf_is_int(e) && e->size == 1;
}

int bpf_obj_btf_load(struct bpf_obj *obj)
{
    struct bpf_obj_priv *P = obj->priv;
    for (size_t i = 1; i < P->n_secs; i++) {
        const struct sec *s = &P->secs[i];
        if (strcmp(s->name, ".BTF") != 0)
            continue;
        if (!s->data || s->size == 0 || s->size > UINT32_MAX)
            return bpf_obj_fail(P, ".BTF is empty");
        P->btf = btf__new(s->data, (uint32_t)s->size);
        if (!P->btf) {
            P->btf = NULL;
            return bpf_obj_fail(P, ".BTF does not parse (%s)", strerror(errno));
        }
        return 0;
    }
    return bpf_obj_fail(P, "no .BTF section: build with clang -g so the struct_ops type and the maps are described");
}

/* .BTF.ext line info: per section, records {insn_off, file_name_off, line_off, line_col}. */
int bpf_obj_btf_lines(struct bpf_obj *obj)
{
    struct bpf_obj_priv *P = obj->priv;
    const struct sec *ext = NULL;
    for (size_t i = 1; i < P->n_secs; i++)
        if (strcmp(P->secs[i].name, ".BTF.ext") == 0)
            ext = &P->secs[i];
    if (!ext || !ext->data || ext->size < 24)
        return 0;
    const uint8_t *b = ext->data;
    uint16_t magic;
    uint32_t hdr_len, li_off, li_len;
    memcpy(&magic, b, 2);
    memcpy(&hdr_len, b + 4, 4);
    memcpy(&li_off, b + 16, 4);
    memcpy(&li_len, b + 20, 4);
    if (magic != 0xeB9F || hdr_len < 24 || hdr_len > ext->size)
        return 0;
    uint64_t start = (uint64_t)hdr_len + li_off, end = start + li_len;
    if (li_len < 4 || end > ext->size)
        return 0;
    uint32_t rec;
    memcpy(&rec, b + start, 4);
    if (rec < 16 || rec % 4)
        return 0;
    uint64_t p = start + 4;
    while (p + 8 <= end) {
        uint32_t name_off, n;
        memcpy(&name_off, b + p, 4);
        memcpy(&n, b + p + 4, 4);
        p += 8;
        if (n > (end - p) / rec)
            return 0;
        const char *sname = btf__name_by_offset(P->btf, name_off);
        for (size_t i = 1; sname && i < P->n_secs; i++) {
            struct sec *s = &P->secs[i];
            /* records are 4-byte aligned inside a section's data of 4-byte alignment */
            if (s->kind == SEC_PROG && strcmp(s->name, sname) == 0 && rec == 16 && ((uintptr_t)(b + p) % 4) == 0) {
                s->lines = (const uint32_t *)(const void *)(b + p);
                s->n_lines = n;
            }
        }
        p += (uint64_t)n * rec;
    }
    return 0;
}
