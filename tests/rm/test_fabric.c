/*
 * NV_MEMORY_FABRIC (emu/rm/class_fabric.c): fabric memory on a GPU with FLA (the two-H200 profile h200-x2),
 * the constructor's checks, ATTACH/DETACH_MEM and their counts, GET_INFO, and its export and import through an
 * nvidiactl file as fabric memory (mem_fabric.c, fabric_vaspace.c, rmobjexportimport.c, 580.x).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <cmocka.h>

#include "abi/nv_ctrl_fabric.h"
#include "abi/nv_ctrl_unix.h"
#include "rm_test_util.h"

#define HDEV 0x5C000002u
#define HSUB 0x5C000003u
#define HMEM 0x5C000010u
#define HFAB 0x5C000020u
#define MIB (1ull << 20)
#define ATTR_PAGE_SIZE_HUGE (3u << 23)

struct fab {
    struct tenv e;
    uint32_t hc;
};

/* An emulator of profile, a client with device 0 and its subdevice, and 32 MiB of video memory (huge pages
 * unless small_pages). */
static void fab_up(struct fab *f, const char *profile, bool small_pages)
{
    nvemu_config cfg;
    nvemu_config_init(&cfg);
    cfg.profile = profile;
    assert_int_equal(tenv_init_with(&f->e, &cfg), 0);
    f->hc = tbase(&f->e, f->e.ctl, HDEV, HSUB);
    assert_int_not_equal(f->hc, 0);
    NV_MEMORY_ALLOCATION_PARAMS mp;
    memset(&mp, 0, sizeof mp);
    mp.size = 32 * MIB;
    mp.attr = small_pages ? 0 : ATTR_PAGE_SIZE_HUGE;
    uint32_t hm = HMEM;
    assert_int_equal(talloc(&f->e, f->e.ctl, f->hc, HDEV, &hm, NV01_MEMORY_LOCAL_USER, &mp), NV_OK);
}

static void fab_down(struct fab *f)
{
    tenv_fini(&f->e);
}

static NV00F8_ALLOCATION_PARAMETERS flexible(uint64_t size)
{
    NV00F8_ALLOCATION_PARAMETERS p;
    memset(&p, 0, sizeof p);
    p.alignment = size;
    p.allocSize = size;
    p.pageSize = NV_MEMORY_FABRIC_PAGE_SIZE_2M;
    p.allocFlags = NV00F8_ALLOC_FLAGS_FLEXIBLE_FLA;
    return p;
}

static NV_STATUS fab_alloc(struct fab *f, uint32_t hparent, NV00F8_ALLOCATION_PARAMETERS *p)
{
    uint32_t h = HFAB;
    return talloc(&f->e, f->e.ctl, f->hc, hparent, &h, NV_MEMORY_FABRIC, p);
}

static NV_STATUS fab_ctrl(struct fab *f, uint32_t cmd, void *params, uint32_t size)
{
    return tctrl(&f->e, f->e.ctl, f->hc, HFAB, cmd, params, size);
}

static NV_STATUS attach(struct fab *f, uint32_t hmem, uint64_t offset, uint64_t len, uint16_t *attached)
{
    NV00F8_CTRL_ATTACH_MEM_PARAMS p;
    memset(&p, 0, sizeof p);
    p.memInfos[0] = (NV00F8_CTRL_ATTACH_MEM_INFO){.hMemory = hmem, .offset = offset, .mapLength = len};
    p.numMemInfos = 1;
    NV_STATUS st = fab_ctrl(f, NV00F8_CTRL_CMD_ATTACH_MEM, &p, sizeof p);
    if (attached)
        *attached = p.numAttached;
    return st;
}

static uint16_t num_attached(struct fab *f)
{
    NV00F8_CTRL_GET_NUM_ATTACHED_MEM_PARAMS p = {.offsetStart = 0, .offsetEnd = UINT64_MAX};
    assert_int_equal(fab_ctrl(f, NV00F8_CTRL_CMD_GET_NUM_ATTACHED_MEM, &p, sizeof p), NV_OK);
    return p.numMemInfos;
}

static void flexible_fabric_object_answers_its_size_page_size_and_flags(void **state)
{
    (void)state;
    struct fab f;
    fab_up(&f, "h200-x2", false);
    NV00F8_ALLOCATION_PARAMETERS p = flexible(32 * MIB);
    assert_int_equal(fab_alloc(&f, HSUB, &p), NV_OK);
    NV00F8_CTRL_GET_INFO_PARAMS info;
    memset(&info, 0, sizeof info);
    assert_int_equal(fab_ctrl(&f, NV00F8_CTRL_CMD_GET_INFO, &info, sizeof info), NV_OK);
    assert_int_equal(info.size, 32 * MIB);
    assert_int_equal(info.pageSize, NV_MEMORY_FABRIC_PAGE_SIZE_2M);
    assert_int_equal(info.allocFlags, NV00F8_ALLOC_FLAGS_FLEXIBLE_FLA);
    fab_down(&f);
}

static void fabric_alloc_on_a_gpu_without_fla_answers_not_supported(void **state)
{
    (void)state;
    struct fab f;
    fab_up(&f, "h200", false);
    NV00F8_ALLOCATION_PARAMETERS p = flexible(32 * MIB);
    assert_int_equal(fab_alloc(&f, HSUB, &p), NV_ERR_NOT_SUPPORTED);
    fab_down(&f);
}

static void fabric_alloc_under_a_device_answers_invalid_object_parent(void **state)
{
    (void)state;
    struct fab f;
    fab_up(&f, "h200-x2", false);
    NV00F8_ALLOCATION_PARAMETERS p = flexible(32 * MIB);
    assert_int_equal(fab_alloc(&f, HDEV, &p), NV_ERR_INVALID_OBJECT_PARENT);
    fab_down(&f);
}

static void fabric_alloc_with_a_64k_page_size_answers_invalid_argument(void **state)
{
    (void)state;
    struct fab f;
    fab_up(&f, "h200-x2", false);
    NV00F8_ALLOCATION_PARAMETERS p = flexible(32 * MIB);
    p.pageSize = 0x10000;
    assert_int_equal(fab_alloc(&f, HSUB, &p), NV_ERR_INVALID_ARGUMENT);
    fab_down(&f);
}

static void fabric_alloc_of_a_size_not_a_multiple_of_the_page_size_answers_invalid_argument(void **state)
{
    (void)state;
    struct fab f;
    fab_up(&f, "h200-x2", false);
    NV00F8_ALLOCATION_PARAMETERS p = flexible(32 * MIB);
    p.allocSize = 3 * MIB;
    assert_int_equal(fab_alloc(&f, HSUB, &p), NV_ERR_INVALID_ARGUMENT);
    fab_down(&f);
}

static void fabric_alloc_read_only_answers_not_supported(void **state)
{
    (void)state;
    struct fab f;
    fab_up(&f, "h200-x2", false);
    NV00F8_ALLOCATION_PARAMETERS p = flexible(32 * MIB);
    p.allocFlags |= NV00F8_ALLOC_FLAGS_READ_ONLY;
    assert_int_equal(fab_alloc(&f, HSUB, &p), NV_ERR_NOT_SUPPORTED);
    fab_down(&f);
}

static void flexible_fabric_alloc_naming_memory_answers_not_supported(void **state)
{
    (void)state;
    struct fab f;
    fab_up(&f, "h200-x2", false);
    NV00F8_ALLOCATION_PARAMETERS p = flexible(32 * MIB);
    p.map.hVidMem = HMEM;
    assert_int_equal(fab_alloc(&f, HSUB, &p), NV_ERR_NOT_SUPPORTED);
    fab_down(&f);
}

static void attach_mem_maps_video_memory_and_counts_it(void **state)
{
    (void)state;
    struct fab f;
    fab_up(&f, "h200-x2", false);
    NV00F8_ALLOCATION_PARAMETERS p = flexible(32 * MIB);
    assert_int_equal(fab_alloc(&f, HSUB, &p), NV_OK);
    uint16_t n = 0;
    assert_int_equal(attach(&f, HMEM, 0, 32 * MIB, &n), NV_OK);
    assert_int_equal(n, 1);
    assert_int_equal(num_attached(&f), 1);
    fab_down(&f);
}

static void attach_mem_past_the_objects_end_answers_invalid_offset(void **state)
{
    (void)state;
    struct fab f;
    fab_up(&f, "h200-x2", false);
    NV00F8_ALLOCATION_PARAMETERS p = flexible(32 * MIB);
    assert_int_equal(fab_alloc(&f, HSUB, &p), NV_OK);
    assert_int_equal(attach(&f, HMEM, 32 * MIB, 2 * MIB, NULL), NV_ERR_INVALID_OFFSET);
    fab_down(&f);
}

static void attach_mem_longer_than_the_memory_answers_invalid_argument(void **state)
{
    (void)state;
    struct fab f;
    fab_up(&f, "h200-x2", false);
    NV00F8_ALLOCATION_PARAMETERS p = flexible(64 * MIB);
    assert_int_equal(fab_alloc(&f, HSUB, &p), NV_OK);
    assert_int_equal(attach(&f, HMEM, 0, 64 * MIB, NULL), NV_ERR_INVALID_ARGUMENT);
    fab_down(&f);
}

static void attach_mem_of_memory_without_huge_pages_answers_invalid_argument(void **state)
{
    (void)state;
    struct fab f;
    fab_up(&f, "h200-x2", true);
    NV00F8_ALLOCATION_PARAMETERS p = flexible(32 * MIB);
    assert_int_equal(fab_alloc(&f, HSUB, &p), NV_OK);
    assert_int_equal(attach(&f, HMEM, 0, 32 * MIB, NULL), NV_ERR_INVALID_ARGUMENT);
    fab_down(&f);
}

static void attach_mem_at_an_offset_already_attached_answers_insert_duplicate_name(void **state)
{
    (void)state;
    struct fab f;
    fab_up(&f, "h200-x2", false);
    NV00F8_ALLOCATION_PARAMETERS p = flexible(32 * MIB);
    assert_int_equal(fab_alloc(&f, HSUB, &p), NV_OK);
    assert_int_equal(attach(&f, HMEM, 0, 2 * MIB, NULL), NV_OK);
    uint16_t n = 9;
    assert_int_equal(attach(&f, HMEM, 0, 2 * MIB, &n), NV_ERR_INSERT_DUPLICATE_NAME);
    assert_int_equal(n, 0);
    fab_down(&f);
}

static void attach_mem_with_flags_answers_invalid_argument(void **state)
{
    (void)state;
    struct fab f;
    fab_up(&f, "h200-x2", false);
    NV00F8_ALLOCATION_PARAMETERS p = flexible(32 * MIB);
    assert_int_equal(fab_alloc(&f, HSUB, &p), NV_OK);
    NV00F8_CTRL_ATTACH_MEM_PARAMS a;
    memset(&a, 0, sizeof a);
    a.memInfos[0] = (NV00F8_CTRL_ATTACH_MEM_INFO){.hMemory = HMEM, .mapLength = 2 * MIB};
    a.numMemInfos = 1;
    a.flags = 1;
    assert_int_equal(fab_ctrl(&f, NV00F8_CTRL_CMD_ATTACH_MEM, &a, sizeof a), NV_ERR_INVALID_ARGUMENT);
    fab_down(&f);
}

static void attach_mem_on_a_sticky_object_answers_not_supported(void **state)
{
    (void)state;
    struct fab f;
    fab_up(&f, "h200-x2", false);
    NV00F8_ALLOCATION_PARAMETERS p = flexible(32 * MIB);
    p.allocFlags = 0;
    p.map.hVidMem = HMEM;
    assert_int_equal(fab_alloc(&f, HSUB, &p), NV_OK);
    assert_int_equal(num_attached(&f), 1);
    assert_int_equal(attach(&f, HMEM, 0, 2 * MIB, NULL), NV_ERR_NOT_SUPPORTED);
    fab_down(&f);
}

static void detach_mem_removes_the_attachment(void **state)
{
    (void)state;
    struct fab f;
    fab_up(&f, "h200-x2", false);
    NV00F8_ALLOCATION_PARAMETERS p = flexible(32 * MIB);
    assert_int_equal(fab_alloc(&f, HSUB, &p), NV_OK);
    assert_int_equal(attach(&f, HMEM, 0, 32 * MIB, NULL), NV_OK);
    NV00F8_CTRL_DETACH_MEM_PARAMS d;
    memset(&d, 0, sizeof d);
    d.numOffsets = 1;
    assert_int_equal(fab_ctrl(&f, NV00F8_CTRL_CMD_DETACH_MEM, &d, sizeof d), NV_OK);
    assert_int_equal(d.numDetached, 1);
    assert_int_equal(num_attached(&f), 0);
    fab_down(&f);
}

static void detach_mem_of_an_offset_never_attached_answers_object_not_found(void **state)
{
    (void)state;
    struct fab f;
    fab_up(&f, "h200-x2", false);
    NV00F8_ALLOCATION_PARAMETERS p = flexible(32 * MIB);
    assert_int_equal(fab_alloc(&f, HSUB, &p), NV_OK);
    NV00F8_CTRL_DETACH_MEM_PARAMS d;
    memset(&d, 0, sizeof d);
    d.offsets[0] = 2 * MIB;
    d.numOffsets = 1;
    assert_int_equal(fab_ctrl(&f, NV00F8_CTRL_CMD_DETACH_MEM, &d, sizeof d), NV_ERR_OBJECT_NOT_FOUND);
    fab_down(&f);
}

static void exported_fabric_object_is_imported_as_fabric_memory(void **state)
{
    (void)state;
    struct fab f;
    fab_up(&f, "h200-x2", false);
    NV00F8_ALLOCATION_PARAMETERS p = flexible(32 * MIB);
    assert_int_equal(fab_alloc(&f, HSUB, &p), NV_OK);
    int xfd = nvemu_fdtable_open(f.e.t, "/dev/nvidiactl", &f.e.who);
    assert_true(xfd >= 0);
    NV0000_CTRL_OS_UNIX_EXPORT_OBJECTS_TO_FD_PARAMS x;
    memset(&x, 0, sizeof x);
    x.fd = xfd;
    x.hDevice = HDEV;
    x.maxObjects = 1;
    x.objects[0] = HFAB;
    x.numObjects = 1;
    assert_int_equal(tctrl(&f.e, f.e.ctl, f.hc, f.hc, NV0000_CTRL_CMD_OS_UNIX_EXPORT_OBJECTS_TO_FD, &x, sizeof x),
                     NV_OK);
    /* a second client of the same process imports it under its own subdevice */
    uint32_t hc2 = tbase(&f.e, f.e.ctl, HDEV, HSUB);
    assert_int_not_equal(hc2, 0);
    NV0000_CTRL_OS_UNIX_IMPORT_OBJECTS_FROM_FD_PARAMS im;
    memset(&im, 0, sizeof im);
    im.fd = xfd;
    im.hParent = HSUB;
    im.objects[0] = HFAB;
    im.numObjects = 1;
    assert_int_equal(tctrl(&f.e, f.e.ctl, hc2, hc2, NV0000_CTRL_CMD_OS_UNIX_IMPORT_OBJECTS_FROM_FD, &im, sizeof im),
                     NV_OK);
    assert_int_equal(im.objectTypes[0], NV0000_CTRL_CMD_OS_UNIX_IMPORT_OBJECT_TYPE_FABRIC);
    NV00F8_CTRL_GET_INFO_PARAMS info;
    memset(&info, 0, sizeof info);
    assert_int_equal(tctrl(&f.e, f.e.ctl, hc2, HFAB, NV00F8_CTRL_CMD_GET_INFO, &info, sizeof info), NV_OK);
    assert_int_equal(info.size, 32 * MIB);
    fab_down(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(flexible_fabric_object_answers_its_size_page_size_and_flags),
        cmocka_unit_test(fabric_alloc_on_a_gpu_without_fla_answers_not_supported),
        cmocka_unit_test(fabric_alloc_under_a_device_answers_invalid_object_parent),
        cmocka_unit_test(fabric_alloc_with_a_64k_page_size_answers_invalid_argument),
        cmocka_unit_test(fabric_alloc_of_a_size_not_a_multiple_of_the_page_size_answers_invalid_argument),
        cmocka_unit_test(fabric_alloc_read_only_answers_not_supported),
        cmocka_unit_test(flexible_fabric_alloc_naming_memory_answers_not_supported),
        cmocka_unit_test(attach_mem_maps_video_memory_and_counts_it),
        cmocka_unit_test(attach_mem_past_the_objects_end_answers_invalid_offset),
        cmocka_unit_test(attach_mem_longer_than_the_memory_answers_invalid_argument),
        cmocka_unit_test(attach_mem_of_memory_without_huge_pages_answers_invalid_argument),
        cmocka_unit_test(attach_mem_at_an_offset_already_attached_answers_insert_duplicate_name),
        cmocka_unit_test(attach_mem_with_flags_answers_invalid_argument),
        cmocka_unit_test(attach_mem_on_a_sticky_object_answers_not_supported),
        cmocka_unit_test(detach_mem_removes_the_attachment),
        cmocka_unit_test(detach_mem_of_an_offset_never_attached_answers_object_not_found),
        cmocka_unit_test(exported_fabric_object_is_imported_as_fabric_memory),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
