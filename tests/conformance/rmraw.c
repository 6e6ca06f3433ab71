/* Raw RM ioctl helpers shared by the conformance probe and the hardware measurements. */
#include "rmraw.h"

#include <errno.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>

int raw_ioctl(int fd, unsigned long req, void *arg, int *err)
{
    errno = 0;
    int r = ioctl(fd, req, arg);
    *err = r < 0 ? errno : 0;
    return r;
}

static struct rm_result finish(int ret, int err, uint32_t status)
{
    struct rm_result r = {ret, err, status};
    return r;
}

struct rm_result rm_alloc(int fd, uint32_t hClient, uint32_t hParent, uint32_t *hNew, uint32_t hClass, void *params)
{
    nvos64_t a;
    memset(&a, 0, sizeof a);
    a.hRoot = hClient;
    a.hObjectParent = hParent;
    a.hObjectNew = *hNew;
    a.hClass = hClass;
    a.pAllocParms = (uint64_t)(uintptr_t)params;
    a.status = 0xEEEEEEEEu;
    int err;
    int ret = raw_ioctl(fd, RAW_REQ(ESC_RM_ALLOC, sizeof a), &a, &err);
    *hNew = a.hObjectNew;
    return finish(ret, err, a.status);
}

struct rm_result rm_control(int fd, uint32_t hClient, uint32_t hObject, uint32_t cmd, void *params, uint32_t size)
{
    nvos54_t c;
    memset(&c, 0, sizeof c);
    c.hClient = hClient;
    c.hObject = hObject;
    c.cmd = cmd;
    c.params = (uint64_t)(uintptr_t)params;
    c.paramsSize = size;
    c.status = 0xEEEEEEEEu;
    int err;
    int ret = raw_ioctl(fd, RAW_REQ(ESC_RM_CONTROL, sizeof c), &c, &err);
    return finish(ret, err, c.status);
}

struct rm_result rm_free(int fd, uint32_t hClient, uint32_t hObject)
{
    nvos00_t f = {hClient, hClient, hObject, 0xEEEEEEEEu};
    int err;
    int ret = raw_ioctl(fd, RAW_REQ(ESC_RM_FREE, sizeof f), &f, &err);
    return finish(ret, err, f.status);
}

uint32_t rm_client(int fd)
{
    uint32_t h = 0;
    struct rm_result r = rm_alloc(fd, 0, 0, &h, CL_ROOT_CLIENT, NULL);
    return (r.ret == 0 && r.status == 0) ? h : 0;
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

size_t hex_decode(const char *hex, uint8_t *out, size_t cap)
{
    size_t n = 0;
    while (n < cap && hexval(hex[0]) >= 0 && hexval(hex[1]) >= 0) {
        out[n++] = (uint8_t)(hexval(hex[0]) << 4 | hexval(hex[1]));
        hex += 2;
    }
    return n;
}

double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}
