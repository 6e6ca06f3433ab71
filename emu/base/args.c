/*
 * Typed arguments described by a table (args.h): one parser for the written form, one checker per type,
 * shared by the command line and the scenario keys so both refuse the same things with the same words.
 */
#include "base/args.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* What each type's parts look like written, for the list of accepted forms. */
static const char *const type_forms[] = {
    [ARG_PAIR] = "KEY=VALUE",
    [ARG_KNOB] = ":NAME=VALUE",
    [ARG_ELEMENT] = ":NAME[KEY]=VALUE",
    [ARG_TARGET] = ":PROG=LIB:FUNC",
    [ARG_COUNT] = "=N",
    [ARG_CHOICE] = "=",
};

/* Types written NAME:..., a list of settings; the others are NAME=VALUE, one value. */
static bool prefixed(enum arg_type t)
{
    return t == ARG_KNOB || t == ARG_ELEMENT || t == ARG_TARGET;
}

void arg_spec_form(const struct arg_spec *s, char *out, size_t len)
{
    int w = snprintf(out, len, "%s%s", s->name, type_forms[s->type]);
    size_t at = w > 0 ? (size_t)w : 0;
    for (const char *c = s->choices; s->type == ARG_CHOICE && c && *c && at + 1 < len; c++) {
        out[at++] = *c == ',' ? '|' : *c;
        out[at] = '\0';
    }
}

void arg_table_forms(const struct arg_spec *table, char *out, size_t len)
{
    size_t at = 0;
    if (len)
        out[0] = '\0';
    for (const struct arg_spec *s = table; s && s->name && at + 1 < len; s++) {
        char form[96];
        arg_spec_form(s, form, sizeof form);
        int w = snprintf(out + at, len - at, "%s%s", at ? ", " : "", form);
        if (w < 0)
            return;
        at += (size_t)w;
    }
}

static const struct arg_spec *spec_named(const struct arg_spec *table, const char *name, size_t len)
{
    for (const struct arg_spec *s = table; s && s->name; s++)
        if (strlen(s->name) == len && strncmp(s->name, name, len) == 0)
            return s;
    return NULL;
}

/* The row's spelling of word among its comma-separated choices, copied into out; false when none matches. */
static bool choice_of(const char *choices, const char *word, char *out, size_t len)
{
    size_t wl = strlen(word);
    for (const char *c = choices; c && *c;) {
        const char *end = strchr(c, ',');
        size_t cl = end ? (size_t)(end - c) : strlen(c);
        if (cl == wl && cl < len && strncasecmp(c, word, cl) == 0) {
            memcpy(out, c, cl);
            out[cl] = '\0';
            return true;
        }
        c += cl + (end ? 1 : 0);
    }
    return false;
}

static char *dup_or_null(const char *s, bool *oom)
{
    char *d = s ? strdup(s) : NULL;
    if (s && !d)
        *oom = true;
    return d;
}

/* Checks the parts against s's type; fills a (count, canonical choice) on success. */
static int check_parts(const struct arg_spec *s, const char *name, const char *key, const char *value,
                       char *canon, size_t canonlen, uint64_t *count, char *err, size_t errlen)
{
    const char *n = name ? name : "", *k = key ? key : "", *v = value ? value : "";
    switch (s->type) {
    case ARG_PAIR:
        if (!*n || strchr(n, '=') || !value) {
            snprintf(err, errlen, "argument '%s' is not key=value", n);
            return -1;
        }
        return 0;
    case ARG_KNOB:
        if (!*n || strchr(n, '=') || !value) {
            snprintf(err, errlen, "%s: '%s' is not %s%s", s->name, n, s->name, type_forms[s->type]);
            return -1;
        }
        return 0;
    case ARG_ELEMENT:
        if (!*n || strpbrk(n, "[]=") || !key || strpbrk(k, "[]=") || !value) {
            snprintf(err, errlen, "%s: '%s[%s]' is not %s%s (a key may not contain '[', ']' or '=')", s->name,
                     n, k, s->name, type_forms[s->type]);
            return -1;
        }
        return 0;
    case ARG_TARGET: {
        const char *colon = strchr(v, ':');
        if (!*n || strchr(n, '=') || !colon || colon == v || !colon[1]) {
            snprintf(err, errlen, "%s: %s='%s' is not LIBRARY:FUNCTION", s->name, n, v);
            return -1;
        }
        return 0;
    }
    case ARG_COUNT: {
        char *end;
        errno = 0;
        unsigned long long c = strtoull(v, &end, 10);
        if (!*v || errno || *end || c == 0 || v[0] == '-' || v[0] == '+' || v[0] == ' ') {
            snprintf(err, errlen, "%s='%s' is not a positive number", s->name, v);
            return -1;
        }
        *count = c;
        return 0;
    }
    case ARG_CHOICE:
        if (!choice_of(s->choices, v, canon, canonlen)) {
            char words[128] = "";
            size_t at = 0;
            for (const char *c = s->choices; c && *c && at + 3 < sizeof words; c++) {
                if (*c == ',') {
                    words[at++] = ',';
                    words[at++] = ' ';
                } else {
                    words[at++] = *c;
                }
                words[at] = '\0';
            }
            snprintf(err, errlen, "%s='%s' is not one of %s", s->name, v, words);
            return -1;
        }
        return 0;
    }
    snprintf(err, errlen, "%s: unknown argument type", s->name);
    return -1;
}

int arg_list_add(struct arg_list *l, const struct arg_spec *table, const char *spec, const char *name,
                 const char *key, const char *value, char *err, size_t errlen)
{
    const struct arg_spec *s = spec_named(table, spec ? spec : "", spec ? strlen(spec) : 0);
    if (!s) {
        char forms[256];
        arg_table_forms(table, forms, sizeof forms);
        snprintf(err, errlen, "unknown argument '%s' (accepted: %s)", spec ? spec : "", forms);
        return -1;
    }
    char canon[64] = "";
    uint64_t count = 0;
    if (check_parts(s, name, key, value, canon, sizeof canon, &count, err, errlen))
        return -1;
    struct arg *grown = realloc(l->v, ((size_t)l->n + 1) * sizeof *grown);
    if (!grown) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    l->v = grown;
    bool oom = false;
    struct arg a = {.spec = s, .count = count};
    if (s->type != ARG_COUNT && s->type != ARG_CHOICE) {
        a.name = dup_or_null(name, &oom);
        a.key = dup_or_null(s->type == ARG_ELEMENT ? key : NULL, &oom);
    }
    a.value = dup_or_null(s->type == ARG_CHOICE ? canon : value, &oom);
    if (oom) {
        free(a.name);
        free(a.key);
        free(a.value);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    l->v[l->n++] = a;
    return 0;
}

int arg_list_parse(struct arg_list *l, const struct arg_spec *table, const char *text, char *err, size_t errlen)
{
    char buf[512];
    if (!text || snprintf(buf, sizeof buf, "%s", text) >= (int)sizeof buf) {
        snprintf(err, errlen, "argument too long: %.40s...", text ? text : "");
        return -1;
    }
    size_t head = strcspn(buf, ":=");
    const struct arg_spec *s = spec_named(table, buf, head);
    if (s && buf[head] == ':' && prefixed(s->type)) {
        char *rest = buf + head + 1;
        if (s->type == ARG_ELEMENT) {
            char *lb = strchr(rest, '['), *rb = lb ? strstr(lb, "]=") : NULL;
            if (!lb || !rb) {
                snprintf(err, errlen, "'%s' is not %s%s", text, s->name, type_forms[s->type]);
                return -1;
            }
            *lb = *rb = '\0';
            return arg_list_add(l, table, s->name, rest, lb + 1, rb + 2, err, errlen);
        }
        char *eq = strchr(rest, '=');
        if (!eq) {
            snprintf(err, errlen, "'%s' is not %s%s", text, s->name, type_forms[s->type]);
            return -1;
        }
        *eq = '\0';
        return arg_list_add(l, table, s->name, rest, NULL, eq + 1, err, errlen);
    }
    if (s && buf[head] == '=' && !prefixed(s->type) && s->type != ARG_PAIR)
        return arg_list_add(l, table, s->name, NULL, NULL, buf + head + 1, err, errlen);
    if (spec_named(table, "", 0)) {
        char *eq = strchr(buf, '=');
        if (!eq || eq == buf) {
            snprintf(err, errlen, "argument '%s' is not key=value", text);
            return -1;
        }
        *eq = '\0';
        return arg_list_add(l, table, "", buf, NULL, eq + 1, err, errlen);
    }
    char forms[256];
    arg_table_forms(table, forms, sizeof forms);
    snprintf(err, errlen, "unknown argument '%s' (accepted: %s)", text, forms);
    return -1;
}

int arg_list_copy(struct arg_list *dst, const struct arg_list *src)
{
    if (!src || src->n == 0)
        return 0;
    struct arg *grown = realloc(dst->v, ((size_t)dst->n + (size_t)src->n) * sizeof *grown);
    if (!grown)
        return -1;
    dst->v = grown;
    for (int i = 0; i < src->n; i++) {
        const struct arg *a = &src->v[i];
        bool oom = false;
        struct arg c = {.spec = a->spec, .count = a->count};
        c.name = dup_or_null(a->name, &oom);
        c.key = dup_or_null(a->key, &oom);
        c.value = dup_or_null(a->value, &oom);
        if (oom) {
            free(c.name);
            free(c.key);
            free(c.value);
            return -1;
        }
        dst->v[dst->n++] = c;
    }
    return 0;
}

void arg_list_free(struct arg_list *l)
{
    for (int i = 0; l && i < l->n; i++) {
        free(l->v[i].name);
        free(l->v[i].key);
        free(l->v[i].value);
    }
    if (l) {
        free(l->v);
        l->v = NULL;
        l->n = 0;
    }
}

char *arg_text(const struct arg *a)
{
    char *out = NULL;
    int w = -1;
    switch (a->spec->type) {
    case ARG_PAIR:
        w = asprintf(&out, "%s=%s", a->name, a->value);
        break;
    case ARG_KNOB:
    case ARG_TARGET:
        w = asprintf(&out, "%s:%s=%s", a->spec->name, a->name, a->value);
        break;
    case ARG_ELEMENT:
        w = asprintf(&out, "%s:%s[%s]=%s", a->spec->name, a->name, a->key, a->value);
        break;
    case ARG_COUNT:
        w = asprintf(&out, "%s=%llu", a->spec->name, (unsigned long long)a->count);
        break;
    case ARG_CHOICE:
        w = asprintf(&out, "%s=%s", a->spec->name, a->value);
        break;
    }
    return w < 0 ? NULL : out;
}
