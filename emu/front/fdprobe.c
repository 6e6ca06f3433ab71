#include "front/fdprobe.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
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
    atomic_init(&p->waiting, 0);
    pthread_mutex_init(&p->lock, NULL);
    return spawn(p);
}

uint64_t fdprobe_ask(struct fdprobe *p, int fd)
{
    if (p->sock < 0)
        return 0;
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
    if (atomic_fetch_add(&p->waiting, 1) >= FDPROBE_MAX_WAITING) {
        atomic_fetch_sub(&p->waiting, 1);
        LOG_INFO("front", "fd probe: %d questions already waiting; fd not resolved", FDPROBE_MAX_WAITING);
        return 0;
    }
    pthread_mutex_lock(&p->lock);
    if (sendmsg(p->sock, &m, MSG_NOSIGNAL) == 1) {
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
    pthread_mutex_unlock(&p->lock);
    atomic_fetch_sub(&p->waiting, 1);
    return v;
}

void fdprobe_stop(struct fdprobe *p)
{
    retire(p);
    pthread_mutex_destroy(&p->lock);
}
