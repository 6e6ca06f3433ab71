/*
 * Strict YAML -> struct profile. The schema is a set of field tables: every
 * key must be known, every value must have the right type and range, and
 * every error names "file:line:column". Layout of the document: see
 * emu/profiles/h200.yaml, which documents each key.
 */
#include "profile/profile_yaml.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

struct pctx {
    yaml_document_t *doc;
    const char *file;
    char *err;
    size_t errlen;
    struct profile *p;
    const yaml_node_t *fifo_node;
};

enum ftype { F_U8, F_U16, F_U32, F_U64, F_TIME, F_BOOL, F_STR, F_MAP, F_CUSTOM };

struct field;
typedef bool (*custom_fn)(struct pctx *c, yaml_node_t *n, void *base);

struct field {
    const char *key;
    enum ftype type;
    size_t off;            /* into the base the table is walked with */
    size_t cap;            /* F_STR buffer size */
    uint64_t min, max;     /* integer range; F_TIME: max in ns */
    bool required;
    const struct field *sub; /* F_MAP: fields of the nested mapping (same base) */
    custom_fn custom;
};

static bool fail(struct pctx *c, const yaml_node_t *n, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static bool fail(struct pctx *c, const yaml_node_t *n, const char *fmt, ...)
{
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (c->err && c->errlen)
        snprintf(c->err, c->errlen, "%s:%zu:%zu: %s", c->file,
                 n ? n->start_mark.line + 1 : 1, n ? n->start_mark.column + 1 : 1, msg);
    return false;
}

static yaml_node_t *node_at(struct pctx *c, int idx)
{
    return yaml_document_get_node(c->doc, idx);
}

static const char *scalar(struct pctx *c, yaml_node_t *n, const char *what)
{
    if (n->type != YAML_SCALAR_NODE) {
        fail(c, n, "expected %s, found a %s", what,
             n->type == YAML_MAPPING_NODE ? "mapping" : "sequence");
        return NULL;
    }
    return (const char *)n->data.scalar.value;
}

/* Unsigned decimal or 0x-hex integer within [min, max]. */
static bool parse_uint(struct pctx *c, yaml_node_t *n, uint64_t min, uint64_t max, uint64_t *out)
{
    const char *s = scalar(c, n, "an unsigned integer");
    if (!s)
        return false;
    int base = 10;
    const char *d = s;
    if (d[0] == '0' && (d[1] == 'x' || d[1] == 'X')) {
        base = 16;
        d += 2;
    }
    if (!*d)
        return fail(c, n, "expected an unsigned integer, found '%s'", s);
    uint64_t v = 0;
    for (const char *q = d; *q; q++) {
        int dig;
        if (isdigit((unsigned char)*q))
            dig = *q - '0';
        else if (base == 16 && isxdigit((unsigned char)*q))
            dig = tolower((unsigned char)*q) - 'a' + 10;
        else
            return fail(c, n, "expected an unsigned integer, found '%s'", s);
        if (v > (UINT64_MAX - (uint64_t)dig) / (uint64_t)base)
            return fail(c, n, "integer '%s' overflows 64 bits", s);
        v = v * (uint64_t)base + (uint64_t)dig;
    }
    if (v < min || v > max)
        return fail(c, n, "value %s out of range [%llu, %llu]", s, (unsigned long long)min,
                    (unsigned long long)max);
    *out = v;
    return true;
}

/* Microseconds with up to three decimals ("3.5") -> nanoseconds. */
static bool parse_time(struct pctx *c, yaml_node_t *n, uint64_t max_ns, uint64_t *out)
{
    const char *s = scalar(c, n, "a time in microseconds");
    if (!s)
        return false;
    uint64_t whole = 0, frac = 0;
    int fdig = 0;
    const char *q = s;
    if (!isdigit((unsigned char)*q))
        return fail(c, n, "expected a time in microseconds (e.g. 3.5), found '%s'", s);
    for (; isdigit((unsigned char)*q); q++) {
        whole = whole * 10 + (uint64_t)(*q - '0');
        if (whole > max_ns)
            return fail(c, n, "time %s us out of range (max %llu us)", s,
                        (unsigned long long)(max_ns / 1000));
    }
    if (*q == '.') {
        for (q++; isdigit((unsigned char)*q); q++) {
            if (++fdig > 3)
                return fail(c, n, "time '%s' has more than 3 decimals (ns resolution)", s);
            frac = frac * 10 + (uint64_t)(*q - '0');
        }
        if (fdig == 0)
            return fail(c, n, "expected a time in microseconds (e.g. 3.5), found '%s'", s);
    }
    if (*q)
        return fail(c, n, "expected a time in microseconds (e.g. 3.5), found '%s'", s);
    while (fdig++ < 3)
        frac *= 10;
    uint64_t ns = whole * 1000 + frac;
    if (ns > max_ns)
        return fail(c, n, "time %s us out of range (max %llu us)", s,
                    (unsigned long long)(max_ns / 1000));
    *out = ns;
    return true;
}

static bool parse_str(struct pctx *c, yaml_node_t *n, char *dst, size_t cap)
{
    const char *s = scalar(c, n, "a string");
    if (!s)
        return false;
    size_t len = n->data.scalar.length;
    if (len >= cap)
        return fail(c, n, "string longer than %zu characters", cap - 1);
    if (memchr(s, '\0', len))
        return fail(c, n, "string contains a NUL character");
    memcpy(dst, s, len);
    dst[len] = '\0';
    return true;
}

static int hexval(char ch)
{
    return isdigit((unsigned char)ch) ? ch - '0' : tolower((unsigned char)ch) - 'a' + 10;
}

/*
 * Hex bytes, as whitespace-separated tokens so long blobs can be folded:
 * a token is an even number of hex digits, or "HH*N" = byte HH repeated N times.
 * Two passes: measure, then fill.
 */
static bool parse_hex(struct pctx *c, yaml_node_t *n, uint32_t maxlen, uint8_t **out, uint32_t *outlen)
{
    const char *s = scalar(c, n, "a hex byte string");
    if (!s)
        return false;
    uint8_t *buf = NULL;
    size_t total = 0;
    for (int pass = 0; pass < 2; pass++) {
        size_t k = 0;
        const char *q = s;
        while (*q) {
            if (isspace((unsigned char)*q)) {
                q++;
                continue;
            }
            const char *t = q;
            while (isxdigit((unsigned char)*q))
                q++;
            size_t nd = (size_t)(q - t);
            if (*q == '*') {
                char *e;
                if (nd != 2)
                    return free(buf), fail(c, n, "repeat token needs one byte before '*'");
                unsigned long rep = strtoul(q + 1, &e, 10);
                if (e == q + 1 || (*e && !isspace((unsigned char)*e)) || rep == 0 || rep > maxlen)
                    return free(buf), fail(c, n, "bad repeat count in hex byte string");
                if (buf)
                    memset(buf + k, hexval(t[0]) << 4 | hexval(t[1]), rep);
                k += rep;
                q = e;
            } else {
                if (*q && !isspace((unsigned char)*q))
                    return free(buf), fail(c, n, "invalid character '%c' in hex byte string", *q);
                if (nd % 2)
                    return free(buf), fail(c, n, "hex token with an odd number of digits");
                for (size_t i = 0; i < nd; i += 2, k++)
                    if (buf)
                        buf[k] = (uint8_t)(hexval(t[i]) << 4 | hexval(t[i + 1]));
            }
            if (k > maxlen)
                return free(buf), fail(c, n, "hex byte string longer than %u bytes", maxlen);
        }
        if (pass == 0) {
            if (k == 0)
                return fail(c, n, "empty hex byte string");
            total = k;
            buf = malloc(total);
            if (!buf)
                return fail(c, n, "out of memory");
        }
    }
    *out = buf;
    *outlen = (uint32_t)total;
    return true;
}

static bool walk_map(struct pctx *c, yaml_node_t *n, const struct field *fields, void *base);

static bool parse_field(struct pctx *c, const struct field *f, yaml_node_t *v, void *base)
{
    char *dst = (char *)base + f->off;
    uint64_t x;
    switch (f->type) {
    case F_U8:
    case F_U16:
    case F_U32:
    case F_U64:
        if (!parse_uint(c, v, f->min, f->max, &x))
            return false;
        if (f->type == F_U8)
            *(uint8_t *)dst = (uint8_t)x;
        else if (f->type == F_U16)
            *(uint16_t *)dst = (uint16_t)x;
        else if (f->type == F_U32)
            *(uint32_t *)dst = (uint32_t)x;
        else
            *(uint64_t *)dst = x;
        return true;
    case F_TIME:
        return parse_time(c, v, f->max, (uint64_t *)dst);
    case F_BOOL: {
        const char *s = scalar(c, v, "true or false");
        if (!s)
            return false;
        if (!strcmp(s, "true"))
            *(bool *)dst = true;
        else if (!strcmp(s, "false"))
            *(bool *)dst = false;
        else
            return fail(c, v, "expected true or false, found '%s'", s);
        return true;
    }
    case F_STR:
        return parse_str(c, v, dst, f->cap);
    case F_MAP:
        return walk_map(c, v, f->sub, base);
    case F_CUSTOM:
        return f->custom(c, v, base);
    }
    return fail(c, v, "internal: bad field type");
}

static bool walk_map(struct pctx *c, yaml_node_t *n, const struct field *fields, void *base)
{
    if (n->type != YAML_MAPPING_NODE)
        return fail(c, n, "expected a mapping");
    uint64_t seen = 0;
    for (yaml_node_pair_t *pr = n->data.mapping.pairs.start; pr < n->data.mapping.pairs.top; pr++) {
        yaml_node_t *k = node_at(c, pr->key), *v = node_at(c, pr->value);
        const char *key = scalar(c, k, "a key");
        if (!key)
            return false;
        int i;
        for (i = 0; fields[i].key; i++)
            if (!strcmp(fields[i].key, key))
                break;
        if (!fields[i].key)
            return fail(c, k, "unknown key '%s'", key);
        if (seen & (1ull << i))
            return fail(c, k, "duplicate key '%s'", key);
        seen |= 1ull << i;
        if (!parse_field(c, &fields[i], v, base))
            return false;
    }
    for (int i = 0; fields[i].key; i++)
        if (fields[i].required && !(seen & (1ull << i)))
            return fail(c, n, "missing key '%s'", fields[i].key);
    return true;
}

/* ---- custom sections ---- */

#define P(field) offsetof(struct profile, field)

static bool parse_classes(struct pctx *c, yaml_node_t *n, void *base)
{
    struct profile *p = base;
    if (n->type != YAML_SEQUENCE_NODE)
        return fail(c, n, "expected a sequence of class ids");
    for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top; it++) {
        yaml_node_t *v = node_at(c, *it);
        uint64_t x;
        if (!parse_uint(c, v, 0, 0xFFFF, &x))
            return false;
        if (p->class_count >= PROFILE_MAX_CLASSES)
            return fail(c, v, "more than %d classes", PROFILE_MAX_CLASSES);
        for (uint32_t i = 0; i < p->class_count; i++)
            if (p->classes[i] == x)
                return fail(c, v, "class 0x%llx listed twice", (unsigned long long)x);
        p->classes[p->class_count++] = (uint32_t)x;
    }
    return true;
}

static const struct field engine_fields[] = {
    {"name", F_STR, offsetof(struct profile_engine, name), sizeof(((struct profile_engine *)0)->name), 0, 0, true, NULL, NULL},
    {"type", F_U32, offsetof(struct profile_engine, engine_type), 0, 1, 0x53, true, NULL, NULL},
    {"runlist", F_U32, offsetof(struct profile_engine, runlist_id), 0, 0, 63, true, NULL, NULL},
    {NULL, 0, 0, 0, 0, 0, false, NULL, NULL},
};

static bool parse_engines(struct pctx *c, yaml_node_t *n, void *base)
{
    struct profile *p = base;
    if (n->type != YAML_SEQUENCE_NODE)
        return fail(c, n, "expected a sequence of engines");
    for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top; it++) {
        yaml_node_t *v = node_at(c, *it);
        if (p->engine_count >= PROFILE_MAX_ENGINES)
            return fail(c, v, "more than %d engines", PROFILE_MAX_ENGINES);
        struct profile_engine *e = &p->engines[p->engine_count];
        if (!walk_map(c, v, engine_fields, e))
            return false;
        for (uint32_t i = 0; i < p->engine_count; i++)
            if (p->engines[i].engine_type == e->engine_type)
                return fail(c, v, "engine type 0x%x listed twice", e->engine_type);
        p->engine_count++;
    }
    return true;
}

/* index: value mapping into an info table. */
static bool parse_info_map(struct pctx *c, yaml_node_t *n, struct profile_info *tbl, uint32_t *count)
{
    if (n->type != YAML_MAPPING_NODE)
        return fail(c, n, "expected a mapping of index: value");
    for (yaml_node_pair_t *pr = n->data.mapping.pairs.start; pr < n->data.mapping.pairs.top; pr++) {
        yaml_node_t *k = node_at(c, pr->key), *v = node_at(c, pr->value);
        uint64_t idx, val;
        if (!parse_uint(c, k, 0, 0xFFFFFFFFu, &idx) || !parse_uint(c, v, 0, 0xFFFFFFFFu, &val))
            return false;
        if (*count >= PROFILE_MAX_INFO)
            return fail(c, k, "more than %d entries", PROFILE_MAX_INFO);
        for (uint32_t i = 0; i < *count; i++)
            if (tbl[i].index == idx)
                return fail(c, k, "index 0x%llx listed twice", (unsigned long long)idx);
        tbl[*count].index = (uint32_t)idx;
        tbl[*count].value = (uint32_t)val;
        (*count)++;
    }
    return true;
}

static bool parse_gpu_info(struct pctx *c, yaml_node_t *n, void *base)
{
    struct profile *p = base;
    return parse_info_map(c, n, p->gpu_info, &p->gpu_info_count);
}

static bool parse_gr_info(struct pctx *c, yaml_node_t *n, void *base)
{
    struct profile *p = base;
    return parse_info_map(c, n, p->gr_info, &p->gr_info_count);
}

static bool parse_table_entries(struct pctx *c, yaml_node_t *n, void *base)
{
    struct profile_info_table *t = base;
    return parse_info_map(c, n, t->entries, &t->count);
}

static const struct field table_fields[] = {
    {"cmd", F_U32, offsetof(struct profile_info_table, cmd), 0, 1, 0xFFFFFFFFu, true, NULL, NULL},
    {"entries", F_CUSTOM, 0, 0, 0, 0, true, NULL, parse_table_entries},
    {NULL, 0, 0, 0, 0, 0, false, NULL, NULL},
};

static bool parse_info_tables(struct pctx *c, yaml_node_t *n, void *base)
{
    struct profile *p = base;
    if (n->type != YAML_SEQUENCE_NODE)
        return fail(c, n, "expected a sequence of tables");
    for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top; it++) {
        yaml_node_t *v = node_at(c, *it);
        if (p->info_table_count >= PROFILE_MAX_INFO_TABLES)
            return fail(c, v, "more than %d tables", PROFILE_MAX_INFO_TABLES);
        struct profile_info_table *t = &p->info_tables[p->info_table_count];
        if (!walk_map(c, v, table_fields, t))
            return false;
        for (uint32_t i = 0; i < p->info_table_count; i++)
            if (p->info_tables[i].cmd == t->cmd)
                return fail(c, v, "table for cmd 0x%x listed twice", t->cmd);
        p->info_table_count++;
    }
    return true;
}

/* Largest control params the driver copies (RMAPI_PARAM_COPY_MAX_PARAMS_SIZE). */
#define CANNED_MAX_BYTES (1u << 20)

/* A canned control while it is parsed: `out` may be shorter than `size` (zero tail). */
struct canned_tmp {
    struct profile_canned_ctrl ctrl;  /* first: field offsets below are into it */
    uint32_t out_len;
};

/* Parsed into out_len; the size key (if any) pads it with zeros afterwards. */
static bool parse_canned_out(struct pctx *c, yaml_node_t *n, void *base)
{
    struct canned_tmp *k = base;
    return parse_hex(c, n, CANNED_MAX_BYTES, &k->ctrl.out, &k->out_len);
}

static bool parse_canned_in(struct pctx *c, yaml_node_t *n, void *base)
{
    struct canned_tmp *k = base;
    return parse_hex(c, n, CANNED_MAX_BYTES, &k->ctrl.in, &k->ctrl.in_size);
}

static const struct field canned_fields[] = {
    {"cmd", F_U32, offsetof(struct canned_tmp, ctrl.cmd), 0, 1, 0xFFFFFFFFu, true, NULL, NULL},
    {"source", F_STR, offsetof(struct canned_tmp, ctrl.source), sizeof(((struct profile_canned_ctrl *)0)->source), 0, 0, true, NULL, NULL},
    {"size", F_U32, offsetof(struct canned_tmp, ctrl.size), 0, 1, CANNED_MAX_BYTES, false, NULL, NULL},
    {"in", F_CUSTOM, 0, 0, 0, 0, false, NULL, parse_canned_in},
    {"out", F_CUSTOM, 0, 0, 0, 0, true, NULL, parse_canned_out},
    {"status", F_U32, offsetof(struct canned_tmp, ctrl.status), 0, 0, 0xFFFFu, false, NULL, NULL},
    {NULL, 0, 0, 0, 0, 0, false, NULL, NULL},
};

static bool parse_canned(struct pctx *c, yaml_node_t *n, void *base)
{
    struct profile *p = base;
    if (n->type != YAML_SEQUENCE_NODE)
        return fail(c, n, "expected a sequence of canned controls");
    for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top; it++) {
        yaml_node_t *v = node_at(c, *it);
        if (p->canned_count >= PROFILE_MAX_CANNED)
            return fail(c, v, "more than %d canned controls", PROFILE_MAX_CANNED);
        struct profile_canned_ctrl *k = &p->canned[p->canned_count++];
        struct canned_tmp tmp = {0};
        bool ok = walk_map(c, v, canned_fields, &tmp);
        *k = tmp.ctrl;
        if (!ok)
            return false;
        if (!k->size)
            k->size = tmp.out_len;
        if (tmp.out_len > k->size)
            return fail(c, v, "'out' holds %u bytes but size is %u", tmp.out_len, k->size);
        if (tmp.out_len < k->size) {
            uint8_t *grown = realloc(k->out, k->size);
            if (!grown)
                return fail(c, v, "out of memory");
            memset(grown + tmp.out_len, 0, k->size - tmp.out_len);
            k->out = grown;
        }
        if (k->in && k->in_size > k->size)
            return fail(c, v, "'in' holds %u bytes but 'out' holds %u", k->in_size, k->size);
        if (k->in && k->in_size < k->size) {
            uint8_t *grown = realloc(k->in, k->size);
            if (!grown)
                return fail(c, v, "out of memory");
            memset(grown + k->in_size, 0, k->size - k->in_size);
            k->in = grown;
            k->in_size = k->size;
        }
        for (uint32_t i = 0; i + 1 < p->canned_count; i++) {
            const struct profile_canned_ctrl *o = &p->canned[i];
            if (o->cmd != k->cmd)
                continue;
            if (o->size != k->size)
                return fail(c, v, "cmd 0x%x answered with %u bytes here and %u bytes before", k->cmd,
                            k->size, o->size);
            if (!o->in)
                return fail(c, v, "cmd 0x%x already has an answer for every input", k->cmd);
            if (k->in && !memcmp(o->in, k->in, k->in_size))
                return fail(c, v, "cmd 0x%x: same input listed twice", k->cmd);
        }
    }
    return true;
}

/* "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" -> 16 bytes. */
static bool parse_uuid(struct pctx *c, yaml_node_t *n, void *base)
{
    struct profile *p = base;
    const char *s = scalar(c, n, "a GPU UUID");
    if (!s)
        return false;
    static const char shape[] = "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx";
    if (strlen(s) != sizeof shape - 1)
        return fail(c, n, "expected a UUID like %s", shape);
    int k = 0;
    for (size_t i = 0; i < sizeof shape - 1; i++) {
        if (shape[i] != 'x') {
            if (s[i] != shape[i])
                return fail(c, n, "expected a UUID like %s", shape);
            continue;
        }
        if (!isxdigit((unsigned char)s[i]))
            return fail(c, n, "expected a UUID like %s", shape);
        int v = isdigit((unsigned char)s[i]) ? s[i] - '0' : tolower((unsigned char)s[i]) - 'a' + 10;
        if (k % 2 == 0)
            p->uuid[k / 2] = (uint8_t)(v << 4);
        else
            p->uuid[k / 2] |= (uint8_t)v;
        k++;
    }
    return true;
}

static bool parse_preempt_mode(struct pctx *c, yaml_node_t *n, void *base)
{
    struct profile *p = base;
    static const char *const modes[] = {"wfi", "cta", "cilp"};
    const char *s = scalar(c, n, "wfi, cta or cilp");
    if (!s)
        return false;
    for (uint32_t i = 0; i < 3; i++)
        if (!strcmp(s, modes[i])) {
            p->default_compute_preempt_mode = i;
            return true;
        }
    return fail(c, n, "expected wfi, cta or cilp, found '%s'", s);
}

static bool parse_fifo(struct pctx *c, yaml_node_t *n, void *base);

static const struct field pci_fields[] = {
    {"domain", F_U32, P(pci_domain), 0, 0, 0xFFFF, true, NULL, NULL},
    {"bus", F_U32, P(pci_bus), 0, 0, 0xFF, true, NULL, NULL},
    {"slot", F_U32, P(pci_slot), 0, 0, 31, true, NULL, NULL},
    {"function", F_U32, P(pci_function), 0, 0, 7, true, NULL, NULL},
    {"vendor_id", F_U16, P(pci_vendor_id), 0, 1, 0xFFFE, true, NULL, NULL},
    {"device_id", F_U16, P(pci_device_id), 0, 1, 0xFFFE, true, NULL, NULL},
    {"subsystem_id", F_U32, P(pci_subsystem_id), 0, 0, 0xFFFFFFFFu, true, NULL, NULL},
    {"revision_id", F_U32, P(pci_revision_id), 0, 0, 0xFF, true, NULL, NULL},
    {"ext_device_id", F_U32, P(pci_ext_device_id), 0, 0, 0xFFFF, true, NULL, NULL},
    {"bar0_address", F_U64, P(bar0_address), 0, 0, UINT64_MAX, true, NULL, NULL},
    {"bar0_size", F_U64, P(bar0_size), 0, 1, UINT64_MAX, true, NULL, NULL},
    {"fb_address", F_U64, P(fb_address), 0, 0, UINT64_MAX, true, NULL, NULL},
    {"fb_size", F_U64, P(fb_size), 0, 1, UINT64_MAX, true, NULL, NULL},
    {"interrupt_line", F_U16, P(interrupt_line), 0, 0, 0xFFFF, true, NULL, NULL},
    {NULL, 0, 0, 0, 0, 0, false, NULL, NULL},
};

static const struct field build_fields[] = {
    {"driver_version", F_STR, P(driver_version), sizeof(((struct profile *)0)->driver_version), 0, 0, true, NULL, NULL},
    {"version", F_STR, P(build_version), sizeof(((struct profile *)0)->build_version), 0, 0, true, NULL, NULL},
    {"title", F_STR, P(build_title), sizeof(((struct profile *)0)->build_title), 0, 0, true, NULL, NULL},
    {"changelist", F_U32, P(changelist), 0, 0, 0xFFFFFFFFu, true, NULL, NULL},
    {"official_changelist", F_U32, P(official_changelist), 0, 0, 0xFFFFFFFFu, true, NULL, NULL},
    {NULL, 0, 0, 0, 0, 0, false, NULL, NULL},
};

static const struct field arch_fields[] = {
    {"architecture", F_U32, P(arch_id), 0, 0, 0xFFFFFFFFu, true, NULL, NULL},
    {"implementation", F_U32, P(arch_impl), 0, 0, 0xFFFFFFFFu, true, NULL, NULL},
    {"revision", F_U32, P(arch_revision), 0, 0, 0xFFFFFFFFu, true, NULL, NULL},
    {"subrevision", F_U32, P(arch_subrevision), 0, 0, 0xFFFFFFFFu, true, NULL, NULL},
    {NULL, 0, 0, 0, 0, 0, false, NULL, NULL},
};

static const struct field gr_fields[] = {
    {"sm_count", F_U32, P(sm_count), 0, 1, 1024, true, NULL, NULL},
    {"gpc_count", F_U32, P(gpc_count), 0, 1, 32, true, NULL, NULL},
    {"tpc_per_gpc", F_U32, P(tpc_per_gpc), 0, 1, 32, true, NULL, NULL},
    {"sm_per_tpc", F_U32, P(sm_per_tpc), 0, 1, 8, true, NULL, NULL},
    {"info_max", F_U32, P(gr_info_max), 0, 1, PROFILE_MAX_INFO, true, NULL, NULL},
    {"ctx_buffer_size", F_U64, P(gr_ctx_buffer_size), 0, 1, UINT64_MAX, true, NULL, NULL},
    {"info", F_CUSTOM, 0, 0, 0, 0, true, NULL, parse_gr_info},
    {NULL, 0, 0, 0, 0, 0, false, NULL, NULL},
};

/* One hour: no modelled latency is anywhere near it; larger is a unit mistake. */
#define TMAX 3600000000000ull

static const struct field fifo_fields[] = {
    {"default_timeslice_us", F_U64, P(default_timeslice_us), 0, 1, 1000000000ull, true, NULL, NULL},
    {"min_timeslice_us", F_U64, P(min_timeslice_us), 0, 0, 1000000000ull, true, NULL, NULL},
    {"timeslice_scale_max", F_U32, P(timeslice_scale_max), 0, 0, 15, true, NULL, NULL},
    {"max_channel_groups", F_U32, P(max_channel_groups), 0, 1, 65536, true, NULL, NULL},
    {"max_channels_per_group", F_U32, P(max_channels_per_group), 0, 1, 128, true, NULL, NULL},
    {"max_subcontexts", F_U32, P(max_subcontexts), 0, 1, 64, true, NULL, NULL},
    {"per_runlist_chram", F_BOOL, P(per_runlist_chram), 0, 0, 0, true, NULL, NULL},
    {"per_runlist_chram_hw", F_BOOL, P(per_runlist_chram_hw), 0, 0, 0, true, NULL, NULL},
    {"reserved_chids", F_U32, P(reserved_chids), 0, 0, 4095, true, NULL, NULL},
    {"channel_uid_first", F_U32, P(channel_uid_first), 0, 0, 0xFFFFFFFFu, true, NULL, NULL},
    {"default_compute_preempt_mode", F_CUSTOM, 0, 0, 0, 0, true, NULL, parse_preempt_mode},
    {NULL, 0, 0, 0, 0, 0, false, NULL, NULL},
};

static bool parse_fifo(struct pctx *c, yaml_node_t *n, void *base)
{
    c->fifo_node = n;
    return walk_map(c, n, fifo_fields, base);
}

static const struct field timing_fields[] = {
    {"ctxsw_us", F_TIME, P(timing.ctxsw_ns), 0, 0, TMAX, true, NULL, NULL},
    {"runlist_update_us", F_TIME, P(timing.runlist_update_ns), 0, 0, TMAX, true, NULL, NULL},
    {"wfi_overhead_us", F_TIME, P(timing.wfi_overhead_ns), 0, 0, TMAX, true, NULL, NULL},
    {"cta_overhead_us", F_TIME, P(timing.cta_overhead_ns), 0, 0, TMAX, true, NULL, NULL},
    {"cilp_save_us", F_TIME, P(timing.cilp_save_ns), 0, 0, TMAX, true, NULL, NULL},
    {"preempt_timeout_us", F_TIME, P(timing.preempt_timeout_ns), 0, 0, TMAX, true, NULL, NULL},
    {"lat_get_timeslice_us", F_TIME, P(timing.lat_get_timeslice_ns), 0, 0, TMAX, true, NULL, NULL},
    {"lat_set_timeslice_us", F_TIME, P(timing.lat_set_timeslice_ns), 0, 0, TMAX, true, NULL, NULL},
    {"lat_preempt_us", F_TIME, P(timing.lat_preempt_ns), 0, 0, TMAX, true, NULL, NULL},
    {"lat_tsg_alloc_us", F_TIME, P(timing.lat_tsg_alloc_ns), 0, 0, TMAX, true, NULL, NULL},
    {"lat_channel_alloc_us", F_TIME, P(timing.lat_channel_alloc_ns), 0, 0, TMAX, true, NULL, NULL},
    {"lat_control_us", F_TIME, P(timing.lat_control_ns), 0, 0, TMAX, true, NULL, NULL},
    {NULL, 0, 0, 0, 0, 0, false, NULL, NULL},
};

static const struct field top_fields[] = {
    {"name", F_STR, P(name), sizeof(((struct profile *)0)->name), 0, 0, true, NULL, NULL},
    {"chip", F_STR, P(chip), sizeof(((struct profile *)0)->chip), 0, 0, true, NULL, NULL},
    {"arch", F_STR, P(arch), sizeof(((struct profile *)0)->arch), 0, 0, true, NULL, NULL},
    {"marketing_name", F_STR, P(marketing_name), sizeof(((struct profile *)0)->marketing_name), 0, 0, true, NULL, NULL},
    {"short_name", F_STR, P(short_name), sizeof(((struct profile *)0)->short_name), 0, 0, true, NULL, NULL},
    {"notes", F_STR, P(notes), sizeof(((struct profile *)0)->notes), 0, 0, true, NULL, NULL},
    {"gpu_count", F_U32, P(gpu_count), 0, 1, 32, true, NULL, NULL},
    {"sli_status", F_U32, P(sli_status), 0, 0, 0xFFFFFFFFu, true, NULL, NULL},
    {"uuid", F_CUSTOM, 0, 0, 0, 0, true, NULL, parse_uuid},
    {"build", F_MAP, 0, 0, 0, 0, true, build_fields, NULL},
    {"pci", F_MAP, 0, 0, 0, 0, true, pci_fields, NULL},
    {"arch_info", F_MAP, 0, 0, 0, 0, true, arch_fields, NULL},
    {"classes", F_CUSTOM, 0, 0, 0, 0, true, NULL, parse_classes},
    {"gr", F_MAP, 0, 0, 0, 0, true, gr_fields, NULL},
    {"engines", F_CUSTOM, 0, 0, 0, 0, true, NULL, parse_engines},
    {"fifo", F_CUSTOM, 0, 0, 0, 0, true, NULL, parse_fifo},
    {"timing", F_MAP, 0, 0, 0, 0, true, timing_fields, NULL},
    {"gpu_info", F_CUSTOM, 0, 0, 0, 0, true, NULL, parse_gpu_info},
    {"info_tables", F_CUSTOM, 0, 0, 0, 0, false, NULL, parse_info_tables},
    {"canned", F_CUSTOM, 0, 0, 0, 0, false, NULL, parse_canned},
    {NULL, 0, 0, 0, 0, 0, false, NULL, NULL},
};

/* Relations between fields that no single field's range can express. */
static bool cross_check(struct pctx *c, yaml_node_t *root)
{
    struct profile *p = c->p;
    static const char *const arches[] = {"volta", "turing", "ampere", "hopper", "blackwell", NULL};
    bool arch_ok = false;
    for (int i = 0; arches[i]; i++)
        arch_ok |= !strcmp(p->arch, arches[i]);
    if (!arch_ok)
        return fail(c, root, "arch '%s' is not one of volta, turing, ampere, hopper, blackwell", p->arch);
    if (p->per_runlist_chram && !p->per_runlist_chram_hw)
        return fail(c, c->fifo_node, "per_runlist_chram needs per_runlist_chram_hw");
    if (p->min_timeslice_us > p->default_timeslice_us)
        return fail(c, c->fifo_node, "min_timeslice_us %llu exceeds default_timeslice_us %llu",
                    (unsigned long long)p->min_timeslice_us, (unsigned long long)p->default_timeslice_us);
    if (p->pci_bus + p->gpu_count - 1 > 0xFF)
        return fail(c, root, "gpu_count %u does not fit after PCI bus %u", p->gpu_count, p->pci_bus);
    if (!profile_engine(p, 1))
        return fail(c, root, "engines must include GR0 (type 1)");
    for (uint32_t i = 0; i < p->gr_info_count; i++)
        if (p->gr_info[i].index >= p->gr_info_max)
            return fail(c, root, "gr.info index 0x%x is not below gr.info_max 0x%x", p->gr_info[i].index,
                        p->gr_info_max);
    return true;
}

struct profile *profile_parse_yaml(const char *file, const char *text, size_t len, char *err, size_t errlen)
{
    struct pctx c = {.file = file, .err = err, .errlen = errlen};
    yaml_parser_t parser;
    yaml_document_t doc;
    if (!yaml_parser_initialize(&parser)) {
        snprintf(err, errlen, "%s: cannot initialise the YAML parser", file);
        return NULL;
    }
    yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
    if (!yaml_parser_load(&parser, &doc)) {
        snprintf(err, errlen, "%s:%zu:%zu: %s%s%s", file, parser.problem_mark.line + 1,
                 parser.problem_mark.column + 1, parser.context ? parser.context : "",
                 parser.context ? ": " : "", parser.problem ? parser.problem : "YAML syntax error");
        yaml_parser_delete(&parser);
        return NULL;
    }
    yaml_parser_delete(&parser);
    c.doc = &doc;
    struct profile *p = calloc(1, sizeof *p);
    yaml_node_t *root = yaml_document_get_root_node(&doc);
    bool ok = false;
    if (!p)
        snprintf(err, errlen, "%s: out of memory", file);
    else if (!root)
        snprintf(err, errlen, "%s:1:1: empty document", file);
    else {
        c.p = p;
        ok = walk_map(&c, root, top_fields, p) && cross_check(&c, root);
    }
    yaml_document_delete(&doc);
    if (!ok) {
        profile_free(p);
        return NULL;
    }
    return p;
}
