/*
 * nvemu-xuser: do FIFO_DISABLE_CHANNELS and FREE_OS_EVENT act on ANOTHER USER's objects?
 * Run as root: the process builds the conformance probe's populated channel group (8 channels with
 * libcuda's parameters) and registers an OS event on its own fd; a forked child drops to uid/gid
 * 65534 with no capabilities, closes every inherited fd, opens /dev/nvidiactl itself and, through
 * its own client and subdevice, names the root process's client and channel / OS-event pair.
 * Usage: nvemu-xuser FIXTURE (fixtures/hw/<gpu>-<driver>/libcuda-objects.txt). Output: case lines
 * as nvemu-conformance prints them ('#' lines are not compared).
 */
#include <grp.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "conf.h"

#define ESC_ALLOC_OS_EVENT 206
#define ESC_FREE_OS_EVENT 207
#define OTHER_UID 65534

typedef struct { uint32_t hClient, hDevice, fd, Status; } os_event_t;
_Static_assert(sizeof(os_event_t) == 16, "nv_ioctl_alloc_os_event_t");

static struct rm_result os_event(int fd, int nr, uint32_t client, uint32_t efd)
{
    os_event_t e = {client, 0, efd, 0xEEEEEEEEu};
    struct rm_result r;
    r.ret = raw_ioctl(fd, RAW_REQ(nr, sizeof e), &e, &r.err);
    r.status = e.Status;
    return r;
}

static struct rm_result disable(int fd, uint32_t client, uint32_t subdev, uint8_t dis, uint32_t victim, uint32_t ch)
{
    static disable_channels_t p;
    memset(&p, 0, sizeof p);
    p.bDisable = dis;
    p.numChannels = 1;
    p.hClientList[0] = victim;
    p.hChannelList[0] = ch;
    return rm_control(fd, client, subdev, C2080_FIFO_DISABLE_CHANNELS, &p, sizeof p);
}

/* The other user: own fds only, own client, device and subdevice. */
static int other_user(const struct conf *owner, int owner_fd)
{
    close_range(3, ~0u, 0);
    if (setgroups(0, NULL) != 0 || setresgid(OTHER_UID, OTHER_UID, OTHER_UID) != 0 ||
        setresuid(OTHER_UID, OTHER_UID, OTHER_UID) != 0) {
        emit_raw("xuser.drop_to_65534", -1, errno, NULL);
        return 1;
    }
    note_creds("other");
    static struct conf c;
    c.fix = owner->fix;
    c.ctl = open("/dev/nvidiactl", O_RDWR | O_CLOEXEC);
    c.dev0 = open("/dev/nvidia0", O_RDWR | O_CLOEXEC);
    emit_raw("xuser.other.open", c.ctl < 0 || c.dev0 < 0 ? -1 : 0, c.ctl < 0 || c.dev0 < 0 ? errno : 0, NULL);
    c.client = c.ctl >= 0 ? rm_client(c.ctl) : 0;
    emit_raw("xuser.other.client", c.client ? 0 : -1, 0, NULL);
    if (!c.client)
        return 1;
    struct rm_result r = alloc_fixture(&c, "device", 0, 0, NULL, NULL, 0);
    emit_rm("xuser.other.alloc.device", r, NULL);
    r = alloc_fixture(&c, "subdevice", 0, 0, NULL, NULL, 0);
    emit_rm("xuser.other.alloc.subdevice", r, NULL);
    const struct fixture_obj *sd = fixture_find(&c.fix, "subdevice");
    uint32_t subdev = sd ? sd->handle : 0;
    emit_rm("xuser.other.disable_root_channel", disable(c.ctl, c.client, subdev, 1, owner->client, H_CH_P0), NULL);
    emit_rm("xuser.other.enable_root_channel", disable(c.ctl, c.client, subdev, 0, owner->client, H_CH_P0), NULL);
    emit_rm("xuser.other.disable_root_tsg", disable(c.ctl, c.client, subdev, 1, owner->client, H_TSG_P), NULL);
    emit_rm("xuser.other.enable_root_tsg", disable(c.ctl, c.client, subdev, 0, owner->client, H_TSG_P), NULL);
    uint64_t ts = 0;
    emit_rm("xuser.other.get_timeslice_root_tsg", rm_control(c.ctl, owner->client, H_TSG_P, CA06C_GET_TIMESLICE, &ts, 8),
            NULL);
    emit_rm("xuser.other.free_os_event_of_root", os_event(c.ctl, ESC_FREE_OS_EVENT, owner->client, (uint32_t)owner_fd),
            NULL);
    emit_rm("xuser.other.free_root_client", rm_free(c.ctl, owner->client, owner->client), NULL);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 2 || argv[1][0] == '-') {
        fprintf(stderr, "usage: %s FIXTURE\n", argv[0]);
        return 2;
    }
    static struct conf c;
    if (fixture_load(&c.fix, argv[1]) != 0)
        return 2;
    alarm(120);
    setvbuf(stdout, NULL, _IOLBF, 0);
    printf("# nvemu-xuser: root builds a populated channel group, uid %d names it\n", OTHER_UID);
    note_creds("owner");
    c.ctl = open("/dev/nvidiactl", O_RDWR | O_CLOEXEC);
    c.dev0 = open("/dev/nvidia0", O_RDWR | O_CLOEXEC);
    c.client = c.ctl >= 0 ? rm_client(c.ctl) : 0;
    emit_raw("xuser.owner.client", c.client ? 0 : -1, 0, NULL);
    if (!c.client)
        return 1;
    /* the conformance probe's own setup; its case lines are not part of this fixture */
    fflush(stdout);
    int saved = dup(1), devnull = open("/dev/null", O_WRONLY);
    dup2(devnull, 1);
    cases_alloc(&c);
    cases_libcuda(&c);
    cases_fifo(&c);
    fflush(stdout);
    dup2(saved, 1);
    close(saved);
    close(devnull);
    emit_raw("xuser.owner.populated_group", c.have_pop ? 0 : -1, 0, "channels=%d", c.nchan);
    emit_rm("xuser.owner.enable_own_channel", disable(c.ctl, c.client, c.subdev, 0, c.client, H_CH_P0), NULL);
    emit_rm("xuser.owner.alloc_os_event", os_event(c.ctl, ESC_ALLOC_OS_EVENT, c.client, (uint32_t)c.ctl), NULL);
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0)
        _exit(other_user(&c, c.ctl));
    int st = 0;
    waitpid(pid, &st, 0);
    note("other exited %d", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
    uint64_t ts = 0;
    emit_rm("xuser.owner.get_timeslice_after", rm_control(c.ctl, c.client, H_TSG_P, CA06C_GET_TIMESLICE, &ts, 8),
            NULL);
    emit_rm("xuser.owner.free_os_event_after", os_event(c.ctl, ESC_FREE_OS_EVENT, c.client, (uint32_t)c.ctl), NULL);
    printf("# end\n");
    return 0;
}
