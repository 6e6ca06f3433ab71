/*
 * BPF maps with the kernel's semantics (Linux kernel/bpf/arraymap.c, hashtab.c, ringbuf.c).
 *
 * Hash-family maps preallocate max_entries elements in one pool, chained into buckets by index;
 * a deleted element goes back to a free list and its slot is reused, as the kernel's preallocated
 * hash maps do, so every value pointer ever handed out stays inside live memory. Iteration
 * (get_next_key) follows insertion order, which keeps dumps deterministic.
 *
 * Large pools are anonymous mappings, zero pages the kernel fills on first touch, so a map costs
 * what a program uses of it rather than what it declares (a 4096-entry HASH or a 256 KiB RINGBUF
 * of which a run touches a few elements); a PROT_NONE page after each one stops any overrun.
 */
#include "bpf/bpf_map.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define ENOTSUPP_KERNEL 524          /* the kernel's internal ENOTSUPP, what bpf() returns */
#define KMALLOC_MAX_SIZE (1u << 22)  /* x86-64, 4 KiB pages, MAX_PAGE_ORDER 10 */
#define PCPU_MIN_UNIT_SIZE (32u << 10)
#define HTAB_ELEM_OVERHEAD 48u       /* sizeof(struct htab_elem) on x86-64 */
#define MAP_MEMORY_LIMIT (1ull << 30) /* what one map may allocate here: past it, -ENOMEM */
#define RB_HDR 8u
#define RB_BUSY (1u << 31)
#define RB_DISCARD (1u << 30)
#define NIL UINT32_MAX
#define MAPPED_MIN (16u << 10)       /* pools from this size on are mappings (zero on first touch) */

#define ACCESS_FLAGS (BPF_F_RDONLY | BPF_F_WRONLY | BPF_F_RDONLY_PROG | BPF_F_WRONLY_PROG)
#define ARRAY_FLAGS (BPF_F_NUMA_NODE | BPF_F_MMAPABLE | ACCESS_FLAGS | BPF_F_PRESERVE_ELEMS | BPF_F_INNER_MAP)
#define HTAB_FLAGS (BPF_F_NO_PREALLOC | BPF_F_NO_COMMON_LRU | BPF_F_NUMA_NODE | ACCESS_FLAGS | BPF_F_ZERO_SEED)

struct helem {
    uint32_t next;      /* bucket chain */
    uint32_t older;     /* insertion order, both ways */
    uint32_t newer;
    uint32_t hash;
    uint32_t lru_prev;  /* use order (lookups and updates), both ways: LRU_HASH evicts the head in O(1) */
    uint32_t lru_next;
    bool live;
};

struct bpf_map {
    struct bpf_map_def def;
    char name[64];
    uint32_t stride;             /* value bytes per element, rounded up to 8 */
    uint8_t *values;             /* ARRAY / HASH: max_entries * stride */
    /* hash family */
    uint8_t *keys;               /* max_entries * key_size */
    struct helem *elems;
    uint32_t *buckets;           /* first element's index + 1, 0 = empty (zeroed memory is an empty table) */
    uint32_t nbuckets;           /* power of two */
    uint32_t free_head;          /* chained through helem.next */
    uint32_t unused;             /* elements from here on were never handed out */
    uint32_t count;
    uint32_t oldest, newest;
    uint32_t lru_head, lru_tail; /* least and most recently used */
    uint32_t seed;               /* hash seed: random, as the kernel's (0 with BPF_F_ZERO_SEED) */
    /* ringbuf */
    uint8_t *rb_starts;          /* a bit per 8 ring bytes: an outstanding record's header starts there */
    uint8_t *ring;
    uint64_t cons, prod;
    /* bytes mapped for each pool (0: it came from calloc) */
    size_t values_len, keys_len, elems_len, buckets_len, ring_len, rb_starts_len;
};

/* n zeroed bytes: calloc for small pools, a mapping with a guard page after it from MAPPED_MIN on. */
static void *pool_alloc(size_t n, size_t *mapped)
{
    *mapped = 0;
    if (n < MAPPED_MIN)
        return calloc(1, n ? n : 1);
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t len = (n + page - 1) / page * page + page;
    uint8_t *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED)
        return NULL;
    if (mprotect(p + len - page, page, PROT_NONE)) {
        munmap(p, len);
        return NULL;
    }
    *mapped = len;
    return p;
}

static void pool_free(void *p, size_t mapped)
{
    if (mapped)
        munmap(p, mapped);
    else
        free(p);
}

static bool is_hash(uint32_t t)
{
    return t == BPF_MAP_TYPE_HASH || t == BPF_MAP_TYPE_PERCPU_HASH || t == BPF_MAP_TYPE_LRU_HASH;
}

static bool is_array(uint32_t t)
{
    return t == BPF_MAP_TYPE_ARRAY || t == BPF_MAP_TYPE_PERCPU_ARRAY;
}

static bool access_ok(uint32_t f)
{
    return !((f & BPF_F_RDONLY) && (f & BPF_F_WRONLY)) && !((f & BPF_F_RDONLY_PROG) && (f & BPF_F_WRONLY_PROG));
}

static int refuse(const struct bpf_map_def *def, int e, char *err, size_t errlen, const char *why)
{
    if (err && errlen)
        snprintf(err, errlen, "map '%s': %s (%s)", def->name ? def->name : "", why,
                 e == EINVAL ? "EINVAL" : e == E2BIG ? "E2BIG" : e == ENOMEM ? "ENOMEM" : "ENOTSUPP");
    return e;
}

/* The kernel's map_alloc_check for each type: 0 or the positive errno. */
static int validate(const struct bpf_map_def *d, char *err, size_t errlen)
{
    uint32_t t = d->type;
    if (is_array(t)) {
        if (d->max_entries == 0 || d->key_size != 4 || d->value_size == 0 || (d->map_flags & ~ARRAY_FLAGS) ||
            !access_ok(d->map_flags))
            return refuse(d, EINVAL, err, errlen, "ARRAY needs key_size 4, value_size and max_entries > 0, known flags");
        if (d->value_size > INT32_MAX)
            return refuse(d, E2BIG, err, errlen, "value_size too large");
        if (t == BPF_MAP_TYPE_PERCPU_ARRAY && ((d->value_size + 7u) & ~7u) > PCPU_MIN_UNIT_SIZE)
            return refuse(d, E2BIG, err, errlen, "per-CPU value_size too large");
        return 0;
    }
    if (is_hash(t)) {
        bool lru = t == BPF_MAP_TYPE_LRU_HASH;
        if ((d->map_flags & ~HTAB_FLAGS) || !access_ok(d->map_flags))
            return refuse(d, EINVAL, err, errlen, "unknown flags");
        if (!lru && (d->map_flags & BPF_F_NO_COMMON_LRU))
            return refuse(d, EINVAL, err, errlen, "BPF_F_NO_COMMON_LRU on a non-LRU map");
        if (lru && (d->map_flags & BPF_F_NO_PREALLOC))
            return refuse(d, ENOTSUPP_KERNEL, err, errlen, "LRU maps are always preallocated");
        if (d->max_entries == 0 || d->key_size == 0 || d->value_size == 0)
            return refuse(d, EINVAL, err, errlen, "key_size, value_size and max_entries must be > 0");
        /* An element (header, key, value) must fit one kmalloc. */
        if ((uint64_t)d->key_size + d->value_size >= KMALLOC_MAX_SIZE - HTAB_ELEM_OVERHEAD)
            return refuse(d, E2BIG, err, errlen, "key_size + value_size too large");
        if (t == BPF_MAP_TYPE_PERCPU_HASH && ((d->value_size + 7u) & ~7u) > PCPU_MIN_UNIT_SIZE)
            return refuse(d, E2BIG, err, errlen, "per-CPU value_size too large");
        return 0;
    }
    if (t == BPF_MAP_TYPE_RINGBUF) {
        if (d->map_flags & ~BPF_F_NUMA_NODE)
            return refuse(d, EINVAL, err, errlen, "unknown flags");
        if (d->key_size || d->value_size || d->max_entries < 4096 || (d->max_entries & (d->max_entries - 1)) ||
            (d->max_entries & 4095))
            return refuse(d, EINVAL, err, errlen, "RINGBUF needs key/value size 0 and a page-aligned power-of-two size");
        return 0;
    }
    return refuse(d, EINVAL, err, errlen, "unsupported map type");
}

uint64_t bpf_map_memory(const struct bpf_map_def *def)
{
    uint64_t stride = ((uint64_t)def->value_size + 7u) & ~7ull;
    if (def->type == BPF_MAP_TYPE_RINGBUF)
        return (uint64_t)def->max_entries + def->max_entries / 64;
    uint64_t total = (uint64_t)def->max_entries * stride;
    if (is_hash(def->type))
        total += (uint64_t)def->max_entries * (def->key_size + sizeof(struct helem) + 2 * sizeof(uint32_t));
    return total;
}

struct bpf_map *bpf_map_create_errno(const struct bpf_map_def *def, int *err_no, char *err, size_t errlen)
{
    int e = validate(def, err, errlen);
    if (err_no)
        *err_no = e;
    if (e)
        return NULL;
    struct bpf_map *m = calloc(1, sizeof *m);
    if (!m)
        goto nomem;
    m->def = *def;
    snprintf(m->name, sizeof m->name, "%s", def->name ? def->name : "");
    m->def.name = m->name;
    m->stride = (def->value_size + 7u) & ~7u;
    if (bpf_map_memory(def) > MAP_MEMORY_LIMIT) {
        free(m);
        goto nomem;
    }
    if (def->type == BPF_MAP_TYPE_RINGBUF) {
        m->ring = pool_alloc(def->max_entries, &m->ring_len);
        m->rb_starts = pool_alloc(def->max_entries / 64, &m->rb_starts_len);
        if (!m->ring || !m->rb_starts)
            goto fail;
        return m;
    }
    m->values = pool_alloc((size_t)def->max_entries * m->stride, &m->values_len);
    if (!m->values)
        goto fail;
    if (is_hash(def->type)) {
        m->nbuckets = 1;
        while (m->nbuckets < def->max_entries)
            m->nbuckets <<= 1;
        m->keys = pool_alloc((size_t)def->max_entries * def->key_size, &m->keys_len);
        m->elems = pool_alloc((size_t)def->max_entries * sizeof *m->elems, &m->elems_len);
        m->buckets = pool_alloc((size_t)m->nbuckets * sizeof *m->buckets, &m->buckets_len);
        if (!m->keys || !m->elems || !m->buckets)
            goto fail;
        m->free_head = NIL;
        m->oldest = m->newest = NIL;
        m->lru_head = m->lru_tail = NIL;
        if (!(def->map_flags & BPF_F_ZERO_SEED) && getentropy(&m->seed, sizeof m->seed) != 0)
            m->seed = (uint32_t)(uintptr_t)m;
    }
    return m;
fail:
    bpf_map_destroy(m);
nomem:
    if (err_no)
        *err_no = ENOMEM;
    refuse(def, ENOMEM, err, errlen, "too large to allocate");
    return NULL;
}

struct bpf_map *bpf_map_create(const struct bpf_map_def *def, char *err, size_t errlen)
{
    return bpf_map_create_errno(def, NULL, err, errlen);
}

void bpf_map_destroy(struct bpf_map *map)
{
    if (!map)
        return;
    pool_free(map->values, map->values_len);
    pool_free(map->keys, map->keys_len);
    pool_free(map->elems, map->elems_len);
    pool_free(map->buckets, map->buckets_len);
    pool_free(map->ring, map->ring_len);
    pool_free(map->rb_starts, map->rb_starts_len);
    free(map);
}

const struct bpf_map_def *bpf_map_definition(const struct bpf_map *map)
{
    return &map->def;
}

bool bpf_map_prog_readonly(const struct bpf_map *map)
{
    return (map->def.map_flags & BPF_F_RDONLY_PROG) != 0;
}

/* --- hash family --- */

/* Word-at-a-time multiplicative hash: keys are often char[16] process names. */
static uint32_t hash_key(const struct bpf_map *m, const void *key, uint32_t len)
{
    const uint8_t *p = key;
    uint64_t h = (0x9e3779b97f4a7c15ull ^ len) + ((uint64_t)m->seed << 32 | m->seed), w;
    for (; len >= 8; p += 8, len -= 8) {
        memcpy(&w, p, 8);
        h = (h ^ w) * 0xff51afd7ed558ccdull;
        h ^= h >> 32;
    }
    if (len) {
        w = 0;
        memcpy(&w, p, len);
        h = (h ^ w) * 0xff51afd7ed558ccdull;
    }
    h ^= h >> 29;
    return (uint32_t)h;
}

static uint8_t *elem_key(const struct bpf_map *m, uint32_t i)
{
    return m->keys + (size_t)i * m->def.key_size;
}

static uint8_t *elem_value(const struct bpf_map *m, uint32_t i)
{
    return m->values + (size_t)i * m->stride;
}

static uint32_t htab_find(const struct bpf_map *m, const void *key, uint32_t h)
{
    for (uint32_t i = m->buckets[h & (m->nbuckets - 1)] - 1; i != NIL; i = m->elems[i].next)
        if (m->elems[i].hash == h && memcmp(elem_key(m, i), key, m->def.key_size) == 0)
            return i;
    return NIL;
}

static void lru_unlink(struct bpf_map *m, uint32_t i)
{
    struct helem *e = &m->elems[i];
    if (e->lru_prev != NIL)
        m->elems[e->lru_prev].lru_next = e->lru_next;
    else
        m->lru_head = e->lru_next;
    if (e->lru_next != NIL)
        m->elems[e->lru_next].lru_prev = e->lru_prev;
    else
        m->lru_tail = e->lru_prev;
}

/* Element i was just used (looked up, updated or inserted): it goes to the most recent end. */
static void lru_touch(struct bpf_map *m, uint32_t i, bool linked)
{
    if (linked) {
        if (m->lru_tail == i)
            return;
        lru_unlink(m, i);
    }
    struct helem *e = &m->elems[i];
    e->lru_prev = m->lru_tail;
    e->lru_next = NIL;
    if (m->lru_tail != NIL)
        m->elems[m->lru_tail].lru_next = i;
    else
        m->lru_head = i;
    m->lru_tail = i;
}

static void htab_unlink(struct bpf_map *m, uint32_t i)
{
    struct helem *e = &m->elems[i];
    uint32_t *head = &m->buckets[e->hash & (m->nbuckets - 1)];
    if (*head - 1 == i) {
        *head = e->next + 1; /* NIL + 1 wraps to 0: empty */
    } else {
        uint32_t p = *head - 1;
        while (m->elems[p].next != i)
            p = m->elems[p].next;
        m->elems[p].next = e->next;
    }
    if (e->older != NIL)
        m->elems[e->older].newer = e->newer;
    else
        m->oldest = e->newer;
    if (e->newer != NIL)
        m->elems[e->newer].older = e->older;
    else
        m->newest = e->older;
    lru_unlink(m, i);
    e->live = false;
    e->next = m->free_head;
    m->free_head = i;
    m->count--;
}

static int htab_update(struct bpf_map *m, const void *key, const void *value, uint64_t flags)
{
    uint32_t h = hash_key(m, key, m->def.key_size);
    uint32_t i = htab_find(m, key, h);
    if (i != NIL && flags == BPF_NOEXIST)
        return -EEXIST;
    if (i == NIL && flags == BPF_EXIST)
        return -ENOENT;
    if (i == NIL) {
        if (m->free_head == NIL && m->unused == m->def.max_entries) {
            if (m->def.type != BPF_MAP_TYPE_LRU_HASH)
                return -E2BIG;
            htab_unlink(m, m->lru_head); /* the least recently used */
        }
        if (m->free_head != NIL) {
            i = m->free_head;
            m->free_head = m->elems[i].next;
        } else {
            i = m->unused++;
        }
        struct helem *e = &m->elems[i];
        e->hash = h;
        e->live = true;
        e->next = m->buckets[h & (m->nbuckets - 1)] - 1;
        m->buckets[h & (m->nbuckets - 1)] = i + 1;
        e->older = m->newest;
        e->newer = NIL;
        if (m->newest != NIL)
            m->elems[m->newest].newer = i;
        else
            m->oldest = i;
        m->newest = i;
        m->count++;
        lru_touch(m, i, false);
        memcpy(elem_key(m, i), key, m->def.key_size);
        memset(elem_value(m, i), 0, m->stride);
    }
    lru_touch(m, i, true);
    memcpy(elem_value(m, i), value, m->def.value_size);
    return 0;
}

/* --- the operations --- */

void *bpf_map_lookup(struct bpf_map *map, const void *key)
{
    if (is_array(map->def.type)) {
        uint32_t idx;
        memcpy(&idx, key, sizeof idx);
        return idx < map->def.max_entries ? elem_value(map, idx) : NULL;
    }
    if (is_hash(map->def.type)) {
        uint32_t i = htab_find(map, key, hash_key(map, key, map->def.key_size));
        if (i == NIL)
            return NULL;
        lru_touch(map, i, true);
        return elem_value(map, i);
    }
    return NULL;
}

int bpf_map_update(struct bpf_map *map, const void *key, const void *value, uint64_t flags)
{
    if (map->def.type == BPF_MAP_TYPE_RINGBUF)
        return -ENOTSUPP_KERNEL;
    if ((flags & ~(uint64_t)BPF_F_LOCK) > BPF_EXIST)
        return -EINVAL;
    /* BPF_F_LOCK needs a bpf_spin_lock in the value, which these maps never have; the array
     * checks it last, the hash first (the order of arraymap.c and hashtab.c). */
    if (is_array(map->def.type)) {
        uint32_t idx;
        memcpy(&idx, key, sizeof idx);
        if (idx >= map->def.max_entries)
            return -E2BIG;
        if (flags & BPF_NOEXIST)
            return -EEXIST;
        if (flags & BPF_F_LOCK)
            return -EINVAL;
        memcpy(elem_value(map, idx), value, map->def.value_size);
        return 0;
    }
    if (flags & BPF_F_LOCK)
        return -EINVAL;
    return htab_update(map, key, value, flags);
}

int bpf_map_delete(struct bpf_map *map, const void *key)
{
    if (is_array(map->def.type))
        return -EINVAL;
    if (!is_hash(map->def.type))
        return -ENOTSUPP_KERNEL;
    uint32_t i = htab_find(map, key, hash_key(map, key, map->def.key_size));
    if (i == NIL)
        return -ENOENT;
    htab_unlink(map, i);
    return 0;
}

int bpf_map_get_next_key(struct bpf_map *map, const void *key, void *next)
{
    if (is_array(map->def.type)) {
        uint32_t idx = 0, n;
        if (key)
            memcpy(&idx, key, sizeof idx);
        if (!key || idx >= map->def.max_entries)
            n = 0;
        else if (idx == map->def.max_entries - 1)
            return -ENOENT;
        else
            n = idx + 1;
        memcpy(next, &n, sizeof n);
        return 0;
    }
    if (!is_hash(map->def.type))
        return -ENOTSUPP_KERNEL;
    uint32_t i = key ? htab_find(map, key, hash_key(map, key, map->def.key_size)) : NIL;
    uint32_t n = i == NIL ? map->oldest : map->elems[i].newer;
    if (n == NIL)
        return -ENOENT;
    memcpy(next, elem_key(map, n), map->def.key_size);
    return 0;
}

int bpf_map_initial_value(struct bpf_map *map, const void *data, size_t len)
{
    if (map->def.type != BPF_MAP_TYPE_ARRAY || map->def.max_entries != 1 || len > map->def.value_size)
        return -EINVAL;
    memcpy(map->values, data, len);
    return 0;
}

void *bpf_map_value_base(struct bpf_map *map, uint32_t *size)
{
    if (!is_array(map->def.type))
        return NULL;
    if (size)
        *size = map->def.value_size;
    return map->values;
}

bool bpf_map_value_containing(struct bpf_map *map, uintptr_t addr, uintptr_t *base, uint32_t *size)
{
    if (!map->values)
        return false;
    uintptr_t lo = (uintptr_t)map->values;
    if (addr < lo || addr - lo >= (uintptr_t)map->def.max_entries * map->stride)
        return false;
    uint32_t i = (uint32_t)((addr - lo) / map->stride);
    uintptr_t b = lo + (uintptr_t)i * map->stride;
    if (addr - b >= map->def.value_size)
        return false;
    if (is_hash(map->def.type) && !map->elems[i].live)
        return false;
    *base = b;
    *size = map->def.value_size;
    return true;
}

/* --- ringbuf ---
 * Records are 8-byte headers (length | BUSY | DISCARD) followed by the data, rounded to 8 bytes,
 * at monotonically increasing positions. A record never wraps: when it would, the rest of the ring
 * becomes a discarded filler record (the kernel maps its ring twice instead; the capacity rule,
 * "outstanding bytes <= size", is the same). */

static uint32_t rb_len(uint64_t data_len)
{
    return (uint32_t)((data_len + RB_HDR + 7) & ~7ull);
}

static uint32_t rb_hdr(const struct bpf_map *m, uint64_t pos)
{
    uint32_t h;
    memcpy(&h, m->ring + (pos & (m->def.max_entries - 1)), sizeof h);
    return h;
}

static void rb_set_hdr(struct bpf_map *m, uint64_t pos, uint32_t h)
{
    memcpy(m->ring + (pos & (m->def.max_entries - 1)), &h, sizeof h);
}

/* Marks (or clears) the ring offset of pos as an outstanding record's start (rb_find). */
static void rb_mark_start(struct bpf_map *m, uint64_t pos, bool on)
{
    uint64_t off = pos & (m->def.max_entries - 1);
    uint8_t bit = (uint8_t)(1u << (off / 8 % 8));
    m->rb_starts[off / 64] = on ? (uint8_t)(m->rb_starts[off / 64] | bit) : (uint8_t)(m->rb_starts[off / 64] & ~bit);
}

void *bpf_map_ringbuf_reserve(struct bpf_map *map, uint64_t size, uint64_t flags)
{
    if (map->def.type != BPF_MAP_TYPE_RINGBUF || flags || size > map->def.max_entries - RB_HDR)
        return NULL;
    uint64_t cap = map->def.max_entries;
    uint32_t len = rb_len(size);
    uint64_t off = map->prod & (cap - 1);
    uint64_t pad = off + len > cap ? cap - off : 0;
    if (map->prod + pad + len - map->cons > cap)
        return NULL;
    if (pad) {
        rb_set_hdr(map, map->prod, (uint32_t)(pad - RB_HDR) | RB_DISCARD);
        map->prod += pad;
    }
    uint64_t pos = map->prod;
    rb_set_hdr(map, pos, (uint32_t)size | RB_BUSY);
    rb_mark_start(map, pos, true);
    map->prod += len;
    uint8_t *rec = map->ring + (pos & (cap - 1)) + RB_HDR;
    memset(rec, 0, len - RB_HDR);
    return rec;
}

/* Position of the outstanding record whose data starts at rec, or UINT64_MAX. Found from the address and
 * the start bitmap, not by walking the records (a full ring of small records made every submit a scan). */
static uint64_t rb_find(const struct bpf_map *m, const void *rec)
{
    if (m->def.type != BPF_MAP_TYPE_RINGBUF)
        return UINT64_MAX;
    uint64_t cap = m->def.max_entries;
    uintptr_t a = (uintptr_t)rec, lo = (uintptr_t)m->ring + RB_HDR;
    if (a < lo || a - lo >= cap || (a - lo) % 8)
        return UINT64_MAX;
    uint64_t off = a - lo;
    if (!((m->rb_starts[off / 64] >> (off / 8 % 8)) & 1))
        return UINT64_MAX;
    uint64_t d = (m->prod - off) & (cap - 1);
    uint64_t pos = m->prod - (d ? d : cap);
    if (pos < m->cons || pos >= m->prod || !(rb_hdr(m, pos) & RB_BUSY))
        return UINT64_MAX;
    return pos;
}

static int rb_commit(struct bpf_map *m, void *rec, bool discard)
{
    uint64_t pos = rb_find(m, rec);
    if (pos == UINT64_MAX)
        return -EINVAL;
    uint32_t h = rb_hdr(m, pos) & ~RB_BUSY;
    rb_set_hdr(m, pos, discard ? h | RB_DISCARD : h);
    rb_mark_start(m, pos, false);
    return 0;
}

int bpf_map_ringbuf_submit(struct bpf_map *map, void *rec, uint64_t flags)
{
    (void)flags;
    return rb_commit(map, rec, false);
}

int bpf_map_ringbuf_discard(struct bpf_map *map, void *rec, uint64_t flags)
{
    (void)flags;
    return rb_commit(map, rec, true);
}

int bpf_map_ringbuf_output(struct bpf_map *map, const void *data, uint64_t size, uint64_t flags)
{
    if (flags & ~(uint64_t)(BPF_RB_NO_WAKEUP | BPF_RB_FORCE_WAKEUP))
        return -EINVAL;
    void *rec = bpf_map_ringbuf_reserve(map, size, 0);
    if (!rec)
        return -EAGAIN;
    memcpy(rec, data, size);
    return rb_commit(map, rec, false);
}

uint32_t bpf_map_ringbuf_record_size(const struct bpf_map *map, const void *rec)
{
    uint64_t pos = rb_find(map, rec);
    return pos == UINT64_MAX ? 0 : rb_hdr(map, pos) & ~(RB_BUSY | RB_DISCARD);
}

uint64_t bpf_map_ringbuf_query(const struct bpf_map *map, uint64_t flags)
{
    if (map->def.type != BPF_MAP_TYPE_RINGBUF)
        return 0;
    switch (flags) {
    case BPF_RB_AVAIL_DATA: return map->prod - map->cons;
    case BPF_RB_RING_SIZE: return map->def.max_entries;
    case BPF_RB_CONS_POS: return map->cons;
    case BPF_RB_PROD_POS: return map->prod;
    default: return 0;
    }
}

int bpf_map_ringbuf_drain(struct bpf_map *map, bpf_ringbuf_drain_fn fn, void *arg)
{
    int n = 0;
    if (map->def.type != BPF_MAP_TYPE_RINGBUF)
        return 0;
    while (map->cons < map->prod) {
        uint32_t h = rb_hdr(map, map->cons);
        if (h & RB_BUSY)
            break;
        uint32_t len = h & ~(RB_BUSY | RB_DISCARD);
        const uint8_t *data = map->ring + (map->cons & (map->def.max_entries - 1)) + RB_HDR;
        map->cons += rb_len(len);
        if (h & RB_DISCARD)
            continue;
        n++;
        if (fn && fn(arg, data, len))
            break;
    }
    return n;
}
