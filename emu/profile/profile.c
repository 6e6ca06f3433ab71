/*
 * Profile lookup: built-in profiles (emu/profiles/NAME.yaml compiled into the
 * binary as strings by emu/profile/CMakeLists.txt) or a YAML file by path.
 */
#include "profile/profile.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "profile/profile_builtin.h"
#include "profile/profile_yaml.h"
#include "yaml/ytree.h"

const char *const profile_preempt_mode_names[] = {"wfi", "cta", "cilp", NULL};
const char *const profile_source_names[] = {"measured", "derived", "assumed", NULL};

void profile_print_provenance(const struct profile *p, FILE *out)
{
    fprintf(out, "%s: where its values come from\n", p->name);
    for (int kind = PROFILE_SOURCE_MEASURED; kind <= PROFILE_SOURCE_ASSUMED; kind++)
        for (uint32_t i = 0; i < p->provenance_count; i++)
            if (p->provenance[i].kind == kind)
                fprintf(out, "  %-22s %-9s %s\n", p->provenance[i].key, profile_source_names[kind],
                        p->provenance[i].source);
    fprintf(out, "  (every other value: its source is cited next to it in the profile file)\n");
}

static const struct profile_builtin *builtin_find(const char *name)
{
    for (const struct profile_builtin *b = profile_builtins; b->name; b++)
        if (!strcmp(b->name, name))
            return b;
    return NULL;
}

const char *const *profile_builtin_names(void)
{
    return profile_builtin_name_list;
}

struct profile *profile_load_set(const char *name_or_path, const char *const *set, int nset, char *err,
                                 size_t errlen)
{
    char scratch[8];
    if (!err) {
        err = scratch;
        errlen = sizeof scratch;
    }
    if (!name_or_path)
        name_or_path = "h200";
    const struct profile_builtin *b = builtin_find(name_or_path);
    struct profile *p;
    if (b) {
        p = profile_parse_yaml_set(b->file, b->text, b->len, set, nset, err, errlen);
    } else if (strchr(name_or_path, '/') || strstr(name_or_path, ".yaml") || strstr(name_or_path, ".yml")) {
        size_t len = 0;
        char *text = ytree_read_file(name_or_path, PROFILE_FILE_MAX, &len, err, errlen);
        if (!text)
            return NULL;
        p = profile_parse_yaml_set(name_or_path, text, len, set, nset, err, errlen);
        free(text);
    } else {
        snprintf(err, errlen, "unknown profile %s", name_or_path);
        return NULL;
    }
    if (p)
        LOG_DEBUG("profile", "loaded %s (%s, %u classes, %u engines)", p->name, p->chip, p->class_count,
                  p->engine_count);
    return p;
}

struct profile *profile_load(const char *name_or_path, char *err, size_t errlen)
{
    return profile_load_set(name_or_path, NULL, 0, err, errlen);
}

/* Rewrites every occurrence of `from` in s (of size cap) with `to`, as far as s has room. */
static void replace_all(char *s, size_t cap, const char *from, const char *to)
{
    char out[256];
    size_t n = 0, lf = strlen(from);
    for (const char *q = s; *q && n + 1 < sizeof out;) {
        if (lf && !strncmp(q, from, lf)) {
            n += (size_t)snprintf(out + n, sizeof out - n, "%s", to);
            q += lf;
        } else {
            out[n++] = *q++;
        }
    }
    n = n < sizeof out ? n : sizeof out - 1;
    if (n >= cap)
        n = cap - 1;
    memcpy(s, out, n);
    s[n] = '\0';
}

bool profile_use_driver(struct profile *p, const char *driver, char *err, size_t errlen)
{
    enum nv_release rel;
    if (!nv_release_parse(driver, &rel)) {
        snprintf(err, errlen, "driver %s: nvemu models the driver releases 550, 575 and 580", driver);
        return false;
    }
    const char *version = strchr(driver, '.') ? driver : nv_release_info(rel)->version;
    char old[sizeof p->driver_version];
    snprintf(old, sizeof old, "%s", p->driver_version);
    /* a build string that names another release's build without its version (580.159.04 answers
     * "rel/gpu_drv/r580/...") is not this release's: its version stands in */
    if (strcmp(old, version) != 0) {
        char *strs[] = {p->build_version, p->build_title};
        for (size_t i = 0; i < 2; i++)
            if (!strstr(strs[i], old))
                snprintf(strs[i], sizeof p->build_version, "%s", old);
        _Static_assert(sizeof p->build_version == sizeof p->build_title, "build strings of one size");
    }
    replace_all(p->build_version, sizeof p->build_version, old, version);
    replace_all(p->build_title, sizeof p->build_title, old, version);
    snprintf(p->driver_version, sizeof p->driver_version, "%s", version);
    p->release = rel;
    return true;
}

void profile_free(struct profile *p)
{
    if (!p)
        return;
    for (uint32_t i = 0; i < p->canned_count; i++) {
        free(p->canned[i].out);
        free(p->canned[i].in);
    }
    free(p);
}

const struct profile_engine *profile_engine(const struct profile *p, uint32_t engine_type)
{
    for (uint32_t i = 0; i < p->engine_count; i++)
        if (p->engines[i].engine_type == engine_type)
            return &p->engines[i];
    return NULL;
}

bool profile_has_class(const struct profile *p, uint32_t hclass)
{
    for (uint32_t i = 0; i < p->class_count; i++)
        if (p->classes[i] == hclass)
            return true;
    return false;
}

const struct profile_info_table *profile_info_table(const struct profile *p, uint32_t cmd)
{
    for (uint32_t i = 0; i < p->info_table_count; i++)
        if (p->info_tables[i].cmd == cmd)
            return &p->info_tables[i];
    return NULL;
}
