#include "dstat.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "front/ctlsock.h"

static long field(const cJSON *o, const char *k)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    return cJSON_IsNumber(v) ? (long)v->valuedouble : -1;
}

int dstat_get(struct dstat *s)
{
    const char *sock = getenv("NVEMU_SOCKET");
    char *reply = NULL;
    if (!sock || ctlsock_query(sock, "status", &reply) != 0) {
        fprintf(stderr, "dstat: no answer from the daemon at %s\n", sock ? sock : "(NVEMU_SOCKET unset)");
        return -1;
    }
    cJSON *root = cJSON_Parse(reply);
    free(reply);
    const cJSON *d = cJSON_GetObjectItemCaseSensitive(root, "daemon");
    const cJSON *st = cJSON_GetObjectItemCaseSensitive(d, "stats");
    if (!st) {
        fprintf(stderr, "dstat: status has no daemon.stats\n");
        cJSON_Delete(root);
        return -1;
    }
    s->pid = field(d, "pid");
    s->openers = field(st, "openers");
    s->clients = field(st, "clients");
    s->objects = field(st, "objects");
    s->channel_groups = field(st, "channel_groups");
    s->ioctls = field(st, "ioctls");
    cJSON_Delete(root);
    return 0;
}

int dstat_wait_back(const struct dstat *want, int ms, struct dstat *last)
{
    for (int waited = 0;; waited += 20) {
        if (dstat_get(last) == 0 && last->clients == want->clients && last->openers == want->openers &&
            last->channel_groups == want->channel_groups)
            return 0;
        if (waited >= ms)
            return -1;
        nanosleep(&(struct timespec){.tv_nsec = 20 * 1000 * 1000}, NULL);
    }
}
