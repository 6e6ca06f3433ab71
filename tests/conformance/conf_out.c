/* Canonical output lines of the conformance probe. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "conf.h"

static const struct {
    int err;
    const char *name;
} errnames[] = {
    {0, "0"}, {EPERM, "EPERM"}, {ENOENT, "ENOENT"}, {EIO, "EIO"}, {ENXIO, "ENXIO"}, {EBADF, "EBADF"},
    {EAGAIN, "EAGAIN"}, {ENOMEM, "ENOMEM"}, {EACCES, "EACCES"}, {EFAULT, "EFAULT"}, {EBUSY, "EBUSY"},
    {ENODEV, "ENODEV"}, {EINVAL, "EINVAL"}, {ENOTTY, "ENOTTY"}, {ENOSYS, "ENOSYS"}, {ENOTCONN, "ENOTCONN"},
    {EOPNOTSUPP, "EOPNOTSUPP"},
};

static const char *errname(int err, char *buf, size_t n)
{
    for (size_t i = 0; i < sizeof errnames / sizeof errnames[0]; i++)
        if (errnames[i].err == err)
            return errnames[i].name;
    snprintf(buf, n, "%d", err);
    return buf;
}

static void tail(const char *fmt, va_list ap)
{
    if (fmt && fmt[0]) {
        putchar(' ');
        vprintf(fmt, ap);
    }
    putchar('\n');
    fflush(stdout);
}

void emit_rm(const char *name, struct rm_result r, const char *fmt, ...)
{
    char eb[16];
    printf("%s ret=%d errno=%s status=", name, r.ret, errname(r.err, eb, sizeof eb));
    if (r.status == 0xEEEEEEEEu)
        printf("untouched");
    else
        printf("0x%08x", r.status);
    va_list ap;
    va_start(ap, fmt);
    tail(fmt, ap);
    va_end(ap);
}

void emit_raw(const char *name, int ret, int err, const char *fmt, ...)
{
    char eb[16];
    printf("%s ret=%d errno=%s status=-", name, ret, errname(err, eb, sizeof eb));
    va_list ap;
    va_start(ap, fmt);
    tail(fmt, ap);
    va_end(ap);
}

void note(const char *fmt, ...)
{
    printf("# ");
    va_list ap;
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    putchar('\n');
    fflush(stdout);
}

struct rm_result alloc_fixture(struct conf *c, const char *name, uint32_t handle, uint32_t parent,
                               const uint32_t *from, const uint32_t *to, int n)
{
    const struct fixture_obj *o = fixture_find(&c->fix, name);
    struct rm_result missing = {-1, ENOENT, 0xEEEEEEEEu};
    if (!o)
        return missing;
    uint32_t f2[8], t2[8];
    int m = 0;
    f2[m] = c->fix.client;
    t2[m++] = c->client;
    for (int i = 0; i < n && m < 8; i++, m++) {
        f2[m] = from[i];
        t2[m] = to[i];
    }
    static uint8_t buf[FIXTURE_MAX_PARAMS];
    size_t len = fixture_params(o, buf, sizeof buf, f2, t2, m);
    uint32_t h = handle ? handle : o->handle;
    uint32_t p = parent ? parent : (o->parent ? o->parent : c->client);
    return rm_alloc(c->ctl, c->client, p, &h, o->hclass, len ? buf : NULL);
}
