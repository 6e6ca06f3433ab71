/*
 * The object loader (bpf_obj.h): ELF through libelf, types through libbpf's
 * BTF API, relocations and the struct_ops binding by hand (libbpf 1.1 does
 * not expose them and cannot load without the driver's BTF). Every offset,
 * index and size read from the file is checked before use: a malformed
 * object gets a message, never a crash.
 */
#include "bpf/bpf_obj.h"

#include <bpf/btf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef EM_BPF
#define EM_BPF 247
#endif

/* ELF relocation types of the BPF backend (llvm/BinaryFormat/ELFRelocs/BPF.def); older elf.h lacks some. */
#ifndef R_BPF_64_64
#define R_BPF_64_64 1
#endif
#ifndef R_BPF_64_ABS64
#define R_BPF_64_ABS64 2
#endif
#ifndef R_BPF_64_32
#define R_BPF_64_32 10
#endif

#define MAX_OBJECT_BYTES (64u << 20)
#define INSN_SZ 8u

enum sec_kind { SEC_OTHER, SEC_PROG, SEC_MAPS, SEC_DATA, SEC_STRUCT_OPS, SEC_KSYMS };

struct rel {
    uint64_t off;
    uint32_t sym;
    uint32_t type;
};

struct sec {
    const char *name;
    GElf_Shdr sh;
    const uint8_t *data;              /* NULL for NOBITS */
    size_t size;
    enum sec_kind kind;
    int map;                          /* SEC_DATA: index into obj->maps */
    struct rel *rels;                 /* relocations that apply to this section */
    size_t n_rels;
    /* .BTF.ext line info of this section: 4 words per record */
    const uint32_t *lines;
    uint32_t n_lines;
};

struct sym {
    const char *name;
    GElf_Sym s;
};

struct bpf_obj_priv {
    uint8_t *image;                   /* private copy of the file */
    Elf *elf;
    struct btf *btf;
    struct sec *secs;
    size_t n_secs;
    struct sym *syms;
    size_t n_syms;
    struct bpf_map **map_ptrs;        /* every map, for bpf_prog.maps */
    const struct bpf_kfunc *kfuncs;
    uint32_t n_kfuncs;
    char *err;
    size_t errlen;
    const char *oname;
};

__attribute__((format(printf, 2, 3))) static int fail(struct bpf_obj_priv *P, const char *fmt, ...)
{
    if (!P->errlen)
        return -1;
    int w = snprintf(P->err, P->errlen, "%s: ", P->oname);
    if (w < 0 || (size_t)w >= P->errlen)
        w = 0;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(P->err + w, P->errlen - (size_t)w, fmt, ap);
    va_end(ap);
    return -1;
}

__attribute__((format(printf, 2, 3))) static void note(struct bpf_obj *obj, const char *fmt, ...)
{
    size_t used = strlen(obj->notes);
    if (used + 2 >= sizeof obj->notes)
        return;
    if (used)
        obj->notes[used++] = '\n';
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(obj->notes + used, sizeof obj->notes - used, fmt, ap);
    va_end(ap);
}

static bool starts_with(const char *s, const char *p)
{
    return strncmp(s, p, strlen(p)) == 0;
}

static bool is_data_section(const char *n)
{
    return strcmp(n, ".data") == 0 || starts_with(n, ".data.") || strcmp(n, ".bss") == 0 ||
           starts_with(n, ".bss.") || strcmp(n, ".rodata") == 0 || starts_with(n, ".rodata.");
}

/* ---- ELF ---- */

static int load_sections(struct bpf_obj *obj, size_t len)
{
    struct bpf_obj_priv *P = obj->priv;
    elf_version(EV_CURRENT);
    P->elf = elf_memory((char *)P->image, len);
    if (!P->elf || elf_kind(P->elf) != ELF_K_ELF)
        return fail(P, "not an ELF file");
    GElf_Ehdr eh;
    if (!gelf_getehdr(P->elf, &eh))
        return fail(P, "unreadable ELF header");
    if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_ident[EI_DATA] != ELFDATA2LSB)
        return fail(P, "not a 64-bit little-endian ELF (build with -target bpf or bpfel)");
    if (eh.e_machine != EM_BPF)
        return fail(P, "ELF machine %u is not BPF (%u): a policy object is built with clang -target bpf",
                    eh.e_machine, EM_BPF);
    if (eh.e_type != ET_REL)
        return fail(P, "ELF type %u is not a relocatable object", eh.e_type);
    size_t shnum, shstrndx;
    if (elf_getshdrnum(P->elf, &shnum) || elf_getshdrstrndx(P->elf, &shstrndx) || shnum == 0 || shnum > 65536)
        return fail(P, "unreadable section table");
    P->secs = calloc(shnum, sizeof *P->secs);
    if (!P->secs)
        return fail(P, "out of memory");
    P->n_secs = shnum;
    for (size_t i = 1; i < shnum; i++) {
        Elf_Scn *scn = elf_getscn(P->elf, i);
        struct sec *s = &P->secs[i];
        if (!scn || !gelf_getshdr(scn, &s->sh))
            return fail(P, "unreadable section %zu", i);
        s->name = elf_strptr(P->elf, shstrndx, s->sh.sh_name);
        if (!s->name)
            return fail(P, "section %zu has no name", i);
        s->map = -1;
        if (s->sh.sh_type != SHT_NOBITS && s->sh.sh_type != SHT_NULL) {
            Elf_Data *d = elf_getdata(scn, NULL);
            if (!d && s->sh.sh_size)
                return fail(P, "section %s: unreadable data", s->name);
            if (d) {
                if (d->d_size != s->sh.sh_size || (d->d_size && !d->d_buf))
                    return fail(P, "section %s: data size %zu, header says %llu", s->name, d->d_size,
                                (unsigned long long)s->sh.sh_size);
                s->data = d->d_buf;
                s->size = d->d_size;
            }
        } else {
            s->size = s->sh.sh_size;
        }
        if (s->sh.sh_type == SHT_PROGBITS && (s->sh.sh_flags & SHF_EXECINSTR))
            s->kind = SEC_PROG;
        else if (strcmp(s->name, ".maps") == 0)
            s->kind = SEC_MAPS;
        else if (strcmp(s->name, ".struct_ops") == 0 || strcmp(s->name, ".struct_ops.link") == 0)
            s->kind = SEC_STRUCT_OPS;
        else if (strcmp(s->name, ".ksyms") == 0)
            s->kind = SEC_KSYMS;
        else if ((s->sh.sh_type == SHT_PROGBITS || s->sh.sh_type == SHT_NOBITS) && is_data_section(s->name))
            s->kind = SEC_DATA;
        if (s->kind == SEC_PROG && s->size % INSN_SZ)
            return fail(P, "program section %s: %zu bytes is not a whole number of instructions", s->name,
                        s->size);
    }
    return 0;
}

static int load_symbols(struct bpf_obj *obj)
{
    struct bpf_obj_priv *P = obj->priv;
    size_t symtab = 0;
    for (size_t i = 1; i < P->n_secs; i++) {
        if (P->secs[i].sh.sh_type == SHT_SYMTAB) {
            if (symtab)
                return fail(P, "more than one symbol table");
            symtab = i;
        }
    }
    if (!symtab)
        return fail(P, "no symbol table (was the object stripped?)");
    const struct sec *st = &P->secs[symtab];
    if (st->sh.sh_link >= P->n_secs || st->sh.sh_entsize != sizeof(Elf64_Sym))
        return fail(P, "malformed symbol table");
    Elf_Data *d = elf_getdata(elf_getscn(P->elf, symtab), NULL);
    size_t n = st->size / sizeof(Elf64_Sym);
    P->syms = calloc(n ? n : 1, sizeof *P->syms);
    if (!P->syms)
        return fail(P, "out of memory");
    P->n_syms = n;
    for (size_t i = 0; i < n; i++) {
        if (!gelf_getsym(d, (int)i, &P->syms[i].s))
            return fail(P, "unreadable symbol %zu", i);
        const char *name = elf_strptr(P->elf, st->sh.sh_link, P->syms[i].s.st_name);
        P->syms[i].name = name ? name : "";
    }
    return 0;
}

static int load_relocations(struct bpf_obj *obj)
{
    struct bpf_obj_priv *P = obj->priv;
    for (size_t i = 1; i < P->n_secs; i++) {
        const struct sec *r = &P->secs[i];
        if (r->sh.sh_type == SHT_RELA)
            return fail(P, "section %s: RELA relocations are not produced by the BPF backend", r->name);
        if (r->sh.sh_type != SHT_REL)
            continue;
        if (r->sh.sh_info == 0 || r->sh.sh_info >= P->n_secs)
            return fail(P, "relocation section %s targets section %u", r->name, r->sh.sh_info);
        struct sec *t = &P->secs[r->sh.sh_info];
        if (t->kind != SEC_PROG && t->kind != SEC_STRUCT_OPS)
            continue;
        if (r->sh.sh_entsize != sizeof(Elf64_Rel) || r->size % sizeof(Elf64_Rel))
            return fail(P, "malformed relocation section %s", r->name);
        if (t->rels)
            return fail(P, "section %s has two relocation sections", t->name);
        size_t n = r->size / sizeof(Elf64_Rel);
        t->rels = calloc(n ? n : 1, sizeof *t->rels);
        if (!t->rels)
            return fail(P, "out of memory");
        Elf_Data *d = elf_getdata(elf_getscn(P->elf, i), NULL);
        for (size_t k = 0; k < n; k++) {
            GElf_Rel rel;
            if (!gelf_getrel(d, (int)k, &rel))
                return fail(P, "%s: unreadable relocation %zu", r->name, k);
            uint32_t sym = (uint32_t)GELF_R_SYM(rel.r_info);
            if (sym == 0 || sym >= P->n_syms)
                return fail(P, "%s: relocation %zu names symbol %u of %zu", r->name, k, sym, P->n_syms);
            t->rels[t->n_rels++] = (struct rel){rel.r_offset, sym, (uint32_t)GELF_R_TYPE(rel.r_info)};
        }
    }
    return 0;
}

/* ---- BTF ---- */

/* True when type id is a char array (a process name). */
static bool btf_is_char_array(const struct btf *btf, uint32_t id)
{
    const struct btf_type *t = bpf_btf_skip_mods(btf, id, NULL);
    if (!t || !btf_is_array(t))
        return false;
    const struct btf_type *e = bpf_btf_skip_mods(btf, btf_array(t)->type, NULL);
    return e && btf_is_int(e) && e->size == 1;
}

static int load_btf(struct bpf_obj *obj)
{
    struct bpf_obj_priv *P = obj->priv;
    for (size_t i = 1; i < P->n_secs; i++) {
        const struct sec *s = &P->secs[i];
        if (strcmp(s->name, ".BTF") != 0)
            continue;
        if (!s->data || s->size == 0 || s->size > UINT32_MAX)
            return fail(P, ".BTF is empty");
        P->btf = btf__new(s->data, (uint32_t)s->size);
        if (!P->btf) {
            P->btf = NULL;
            return fail(P, ".BTF does not parse (%s)", strerror(errno));
        }
        return 0;
    }
    return fail(P, "no .BTF section: build with clang -g so the struct_ops type and the maps are described");
}

/* .BTF.ext line info: per section, records {insn_off, file_name_off, line_off, line_col}. */
static void load_line_info(struct bpf_obj *obj)
{
    struct bpf_obj_priv *P = obj->priv;
    const struct sec *ext = NULL;
    for (size_t i = 1; i < P->n_secs; i++)
        if (strcmp(P->secs[i].name, ".BTF.ext") == 0)
            ext = &P->secs[i];
    if (!ext || !ext->data || ext->size < 24)
        return;
    const uint8_t *b = ext->data;
    uint16_t magic;
    uint32_t hdr_len, li_off, li_len;
    memcpy(&magic, b, 2);
    memcpy(&hdr_len, b + 4, 4);
    memcpy(&li_off, b + 16, 4);
    memcpy(&li_len, b + 20, 4);
    if (magic != 0xeB9F || hdr_len < 24 || hdr_len > ext->size)
        return;
    uint64_t start = (uint64_t)hdr_len + li_off, end = start + li_len;
    if (li_len < 4 || end > ext->size)
        return;
    uint32_t rec;
    memcpy(&rec, b + start, 4);
    if (rec < 16 || rec % 4)
        return;
    uint64_t p = start + 4;
    while (p + 8 <= end) {
        uint32_t name_off, n;
        memcpy(&name_off, b + p, 4);
        memcpy(&n, b + p + 4, 4);
        p += 8;
        if (n > (end - p) / rec)
            return;
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
}

/* ---- maps ---- */

static int add_map(struct bpf_obj *obj, const char *name, enum bpf_obj_map_kind kind, const struct bpf_map_def *def)
{
    struct bpf_obj_priv *P = obj->priv;
    uint64_t total = bpf_map_memory(def);
    for (uint32_t i = 0; i < obj->n_maps; i++)
        total += bpf_map_memory(&obj->maps[i].def);
    if (total > BPF_OBJ_MAP_MEMORY_LIMIT)
        return fail(P, "map %s refused: the object's maps would need %llu MiB, more than the %llu MiB an object's "
                       "maps may hold", name, (unsigned long long)(total >> 20),
                    (unsigned long long)(BPF_OBJ_MAP_MEMORY_LIMIT >> 20));
    struct bpf_obj_map *m = realloc(obj->maps, (obj->n_maps + 1) * sizeof *m);
    if (!m)
        return fail(P, "out of memory");
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
        return fail(P, "map %s refused: %s", name, merr[0] ? merr : "bpf_map_create failed");
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
        return fail(P, "map %s has no BTF description (legacy `struct bpf_map_def` maps are not supported)",
                    sy->name);
    const struct btf_type *t = bpf_btf_skip_mods(P->btf, btf__type_by_id(P->btf, (uint32_t)var)->type, NULL);
    if (!t || !btf_is_struct(t))
        return fail(P, "map %s: BTF type is not a struct", sy->name);
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
                return fail(P, "map %s: member %s is not __uint(%s, N)", sy->name, mn, mn);
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
                return fail(P, "map %s: member %s is not __type(%s, T)", sy->name, mn, mn);
            int64_t sz = btf__resolve_size(P->btf, pt->type);
            if (sz <= 0 || sz > UINT32_MAX)
                return fail(P, "map %s: %s type has no size", sy->name, mn);
            if (mn[0] == 'k') {
                def.key_size = (uint32_t)sz;
                key_string = btf_is_char_array(P->btf, pt->type);
                key_btf = pt->type;
            } else {
                def.value_size = (uint32_t)sz;
                value_btf = pt->type;
            }
        } else if (strcmp(mn, "pinning") == 0 || strcmp(mn, "numa_node") == 0) {
            continue;
        } else {
            return fail(P, "map %s: member '%s' is not supported (map-in-map and extra map attributes are not "
                        "emulated)", sy->name, mn);
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

static int load_maps(struct bpf_obj *obj)
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
            return fail(P, "section %s is too large", s->name);
        enum bpf_obj_map_kind kind = starts_with(s->name, ".rodata") ? BPF_OBJ_MAP_RODATA
                                     : starts_with(s->name, ".bss") ? BPF_OBJ_MAP_BSS
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
            return fail(P, "section %s: initial value refused", s->name);
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
            return fail(P, "out of memory");
        obj->vars = v;
        v = &obj->vars[obj->n_vars++];
        snprintf(v->name, sizeof v->name, "%s", sy->name);
        v->map = (uint32_t)s->map;
        v->offset = (uint32_t)sy->s.st_value;
        v->size = (uint32_t)sy->s.st_size;
    }
    P->map_ptrs = calloc(obj->n_maps ? obj->n_maps : 1, sizeof *P->map_ptrs);
    if (!P->map_ptrs)
        return fail(P, "out of memory");
    for (uint32_t i = 0; i < obj->n_maps; i++)
        P->map_ptrs[i] = obj->maps[i].map;
    return 0;
}

/* ---- programs ---- */

static int load_programs(struct bpf_obj *obj)
{
    struct bpf_obj_priv *P = obj->priv;
    for (size_t i = 0; i < P->n_syms; i++) {
        const struct sym *sy = &P->syms[i];
        if (GELF_ST_TYPE(sy->s.st_info) != STT_FUNC || sy->s.st_shndx == SHN_UNDEF || sy->s.st_shndx >= P->n_secs)
            continue;
        const struct sec *s = &P->secs[sy->s.st_shndx];
        if (s->kind != SEC_PROG || strcmp(s->name, ".text") == 0 || GELF_ST_BIND(sy->s.st_info) != STB_GLOBAL)
            continue;
        if (sy->s.st_value % INSN_SZ || sy->s.st_value > s->size || sy->s.st_size > s->size - sy->s.st_value ||
            sy->s.st_size == 0)
            return fail(P, "program %s: bad extent in section %s", sy->name, s->name);
        struct bpf_obj_prog *p = realloc(obj->progs, (obj->n_progs + 1) * sizeof *p);
        if (!p)
            return fail(P, "out of memory");
        obj->progs = p;
        p = &obj->progs[obj->n_progs++];
        memset(p, 0, sizeof *p);
        snprintf(p->name, sizeof p->name, "%s", sy->name);
        snprintf(p->section, sizeof p->section, "%s", s->name);
        struct bpf_attach_section as;
        char why[256];
        if (bpf_attach_parse_section(s->name, &as, why, sizeof why))
            return fail(P, "program %s: %s", sy->name, why);
        p->struct_ops = as.kind == BPF_ATTACH_STRUCT_OPS;
        p->kind = as.kind;
        p->sleepable = as.sleepable;
        snprintf(p->target, sizeof p->target, "%s", as.target);
        p->shndx = sy->s.st_shndx;
        p->offset = sy->s.st_value;
        p->size = sy->s.st_size;
        p->member = -1;
    }
    return 0;
}

/* The program whose function starts at byte off of section shndx, or -1. */
static int prog_at(const struct bpf_obj *obj, size_t shndx, uint64_t off)
{
    const struct bpf_obj_priv *P = obj->priv;
    for (size_t i = 0; i < P->n_syms; i++) {
        const struct sym *sy = &P->syms[i];
        if (GELF_ST_TYPE(sy->s.st_info) == STT_FUNC && sy->s.st_shndx == shndx && sy->s.st_value == off) {
            for (uint32_t k = 0; k < obj->n_progs; k++)
                if (strcmp(obj->progs[k].name, sy->name) == 0 &&
                    strcmp(obj->progs[k].section, P->secs[shndx].name) == 0)
                    return (int)k;
        }
    }
    return -1;
}

static int bind_struct_ops(struct bpf_obj *obj)
{
    struct bpf_obj_priv *P = obj->priv;
    for (int m = 0; m < BPF_ABI_MEMBER_COUNT; m++)
        obj->member_prog[m] = -1;
    size_t ops_sec = 0, ops_sym = 0;
    int instances = 0;
    for (size_t i = 0; i < P->n_syms; i++) {
        const struct sym *sy = &P->syms[i];
        if (sy->s.st_shndx == SHN_UNDEF || sy->s.st_shndx >= P->n_secs ||
            P->secs[sy->s.st_shndx].kind != SEC_STRUCT_OPS || GELF_ST_TYPE(sy->s.st_info) != STT_OBJECT)
            continue;
        instances++;
        ops_sec = sy->s.st_shndx;
        ops_sym = i;
    }
    bool probes = false;
    for (uint32_t i = 0; i < obj->n_progs; i++)
        probes |= bpf_obj_prog_is_probe(&obj->progs[i]);
    if (instances == 0 && probes)
        return 0;
    if (instances == 0)
        return fail(P, "no struct_ops instance (a global `struct nv_gpu_sched_ops` in SEC(\".struct_ops\") or "
                    "SEC(\".struct_ops.link\")) and no probe program");
    if (instances > 1)
        return fail(P, "%d struct_ops instances; nvemu attaches one ops instance at a time, as the driver",
                    instances);
    const struct sym *os = &P->syms[ops_sym];
    const struct sec *s = &P->secs[ops_sec];
    snprintf(obj->ops_var, sizeof obj->ops_var, "%s", os->name);
    snprintf(obj->ops_section, sizeof obj->ops_section, "%s", s->name);
    int var = btf__find_by_name_kind(P->btf, os->name, BTF_KIND_VAR);
    if (var <= 0)
        return fail(P, "struct_ops instance %s has no BTF description", os->name);
    char abi[768];
    if (bpf_abi_check_ops(P->btf, btf__type_by_id(P->btf, (uint32_t)var)->type, &obj->ops_abi, abi, sizeof abi))
        return fail(P, "ABI mismatch in struct_ops instance %s:\n%s", os->name, abi);
    obj->built_for = bpf_abi_built_for(P->btf, btf__type_by_id(P->btf, (uint32_t)var)->type, obj->built_for_why,
                                       sizeof obj->built_for_why);
    uint64_t ops_size = obj->ops_abi == BPF_ABI_OPS_THREE_MEMBER ? 24 : 32;
    if (os->s.st_value > s->size || s->size - os->s.st_value < ops_size)
        return fail(P, "struct_ops instance %s lies outside %s", os->name, s->name);
    const uint8_t *inst = s->data ? s->data + os->s.st_value : NULL;
    for (size_t r = 0; r < s->n_rels; r++) {
        const struct rel *rl = &s->rels[r];
        if (rl->off < os->s.st_value || rl->off - os->s.st_value >= ops_size)
            continue;
        uint32_t moff = (uint32_t)(rl->off - os->s.st_value);
        int mem = bpf_abi_member_at(moff);
        if (mem < 0 || rl->type != R_BPF_64_ABS64)
            return fail(P, "%s: relocation type %u at byte %u of %s is not a member binding", s->name, rl->type,
                        moff, os->name);
        const struct sym *fs = &P->syms[rl->sym];
        if (fs->s.st_shndx == SHN_UNDEF || fs->s.st_shndx >= P->n_secs || P->secs[fs->s.st_shndx].kind != SEC_PROG)
            return fail(P, "%s.%s is bound to '%s', which is not a program", os->name,
                        bpf_abi_member_name((enum bpf_abi_member)mem), fs->name);
        uint64_t addend = 0;
        if (inst)
            memcpy(&addend, inst + moff, sizeof addend);
        uint64_t foff = fs->s.st_value + (GELF_ST_TYPE(fs->s.st_info) == STT_SECTION ? addend : 0);
        int pi = prog_at(obj, fs->s.st_shndx, foff);
        if (pi < 0)
            return fail(P, "%s.%s is bound to byte %llu of %s, where no global program starts", os->name,
                        bpf_abi_member_name((enum bpf_abi_member)mem), (unsigned long long)foff,
                        P->secs[fs->s.st_shndx].name);
        struct bpf_obj_prog *p = &obj->progs[pi];
        if (!p->struct_ops)
            return fail(P, "%s.%s is bound to program %s in section %s, not a struct_ops/ section", os->name,
                        bpf_abi_member_name((enum bpf_abi_member)mem), p->name, p->section);
        if (p->member >= 0)
            return fail(P, "program %s is bound to two members (%s and %s)", p->name,
                        bpf_abi_member_name((enum bpf_abi_member)p->member),
                        bpf_abi_member_name((enum bpf_abi_member)mem));
        p->member = mem;
        obj->member_prog[mem] = pi;
    }
    /* the remaining members must be NULL: nvemu binds programs by relocation only */
    for (int m = 0; inst && m < (int)(ops_size / 8); m++) {
        uint64_t v;
        memcpy(&v, inst + m * 8, sizeof v);
        if (obj->member_prog[m] < 0 && v != 0)
            return fail(P, "%s.%s holds a value but no program relocation", os->name,
                        bpf_abi_member_name((enum bpf_abi_member)m));
    }
    bool any = false;
    for (int m = 0; m < BPF_ABI_MEMBER_COUNT; m++)
        any |= obj->member_prog[m] >= 0;
    if (!any)
        return fail(P, "struct_ops instance %s binds no callback", os->name);
    for (uint32_t i = 0; i < obj->n_progs; i++)
        if (!bpf_obj_prog_runs(&obj->progs[i]))
            note(obj, "program %s (section %s) is neither an ops member nor a probe: not run by nvemu",
                 obj->progs[i].name, obj->progs[i].section);
    return 0;
}

/* ---- linking one program: its function, then every subprogram it reaches ---- */

struct func {
    size_t sec;
    uint64_t start, end;              /* bytes in the section */
    uint32_t dest;                    /* first instruction in the linked program */
};

struct linker {
    struct bpf_obj *obj;
    struct bpf_obj_prog *prog;
    struct func *funcs;
    uint32_t n_funcs, cap_funcs;
    struct bpf_insn *insns;
    uint32_t n;
    struct bpf_line *lines;
    uint32_t n_lines;
};

/* Extent of the function starting at byte off of section sec (its STT_FUNC symbol), or -1. */
static int func_extent(const struct bpf_obj_priv *P, size_t sec, uint64_t off, uint64_t *end)
{
    for (size_t i = 0; i < P->n_syms; i++) {
        const struct sym *sy = &P->syms[i];
        if (GELF_ST_TYPE(sy->s.st_info) == STT_FUNC && sy->s.st_shndx == sec && sy->s.st_value == off &&
            sy->s.st_size && sy->s.st_size <= P->secs[sec].size - off && sy->s.st_size % INSN_SZ == 0) {
            *end = off + sy->s.st_size;
            return 0;
        }
    }
    return -1;
}

/* Appends the function at (sec, off) unless already linked; its first instruction index in *dest. */
static int link_func(struct linker *L, size_t sec, uint64_t off, uint32_t *dest)
{
    struct bpf_obj_priv *P = L->obj->priv;
    for (uint32_t i = 0; i < L->n_funcs; i++) {
        if (L->funcs[i].sec == sec && L->funcs[i].start == off) {
            *dest = L->funcs[i].dest;
            return 0;
        }
    }
    uint64_t end;
    if (off % INSN_SZ || off >= P->secs[sec].size || func_extent(P, sec, off, &end))
        return fail(P, "program %s calls byte %llu of %s, where no function starts", L->prog->name,
                    (unsigned long long)off, P->secs[sec].name);
    uint64_t count = (end - off) / INSN_SZ;
    if ((uint64_t)L->n + count > BPF_VM_MAX_INSNS)
        return fail(P, "program %s: more than %u instructions", L->prog->name, BPF_VM_MAX_INSNS);
    if (L->n_funcs == L->cap_funcs) {
        uint32_t cap = L->cap_funcs ? L->cap_funcs * 2 : 8;
        struct func *f = realloc(L->funcs, cap * sizeof *f);
        if (!f)
            return fail(P, "out of memory");
        L->funcs = f;
        L->cap_funcs = cap;
    }
    struct bpf_insn *ni = realloc(L->insns, (L->n + count) * sizeof *ni);
    if (!ni)
        return fail(P, "out of memory");
    L->insns = ni;
    memcpy(L->insns + L->n, P->secs[sec].data + off, count * INSN_SZ);
    L->funcs[L->n_funcs++] = (struct func){sec, off, end, L->n};
    *dest = L->n;
    L->n += (uint32_t)count;
    return 0;
}

static void set_imm64(struct bpf_insn *insn, uint64_t v)
{
    insn[0].imm = (int32_t)(uint32_t)v;
    insn[1].imm = (int32_t)(uint32_t)(v >> 32);
}

static bool is_weak_ksym(const struct bpf_obj_priv *P, const struct sym *sy)
{
    (void)P;
    return GELF_ST_BIND(sy->s.st_info) == STB_WEAK;
}

static int reloc_one(struct linker *L, const struct func *f, const struct rel *r)
{
    struct bpf_obj *obj = L->obj;
    struct bpf_obj_priv *P = obj->priv;
    const char *pn = L->prog->name;
    uint32_t idx = f->dest + (uint32_t)((r->off - f->start) / INSN_SZ);
    if ((r->off - f->start) % INSN_SZ)
        return fail(P, "program %s: relocation at byte %llu is inside an instruction", pn,
                    (unsigned long long)r->off);
    struct bpf_insn *in = &L->insns[idx];
    const struct sym *sy = &P->syms[r->sym];
    bool undef = sy->s.st_shndx == SHN_UNDEF;
    const struct sec *ts = !undef && sy->s.st_shndx < P->n_secs ? &P->secs[sy->s.st_shndx] : NULL;
    if (!undef && !ts)
        return fail(P, "program %s insn %u: symbol %s in section %u", pn, idx, sy->name, sy->s.st_shndx);
    if (r->type == R_BPF_64_64) {
        if (!bpf_insn_is_wide(in) || idx + 1 >= L->n || (r->off + INSN_SZ) >= f->end + INSN_SZ)
            return fail(P, "program %s insn %u: R_BPF_64_64 on an instruction that is not LD_IMM64", pn, idx);
        if (undef) {
            if (!is_weak_ksym(P, sy))
                return fail(P, "program %s insn %u: address of extern %s (typed ksyms are not supported; declare "
                            "kfuncs __weak to test their presence)", pn, idx, sy->name);
            bool have = bpf_kfunc_index(P->kfuncs, P->n_kfuncs, sy->name) >= 0;
            in->src_reg = 0;
            set_imm64(in, have ? 1 : 0);
            return 0;
        }
        if (ts->kind == SEC_MAPS) {
            for (uint32_t m = 0; m < obj->n_maps; m++) {
                if (obj->maps[m].kind == BPF_OBJ_MAP_USER && strcmp(obj->maps[m].name, sy->name) == 0) {
                    in->src_reg = BPF_PSEUDO_MAP_FD;
                    set_imm64(in, (uint64_t)(uintptr_t)obj->maps[m].map);
                    return 0;
                }
            }
            return fail(P, "program %s insn %u: map %s was not created", pn, idx, sy->name);
        }
        if (ts->kind == SEC_DATA) {
            if (ts->map < 0)
                return fail(P, "program %s insn %u: refers to empty section %s", pn, idx, ts->name);
            uint64_t off = (uint64_t)(uint32_t)in->imm +
                           (GELF_ST_TYPE(sy->s.st_info) == STT_SECTION ? 0 : sy->s.st_value);
            uint32_t size = 0;
            uint8_t *base = bpf_map_value_base(obj->maps[ts->map].map, &size);
            if (!base || off >= size)
                return fail(P, "program %s insn %u: offset %llu outside %s (%u bytes)", pn, idx,
                            (unsigned long long)off, ts->name, size);
            in->src_reg = BPF_PSEUDO_MAP_VALUE;
            set_imm64(in, (uint64_t)(uintptr_t)(base + off));
            return 0;
        }
        if (ts->kind == SEC_PROG) {
            uint64_t toff = GELF_ST_TYPE(sy->s.st_info) == STT_SECTION ? (uint64_t)(uint32_t)in->imm : sy->s.st_value;
            uint32_t dest;
            if (link_func(L, sy->s.st_shndx, toff, &dest))
                return -1;
            in = &L->insns[idx];
            in->src_reg = BPF_PSEUDO_FUNC;
            in[0].imm = (int32_t)dest - (int32_t)idx - 1;
            in[1].imm = 0;
            return 0;
        }
        return fail(P, "program %s insn %u: LD_IMM64 of %s in section %s is not a map, global data or a kfunc", pn,
                    idx, sy->name, ts->name);
    }
    if (r->type == R_BPF_64_32) {
        if (in->code != (BPF_JMP | BPF_CALL))
            return fail(P, "program %s insn %u: R_BPF_64_32 on an instruction that is not a call", pn, idx);
        if (undef) {
            int k = bpf_kfunc_index(P->kfuncs, P->n_kfuncs, sy->name);
            if (k < 0)
                return fail(P, "program %s insn %u: calls kfunc %s, which the driver does not provide (kfuncs: "
                            "bpf_nv_gpu_set_timeslice, _set_interleave, _override_timeslice, _reject_bind, "
                            "_preempt_tsg)", pn, idx, sy->name);
            in->src_reg = BPF_PSEUDO_KFUNC_CALL;
            in->off = 0;
            in->imm = k;
            if (k < 32)
                obj->kfunc_declared[k] = bpf_abi_btf_kfunc_ret(P->btf, sy->name);
            return 0;
        }
        if (ts->kind != SEC_PROG)
            return fail(P, "program %s insn %u: calls %s, which is not code", pn, idx, sy->name);
        int64_t toff = (int64_t)sy->s.st_value + ((int64_t)in->imm + 1) * INSN_SZ;
        if (toff < 0)
            return fail(P, "program %s insn %u: call before the start of %s", pn, idx, ts->name);
        uint32_t dest;
        if (link_func(L, sy->s.st_shndx, (uint64_t)toff, &dest))
            return -1;
        in = &L->insns[idx];
        in->src_reg = BPF_PSEUDO_CALL;
        in->imm = (int32_t)dest - (int32_t)idx - 1;
        return 0;
    }
    return fail(P, "program %s insn %u: relocation type %u is not supported", pn, idx, r->type);
}

static int reloc_func(struct linker *L, uint32_t fi)
{
    struct bpf_obj_priv *P = L->obj->priv;
    struct func f = L->funcs[fi];
    const struct sec *s = &P->secs[f.sec];
    bool *has_rel = calloc((f.end - f.start) / INSN_SZ + 1, sizeof *has_rel);
    if (!has_rel)
        return fail(P, "out of memory");
    int rc = 0;
    for (size_t i = 0; i < s->n_rels && !rc; i++) {
        const struct rel *r = &s->rels[i];
        if (r->off < f.start || r->off >= f.end)
            continue;
        has_rel[(r->off - f.start) / INSN_SZ] = true;
        rc = reloc_one(L, &f, r);
    }
    /* calls within the section without a relocation are already pc-relative there */
    for (uint64_t off = f.start; off < f.end && !rc; off += INSN_SZ) {
        uint32_t idx = f.dest + (uint32_t)((off - f.start) / INSN_SZ);
        struct bpf_insn *in = &L->insns[idx];
        if (has_rel[(off - f.start) / INSN_SZ] || in->code != (BPF_JMP | BPF_CALL) || in->src_reg != BPF_PSEUDO_CALL)
            continue;
        int64_t toff = (int64_t)off + ((int64_t)in->imm + 1) * INSN_SZ;
        uint32_t dest;
        if (toff < 0) {
            rc = fail(P, "program %s insn %u: call before the start of %s", L->prog->name, idx, s->name);
            break;
        }
        if (toff >= (int64_t)f.start && toff < (int64_t)f.end) {
            continue;
        }
        rc = link_func(L, f.sec, (uint64_t)toff, &dest);
        if (!rc)
            L->insns[idx].imm = (int32_t)dest - (int32_t)idx - 1;
    }
    free(has_rel);
    return rc;
}

static int cmp_line(const void *a, const void *b)
{
    const struct bpf_line *x = a, *y = b;
    return (x->insn > y->insn) - (x->insn < y->insn);
}

static int link_lines(struct linker *L)
{
    struct bpf_obj_priv *P = L->obj->priv;
    uint32_t total = 0;
    for (uint32_t i = 0; i < L->n_funcs; i++)
        total += P->secs[L->funcs[i].sec].n_lines;
    if (!total)
        return 0;
    L->lines = calloc(total, sizeof *L->lines);
    if (!L->lines)
        return fail(P, "out of memory");
    for (uint32_t i = 0; i < L->n_funcs; i++) {
        const struct func *f = &L->funcs[i];
        const struct sec *s = &P->secs[f->sec];
        for (uint32_t k = 0; k < s->n_lines; k++) {
            const uint32_t *rec = s->lines + 4 * (size_t)k;
            if (rec[0] < f->start || rec[0] >= f->end)
                continue;
            const char *file = btf__name_by_offset(P->btf, rec[1]);
            const char *src = btf__name_by_offset(P->btf, rec[2]);
            const char *base = file ? strrchr(file, '/') : NULL;
            L->lines[L->n_lines++] = (struct bpf_line){
                .insn = f->dest + (uint32_t)((rec[0] - f->start) / INSN_SZ),
                .line = rec[3] >> 10,
                .col = rec[3] & 0x3ff,
                .file = base ? base + 1 : file,
                .src = src,
            };
        }
    }
    qsort(L->lines, L->n_lines, sizeof *L->lines, cmp_line);
    return 0;
}

/*
 * struct_ops calling convention: the kernel runs a struct_ops program with
 * r1 = u64 args[] (BPF_PROG's ctx), args[0] being the ctx struct pointer.
 * nvemu runs it with r1 = the ctx struct itself, so every load of args[0]
 * becomes a copy of the register holding args: the interpreter then sees the
 * ctx pointer as a copy of r1 and checks every access against the ctx's
 * exact size and read-only rule. A forward pass over the entry function
 * tracks which registers hold args; any other use of args (another slot, a
 * spill, arithmetic, an argument to a call, a store) is refused, since the
 * kernel's verifier would refuse or this rewrite could not keep its meaning.
 */
enum { A_OTHER = 0, A_ARGS = 1, A_MIXED = 2 };

struct args_pass {
    struct linker *L;
    uint8_t (*st)[BPF_NREGS];
    uint8_t *seen;                    /* bit 0 visited, bit 1 reached as args load, bit 2 as other load */
    uint32_t *work;
    uint32_t n_work;
    uint32_t end;                     /* entry function's last instruction + 1 */
};

static int args_refuse(struct args_pass *A, uint32_t pc, const char *what)
{
    return fail(A->L->obj->priv, "program %s insn %u: %s", A->L->prog->name, pc, what);
}

static void args_flow(struct args_pass *A, uint32_t to, const uint8_t *regs)
{
    if (to >= A->end)
        return;
    bool changed = !(A->seen[to] & 1);
    for (int r = 0; r < BPF_NREGS; r++) {
        uint8_t v = (A->seen[to] & 1) ? (A->st[to][r] == regs[r] ? regs[r] : A_MIXED) : regs[r];
        changed |= v != A->st[to][r];
        A->st[to][r] = v;
    }
    A->seen[to] |= 1;
    if (changed)
        A->work[A->n_work++] = to;
}

/*
 * How many of r1..r5 a call reads: the verifier checks a helper's or kfunc's arguments by their
 * declared types only, so a helper without arguments may be called while r1 still holds the args
 * (clang keeps it there when args[0] is loaded first). A subprogram may read all five.
 */
static int call_declared_args(const struct bpf_obj_priv *P, const struct bpf_insn *in)
{
    if (in->src_reg == 0) {
        const struct bpf_helper_proto *h = bpf_helper_proto(in->imm);
        return h ? h->nargs : 5;
    }
    if (in->src_reg == BPF_PSEUDO_KFUNC_CALL && in->imm >= 0 && (uint32_t)in->imm < P->n_kfuncs) {
        int n = 0;
        while (n < 5 && P->kfuncs[in->imm].args[n].kind != BPF_ARG_NONE)
            n++;
        return n;
    }
    return 5;
}

static int args_step(struct args_pass *A, uint32_t pc)
{
    struct bpf_insn *in = &A->L->insns[pc];
    uint8_t r[BPF_NREGS];
    memcpy(r, A->st[pc], sizeof r);
    uint8_t cls = BPF_CLASS(in->code), dst = in->dst_reg & 0xf, src = in->src_reg & 0xf;
    if (dst >= BPF_NREGS || src >= BPF_NREGS)
        return 0; /* bpf_vm_check names the bad register */
    uint8_t sv = r[src], dv = r[dst];
    switch (cls) {
    case BPF_LD:
        if (bpf_insn_is_wide(in)) {
            r[dst] = A_OTHER;
            args_flow(A, pc + 2, r);
        }
        return 0;
    case BPF_LDX:
        if (sv == A_MIXED)
            return args_refuse(A, pc, "reads through a register that holds the struct_ops args on some paths only");
        if (sv == A_ARGS) {
            if (BPF_MODE(in->code) != BPF_MEM || BPF_SIZE(in->code) != BPF_DW || in->off % 8)
                return args_refuse(A, pc, "partial read of the struct_ops args");
            if (in->off != 0)
                return args_refuse(A, pc, "reads args beyond the callback's one argument (the ctx)");
            A->seen[pc] |= 2;
        } else {
            A->seen[pc] |= 4;
        }
        if ((A->seen[pc] & 6) == 6)
            return args_refuse(A, pc, "loads the struct_ops args on some paths only");
        r[dst] = A_OTHER;
        break;
    case BPF_ST:
        if (dv != A_OTHER)
            return args_refuse(A, pc, "writes into the struct_ops args (read-only)");
        break;
    case BPF_STX:
        if (dv != A_OTHER)
            return args_refuse(A, pc, "writes into the struct_ops args (read-only)");
        if (sv != A_OTHER)
            return args_refuse(A, pc, "spills the struct_ops args pointer (not supported: load args[0] first)");
        if (BPF_MODE(in->code) == BPF_ATOMIC && (in->imm & BPF_FETCH))
            r[in->imm == BPF_CMPXCHG ? 0 : src] = A_OTHER;
        break;
    case BPF_ALU:
    case BPF_ALU64: {
        bool x = BPF_SRC(in->code) == BPF_X;
        if (cls == BPF_ALU64 && BPF_OP(in->code) == BPF_MOV && x && in->off == 0) {
            r[dst] = sv;
            break;
        }
        if ((x && sv != A_OTHER) || (dv != A_OTHER && BPF_OP(in->code) != BPF_MOV))
            return args_refuse(A, pc, "arithmetic on the struct_ops args pointer");
        r[dst] = A_OTHER;
        break;
    }
    case BPF_JMP:
    case BPF_JMP32: {
        uint8_t op = BPF_OP(in->code);
        if (op == BPF_EXIT && cls == BPF_JMP)
            return 0;
        if (op == BPF_CALL && cls == BPF_JMP) {
            int declared = call_declared_args(A->L->obj->priv, in);
            for (int a = 1; a <= declared; a++)
                if (r[a] != A_OTHER)
                    return args_refuse(A, pc, "passes the struct_ops args pointer as an argument of a call "
                                              "(pass args[0])");
            for (int a = 0; a <= 5; a++)
                r[a] = A_OTHER;
            break;
        }
        if (op == BPF_JA) {
            int64_t t = (int64_t)pc + 1 + (cls == BPF_JMP32 ? in->imm : in->off);
            if (t >= 0)
                args_flow(A, (uint32_t)t, r);
            return 0;
        }
        int64_t t = (int64_t)pc + 1 + in->off;
        if (t >= 0)
            args_flow(A, (uint32_t)t, r);
        break;
    }
    default:
        break;
    }
    args_flow(A, pc + 1, r);
    return 0;
}

static int args_rewrite(struct linker *L)
{
    struct bpf_obj_priv *P = L->obj->priv;
    struct args_pass A = {.L = L, .end = L->n_funcs ? (uint32_t)((L->funcs[0].end - L->funcs[0].start) / INSN_SZ) : 0};
    if (!A.end)
        return 0;
    A.st = calloc(A.end, sizeof *A.st);
    A.seen = calloc(A.end, 1);
    /* each pc is queued at most once per state change: 3 values x 11 registers bound the changes */
    A.work = calloc((size_t)A.end * (BPF_NREGS * 2 + 1) + 1, sizeof *A.work);
    int rc = 0;
    if (!A.st || !A.seen || !A.work) {
        rc = fail(P, "out of memory");
        goto out;
    }
    uint8_t entry[BPF_NREGS] = {0};
    entry[1] = A_ARGS;
    args_flow(&A, 0, entry);
    while (A.n_work && !rc)
        rc = args_step(&A, A.work[--A.n_work]);
    for (uint32_t pc = 0; pc < A.end && !rc; pc++) {
        if (A.seen[pc] & 2) {
            struct bpf_insn *in = &L->insns[pc];
            in->code = BPF_ALU64 | BPF_MOV | BPF_X;
            in->off = 0;
            in->imm = 0;
            L->prog->args_loads++;
        }
    }
out:
    free(A.st);
    free(A.seen);
    free(A.work);
    return rc;
}

static void scan_usage(struct bpf_obj_prog *p)
{
    for (uint32_t i = 0; i < p->prog.n; i++) {
        const struct bpf_insn *in = &p->prog.insns[i];
        if (bpf_insn_is_wide(in)) {
            i++;
            continue;
        }
        if (in->code != (BPF_JMP | BPF_CALL))
            continue;
        if (in->src_reg == BPF_PSEUDO_KFUNC_CALL && in->imm >= 0 && in->imm < 32) {
            p->kfuncs_used |= 1u << in->imm;
        } else if (in->src_reg == 0) {
            uint32_t id = (uint32_t)in->imm, k = 0;
            while (k < p->n_helpers && p->helpers_used[k] < id)
                k++;
            if ((k < p->n_helpers && p->helpers_used[k] == id) || p->n_helpers == 32)
                continue;
            memmove(&p->helpers_used[k + 1], &p->helpers_used[k], (p->n_helpers - k) * sizeof(uint32_t));
            p->helpers_used[k] = id;
            p->n_helpers++;
        }
    }
}

static int link_program(struct bpf_obj *obj, struct bpf_obj_prog *p)
{
    struct bpf_obj_priv *P = obj->priv;
    struct linker L = {.obj = obj, .prog = p};
    uint32_t dest;
    int rc = link_func(&L, p->shndx, p->offset, &dest);
    for (uint32_t fi = 0; !rc && fi < L.n_funcs; fi++)
        rc = reloc_func(&L, fi);
    if (!rc)
        rc = link_lines(&L);
    /* only a struct_ops program gets its ctx through an args array; a uprobe's r1 is pt_regs itself */
    if (!rc && p->struct_ops)
        rc = args_rewrite(&L);
    free(L.funcs);
    p->prog.name = p->name;
    p->prog.sleepable = p->sleepable;
    p->prog.insns = L.insns;
    p->prog.n = L.n;
    p->prog.lines = L.lines;
    p->prog.n_lines = L.n_lines;
    p->prog.maps = P->map_ptrs;
    p->prog.n_maps = obj->n_maps;
    if (!rc)
        scan_usage(p);
    return rc;
}

/* ---- public ---- */

static void load_license(struct bpf_obj *obj)
{
    struct bpf_obj_priv *P = obj->priv;
    for (size_t i = 1; i < P->n_secs; i++) {
        const struct sec *s = &P->secs[i];
        if (strcmp(s->name, "license") == 0 && s->data && s->size)
            snprintf(obj->license, sizeof obj->license, "%.*s", (int)(s->size < 63 ? s->size : 63),
                     (const char *)s->data);
    }
}

struct bpf_obj *bpf_obj_open_mem(const void *buf, size_t len, const char *name, const struct bpf_kfunc *kfuncs,
                                 uint32_t n_kfuncs, char *err, size_t errlen)
{
    char dummy[1];
    if (!err || !errlen) {
        err = dummy;
        errlen = sizeof dummy;
    }
    err[0] = '\0';
    struct bpf_obj *obj = calloc(1, sizeof *obj);
    struct bpf_obj_priv *P = calloc(1, sizeof *P);
    if (!obj || !P) {
        snprintf(err, errlen, "%s: out of memory", name ? name : "object");
        free(obj);
        free(P);
        return NULL;
    }
    obj->priv = P;
    snprintf(obj->path, sizeof obj->path, "%s", name ? name : "object");
    P->oname = obj->path;
    P->err = err;
    P->errlen = errlen;
    P->kfuncs = kfuncs;
    P->n_kfuncs = n_kfuncs;
    for (int m = 0; m < BPF_ABI_MEMBER_COUNT; m++)
        obj->member_prog[m] = -1;
    if (!buf || len < sizeof(Elf64_Ehdr) || len > MAX_OBJECT_BYTES) {
        fail(P, "%zu bytes is not a BPF object", len);
        goto bad;
    }
    /* 8-byte aligned private copy: libelf hands out pointers into it */
    P->image = malloc(len);
    if (!P->image) {
        fail(P, "out of memory");
        goto bad;
    }
    memcpy(P->image, buf, len);
    if (load_sections(obj, len) || load_symbols(obj) || load_relocations(obj) || load_btf(obj))
        goto bad;
    load_line_info(obj);
    load_license(obj);
    if (load_maps(obj) || load_programs(obj) || bind_struct_ops(obj))
        goto bad;
    for (uint32_t i = 0; i < obj->n_progs; i++) {
        if (bpf_obj_prog_runs(&obj->progs[i]) && link_program(obj, &obj->progs[i]))
            goto bad;
    }
    P->err = NULL;
    P->errlen = 0;
    return obj;
bad:
    P->err = NULL;
    P->errlen = 0;
    bpf_obj_close(obj);
    return NULL;
}

const struct btf *bpf_obj_btf(const struct bpf_obj *obj)
{
    return obj && obj->priv ? obj->priv->btf : NULL;
}

struct bpf_obj *bpf_obj_open_file(const char *path, const struct bpf_kfunc *kfuncs, uint32_t n_kfuncs, char *err,
                                  size_t errlen)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size > (off_t)MAX_OBJECT_BYTES) {
        if (err && errlen)
            snprintf(err, errlen, "%s: %s", path,
                     fd < 0 ? strerror(errno) : !S_ISREG(st.st_mode) ? "not a regular file" : "too large");
        if (fd >= 0)
            close(fd);
        return NULL;
    }
    size_t len = (size_t)st.st_size;
    uint8_t *buf = malloc(len ? len : 1);
    size_t got = 0;
    while (buf && got < len) {
        ssize_t r = read(fd, buf + got, len - got);
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    close(fd);
    if (!buf || got != len) {
        if (err && errlen)
            snprintf(err, errlen, "%s: cannot read", path);
        free(buf);
        return NULL;
    }
    struct bpf_obj *obj = bpf_obj_open_mem(buf, len, path, kfuncs, n_kfuncs, err, errlen);
    free(buf);
    return obj;
}

void bpf_obj_close(struct bpf_obj *obj)
{
    if (!obj)
        return;
    struct bpf_obj_priv *P = obj->priv;
    for (uint32_t i = 0; i < obj->n_progs; i++) {
        free((void *)obj->progs[i].prog.insns);
        free((void *)obj->progs[i].prog.lines);
    }
    free(obj->progs);
    for (uint32_t i = 0; i < obj->n_maps; i++)
        bpf_map_destroy(obj->maps[i].map);
    free(obj->maps);
    free(obj->vars);
    if (P) {
        for (size_t i = 0; i < P->n_secs; i++)
            free(P->secs[i].rels);
        free(P->secs);
        free(P->syms);
        free(P->map_ptrs);
        btf__free(P->btf);
        if (P->elf)
            elf_end(P->elf);
        free(P->image);
        free(P);
    }
    free(obj);
}

struct bpf_obj_map *bpf_obj_find_map(struct bpf_obj *obj, const char *name)
{
    for (uint32_t i = 0; obj && name && i < obj->n_maps; i++)
        if (strcmp(obj->maps[i].name, name) == 0)
            return &obj->maps[i];
    return NULL;
}

const struct bpf_line *bpf_obj_line(const struct bpf_prog *prog, uint32_t pc)
{
    const struct bpf_line *best = NULL;
    for (uint32_t i = 0; prog && i < prog->n_lines && prog->lines[i].insn <= pc; i++)
        best = &prog->lines[i];
    return best;
}

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
        bool is_string = tid > 0 && btf_is_char_array(obj->priv->btf, btf__type_by_id(obj->priv->btf, (uint32_t)tid)->type);
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
