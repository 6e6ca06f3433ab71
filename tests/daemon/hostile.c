/*
 * A local user attacking the daemon, with nothing but libc and <sys/ioctl.h>
 * (like rawclient.c). One mode per run; exit 0 when the daemon held up:
 *   regfd-race [SECONDS] threads close nvidiactl fds while others REGISTER_FD them (default
 *                       $NVEMU_RACE_SECONDS, else 3)
 *   regfd-flood         100 threads REGISTER_FD at once; afterwards one must still work
 *   userns              (run inside unshare -Ur as a user) GPU-wide controls must be refused
 *   status-idle         40 idle connections to $NVEMU_SOCKET; a status request must still be answered
 *   heap-trim           100 000 clients on one fd, then close: the daemon's RSS must fall back
 *                       by a quarter of what they took at least
 *   stuck-read          a nested pointer into a page whose faults nobody answers must not stall
 *                       another client; the stuck call is answered once the page is released
 *   sleepers            (daemon with --clock realtime) 70 threads of uid 65534 sleep: at most 16 block,
 *                       root is still served, SIGKILL ends them, SIGTERM stops the daemon
 *   uvm-vaspace         uid 65534's UVM file names root's client and VA space with its own RM fd:
 *                       NV_ERR_INVALID_CLIENT, root's context share still waits; root's own works
 *   wl-foreign          (daemon with its default --workload-uid) uid 65534 cannot register a workload
 *                       participant (NV_ERR_INSUFFICIENT_PERMISSIONS), so root's 1 ms WL_SLEEP in
 *                       virtual time ends at once while that process lives
 *   regfd-fair          48 threads of uid 65534 loop REGISTER_FD while root makes 200: every one of
 *                       root's succeeds, p99 within 2 s (the flood shares 2 cores)
 *   rm-quota [N]        (daemon with --rm-quota events=N, default 20000) uid 65534 allocates events until
 *                       refused: NV_ERR_INSUFFICIENT_RESOURCES at exactly N, root still allocates; root's
 *                       calls while those events are released: p99 within 200 ms
 *   status-hoard        4000 openers make a large status document; 20 connections of uid 65534 ask
 *                       for it and never read: root's status is still answered, every call, p50 within
 *                       2 s (a daemon that queued root behind the hoard would answer each one late)
 *   stuck-threads       64 threads of uid 65534 make calls whose memory (nested params, and the block
 *                       of an _IOC_NONE ioctl the daemon reads itself) lies on a page nobody answers:
 *                       root's controls meanwhile all succeed with p99 within 500 ms, still after the
 *                       attacker is killed, and SIGTERM stops the daemon while threads are stuck
 *   ro-params           a control whose params lie in a read-only page: ioctl 0, status
 *                       NV_ERR_INVALID_ADDRESS (the copy-out failed), directly and through XFER
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <linux/userfaultfd.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct nvos21 { uint32_t hRoot, hObjectParent, hObjectNew, hClass; uint64_t pAllocParms; uint32_t paramsSize, status; };
struct nvos54 { uint32_t hClient, hObject, cmd, flags; uint64_t params; uint32_t paramsSize, status; };
struct nvos00 { uint32_t hRoot, hObjectParent, hObjectOld, status; };
struct nv0080_alloc { uint32_t deviceId, hClientShare, hTargetClient, hTargetDevice, flags, pad;
                      uint64_t vaSpaceSize, vaStartInternal, vaLimitInternal; uint32_t vaMode, pad2; };
struct tsg_alloc { uint32_t hObjectError, hObjectEccError, hVASpace, engineType; uint8_t bVgpu; };
_Static_assert(sizeof(struct nvos21) == 32 && sizeof(struct nvos54) == 32 && sizeof(struct nvos00) == 16, "rm");
_Static_assert(sizeof(struct nv0080_alloc) == 56 && sizeof(struct tsg_alloc) == 20, "alloc params");

#define REQ(nr, size) (0xC0000000u | ((unsigned)(size) << 16) | 0x4600u | (nr))
#define REGISTER_FD REQ(201, sizeof(int))
#define H_DEVICE 0xD0000001u
#define H_TSG 0xD0000003u
#define NV_ERR_INSUFFICIENT_PERMISSIONS 0x1Bu

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static uint32_t alloc(int fd, uint32_t root, uint32_t parent, uint32_t *h, uint32_t cls, void *p, uint32_t n)
{
    struct nvos21 a = {root, parent, *h, cls, (uint64_t)(uintptr_t)p, n, 0xFFFFFFFFu};
    if (ioctl(fd, REQ(0x2B, sizeof(a)), &a) != 0)
        return 0xDEADu;
    *h = a.hObjectNew;
    return a.status;
}

static uint32_t control(int fd, uint32_t client, uint32_t obj, uint32_t cmd, void *p, uint32_t n)
{
    struct nvos54 c = {client, obj, cmd, 0, (uint64_t)(uintptr_t)p, n, 0xFFFFFFFFu};
    return ioctl(fd, REQ(0x2A, sizeof(c)), &c) == 0 ? c.status : 0xDEADu;
}

/* Client + device + channel group on ctl; returns the client handle or 0. */
static uint32_t build(int ctl)
{
    uint32_t client = 0, root_param = 0, h = H_DEVICE;
    struct nv0080_alloc dev;
    memset(&dev, 0, sizeof(dev));
    struct tsg_alloc tsg;
    memset(&tsg, 0, sizeof(tsg));
    tsg.engineType = 1;
    if (alloc(ctl, 0, 0, &client, 0x41, &root_param, 4) != 0 || alloc(ctl, client, client, &h, 0x80, &dev, 56) != 0)
        return 0;
    h = H_TSG;
    return alloc(ctl, client, H_DEVICE, &h, 0xA06C, &tsg, sizeof(tsg)) == 0 ? client : 0;
}

/* The daemon still serves: a fresh client with a channel group, then freed. */
static int still_serving(const char *mode)
{
    int ctl = open("/dev/nvidiactl", O_RDWR | O_CLOEXEC), gpu = open("/dev/nvidia0", O_RDWR | O_CLOEXEC);
    uint32_t client = ctl >= 0 && gpu >= 0 ? build(ctl) : 0;
    struct nvos00 fr = {client, 0, client, 0xFFFFFFFFu};
    int ok = client != 0 && ioctl(ctl, REQ(0x29, sizeof(fr)), &fr) == 0 && fr.status == 0;
    int ctl_fd = ctl;
    ok = ok && ioctl(gpu, REGISTER_FD, &ctl_fd) == 0;
    close(gpu);
    close(ctl);
    printf("hostile %s: daemon %s\n", mode, ok ? "still serving" : "NOT serving");
    return ok ? 0 : 1;
}

/* How long a race runs: $NVEMU_RACE_SECONDS (CI's sanitizer stage sets 30), else a short 3 s. */
static double race_seconds(void)
{
    const char *v = getenv("NVEMU_RACE_SECONDS");
    double s = v ? atof(v) : 0;
    return s > 0 ? s : 3;
}

static atomic_int shared_fd = -1;
static atomic_bool stop;

static void *closer(void *arg)
{
    (void)arg;
    while (!atomic_load(&stop)) {
        int fd = open("/dev/nvidiactl", O_RDWR | O_CLOEXEC);
        if (fd < 0)
            continue;
        atomic_store(&shared_fd, fd);
        usleep((useconds_t)(rand() % 2000)); /* closes land anywhere inside a REGISTER_FD */
        atomic_store(&shared_fd, -1);
        close(fd);
    }
    return NULL;
}

static void *registrar(void *arg)
{
    (void)arg;
    while (!atomic_load(&stop)) {
        int gpu = open("/dev/nvidia0", O_RDWR | O_CLOEXEC);
        int fd = atomic_load(&shared_fd);
        if (fd >= 0)
            ioctl(gpu, REGISTER_FD, &fd);
        close(gpu);
    }
    return NULL;
}

static int regfd_race(double seconds)
{
    enum { PAIRS = 8 };
    pthread_t t[2 * PAIRS];
    for (int i = 0; i < PAIRS; i++) {
        pthread_create(&t[2 * i], NULL, closer, NULL);
        pthread_create(&t[2 * i + 1], NULL, registrar, NULL);
    }
    double end = now() + seconds;
    while (now() < end)
        usleep(100000);
    atomic_store(&stop, true);
    for (int i = 0; i < 2 * PAIRS; i++)
        pthread_join(t[i], NULL);
    return still_serving("regfd-race");
}

static int flood_ctl = -1;

static void *flooder(void *arg)
{
    (void)arg;
    while (!atomic_load(&stop)) {
        int gpu = open("/dev/nvidia0", O_RDWR | O_CLOEXEC);
        int fd = flood_ctl;
        ioctl(gpu, REGISTER_FD, &fd);
        close(gpu);
    }
    return NULL;
}

static int regfd_flood(void)
{
    enum { THREADS = 100 };
    flood_ctl = open("/dev/nvidiactl", O_RDWR | O_CLOEXEC);
    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++)
        pthread_create(&t[i], NULL, flooder, NULL);
    sleep(8); /* longer than the daemon's probe timeout */
    atomic_store(&stop, true);
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    close(flood_ctl);
    return still_serving("regfd-flood");
}

static int userns(void)
{
    int ctl = open("/dev/nvidiactl", O_RDWR | O_CLOEXEC), gpu = open("/dev/nvidia0", O_RDWR | O_CLOEXEC);
    uint32_t client = ctl >= 0 && gpu >= 0 ? build(ctl) : 0;
    if (!client) {
        fprintf(stderr, "hostile userns: cannot build a channel group: %s\n", strerror(errno));
        return 1;
    }
    uint32_t level = 3; /* NVA06C_CTRL_CMD_SET_INTERLEAVE_LEVEL: HIGH */
    uint32_t st = control(ctl, client, H_TSG, 0xA06C0107u, &level, sizeof(level));
    printf("hostile userns: SET_INTERLEAVE_LEVEL from a user namespace -> 0x%x\n", st);
    return st == NV_ERR_INSUFFICIENT_PERMISSIONS ? 0 : 1;
}

static int connect_socket(const char *path)
{
    struct sockaddr_un a;
    memset(&a, 0, sizeof(a));
    a.sun_family = AF_UNIX;
    snprintf(a.sun_path, sizeof(a.sun_path), "%s", path);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof(a)) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

static int status_idle(void)
{
    const char *path = getenv("NVEMU_SOCKET");
    if (!path) {
        fprintf(stderr, "hostile status-idle: NVEMU_SOCKET is not set\n");
        return 1;
    }
    enum { IDLE = 40 };
    int idle[IDLE];
    for (int i = 0; i < IDLE; i++)
        idle[i] = connect_socket(path);
    double t0 = now();
    int fd = connect_socket(path);
    char buf[256] = "";
    ssize_t n = -1;
    if (fd >= 0 && send(fd, "status\n", 7, MSG_NOSIGNAL) == 7) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        if (poll(&p, 1, 3000) == 1)
            n = recv(fd, buf, sizeof(buf) - 1, 0);
    }
    double waited = now() - t0;
    for (int i = 0; i < IDLE; i++)
        if (idle[i] >= 0)
            close(idle[i]);
    if (fd >= 0)
        close(fd);
    printf("hostile status-idle: status with %d idle connections: %s after %.3f s\n", IDLE,
           n > 0 && buf[0] == '{' ? "answered" : "NOT answered", waited);
    return n > 0 && buf[0] == '{' ? 0 : 1;
}

/*
 * A nested pointer into memory whose page faults nobody answers (userfaultfd): the daemon's read of it
 * blocks. Another client's calls must still complete; once the page is unmapped and the fault
 * released, the stuck call gets its answer (the address is bad now).
 */
static struct stuck {
    int ctl;
    uint32_t client;
    void *page;
    uint32_t status;
    atomic_bool done;
} stuck;

static void *stuck_caller(void *arg)
{
    (void)arg;
    uint32_t h = H_DEVICE;
    stuck.status = alloc(stuck.ctl, stuck.client, stuck.client, &h, 0x80, stuck.page, 56);
    atomic_store(&stuck.done, true);
    return NULL;
}

static const char *other_mode = "stuck-read";

static void *other_client(void *arg)
{
    atomic_int *rc = arg;
    atomic_store(rc, still_serving(other_mode));
    return NULL;
}

static int wait_flag(atomic_bool *flag, double seconds)
{
    double end = now() + seconds;
    while (!atomic_load(flag) && now() < end)
        usleep(10000);
    return atomic_load(flag) ? 0 : -1;
}

static int stuck_read(void)
{
    long psz = sysconf(_SC_PAGESIZE);
    int uffd = (int)syscall(SYS_userfaultfd, O_CLOEXEC);
    struct uffdio_api api = {.api = UFFD_API};
    stuck.page = mmap(NULL, (size_t)psz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    struct uffdio_register reg = {.range = {(uint64_t)(uintptr_t)stuck.page, (uint64_t)psz},
                                  .mode = UFFDIO_REGISTER_MODE_MISSING};
    if (uffd < 0 || ioctl(uffd, UFFDIO_API, &api) != 0 || stuck.page == MAP_FAILED ||
        ioctl(uffd, UFFDIO_REGISTER, &reg) != 0) {
        printf("SKIP: no userfaultfd here (%s)\n", strerror(errno));
        return 77;
    }
    stuck.ctl = open("/dev/nvidiactl", O_RDWR | O_CLOEXEC);
    int gpu = open("/dev/nvidia0", O_RDWR | O_CLOEXEC);
    uint32_t root_param = 0;
    if (stuck.ctl < 0 || gpu < 0 || alloc(stuck.ctl, 0, 0, &stuck.client, 0x41, &root_param, 4) != 0) {
        printf("hostile stuck-read: cannot set up a client\n");
        return 1;
    }
    pthread_t a, b;
    pthread_create(&a, NULL, stuck_caller, NULL);
    usleep(300000); /* the daemon is now inside the read of the unanswered page */
    if (atomic_load(&stuck.done)) {
        printf("hostile stuck-read: the call on the unanswered page returned at once (status 0x%x)\n", stuck.status);
        return 1;
    }
    static atomic_int other_rc = -1;
    pthread_create(&b, NULL, other_client, &other_rc);
    pthread_detach(b);
    double t0 = now();
    while (atomic_load(&other_rc) < 0 && now() - t0 < 10)
        usleep(10000);
    int other = atomic_load(&other_rc);
    printf("hostile stuck-read: another client's calls %s after %.3f s\n",
           other == 0 ? "completed" : other < 0 ? "still blocked" : "failed", now() - t0);
    /* release the fault: the page is gone, so the daemon's read fails */
    munmap(stuck.page, (size_t)psz);
    close(uffd);
    int stuck_rc = wait_flag(&stuck.done, 20);
    printf("hostile stuck-read: the stuck call %s (status 0x%x)\n", stuck_rc == 0 ? "was answered" : "never returned",
           stuck.status);
    if (other != 0 || stuck_rc != 0 || stuck.status == 0)
        _exit(1);
    pthread_join(a, NULL);
    close(gpu);
    close(stuck.ctl);
    return 0;
}

/*
 * Blocking workload calls: one user's sleepers (WL_SLEEP an hour ahead on a realtime clock) are limited,
 * do not keep another user's calls from being served, die when killed, and do not keep SIGTERM from
 * stopping the daemon.
 */
static long daemon_pid(void);

#define WL_REGISTER REQ(0xF0, 40)
#define WL_SLEEP REQ(0xF4, 16)
#define WL_NOW REQ(0xF5, 8)
#define NV_ERR_INSUFFICIENT_RESOURCES 0x1Au
struct wl_register { char name[32]; uint32_t participant, status; };
struct wl_sleep { uint64_t until_ns; uint32_t status, pad; };

struct sleep_stats { atomic_int refused, asleep, other; };
static struct sleep_stats *sleep_stats;
static int sleeper_ctl = -1;

static void *sleeper(void *arg)
{
    (void)arg;
    struct wl_register r;
    memset(&r, 0, sizeof(r));
    snprintf(r.name, sizeof(r.name), "sleeper");
    uint64_t now_ns = 0;
    if (ioctl(sleeper_ctl, WL_REGISTER, &r) != 0 || r.status != 0 || ioctl(sleeper_ctl, WL_NOW, &now_ns) != 0) {
        atomic_fetch_add(&sleep_stats->other, 1);
        return NULL;
    }
    struct wl_sleep sl = {now_ns + 3000ull * 1000000000ull, 0xFFFFFFFFu, 0};
    atomic_fetch_add(&sleep_stats->asleep, 1);
    int rc = ioctl(sleeper_ctl, WL_SLEEP, &sl);
    atomic_fetch_sub(&sleep_stats->asleep, 1);
    if (rc == 0 && sl.status == NV_ERR_INSUFFICIENT_RESOURCES)
        atomic_fetch_add(&sleep_stats->refused, 1);
    else
        atomic_fetch_add(&sleep_stats->other, 1);
    return NULL;
}

/* A process of uid 65534 whose `n` threads each register and sleep; it exits when they all returned. */
static pid_t spawn_sleepers(int n)
{
    pid_t pid = fork();
    if (pid != 0)
        return pid;
    if (setgid(65534) != 0 || setuid(65534) != 0)
        _exit(3);
    sleeper_ctl = open("/dev/nvidiactl", O_RDWR | O_CLOEXEC);
    if (sleeper_ctl < 0)
        _exit(4);
    pthread_t t[128];
    for (int i = 0; i < n; i++)
        pthread_create(&t[i], NULL, sleeper, NULL);
    for (int i = 0; i < n; i++)
        pthread_join(t[i], NULL);
    _exit(0);
}

/* kill for a pid this test made: never 0 or -1 (a failed fork), which would signal far more. */
static void kill_pid(long pid, int sig)
{
    if (pid > 0)
        kill((pid_t)pid, sig);
}

/* waitpid with a bound: 0 when pid ended within `seconds`. */
static int reap(pid_t pid, double seconds)
{
    double end = now() + seconds;
    while (now() < end) {
        if (waitpid(pid, NULL, WNOHANG) == pid)
            return 0;
        usleep(20000);
    }
    return -1;
}

/* True when pid is gone or a zombie. */
static bool ended(long pid)
{
    char path[64], buf[256];
    snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return true;
    size_t n = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    buf[n] = 0;
    const char *p = strrchr(buf, ')');
    return p && p[1] == ' ' && (p[2] == 'Z' || p[2] == 'X');
}

static int sleepers(void)
{
    enum { SLEEPERS = 70 };
    long dpid = daemon_pid();
    sleep_stats = mmap(NULL, sizeof(*sleep_stats), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (dpid <= 0 || sleep_stats == MAP_FAILED) {
        printf("hostile sleepers: no daemon pid or no shared page\n");
        return 1;
    }
    memset(sleep_stats, 0, sizeof(*sleep_stats));
    other_mode = "sleepers";
    pid_t a = spawn_sleepers(SLEEPERS);
    double t0 = now();
    /* every call past the limit is answered at once; the others sleep */
    while (now() - t0 < 10 && atomic_load(&sleep_stats->refused) + atomic_load(&sleep_stats->other) < SLEEPERS - 16)
        usleep(20000);
    printf("hostile sleepers: %d threads of uid 65534: %d asleep, %d refused, %d other\n", SLEEPERS,
           atomic_load(&sleep_stats->asleep), atomic_load(&sleep_stats->refused), atomic_load(&sleep_stats->other));
    static atomic_int other_rc = -1;
    pthread_t b;
    pthread_create(&b, NULL, other_client, &other_rc);
    pthread_detach(b);
    t0 = now();
    while (atomic_load(&other_rc) < 0 && now() - t0 < 10)
        usleep(10000);
    int other = atomic_load(&other_rc);
    printf("hostile sleepers: root's calls %s after %.3f s\n",
           other == 0 ? "completed" : other < 0 ? "still blocked" : "failed", now() - t0);
    int refused = atomic_load(&sleep_stats->refused);
    kill_pid(a, SIGKILL);
    int killed = reap(a, 10);
    printf("hostile sleepers: SIGKILL %s the sleeping process\n", killed == 0 ? "ended" : "did NOT end");
    /* a few sleepers, then the daemon is told to stop */
    memset(sleep_stats, 0, sizeof(*sleep_stats));
    pid_t c = spawn_sleepers(4);
    t0 = now();
    while (now() - t0 < 10 && atomic_load(&sleep_stats->asleep) < 4)
        usleep(20000);
    usleep(300000);
    kill_pid(dpid, SIGTERM);
    t0 = now();
    while (!ended(dpid) && now() - t0 < 15)
        usleep(20000);
    bool stopped = ended(dpid);
    printf("hostile sleepers: SIGTERM with %d sleepers: daemon %s after %.3f s\n", 4, stopped ? "stopped" : "still running",
           now() - t0);
    int c_done = reap(c, 10);
    if (other != 0 || refused < SLEEPERS - 16 || killed != 0 || !stopped || c_done != 0)
        _exit(1);
    return 0;
}

/* The daemon's pid from the "daemon" object of a status answer on $NVEMU_SOCKET; 0 when not found. */
static long daemon_pid(void)
{
    const char *path = getenv("NVEMU_SOCKET");
    int fd = path ? connect_socket(path) : -1;
    if (fd < 0 || send(fd, "status\n", 7, MSG_NOSIGNAL) != 7) {
        if (fd >= 0)
            close(fd);
        return 0;
    }
    static char buf[1 << 16];
    size_t len = 0;
    ssize_t n;
    while (len < sizeof(buf) - 1 && (n = recv(fd, buf + len, sizeof(buf) - 1 - len, 0)) > 0)
        len += (size_t)n;
    close(fd);
    buf[len] = 0;
    const char *d = strstr(buf, "\"daemon\"");
    const char *p = d ? strstr(d, "\"pid\":") : NULL;
    return p ? strtol(p + 6, NULL, 10) : 0;
}

/* VmRSS of pid in KiB, -1 when unreadable. */
static long rss_kib(long pid)
{
    char path[64], line[256];
    snprintf(path, sizeof(path), "/proc/%ld/status", pid);
    FILE *f = fopen(path, "r");
    long kib = -1;
    while (f && fgets(line, sizeof(line), f))
        if (strncmp(line, "VmRSS:", 6) == 0)
            kib = strtol(line + 6, NULL, 10);
    if (f)
        fclose(f);
    return kib;
}

/*
 * One opener allocates many clients, then closes: the daemon's resident memory must fall back
 * (freed heap returned to the system), not stay at its peak.
 */
static int heap_trim(void)
{
    enum { CLIENTS = 100000 };
    long pid = daemon_pid();
    if (pid <= 0) {
        fprintf(stderr, "hostile heap-trim: no daemon pid from $NVEMU_SOCKET\n");
        return 1;
    }
    long base = rss_kib(pid);
    int ctl = open("/dev/nvidiactl", O_RDWR | O_CLOEXEC);
    int made = 0;
    for (int i = 0; ctl >= 0 && i < CLIENTS; i++) {
        uint32_t client = 0, root_param = 0;
        made += alloc(ctl, 0, 0, &client, 0x41, &root_param, 4) == 0;
    }
    long peak = rss_kib(pid);
    if (ctl >= 0)
        close(ctl);
    long after = peak, want = peak - (peak - base) / 4;
    /* the release runs after the last close reached the daemon */
    for (int i = 0; i < 60 && after > want; i++) {
        usleep(50000);
        after = rss_kib(pid);
    }
    printf("hostile heap-trim: %d clients; daemon RSS %ld KiB before, %ld KiB with them, %ld KiB after close\n", made,
           base, peak, after);
    if (made != CLIENTS || peak - base < 8192) {
        printf("hostile heap-trim: the clients did not grow the daemon measurably\n");
        return 1;
    }
    /* a quarter of the growth at least (tables sized for the peak and fragments may stay) */
    return after <= want ? still_serving("heap-trim") : 1;
}

/*
 * The driver copies a control's params out inside the call: a read-only page makes that copy fail, and the
 * call answers NV_ERR_INVALID_ADDRESS in its status with the syscall returning 0 (EFAULT is only for the
 * top-level block).
 */
#define NV_ERR_INVALID_ADDRESS 0x1Eu
struct xfer { uint32_t cmd, size; uint64_t ptr; };

static int ro_params(void)
{
    int ctl = open("/dev/nvidiactl", O_RDWR | O_CLOEXEC);
    uint32_t client = 0, root_param = 0;
    long psz = sysconf(_SC_PAGESIZE);
    uint32_t *ids = mmap(NULL, (size_t)psz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (ctl < 0 || ids == MAP_FAILED || alloc(ctl, 0, 0, &client, 0x41, &root_param, 4) != 0) {
        printf("hostile ro-params: cannot set up a client\n");
        return 1;
    }
    uint32_t st_rw = control(ctl, client, client, 0x201u, ids, 128); /* GPU_GET_ATTACHED_IDS */
    mprotect(ids, (size_t)psz, PROT_READ);
    struct nvos54 c = {client, client, 0x201u, 0, (uint64_t)(uintptr_t)ids, 128, 0xFFFFFFFFu};
    int rc = ioctl(ctl, REQ(0x2A, sizeof(c)), &c);
    int err = rc != 0 ? errno : 0;
    struct nvos54 inner = {client, client, 0x201u, 0, (uint64_t)(uintptr_t)ids, 128, 0xFFFFFFFFu};
    struct xfer x = {0x2A, sizeof(inner), (uint64_t)(uintptr_t)&inner};
    int xrc = ioctl(ctl, REQ(211, sizeof(x)), &x);
    int xerr = xrc != 0 ? errno : 0;
    printf("hostile ro-params: writable params -> 0x%x; read-only: ioctl %d (%s) status 0x%x; "
           "through XFER: ioctl %d (%s) status 0x%x\n", st_rw, rc, strerror(err), c.status, xrc, strerror(xerr),
           inner.status);
    close(ctl);
    return st_rw == 0 && rc == 0 && c.status == NV_ERR_INVALID_ADDRESS && xrc == 0 &&
                   inner.status == NV_ERR_INVALID_ADDRESS ? 0 : 1;
}

/*
 * Cross-tenant measurements: uid 65534 attacks from a child process (threads looping `fn` until root is done,
 * at most 10 s) while root times its own calls.
 */
struct lat { double p50, p99, max; int fails, n; };

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Times n calls of call(arg) (0: success). */
static struct lat measure(int (*call)(void *), void *arg, int n)
{
    double *t = calloc((size_t)n, sizeof(*t));
    struct lat l = {0, 0, 0, 0, n};
    for (int i = 0; t && i < n; i++) {
        double t0 = now();
        l.fails += call(arg) != 0;
        t[i] = now() - t0;
    }
    if (!t)
        return (struct lat){0, 0, 0, n, n};
    qsort(t, (size_t)n, sizeof(*t), cmp_double);
    l.p50 = t[n / 2];
    l.p99 = t[(n * 99) / 100 < n ? (n * 99) / 100 : n - 1];
    l.max = t[n - 1];
    free(t);
    return l;
}

static void print_lat(const char *mode, const char *what, struct lat l)
{
    printf("hostile %s: root's %s: %d calls, %d failed, p50 %.3f ms, p99 %.3f ms, max %.3f ms\n", mode, what, l.n,
           l.fails, l.p50 * 1e3, l.p99 * 1e3, l.max * 1e3);
}

struct attack {
    pid_t pid;
    int stop_fd;                 /* root's end: closing it ends the attack */
};

static void *(*attack_fn)(void *);
static atomic_bool attack_stop;

/* A process of uid 65534 running `threads` threads of fn (setup first runs once as that user); ready when it returns. */
static struct attack attack_start(int (*setup)(void), void *(*fn)(void *), int threads)
{
    int p[2], ready[2];
    struct attack a = {-1, -1};
    if (pipe(p) != 0 || pipe(ready) != 0)
        return a;
    a.pid = fork();
    if (a.pid == 0) {
        close(p[1]);
        close(ready[0]);
        if (setgid(65534) != 0 || setuid(65534) != 0 || (setup && setup() != 0))
            _exit(3);
        attack_fn = fn;
        pthread_t t;
        for (int i = 0; i < threads; i++)
            if (pthread_create(&t, NULL, fn, NULL) == 0)
                pthread_detach(t);
        if (write(ready[1], "r", 1) != 1)
            _exit(4);
        struct pollfd pf = {.fd = p[0], .events = POLLIN};
        poll(&pf, 1, 10000);
        atomic_store(&attack_stop, true);
        _exit(0);
    }
    close(p[0]);
    close(ready[1]);
    char c;
    if (read(ready[0], &c, 1) != 1) {
        close(p[1]);
        reap(a.pid, 5);
        a.pid = -1;
        p[1] = -1;
    }
    close(ready[0]);
    a.stop_fd = p[1];
    usleep(200000); /* the attack is under way */
    return a;
}

/* Ends the attack: 0 when its process is gone within 10 s. */
static int attack_end(struct attack *a)
{
    if (a->pid < 0)
        return -1;
    close(a->stop_fd);
    return reap(a->pid, 10);
}

static int regfd_ctl = -1;

static int attacker_regfd_setup(void)
{
    regfd_ctl = open("/dev/nvidiactl", O_RDWR | O_CLOEXEC);
    return regfd_ctl >= 0 ? 0 : -1;
}

static void *attacker_regfd(void *arg)
{
    (void)arg;
    while (!atomic_load(&attack_stop)) {
        int gpu = open("/dev/nvidia0", O_RDWR | O_CLOEXEC);
        int fd = regfd_ctl;
        ioctl(gpu, REGISTER_FD, &fd);
        close(gpu);
    }
    return NULL;
}

static int root_regfd(void *arg)
{
    int ctl = *(int *)arg;
    int gpu = open("/dev/nvidia0", O_RDWR | O_CLOEXEC);
    int fd = ctl;
    int rc = gpu >= 0 && ioctl(gpu, REGISTER_FD, &fd) == 0 ? 0 : -1;
    if (gpu >= 0)
        close(gpu);
    return rc;
}

/* A REGISTER_FD flood of one user must not make another's fail (libcuda registers at context creation). */
static int regfd_fair(void)
{
    int ctl = open("/dev/nvidiactl", O_RDWR | O_CLOEXEC);
    if (ctl < 0)
        return 1;
    struct lat quiet = measure(root_regfd, &ctl, 200);
    print_lat("regfd-fair", "REGISTER_FD quiet", quiet);
    struct attack a = attack_start(attacker_regfd_setup, attacker_regfd, 48);
    struct lat busy = measure(root_regfd, &ctl, 200);
    int ended = attack_end(&a);
    print_lat("regfd-fair", "REGISTER_FD while 48 threads of uid 65534 loop REGISTER_FD", busy);
    close(ctl);
    return a.pid > 0 && ended == 0 && quiet.fails == 0 && busy.fails == 0 && busy.p99 < 2.0 ? 0 : 1;
}

/* An event object on the client itself (NV01_EVENT_OS_EVENT, NV0005 params naming the client as notifier). */
struct nv0005 { uint32_t hParentClient, hSrcResource, hClass, notifyIndex; uint64_t data; };
#define EV_BASE 0xE0000000u

static uint32_t alloc_event(int ctl, uint32_t client, uint32_t i)
{
    struct nv0005 ev = {0, client, 0x79, 0, 0};
    uint32_t h = EV_BASE + i;
    return alloc(ctl, client, client, &h, 0x79, &ev, sizeof(ev));
}

static int root_control(void *arg)
{
    const uint32_t *cc = arg; /* ctl fd, client */
    uint32_t ids[32];
    return control((int)cc[0], cc[1], cc[1], 0x201u, ids, sizeof(ids)) == 0 ? 0 : -1;
}

/* A thread timing root's calls until *stop. */
struct timed { uint32_t cc[2]; atomic_bool stop; struct lat l; };

static void *timed_calls(void *arg)
{
    struct timed *t = arg;
    enum { MAX = 200000 };
    double *v = malloc(MAX * sizeof(*v));
    int n = 0;
    while (v && n < MAX && !atomic_load(&t->stop)) {
        double t0 = now();
        t->l.fails += root_control(t->cc) != 0;
        v[n++] = now() - t0;
    }
    t->l.n = n;
    if (n) {
        qsort(v, (size_t)n, sizeof(*v), cmp_double);
        t->l.p50 = v[n / 2];
        t->l.p99 = v[(n * 99) / 100];
        t->l.max = v[n - 1];
    }
    free(v);
    return NULL;
}

static int rm_quota(int quota)
{
    long dpid = daemon_pid();
    long rss0 = rss_kib(dpid);
    int p[2], q[2];
    if (dpid <= 0 || pipe(p) != 0 || pipe(q) != 0)
        return 1;
    pid_t child = fork();
    if (child == 0) {
        uint32_t res[2] = {0, 0xDEADu}; /* events made, status of the refused one */
        if (setgid(65534) == 0 && setuid(65534) == 0) {
            int ctl = open("/dev/nvidiactl", O_RDWR | O_CLOEXEC);
            uint32_t client = 0, root_param = 0;
            if (ctl >= 0 && alloc(ctl, 0, 0, &client, 0x41, &root_param, 4) == 0)
                for (uint32_t i = 0; i < (uint32_t)quota + 10; i++) {
                    uint32_t st = alloc_event(ctl, client, i);
                    if (st != 0) {
                        res[1] = st;
                        break;
                    }
                    res[0]++;
                }
        }
        if (write(p[1], res, sizeof(res)) != sizeof(res))
            _exit(1);
        /* holds its events until root says so (at most 10 s), then they are released at exit */
        struct pollfd pf = {.fd = q[0], .events = POLLIN};
        poll(&pf, 1, 10000);
        _exit(0);
    }
    uint32_t res[2] = {0, 0xDEADu};
    if (read(p[0], res, sizeof(res)) != sizeof(res))
        res[1] = 0xDEADu;
    long rss_full = rss_kib(dpid);
    int ctl = open("/dev/nvidiactl", O_RDWR | O_CLOEXEC);
    uint32_t client = 0, root_param = 0;
    uint32_t root_client = ctl >= 0 ? alloc(ctl, 0, 0, &client, 0x41, &root_param, 4) : 0xDEADu;
    uint32_t root_event = root_client == 0 ? alloc_event(ctl, client, 0) : 0xDEADu;
    struct timed quiet = {.cc = {(uint32_t)ctl, client}};
    pthread_t t;
    pthread_create(&t, NULL, timed_calls, &quiet);
    usleep(300000);
    atomic_store(&quiet.stop, true);
    pthread_join(t, NULL);
    struct timed busy = {.cc = {(uint32_t)ctl, client}};
    pthread_create(&t, NULL, timed_calls, &busy);
    usleep(50000);
    double t0 = now();
    if (write(q[1], "x", 1) != 1)
        return 1;
    int reaped = reap(child, 10);
    double release = now() - t0;
    usleep(300000); /* the release reaches the daemon after the process is gone */
    atomic_store(&busy.stop, true);
    pthread_join(t, NULL);
    long rss_after = rss_kib(dpid);
    printf("hostile rm-quota: uid 65534 made %u events, the next -> 0x%x; root's client -> 0x%x, event -> 0x%x\n",
           res[0], res[1], root_client, root_event);
    printf("hostile rm-quota: daemon RSS %ld KiB before, %ld KiB at the quota, %ld KiB after release\n", rss0,
           rss_full, rss_after);
    print_lat("rm-quota", "controls quiet", quiet.l);
    print_lat("rm-quota", "controls while the events are released", busy.l);
    printf("hostile rm-quota: the holder ended %.3f s after it was told to\n", release);
    close(ctl);
    return res[0] == (uint32_t)quota && res[1] == NV_ERR_INSUFFICIENT_RESOURCES && root_client == 0 &&
                   root_event == 0 && reaped == 0 && quiet.l.fails == 0 && busy.l.fails == 0 && busy.l.p99 < 0.2
               ? 0 : 1;
}

/* One status query on $NVEMU_SOCKET read to the end: 0 when a JSON document came back within 5 s. */
static int root_status(void *arg)
{
    (void)arg;
    int fd = connect_socket(getenv("NVEMU_SOCKET"));
    if (fd < 0 || send(fd, "status\n", 7, MSG_NOSIGNAL) != 7) {
        if (fd >= 0)
            close(fd);
        return -1;
    }
    char buf[65536], first = 0;
    size_t total = 0;
    double end = now() + 5;
    for (;;) {
        struct pollfd pf = {.fd = fd, .events = POLLIN};
        int left = (int)((end - now()) * 1000);
        if (left <= 0 || poll(&pf, 1, left) != 1)
            break;
        ssize_t r = recv(fd, buf, sizeof(buf), 0);
        if (r <= 0)
            break;
        if (total == 0)
            first = buf[0];
        total += (size_t)r;
    }
    close(fd);
    return first == '{' && total > 1000 ? 0 : -1;
}

static int hoard_fds[20];

/* uid 65534: connections that ask for the status and never read it (held until the attack ends). */
static int attacker_hoard_setup(void)
{
    for (int i = 0; i < 20; i++) {
        hoard_fds[i] = connect_socket(getenv("NVEMU_SOCKET"));
        if (hoard_fds[i] < 0 || send(hoard_fds[i], "status\n", 7, MSG_NOSIGNAL) != 7)
            return -1;
    }
    return 0;
}

static void *attacker_idle(void *arg)
{
    (void)arg;
    while (!atomic_load(&attack_stop))
        usleep(100000);
    return NULL;
}

static int status_hoard(void)
{
    enum { OPENERS = 4000 };
    struct rlimit rl = {OPENERS + 256, OPENERS + 256};
    if (setrlimit(RLIMIT_NOFILE, &rl) != 0) {
        printf("hostile status-hoard: cannot raise the fd limit: %s\n", strerror(errno));
        return 1;
    }
    /* uid 65534 reaches the socket through nvemu run's private directory (search permission only) */
    char dir[108];
    snprintf(dir, sizeof(dir), "%s", getenv("NVEMU_SOCKET") ? getenv("NVEMU_SOCKET") : "");
    char *slash = strrchr(dir, '/');
    if (slash && slash != dir) {
        *slash = 0;
        chmod(dir, 0711);
    }
    static int fds[OPENERS];
    int opened = 0;
    for (int i = 0; i < OPENERS; i++)
        opened += (fds[i] = open("/dev/nvidiactl", O_RDWR | O_CLOEXEC)) >= 0;
    struct lat quiet = measure(root_status, NULL, 10);
    print_lat("status-hoard", "status quiet", quiet);
    struct attack a = attack_start(attacker_hoard_setup, attacker_idle, 1);
    struct lat busy = measure(root_status, NULL, 10);
    int ended = attack_end(&a);
    print_lat("status-hoard", "status while 20 connections of uid 65534 never read theirs", busy);
    printf("hostile status-hoard: %d openers\n", opened);
    for (int i = 0; i < OPENERS; i++)
        if (fds[i] >= 0)
            close(fds[i]);
    /* the median, not the slowest of ten: under ASan on two busy cores one call can wait seconds for the CPU */
    return opened == OPENERS && a.pid > 0 && ended == 0 && quiet.fails == 0 && busy.fails == 0 && busy.p50 < 2.0
               ? 0 : 1;
}

/*
 * uid 65534 parks calls in the daemon: a userfaultfd page nobody answers holds every copy of it. The uffd is
 * made before dropping root (an unprivileged one would only see its own faults), then 64 threads loop
 * calls reaching into it until the process is killed.
 */
static void *parked_page;
static int parked_ctl = -1;
static uint32_t parked_client;

static void *parker(void *arg)
{
    long i = (long)arg;
    for (;;) {
        if (i % 8 == 0) {
            /* _IOC_NONE with 32 bytes: the kernel copies nothing, the daemon reads the block itself */
            ioctl(parked_ctl, (0u << 30) | (32u << 16) | ('F' << 8) | 0x2Bu, parked_page);
        } else {
            uint32_t h = H_DEVICE + (uint32_t)i;
            alloc(parked_ctl, parked_client, parked_client, &h, 0x80, parked_page, 56);
        }
    }
    return NULL;
}

static pid_t spawn_parker(void)
{
    int ready[2];
    if (pipe(ready) != 0)
        return -1;
    pid_t pid = fork();
    if (pid != 0) {
        close(ready[1]);
        char c;
        int ok = pid > 0 && read(ready[0], &c, 1) == 1;
        close(ready[0]);
        if (!ok && pid > 0) {
            int st = 0;
            kill_pid(pid, SIGKILL);
            waitpid(pid, &st, 0);
            printf("hostile: the attacking process did not start (status 0x%x)\n", st);
        }
        return ok ? pid : -1;
    }
    long psz = sysconf(_SC_PAGESIZE);
    int uffd = (int)syscall(SYS_userfaultfd, O_CLOEXEC);
    struct uffdio_api api = {.api = UFFD_API};
    parked_page = mmap(NULL, (size_t)psz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    struct uffdio_register reg = {.range = {(uint64_t)(uintptr_t)parked_page, (uint64_t)psz},
                                  .mode = UFFDIO_REGISTER_MODE_MISSING};
    if (uffd < 0 || ioctl(uffd, UFFDIO_API, &api) != 0 || parked_page == MAP_FAILED ||
        ioctl(uffd, UFFDIO_REGISTER, &reg) != 0 || setgid(65534) != 0 || setuid(65534) != 0)
        _exit(3);
    parked_ctl = open("/dev/nvidiactl", O_RDWR | O_CLOEXEC);
    uint32_t root_param = 0;
    if (parked_ctl < 0 || alloc(parked_ctl, 0, 0, &parked_client, 0x41, &root_param, 4) != 0)
        _exit(4);
    pthread_t t;
    for (long i = 0; i < 64; i++)
        if (pthread_create(&t, NULL, parker, (void *)i) == 0)
            pthread_detach(t);
    if (write(ready[1], "r", 1) != 1)
        _exit(5);
    sleep(20); /* killed long before */
    _exit(0);
}

static int stuck_threads(void)
{
    alarm(60); /* a daemon whose threads are all parked would block root's calls for good: fail, not hang */
    long dpid = daemon_pid();
    int probe = (int)syscall(SYS_userfaultfd, O_CLOEXEC);
    if (probe < 0) {
        printf("SKIP: no userfaultfd here (%s)\n", strerror(errno));
        return 77;
    }
    close(probe);
    int ctl = open("/dev/nvidiactl", O_RDWR | O_CLOEXEC);
    uint32_t client = 0, root_param = 0;
    if (dpid <= 0 || ctl < 0 || alloc(ctl, 0, 0, &client, 0x41, &root_param, 4) != 0) {
        printf("hostile stuck-threads: cannot set up root's client\n");
        return 1;
    }
    uint32_t cc[2] = {(uint32_t)ctl, client};
    struct lat quiet = measure(root_control, cc, 300);
    print_lat("stuck-threads", "controls quiet", quiet);
    pid_t a = spawn_parker();
    struct lat busy = measure(root_control, cc, 300);
    usleep(1500000); /* past the copy deadline: the attacker's share is used up */
    struct lat later = measure(root_control, cc, 300);
    print_lat("stuck-threads", "controls while 64 threads of uid 65534 park calls (from its start)", busy);
    print_lat("stuck-threads", "controls while they park calls (after 1.5 s)", later);
    kill_pid(a, SIGKILL);
    int killed = reap(a, 10);
    struct lat after = measure(root_control, cc, 300);
    print_lat("stuck-threads", "controls after the attacker was killed", after);
    /* stuck again, then the daemon is told to stop */
    pid_t b = spawn_parker();
    usleep(500000);
    kill_pid(dpid, SIGTERM);
    double t0 = now();
    while (!ended(dpid) && now() - t0 < 10)
        usleep(20000);
    bool stopped = ended(dpid);
    printf("hostile stuck-threads: SIGTERM while calls are parked: daemon %s after %.3f s\n",
           stopped ? "stopped" : "still running", now() - t0);
    kill_pid(b, SIGKILL);
    reap(b, 10);
    close(ctl);
    bool ok = a > 0 && b > 0 && killed == 0 && stopped && quiet.fails == 0 && busy.fails == 0 && later.fails == 0 &&
              after.fails == 0 && busy.p99 < 0.5 && later.p99 < 0.5 && after.p99 < 0.5;
    if (!ok)
        printf("hostile stuck-threads: attackers %s/%s, the first %s when killed\n", a > 0 ? "started" : "FAILED",
               b > 0 ? "started" : "FAILED", killed == 0 ? "ended" : "did NOT end");
    return ok ? 0 : 1;
}

/*
 * A participant that registers and never waits would hold virtual time for everyone: the daemon lets only
 * its own uid (--workload-uid) take part.
 */
static int wl_foreign(void)
{
    int p[2], q[2];
    if (pipe(p) != 0 || pipe(q) != 0)
        return 1;
    pid_t child = fork();
    if (child == 0) {
        uint32_t st = 0xDEADu;
        if (setgid(65534) == 0 && setuid(65534) == 0) {
            int ctl = open("/dev/nvidiactl", O_RDWR | O_CLOEXEC);
            struct wl_register r;
            memset(&r, 0, sizeof(r));
            snprintf(r.name, sizeof(r.name), "squatter");
            r.status = 0xFFFFFFFFu;
            if (ctl >= 0 && ioctl(ctl, WL_REGISTER, &r) == 0)
                st = r.status;
        }
        if (write(p[1], &st, sizeof(st)) != sizeof(st))
            _exit(1);
        /* lives, registered or not, until root is done (at most 5 s) */
        struct pollfd pf = {.fd = q[0], .events = POLLIN};
        _exit(poll(&pf, 1, 5000) == 1 ? 0 : 1);
    }
    uint32_t theirs = 0xDEADu;
    if (read(p[0], &theirs, sizeof(theirs)) != sizeof(theirs))
        theirs = 0xDEADu;
    int ctl = open("/dev/nvidiactl", O_RDWR | O_CLOEXEC);
    struct wl_register r;
    memset(&r, 0, sizeof(r));
    snprintf(r.name, sizeof(r.name), "root");
    uint64_t now_ns = 0;
    int ok = ctl >= 0 && ioctl(ctl, WL_REGISTER, &r) == 0 && r.status == 0 && ioctl(ctl, WL_NOW, &now_ns) == 0;
    struct wl_sleep sl = {now_ns + 1000000ull, 0xFFFFFFFFu, 0};
    double t0 = now();
    ok = ok && ioctl(ctl, WL_SLEEP, &sl) == 0 && sl.status == 0;
    double waited = now() - t0;
    if (write(q[1], "x", 1) != 1 || reap(child, 10) != 0)
        ok = 0;
    printf("hostile wl-foreign: uid 65534 WL_REGISTER -> 0x%x; root's 1 ms WL_SLEEP %s after %.3f s\n", theirs,
           ok ? "ended" : "FAILED", waited);
    if (ctl >= 0)
        close(ctl);
    return theirs == NV_ERR_INSUFFICIENT_PERMISSIONS && ok && waited < 2.0 ? 0 : 1;
}

/* UVM_REGISTER_GPU_VASPACE through the daemon: hClient is found through the RM fd it names, never machine-wide. */
#define UVM_INITIALIZE 0x30000001u
#define UVM_REGISTER_GPU_VASPACE 25u
#define NV_ERR_INVALID_CLIENT 0x23u
#define NV_ERR_INVALID_STATE 0x40u
#define H_EXT_VA 0xD0000010u
#define H_CTX 0xD0000012u
struct uvm_init { uint64_t flags; uint32_t rmStatus, pad; };
struct uvm_vaspace { uint8_t uuid[16]; int32_t rmCtrlFd; uint32_t hClient, hVaSpace, rmStatus; };
struct va_alloc { uint32_t index, flags; uint64_t vaSize, vaStart, vaLimit; uint32_t bigPage, pad; uint64_t vaBase;
                  uint32_t pasid, pad2; };
struct ctxshare { uint32_t hVASpace, flags, subctxId; };
_Static_assert(sizeof(struct uvm_vaspace) == 32 && sizeof(struct va_alloc) == 56, "uvm");

static uint32_t uvm_register_vaspace(int ctl, uint32_t client)
{
    int uvm = open("/dev/nvidia-uvm", O_RDWR | O_CLOEXEC);
    struct uvm_init init = {0, 0xFFFFFFFFu, 0};
    struct uvm_vaspace r = {{0}, ctl, client, H_EXT_VA, 0xFFFFFFFFu};
    if (uvm < 0 || ioctl(uvm, UVM_INITIALIZE, &init) != 0 || ioctl(uvm, UVM_REGISTER_GPU_VASPACE, &r) != 0)
        r.rmStatus = 0xDEADu;
    if (uvm >= 0)
        close(uvm);
    return r.rmStatus;
}

static int uvm_vaspace(void)
{
    int ctl = open("/dev/nvidiactl", O_RDWR | O_CLOEXEC), gpu = open("/dev/nvidia0", O_RDWR | O_CLOEXEC);
    uint32_t client = ctl >= 0 && gpu >= 0 ? build(ctl) : 0;
    struct va_alloc va;
    memset(&va, 0, sizeof(va));
    va.flags = 0x48; /* externally owned, as libcuda allocates it */
    uint32_t h = H_EXT_VA;
    if (!client || alloc(ctl, client, H_DEVICE, &h, 0x90F1u, &va, sizeof(va)) != 0) {
        printf("hostile uvm-vaspace: cannot set up root's VA space\n");
        return 1;
    }
    int p[2];
    if (pipe(p) != 0)
        return 1;
    pid_t child = fork();
    if (child == 0) {
        uint32_t st = 0xDEADu;
        if (setgid(65534) == 0 && setuid(65534) == 0) {
            int their_ctl = open("/dev/nvidiactl", O_RDWR | O_CLOEXEC);
            st = uvm_register_vaspace(their_ctl, client);
        }
        _exit(write(p[1], &st, sizeof(st)) == sizeof(st) ? 0 : 1);
    }
    uint32_t theirs = 0xDEADu;
    if (read(p[0], &theirs, sizeof(theirs)) != sizeof(theirs) || reap(child, 10) != 0)
        theirs = 0xDEADu;
    struct ctxshare cs = {H_EXT_VA, 1, 0};
    h = H_CTX;
    uint32_t share_before = alloc(ctl, client, H_TSG, &h, 0x9067u, &cs, sizeof(cs));
    uint32_t mine = uvm_register_vaspace(ctl, client);
    h = H_CTX;
    uint32_t share_after = alloc(ctl, client, H_TSG, &h, 0x9067u, &cs, sizeof(cs));
    printf("hostile uvm-vaspace: uid 65534 registers root's VA space -> 0x%x; root's context share then 0x%x; "
           "root registers it -> 0x%x; context share then 0x%x\n", theirs, share_before, mine, share_after);
    close(gpu);
    close(ctl);
    return theirs == NV_ERR_INVALID_CLIENT && share_before == NV_ERR_INVALID_STATE && mine == 0 && share_after == 0
               ? 0 : 1;
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    const char *mode = argc > 1 ? argv[1] : "";
    if (strcmp(mode, "regfd-race") == 0)
        return regfd_race(argc > 2 ? atof(argv[2]) : race_seconds());
    if (strcmp(mode, "regfd-flood") == 0)
        return regfd_flood();
    if (strcmp(mode, "userns") == 0)
        return userns();
    if (strcmp(mode, "status-idle") == 0)
        return status_idle();
    if (strcmp(mode, "heap-trim") == 0)
        return heap_trim();
    if (strcmp(mode, "stuck-read") == 0)
        return stuck_read();
    if (strcmp(mode, "sleepers") == 0)
        return sleepers();
    if (strcmp(mode, "uvm-vaspace") == 0)
        return uvm_vaspace();
    if (strcmp(mode, "wl-foreign") == 0)
        return wl_foreign();
    if (strcmp(mode, "regfd-fair") == 0)
        return regfd_fair();
    if (strcmp(mode, "rm-quota") == 0)
        return rm_quota(argc > 2 ? atoi(argv[2]) : 20000);
    if (strcmp(mode, "status-hoard") == 0)
        return status_hoard();
    if (strcmp(mode, "stuck-threads") == 0)
        return stuck_threads();
    if (strcmp(mode, "ro-params") == 0)
        return ro_params();
    fprintf(stderr, "usage: hostile regfd-race [SECONDS] | regfd-flood | userns | status-idle | heap-trim | stuck-read | sleepers | ro-params | uvm-vaspace | wl-foreign | regfd-fair | rm-quota [N] | status-hoard | stuck-threads\n");
    return 2;
}
