/*
 * Run inside `nvemu run`: the daemon dies (SIGKILL) while a call of ours is
 * waiting in it (the daemon is stopped first, so the call is in flight), and
 * afterwards. Every call must fail with ENOTCONN or EIO within seconds —
 * never hang.
 */
#include <errno.h>
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
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

/* SIGSTOP takes effect asynchronously: wait until every thread of pid is stopped. */
static int wait_stopped(pid_t pid)
{
    char path[64];
    snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
    for (int ms = 0; ms < 5000; ms += 5) {
        DIR *d = opendir(path);
        if (!d)
            return -1;
        int running = 0;
        struct dirent *e;
        while ((e = readdir(d))) {
            if (e->d_name[0] == '.')
                continue;
            char stat[384], buf[256];
            snprintf(stat, sizeof(stat), "%s/%s/stat", path, e->d_name);
            FILE *f = fopen(stat, "r");
            if (!f)
                continue;
            size_t n = fread(buf, 1, sizeof(buf) - 1, f);
            fclose(f);
            buf[n] = '\0';
            const char *paren = strrchr(buf, ')');
            if (paren && paren[1] == ' ' && paren[2] != 'T' && paren[2] != 't')
                running++;
        }
        closedir(d);
        if (!running)
            return 0;
        nanosleep(&(struct timespec){.tv_nsec = 5 * 1000 * 1000}, NULL);
    }
    return -1;
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
    if (wait_stopped((pid_t)d.pid) != 0) {
        fprintf(stderr, "test_daemon_death: FAIL: the daemon did not stop on SIGSTOP\n");
        return 1;
    }
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
