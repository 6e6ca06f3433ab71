/*
 * The daemon's control socket: a Unix stream socket; a client sends one
 * request line ("status") and reads the JSON answer until EOF.
 */
#ifndef NVEMU_FRONT_CTLSOCK_H
#define NVEMU_FRONT_CTLSOCK_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/un.h>

#include "front/front.h"

struct front;

struct ctlsock {
    int fd;
    int stop_pipe[2];
    pthread_t thread;
    bool running;
    char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
    struct front *f;
    const char *transport;
    const char *where;
    char *status_doc;            /* the last status answer and when it was built (ctlsock.c reuses it) */
    uint64_t status_at_ns;
};

/* Binds and listens at path (replacing a stale socket). Returns 0 or -1 after logging. */
int ctlsock_open(struct ctlsock *s, const char *path, struct front *f, const char *transport, const char *where);
/* Starts the thread answering requests. Returns 0 or -1. */
int ctlsock_start(struct ctlsock *s);
/* Stops the thread, closes and unlinks the socket. Safe after a failed open/start. */
void ctlsock_close(struct ctlsock *s);

/* The client side, ctlsock_query, is public: front.h. */

#endif
