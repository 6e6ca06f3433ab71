#include "run_proc.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "abi/nv_escape.h"
#include "core/engine.h"
#include "base/log.h"
#include "base/paths.h"
#include "abi/nv_workload.h"
#include "fifo/fifo_rec.h"
#include "front/front.h"
#include "results.h"
#include "nvemu/scenario_task.h"

extern char **environ;

/* Wall-clock limits: a child that neither reports ready nor stops in this long is broken. */
#define READY_TIMEOUT_MS 30000
#define EXIT_TIMEOUT_NS 30000000000ull

/* Poll period of the watcher (wall clock): how soon a dead process stops holding virtual time. */
#define WATCH_PERIOD_US 2000

struct child {
    pid_t pid;
    uint32_t task, replica, inst;
    bool reaped;
    bool died;                    /* ended without the protocol's clean exit: reported killed */
    int status;
    uint64_t *open;               /* request numbers it reported arrived and not yet done/failed/open */
    uint32_t nopen, capopen;
};

struct run_proc {
    const struct scenario *sc;
    nvemu *emu;
    struct sim *sim;
    int sub;                      /* trace subscription following the children's request marks, -1 none */
    pthread_t watcher;
    bool watching;
    atomic_bool stop_watch;
    nvemu_fdtable *fdt;
    int ctl;                      /* the runner's nvidiactl in fdt, -1 none */
    bool registered;
    front_server *srv;
    char dir[64], mount[80];
    uint64_t end_ns;
    struct child *kids;
    uint32_t nkids;
};

bool run_proc_needed(const struct scenario *sc)
{
    for (uint32_t i = 0; i < sc->task_count; i++)
        if (sc->tasks[i].process)
            return true;
    return false;
}

int run_proc_check(const struct scenario *sc, char *err, size_t errlen)
{
    if (sc->scheduler.kind == SC_SCHED_PROCESS) {
        snprintf(err, errlen, "scheduler of kind 'process' is not supported in this build (use kind: gpreempt "
                 "with synthetic tasks)");
        return -1;
    }
    if (!run_proc_needed(sc))
        return 0;
    if (sc->scheduler.kind == SC_SCHED_GPREEMPT) {
        snprintf(err, errlen, "the in-process scheduler (kind gpreempt) drives synthetic tasks only; this scenario "
                 "has process tasks");
        return -1;
    }
    if (sc->fault_count) {
        snprintf(err, errlen, "faults are not supported together with process tasks in this build");
        return -1;
    }
    return 0;
}

static int runner_escape(struct run_proc *p, unsigned long request, void *arg, char *err, size_t errlen)
{
    if (nvemu_fdtable_ioctl(p->fdt, p->ctl, request, arg) == 0)
        return 0;
    snprintf(err, errlen, "workload escape 0x%x of the runner failed: %s", (unsigned)_IOC_NR(request),
             strerror(errno));
    return -1;
}

#define ESC(nr, type) _IOWR(NV_IOCTL_MAGIC, nr, type)

/*
 * binary as given when it has a slash, else the first executable of that name in $PATH, else the
 * one next to the nvemu executable (nvemu-ext-task is installed beside nvemu).
 */
static int find_binary(const char *name, char *out, size_t len)
{
    if (strchr(name, '/')) {
        snprintf(out, len, "%s", name);
        return access(out, X_OK);
    }
    const char *path = getenv("PATH");
    for (const char *d = path ? path : "/usr/bin:/bin"; *d;) {
        size_t n = strcspn(d, ":");
        int w = snprintf(out, len, "%.*s/%s", (int)n, n ? d : ".", name);
        if (w > 0 && (size_t)w < len && access(out, X_OK) == 0)
            return 0;
        d += n + (d[n] == ':');
    }
    int w = snprintf(out, len, "%s/%s", nvemu_exe_dir(), name);
    return w > 0 && (size_t)w < len && access(out, X_OK) == 0 ? 0 : -1;
}

static const char *const protocol_vars[] = {SC_ENV_MOUNT "=", SC_ENV_INSTANCE "=", SC_ENV_END_NS "=",
                                            SC_ENV_READY_FD "=", SC_ENV_COMM "="};
#define NPROTO (sizeof(protocol_vars) / sizeof(protocol_vars[0]))

/* The child's environment: ours without the protocol variables, then them with this child's values. */
static char **child_env(struct run_proc *p, const struct sc_task *t, uint32_t inst, int ready_fd, char *vals,
                        size_t vlen)
{
    size_t n = 0;
    while (environ[n])
        n++;
    char **env = calloc(n + NPROTO + 1, sizeof(*env));
    if (!env)
        return NULL;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        bool ours = false;
        for (size_t v = 0; v < NPROTO; v++)
            ours |= strncmp(environ[i], protocol_vars[v], strlen(protocol_vars[v])) == 0;
        if (!ours)
            env[k++] = environ[i];
    }
    int w = snprintf(vals, vlen, SC_ENV_MOUNT "=%s%c" SC_ENV_INSTANCE "=%u%c" SC_ENV_END_NS "=%llu%c"
                     SC_ENV_READY_FD "=%d%c" SC_ENV_COMM "=%s", p->mount, 0, inst, 0,
                     (unsigned long long)p->end_ns, 0, ready_fd, 0, t->comm);
    if (w < 0 || (size_t)w >= vlen) {
        free(env);
        return NULL;
    }
    for (char *s = vals; s < vals + w + 1; s += strlen(s) + 1)
        env[k++] = s;
    env[k] = NULL;
    return env;
}

static void describe_status(int status, char *buf, size_t len)
{
    if (WIFEXITED(status))
        snprintf(buf, len, "exited with status %d", WEXITSTATUS(status));
    else if (WIFSIGNALED(status))
        snprintf(buf, len, "was killed by signal %d", WTERMSIG(status));
    else
        snprintf(buf, len, "ended (wait status 0x%x)", status);
}

/* Starts replica `replica` of task `ti` and waits until it reports ready. */
static int spawn(struct run_proc *p, uint32_t ti, uint32_t replica, char *err, size_t errlen)
{
    const struct sc_task *t = &p->sc->tasks[ti];
    uint32_t inst = sc_instance_id(p->sc, ti, replica);
    char path[512];
    if (find_binary(t->process, path, sizeof(path))) {
        snprintf(err, errlen, "task '%s': process binary '%s' not found or not executable%s", t->name, t->process,
                 strchr(t->process, '/') ? "" : " in $PATH or beside nvemu");
        return -1;
    }
    int fds[2];
    if (pipe2(fds, O_CLOEXEC)) {
        snprintf(err, errlen, "pipe: %s", strerror(errno));
        return -1;
    }
    char vals[1024];
    char **env = child_env(p, t, inst, fds[1], vals, sizeof(vals));
    if (!env)
        errno = ENOMEM;
    char *argv[SC_MAX_ARGS + 2];
    argv[0] = path;
    for (int i = 0; i < t->process_nargs; i++)
        argv[i + 1] = t->process_args[i];
    argv[t->process_nargs + 1] = NULL;
    pid_t pid = env ? fork() : -1;
    if (pid == 0) {
        /* Only async-signal-safe calls between fork and exec: the FUSE threads live on in the parent. */
        fcntl(fds[1], F_SETFD, 0);
        execve(path, argv, env);
        _exit(127);
    }
    int fork_errno = errno;
    free(env);
    close(fds[1]);
    if (pid < 0) {
        close(fds[0]);
        snprintf(err, errlen, "task '%s': cannot start '%s': %s", t->name, path, strerror(fork_errno));
        return -1;
    }
    /* Processes started before follow their marks already (under the lock). */
    pthread_mutex_lock(nvemu_lock_of(p->emu));
    struct child *c = &p->kids[p->nkids++];
    *c = (struct child){.pid = pid, .task = ti, .replica = replica, .inst = inst};
    pthread_mutex_unlock(nvemu_lock_of(p->emu));
    struct pollfd pf = {.fd = fds[0], .events = POLLIN};
    int pr;
    do
        pr = poll(&pf, 1, READY_TIMEOUT_MS);
    while (pr < 0 && errno == EINTR);
    char byte;
    ssize_t got = pr > 0 ? read(fds[0], &byte, 1) : -1;
    close(fds[0]);
    if (got == 1) {
        LOG_INFO("scenario", "%s#%u: process %d ready (instance %u)", t->name, replica, (int)pid, inst);
        return 0;
    }
    if (pr == 0) {
        snprintf(err, errlen, "task '%s' replica %u: process '%s' did not report ready within %d s (it must "
                 "follow the participant protocol of scenarios/README.md)", t->name, replica, path,
                 READY_TIMEOUT_MS / 1000);
        return -1;
    }
    char how[64];
    if (waitpid(pid, &c->status, 0) == pid) {
        c->reaped = true;
        describe_status(c->status, how, sizeof(how));
    } else {
        snprintf(how, sizeof(how), "closed its ready pipe");
    }
    snprintf(err, errlen, "task '%s' replica %u: process '%s' %s before it was ready", t->name, replica, path, how);
    return -1;
}

static struct child *child_of_inst(struct run_proc *p, uint64_t inst)
{
    for (uint32_t i = 0; i < p->nkids; i++)
        if (p->kids[i].inst == inst)
            return &p->kids[i];
    return NULL;
}

static void open_add(struct child *c, uint64_t num)
{
    if (c->nopen == c->capopen) {
        uint32_t cap = c->capopen ? c->capopen * 2 : 16;
        uint64_t *o = realloc(c->open, cap * sizeof(*o));
        if (!o) {
            LOG_ERROR("scenario", "out of memory following request %llu of instance %u", (unsigned long long)num,
                      c->inst);
            return;
        }
        c->open = o;
        c->capopen = cap;
    }
    c->open[c->nopen++] = num;
}

static void open_remove(struct child *c, uint64_t num)
{
    for (uint32_t i = 0; i < c->nopen; i++) {
        if (c->open[i] == num) {
            c->open[i] = c->open[--c->nopen];
            return;
        }
    }
}

/* Trace subscriber (called under the emulator lock): which requests of each process are unfinished. */
static void follow_marks(void *ctx, const struct sim_rec *r)
{
    struct run_proc *p = ctx;
    if (r->kind != SIM_REC_MARK || !r->name)
        return;
    bool arrive = strcmp(r->name, SC_MARK_ARRIVE) == 0;
    if (!arrive && strcmp(r->name, SC_MARK_DONE) && strcmp(r->name, SC_MARK_FAIL) && strcmp(r->name, SC_MARK_OPEN))
        return;
    struct child *c = child_of_inst(p, r->a);
    if (!c)
        return;
    if (arrive)
        open_add(c, r->b);
    else
        open_remove(c, r->b);
}

static void trace_mark(struct run_proc *p, const char *name, uint64_t a, uint64_t b)
{
    struct sim_rec r = {.kind = SIM_REC_MARK, .engine = SIM_NONE, .runlist = SIM_NONE, .tsg = SIM_NONE,
                        .chid = SIM_NONE, .a = a, .b = b, .name = name};
    sim_trace(p->sim, &r);
}

/*
 * A process ended without the protocol's clean exit: like a killed client,
 * it is recorded killed and its unfinished requests are reported failed;
 * it stops being a participant so virtual time goes on for the others.
 */
static void on_death(struct run_proc *p, struct child *c)
{
    char how[64];
    describe_status(c->status, how, sizeof(how));
    c->died = true;
    pthread_mutex_lock(nvemu_lock_of(p->emu));
    LOG_WARN("scenario", "%s#%u: process %d %s at %.6f s virtual; its %u unfinished requests are reported failed",
             p->sc->tasks[c->task].name, c->replica, (int)c->pid, how, (double)sim_now(p->sim) / 1e9, c->nopen);
    trace_mark(p, SC_MARK_KILLED, c->inst, 0);
    while (c->nopen)
        trace_mark(p, SC_MARK_FAIL, c->inst, c->open[c->nopen - 1]);
    nvemu_forget_thread(p->emu, c->pid);
    pthread_mutex_unlock(nvemu_lock_of(p->emu));
}

/* Reaps children that ended; returns how many are still running. */
static uint32_t reap(struct run_proc *p)
{
    uint32_t left = 0;
    for (uint32_t i = 0; i < p->nkids; i++) {
        struct child *c = &p->kids[i];
        if (!c->reaped && waitpid(c->pid, &c->status, WNOHANG) == c->pid) {
            c->reaped = true;
            if (!WIFEXITED(c->status) || WEXITSTATUS(c->status) != 0)
                on_death(p, c);
        }
        left += !c->reaped;
    }
    return left;
}

/*
 * A participant that was blocked when its process died only becomes
 * forgettable once its wait returns, so the dead are forgotten on every round.
 */
static void forget_dead(struct run_proc *p)
{
    for (uint32_t i = 0; i < p->nkids; i++) {
        if (p->kids[i].died) {
            pthread_mutex_lock(nvemu_lock_of(p->emu));
            nvemu_forget_thread(p->emu, p->kids[i].pid);
            pthread_mutex_unlock(nvemu_lock_of(p->emu));
        }
    }
}

/* While the runner sleeps in virtual time: notices processes that die. */
static void *watch(void *arg)
{
    struct run_proc *p = arg;
    while (!atomic_load(&p->stop_watch)) {
        reap(p);
        forget_dead(p);
        usleep(WATCH_PERIOD_US);
    }
    return NULL;
}

static int register_runner(struct run_proc *p, char *err, size_t errlen)
{
    nvemu_identity who;
    nvemu_identity_self(&who);
    p->ctl = nvemu_fdtable_open(p->fdt, "/dev/nvidiactl", &who);
    if (p->ctl < 0) {
        snprintf(err, errlen, "runner: cannot open nvidiactl: %s", strerror(errno));
        return -1;
    }
    struct nvemu_wl_register reg = {.name = "scenario-runner"};
    if (runner_escape(p, ESC(NVEMU_ESC_WL_REGISTER, struct nvemu_wl_register), &reg, err, errlen))
        return -1;
    if (reg.status != NV_OK) {
        snprintf(err, errlen, "runner: REGISTER answered %s", nv_status_name(reg.status));
        return -1;
    }
    p->registered = true;
    return 0;
}

int run_proc_start(struct run_proc **out, const struct scenario *sc, nvemu *emu, nvemu_fdtable *fdt,
                   uint64_t end_ns, char *err, size_t errlen)
{
    *out = NULL;
    struct run_proc *p = calloc(1, sizeof(*p));
    uint32_t n = 0;
    for (uint32_t i = 0; i < sc->task_count; i++)
        n += sc->tasks[i].process ? sc->tasks[i].count : 0;
    if (!p || !(p->kids = calloc(n, sizeof(*p->kids)))) {
        free(p);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    p->sc = sc;
    p->emu = emu;
    p->sim = nvemu_sim(emu);
    p->fdt = fdt;
    p->ctl = -1;
    /* Only this thread touches the emulator until the nodes are served. */
    p->sub = sim_trace_subscribe(p->sim, follow_marks, p);
    p->end_ns = end_ns;
    const char *tmp = getenv("TMPDIR");
    snprintf(p->dir, sizeof(p->dir), "%.40s/nvemu-sc-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(p->dir)) {
        snprintf(err, errlen, "cannot create a directory for the nodes (%s): %s", p->dir, strerror(errno));
        p->dir[0] = '\0';
        goto fail;
    }
    snprintf(p->mount, sizeof(p->mount), "%s/nodes", p->dir);
    if (mkdir(p->mount, 0755)) {
        snprintf(err, errlen, "mkdir %s: %s", p->mount, strerror(errno));
        goto fail;
    }
    char why[256] = "";
    p->srv = front_server_start(emu, p->mount, why, sizeof(why));
    if (!p->srv) {
        snprintf(err, errlen, "process tasks need the emulator served through FUSE (root and /dev/fuse): %s",
                 why[0] ? why : "cannot mount");
        goto fail;
    }
    if (register_runner(p, err, errlen))
        goto fail;
    for (uint32_t ti = 0; ti < sc->task_count; ti++)
        for (uint32_t r = 0; sc->tasks[ti].process && r < sc->tasks[ti].count; r++)
            if (spawn(p, ti, r, err, errlen))
                goto fail;
    *out = p;
    return 0;
fail:
    run_proc_stop(p);
    return -1;
}

static uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int run_proc_run(struct run_proc *p, void (*at_end)(void *ctx), void *ctx, char *err, size_t errlen)
{
    if (pthread_create(&p->watcher, NULL, watch, p) == 0)
        p->watching = true;
    else
        LOG_WARN("scenario", "no watcher thread: a task process that dies would stop virtual time");
    struct nvemu_wl_sleep sl = {.until_ns = p->end_ns};
    int rc = runner_escape(p, ESC(NVEMU_ESC_WL_SLEEP, struct nvemu_wl_sleep), &sl, err, errlen);
    if (rc == 0) {
        pthread_mutex_lock(nvemu_lock_of(p->emu));
        at_end(ctx);
        pthread_mutex_unlock(nvemu_lock_of(p->emu));
    }
    struct nvemu_wl_status un = {0};
    if (rc == 0 && (rc = runner_escape(p, ESC(NVEMU_ESC_WL_UNREGISTER, struct nvemu_wl_status), &un, err,
                                       errlen)) == 0)
        p->registered = false;
    if (p->watching) {
        atomic_store(&p->stop_watch, true);
        pthread_join(p->watcher, NULL);
        p->watching = false;
    }
    if (rc)
        return -1;
    uint64_t deadline = mono_ns() + EXIT_TIMEOUT_NS;
    uint32_t left;
    while ((left = reap(p)) && mono_ns() < deadline) {
        forget_dead(p);
        usleep(WATCH_PERIOD_US);
    }
    if (left) {
        snprintf(err, errlen, "%u task process(es) did not stop within %llu s after the end of the run", left,
                 (unsigned long long)(EXIT_TIMEOUT_NS / 1000000000ull));
        return -1;
    }
    for (uint32_t i = 0; i < p->nkids; i++) {
        struct child *c = &p->kids[i];
        if (c->died) {
            char how[64];
            describe_status(c->status, how, sizeof(how));
            snprintf(err, errlen, "task '%s' replica %u: process %d %s (reported killed, its unfinished requests "
                     "failed)", p->sc->tasks[c->task].name, c->replica, (int)c->pid, how);
            return -1;
        }
    }
    return 0;
}

void run_proc_stop(struct run_proc *p)
{
    if (!p)
        return;
    /* Children still running are killed; unmounting fails their calls in flight so they can die. */
    for (uint32_t i = 0; i < p->nkids; i++)
        if (!p->kids[i].reaped)
            kill(p->kids[i].pid, SIGKILL);
    if (p->registered) {
        struct nvemu_wl_status un = {0};
        nvemu_fdtable_ioctl(p->fdt, p->ctl, ESC(NVEMU_ESC_WL_UNREGISTER, struct nvemu_wl_status), &un);
    }
    if (p->srv)
        front_server_stop(p->srv);
    for (uint32_t i = 0; i < p->nkids; i++)
        if (!p->kids[i].reaped && waitpid(p->kids[i].pid, &p->kids[i].status, 0) == p->kids[i].pid)
            p->kids[i].reaped = true;
    if (p->ctl >= 0)
        nvemu_fdtable_close(p->fdt, p->ctl);
    if (p->sub >= 0)
        sim_trace_unsubscribe(p->sim, p->sub);
    for (uint32_t i = 0; i < p->nkids; i++)
        free(p->kids[i].open);
    if (p->dir[0]) {
        rmdir(p->mount);
        rmdir(p->dir);
    }
    free(p->kids);
    free(p);
}
