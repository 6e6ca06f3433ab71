/*
 * nvemu-hw-task JOB FD [SLOT]: the hardware backend's helper (hw_region.h), exec'd by nvemu with the shared
 * region's memfd as FD. JOB calibrate: calibrate GPU 0 into the struct calib at FD. JOB run: run the task
 * replica of slot SLOT of the region at FD. Its own `ioctl` (hw_rm.c) sees libcuda's RM calls; nvemu has none.
 * Exit status 0, 1 when the job failed (the reason is in the region), 2 for a bad invocation.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>

#include "hw_region.h"

static void *map_fd(int fd, size_t *size)
{
    struct stat st;
    if (fstat(fd, &st) != 0 || st.st_size <= 0)
        return MAP_FAILED;
    *size = (size_t)st.st_size;
    return mmap(NULL, *size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
}

static int parse(const char *s, long *out)
{
    char *end;
    *out = strtol(s, &end, 10);
    return *s && !*end && *out >= 0 ? 0 : -1;
}

int main(int argc, char **argv)
{
    long fd, slot = -1;
    if (argc < 3 || parse(argv[2], &fd) || (argc > 3 && parse(argv[3], &slot))) {
        fprintf(stderr, "usage: nvemu-hw-task calibrate FD | run FD SLOT (run by nvemu's hardware backend)\n");
        return 2;
    }
    size_t size;
    void *m = map_fd((int)fd, &size);
    if (m == MAP_FAILED) {
        fprintf(stderr, "nvemu-hw-task: fd %ld is no shared region\n", fd);
        return 2;
    }
    char e[256] = "";
    if (strcmp(argv[1], "calibrate") == 0 && size >= sizeof(struct calib)) {
        struct calib *c = m;
        c->ok = hw_calibrate(c, e, sizeof e) == 0;
        snprintf(c->err, sizeof c->err, "%s", e);
        return c->ok ? 0 : 1;
    }
    struct region *R = m;
    if (strcmp(argv[1], "run") != 0 || size < sizeof(*R) || slot < 0 || (unsigned long)slot >= R->nslots ||
        size < sizeof(*R) + R->nslots * sizeof(struct slot)) {
        fprintf(stderr, "nvemu-hw-task: bad job or slot\n");
        return 2;
    }
    struct slot *sl = &R->slots[slot];
    prctl(PR_SET_NAME, sl->comm);
    int r = hw_task_run(R, sl, e, sizeof e);
    if (r) {
        snprintf(sl->err, sizeof(sl->err), "%s", e);
        atomic_store(&sl->state, -1);
    } else {
        atomic_store(&sl->state, 2);
    }
    return r ? 1 : 0;
}
