/*
 * The object loader (bpf_obj.h): the object's state and lifetime, and the order of the phases that
 * fill it in (bpf_obj_internal.h): ELF through libelf, types through libbpf's BTF API, relocations
 * and the struct_ops binding by hand (libbpf 1.1 does not expose them and cannot load without the
 * driver's BTF). A malformed object gets a message, never a crash.
 */
#include "bpf/bpf_obj_internal.h"

#include <bpf/btf.h>
#include <errno.h>
#include <fcntl.h>
#include <libelf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int bpf_obj_fail(struct bpf_obj_priv *P, const char *fmt, ...)
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

void bpf_obj_note(struct bpf_obj *obj, const char *fmt, ...)
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

/*
 * The loader's phases in order: each reads what the ones before it filled in (relocation tables name
 * symbols, maps are described in BTF, binding needs the programs, linking needs maps and binding).
 */
static int (*const phases[])(struct bpf_obj *obj) = {
    bpf_obj_elf_sections,
    bpf_obj_elf_symbols,
    bpf_obj_elf_relocations,
    bpf_obj_btf_load,
    bpf_obj_btf_lines,
    bpf_obj_elf_license,
    bpf_obj_maps_create,
    bpf_obj_progs_find,
    bpf_obj_struct_ops_bind,
    bpf_obj_reloc_programs,
};

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
        bpf_obj_fail(P, "%zu bytes is not a BPF object", len);
        goto bad;
    }
    /* 8-byte aligned private copy: libelf hands out pointers into it */
    P->image = malloc(len);
    if (!P->image) {
        bpf_obj_fail(P, "out of memory");
        goto bad;
    }
    memcpy(P->image, buf, len);
    P->image_len = len;
    for (size_t i = 0; i < sizeof phases / sizeof phases[0]; i++)
        if (phases[i](obj))
            goto bad;
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
