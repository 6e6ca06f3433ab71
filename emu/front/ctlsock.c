#include "front/ctlsock.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "base/log.h"
#include "front/server.h"

#define IO_TIMEOUT_S 5

static int fill_addr(struct sockaddr_un *a, const char *path)
{
    memset(a, 0, sizeof(*a));
    a->sun_family = AF_UNIX;
    if (strlen(path) >= sizeof(a->sun_path))
        return -ENAMETOOLONG;
    strcpy(a->sun_path, path);
    return 0;
}

int ctlsock_open(struct ctlsock *s, const char *path, struct front *f, const char *transport, const char *where)
{
    memset(s, 0, sizeof(*s));
    s->fd = -1;
    s->stop_pipe[0] = s->stop_pipe[1] = -1;
    s->f = f;
    s->transport = transport;
    s->where = where;
    struct sockaddr_un a;
    if (fill_addr(&a, path) != 0) {
        LOG_ERROR("front", "control socket path too long: %s", path);
        return -1;
    }
    snprintf(s->path, sizeof(s->path), "%s", path);
    s->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (s->fd < 0 || pipe2(s->stop_pipe, O_CLOEXEC) != 0) {
        LOG_ERROR("front", "control socket: %s", strerror(errno));
        return -1;
    }
    unlink(path);
    if (bind(s->fd, (struct sockaddr *)&a, sizeof(a)) != 0 || listen(s->fd, 16) != 0) {
        LOG_ERROR("front", "cannot listen on %s: %s", path, strerror(errno));
        s->path[0] = '\0';
        return -1;
    }
    /* Status is read-only; users of the preload (any uid) may ask. */
    chmod(path, 0666);
    return 0;
}

/* Client side only: the daemon's end never blocks. */
static void set_timeouts(int fd)
{
    struct timeval tv = {.tv_sec = IO_TIMEOUT_S};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
}

static void write_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
        if (w <= 0)
            return;
        p += w;
        n -= (size_t)w;
    }
}

/*
 * Connections in progress: reading their request line, then writing the
 * answer without blocking. A connection that does not finish by its deadline
 * is dropped; each uid may hold a few, so one user's connections that ask and
 * never read cannot crowd out another's.
 */
#define MAX_CONNS 64
#define CONNS_PER_UID 8

struct conn {
    int fd;
    uid_t uid;
    uint64_t accepted_ns;
    size_t got;
    struct timespec deadline;
    char req[128];
    char *out;                   /* the answer being written (NULL: still reading) */
    size_t out_len, out_off;
};

static char *dup_str(const char *t)
{
    size_t n = strlen(t) + 1;
    char *d = malloc(n);
    if (d)
        memcpy(d, t, n);
    return d;
}

/*
 * The status document is reused for every request whose connection was accepted before it was built (so it
 * shows every call completed before the asker connected): with thousands of openers it is large, and
 * building one per request let a user asking on many connections make everybody else's answer wait.
 */

static uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static char *status_text(struct ctlsock *s, uint64_t accepted_ns)
{
    uint64_t now = mono_ns();
    if (!s->status_doc || s->status_at_ns < accepted_ns) {
        free(s->status_doc);
        char *json = front_status_json(s->f, s->transport, s->where);
        size_t n = json ? strlen(json) : 0;
        s->status_doc = json ? realloc(json, n + 2) : NULL;
        if (s->status_doc) {
            s->status_doc[n] = '\n';
            s->status_doc[n + 1] = '\0';
        } else {
            free(json);
        }
        s->status_at_ns = now;
    }
    return s->status_doc ? dup_str(s->status_doc) : NULL;
}

/* The answer to c's request line, left in c->out for the writes to come. */
static void answer(struct ctlsock *s, struct conn *c)
{
    c->req[c->got] = '\0';
    c->req[strcspn(c->req, "\r\n")] = '\0';
    char *text = NULL;
    if (strcmp(c->req, "status") == 0) {
        text = status_text(s, c->accepted_ns);
    } else {
        LOG_WARN("front", "control socket: unknown request '%s'", c->req);
        text = dup_str("{\"error\":\"unknown request\"}\n");
    }
    c->out = text;
    c->out_len = text ? strlen(text) : 0;
    c->out_off = 0;
}

static void drop(struct conn *v, uint32_t *n, uint32_t i)
{
    close(v[i].fd);
    free(v[i].out);
    v[i] = v[--*n];
}

static bool past(const struct timespec *now, const struct timespec *t)
{
    return now->tv_sec > t->tv_sec || (now->tv_sec == t->tv_sec && now->tv_nsec >= t->tv_nsec);
}

/* Writes what the socket takes now; true when the answer is out (or the peer is gone). */
static bool write_some(struct conn *c)
{
    while (c->out_off < c->out_len) {
        ssize_t w = send(c->fd, c->out + c->out_off, c->out_len - c->out_off, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return false;
        if (w <= 0)
            return true;
        c->out_off += (size_t)w;
    }
    return true;
}

/* Moves a connection on (reads its request, then writes the answer); true when it is finished. */
static bool progress(struct ctlsock *s, struct conn *c)
{
    while (!c->out) {
        ssize_t r = recv(c->fd, c->req + c->got, sizeof(c->req) - 1 - c->got, MSG_DONTWAIT);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return false;
        if (r > 0)
            c->got += (size_t)r;
        if (r <= 0 && c->got == 0)
            return true; /* closed or failed without a request */
        if (r <= 0 || memchr(c->req, '\n', c->got) || c->got == sizeof(c->req) - 1) {
            answer(s, c);
            if (!c->out)
                return true;
        }
    }
    return write_some(c);
}

static uid_t peer_uid(int fd)
{
    struct ucred cr;
    socklen_t len = sizeof(cr);
    return getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) == 0 ? cr.uid : (uid_t)-1;
}

/*
 * Room for a connection of uid: when uid holds CONNS_PER_UID, its oldest goes; when all are taken, the oldest
 * of the uid holding the most goes (another user's few are kept).
 */
static void make_room(struct conn *v, uint32_t *n, uid_t uid)
{
    uint32_t mine = 0, oldest_mine = 0;
    for (uint32_t i = 0; i < *n; i++)
        if (v[i].uid == uid && (mine++ == 0 || past(&v[oldest_mine].deadline, &v[i].deadline)))
            oldest_mine = i;
    if (mine >= CONNS_PER_UID) {
        LOG_INFO("front", "control socket: uid %u holds %u connections: its oldest is dropped", (unsigned)uid, mine);
        drop(v, n, oldest_mine);
        return;
    }
    if (*n < MAX_CONNS)
        return;
    uint32_t most = 0, most_n = 0;
    for (uint32_t i = 0; i < *n; i++) {
        uint32_t k = 0;
        for (uint32_t j = 0; j < *n; j++)
            k += v[j].uid == v[i].uid;
        if (k > most_n || (k == most_n && past(&v[most].deadline, &v[i].deadline))) {
            most = i;
            most_n = k;
        }
    }
    drop(v, n, most);
}

/*
 * One thread serves every connection without blocking on any: requests are
 * read and answers written as the sockets allow, so neither an idle
 * connection nor one that never reads its answer delays anybody.
 */
static void *ctl_thread(void *arg)
{
    struct ctlsock *s = arg;
    struct conn v[MAX_CONNS];
    uint32_t n = 0;
    for (;;) {
        struct pollfd p[2 + MAX_CONNS] = {{.fd = s->fd, .events = POLLIN}, {.fd = s->stop_pipe[0], .events = POLLIN}};
        for (uint32_t i = 0; i < n; i++)
            p[2 + i] = (struct pollfd){.fd = v[i].fd, .events = v[i].out ? POLLOUT : POLLIN};
        if (poll(p, 2 + n, n ? 200 : -1) < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        if (p[1].revents)
            break;
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        for (uint32_t i = n; i-- > 0;)
            if ((p[2 + i].revents && progress(s, &v[i])) || past(&now, &v[i].deadline))
                drop(v, &n, i);
        if (!(p[0].revents & POLLIN))
            continue;
        int c = accept4(s->fd, NULL, NULL, SOCK_CLOEXEC);
        if (c < 0)
            continue;
        uid_t uid = peer_uid(c);
        make_room(v, &n, uid);
        v[n] = (struct conn){.fd = c, .uid = uid, .accepted_ns = mono_ns(),
                             .deadline = {now.tv_sec + IO_TIMEOUT_S, now.tv_nsec}};
        if (progress(s, &v[n]))
            drop(v, &(uint32_t){n + 1}, n);
        else
            n++;
    }
    while (n > 0)
        drop(v, &n, n - 1);
    free(s->status_doc);
    s->status_doc = NULL;
    return NULL;
}

int ctlsock_start(struct ctlsock *s)
{
    if (pthread_create(&s->thread, NULL, ctl_thread, s) != 0)
        return -1;
    s->running = true;
    return 0;
}

void ctlsock_close(struct ctlsock *s)
{
    if (s->running) {
        if (write(s->stop_pipe[1], "x", 1) != 1)
            LOG_WARN("front", "control socket stop: %s", strerror(errno));
        pthread_join(s->thread, NULL);
        s->running = false;
    }
    for (int i = 0; i < 2; i++)
        if (s->stop_pipe[i] >= 0)
            close(s->stop_pipe[i]);
    if (s->fd >= 0)
        close(s->fd);
    if (s->path[0])
        unlink(s->path);
    s->fd = s->stop_pipe[0] = s->stop_pipe[1] = -1;
    s->path[0] = '\0';
}

int ctlsock_query(const char *path, const char *request, char **reply)
{
    struct sockaddr_un a;
    *reply = NULL;
    if (fill_addr(&a, path) != 0)
        return -ENAMETOOLONG;
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -errno;
    set_timeouts(fd);
    if (connect(fd, (struct sockaddr *)&a, sizeof(a)) != 0) {
        int e = -errno;
        close(fd);
        return e;
    }
    write_all(fd, request, strlen(request));
    write_all(fd, "\n", 1);
    size_t cap = 4096, len = 0;
    char *buf = malloc(cap);
    int rc = 0;
    while (buf) {
        if (len + 1 >= cap) {
            char *nb = realloc(buf, cap * 2);
            if (!nb)
                break;
            buf = nb;
            cap *= 2;
        }
        ssize_t r = recv(fd, buf + len, cap - 1 - len, 0);
        if (r < 0)
            rc = -errno;
        if (r <= 0)
            break;
        len += (size_t)r;
    }
    close(fd);
    if (!buf)
        return -ENOMEM;
    buf[len] = '\0';
    if (rc == 0 && len == 0)
        rc = -EPROTO;
    if (rc != 0) {
        free(buf);
        return rc;
    }
    *reply = buf;
    return 0;
}
