/*
 * A plugin checked from its ELF file, never loaded (hooks.h: hooks_check_plugin): `scenario check` of a
 * folder someone else wrote must not run its code, and dlopen runs a shared object's constructors.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hooks/hooks.h"
#include "hooks/policy_loader_rows.h"
#include "nvemu/policy.h"

#if defined(__x86_64__)
#define HOST_MACHINE EM_X86_64
#elif defined(__aarch64__)
#define HOST_MACHINE EM_AARCH64
#else
#define HOST_MACHINE EM_NONE /* any: dlopen judges at run time */
#endif

/* The bytes of the file's image at virtual address addr, from the allocated section holding them. */
static bool read_at(Elf *elf, GElf_Addr addr, void *out, size_t len)
{
    Elf_Scn *scn = NULL;
    while ((scn = elf_nextscn(elf, scn))) {
        GElf_Shdr sh;
        if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_ALLOC) || sh.sh_type == SHT_NOBITS ||
            addr < sh.sh_addr || addr - sh.sh_addr > sh.sh_size || sh.sh_size - (addr - sh.sh_addr) < len)
            continue;
        Elf_Data *d = elf_getdata(scn, NULL);
        if (!d || !d->d_buf || d->d_size < sh.sh_size)
            return false;
        memcpy(out, (const char *)d->d_buf + (addr - sh.sh_addr), len);
        return true;
    }
    return false;
}

/* The defined object `name` in the dynamic symbol table (what dlsym would find). */
static int find_object(Elf *elf, const char *name, GElf_Sym *found)
{
    Elf_Scn *scn = NULL;
    while ((scn = elf_nextscn(elf, scn))) {
        GElf_Shdr sh;
        if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNSYM || !sh.sh_entsize)
            continue;
        Elf_Data *d = elf_getdata(scn, NULL);
        size_t n = d ? d->d_size / sh.sh_entsize : 0;
        for (size_t i = 1; i < n; i++) {
            GElf_Sym sym;
            const char *sname = gelf_getsym(d, (int)i, &sym) ? elf_strptr(elf, sh.sh_link, sym.st_name) : NULL;
            if (!sname || strcmp(sname, name) != 0 || sym.st_shndx == SHN_UNDEF)
                continue;
            int bind = GELF_ST_BIND(sym.st_info);
            if (GELF_ST_TYPE(sym.st_info) == STT_OBJECT && (bind == STB_GLOBAL || bind == STB_WEAK)) {
                *found = sym;
                return 0;
            }
        }
    }
    return -1;
}

/* Each argument's key against the plugin's exported key list, when it has one; the message is the one
 * the plugins' own parser gives. */
static int check_arg_keys(Elf *elf, const char *path, const struct arg_list *args, char *err, size_t errlen)
{
    GElf_Sym sym;
    char keys[1024];
    if (find_object(elf, NVEMU_POLICY_ARG_KEYS_SYMBOL, &sym) != 0)
        return 0;
    if (sym.st_size == 0 || sym.st_size > sizeof keys || !read_at(elf, sym.st_value, keys, sym.st_size) ||
        !memchr(keys, '\0', sym.st_size)) {
        snprintf(err, errlen, "%s: symbol '%s' is not a string of argument keys", path,
                 NVEMU_POLICY_ARG_KEYS_SYMBOL);
        return -1;
    }
    for (int i = 0; i < args->n; i++) {
        const char *name = args->v[i].name ? args->v[i].name : args->v[i].spec->name;
        size_t klen = strlen(name);
        bool known = false;
        for (const char *k = keys; *k && !known; k += strcspn(k, " "), k += strspn(k, " "))
            known = strcspn(k, " ") == klen && !strncmp(k, name, klen);
        if (!known) {
            snprintf(err, errlen, "unknown argument '%s' (accepted: %s)", name, keys);
            return -1;
        }
    }
    return 0;
}

static int check_elf(Elf *elf, const char *path, const struct arg_list *args, char *err, size_t errlen)
{
    GElf_Ehdr eh;
    if (elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh)) {
        snprintf(err, errlen, "cannot load policy %s: not an ELF shared object", path);
        return -1;
    }
    if (eh.e_ident[EI_CLASS] != (sizeof(void *) == 8 ? ELFCLASS64 : ELFCLASS32) || eh.e_type != ET_DYN ||
        (HOST_MACHINE != EM_NONE && eh.e_machine != HOST_MACHINE)) {
        snprintf(err, errlen, "cannot load policy %s: not a shared object for this machine", path);
        return -1;
    }
    GElf_Sym sym;
    if (find_object(elf, NVEMU_POLICY_SYMBOL, &sym) != 0) {
        snprintf(err, errlen, "%s is not an nvemu policy: no symbol '%s'", path, NVEMU_POLICY_SYMBOL);
        return -1;
    }
    uint32_t head[2]; /* api_version, size: plain numbers, never relocated */
    if (sym.st_size < sizeof head || !read_at(elf, sym.st_value, head, sizeof head)) {
        snprintf(err, errlen, "%s: symbol '%s' has no readable ops table", path, NVEMU_POLICY_SYMBOL);
        return -1;
    }
    if (eh.e_ident[EI_DATA] != (*(const uint8_t *)&(uint16_t){1} ? ELFDATA2LSB : ELFDATA2MSB)) {
        snprintf(err, errlen, "cannot load policy %s: not a shared object for this machine", path);
        return -1;
    }
    if (head[0] != NVEMU_POLICY_API_VERSION) {
        snprintf(err, errlen, "%s: policy API version %u, this nvemu speaks version %u", path, head[0],
                 NVEMU_POLICY_API_VERSION);
        return -1;
    }
    if (head[1] < POLICY_OPS_MIN_SIZE || sym.st_size < POLICY_OPS_MIN_SIZE) {
        snprintf(err, errlen, "%s: policy ops table of %u bytes is smaller than the version-%u minimum %zu", path,
                 head[1], NVEMU_POLICY_API_VERSION, (size_t)POLICY_OPS_MIN_SIZE);
        return -1;
    }
    return check_arg_keys(elf, path, args, err, errlen);
}

int hooks_check_plugin_words(const char *path, const char *const *words, int nwords, char *err, size_t errlen)
{
    struct arg_list args = {0};
    int rc = hooks_policy_args_parse(path, words, nwords, &args, err, errlen);
    if (rc == 0)
        rc = hooks_check_plugin(path, &args, err, errlen);
    arg_list_free(&args);
    return rc;
}

int hooks_check_plugin(const char *path, const struct arg_list *args, char *err, size_t errlen)
{
    static const struct arg_list none;
    if (!args)
        args = &none;
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        snprintf(err, errlen, "cannot load policy %s: %s", path, strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "cannot load policy %s: not a regular file", path);
        close(fd);
        return -1;
    }
    const struct policy_loader *kind = hooks_policy_loader_for(path);
    int rc = kind->check ? kind->check(fd, path, args, err, errlen) : 1;
    close(fd);
    return rc;
}

int hooks_check_plugin_elf(int fd, const char *path, const struct arg_list *args, char *err, size_t errlen)
{
    int rc = -1;
    Elf *elf = NULL;
    if (elf_version(EV_CURRENT) == EV_NONE || !(elf = elf_begin(fd, ELF_C_READ, NULL)))
        snprintf(err, errlen, "cannot load policy %s: not an ELF shared object", path);
    else
        rc = check_elf(elf, path, args, err, errlen);
    elf_end(elf);
    return rc;
}
