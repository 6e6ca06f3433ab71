/*
 * front_server_start/stop: this process owns an emulator and serves it
 * through FUSE; a child process uses the nodes like any program; the parent
 * sees the child's objects in its own emulator, sees them freed when the
 * child exits, and after stop the emulator is intact (openers released) and
 * a still-open node fails with ENOTCONN/EIO.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "front/front.h"
#include "nvemu/nvemu.h"
#include "rmraw.h"

static int fail(const char *what)
{
    fprintf(stderr, "test_embedded: FAIL: %s\n", what);
    return 1;
}

static int wait_clients(nvemu *emu, uint32_t want)
{
    nvemu_stats st;
    for (int ms = 0; ms < 10000; ms += 10) {
        nvemu_get_stats(emu, &st);
        if (st.clients == want)
            return 0;
        nanosleep(&(struct timespec){.tv_nsec = 10 * 1000 * 1000}, NULL);
    }
    return -1;
}

int main(void)
{
    char top[] = "/tmp/nvemu-embedded-XXXXXX";
    if (!mkdtemp(top))
        return fail("mkdtemp");
    char mnt[64], ctl[96], gpu[96];
    snprintf(mnt, sizeof(mnt), "%s/m", top);
    snprintf(ctl, sizeof(ctl), "%s/nvidiactl", mnt);
    snprintf(gpu, sizeof(gpu), "%s/nvidia0", mnt);
    nvemu_config cfg;
    nvemu_config_init(&cfg);
    char err[256];
    nvemu *emu = nvemu_create(&cfg, err, sizeof(err));
    if (!emu)
        return fail(err);
    front_server *s = front_server_start(emu, mnt, err, sizeof(err));
    if (!s)
        return fail(err);
    int p[2], q[2];
    if (pipe(p) != 0 || pipe(q) != 0)
        return fail("pipe");
    pid_t child = fork();
    if (child == 0) {
        int fd = open(ctl, O_RDWR), g = open(gpu, O_RDWR);
        uint32_t hc = 0;
        uint64_t ts = 0;
        char ok = fd >= 0 && g >= 0 && raw_client_device(fd, &hc, 0xD0000001u) == 0 &&
                  raw_tsg(fd, hc, 0xD0000001u, 0xD0000002u) == 0 &&
                  raw_timeslice(fd, hc, 0xD0000002u, RAW_CTRL_GET_TIMESLICE, &ts) == 0 && ts > 0;
        if (write(p[1], &ok, 1) != 1 || read(q[0], &ok, 1) != 1)
            _exit(2);
        _exit(0);
    }
    char ok = 0;
    int bad = 0;
    nvemu_stats st;
    if (read(p[0], &ok, 1) != 1 || !ok)
        bad = fail("the child could not use the served nodes");
    nvemu_get_stats(emu, &st);
    if (!bad && (st.clients != 1 || st.channel_groups != 1))
        bad = fail("the child's client is not in the owner's emulator");
    if (write(q[1], "x", 1) != 1)
        bad = fail("pipe");
    waitpid(child, NULL, 0);
    if (wait_clients(emu, 0) != 0)
        bad = fail("the child's client outlived the child");
    int held = open(ctl, O_RDWR);
    front_server_stop(s);
    nvemu_get_stats(emu, &st);
    if (st.openers != 0)
        bad = fail("openers left after stop");
    uint32_t h = 0, root = 0;
    uint32_t r = held >= 0 ? raw_alloc(held, 0, 0, &h, RAW_CLASS_CLIENT, &root, sizeof(root)) : 0;
    if (r != (0x80000000u | ENOTCONN) && r != (0x80000000u | EIO))
        bad = fail("a node held across stop did not fail with ENOTCONN/EIO");
    if (held >= 0)
        close(held);
    nvemu_destroy(emu);
    rmdir(mnt);
    rmdir(top);
    if (!bad)
        printf("test_embedded: OK\n");
    return bad;
}
