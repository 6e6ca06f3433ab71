/*
 * Trace records in a shared region (spool.h). Each entry is a fixed head and
 * its four texts; `used` moves past an entry only after the entry is written
 * (a release store), so the reader never takes bytes of a record the run was
 * still writing when it died.
 */
#include "spool.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "analyze.h"
#include "profile/profile.h"

#define NTEXT 4
/* A text's length when the record had none (NULL, not ""). */
#define NO_TEXT UINT16_MAX

struct sc_spool {
    _Atomic uint64_t used;      /* bytes of whole entries after the header */
    _Atomic uint64_t dropped;   /* records that did not fit */
    uint64_t cap;               /* bytes for entries */
    unsigned char data[];
};

struct entry_head {
    uint32_t size;              /* of the whole entry, texts included, rounded to 8 */
    uint16_t kind, gpu;
    uint64_t seq, t;
    uint32_t engine, runlist, tsg, chid;
    uint64_t a, b;
    uint16_t text_len[NTEXT];
};

struct sc_spool *sc_spool_create(size_t cap)
{
    size_t len = sizeof(struct sc_spool) + cap;
    struct sc_spool *sp = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (sp == MAP_FAILED)
        return NULL;
    atomic_init(&sp->used, 0);
    atomic_init(&sp->dropped, 0);
    sp->cap = cap;
    return sp;
}

void sc_spool_free(struct sc_spool *sp)
{
    if (sp)
        munmap(sp, sizeof(*sp) + sp->cap);
}

static uint16_t text_len(const char *s)
{
    if (!s)
        return NO_TEXT;
    size_t n = strlen(s);
    return n < NO_TEXT ? (uint16_t)n : NO_TEXT - 1;
}

void sc_spool_record(void *ctx, const struct sim_rec *r)
{
    struct sc_spool *sp = ctx;
    const char *text[NTEXT] = {r->name, r->field, r->result, r->reason};
    struct entry_head h = {.kind = r->kind, .gpu = r->gpu, .seq = r->seq, .t = r->t, .engine = r->engine,
                           .runlist = r->runlist, .tsg = r->tsg, .chid = r->chid, .a = r->a, .b = r->b};
    size_t size = sizeof(h);
    for (int i = 0; i < NTEXT; i++) {
        h.text_len[i] = text_len(text[i]);
        size += h.text_len[i] == NO_TEXT ? 0 : h.text_len[i];
    }
    size = (size + 7) & ~(size_t)7;
    uint64_t used = atomic_load_explicit(&sp->used, memory_order_relaxed);
    if (size > sp->cap - used) {
        atomic_fetch_add_explicit(&sp->dropped, 1, memory_order_relaxed);
        return;
    }
    h.size = (uint32_t)size;
    unsigned char *p = sp->data + used;
    memcpy(p, &h, sizeof(h));
    p += sizeof(h);
    for (int i = 0; i < NTEXT; i++) {
        if (h.text_len[i] != NO_TEXT) {
            memcpy(p, text[i], h.text_len[i]);
            p += h.text_len[i];
        }
    }
    atomic_store_explicit(&sp->used, used + size, memory_order_release);
}

/* The head of the entry at off, when a whole one is there: a policy that scribbled over the region before it
 * crashed ends the readable trace instead of sending the reader astray. */
static bool entry_at(const struct sc_spool *sp, uint64_t off, uint64_t used, struct entry_head *h)
{
    if (used > sp->cap || off >= used || used - off < sizeof(*h))
        return false;
    memcpy(h, sp->data + off, sizeof(*h));
    uint64_t texts = 0;
    for (int i = 0; i < NTEXT; i++)
        texts += h->text_len[i] == NO_TEXT ? 0 : h->text_len[i];
    return h->size % 8 == 0 && h->size >= sizeof(*h) + texts && h->size <= used - off;
}

size_t sc_spool_count(const struct sc_spool *sp)
{
    size_t n = 0;
    uint64_t used = atomic_load_explicit(&((struct sc_spool *)sp)->used, memory_order_acquire);
    struct entry_head h;
    for (uint64_t off = 0; entry_at(sp, off, used, &h); n++)
        off += h.size;
    return n;
}

uint64_t sc_spool_dropped(const struct sc_spool *sp)
{
    return atomic_load_explicit(&((struct sc_spool *)sp)->dropped, memory_order_relaxed);
}

/* The reader's copies of the texts: one pointer per distinct text, as the analyzer expects of the sim's. */
struct texts {
    char **slot;
    size_t cap, len;
};

static const char *text_intern(struct texts *tx, const unsigned char *s, uint16_t n)
{
    if (n == NO_TEXT)
        return NULL;
    if ((tx->len + 1) * 2 > tx->cap) {
        size_t ncap = tx->cap ? tx->cap * 2 : 64;
        char **ns = calloc(ncap, sizeof(*ns));
        if (!ns)
            return "";
        for (size_t i = 0; i < tx->cap; i++) {
            if (!tx->slot[i])
                continue;
            size_t j = 0;
            for (const char *c = tx->slot[i]; *c; c++)
                j = j * 31 + (unsigned char)*c;
            while (ns[j & (ncap - 1)])
                j++;
            ns[j & (ncap - 1)] = tx->slot[i];
        }
        free(tx->slot);
        tx->slot = ns;
        tx->cap = ncap;
    }
    size_t j = 0;
    for (uint16_t i = 0; i < n; i++)
        j = j * 31 + s[i];
    for (;; j++) {
        char *e = tx->slot[j & (tx->cap - 1)];
        if (!e)
            break;
        if (strlen(e) == n && memcmp(e, s, n) == 0)
            return e;
    }
    char *copy = malloc((size_t)n + 1);
    if (!copy)
        return "";
    memcpy(copy, s, n);
    copy[n] = '\0';
    tx->slot[j & (tx->cap - 1)] = copy;
    tx->len++;
    return copy;
}

int sc_spool_results(const struct sc_spool *sp, const struct scenario *s, uint64_t seed, uint64_t stopped_ns,
                     struct sc_results *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof(*out));
    out->sc = s;
    out->seed = seed;
    char set[SC_GPU_MAX_SET][SC_GPU_SET_LEN];
    const char *set_ptr[SC_GPU_MAX_SET];
    int nset = sc_gpu_profile_set(&s->gpu, set);
    for (int i = 0; i < nset; i++)
        set_ptr[i] = set[i];
    struct profile *prof = profile_load_set(s->gpu.profile, set_ptr, nset, err, errlen);
    if (!prof)
        return -1;
    struct sc_analyzer *an = sc_analyzer_create(s, seed, prof, out);
    if (!an) {
        profile_free(prof);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    struct texts tx = {0};
    uint64_t used = atomic_load_explicit(&((struct sc_spool *)sp)->used, memory_order_acquire), end = stopped_ns;
    struct entry_head h;
    for (uint64_t off = 0; entry_at(sp, off, used, &h);) {
        const unsigned char *p = sp->data + off + sizeof(h);
        const char *text[NTEXT];
        for (int i = 0; i < NTEXT; i++) {
            text[i] = text_intern(&tx, p, h.text_len[i]);
            p += h.text_len[i] == NO_TEXT ? 0 : h.text_len[i];
        }
        struct sim_rec r = {.seq = h.seq, .t = h.t, .kind = h.kind, .gpu = h.gpu, .engine = h.engine,
                            .runlist = h.runlist, .tsg = h.tsg, .chid = h.chid, .a = h.a, .b = h.b,
                            .name = text[0], .field = text[1], .result = text[2], .reason = text[3]};
        sc_analyzer_record(an, &r);
        if (h.t > end)
            end = h.t;
        off += h.size;
    }
    sc_analyzer_finish(an, end);
    for (size_t i = 0; i < tx.cap; i++)
        free(tx.slot[i]);
    free(tx.slot);
    profile_free(prof);
    return 0;
}
