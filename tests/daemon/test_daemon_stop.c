/*
 * `nvemu daemon` on its own (argv[1] = the nvemu binary): starts it on a
 * temporary mount, opens a client, stops the daemon with SIGTERM while the
 * fd is still open. The daemon must exit 0, its socket must be gone, and the
 * open fd must fail with ENOTCONN/EIO — not hang.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "rmraw.h"

static void sleep_ms(int ms)
{
    nanosleep(&(struct timespec){.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L}, NULL);
}

static int wait_exit(pid_t pid, int ms, int *status)
{
    for (int t = 0; t < ms; t += 10, sleep_ms(10))
        if (waitpid(pid, status, WNOHANG) == pid)
            return 0;
    return -1;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: test_daemon_stop NVEMU\n");
        return 2;
    }
    char top[] = "/tmp/nvemu-stop-XXXXXX";
    if (!mkdtemp(top))
        return 1;
    char mnt[64], sock[64], node[80], gpu_node[80];
    snprintf(mnt, sizeof(mnt), "%s/m", top);
    snprintf(sock, sizeof(sock), "%s/s", top);
    snprintf(node, sizeof(node), "%s/nvidiactl", mnt);
    snprintf(gpu_node, sizeof(gpu_node), "%s/nvidia0", mnt);
    pid_t d = fork();
    if (d == 0) {
        int null = open("/dev/null", O_WRONLY);
        dup2(null, 1);
        execl(argv[1], argv[1], "daemon", "--foreground", "--mount", mnt, "--socket", sock, (char *)NULL);
        _exit(127);
    }
    int fd = -1;
    for (int t = 0; t < 10000 && fd < 0; t += 20) {
        struct stat st;
        if (stat(node, &st) == 0)
            fd = open(node, O_RDWR);
        else
            sleep_ms(20);
    }
    int bad = 0;
    uint32_t client = 0;
    int gpu = fd >= 0 ? open(gpu_node, O_RDWR) : -1;
    if (fd < 0 || gpu < 0 || raw_client_device(fd, &client, 0xD0000001u) != 0) {
        fprintf(stderr, "daemon did not serve a client\n");
        bad = 1;
    }
    kill(d, SIGTERM);
    int status = -1;
    if (wait_exit(d, 10000, &status) != 0) {
        fprintf(stderr, "daemon did not stop within 10 s of SIGTERM\n");
        kill(d, SIGKILL);
        waitpid(d, &status, 0);
        bad = 1;
    } else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "daemon exit status 0x%x\n", status);
        bad = 1;
    }
    if (access(sock, F_OK) == 0) {
        fprintf(stderr, "control socket left behind\n");
        bad = 1;
    }
    if (fd >= 0) {
        uint64_t ts;
        uint32_t st = raw_timeslice(fd, client, 0xD0000001u, RAW_CTRL_GET_TIMESLICE, &ts);
        if (st != (0x80000000u | ENOTCONN) && st != (0x80000000u | EIO)) {
            fprintf(stderr, "call after stop answered %#x, want ENOTCONN/EIO\n", st);
            bad = 1;
        }
        close(fd);
    }
    if (gpu >= 0)
        close(gpu);
    rmdir(mnt);
    rmdir(top);
    if (bad) {
        fprintf(stderr, "test_daemon_stop: FAIL\n");
        return 1;
    }
    printf("test_daemon_stop: OK\n");
    return 0;
}
