/*
 * Run inside `nvemu run`: a child process allocates a client, a device and a
 * channel group, then is killed with SIGKILL mid-session. Its objects must
 * be invisible to another opener while it lives and gone (clients, openers,
 * channel groups back to the baseline) once it is dead.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dstat.h"
#include "rmraw.h"

#define H_DEVICE 0xD0000001u
#define H_TSG 0xD0000010u

static int fail(const char *what)
{
    fprintf(stderr, "test_sigkill: FAIL: %s\n", what);
    return 1;
}

int main(void)
{
    struct dstat base, now;
    if (dstat_get(&base) != 0)
        return fail("no daemon status");
    int p[2];
    if (pipe(p) != 0)
        return fail("pipe");
    pid_t child = fork();
    if (child == 0) {
        close(p[0]);
        int fd = open("/dev/nvidiactl", O_RDWR), gpu = raw_open_gpu();
        uint32_t hc = 0, msg[2] = {0, 0};
        if (fd >= 0 && gpu >= 0 && raw_client_device(fd, &hc, H_DEVICE) == 0 && raw_tsg(fd, hc, H_DEVICE, H_TSG) == 0)
            msg[0] = hc, msg[1] = H_TSG;
        if (write(p[1], msg, sizeof(msg)) != sizeof(msg))
            _exit(3);
        pause();
        _exit(0);
    }
    close(p[1]);
    uint32_t msg[2];
    if (read(p[0], msg, sizeof(msg)) != sizeof(msg) || msg[0] == 0) {
        kill(child, SIGKILL);
        return fail("child could not allocate its client and channel group");
    }
    if (dstat_get(&now) != 0 || now.clients != base.clients + 1 || now.channel_groups != base.channel_groups + 1 ||
        now.openers != base.openers + 2) {
        kill(child, SIGKILL);
        fprintf(stderr, "clients %ld->%ld, channel groups %ld->%ld, openers %ld->%ld\n", base.clients, now.clients,
                base.channel_groups, now.channel_groups, base.openers, now.openers);
        return fail("status does not show the child's client");
    }
    /* A foreign opener must not reach the child's channel group. */
    int fd = open("/dev/nvidiactl", O_RDWR);
    uint64_t ts = 0;
    uint32_t st = fd >= 0 ? raw_timeslice(fd, msg[0], msg[1], RAW_CTRL_GET_TIMESLICE, &ts) : 0;
    if (fd >= 0)
        close(fd);
    if (st != RAW_NV_ERR_INVALID_CLIENT) {
        kill(child, SIGKILL);
        fprintf(stderr, "foreign GET_TIMESLICE status %#x\n", st);
        return fail("foreign opener reached another process's channel group");
    }
    kill(child, SIGKILL);
    waitpid(child, NULL, 0);
    if (dstat_wait_back(&base, 10000, &now) != 0) {
        fprintf(stderr, "after SIGKILL: clients %ld (want %ld), openers %ld (want %ld), channel groups %ld (want %ld)\n",
                now.clients, base.clients, now.openers, base.openers, now.channel_groups, base.channel_groups);
        return fail("the killed process's clients were not freed");
    }
    printf("test_sigkill: OK (clients back to %ld after SIGKILL)\n", now.clients);
    return 0;
}
