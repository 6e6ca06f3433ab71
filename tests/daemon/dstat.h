/* The daemon's counters as `nvemu status --json` reports them (tests only). */
#ifndef NVEMU_TESTS_DSTAT_H
#define NVEMU_TESTS_DSTAT_H

struct dstat {
    long pid, openers, clients, objects, channel_groups, ioctls;
};

/* Asks the daemon at $NVEMU_SOCKET. Returns 0, or -1 after printing why. */
int dstat_get(struct dstat *s);

/*
 * Polls until clients, openers and channel groups equal want's (the count
 * a release must come back to), for at most ms milliseconds. Returns 0 when
 * reached, -1 otherwise (last reading in *last).
 */
int dstat_wait_back(const struct dstat *want, int ms, struct dstat *last);

#endif
