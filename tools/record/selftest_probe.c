/*
 * Issues RM-shaped ioctls so the recorder can be checked without a GPU.
 *   record-selftest-probe FILE  on a regular file (the kernel answers ENOTTY)
 *   record-selftest-probe live  on /dev/nvidiactl (under `nvemu run`): client alloc, GET_ATTACHED_IDS, free
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

/* A real RM conversation: prints the three statuses. */
static int live(void)
{
    int fd = open("/dev/nvidiactl", O_RDWR);
    if (fd < 0)
        return 2;
    struct { uint32_t hRoot, hParent, hNew, hClass; uint64_t p, rights; uint32_t psize, flags, status, pad; } a =
        {0, 0, 0, 0x41, 0, 0, 0, 0, 0, 0};
    int r1 = ioctl(fd, 0xC030462Bul, &a);
    uint32_t ids[32];
    struct { uint32_t hClient, hObject, cmd, flags; uint64_t params; uint32_t paramsSize, status; } c =
        {a.hNew, a.hNew, 0x201, 0, (uint64_t)(uintptr_t)ids, sizeof ids, 0};
    int r2 = ioctl(fd, 0xC020462Aul, &c);
    struct { uint32_t hRoot, hParent, hObj, status; } f = {a.hNew, a.hNew, a.hNew, 0};
    int r3 = ioctl(fd, 0xC0104629ul, &f);
    close(fd);
    printf("%d/%x %d/%x %d/%x\n", r1, a.status, r2, c.status, r3, f.status);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 2)
        return 2;
    if (strcmp(argv[1], "live") == 0)
        return live();
    int fd = open(argv[1], O_RDWR | O_CREAT, 0600);
    if (fd < 0)
        return 2;
    uint64_t ts = 1024;
    struct { uint32_t hClient, hObject, cmd, flags; uint64_t params; uint32_t paramsSize, status; } c =
        {0xc1d00001u, 0x5c000015u, 0xa06c0104u, 0, (uint64_t)(uintptr_t)&ts, 8, 0};
    int r1 = ioctl(fd, 0xC020462Aul, &c);
    uint8_t tsg[20] = {0};
    tsg[12] = 1;
    struct { uint32_t hRoot, hParent, hNew, hClass; uint64_t p, rights; uint32_t psize, flags, status, pad; } a =
        {0xc1d00001u, 0x5c000002u, 0x5c000015u, 0xa06c, (uint64_t)(uintptr_t)tsg, 0, 0, 0, 0, 0};
    int r2 = ioctl(fd, 0xC030462Bul, &a);
    struct { uint32_t hRoot, hParent, hObj, status; } f = {0xc1d00001u, 0xc1d00001u, 0x5c000015u, 0};
    int r3 = ioctl(fd, 0xC0104629ul, &f);
    c.params = 0x1000; /* a bad pointer must be recorded as absent, not crash the program */
    int r4 = ioctl(fd, 0xC020462Aul, &c);
    /* NV0041 GET_SURFACE_INFO: the list behind surfaceInfoList is recorded as ein/eout */
    uint32_t list[6] = {2, 0, 3, 0, 9, 0};
    struct { uint32_t n, pad; uint64_t list; } si = {3, 0, (uint64_t)(uintptr_t)list};
    struct { uint32_t hClient, hObject, cmd, flags; uint64_t params; uint32_t paramsSize, status; } s =
        {0xc1d00001u, 0x5c000020u, 0x00410110u, 0, (uint64_t)(uintptr_t)&si, sizeof si, 0};
    int r5 = ioctl(fd, 0xC020462Aul, &s);
    close(fd);
    printf("%d %d %d %d %d\n", r1, r2, r3, r4, r5);
    return 0;
}
