/*
 * Run inside `nvemu run`: the daemon dies (SIGKILL) while a call of ours is
 * waiting in it (the daemon is stopped first, so the call is in flight), and
 * afterwards. Every call must fail with ENOTCONN or EIO within seconds —
 * never hang.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "dstat.h"
#include "rmraw.h"

#define H_DEVICE 0xD0000001u

struct call {
    int fd;
    uint32_t client;
    uint32_t status;
};

static void *in_flight(void *arg)
{
    struct call *c = arg;
    uint32_t h = 0, param = 0;
    c->status = raw_alloc(c->fd, 0, 0, &h, RAW_CLASS_CLIENT, &param, sizeof(param));
    return NULL;
}

static int is_disconnect(uint32_t st)
{
    return st == (0x80000000u | ENOTCONN) || st == (0x80000000u | EIO) || st == (0x80000000u | ECONNABORTED);
}

int main(void)
{
    struct dstat d;
    if (dstat_get(&d) != 0 || d.pid <= 0) {
        fprintf(stderr, "test_daemon_death: FAIL: no daemon pid\n");
        return 1;
    }
    int fd = open("/dev/nvidiactl", O_RDWR), gpu = raw_open_gpu();
    uint32_t client = 0;
    if (fd < 0 || gpu < 0 || raw_client_device(fd, &client, H_DEVICE) != 0) {
        fprintf(stderr, "test_daemon_death: FAIL: no client before the crash\n");
        return 1;
    }
    kill((pid_t)d.pid, SIGSTOP);
    struct call c = {fd, client, 0};
    pthread_t th;
    pthread_create(&th, NULL, in_flight, &c);
    nanosleep(&(struct timespec){.tv_nsec = 200 * 1000 * 1000}, NULL);
    kill((pid_t)d.pid, SIGKILL);
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += 10;
    if (pthread_timedjoin_np(th, NULL, &until) != 0) {
        fprintf(stderr, "test_daemon_death: FAIL: the in-flight call hangs after the daemon died\n");
        return 1;
    }
    int bad = 0;
    if (!is_disconnect(c.status)) {
        fprintf(stderr, "in-flight call answered %#x, want ENOTCONN/EIO\n", c.status);
        bad = 1;
    }
    uint64_t ts;
    uint32_t st = raw_timeslice(fd, client, H_DEVICE, RAW_CTRL_GET_TIMESLICE, &ts);
    if (!is_disconnect(st)) {
        fprintf(stderr, "call after the crash answered %#x, want ENOTCONN/EIO\n", st);
        bad = 1;
    }
    close(fd);
    int fd2 = open("/dev/nvidiactl", O_RDWR);
    if (fd2 >= 0 || (errno != ENOTCONN && errno != EIO)) {
        fprintf(stderr, "open after the crash: fd %d errno %d\n", fd2, errno);
        bad = 1;
    }
    if (bad) {
        fprintf(stderr, "test_daemon_death: FAIL\n");
        return 1;
    }
    printf("test_daemon_death: OK (in-flight and later calls failed with ENOTCONN/EIO)\n");
    return 0;
}
