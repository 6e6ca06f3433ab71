/*
 * Clients, the per-client handle namespace and the object tree: hash tables
 * keyed by handle (dispatch looks up two handles per control, so both are
 * O(1)), creation-ordered children, dependants, and the recursive free in the
 * driver's order.
 */
#include <stdlib.h>
#include <string.h>

#include "abi/nv_classes.h"
#include "base/log.h"
#include "fifo/fifo.h"
#include "rm/rm_internal.h"

static inline uint32_t hash_handle(uint32_t h, uint32_t nbuckets)
{
    return (h * 0x9E3779B1u) >> (32 - __builtin_ctz(nbuckets));
}

/* ---- server and clients ---- */

struct rm_server *rm_server_create(const struct rm_env *env)
{
    struct rm_server *rs = calloc(1, sizeof(*rs));
    if (!rs)
        return NULL;
    rs->env = *env;
    rs->nbuckets = 64;
    rs->buckets = calloc(rs->nbuckets, sizeof(*rs->buckets));
    if (!rs->buckets) {
        free(rs);
        return NULL;
    }
    return rs;
}

void rm_server_destroy(struct rm_server *rs)
{
    if (!rs)
        return;
    struct rm_call c = {.rs = rs};
    for (uint32_t b = 0; b < rs->nbuckets; b++)
        while (rs->buckets[b]) {
            c.client = rs->buckets[b];
            rm_object_free_tree(&c, c.client->root);
            if (rs->buckets[b] == c.client)
                break; /* kept (logged): out of memory */
        }
    while (rs->openers)
        rm_opener_free(rs, rs->openers);
    free(rs->busy);
    free(rs->os_events.pair);
    free(rs->os_events.cl);
    free(rs->later);
    free(rs->quota);
    free(rs->buckets);
    free(rs);
}

struct rm_client *rm_client_lookup(struct rm_server *rs, uint32_t handle)
{
    for (struct rm_client *cl = rs->buckets[hash_handle(handle, rs->nbuckets)]; cl; cl = cl->hash_next)
        if (cl->handle == handle)
            return cl;
    return NULL;
}

static void server_grow(struct rm_server *rs)
{
    uint32_t n = rs->nbuckets * 2;
    struct rm_client **nb = calloc(n, sizeof(*nb));
    if (!nb)
        return; /* keep the old table: only longer chains */
    for (uint32_t b = 0; b < rs->nbuckets; b++)
        for (struct rm_client *cl = rs->buckets[b], *next; cl; cl = next) {
            next = cl->hash_next;
            uint32_t i = hash_handle(cl->handle, n);
            cl->hash_next = nb[i];
            nb[i] = cl;
        }
    free(rs->buckets);
    rs->buckets = nb;
    rs->nbuckets = n;
}

static void client_index_object(struct rm_client *cl, struct rm_object *o);

struct rm_client *rm_client_new(struct rm_server *rs, uint32_t handle, nvemu_opener *owner)
{
    struct rm_client *cl = calloc(1, sizeof(*cl));
    struct rm_object *root = calloc(1, sizeof(*root));
    if (!cl || !root) {
        free(cl);
        free(root);
        return NULL;
    }
    cl->nbuckets = 16;
    cl->buckets = calloc(cl->nbuckets, sizeof(*cl->buckets));
    if (!cl->buckets) {
        free(cl);
        free(root);
        return NULL;
    }
    cl->handle = handle;
    cl->owner = owner;
    cl->creator_pid = owner->who.pid;
    cl->creator_uid = owner->who.uid;
    cl->rs = rs;
    cl->root = root;
    root->handle = handle;
    root->hclass = NV01_ROOT_CLIENT;
    root->row = rm_class_lookup(NV01_ROOT_CLIENT);
    root->family = RM_FAM_CLIENT;
    root->client = cl;
    root->constructed = true;
    client_index_object(cl, root);

    if (rs->count + 1 > rs->nbuckets)
        server_grow(rs);
    uint32_t i = hash_handle(handle, rs->nbuckets);
    cl->hash_next = rs->buckets[i];
    rs->buckets[i] = cl;
    cl->owner_next = owner->clients;
    if (owner->clients)
        owner->clients->owner_prev = cl;
    owner->clients = cl;
    cl->owner_listed = true;
    rs->count++;
    rs->objects++;
    rm_quota_charge(rs, cl->creator_uid, RM_QUOTA_CLIENT);
    return cl;
}

static void server_unlink_client(struct rm_server *rs, struct rm_client *cl)
{
    struct rm_client **pp = &rs->buckets[hash_handle(cl->handle, rs->nbuckets)];
    while (*pp && *pp != cl)
        pp = &(*pp)->hash_next;
    if (*pp) {
        *pp = cl->hash_next;
        rs->count--;
    }
    if (cl->owner_listed) {
        if (cl->owner_prev)
            cl->owner_prev->owner_next = cl->owner_next;
        else
            cl->owner->clients = cl->owner_next;
        if (cl->owner_next)
            cl->owner_next->owner_prev = cl->owner_prev;
        cl->owner_prev = cl->owner_next = NULL;
        cl->owner_listed = false;
    }
}

bool rm_client_usable(const struct rm_client *cl, nvemu_opener *op, bool relaxed)
{
    nvemu_opener *owner = rm_owner_of(op);
    if (cl->owner == owner)
        return true;
    if (!relaxed)
        return false;
    return owner->who.uid == cl->creator_uid || owner->who.pid == cl->creator_pid;
}

/* ---- per-client handle table ---- */

static void client_grow(struct rm_client *cl)
{
    uint32_t n = cl->nbuckets * 2;
    struct rm_object **nb = calloc(n, sizeof(*nb));
    if (!nb)
        return;
    for (uint32_t b = 0; b < cl->nbuckets; b++)
        for (struct rm_object *o = cl->buckets[b], *next; o; o = next) {
            next = o->hash_next;
            uint32_t i = hash_handle(o->handle, n);
            o->hash_next = nb[i];
            nb[i] = o;
        }
    free(cl->buckets);
    cl->buckets = nb;
    cl->nbuckets = n;
}

static void client_index_object(struct rm_client *cl, struct rm_object *o)
{
    if (cl->count + 1 > cl->nbuckets)
        client_grow(cl);
    uint32_t i = hash_handle(o->handle, cl->nbuckets);
    o->hash_next = cl->buckets[i];
    cl->buckets[i] = o;
    cl->count++;
}

static void client_unindex_object(struct rm_client *cl, struct rm_object *o)
{
    struct rm_object **pp = &cl->buckets[hash_handle(o->handle, cl->nbuckets)];
    while (*pp && *pp != o)
        pp = &(*pp)->hash_next;
    if (*pp) {
        *pp = o->hash_next;
        cl->count--;
    }
}

struct rm_object *rm_client_find(struct rm_client *cl, uint32_t handle)
{
    for (struct rm_object *o = cl->buckets[hash_handle(handle, cl->nbuckets)]; o; o = o->hash_next)
        if (o->handle == handle)
            return o;
    return NULL;
}

uint32_t rm_client_generate_handle(struct rm_client *cl)
{
    for (uint32_t tries = 0; tries < RM_UNIQUE_HANDLE_RANGE; tries++) {
        uint32_t h = RM_UNIQUE_HANDLE_BASE + (cl->next_generated % RM_UNIQUE_HANDLE_RANGE);
        cl->next_generated = (cl->next_generated + 1) % RM_UNIQUE_HANDLE_RANGE;
        if (!rm_client_find(cl, h))
            return h;
    }
    return 0;
}

/* ---- objects ---- */

struct rm_object *rm_object_new(struct rm_client *cl, struct rm_object *parent, uint32_t handle,
                                const struct rm_class_row *row)
{
    struct rm_object *o = calloc(1, sizeof(*o));
    if (!o)
        return NULL;
    o->handle = handle;
    o->hclass = row->hclass;
    o->row = row;
    o->family = row->family;
    o->parent = parent;
    o->client = cl;
    o->gpu = parent->gpu;
    o->prev_sibling = parent->last_child;
    if (parent->last_child)
        parent->last_child->next_sibling = o;
    else
        parent->first_child = o;
    parent->last_child = o;
    client_index_object(cl, o);
    struct rm_server *rs = cl->rs;
    rs->objects++;
    rm_quota_charge(rs, cl->creator_uid, RM_QUOTA_OBJECT);
    if (o->family == RM_FAM_EVENT)
        rm_quota_charge(rs, cl->creator_uid, RM_QUOTA_EVENT);
    if (o->family == RM_FAM_TSG)
        rs->channel_groups++;
    return o;
}

void rm_object_set_gpu(struct rm_object *o, struct gpu *g)
{
    o->gpu = g;
}

bool rm_object_is_ancestor(const struct rm_object *anc, const struct rm_object *o)
{
    for (const struct rm_object *p = o ? o->parent : NULL; p; p = p->parent)
        if (p == anc)
            return true;
    return false;
}

struct rm_object *rm_object_next_preorder(const struct rm_object *top, const struct rm_object *x)
{
    if (x->first_child)
        return x->first_child;
    for (; x && x != top; x = x->parent)
        if (x->next_sibling)
            return x->next_sibling;
    return NULL;
}

static bool ptr_push(struct rm_object ***arr, uint32_t *n, uint32_t *cap, struct rm_object *o)
{
    if (*n == *cap) {
        uint32_t nc = *cap ? *cap * 2 : 4;
        struct rm_object **na = realloc(*arr, nc * sizeof(*na));
        if (!na)
            return false;
        *arr = na;
        *cap = nc;
    }
    (*arr)[(*n)++] = o;
    return true;
}

static void ptr_remove(struct rm_object **arr, uint32_t *n, struct rm_object *o)
{
    for (uint32_t i = 0; i < *n; i++)
        if (arr[i] == o) {
            memmove(&arr[i], &arr[i + 1], (*n - i - 1) * sizeof(*arr));
            (*n)--;
            return;
        }
}

NV_STATUS rm_add_dependant(struct rm_object *on, struct rm_object *dependant)
{
    if (!on || !dependant || on == dependant || rm_object_is_ancestor(dependant, on))
        return NV_ERR_INVALID_ARGUMENT;
    for (uint32_t i = 0; i < on->ndependants; i++)
        if (on->dependants[i] == dependant)
            return NV_OK;
    if (!ptr_push(&on->dependants, &on->ndependants, &on->capdependants, dependant))
        return NV_ERR_NO_MEMORY;
    if (!ptr_push(&dependant->depends_on, &dependant->ndepends_on, &dependant->capdepends_on, on)) {
        on->ndependants--;
        return NV_ERR_NO_MEMORY;
    }
    return NV_OK;
}

/*
 * Runs the destructor and drops the object's dependency edges and counters:
 * what both a free and an invalidation do.
 */
static void release_state(struct rm_call *c, struct rm_object *o)
{
    struct rm_server *rs = o->client->rs;
    if (o->constructed && o->row && o->row->destruct && !o->dup_src) {
        struct rm_call dc = *c;
        dc.client = o->client;
        dc.obj = o;
        dc.gpu = o->gpu;
        o->row->destruct(&dc, o);
    }
    for (uint32_t i = 0; i < o->ndepends_on; i++)
        ptr_remove(o->depends_on[i]->dependants, &o->depends_on[i]->ndependants, o);
    for (uint32_t i = 0; i < o->ndependants; i++)
        ptr_remove(o->dependants[i]->depends_on, &o->dependants[i]->ndepends_on, o);
    o->ndepends_on = 0;
    o->ndependants = 0;
    if (o->free_later) {
        ptr_remove(rs->later, &rs->nlater, o);
        o->free_later = false;
    }
    if (o->family == RM_FAM_TSG && !o->lost) {
        NVEMU_ASSERT("rm", rs->channel_groups > 0);
        rs->channel_groups--;
    }
    if (o->family == RM_FAM_DEVICE && o->constructed && !o->dup_src && o->gpu && o->gpu->index < NV0080_MAX_DEVICES) {
        NVEMU_ASSERT("rm", rs->devices_per_gpu[o->gpu->index] > 0);
        rs->devices_per_gpu[o->gpu->index]--;
    }
    o->constructed = false;
    o->priv = NULL;
}

/*
 * A dependant of a freed object that is not in the freed subtree: the driver
 * invalidates it — class state gone, handle still taken, every use answers
 * NV_ERR_RESOURCE_LOST until it is freed (recorded on the H200: channels and
 * context shares after their VA space was freed).
 */
static void object_invalidate(struct rm_call *c, struct rm_object *o)
{
    release_state(c, o);
    o->lost = true;
}

/* Unlinks and frees one object whose children and dependants are already gone. */
static void object_destroy(struct rm_call *c, struct rm_object *o)
{
    struct rm_server *rs = o->client->rs;
    NVEMU_ASSERT("rm", !o->first_child); /* the free pass frees children first */
    release_state(c, o);
    if (o->parent) {
        if (o->prev_sibling)
            o->prev_sibling->next_sibling = o->next_sibling;
        else
            o->parent->first_child = o->next_sibling;
        if (o->next_sibling)
            o->next_sibling->prev_sibling = o->prev_sibling;
        else
            o->parent->last_child = o->prev_sibling;
    }
    client_unindex_object(o->client, o);
    NVEMU_ASSERT("rm", rs->objects > 0);
    rs->objects--;
    rm_quota_uncharge(rs, o->client->creator_uid, RM_QUOTA_OBJECT);
    if (o->family == RM_FAM_EVENT)
        rm_quota_uncharge(rs, o->client->creator_uid, RM_QUOTA_EVENT);
    free(o->dependants);
    free(o->depends_on);
    free(o);
}

/* The objects of one free pass; small passes (a channel group) stay on the stack. */
#define FREE_SET_INLINE 32
struct free_set {
    struct rm_object **v;
    uint32_t n, cap;
    struct rm_object *inline_v[FREE_SET_INLINE];
};

static bool set_push(struct free_set *s, struct rm_object *o)
{
    if (s->n == s->cap) {
        uint32_t nc = s->cap * 2;
        struct rm_object **nv = malloc(nc * sizeof(*nv));
        if (!nv)
            return false;
        memcpy(nv, s->v, s->n * sizeof(*nv));
        if (s->v != s->inline_v)
            free(s->v);
        s->v = nv;
        s->cap = nc;
    }
    s->v[s->n++] = o;
    return true;
}

/*
 * Collects o, its descendants and dependants (transitively) once each, in the
 * preorder a recursive walk would give (children in creation order, then
 * dependants). An explicit stack: a client may build chains far deeper than a
 * thread's stack.
 */
static bool collect(struct free_set *s, struct rm_object *o, uint32_t pass)
{
    struct rm_object **stack = NULL;
    uint32_t n = 0, cap = 0;
    bool ok = ptr_push(&stack, &n, &cap, o);
    while (ok && n > 0) {
        struct rm_object *x = stack[--n];
        if (x->free_mark == pass)
            continue;
        x->free_mark = pass;
        x->free_subtree = FREE_SUBTREE_UNKNOWN;
        ok = set_push(s, x);
        for (uint32_t i = x->ndependants; ok && i-- > 0;)
            ok = ptr_push(&stack, &n, &cap, x->dependants[i]);
        for (struct rm_object *ch = x->last_child; ok && ch; ch = ch->prev_sibling)
            ok = ptr_push(&stack, &n, &cap, ch);
    }
    free(stack);
    return ok;
}

/*
 * Whether x (collected in this pass) is o or one of o's descendants: those
 * are destroyed, the other collected objects only invalidated. Answers are
 * kept on the path walked, so a whole pass costs O(n) however deep the tree.
 */
static bool in_subtree(struct rm_object *o, struct rm_object *x, uint32_t pass)
{
    struct rm_object *p = x;
    uint8_t ans = FREE_SUBTREE_NO;
    for (; p && p->free_mark == pass; p = p->parent) {
        if (p == o || p->free_subtree != FREE_SUBTREE_UNKNOWN) {
            ans = p == o ? FREE_SUBTREE_YES : p->free_subtree;
            break;
        }
    }
    for (struct rm_object *q = x; q != p; q = q->parent)
        q->free_subtree = ans;
    return ans == FREE_SUBTREE_YES;
}

/* Ready objects of a free pass: a binary heap ordered by (free_priority, later-collected first). */
struct ready_heap {
    struct rm_object **v;
    uint32_t n;
    struct rm_object *inline_v[FREE_SET_INLINE];
};

static bool ready_before(const struct rm_object *a, const struct rm_object *b)
{
    uint8_t pa = a->row ? a->row->free_priority : 0xFF, pb = b->row ? b->row->free_priority : 0xFF;
    return pa != pb ? pa < pb : a->free_index > b->free_index;
}

static void heap_push(struct ready_heap *h, struct rm_object *o)
{
    uint32_t i = h->n++;
    h->v[i] = o;
    while (i > 0 && ready_before(h->v[i], h->v[(i - 1) / 2])) {
        struct rm_object *t = h->v[i];
        h->v[i] = h->v[(i - 1) / 2];
        h->v[(i - 1) / 2] = t;
        i = (i - 1) / 2;
    }
}

static struct rm_object *heap_pop(struct ready_heap *h)
{
    if (h->n == 0)
        return NULL;
    struct rm_object *top = h->v[0];
    h->v[0] = h->v[--h->n];
    for (uint32_t i = 0;;) {
        uint32_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < h->n && ready_before(h->v[l], h->v[m]))
            m = l;
        if (r < h->n && ready_before(h->v[r], h->v[m]))
            m = r;
        if (m == i)
            break;
        struct rm_object *t = h->v[i];
        h->v[i] = h->v[m];
        h->v[m] = t;
        i = m;
    }
    return top;
}

static void release_blocker(struct ready_heap *h, struct rm_object *o, uint32_t pass)
{
    if (o && o->free_mark == pass && o->free_blockers > 0 && --o->free_blockers == 0)
        heap_push(h, o);
}

static void free_client_root(struct rm_server *rs, struct rm_client *cl)
{
    /* a client that locked the runlist policy releases it when it dies */
    for (uint32_t g = 0; g < rs->env.gpu_count; g++)
        if (rs->env.gpus[g].fifo)
            fifo_sched_policy_owner_gone(rs->env.gpus[g].fifo, cl);
    server_unlink_client(rs, cl);
    NVEMU_ASSERT("rm", rs->objects > 0);
    rs->objects--;
    rm_quota_uncharge(rs, cl->creator_uid, RM_QUOTA_CLIENT);
    free(cl->root->dependants);
    free(cl->root->depends_on);
    free(cl->root);
    free(cl->buckets);
    free(cl);
}

/*
 * The driver frees all descendants and dependants first, by free priority
 * (channels and TSGs before default-priority objects), the target last. Here:
 * an object becomes ready once its children and dependants are gone; among
 * ready objects the lowest free_priority goes first, later-created first on
 * ties (O(n log n)). Freeing a client's root object frees the client.
 */
static void free_tree_pass(struct rm_call *c, struct rm_object *o);

void rm_free_later(struct rm_call *c, struct rm_object *o)
{
    struct rm_server *rs = o->client->rs;
    if (rs->free_depth == 0) {
        rm_object_free_tree(c, o);
        return;
    }
    if (o->free_later)
        return;
    if (!ptr_push(&rs->later, &rs->nlater, &rs->caplater, o)) {
        LOG_ERROR("rm", "out of memory: 0x%08x stays until its parent is freed", o->handle);
        return;
    }
    o->free_later = true;
}

void rm_object_free_tree(struct rm_call *c, struct rm_object *o)
{
    struct rm_server *rs = o->client->rs;
    rs->free_depth++;
    free_tree_pass(c, o);
    if (--rs->free_depth == 0) {
        /* objects queued by destructors; each pass may queue more */
        rs->free_depth++;
        while (rs->nlater > 0) {
            struct rm_object *x = rs->later[--rs->nlater];
            x->free_later = false;
            free_tree_pass(c, x);
        }
        rs->free_depth--;
    }
}

static void free_tree_pass(struct rm_call *c, struct rm_object *o)
{
    struct rm_client *cl = o->client;
    struct rm_server *rs = cl->rs;
    uint32_t pass = ++rs->free_pass;
    if (pass == 0)
        pass = ++rs->free_pass;
    struct free_set s;
    struct ready_heap h;
    s.v = s.inline_v;
    s.n = 0;
    s.cap = FREE_SET_INLINE;
    h.n = 0;
    bool ok = collect(&s, o, pass);
    h.v = !ok ? NULL : s.n <= FREE_SET_INLINE ? h.inline_v : malloc(s.n * sizeof(*h.v));
    if (!h.v) {
        LOG_ERROR("rm", "out of memory while freeing 0x%08x; object kept", o->handle);
        for (uint32_t i = 0; i < s.n; i++)
            s.v[i]->free_mark = 0;
        if (s.v != s.inline_v)
            free(s.v);
        return;
    }
    for (uint32_t i = 0; i < s.n; i++) {
        struct rm_object *x = s.v[i];
        uint32_t b = x->ndependants;
        for (struct rm_object *ch = x->first_child; ch; ch = ch->next_sibling)
            b++;
        x->free_blockers = b;
        x->free_index = i;
    }
    for (uint32_t i = 0; i < s.n; i++)
        if (s.v[i]->free_blockers == 0)
            heap_push(&h, s.v[i]);
    uint32_t freed = 0;
    for (struct rm_object *x; (x = heap_pop(&h)); freed++) {
        s.v[x->free_index] = NULL;
        release_blocker(&h, x->parent, pass);
        for (uint32_t i = 0; i < x->ndepends_on; i++)
            release_blocker(&h, x->depends_on[i], pass);
        if (x == cl->root)
            free_client_root(rs, cl);
        else if (in_subtree(o, x, pass))
            object_destroy(c, x);
        else
            object_invalidate(c, x);
    }
    if (freed != s.n) {
        LOG_ERROR("rm", "free of 0x%08x: dependency cycle; %u objects kept", o->handle, s.n - freed);
        for (uint32_t i = 0; i < s.n; i++)
            if (s.v[i])
                s.v[i]->free_mark = 0;
    }
    if (h.v != h.inline_v)
        free(h.v);
    if (s.v != s.inline_v)
        free(s.v);
}

/* ---- rm.h accessors ---- */

uint32_t rm_object_handle(const struct rm_object *o) { return o->handle; }
uint32_t rm_object_class(const struct rm_object *o) { return o->dup_src ? o->dup_src->hclass : o->hclass; }
enum rm_family rm_object_family(const struct rm_object *o) { return o->family; }
struct rm_object *rm_object_parent(const struct rm_object *o) { return o->parent; }
struct gpu *rm_object_gpu(const struct rm_object *o) { return o->gpu; }
void *rm_object_priv(const struct rm_object *o) { return o->dup_src ? o->dup_src->priv : o->priv; }
void rm_object_set_priv(struct rm_object *o, void *priv) { o->priv = priv; }
uint32_t rm_client_handle(const struct rm_client *cl) { return cl->handle; }
struct rm_client *rm_client_by_handle(struct rm_server *rs, uint32_t hclient) { return rm_client_lookup(rs, hclient); }

NV_STATUS rm_check_gpu(const struct rm_object *o, const char *what)
{
    if (!o->gpu || !gpu_is_lost(o->gpu))
        return NV_OK;
    LOG_INFO("fault", "%s on 0x%08x (class 0x%04x): GPU %u lost, NV_ERR_GPU_IS_LOST", what, o->handle,
             rm_object_class(o), o->gpu->index);
    return NV_ERR_GPU_IS_LOST;
}

uint32_t rm_gpu_device_count(struct rm_server *rs, const struct gpu *g)
{
    return g && g->index < NV0080_MAX_DEVICES ? rs->devices_per_gpu[g->index] : 0;
}

void rm_object_for_each_child(struct rm_object *o, bool (*fn)(struct rm_object *child, void *arg), void *arg)
{
    for (struct rm_object *ch = o->first_child, *next; ch; ch = next) {
        next = ch->next_sibling;
        if (!ch->lost && !fn(ch, arg))
            return;
    }
}

const struct profile *rm_server_profile(const struct rm_server *rs) { return rs->env.profile; }
uint32_t rm_object_map_flags(const struct rm_object *o) { return o->map_flags; }

void rm_server_counts(const struct rm_server *rs, struct rm_counts *out)
{
    out->clients = rs->count;
    out->objects = rs->objects;
    out->channel_groups = rs->channel_groups;
}

struct fifo_channel *rm_object_channel(struct rm_object *obj)
{
    return obj && rm_object_family(obj) == RM_FAM_CHANNEL ? rm_object_priv(obj) : NULL;
}

struct fifo_tsg *rm_object_tsg(struct rm_object *obj)
{
    return obj && rm_object_family(obj) == RM_FAM_TSG ? rm_object_priv(obj) : NULL;
}

void rm_for_each_object(struct rm_server *rs, void (*fn)(const struct rm_object *o, void *arg), void *arg)
{
    for (uint32_t b = 0; b < rs->nbuckets; b++)
        for (struct rm_client *cl = rs->buckets[b]; cl; cl = cl->hash_next)
            for (struct rm_object *o = cl->root; (o = rm_object_next_preorder(cl->root, o));)
                fn(o, arg);
}
