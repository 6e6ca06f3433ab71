/*
 * The loader's map phase (bpf_obj_internal.h): maps described by BTF in `.maps` (libbpf's __uint /
 * __type members), global data sections as 1-entry ARRAY maps holding their initial bytes, and the
 * variables of those sections, for settings by name.
 */
#include "bpf/bpf_obj_internal.h"

#include <bpf/btf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int add_map(struct bpf_obj *obj, const char *name, enum bpf_obj_map_kind kind, const struct bpf_map_def *def)
{
    struct bpf_obj_priv *P = obj->priv;
    uint64_t total = bpf_map_memory(def);
    for (uint32_t i = 0; i < obj->n_maps; i++)
        total += bpf_map_memory(&obj->maps[i].def);
    if (total > BPF_OBJ_MAP_MEMORY_LIMIT)
        return bpf_obj_fail(P, "map %s refused: the object's maps would need %llu MiB, more than the %llu MiB an "
                               "object's maps may hold", name, (unsigned long long)(total >> 20),
                            (unsigned long long)(BPF_OBJ_MAP_MEMORY_LIMIT >> 20));
    struct bpf_obj_map *m = realloc(obj->maps, (obj->n_maps + 1) * sizeof *m);
    if (!m)
        return bpf_obj_fail(P, "out of memory");
    obj->maps = m;
    m = &obj->maps[obj->n_maps];
    memset(m, 0, sizeof *m);
    snprintf(m->name, sizeof m->name, "%s", name);
    m->kind = kind;
    m->def = *def;
    m->def.name = m->name;
    char merr[160] = "";
    m->map = bpf_map_create(&m->def, merr, sizeof merr);
    if (!m->map)
        return bpf_obj_fail(P, "map %s refused: %s", name, merr[0] ? merr : "bpf_map_create failed");
    obj->n_maps++;
    return (int)obj->n_maps - 1;
}

/* `int (*name)[N]` -> N (libbpf's __uint). */
static int btf_uint_member(const struct btf *btf, uint32_t type, uint32_t *out)
{
    const struct btf_type *t = bpf_btf_skip_mods(btf, type, NULL);
    if (!t || !btf_is_ptr(t))
        return -1;
    t = bpf_btf_skip_mods(btf, t->type, NULL);
    if (!t || !btf_is_array(t))
        return -1;
    *out = btf_array(t)->nelems;
    return 0;
}

static int load_btf_map(struct bpf_obj *obj, const struct sym *sy)
{
    struct bpf_obj_priv *P = obj->priv;
    int var = btf__find_by_name_kind(P->btf, sy->name, BTF_KIND_VAR);
    if (var <= 0)
        return bpf_obj_fail(P, "map %s has no BTF description (legacy `struct bpf_map_def` maps are not supported)",
                            sy->name);
    const struct btf_type *t = bpf_btf_skip_mods(P->btf, btf__type_by_id(P->btf, (uint32_t)var)->type, NULL);
    if (!t || !btf_is_struct(t))
        return bpf_obj_fail(P, "map %s: BTF type is not a struct", sy->name);
    struct bpf_map_def def = {0};
    bool key_string = false;
    uint32_t key_btf = 0, value_btf = 0;
    const struct btf_member *m = btf_members(t);
    for (int i = 0; i < btf_vlen(t); i++) {
        const char *mn = btf__name_by_offset(P->btf, m[i].name_off);
        if (!mn)
            mn = "";
        uint32_t v = 0;
        if (strcmp(mn, "type") == 0 || strcmp(mn, "max_entries") == 0 || strcmp(mn, "map_flags") == 0 ||
            strcmp(mn, "key_size") == 0 || strcmp(mn, "value_size") == 0) {
            if (btf_uint_member(P->btf, m[i].type, &v))
                return bpf_obj_fail(P, "map %s: member %s is not __uint(%s, N)", sy->name, mn, mn);
            if (mn[0] == 't')
                def.type = v;
            else if (mn[0] == 'm' && mn[1] == 'a' && mn[2] == 'x')
                def.max_entries = v;
            else if (mn[0] == 'm')
                def.map_flags = v;
            else if (mn[0] == 'k')
                def.key_size = v;
            else
                def.value_size = v;
        } else if (strcmp(mn, "key") == 0 || strcmp(mn, "value") == 0) {
            const struct btf_type *pt = bpf_btf_skip_mods(P->btf, m[i].type, NULL);
            if (!pt || !btf_is_ptr(pt))
                return bpf_obj_fail(P, "map %s: member %s is not __type(%s, T)", sy->name, mn, mn);
            int64_t sz = btf__resolve_size(P->btf, pt->type);
            if (sz <= 0 || sz > UINT32_MAX)
                return bpf_obj_fail(P, "map %s: %s type has no size", sy->name, mn);
            if (mn[0] == 'k') {
                def.key_size = (uint32_t)sz;
                key_string = bpf_obj_btf_is_char_array(P->btf, pt->type);
                key_btf = pt->type;
            } else {
                def.value_size = (uint32_t)sz;
                value_btf = pt->type;
            }
        } else if (strcmp(mn, "pinning") == 0 || strcmp(mn, "numa_node") == 0) {
            continue;
        } else {
            return bpf_obj_fail(P, "map %s: member '%s' is not supported (map-in-map and extra map attributes are "
                                   "not emulated)", sy->name, mn);
        }
    }
    int idx = add_map(obj, sy->name, BPF_OBJ_MAP_USER, &def);
    if (idx < 0)
        return -1;
    obj->maps[idx].key_is_string = key_string;
    obj->maps[idx].key_btf = key_btf;
    obj->maps[idx].value_btf = value_btf;
    return 0;
}

int bpf_obj_maps_create(struct bpf_obj *obj)
{
    struct bpf_obj_priv *P = obj->priv;
    for (size_t i = 0; i < P->n_syms; i++) {
        const struct sym *sy = &P->syms[i];
        if (sy->s.st_shndx == SHN_UNDEF || sy->s.st_shndx >= P->n_secs || !sy->name[0])
            continue;
        if (P->secs[sy->s.st_shndx].kind == SEC_MAPS && GELF_ST_TYPE(sy->s.st_info) == STT_OBJECT &&
            load_btf_map(obj, sy))
            return -1;
    }
    for (size_t i = 1; i < P->n_secs; i++) {
        struct sec *s = &P->secs[i];
        if (s->kind != SEC_DATA || s->size == 0)
            continue;
        if (s->size > UINT32_MAX)
            return bpf_obj_fail(P, "section %s is too large", s->name);
        enum bpf_obj_map_kind kind = bpf_obj_starts_with(s->name, ".rodata") ? BPF_OBJ_MAP_RODATA
                                     : bpf_obj_starts_with(s->name, ".bss") ? BPF_OBJ_MAP_BSS
                                                                     : BPF_OBJ_MAP_DATA;
        struct bpf_map_def def = {.type = BPF_MAP_TYPE_ARRAY, .key_size = 4, .value_size = (uint32_t)s->size,
                                  .max_entries = 1,
                                  .map_flags = kind == BPF_OBJ_MAP_RODATA ? BPF_F_RDONLY_PROG : 0};
        int idx = add_map(obj, s->name, kind, &def);
        if (idx < 0)
            return -1;
        s->map = idx;
        int sec_type = btf__find_by_name_kind(P->btf, s->name, BTF_KIND_DATASEC);
        obj->maps[idx].value_btf = sec_type > 0 ? (uint32_t)sec_type : 0;
        if (s->data && bpf_map_initial_value(obj->maps[idx].map, s->data, s->size))
            return bpf_obj_fail(P, "section %s: initial value refused", s->name);
    }
    /* variables of the data sections, for knobs */
    for (size_t i = 0; i < P->n_syms; i++) {
        const struct sym *sy = &P->syms[i];
        if (sy->s.st_shndx == SHN_UNDEF || sy->s.st_shndx >= P->n_secs || !sy->name[0] ||
            GELF_ST_TYPE(sy->s.st_info) != STT_OBJECT)
            continue;
        const struct sec *s = &P->secs[sy->s.st_shndx];
        if (s->kind != SEC_DATA || s->map < 0 || sy->s.st_value > s->size || sy->s.st_size > s->size - sy->s.st_value)
            continue;
        struct bpf_obj_var *v = realloc(obj->vars, (obj->n_vars + 1) * sizeof *v);
        if (!v)
            return bpf_obj_fail(P, "out of memory");
        obj->vars = v;
        v = &obj->vars[obj->n_vars++];
        snprintf(v->name, sizeof v->name, "%s", sy->name);
        v->map = (uint32_t)s->map;
        v->offset = (uint32_t)sy->s.st_value;
        v->size = (uint32_t)sy->s.st_size;
    }
    P->map_ptrs = calloc(obj->n_maps ? obj->n_maps : 1, sizeof *P->map_ptrs);
    if (!P->map_ptrs)
        return bpf_obj_fail(P, "out of memory");
    for (uint32_t i = 0; i < obj->n_maps; i++)
        P->map_ptrs[i] = obj->maps[i].map;
    return 0;
}
