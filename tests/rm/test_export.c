/*
 * NV0000 OS_UNIX export and import of RM objects through an nvidiactl file (emu/rm/ctrl_export.c): one
 * process's client exports its memory into a file, another process (own pid, own client) that holds the
 * file imports it and gets its own handle to the same object; bad fds, files, handles and ranges get the
 * driver's statuses (os.c, rmobjexportimport.c, 580.x).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <cmocka.h>

#include "abi/nv_ctrl_discovery.h"
#include "abi/nv_ctrl_unix.h"
#include "rm_test_util.h"

#define HDEV 0x5C000002u
#define HSUB 0x5C000003u
#define HMEM 0x5C000010u
#define HIMPORT 0x5C000020u

struct two {
    struct tenv a;          /* the exporting process: e.a.t is its fd table */
    nvemu_fdtable *bt;      /* the importing process's fd table */
    nvemu_identity bwho;
    int bctl;
    uint32_t ha, hb;        /* each one's client */
    int xfd;                /* the exporter's file to export into */
};

static NV_STATUS bctrl(struct two *w, uint32_t cmd, void *params, uint32_t size)
{
    NVOS54_PARAMETERS p = {.hClient = w->hb, .hObject = w->hb, .cmd = cmd, .params = (uint64_t)(uintptr_t)params,
                           .paramsSize = size};
    if (nvemu_fdtable_ioctl(w->bt, w->bctl, NV_IOCTL_REQUEST(NV_ESC_RM_CONTROL, sizeof p), &p) != 0)
        return 0xDEADu;
    return p.status;
}

static NV_STATUS actrl(struct two *w, uint32_t cmd, void *params, uint32_t size)
{
    return tctrl(&w->a, w->a.ctl, w->ha, w->ha, cmd, params, size);
}

static void two_up(struct two *w)
{
    memset(w, 0, sizeof *w);
    assert_int_equal(tenv_init(&w->a, false), 0);
    w->ha = tbase(&w->a, w->a.ctl, HDEV, HSUB);
    assert_int_not_equal(w->ha, 0);
    NV_MEMORY_ALLOCATION_PARAMS mp;
    memset(&mp, 0, sizeof mp);
    mp.size = 2u << 20;
    uint32_t hm = HMEM;
    assert_int_equal(talloc(&w->a, w->a.ctl, w->ha, HDEV, &hm, NV01_MEMORY_LOCAL_USER, &mp), NV_OK);
    w->xfd = nvemu_fdtable_open(w->a.t, "/dev/nvidiactl", &w->a.who);
    assert_true(w->xfd >= 0);
    /* process B: its own table, pid, client and device 0 */
    w->bt = nvemu_fdtable_create(w->a.emu, false);
    tenv_identity(&w->bwho, 200, 1000, 0);
    w->bctl = nvemu_fdtable_open(w->bt, "/dev/nvidiactl", &w->bwho);
    assert_true(w->bctl >= 0);
    assert_true(nvemu_fdtable_open(w->bt, "/dev/nvidia0", &w->bwho) >= 0);
    NVOS64_PARAMETERS p = {.hClass = NV01_ROOT_CLIENT};
    assert_int_equal(nvemu_fdtable_ioctl(w->bt, w->bctl, NV_IOCTL_REQUEST(NV_ESC_RM_ALLOC, sizeof p), &p), 0);
    assert_int_equal(p.status, NV_OK);
    w->hb = p.hObjectNew;
    NV0080_ALLOC_PARAMETERS dp;
    memset(&dp, 0, sizeof dp);
    NVOS64_PARAMETERS d = {.hRoot = w->hb, .hObjectParent = w->hb, .hObjectNew = HDEV, .hClass = NV01_DEVICE_0,
                           .pAllocParms = (uint64_t)(uintptr_t)&dp};
    assert_int_equal(nvemu_fdtable_ioctl(w->bt, w->bctl, NV_IOCTL_REQUEST(NV_ESC_RM_ALLOC, sizeof d), &d), 0);
    assert_int_equal(d.status, NV_OK);
}

static void two_down(struct two *w)
{
    nvemu_fdtable_destroy(w->bt);
    tenv_fini(&w->a);
}

static NV_STATUS export_mem(struct two *w, int fd, uint32_t hobject)
{
    NV0000_CTRL_OS_UNIX_EXPORT_OBJECTS_TO_FD_PARAMS p;
    memset(&p, 0, sizeof p);
    p.fd = fd;
    p.hDevice = HDEV;
    p.maxObjects = 1;
    p.metadata[0] = 4;
    p.objects[0] = hobject;
    p.numObjects = 1;
    return actrl(w, NV0000_CTRL_CMD_OS_UNIX_EXPORT_OBJECTS_TO_FD, &p, sizeof p);
}

static NV_STATUS import_mem(struct two *w, int fd, uint32_t hobject, uint8_t *type)
{
    NV0000_CTRL_OS_UNIX_IMPORT_OBJECTS_FROM_FD_PARAMS p;
    memset(&p, 0, sizeof p);
    p.fd = fd;
    p.hParent = HDEV;
    p.objects[0] = hobject;
    p.numObjects = 1;
    NV_STATUS st = bctrl(w, NV0000_CTRL_CMD_OS_UNIX_IMPORT_OBJECTS_FROM_FD, &p, sizeof p);
    if (type)
        *type = p.objectTypes[0];
    return st;
}

/* Exported by A's client into a file that then passes to B: B's info and import see A's object. */
static void object_exported_by_one_client_is_imported_by_another_process(void **state)
{
    (void)state;
    struct two w;
    two_up(&w);
    assert_int_equal(export_mem(&w, w.xfd, HMEM), NV_OK);
    int bfd = nvemu_fdtable_move(w.a.t, w.xfd, w.bt, 40);
    assert_int_equal(bfd, 40);
    NV0000_CTRL_OS_UNIX_GET_EXPORT_OBJECT_INFO_PARAMS info = {.fd = bfd};
    assert_int_equal(bctrl(&w, NV0000_CTRL_CMD_OS_UNIX_GET_EXPORT_OBJECT_INFO, &info, sizeof info), NV_OK);
    assert_int_equal(info.deviceInstance, 0);
    assert_int_equal(info.gpuInstanceId, 0xFFFFFFFFu);
    assert_int_equal(info.maxObjects, 1);
    assert_int_equal(info.metadata[0], 4);
    uint8_t type = 0xFF;
    assert_int_equal(import_mem(&w, bfd, HIMPORT, &type), NV_OK);
    assert_int_equal(type, NV0000_CTRL_CMD_OS_UNIX_IMPORT_OBJECT_TYPE_VIDMEM);
    /* B's handle is an object of B's client: its class answers there; a second import of the same handle clashes */
    NV0000_CTRL_CLIENT_GET_ADDR_SPACE_TYPE_PARAMS as = {.hObject = HIMPORT};
    assert_int_equal(bctrl(&w, NV0000_CTRL_CMD_CLIENT_GET_ADDR_SPACE_TYPE, &as, sizeof as), NV_OK);
    assert_int_equal(as.addrSpaceType, NV0000_CTRL_CMD_CLIENT_GET_ADDR_SPACE_TYPE_VIDMEM);
    assert_int_equal(import_mem(&w, bfd, HIMPORT, NULL), NV_ERR_INSERT_DUPLICATE_NAME);
    two_down(&w);
}

/* An fd that is no nvidiactl file of the caller, or a file nothing was exported into: INVALID_PARAMETER. */
static void import_from_bad_fd_or_empty_file_is_invalid_parameter(void **state)
{
    (void)state;
    struct two w;
    two_up(&w);
    NV0000_CTRL_OS_UNIX_GET_EXPORT_OBJECT_INFO_PARAMS info = {.fd = -1};
    assert_int_equal(bctrl(&w, NV0000_CTRL_CMD_OS_UNIX_GET_EXPORT_OBJECT_INFO, &info, sizeof info),
                     NV_ERR_INVALID_PARAMETER);
    info.fd = 77; /* not open in B */
    assert_int_equal(bctrl(&w, NV0000_CTRL_CMD_OS_UNIX_GET_EXPORT_OBJECT_INFO, &info, sizeof info),
                     NV_ERR_INVALID_PARAMETER);
    assert_int_equal(import_mem(&w, 77, HIMPORT, NULL), NV_ERR_INVALID_PARAMETER);
    /* B's /dev/nvidia0 is open but is no nvidiactl file */
    int gpu = nvemu_fdtable_open(w.bt, "/dev/nvidia0", &w.bwho);
    assert_int_equal(import_mem(&w, gpu, HIMPORT, NULL), NV_ERR_INVALID_PARAMETER);
    /* a fresh nvidiactl file nothing was exported into */
    int empty = nvemu_fdtable_open(w.bt, "/dev/nvidiactl", &w.bwho);
    info.fd = empty;
    assert_int_equal(bctrl(&w, NV0000_CTRL_CMD_OS_UNIX_GET_EXPORT_OBJECT_INFO, &info, sizeof info),
                     NV_ERR_INVALID_PARAMETER);
    assert_int_equal(import_mem(&w, empty, HIMPORT, NULL), NV_ERR_INVALID_PARAMETER);
    two_down(&w);
}

/* Exporting a handle the client does not have fails, and leaves the file unset for a later export. */
static void export_of_unknown_handle_is_object_not_found_and_leaves_file_unset(void **state)
{
    (void)state;
    struct two w;
    two_up(&w);
    assert_int_equal(export_mem(&w, w.xfd, 0x5C0000EEu), NV_ERR_OBJECT_NOT_FOUND);
    NV0000_CTRL_OS_UNIX_GET_EXPORT_OBJECT_INFO_PARAMS info = {.fd = w.xfd};
    assert_int_equal(actrl(&w, NV0000_CTRL_CMD_OS_UNIX_GET_EXPORT_OBJECT_INFO, &info, sizeof info),
                     NV_ERR_INVALID_PARAMETER);
    assert_int_equal(export_mem(&w, w.xfd, HMEM), NV_OK);
    two_down(&w);
}

/* numObjects + index beyond the file's maxObjects: OUT_OF_RANGE; a second setup of one file: STATE_IN_USE. */
static void export_beyond_file_size_is_out_of_range_and_second_setup_in_use(void **state)
{
    (void)state;
    struct two w;
    two_up(&w);
    assert_int_equal(export_mem(&w, w.xfd, HMEM), NV_OK);
    NV0000_CTRL_OS_UNIX_EXPORT_OBJECTS_TO_FD_PARAMS p;
    memset(&p, 0, sizeof p);
    p.fd = w.xfd;
    p.objects[0] = HMEM;
    p.numObjects = 1;
    p.index = 1;
    assert_int_equal(actrl(&w, NV0000_CTRL_CMD_OS_UNIX_EXPORT_OBJECTS_TO_FD, &p, sizeof p), NV_ERR_OUT_OF_RANGE);
    NV0000_CTRL_OS_UNIX_CREATE_EXPORT_OBJECT_FD_PARAMS cp = {.hDevice = HDEV, .maxObjects = 2, .fd = w.xfd};
    assert_int_equal(actrl(&w, NV0000_CTRL_CMD_OS_UNIX_CREATE_EXPORT_OBJECT_FD, &cp, sizeof cp), NV_ERR_STATE_IN_USE);
    cp.maxObjects = 0;
    assert_int_equal(actrl(&w, NV0000_CTRL_CMD_OS_UNIX_CREATE_EXPORT_OBJECT_FD, &cp, sizeof cp),
                     NV_ERR_INVALID_PARAMETER);
    two_down(&w);
}

/* The singular pair: type must be RM and fd not -1; EMPTY_FD is the user library's and refused. */
static void single_object_export_and_import_round_trip(void **state)
{
    (void)state;
    struct two w;
    two_up(&w);
    NV0000_CTRL_OS_UNIX_EXPORT_OBJECT_TO_FD_PARAMS ep = {
        .object = {.type = NV0000_CTRL_OS_UNIX_EXPORT_OBJECT_TYPE_RM, .hDevice = HDEV, .hObject = HMEM},
        .fd = w.xfd,
        .flags = NV0000_CTRL_OS_UNIX_EXPORT_OBJECT_TO_FD_FLAGS_EMPTY_FD};
    assert_int_equal(actrl(&w, NV0000_CTRL_CMD_OS_UNIX_EXPORT_OBJECT_TO_FD, &ep, sizeof ep), NV_ERR_INVALID_PARAMETER);
    ep.flags = 0;
    ep.object.type = 0;
    assert_int_equal(actrl(&w, NV0000_CTRL_CMD_OS_UNIX_EXPORT_OBJECT_TO_FD, &ep, sizeof ep), NV_ERR_INVALID_PARAMETER);
    ep.object.type = NV0000_CTRL_OS_UNIX_EXPORT_OBJECT_TYPE_RM;
    assert_int_equal(actrl(&w, NV0000_CTRL_CMD_OS_UNIX_EXPORT_OBJECT_TO_FD, &ep, sizeof ep), NV_OK);
    int bfd = nvemu_fdtable_move(w.a.t, w.xfd, w.bt, -1);
    assert_true(bfd >= 0);
    NV0000_CTRL_OS_UNIX_IMPORT_OBJECT_FROM_FD_PARAMS ip = {
        .fd = bfd, .object = {.type = NV0000_CTRL_OS_UNIX_EXPORT_OBJECT_TYPE_RM, .hParent = HDEV, .hObject = 0}};
    assert_int_equal(bctrl(&w, NV0000_CTRL_CMD_OS_UNIX_IMPORT_OBJECT_FROM_FD, &ip, sizeof ip), NV_OK);
    assert_int_not_equal(ip.object.hObject, 0); /* the driver chose B's handle */
    two_down(&w);
}

/* Once the exporter freed the object, an import is refused (the driver would keep it alive: documented). */
static void import_after_exporter_freed_object_is_refused(void **state)
{
    (void)state;
    struct two w;
    two_up(&w);
    assert_int_equal(export_mem(&w, w.xfd, HMEM), NV_OK);
    int bfd = nvemu_fdtable_move(w.a.t, w.xfd, w.bt, -1);
    assert_int_equal(tfree(&w.a, w.a.ctl, w.ha, HMEM), NV_OK);
    assert_int_equal(import_mem(&w, bfd, HIMPORT, NULL), NV_ERR_INVALID_ARGUMENT);
    two_down(&w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(object_exported_by_one_client_is_imported_by_another_process),
        cmocka_unit_test(import_from_bad_fd_or_empty_file_is_invalid_parameter),
        cmocka_unit_test(export_of_unknown_handle_is_object_not_found_and_leaves_file_unset),
        cmocka_unit_test(export_beyond_file_size_is_out_of_range_and_second_setup_in_use),
        cmocka_unit_test(single_object_export_and_import_round_trip),
        cmocka_unit_test(import_after_exporter_freed_object_is_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
