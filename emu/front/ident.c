#include "front/ident.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Whether thread tid is in the same user namespace as this process (ns inode and device compared). */
static bool same_user_ns(pid_t tid)
{
    char path[64];
    struct stat mine, theirs;
    snprintf(path, sizeof(path), "/proc/%d/ns/user", (int)tid);
    return stat("/proc/self/ns/user", &mine) == 0 && stat(path, &theirs) == 0 && mine.st_ino == theirs.st_ino &&
           mine.st_dev == theirs.st_dev;
}

int ident_read(pid_t tid, nvemu_identity *id, pid_t *tgid)
{
    char path[64];
    snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
    FILE *fp = fopen(path, "re");
    if (!fp)
        return -ESRCH;
    memset(id, 0, sizeof(*id));
    id->tid = tid;
    unsigned seen = 0;
    char line[256];
    while (fgets(line, sizeof(line), fp)) {
        unsigned ruid, euid, rgid, egid;
        int pid;
        uint64_t caps;
        if (strncmp(line, "Name:\t", 6) == 0) {
            size_t n = strcspn(line + 6, "\n");
            if (n >= sizeof(id->comm))
                n = sizeof(id->comm) - 1;
            memcpy(id->comm, line + 6, n);
            seen |= 1;
        } else if (sscanf(line, "Tgid: %d", &pid) == 1) {
            id->pid = pid;
            seen |= 2;
        } else if (sscanf(line, "Uid: %u %u", &ruid, &euid) == 2) {
            id->uid = euid;
            seen |= 4;
        } else if (sscanf(line, "Gid: %u %u", &rgid, &egid) == 2) {
            id->gid = egid;
            seen |= 16;
        } else if (sscanf(line, "CapEff: %" SCNx64, &caps) == 1) {
            id->caps = caps;
            seen |= 8;
        }
    }
    fclose(fp);
    if (seen != 31)
        return -ESRCH;
    if (id->caps && !same_user_ns(tid))
        id->caps = 0;
    *tgid = id->pid;
    return 0;
}
