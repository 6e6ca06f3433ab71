#include "front/newdev.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/log.h"

static bool is_node(const char *nodes_dir, const char *name)
{
    char p[PATH_MAX];
    snprintf(p, sizeof(p), "%s/%s", nodes_dir, name);
    return access(p, F_OK) == 0;
}

/* Creates the mount point at dst for src (a directory or a file) and binds src onto it. */
static int bind_entry(const char *src, const char *dst, bool dir)
{
    if (dir) {
        if (mkdir(dst, 0755) != 0)
            return -1;
    } else {
        int fd = open(dst, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0600);
        if (fd < 0)
            return -1;
        close(fd);
    }
    return mount(src, dst, NULL, MS_BIND | (dir ? MS_REC : 0), NULL);
}

static int copy_host_dev(const char *stage, const char *nodes_dir)
{
    DIR *d = opendir("/dev");
    if (!d)
        return -1;
    int rc = 0;
    struct dirent *e;
    while (rc == 0 && (e = readdir(d))) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0 || is_node(nodes_dir, e->d_name))
            continue;
        char src[PATH_MAX], dst[PATH_MAX];
        snprintf(src, sizeof(src), "/dev/%s", e->d_name);
        snprintf(dst, sizeof(dst), "%s/%s", stage, e->d_name);
        struct stat st;
        if (lstat(src, &st) != 0)
            continue; /* vanished meanwhile */
        if (S_ISLNK(st.st_mode)) {
            char target[PATH_MAX];
            ssize_t n = readlink(src, target, sizeof(target) - 1);
            if (n < 0)
                continue;
            target[n] = '\0';
            rc = symlink(target, dst);
        } else {
            rc = bind_entry(src, dst, S_ISDIR(st.st_mode));
        }
        if (rc != 0)
            LOG_ERROR("run", "private /dev: cannot mirror %s: %s", src, strerror(errno));
    }
    closedir(d);
    return rc;
}

static int add_nodes(const char *stage, const char *nodes_dir)
{
    DIR *d = opendir(nodes_dir);
    if (!d) {
        LOG_ERROR("run", "cannot list the emulator's nodes in %s: %s", nodes_dir, strerror(errno));
        return -1;
    }
    int rc = 0, n = 0;
    struct dirent *e;
    while (rc == 0 && (e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char src[PATH_MAX], dst[PATH_MAX];
        snprintf(src, sizeof(src), "%s/%s", nodes_dir, e->d_name);
        snprintf(dst, sizeof(dst), "%s/%s", stage, e->d_name);
        rc = bind_entry(src, dst, false);
        if (rc != 0)
            LOG_ERROR("run", "private /dev: cannot bind %s: %s", src, strerror(errno));
        n++;
    }
    closedir(d);
    return rc != 0 || n == 0 ? -1 : 0;
}

int newdev_install(const char *stage, const char *nodes_dir)
{
    if (mount("nvemu-dev", stage, "tmpfs", MS_NOSUID, "mode=0755") != 0) {
        LOG_ERROR("run", "tmpfs for the private /dev: %s", strerror(errno));
        return -1;
    }
    if (copy_host_dev(stage, nodes_dir) != 0 || add_nodes(stage, nodes_dir) != 0) {
        umount2(stage, MNT_DETACH);
        return -1;
    }
    if (mount(stage, "/dev", NULL, MS_MOVE, NULL) != 0) {
        LOG_ERROR("run", "moving the private /dev in place: %s", strerror(errno));
        umount2(stage, MNT_DETACH);
        return -1;
    }
    return 0;
}
