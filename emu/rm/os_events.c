/*
 * The OS-event table: the driver keeps one list for the machine, so a
 * (hClient, fd) pair is unique across all fds and FREE_OS_EVENT finds it from
 * any fd. Here two seeded hash tables make find, add, remove O(1) and freeing
 * a client's events O(its events), whatever other users hold.
 */
#include <stdint.h>
#include <stdlib.h>
#include <sys/random.h>

#include "base/log.h"
#include "rm/rm_internal.h"

static uint32_t mix(uint32_t seed, uint32_t a, uint32_t b)
{
    uint64_t x = ((uint64_t)a << 32 | b) ^ ((uint64_t)seed * 0x9E3779B97F4A7C15ull);
    x ^= x >> 33;
    x *= 0xFF51AFD7ED558CCDull;
    x ^= x >> 33;
    x *= 0xC4CEB9FE1A85EC53ull;
    x ^= x >> 33;
    return (uint32_t)x;
}

static uint32_t pair_slot(const struct os_event_table *t, uint32_t hclient, uint32_t fd)
{
    return mix(t->seed, hclient, fd) & (t->nbuckets - 1);
}

static uint32_t client_slot(const struct os_event_table *t, uint32_t hclient)
{
    return mix(t->seed ^ 0x5bd1e995u, hclient, 0) & (t->nbuckets - 1);
}

#define LINK(head, e, f)                       \
    do {                                       \
        (e)->f##_next = *(head);               \
        if (*(head))                           \
            (*(head))->f##_pprev = &(e)->f##_next; \
        *(head) = (e);                         \
        (e)->f##_pprev = (head);               \
    } while (0)

#define UNLINK(e, f)                                  \
    do {                                              \
        *(e)->f##_pprev = (e)->f##_next;              \
        if ((e)->f##_next)                            \
            (e)->f##_next->f##_pprev = (e)->f##_pprev; \
    } while (0)

static void link_tables(struct os_event_table *t, struct os_event *e)
{
    LINK(&t->pair[pair_slot(t, e->hclient, e->fd)], e, pair);
    LINK(&t->cl[client_slot(t, e->hclient)], e, cl);
}

static bool grow(struct os_event_table *t)
{
    uint32_t n = t->nbuckets ? t->nbuckets * 2 : 64;
    struct os_event **pair = calloc(n, sizeof(*pair)), **cl = calloc(n, sizeof(*cl));
    if (!pair || !cl) {
        free(pair);
        free(cl);
        return t->nbuckets != 0; /* longer chains, still correct */
    }
    if (!t->nbuckets && getrandom(&t->seed, sizeof(t->seed), GRND_NONBLOCK) != sizeof(t->seed))
        t->seed = (uint32_t)(uintptr_t)t ^ 0x2545F491u;
    struct os_event **old = t->pair;
    uint32_t oldn = t->nbuckets;
    t->pair = pair;
    t->nbuckets = n;
    free(t->cl);
    t->cl = cl;
    for (uint32_t b = 0; b < oldn; b++)
        for (struct os_event *e = old[b], *next; e; e = next) {
            next = e->pair_next;
            link_tables(t, e);
        }
    free(old);
    return true;
}

struct os_event *rm_os_event_find(struct rm_server *rs, uint32_t hclient, uint32_t fd)
{
    struct os_event_table *t = &rs->os_events;
    if (!t->nbuckets)
        return NULL;
    for (struct os_event *e = t->pair[pair_slot(t, hclient, fd)]; e; e = e->pair_next)
        if (e->hclient == hclient && e->fd == fd)
            return e;
    return NULL;
}

bool rm_os_event_add(struct rm_server *rs, nvemu_opener *op, uint32_t hclient, uint32_t hdevice, uint32_t fd)
{
    struct os_event_table *t = &rs->os_events;
    if (op->nevents >= NVEMU_OS_EVENTS_PER_FD) {
        LOG_INFO("dispatch", "ALLOC_OS_EVENT: fd of pid %d holds %u OS events, the limit", (int)op->who.pid,
                 op->nevents);
        return false;
    }
    if (t->count + 1 > t->nbuckets && !grow(t))
        return false;
    struct os_event *e = calloc(1, sizeof(*e));
    if (!e)
        return false;
    e->hclient = hclient;
    e->hdevice = hdevice;
    e->fd = fd;
    e->owner = op;
    LINK(&op->events, e, op);
    link_tables(t, e);
    op->nevents++;
    t->count++;
    return true;
}

void rm_os_event_remove(struct rm_server *rs, struct os_event *e)
{
    UNLINK(e, op);
    UNLINK(e, pair);
    UNLINK(e, cl);
    NVEMU_ASSERT("rm", e->owner->nevents > 0 && rs->os_events.count > 0);
    e->owner->nevents--;
    rs->os_events.count--;
    free(e);
}

void rm_os_event_drop_client(struct rm_server *rs, uint32_t hclient)
{
    struct os_event_table *t = &rs->os_events;
    if (!t->nbuckets)
        return;
    for (struct os_event *e = t->cl[client_slot(t, hclient)], *next; e; e = next) {
        next = e->cl_next;
        if (e->hclient == hclient)
            rm_os_event_remove(rs, e);
    }
}

void rm_os_event_drop_opener(struct rm_server *rs, nvemu_opener *op)
{
    while (op->events)
        rm_os_event_remove(rs, op->events);
}
