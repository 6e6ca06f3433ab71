/*
 * nvemu-conformance: the same binary runs on the real driver and under `nvemu run`; CI diffs the
 * two outputs (tests/hwdiff). Usage: nvemu-conformance FIXTURE (fixtures/hw/<gpu>-<driver>/libcuda-objects.txt)
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "conf.h"

static void on_alarm(int sig)
{
    (void)sig;
    static const char msg[] = "TIMEOUT the driver did not answer within the probe's time limit\n";
    ssize_t w = write(1, msg, sizeof msg - 1);
    (void)w;
    _exit(3);
}

int main(int argc, char **argv)
{
    if (argc != 2 || argv[1][0] == '-') {
        fprintf(stderr, "usage: %s FIXTURE\n  FIXTURE: fixtures/hw/<gpu>-<driver>/libcuda-objects.txt\n", argv[0]);
        return 2;
    }
    static struct conf c;
    if (fixture_load(&c.fix, argv[1]) != 0)
        return 2;
    signal(SIGALRM, on_alarm);
    alarm(240);

    printf("# nvemu-conformance: one line per case: NAME ret= errno= status= [values]; '#' lines are not compared\n");
    note_creds("main");
    c.ctl = open("/dev/nvidiactl", O_RDWR | O_CLOEXEC);
    emit_raw("open.nvidiactl", c.ctl < 0 ? -1 : 0, c.ctl < 0 ? errno : 0, NULL);
    if (c.ctl < 0)
        return 1;
    c.client = rm_client(c.ctl);
    emit_raw("setup.client", c.client ? 0 : -1, 0, "hNew=%s",
             (c.client & 0xFFF00000u) == 0xC1D00000u ? "auto-ok" : "auto-BAD");
    if (!c.client)
        return 1;
    /* libcuda opens /dev/nvidia0 before allocating its device: what if a process has not? */
    struct rm_result r = alloc_fixture(&c, "device", H_SCRATCH, 0, NULL, NULL, 0);
    emit_rm("alloc.device.before_any_dev_node_open", r, NULL);
    if (r.ret == 0 && r.status == 0)
        rm_free(c.ctl, c.client, H_SCRATCH);
    c.dev0 = open("/dev/nvidia0", O_RDWR | O_CLOEXEC);
    emit_raw("open.nvidia0", c.dev0 < 0 ? -1 : 0, c.dev0 < 0 ? errno : 0, NULL);
    r = alloc_fixture(&c, "device", H_SCRATCH, 0, NULL, NULL, 0);
    emit_rm("alloc.device.dev_node_open_unregistered", r, NULL);
    if (r.ret == 0 && r.status == 0)
        rm_free(c.ctl, c.client, H_SCRATCH);
    uint32_t ids[32];
    memset(ids, 0xff, sizeof ids);
    rm_control(c.ctl, c.client, c.client, C0000_GET_ATTACHED_IDS, ids, sizeof ids);
    c.gpu_id = ids[0];
    note("gpu_id=0x%x", c.gpu_id);

    cases_escapes(&c);
    cases_clients(&c);
    cases_alloc(&c);
    cases_libcuda(&c);
    cases_fifo(&c);
    cases_controls(&c);
    cases_openers(&c);
    cases_privilege(&c);
    cases_frees(&c);
    printf("# end\n");
    return 0;
}
