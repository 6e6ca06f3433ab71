/*
 * Privilege: the NICE-right controls from a child that dropped CAP_SYS_NICE and CAP_SYS_ADMIN.
 * Run as root this shows the unprivileged answers next to the privileged ones of the main cases;
 * run as an unprivileged user the child drops nothing and prints the same lines.
 */
#include <fcntl.h>
#include <linux/capability.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "conf.h"

static int drop_nice_admin(void)
{
    struct __user_cap_header_struct hdr = {_LINUX_CAPABILITY_VERSION_3, 0};
    struct __user_cap_data_struct data[2];
    if (syscall(SYS_capget, &hdr, data) != 0)
        return -1;
    for (int i = 0; i < 2; i++) {
        uint32_t mask = 0;
        if (CAP_SYS_NICE / 32 == i)
            mask |= 1u << (CAP_SYS_NICE % 32);
        if (CAP_SYS_ADMIN / 32 == i)
            mask |= 1u << (CAP_SYS_ADMIN % 32);
        data[i].effective &= ~mask;
        data[i].permitted &= ~mask;
        data[i].inheritable &= ~mask;
    }
    return (int)syscall(SYS_capset, &hdr, data);
}

/* Prints this process's uid and effective capabilities (a '#' line: they differ between runs). */
void note_creds(const char *when)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256], uid[64] = "?", cap[64] = "?";
    while (f && fgets(line, sizeof line, f)) {
        if (strncmp(line, "Uid:", 4) == 0)
            sscanf(line + 4, " %63[^\n]", uid);
        if (strncmp(line, "CapEff:", 7) == 0)
            sscanf(line + 7, " %63s", cap);
    }
    if (f)
        fclose(f);
    note("%s uid=%s CapEff=%s", when, uid, cap);
}

static void interleave_probe(struct conf *c, const char *name, uint32_t tsg)
{
    uint32_t lvl = 2;
    struct rm_result r = rm_control(c->ctl, c->client, tsg, CA06C_SET_INTERLEAVE, &lvl, 4);
    emit_rm(name, r, NULL);
}

/* A client with device, subdevice and one channel group (handle tsg), on the child's own fd. */
static void child_tree(struct conf *c, const char *stage, uint32_t tsg)
{
    char name[96];
    c->client = rm_client(c->ctl);
    snprintf(name, sizeof name, "nocap.%s.client", stage);
    emit_raw(name, c->client ? 0 : -1, 0, NULL);
    struct rm_result r = alloc_fixture(c, "device", 0, 0, NULL, NULL, 0);
    snprintf(name, sizeof name, "nocap.%s.alloc.device", stage);
    emit_rm(name, r, NULL);
    r = alloc_fixture(c, "subdevice", 0, 0, NULL, NULL, 0);
    snprintf(name, sizeof name, "nocap.%s.alloc.subdevice", stage);
    emit_rm(name, r, NULL);
    tsg_alloc_t tp = {0, 0, 0, 1, 0, {0}};
    uint32_t h = tsg;
    r = rm_alloc(c->ctl, c->client, 0x5c000002u, &h, CL_TSG, &tp);
    snprintf(name, sizeof name, "nocap.%s.alloc.tsg", stage);
    emit_rm(name, r, NULL);
}

/* Set interleave before and after GPFIFO_SCHEDULE on one group. */
static void interleave_sched_pair(struct conf *c, const char *stage, uint32_t tsg)
{
    char name[96];
    snprintf(name, sizeof name, "nocap.%s.set_interleave_unscheduled", stage);
    interleave_probe(c, name, tsg);
    uint8_t s[3] = {1, 0, 0};
    rm_control(c->ctl, c->client, tsg, CA06C_GPFIFO_SCHEDULE, s, 3);
    snprintf(name, sizeof name, "nocap.%s.set_interleave_scheduled", stage);
    interleave_probe(c, name, tsg);
}

/*
 * Stage "caps": a fresh client made before dropping anything (root keeps CAP_SYS_NICE here).
 * Stage "dropped": the same client's old group, a new group in it, then a new client: shows
 * whether the NICE right is decided when the client or group is made or when the control runs.
 */
static void child(struct conf *parent)
{
    struct conf cc = *parent;
    struct conf *c = &cc;
    note_creds("nocap.before_drop");
    c->ctl = open("/dev/nvidiactl", O_RDWR | O_CLOEXEC);
    child_tree(c, "caps", H_TSG_E);
    interleave_sched_pair(c, "caps", H_TSG_E);
    uint32_t client_caps = c->client;

    int rc = drop_nice_admin();
    emit_raw("nocap.drop_caps", rc, 0, NULL);
    note_creds("nocap.after_drop");
    interleave_probe(c, "nocap.dropped.old_client.old_tsg.set_interleave", H_TSG_E);
    tsg_alloc_t tp = {0, 0, 0, 1, 0, {0}};
    uint32_t h = H_TSG_P;
    struct rm_result r = rm_alloc(c->ctl, c->client, 0x5c000002u, &h, CL_TSG, &tp);
    emit_rm("nocap.dropped.old_client.alloc.new_tsg", r, NULL);
    interleave_sched_pair(c, "dropped.old_client.new_tsg", H_TSG_P);

    child_tree(c, "dropped", H_TSG_E);
    interleave_sched_pair(c, "dropped", H_TSG_E);

    uint32_t lvl = 7;
    r = rm_control(c->ctl, c->client, H_TSG_E, CA06C_SET_INTERLEAVE, &lvl, 4);
    emit_rm("nocap.tsg.set_interleave.7", r, NULL);
    uint8_t rt = 1;
    r = rm_control(c->ctl, c->client, H_TSG_E, CA06C_MAKE_REALTIME, &rt, 1);
    emit_rm("nocap.tsg.make_realtime.1", r, NULL);
    sched_policy_t sp = {0, 1};
    r = rm_control(c->ctl, c->client, 0x5c000003u, C2080_FIFO_SET_SCHED_POLICY, &sp, sizeof sp);
    emit_rm("nocap.subdevice.sched_policy.set_interleaved", r, NULL);
    if (r.status == 0) {
        sp.flags = 1;
        rm_control(c->ctl, c->client, 0x5c000003u, C2080_FIFO_SET_SCHED_POLICY, &sp, sizeof sp);
    }
    uint64_t ts = 1;
    r = rm_control(c->ctl, c->client, H_TSG_E, CA06C_SET_TIMESLICE, &ts, 8);
    emit_rm("nocap.tsg.set_timeslice.1", r, NULL);
    ts = 0;
    r = rm_control(c->ctl, c->client, H_TSG_E, CA06C_GET_TIMESLICE, &ts, 8);
    emit_rm("nocap.tsg.get_timeslice", r, "timesliceUs=%llu", (unsigned long long)ts);
    preempt_params_t pp = {0, 0, {0, 0}, 0};
    r = rm_control(c->ctl, c->client, H_TSG_E, CA06C_PREEMPT, &pp, sizeof pp);
    emit_rm("nocap.tsg.preempt.wait0", r, NULL);
    static disable_channels_t dp;
    memset(&dp, 0, sizeof dp);
    dp.bDisable = 1;
    dp.numChannels = 0;
    r = rm_control(c->ctl, c->client, 0x5c000003u, C2080_FIFO_DISABLE_CHANNELS, &dp, sizeof dp);
    emit_rm("nocap.subdevice.disable_channels.num0", r, NULL);
    dp.pRunlistPreemptEvent = 0x1000;
    r = rm_control(c->ctl, c->client, 0x5c000003u, C2080_FIFO_DISABLE_CHANNELS, &dp, sizeof dp);
    emit_rm("nocap.subdevice.disable_channels.event_ptr", r, NULL);
    r = rm_free(c->ctl, c->client, c->client);
    emit_rm("nocap.free.client", r, NULL);
    rm_free(c->ctl, client_caps, client_caps);
}

void cases_privilege(struct conf *c)
{
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        child(c);
        fflush(stdout);
        _exit(0);
    }
    int st = 0;
    if (pid > 0)
        waitpid(pid, &st, 0);
    emit_raw("nocap.child_exit", pid > 0 && WIFEXITED(st) ? WEXITSTATUS(st) : -1, 0, NULL);
}
