/*
 * NV0041 GET_SURFACE_INFO (emu/rm/ctrl_memory.c): each index of the caller's list is answered from what the
 * memory object's allocation answered (size, attr, address space), duplicates answer as their source, an unknown
 * index stops the walk with INVALID_ARGUMENT, and a memory class whose descriptor is not modelled answers
 * NOT_SUPPORTED.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <cmocka.h>

#include "abi/nv_ctrl_core.h"
#include "abi/nv_ctrl_discovery.h"
#include "rm_test_util.h"

#define HDEV 0x5c000001u
#define HSUB 0x5c000002u
#define HVID 0x5c000010u
#define HSYS 0x5c000011u

/* 6 MiB of video memory on 2 MiB pages, as NCCL's buffers were (page size HUGE, physicality 2). */
#define VID_SIZE 0x600000ull
#define VID_ATTR 0x11800000u

static uint32_t up(struct tenv *e)
{
    assert_int_equal(tenv_init(e, false), 0);
    uint32_t hc = tbase(e, e->ctl, HDEV, HSUB);
    assert_true(hc != 0);
    return hc;
}

static void alloc_memory(struct tenv *e, uint32_t hc, uint32_t h, uint32_t hclass, uint64_t size, uint32_t attr)
{
    NV_MEMORY_ALLOCATION_PARAMS p;
    memset(&p, 0, sizeof p);
    p.size = size;
    p.attr = attr;
    assert_int_equal(talloc(e, e->ctl, hc, HDEV, &h, hclass, &p), NV_OK);
}

/* GET_SURFACE_INFO of n indices on object h; the answers in data[]. */
static NV_STATUS surface_info(struct tenv *e, uint32_t hc, uint32_t h, const uint32_t *index, uint32_t *data,
                              uint32_t n)
{
    NV0041_CTRL_SURFACE_INFO list[8];
    for (uint32_t i = 0; i < n; i++)
        list[i] = (NV0041_CTRL_SURFACE_INFO){index[i], 0xA5A5A5A5u};
    NV0041_CTRL_GET_SURFACE_INFO_PARAMS p = {n, 0, (uint64_t)(uintptr_t)list};
    NV_STATUS st = tctrl(e, e->ctl, hc, h, NV0041_CTRL_CMD_GET_SURFACE_INFO, &p, sizeof p);
    for (uint32_t i = 0; i < n; i++)
        data[i] = list[i].data;
    return st;
}

static void video_memory_answers_its_size_and_address_space(void **state)
{
    (void)state;
    struct tenv e;
    uint32_t hc = up(&e);
    alloc_memory(&e, hc, HVID, NV01_MEMORY_LOCAL_USER, VID_SIZE, VID_ATTR);
    const uint32_t idx[] = {NV0041_CTRL_SURFACE_INFO_INDEX_PHYS_SIZE_LO, NV0041_CTRL_SURFACE_INFO_INDEX_PHYS_SIZE_HI,
                            NV0041_CTRL_SURFACE_INFO_INDEX_PHYS_SIZE, NV0041_CTRL_SURFACE_INFO_INDEX_ADDR_SPACE_TYPE,
                            NV0041_CTRL_SURFACE_INFO_INDEX_ATTRS, NV0041_CTRL_SURFACE_INFO_INDEX_PHYS_ATTR,
                            NV0041_CTRL_SURFACE_INFO_INDEX_COMPR_COVERAGE};
    uint32_t d[7];
    assert_int_equal(surface_info(&e, hc, HVID, idx, d, 7), NV_OK);
    assert_int_equal(d[0], (uint32_t)VID_SIZE);
    assert_int_equal(d[1], 0);
    assert_int_equal(d[2], VID_SIZE / 0x1000);
    assert_int_equal(d[3], NV0000_CTRL_CMD_CLIENT_GET_ADDR_SPACE_TYPE_VIDMEM);
    /* no compression or zcull: no hardware resources, so no attributes and no PHYS_ATTR fields */
    assert_int_equal(d[4], 0);
    assert_int_equal(d[5], 0);
    assert_int_equal(d[6], 0);
    tenv_fini(&e);
}

static void system_memory_answers_sysmem_and_a_size_above_4_gib(void **state)
{
    (void)state;
    struct tenv e;
    uint32_t hc = up(&e);
    alloc_memory(&e, hc, HSYS, NV01_MEMORY_SYSTEM, 0x100002000ull, 0);
    const uint32_t idx[] = {NV0041_CTRL_SURFACE_INFO_INDEX_ADDR_SPACE_TYPE, NV0041_CTRL_SURFACE_INFO_INDEX_PHYS_SIZE_LO,
                            NV0041_CTRL_SURFACE_INFO_INDEX_PHYS_SIZE_HI};
    uint32_t d[3];
    assert_int_equal(surface_info(&e, hc, HSYS, idx, d, 3), NV_OK);
    assert_int_equal(d[0], NV0000_CTRL_CMD_CLIENT_GET_ADDR_SPACE_TYPE_SYSMEM);
    assert_int_equal(d[1], 0x2000);
    assert_int_equal(d[2], 1);
    tenv_fini(&e);
}

static void compressed_memory_reports_compression_and_its_phys_attr_fields(void **state)
{
    (void)state;
    struct tenv e;
    uint32_t hc = up(&e);
    /* COMPR REQUIRED (13:12 = 1), page size BIG (24:23 = 2), format BLOCK_LINEAR (17:16 = 2), depth bits set */
    uint32_t attr = (1u << 12) | (2u << 23) | (2u << 16) | 0x5u;
    alloc_memory(&e, hc, HVID, NV01_MEMORY_LOCAL_USER, 0x200000, attr);
    const uint32_t idx[] = {NV0041_CTRL_SURFACE_INFO_INDEX_ATTRS, NV0041_CTRL_SURFACE_INFO_INDEX_PHYS_ATTR,
                            NV0041_CTRL_SURFACE_INFO_INDEX_COMPR_COVERAGE};
    uint32_t d[3];
    assert_int_equal(surface_info(&e, hc, HVID, idx, d, 3), NV_OK);
    assert_int_equal(d[0], NV0041_CTRL_SURFACE_INFO_ATTRS_COMPR);
    assert_int_equal(d[1], (2u << 23) | (2u << 16));
    assert_int_equal(d[2], 0x200000 / 0x10000);
    tenv_fini(&e);
}

static void unknown_index_stops_the_walk_with_invalid_argument(void **state)
{
    (void)state;
    struct tenv e;
    uint32_t hc = up(&e);
    alloc_memory(&e, hc, HVID, NV01_MEMORY_LOCAL_USER, VID_SIZE, VID_ATTR);
    const uint32_t idx[] = {NV0041_CTRL_SURFACE_INFO_INDEX_PHYS_SIZE_LO, 4, NV0041_CTRL_SURFACE_INFO_INDEX_PHYS_SIZE_HI};
    uint32_t d[3];
    assert_int_equal(surface_info(&e, hc, HVID, idx, d, 3), NV_ERR_INVALID_ARGUMENT);
    assert_int_equal(d[0], (uint32_t)VID_SIZE);
    assert_int_equal(d[1], 0xA5A5A5A5u);
    assert_int_equal(d[2], 0xA5A5A5A5u);
    tenv_fini(&e);
}

static void empty_list_answers_ok_untouched(void **state)
{
    (void)state;
    struct tenv e;
    uint32_t hc = up(&e);
    alloc_memory(&e, hc, HVID, NV01_MEMORY_LOCAL_USER, VID_SIZE, VID_ATTR);
    NV0041_CTRL_GET_SURFACE_INFO_PARAMS p = {0, 0, 0};
    assert_int_equal(tctrl(&e, e.ctl, hc, HVID, NV0041_CTRL_CMD_GET_SURFACE_INFO, &p, sizeof p), NV_OK);
    tenv_fini(&e);
}

static void list_over_the_param_copy_limit_is_refused(void **state)
{
    (void)state;
    struct tenv e;
    uint32_t hc = up(&e);
    alloc_memory(&e, hc, HVID, NV01_MEMORY_LOCAL_USER, VID_SIZE, VID_ATTR);
    NV0041_CTRL_SURFACE_INFO one = {NV0041_CTRL_SURFACE_INFO_INDEX_PHYS_SIZE_LO, 0};
    NV0041_CTRL_GET_SURFACE_INFO_PARAMS p = {(1u << 20) / 8 + 1, 0, (uint64_t)(uintptr_t)&one};
    assert_int_equal(tctrl(&e, e.ctl, hc, HVID, NV0041_CTRL_CMD_GET_SURFACE_INFO, &p, sizeof p),
                     NV_ERR_INVALID_ARGUMENT);
    tenv_fini(&e);
}

static void duplicate_answers_as_its_source(void **state)
{
    (void)state;
    struct tenv e;
    uint32_t hc = up(&e);
    alloc_memory(&e, hc, HVID, NV01_MEMORY_LOCAL_USER, VID_SIZE, VID_ATTR);
    NVOS55_PARAMETERS dup;
    memset(&dup, 0, sizeof dup);
    dup.hClient = hc;
    dup.hParent = HDEV;
    dup.hObject = 0x5c000020u;
    dup.hClientSrc = hc;
    dup.hObjectSrc = HVID;
    assert_int_equal(tio(&e, e.ctl, NV_ESC_RM_DUP_OBJECT, &dup, sizeof dup), 0);
    assert_int_equal(dup.status, NV_OK);
    const uint32_t idx[] = {NV0041_CTRL_SURFACE_INFO_INDEX_PHYS_SIZE_LO, NV0041_CTRL_SURFACE_INFO_INDEX_ADDR_SPACE_TYPE};
    uint32_t d[2];
    assert_int_equal(surface_info(&e, hc, 0x5c000020u, idx, d, 2), NV_OK);
    assert_int_equal(d[0], (uint32_t)VID_SIZE);
    assert_int_equal(d[1], NV0000_CTRL_CMD_CLIENT_GET_ADDR_SPACE_TYPE_VIDMEM);
    tenv_fini(&e);
}

static void unmodelled_memory_class_answers_not_supported(void **state)
{
    (void)state;
    struct tenv e;
    uint32_t hc = up(&e);
    NV_MEMORY_VIRTUAL_ALLOCATION_PARAMS vp;
    memset(&vp, 0, sizeof vp);
    uint32_t h = 0x5c000030u;
    assert_int_equal(talloc(&e, e.ctl, hc, HDEV, &h, NV01_MEMORY_VIRTUAL, &vp), NV_OK);
    const uint32_t idx[] = {NV0041_CTRL_SURFACE_INFO_INDEX_PHYS_SIZE_LO};
    uint32_t d[1];
    assert_int_equal(surface_info(&e, hc, h, idx, d, 1), NV_ERR_NOT_SUPPORTED);
    tenv_fini(&e);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(video_memory_answers_its_size_and_address_space),
        cmocka_unit_test(system_memory_answers_sysmem_and_a_size_above_4_gib),
        cmocka_unit_test(compressed_memory_reports_compression_and_its_phys_attr_fields),
        cmocka_unit_test(unknown_index_stops_the_walk_with_invalid_argument),
        cmocka_unit_test(empty_list_answers_ok_untouched),
        cmocka_unit_test(list_over_the_param_copy_limit_is_refused),
        cmocka_unit_test(duplicate_answers_as_its_source),
        cmocka_unit_test(unmodelled_memory_class_answers_not_supported),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
