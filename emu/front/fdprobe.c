#include "front/fdprobe.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/log.h"
#include "front/server.h"

#define ANSWER_TIMEOUT_MS 5000

static int recv_fd(int sock)
{
    char byte;
    struct iovec iov = {.iov_base = &byte, .iov_len = 1};
    union {
        struct cmsghdr h;
        char buf[CMSG_SPACE(sizeof(int))];
    } u;
    struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf, .msg_controllen = sizeof(u.buf)};
    if (recvmsg(sock, &m, MSG_CMSG_CLOEXEC) <= 0)
        return -1;
    struct cmsghdr *c = CMSG_FIRSTHDR(&m);
    if (!c || c->cmsg_type != SCM_RIGHTS)
        return -2;
    int fd;
    memcpy(&fd, CMSG_DATA(c), sizeof(fd));
    return fd;
}

/* The helper: only async-signal-safe calls, _exit (it is a fork of a threaded process). */
static void helper(int sock, uint64_t token)
{
    for (;;) {
        int fd = recv_fd(sock);
        if (fd == -1)
            _exit(0);
        uint64_t v = token;
        if (fd < 0 || ioctl(fd, FRONT_IOCTL_WHOAMI, &v) != 0)
            v = 0;
        if (fd >= 0)
            close(fd);
        if (send(sock, &v, sizeof(v), MSG_NOSIGNAL) != sizeof(v))
            _exit(0);
    }
}

/* Forks a helper on a fresh socketpair (p->sock, p->pid; both -1 on failure). */
static int spawn(struct fdprobe *p)
{
    int sv[2];
    p->sock = -1;
    p->pid = -1;
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0)
        return -1;
    p->pid = fork();
    if (p->pid == 0) {
        /* Keep only our socket: above all no /dev/fuse fd may live here. */
        int keep = sv[1];
        if (keep > 0)
            close_range(0, (unsigned)keep - 1, 0);
        close_range((unsigned)keep + 1, ~0u, 0);
        helper(keep, p->token);
    }
    close(sv[1]);
    if (p->pid < 0) {
        close(sv[0]);
        return -1;
    }
    p->sock = sv[0];
    return 0;
}

static void retire(struct fdprobe *p)
{
    if (p->sock >= 0)
        close(p->sock);
    p->sock = -1;
    if (p->pid > 0) {
        kill(p->pid, SIGKILL);
        waitpid(p->pid, NULL, 0);
    }
    p->pid = -1;
}

int fdprobe_start(struct fdprobe *p, uint64_t token)
{
    p->token = token;
    memset(p->waiting, 0, sizeof(p->waiting));
    p->total = 0;
    p->next_ticket = p->serving = 0;
    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->turn, NULL);
    return spawn(p);
}

/* Refusals come in floods: one log line a second says how many. */
static void log_refused(uid_t uid, unsigned mine, unsigned total)
{
    static _Atomic long last_s;
    static atomic_uint since;
    unsigned n = atomic_fetch_add(&since, 1) + 1;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    long prev = atomic_load(&last_s);
    if (ts.tv_sec == prev || !atomic_compare_exchange_strong(&last_s, &prev, ts.tv_sec))
        return;
    atomic_fetch_sub(&since, n);
    LOG_INFO("front", "fd probe: uid %u has %u questions waiting (%u in all); fd not resolved (%u refused since the "
             "last line)", (unsigned)uid, mine, total, n);
}

/* Lock held: a waiting slot for uid, or -1 (logged) when uid or everyone has too many questions waiting. */
static int queue_enter(struct fdprobe *p, uid_t uid)
{
    int mine = -1, free_slot = -1;
    for (int i = 0; i < FDPROBE_MAX_WAITING; i++) {
        if (p->waiting[i].n && p->waiting[i].uid == uid)
            mine = i;
        else if (!p->waiting[i].n && free_slot < 0)
            free_slot = i;
    }
    if (p->total >= FDPROBE_MAX_WAITING || (mine >= 0 && p->waiting[mine].n >= FDPROBE_WAITING_PER_UID) ||
        (mine < 0 && free_slot < 0)) {
        log_refused(uid, mine >= 0 ? p->waiting[mine].n : 0, p->total);
        return -1;
    }
    if (mine < 0) {
        mine = free_slot;
        p->waiting[mine].uid = uid;
    }
    p->waiting[mine].n++;
    p->total++;
    return mine;
}

uint64_t fdprobe_ask(struct fdprobe *p, int fd, uid_t uid)
{
    char byte = 0;
    struct iovec iov = {.iov_base = &byte, .iov_len = 1};
    union {
        struct cmsghdr h;
        char buf[CMSG_SPACE(sizeof(int))];
    } u;
    memset(&u, 0, sizeof(u));
    struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf, .msg_controllen = sizeof(u.buf)};
    struct cmsghdr *c = CMSG_FIRSTHDR(&m);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(c), &fd, sizeof(fd));
    uint64_t v = 0;
    pthread_mutex_lock(&p->lock);
    int slot = queue_enter(p, uid);
    if (slot < 0) {
        pthread_mutex_unlock(&p->lock);
        return 0;
    }
    uint64_t ticket = p->next_ticket++;
    while (p->serving != ticket)
        pthread_cond_wait(&p->turn, &p->lock);
    /* the socket is this ticket's alone until serving moves on: others may queue or be refused meanwhile */
    pthread_mutex_unlock(&p->lock);
    if (p->sock >= 0 && sendmsg(p->sock, &m, MSG_NOSIGNAL) == 1) {
        struct pollfd pf = {.fd = p->sock, .events = POLLIN};
        if (poll(&pf, 1, ANSWER_TIMEOUT_MS) == 1) {
            if (recv(p->sock, &v, sizeof(v), 0) != sizeof(v))
                v = 0;
        } else {
            /* An answer arriving later would be taken for the next question: a fresh helper instead. */
            LOG_WARN("front", "fd probe helper did not answer in %d ms; replacing it", ANSWER_TIMEOUT_MS);
            retire(p);
            if (spawn(p) != 0)
                LOG_ERROR("front", "cannot restart the fd probe helper: REGISTER_FD cannot resolve fds");
        }
    }
    pthread_mutex_lock(&p->lock);
    p->serving++;
    p->waiting[slot].n--;
    p->total--;
    pthread_cond_broadcast(&p->turn);
    pthread_mutex_unlock(&p->lock);
    return v;
}

void fdprobe_stop(struct fdprobe *p)
{
    retire(p);
    pthread_cond_destroy(&p->turn);
    pthread_mutex_destroy(&p->lock);
}
