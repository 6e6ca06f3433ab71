/* A run in a child process, watched for crashes and hangs (cli.h: cli_guarded). */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "hooks/hooks.h"

/* Shared with the child: where its policy is, and whether it got to the end. */
struct guard_page {
    struct hooks_watch watch;
    volatile int finished;
};

#define POLL_NS 20000000L

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* " in policy P, hook H (task T) at virtual time V" when policy code was running, else "". */
static void where(const struct hooks_watch *w, char *buf, size_t len)
{
    if (!w->policy[0]) {
        buf[0] = '\0';
        return;
    }
    unsigned long long s = (unsigned long long)(w->now_ns / 1000000000u), us = (w->now_ns % 1000000000u) / 1000u;
    if (snprintf(buf, len, " in policy %.64s, hook %.32s%s%.16s%s at virtual time %llu.%06llu s", w->policy, w->hook,
                 w->task[0] ? " (task " : "", w->task, w->task[0] ? ")" : "", s, us) < 0)
        buf[0] = '\0';
}

int cli_guarded(int (*fn)(void *, struct hooks_watch *), void *arg, double timeout_s, double hook_limit_s, char *why,
                size_t len, uint64_t *stopped_ns)
{
    if (stopped_ns)
        *stopped_ns = 0;
    struct guard_page *g = mmap(NULL, sizeof *g, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (g == MAP_FAILED) {
        snprintf(why, len, "cannot map the watch page: %s", strerror(errno));
        return -1;
    }
    memset(g, 0, sizeof *g);
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(why, len, "fork: %s", strerror(errno));
        munmap(g, sizeof *g);
        return -1;
    }
    if (pid == 0) {
        int st = fn(arg, &g->watch);
        fflush(NULL);
        g->finished = 1;
        exit(st);
    }
    double start = now_s(), stuck_since = 0;
    uint64_t last_calls = 0;
    int st = 0, rc = -1;
    char at[256];
    for (;;) {
        pid_t w = waitpid(pid, &st, WNOHANG);
        if (w == pid)
            break;
        if (w < 0 && errno != EINTR) {
            snprintf(why, len, "waitpid: %s", strerror(errno));
            kill(pid, SIGKILL);
            waitpid(pid, NULL, 0);
            munmap(g, sizeof *g);
            return -1;
        }
        double t = now_s();
        bool in_policy = g->watch.policy[0] != '\0';
        if (!in_policy || g->watch.calls != last_calls) {
            stuck_since = t;
            last_calls = g->watch.calls;
        }
        bool timed_out = timeout_s > 0 && t - start >= timeout_s;
        bool hung = in_policy && hook_limit_s > 0 && t - stuck_since >= hook_limit_s;
        if (timed_out || hung) {
            kill(pid, SIGKILL);
            waitpid(pid, NULL, 0);
            where(&g->watch, at, sizeof at);
            if (stopped_ns)
                *stopped_ns = g->watch.now_ns;
            if (hung)
                snprintf(why, len, "the policy did not return within %g s%s", hook_limit_s, at);
            else
                snprintf(why, len, "no result after --timeout %g s%s", timeout_s,
                         at[0] ? at : " (not inside policy code)");
            munmap(g, sizeof *g);
            return -1;
        }
        nanosleep(&(struct timespec){.tv_nsec = POLL_NS}, NULL);
    }
    where(&g->watch, at, sizeof at);
    if (stopped_ns)
        *stopped_ns = g->watch.now_ns;
    if (g->finished && WIFEXITED(st)) {
        rc = WEXITSTATUS(st);
    } else if (WIFSIGNALED(st)) {
        snprintf(why, len, "crashed (%s)%s", strsignal(WTERMSIG(st)), at);
    } else {
        /* A sanitizer reports a crash and exits with a status of its own instead of dying by the signal. */
        snprintf(why, len, "ended before its results (exit status %d)%s", WEXITSTATUS(st), at);
    }
    munmap(g, sizeof *g);
    return rc;
}
