/* OS-layer escapes, unknown escapes and the outer ioctl size/node rules. */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "conf.h"

static void version_cases(struct conf *c)
{
    static const struct {
        const char *name;
        uint32_t cmd;
        const char *str;
        unsigned size;
    } rows[] = {
        {"esc.check_version.query", '2', "", 72},
        {"esc.check_version.strict_wrong", 0, "580.142", 72},
        {"esc.check_version.relaxed_580", '1', "580.1", 72},
        {"esc.check_version.relaxed_wrong", '1', "535.1", 72},
        {"esc.check_version.size71", '2', "", 71},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        nv_version_t v;
        memset(&v, 0, sizeof v);
        v.cmd = rows[i].cmd;
        v.reply = 0xEEEEu;
        snprintf(v.versionString, sizeof v.versionString, "%s", rows[i].str);
        int err, ret = raw_ioctl(c->ctl, RAW_REQ(ESC_CHECK_VERSION_STR, rows[i].size), &v, &err);
        emit_raw(rows[i].name, ret, err, "reply=0x%x version=%s", v.reply, v.versionString[0] ? v.versionString : "-");
    }
}

static void card_info_cases(struct conf *c)
{
    static const struct {
        const char *name;
        unsigned size;
        int on_dev;
    } rows[] = {
        {"esc.card_info.2304", 2304, 0}, {"esc.card_info.72", 72, 0}, {"esc.card_info.71", 71, 0},
        {"esc.card_info.on_dev0", 2304, 1},
    };
    static uint8_t buf[2304];
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        memset(buf, 0, sizeof buf);
        int err, ret = raw_ioctl(rows[i].on_dev ? c->dev0 : c->ctl, RAW_REQ(ESC_CARD_INFO, rows[i].size), buf, &err);
        int valid = 0;
        for (unsigned e = 0; e + 72 <= rows[i].size; e += 72)
            valid += buf[e] != 0;
        uint16_t vendor, device;
        uint32_t gpu_id, minor;
        memcpy(&vendor, buf + 12, 2);
        memcpy(&device, buf + 14, 2);
        memcpy(&gpu_id, buf + 16, 4);
        memcpy(&minor, buf + 56, 4);
        emit_raw(rows[i].name, ret, err, "valid=%d vendor=0x%04x device=0x%04x minor=%u", valid, vendor, device, minor);
        if (valid)
            note("%s raw gpu_id=0x%x bus=0x%02x", rows[i].name, gpu_id, buf[8]);
    }
}

static void simple_size_cases(struct conf *c)
{
    static const struct {
        const char *name;
        unsigned nr, size;
        int on_dev;
    } rows[] = {
        {"esc.wait_open_complete.ctl", ESC_WAIT_OPEN_COMPLETE, 8, 0},
        {"esc.wait_open_complete.dev0", ESC_WAIT_OPEN_COMPLETE, 8, 1},
        {"esc.wait_open_complete.size4", ESC_WAIT_OPEN_COMPLETE, 4, 0},
        {"esc.numa_info.dev0", ESC_NUMA_INFO, 560, 1},
        {"esc.numa_info.ctl", ESC_NUMA_INFO, 560, 0},
        {"esc.numa_info.size559", ESC_NUMA_INFO, 559, 1},
        {"esc.sys_params.size4", ESC_SYS_PARAMS, 4, 0},
        {"esc.status_code.unknown_bus", ESC_STATUS_CODE, 12, 0},
        {"esc.status_code.size8", ESC_STATUS_CODE, 8, 0},
    };
    static uint8_t buf[1024];
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        memset(buf, 0, sizeof buf);
        if (rows[i].nr == ESC_STATUS_CODE) {
            buf[4] = 0xfe; /* bus 0xfe: no adapter there */
        }
        int err, ret = raw_ioctl(rows[i].on_dev ? c->dev0 : c->ctl, RAW_REQ(rows[i].nr, rows[i].size), buf, &err);
        uint32_t w0, w1;
        memcpy(&w0, buf, 4);
        memcpy(&w1, buf + 4, 4);
        if (rows[i].nr == ESC_WAIT_OPEN_COMPLETE)
            emit_raw(rows[i].name, ret, err, "rc=%d adapterStatus=0x%x", (int)w0, w1);
        else if (rows[i].nr == ESC_NUMA_INFO)
            emit_raw(rows[i].name, ret, err, "nid=%d status=%d", (int)w0, (int)w1);
        else
            emit_raw(rows[i].name, ret, err, NULL);
    }
    /* libcuda's own value (1 GiB memblock): the driver keeps the first value, so this is idempotent. */
    uint64_t memblock = 0x40000000ull;
    int err, ret = raw_ioctl(c->ctl, RAW_REQ(ESC_SYS_PARAMS, 8), &memblock, &err);
    emit_raw("esc.sys_params.libcuda_value", ret, err, NULL);
}

static void register_fd_cases(struct conf *c)
{
    int d1 = open("/dev/nvidia0", O_RDWR | O_CLOEXEC);
    int d2 = open("/dev/nvidia0", O_RDWR | O_CLOEXEC);
    int err, ret, fd;
    fd = c->ctl;
    ret = raw_ioctl(d1, RAW_REQ(ESC_REGISTER_FD, 4), &fd, &err);
    emit_raw("esc.register_fd.dev_to_ctl", ret, err, NULL);
    ret = raw_ioctl(d1, RAW_REQ(ESC_REGISTER_FD, 4), &fd, &err);
    emit_raw("esc.register_fd.twice", ret, err, NULL);
    fd = d1;
    ret = raw_ioctl(d2, RAW_REQ(ESC_REGISTER_FD, 4), &fd, &err);
    emit_raw("esc.register_fd.target_not_ctl", ret, err, NULL);
    fd = c->ctl;
    ret = raw_ioctl(d2, RAW_REQ(ESC_REGISTER_FD, 8), &fd, &err);
    emit_raw("esc.register_fd.size8", ret, err, NULL);
    ret = raw_ioctl(c->ctl, RAW_REQ(ESC_REGISTER_FD, 4), &fd, &err);
    emit_raw("esc.register_fd.ctl_to_itself", ret, err, NULL);
    fd = 0;
    ret = raw_ioctl(d2, RAW_REQ(ESC_REGISTER_FD, 4), &fd, &err);
    emit_raw("esc.register_fd.target_stdin", ret, err, NULL);
    close(d1);
    close(d2);
}

static void attach_cases(struct conf *c)
{
    int fd = open("/dev/nvidiactl", O_RDWR | O_CLOEXEC);
    uint32_t ids[2] = {0x12345u, 0};
    int err, ret;
    ret = raw_ioctl(fd, RAW_REQ(ESC_ATTACH_GPUS_TO_FD, 4), ids, &err);
    emit_raw("esc.attach_gpus.unknown_id", ret, err, NULL);
    ret = raw_ioctl(fd, RAW_REQ(ESC_ATTACH_GPUS_TO_FD, 3), ids, &err);
    emit_raw("esc.attach_gpus.size3", ret, err, NULL);
    ids[0] = c->gpu_id;
    ret = raw_ioctl(fd, RAW_REQ(ESC_ATTACH_GPUS_TO_FD, 4), ids, &err);
    emit_raw("esc.attach_gpus.valid", ret, err, NULL);
    ret = raw_ioctl(fd, RAW_REQ(ESC_ATTACH_GPUS_TO_FD, 4), ids, &err);
    emit_raw("esc.attach_gpus.twice", ret, err, NULL);
    ids[1] = 0;
    ret = raw_ioctl(fd, RAW_REQ(ESC_ATTACH_GPUS_TO_FD, 8), ids, &err);
    emit_raw("esc.attach_gpus.again_with_zero", ret, err, NULL);
    close(fd);
}

static void unknown_escape_cases(struct conf *c)
{
    static const unsigned nrs[] = {0x26, 0x32, 0x33, 0x37, 0x38, 0x56, 0x5c, 0x5d, 0x61, 0x80, 0xc7, 0xdb, 0xef, 0xff};
    for (size_t i = 0; i < sizeof nrs / sizeof nrs[0]; i++) {
        uint8_t buf[32];
        memset(buf, 0, sizeof buf);
        int err, ret = raw_ioctl(c->ctl, RAW_REQ(nrs[i], sizeof buf), buf, &err);
        char name[48];
        snprintf(name, sizeof name, "esc.unknown.0x%02x", nrs[i]);
        emit_raw(name, ret, err, NULL);
    }
    /* GPreempt's query escape: NVOS54-shaped, hClient = a thread id. Stock driver: -1/EINVAL. */
    nvos54_t q;
    memset(&q, 0, sizeof q);
    q.hClient = (uint32_t)getpid();
    q.status = 0xEEEEEEEEu;
    int err, ret = raw_ioctl(c->ctl, RAW_REQ(ESC_RM_QUERY_GROUP, sizeof q), &q, &err);
    struct rm_result r = {ret, err, q.status};
    emit_rm("esc.query_group_0x60", r, "hObject=0x%x", q.hObject);
}

static void outer_cases(struct conf *c)
{
    uint8_t buf[64];
    int err, ret;
    static const struct {
        const char *name;
        unsigned nr, size;
        int on_dev;
    } rows[] = {
        {"outer.alloc.size40", ESC_RM_ALLOC, 40, 0},   {"outer.alloc.size0", ESC_RM_ALLOC, 0, 0},
        {"outer.control.size31", ESC_RM_CONTROL, 31, 0}, {"outer.control.size33", ESC_RM_CONTROL, 33, 0},
        {"outer.free.size15", ESC_RM_FREE, 15, 0},     {"outer.free.size32", ESC_RM_FREE, 32, 0},
        {"outer.control.on_dev0", ESC_RM_CONTROL, 32, 1}, {"outer.free.on_dev0", ESC_RM_FREE, 16, 1},
        {"outer.alloc.client_on_dev0", ESC_RM_ALLOC, 48, 1},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        memset(buf, 0, sizeof buf);
        uint32_t sentinel = 0xEEEEEEEEu;
        size_t st = rows[i].nr == ESC_RM_ALLOC ? 40 : rows[i].nr == ESC_RM_CONTROL ? 28 : 12;
        memcpy(buf + st, &sentinel, 4);
        if (rows[i].nr == ESC_RM_CONTROL) { /* a valid NULL command on our client */
            memcpy(buf, &c->client, 4);
            memcpy(buf + 4, &c->client, 4);
        }
        if (rows[i].nr == ESC_RM_ALLOC)
            buf[12] = 0x41;
        ret = raw_ioctl(rows[i].on_dev ? c->dev0 : c->ctl, RAW_REQ(rows[i].nr, rows[i].size), buf, &err);
        uint32_t status;
        memcpy(&status, buf + st, 4);
        struct rm_result r = {ret, err, status};
        emit_rm(rows[i].name, r, NULL);
        if (ret == 0 && rows[i].nr == ESC_RM_ALLOC) {
            uint32_t h;
            memcpy(&h, buf + 8, 4);
            rm_free(c->ctl, h, h);
        }
    }
    /* The driver ignores _IOC_TYPE and _IOC_DIR: a control built with magic 'G' or no direction works. */
    nvos54_t q;
    memset(&q, 0, sizeof q);
    q.hClient = q.hObject = c->client;
    q.cmd = C0000_GET_ATTACHED_IDS;
    uint32_t ids[32];
    q.params = (uint64_t)(uintptr_t)ids;
    q.paramsSize = sizeof ids;
    q.status = 0xEEEEEEEEu;
    ret = raw_ioctl(c->ctl, 0xC0000000ul | (32ul << 16) | ((unsigned long)'G' << 8) | ESC_RM_CONTROL, &q, &err);
    struct rm_result r = {ret, err, q.status};
    emit_rm("outer.control.magic_G", r, NULL);
    q.status = 0xEEEEEEEEu;
    ret = raw_ioctl(c->ctl, (32ul << 16) | (0x46ul << 8) | ESC_RM_CONTROL, &q, &err);
    r.ret = ret, r.err = err, r.status = q.status;
    emit_rm("outer.control.dir_none", r, NULL);
    ret = raw_ioctl(c->ctl, RAW_REQ(ESC_RM_CONTROL, 32), NULL, &err);
    emit_raw("outer.control.null_arg", ret, err, NULL);
    ret = raw_ioctl(c->ctl, RAW_REQ(ESC_RM_CONTROL, 32), (void *)0x1000, &err);
    emit_raw("outer.control.bad_arg", ret, err, NULL);
    ret = raw_ioctl(c->ctl, RAW_REQ(ESC_CHECK_VERSION_STR, 72), (void *)0x1000, &err);
    emit_raw("outer.check_version.bad_arg", ret, err, NULL);

    /* XFER: the 16-byte header names the inner escape, size and pointer. */
    q.status = 0xEEEEEEEEu;
    nv_xfer_t x = {ESC_RM_CONTROL, sizeof q, (uint64_t)(uintptr_t)&q};
    ret = raw_ioctl(c->ctl, RAW_REQ(ESC_IOCTL_XFER, sizeof x), &x, &err);
    r.ret = ret, r.err = err, r.status = q.status;
    emit_rm("outer.xfer.control", r, NULL);
    ret = raw_ioctl(c->ctl, RAW_REQ(ESC_IOCTL_XFER, 8), &x, &err);
    emit_raw("outer.xfer.size8", ret, err, NULL);
    x.size = 16385;
    ret = raw_ioctl(c->ctl, RAW_REQ(ESC_IOCTL_XFER, sizeof x), &x, &err);
    emit_raw("outer.xfer.inner_16385", ret, err, NULL);
    x.size = 31;
    q.status = 0xEEEEEEEEu;
    ret = raw_ioctl(c->ctl, RAW_REQ(ESC_IOCTL_XFER, sizeof x), &x, &err);
    r.ret = ret, r.err = err, r.status = q.status;
    emit_rm("outer.xfer.inner_size31", r, NULL);
    x.size = sizeof q;
    x.ptr = 0x1000;
    ret = raw_ioctl(c->ctl, RAW_REQ(ESC_IOCTL_XFER, sizeof x), &x, &err);
    emit_raw("outer.xfer.bad_ptr", ret, err, NULL);
}

void cases_escapes(struct conf *c)
{
    version_cases(c);
    card_info_cases(c);
    simple_size_cases(c);
    register_fd_cases(c);
    attach_cases(c);
    unknown_escape_cases(c);
    outer_cases(c);
}
