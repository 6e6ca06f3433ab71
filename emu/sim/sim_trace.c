/* Event trace: interning, in-memory records, CSV stream, subscribers, digest. */
#include "sim/sim_internal.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"

#define COMP "sim"
#define FNV_PRIME 0x100000001b3ull

int sim_kind_register(struct sim *s, uint16_t kind, const char *name)
{
    if (kind >= SIM_REC_KINDS_MAX || !name)
        return -1;
    if (s->kind_names[kind] && strcmp(s->kind_names[kind], name) != 0)
        return -1;
    s->kind_names[kind] = name;
    return 0;
}

const char *sim_kind_name(const struct sim *s, uint16_t kind)
{
    return kind < SIM_REC_KINDS_MAX && s->kind_names[kind] ? s->kind_names[kind] : "unknown";
}

static uint64_t str_hash(const char *str)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (const unsigned char *p = (const unsigned char *)str; *p; p++)
        h = (h ^ *p) * FNV_PRIME;
    return h;
}

static bool intern_grow(struct sim *s)
{
    size_t ncap = s->intern_cap ? s->intern_cap * 2 : 64;
    char **nt = calloc(ncap, sizeof(*nt));
    if (!nt)
        return false;
    for (size_t i = 0; i < s->intern_cap; i++) {
        char *str = s->intern[i];
        if (!str)
            continue;
        size_t j = str_hash(str) & (ncap - 1);
        while (nt[j])
            j = (j + 1) & (ncap - 1);
        nt[j] = str;
    }
    free(s->intern);
    s->intern = nt;
    s->intern_cap = ncap;
    return true;
}

const char *sim_intern(struct sim *s, const char *str)
{
    if (!str)
        return NULL;
    if ((s->intern_len + 1) * 2 > s->intern_cap && !intern_grow(s))
        return "";
    size_t j = str_hash(str) & (s->intern_cap - 1);
    while (s->intern[j]) {
        if (strcmp(s->intern[j], str) == 0)
            return s->intern[j];
        j = (j + 1) & (s->intern_cap - 1);
    }
    char *copy = strdup(str);
    if (!copy)
        return "";
    s->intern[j] = copy;
    s->intern_len++;
    return copy;
}

static uint64_t fold_word(uint64_t h, uint64_t w) { return (h ^ w) * FNV_PRIME; }

static uint64_t fold_str(uint64_t h, const char *str)
{
    if (str)
        for (const unsigned char *p = (const unsigned char *)str; *p; p++)
            h = (h ^ *p) * FNV_PRIME;
    return (h ^ 0) * FNV_PRIME;
}

void sim_trace(struct sim *s, const struct sim_rec *in)
{
    struct sim_rec r = *in;
    r.seq = s->rec_seq++;
    r.t = s->now;
    r.name = sim_intern(s, r.name);
    r.field = sim_intern(s, r.field);
    r.result = sim_intern(s, r.result);
    r.reason = sim_intern(s, r.reason);

    uint64_t h = s->digest;
    h = fold_word(h, r.t);
    h = fold_word(h, ((uint64_t)r.kind << 16) | r.gpu);
    h = fold_word(h, ((uint64_t)r.engine << 32) | r.runlist);
    h = fold_word(h, ((uint64_t)r.tsg << 32) | r.chid);
    h = fold_word(h, r.a);
    h = fold_word(h, r.b);
    h = fold_str(h, r.name);
    h = fold_str(h, r.field);
    h = fold_str(h, r.result);
    h = fold_str(h, r.reason);
    s->digest = h;

    if (s->keep) {
        if (s->rec_len == s->rec_cap) {
            size_t ncap = s->rec_cap ? s->rec_cap * 2 : 1024;
            struct sim_rec *nr = realloc(s->recs, ncap * sizeof(*nr));
            if (!nr) {
                LOG_ERROR(COMP, "out of memory keeping the trace; in-memory copy stops");
                s->keep = false;
            } else {
                s->recs = nr;
                s->rec_cap = ncap;
            }
        }
        if (s->keep)
            s->recs[s->rec_len++] = r;
    }
    if (s->csv) {
        char line[512];
        int n = sim_trace_format(s, &r, line, sizeof(line));
        if (n > 0) {
            fwrite(line, 1, (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1, s->csv);
            fputc('\n', s->csv);
        }
    }
    for (int i = 0; i < s->sub_len; i++)
        s->subs[i].fn(s->subs[i].ctx, &r);
}

int sim_trace_subscribe(struct sim *s, sim_trace_fn fn, void *ctx)
{
    if (s->sub_len == s->sub_cap) {
        int ncap = s->sub_cap ? s->sub_cap * 2 : 4;
        struct sim_sub *ns = realloc(s->subs, (size_t)ncap * sizeof(*ns));
        if (!ns)
            return -1;
        s->subs = ns;
        s->sub_cap = ncap;
    }
    int id = ++s->sub_next_id;
    s->subs[s->sub_len++] = (struct sim_sub){fn, ctx, id};
    return id;
}

void sim_trace_unsubscribe(struct sim *s, int id)
{
    for (int i = 0; i < s->sub_len; i++) {
        if (s->subs[i].id == id) {
            memmove(&s->subs[i], &s->subs[i + 1], (size_t)(s->sub_len - i - 1) * sizeof(*s->subs));
            s->sub_len--;
            return;
        }
    }
}

size_t sim_trace_count(const struct sim *s) { return s->rec_len; }

const struct sim_rec *sim_trace_get(const struct sim *s, size_t i)
{
    return i < s->rec_len ? &s->recs[i] : NULL;
}

const char *sim_trace_csv_header(void)
{
    return "seq,t_ns,kind,gpu,engine,runlist,tsg,chid,a,b,name,field,result,reason";
}

static void put_id(char *buf, size_t len, uint32_t v)
{
    if (v == SIM_NONE)
        snprintf(buf, len, "-");
    else
        snprintf(buf, len, "%" PRIu32, v);
}

/* CSV field: quoted (with "" escapes) only when it holds a comma, quote or newline. */
static void csv_field(char *out, size_t len, const char *str)
{
    if (!str)
        str = "";
    if (!strpbrk(str, ",\"\n")) {
        snprintf(out, len, "%s", str);
        return;
    }
    size_t o = 0;
    out[o++] = '"';
    for (const char *p = str; *p && o + 3 < len; p++) {
        if (*p == '"')
            out[o++] = '"';
        out[o++] = *p == '\n' ? ' ' : *p;
    }
    out[o++] = '"';
    out[o] = 0;
}

int sim_trace_format(const struct sim *s, const struct sim_rec *r, char *buf, size_t len)
{
    char eng[12], rl[12], tsg[12], ch[12], f[4][96];
    put_id(eng, sizeof(eng), r->engine);
    put_id(rl, sizeof(rl), r->runlist);
    put_id(tsg, sizeof(tsg), r->tsg);
    put_id(ch, sizeof(ch), r->chid);
    csv_field(f[0], sizeof(f[0]), r->name);
    csv_field(f[1], sizeof(f[1]), r->field);
    csv_field(f[2], sizeof(f[2]), r->result);
    csv_field(f[3], sizeof(f[3]), r->reason);
    return snprintf(buf, len, "%" PRIu64 ",%" PRIu64 ",%s,%u,%s,%s,%s,%s,%" PRIu64 ",%" PRIu64 ",%s,%s,%s,%s",
                    r->seq, r->t, sim_kind_name(s, r->kind), (unsigned)r->gpu, eng, rl, tsg,
                    ch, r->a, r->b, f[0], f[1], f[2], f[3]);
}

uint64_t sim_trace_digest(const struct sim *s) { return s->digest; }

void sim_trace_flush(struct sim *s)
{
    if (s->csv)
        fflush(s->csv);
}

void sim_trace_free(struct sim *s)
{
    for (size_t i = 0; i < s->intern_cap; i++)
        free(s->intern[i]);
    free(s->intern);
    free(s->recs);
    free(s->subs);
}
