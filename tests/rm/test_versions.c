/*
 * The driver-version axis: the ABI descriptor tables agree with the dispatcher's and the resource
 * server's rows, and each difference of 550.120 and 575.57.08 from the base release (580) is answered
 * with that release's layout (docs/driver-versions.md lists them). One test per difference.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>
#include <cmocka.h>

#include "abi/nv_abi_desc.h"
#include "abi/nv_ctrl_fifo.h"
#include "abi/nv_layouts_pre580.h"
#include "abi/nv_uvm.h"
#include "dispatch/dispatch_internal.h"
#include "rm/rm.h"
#include "rm_fifo_util.h"

#define HDEV 0x5C000002u
#define HSUB 0x5C000003u
#define HVA 0x5C000009u

/* An emulator answering as `driver` (NULL: the profile's), with client, device, subdevice and VA space. */
static uint32_t env_up(struct tenv *e, const char *driver)
{
    nvemu_config cfg;
    nvemu_config_init(&cfg);
    cfg.driver = driver;
    assert_int_equal(tenv_init_with(e, &cfg), 0);
    uint32_t hc = tbase(e, e->ctl, HDEV, HSUB);
    assert_int_not_equal(hc, 0);
    return hc;
}

/* `len` bytes that end where an inaccessible page starts: a read of one more byte faults. */
struct guarded {
    unsigned char *map;
    size_t page;
};

static void *guarded_block(struct guarded *g, size_t len)
{
    g->page = (size_t)sysconf(_SC_PAGESIZE);
    g->map = mmap(NULL, 2 * g->page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    assert_true(g->map != MAP_FAILED);
    assert_int_equal(mprotect(g->map + g->page, g->page, PROT_NONE), 0);
    memset(g->map, 0, g->page);
    return g->map + g->page - len;
}

static void guarded_free(struct guarded *g)
{
    munmap(g->map, 2 * g->page);
}

static void release_parse_takes_major_or_full_version(void **state)
{
    (void)state;
    enum nv_release r;
    assert_true(nv_release_parse("550", &r));
    assert_int_equal(r, NV_REL_550);
    assert_true(nv_release_parse("575.57.08", &r));
    assert_int_equal(r, NV_REL_575);
    assert_true(nv_release_parse("580.159.04", &r));
    assert_int_equal(r, NV_REL_580);
    assert_false(nv_release_parse("535.1", &r));
    assert_false(nv_release_parse("580x", &r));
    assert_false(nv_release_parse("", &r));
    assert_false(nv_release_parse(NULL, &r));
    assert_string_equal(nv_release_info(NV_REL_550)->version, "550.120");
}

static void newest_listed_class_of_a_kind_is_preferred(void **state)
{
    (void)state;
    const uint32_t have[] = {TURING_COMPUTE_A, HOPPER_COMPUTE_A, AMPERE_COMPUTE_B, HOPPER_CHANNEL_GPFIFO_A,
                             VOLTA_DMA_COPY_A};
    assert_int_equal(nv_class_newest(NV_CK_COMPUTE, have, 5), HOPPER_COMPUTE_A);
    assert_int_equal(nv_class_newest(NV_CK_CHANNEL, have, 5), HOPPER_CHANNEL_GPFIFO_A);
    assert_int_equal(nv_class_newest(NV_CK_COPY, have, 5), VOLTA_DMA_COPY_A);
    assert_int_equal(nv_class_newest(NV_CK_USERMODE, have, 5), 0);
    /* an interface id names no allocatable class */
    const uint32_t iface[] = {KEPLER_CHANNEL_GPFIFO_A};
    assert_int_equal(nv_class_newest(NV_CK_CHANNEL, iface, 1), 0);
}

/* The rm class rows copy exactly what the class descriptors say, and every descriptor kind agrees with the row family. */
static void class_rows_copy_what_the_descriptors_say(void **state)
{
    (void)state;
    unsigned rows = 0;
    for (const struct rm_class_table *t = rm_class_tables; t->rows; t++)
        for (const struct rm_class_row *r = t->rows; r->name; r++, rows++) {
            const struct nv_class_desc *d = nv_class_desc(r->hclass);
            if (!d)
                fail_msg("class %s (0x%04x) has no descriptor", r->name, r->hclass);
            assert_string_equal(d->name, r->name);
            assert_true(d->allocatable);
            if (r->params != RM_PARAMS_NONE)
                assert_int_equal(d->params_size, r->param_size);
            if (r->family == RM_FAM_CHANNEL)
                assert_int_equal(d->kind, NV_CK_CHANNEL);
            if (r->family == RM_FAM_USERMODE)
                assert_int_equal(d->kind, NV_CK_USERMODE);
        }
    assert_true(rows > 40);
}

/* The dispatcher's rows have the descriptors' sizes, status words and nodes. */
static void escape_rows_match_the_descriptors(void **state)
{
    (void)state;
    const struct esc_row *const t[] = {esc_rows_os, esc_rows_rm};
    unsigned rows = 0;
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        for (const struct esc_row *r = t[i]; r->name; r++, rows++) {
            /* a row that takes several sizes (0) has a descriptor per layout, or one of size 0 */
            const struct nv_escape_desc *d = NULL;
            for (const struct nv_escape_desc *k = nv_escape_descs; k->name && !d; k++)
                if (k->nr == r->nr && (k->size == r->size || !r->size))
                    d = k;
            if (!d)
                fail_msg("escape %s (0x%02x, %u bytes) has no descriptor", r->name, r->nr, r->size);
            assert_string_equal(d->name, r->name);
            assert_int_equal((unsigned)d->nodes, (unsigned)r->node);
            if (!r->fn)
                assert_int_equal(d->status_at, r->status_offset);
        }
    assert_true(rows > 30);
    /* both layouts of RM_ALLOC */
    assert_int_equal(nv_escape_desc(NV_ESC_RM_ALLOC, sizeof(NVOS21_PARAMETERS))->ptrs[1].what, NULL);
    assert_int_equal(nv_escape_desc(NV_ESC_RM_ALLOC, sizeof(NVOS64_PARAMETERS))->ptrs[1].at,
                     offsetof(NVOS64_PARAMETERS, pRightsRequested));
    assert_null(nv_escape_desc(NV_ESC_RM_ALLOC, 40));
}

static void uvm_rows_match_the_descriptors(void **state)
{
    (void)state;
    unsigned rows = 0;
    for (const struct esc_row *r = esc_rows_uvm; r->name; r++, rows++) {
        const struct nv_uvm_desc *d = nv_uvm_desc(r->nr);
        if (!d)
            fail_msg("UVM request %s has no descriptor", r->name);
        assert_int_equal(d->size, r->size);
        if (r->size)
            assert_int_equal(d->status_at, r->status_offset);
    }
    for (const struct nv_uvm_desc *d = nv_uvm_descs; d->name; d++)
        assert_non_null(dispatch_uvm_row(d->cmd));
    assert_true(rows > 40);
}

/* 550's CTXSW_PREEMPTION_BIND has 8 buffer pointers: its modes land 8 bytes later in the base layout and back. */
static void layout_map_moves_fields_after_the_gap(void **state)
{
    (void)state;
    struct nv_layout_map m = nv_ctrl_layout(NV_REL_550, NV2080_CTRL_CMD_GR_CTXSW_PREEMPTION_BIND,
                                            sizeof(NV2080_CTRL_GR_CTXSW_PREEMPTION_BIND_PARAMS));
    assert_int_equal(m.size, NV2080_CTRL_GR_CTXSW_PREEMPTION_BIND_PARAMS_R550_SIZE);
    unsigned char older[NV2080_CTRL_GR_CTXSW_PREEMPTION_BIND_PARAMS_R550_SIZE], back[sizeof older];
    for (size_t i = 0; i < sizeof older; i++)
        older[i] = (unsigned char)(i + 1);
    NV2080_CTRL_GR_CTXSW_PREEMPTION_BIND_PARAMS base;
    nv_layout_to_base(&m, older, &base, sizeof base);
    uint32_t cilp;
    memcpy(&cilp, older + NV2080_CTRL_GR_CTXSW_PREEMPTION_BIND_PARAMS_R550_OFF_cilpPreemptMode, 4);
    assert_int_equal(base.cilpPreemptMode, cilp);
    assert_int_equal(base.vMemPtrs[8], 0); /* the buffer 550 does not have */
    nv_layout_from_base(&m, &base, back);
    assert_memory_equal(back, older, sizeof older);
    /* the base release maps onto itself */
    m = nv_ctrl_layout(NV_REL_580, NV2080_CTRL_CMD_GR_CTXSW_PREEMPTION_BIND, sizeof base);
    assert_int_equal(m.size, sizeof base);
    assert_int_equal(m.gap, 0);
}

static NV_STATUS schedule(struct tenv *e, uint32_t hc, uint32_t htsg, uint32_t size)
{
    NVA06F_CTRL_GPFIFO_SCHEDULE_PARAMS p = {.bEnable = 1};
    return tctrl(e, e->ctl, hc, htsg, NVA06C_CTRL_CMD_GPFIFO_SCHEDULE, &p, size);
}

/* GPreempt's 550 build schedules a group with a 2-byte block; 580 wants 3 (bSkipEnable). */
static void gpfifo_schedule_takes_two_bytes_on_550_only(void **state)
{
    (void)state;
    const struct {
        const char *driver;
        uint32_t ok_size, bad_size;
    } rows[] = {{"550", sizeof(NVA06F_CTRL_GPFIFO_SCHEDULE_PARAMS_R550), sizeof(NVA06F_CTRL_GPFIFO_SCHEDULE_PARAMS)},
                {"580", sizeof(NVA06F_CTRL_GPFIFO_SCHEDULE_PARAMS), sizeof(NVA06F_CTRL_GPFIFO_SCHEDULE_PARAMS_R550)}};
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        struct tenv e;
        uint32_t hc = env_up(&e, rows[i].driver);
        NV_VASPACE_ALLOCATION_PARAMETERS va = {0};
        uint32_t hva = HVA;
        assert_int_equal(talloc(&e, e.ctl, hc, HDEV, &hva, FERMI_VASPACE_A, &va), NV_OK);
        struct tgroup g = {0};
        assert_int_equal(tgroup_build(&e, e.ctl, hc, HDEV, HVA, 0x100, 1, &g), NV_OK);
        assert_int_equal(schedule(&e, hc, g.htsg, rows[i].bad_size), NV_ERR_INVALID_ARGUMENT);
        assert_int_equal(schedule(&e, hc, g.htsg, rows[i].ok_size), NV_OK);
        tenv_fini(&e);
    }
}

/* NV_VASPACE_ALLOCATION_PARAMETERS gained pasid in 580: 575 reads 48 bytes, 580 reads 56. */
static void vaspace_params_are_48_bytes_before_580(void **state)
{
    (void)state;
    const struct {
        const char *driver;
        NV_STATUS want;
    } rows[] = {{"550", NV_OK}, {"575", NV_OK}, {"580", NV_ERR_INVALID_ADDRESS}};
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        struct tenv e;
        uint32_t hc = env_up(&e, rows[i].driver);
        struct guarded g;
        void *va = guarded_block(&g, sizeof(NV_VASPACE_ALLOCATION_PARAMETERS_R575));
        uint32_t hva = HVA;
        assert_int_equal(talloc(&e, e.ctl, hc, HDEV, &hva, FERMI_VASPACE_A, va), rows[i].want);
        guarded_free(&g);
        tenv_fini(&e);
    }
}

/* NV_CHANNEL_ALLOC_PARAMS gained tpcConfigID in 575: 550 reads and writes back 360 bytes. */
static void channel_params_are_360_bytes_on_550(void **state)
{
    (void)state;
    const struct {
        const char *driver;
        NV_STATUS want;
    } rows[] = {{"550", NV_OK}, {"575", NV_ERR_INVALID_ADDRESS}};
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        struct tenv e;
        uint32_t hc = env_up(&e, rows[i].driver);
        NV_VASPACE_ALLOCATION_PARAMETERS va = {0};
        uint32_t hva = HVA;
        assert_int_equal(talloc(&e, e.ctl, hc, HDEV, &hva, FERMI_VASPACE_A, &va), NV_OK);
        struct tgroup tg = {0};
        assert_int_equal(tgroup_build(&e, e.ctl, hc, HDEV, HVA, 0x100, 0, &tg), NV_OK);
        struct guarded g;
        NV_CHANNEL_ALLOC_PARAMS full = {.hContextShare = tg.hctx, .engineType = NV2080_ENGINE_TYPE_GR0,
                                        .gpFifoEntries = 1024};
        void *chp = guarded_block(&g, NV_CHANNEL_ALLOC_PARAMS_R550_SIZE);
        memcpy(chp, &full, NV_CHANNEL_ALLOC_PARAMS_R550_SIZE);
        uint32_t hch = 0x200;
        assert_int_equal(talloc(&e, e.ctl, hc, tg.htsg, &hch, HOPPER_CHANNEL_GPFIFO_A, chp), rows[i].want);
        guarded_free(&g);
        tenv_fini(&e);
    }
}

/* MAP_MEMORY_DMA (not modelled): NVOS46 is 56 bytes before 580 (status at 48), 64 in 580 (status at 56). */
static void map_memory_dma_layout_follows_the_release(void **state)
{
    (void)state;
    const struct {
        const char *driver;
        uint32_t size, status_at;
        int bad_rc;
    } rows[] = {{"550", 56, 48, -EINVAL}, {"575", 56, 48, -EINVAL}, {"580", 64, 56, -EINVAL}};
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        struct tenv e;
        env_up(&e, rows[i].driver);
        unsigned char b[64] = {0};
        assert_int_equal(tio(&e, e.ctl, NV_ESC_RM_MAP_MEMORY_DMA, b, rows[i].size), 0);
        uint32_t st;
        memcpy(&st, b + rows[i].status_at, 4);
        assert_int_equal(st, NV_ERR_NOT_SUPPORTED);
        uint32_t other = rows[i].size == 56 ? 64 : 56;
        assert_int_equal(tio(&e, e.ctl, NV_ESC_RM_MAP_MEMORY_DMA, b, other), rows[i].bad_rc);
        tenv_fini(&e);
    }
}

/* nv_ioctl_export_to_dma_buf_fd_t before mappingType (550): its status word sits at 2592. */
static void dmabuf_export_status_word_moves_on_550(void **state)
{
    (void)state;
    struct tenv e;
    env_up(&e, "550");
    int dev = topen_gpu(&e, e.ctl);
    assert_true(dev >= 0);
    static unsigned char b[NV_IOCTL_EXPORT_TO_DMABUF_FD_SIZE];
    memset(b, 0, sizeof b);
    assert_int_equal(tio(&e, dev, NV_ESC_EXPORT_TO_DMABUF_FD, b, sizeof b), -EINVAL); /* 580's 2608 bytes */
    assert_int_equal(tio(&e, dev, NV_ESC_EXPORT_TO_DMABUF_FD, b, sizeof(nv_ioctl_export_to_dma_buf_fd_t_R550)), 0);
    uint32_t st;
    memcpy(&st, b + offsetof(nv_ioctl_export_to_dma_buf_fd_t_R550, status), 4);
    assert_int_equal(st, NV_ERR_NOT_SUPPORTED);
    memcpy(&st, b + offsetof(nv_ioctl_export_to_dma_buf_fd_t, status), 4);
    assert_int_equal(st, 0);
    tenv_fini(&e);
}

/* NVA06F_CTRL_CMD_GET_CONTEXT_ID came with 575: on 550 the channel does not know it. */
static void get_context_id_is_unknown_on_550(void **state)
{
    (void)state;
    const char *drivers[] = {"550", "575"};
    for (size_t i = 0; i < sizeof drivers / sizeof drivers[0]; i++) {
        struct tenv e;
        uint32_t hc = env_up(&e, drivers[i]);
        NV_VASPACE_ALLOCATION_PARAMETERS va = {0};
        uint32_t hva = HVA;
        assert_int_equal(talloc(&e, e.ctl, hc, HDEV, &hva, FERMI_VASPACE_A, &va), NV_OK);
        struct tgroup g = {0};
        assert_int_equal(tgroup_build(&e, e.ctl, hc, HDEV, HVA, 0x100, 1, &g), NV_OK);
        NVA06F_CTRL_GET_CONTEXT_ID_PARAMS p = {0};
        NV_STATUS st = tctrl(&e, e.ctl, hc, g.hch[0], NVA06F_CTRL_CMD_GET_CONTEXT_ID, &p, sizeof p);
        if (i == 0)
            assert_int_equal(st, NV_ERR_NOT_SUPPORTED);
        else
            assert_int_not_equal(st, NV_ERR_NOT_SUPPORTED);
        tenv_fini(&e);
    }
}

/* 550's CTXSW_PREEMPTION_BIND is 104 bytes; 112 is refused there, 104 on 580. */
static void preemption_bind_is_104_bytes_on_550(void **state)
{
    (void)state;
    const struct {
        const char *driver;
        uint32_t good, bad;
    } rows[] = {{"550", 104, 112}, {"580", 112, 104}};
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        struct tenv e;
        uint32_t hc = env_up(&e, rows[i].driver);
        NV_VASPACE_ALLOCATION_PARAMETERS va = {0};
        uint32_t hva = HVA;
        assert_int_equal(talloc(&e, e.ctl, hc, HDEV, &hva, FERMI_VASPACE_A, &va), NV_OK);
        struct tgroup g = {0};
        assert_int_equal(tgroup_build(&e, e.ctl, hc, HDEV, HVA, 0x100, 1, &g), NV_OK);
        NV2080_CTRL_GR_CTXSW_PREEMPTION_BIND_PARAMS p;
        memset(&p, 0, sizeof p);
        p.hClient = hc;
        p.hChannel = g.htsg;
        NV_STATUS bad = tctrl(&e, e.ctl, hc, HSUB, NV2080_CTRL_CMD_GR_CTXSW_PREEMPTION_BIND, &p, rows[i].bad);
        assert_int_equal(bad, NV_ERR_INVALID_ARGUMENT);
        NV_STATUS good = tctrl(&e, e.ctl, hc, HSUB, NV2080_CTRL_CMD_GR_CTXSW_PREEMPTION_BIND, &p, rows[i].good);
        assert_int_not_equal(good, NV_ERR_INVALID_ARGUMENT);
        tenv_fini(&e);
    }
}

/*
 * Every control whose params differ in a release: that release takes its own size and refuses the base's
 * (the size check comes before the object lookup, so the client itself is object enough), and the base
 * release refuses the older size.
 */
static void every_control_delta_takes_the_release_size(void **state)
{
    (void)state;
    unsigned checked = 0;
    for (const struct nv_release_delta *d = nv_release_deltas; d->what; d++) {
        if (d->kind != NV_DELTA_CONTROL || d->absent)
            continue;
        const struct rm_ctrl_row *row = rm_ctrl_lookup(d->id);
        assert_non_null(row);
        for (int rel = 0; rel < NV_REL_COUNT; rel++) {
            if (!(d->releases & (1u << rel)))
                continue;
            struct tenv e;
            uint32_t hc = env_up(&e, nv_release_info((enum nv_release)rel)->version);
            static unsigned char buf[4096];
            memset(buf, 0, sizeof buf);
            assert_true(row->param_size <= sizeof buf);
            assert_int_equal(tctrl(&e, e.ctl, hc, hc, d->id, buf, row->param_size), NV_ERR_INVALID_ARGUMENT);
            assert_int_not_equal(tctrl(&e, e.ctl, hc, hc, d->id, buf, d->size), NV_ERR_INVALID_ARGUMENT);
            tenv_fini(&e);
            checked++;
        }
        struct tenv e;
        uint32_t hc = env_up(&e, "580");
        static unsigned char buf[4096];
        memset(buf, 0, sizeof buf);
        assert_int_equal(tctrl(&e, e.ctl, hc, hc, d->id, buf, d->size), NV_ERR_INVALID_ARGUMENT);
        tenv_fini(&e);
    }
    assert_true(checked >= 10);
}

/* CHECK_VERSION_STR and the build string answer the release's version; a bare major takes the release's own. */
static void version_string_is_the_release(void **state)
{
    (void)state;
    const struct {
        const char *driver, *want;
    } rows[] = {{"550", "550.120"}, {"575", "575.57.08"}, {"550.127.05", "550.127.05"}, {NULL, "580.159.04"}};
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        struct tenv e;
        env_up(&e, rows[i].driver);
        nv_ioctl_rm_api_version_t v;
        memset(&v, 0, sizeof v);
        v.cmd = NV_RM_API_VERSION_CMD_QUERY;
        tio(&e, e.ctl, NV_ESC_CHECK_VERSION_STR, &v, sizeof v);
        assert_string_equal(v.versionString, rows[i].want);
        assert_string_equal(nvemu_profile(e.emu)->driver_version, rows[i].want);
        /* the recorded 580.159.04 build names its r580 branch; another release's build is not known: its version */
        assert_string_equal(nvemu_profile(e.emu)->build_version,
                            rows[i].driver ? rows[i].want : "rel/gpu_drv/r580/r582_49-530");
        tenv_fini(&e);
    }
}

static void unknown_release_is_refused_with_the_known_ones(void **state)
{
    (void)state;
    nvemu_config cfg;
    nvemu_config_init(&cfg);
    cfg.driver = "535";
    char err[256] = "";
    assert_null(nvemu_create(&cfg, err, sizeof err));
    assert_non_null(strstr(err, "550, 575 and 580"));
    cfg.driver = NULL;
    const char *set[] = {"build.driver_version=535.104.05"};
    cfg.profile_set = set;
    cfg.profile_nset = 1;
    err[0] = '\0';
    assert_null(nvemu_create(&cfg, err, sizeof err));
    assert_non_null(strstr(err, "build.driver_version 535.104.05"));
}

/* V100 runs on the proprietary module, which allocates VOLTA_COMPUTE_A; the open module has no entry for it. */
static void volta_compute_needs_the_proprietary_module(void **state)
{
    (void)state;
    const struct {
        const char *module;
        NV_STATUS want;
    } rows[] = {{"build.kernel_module=proprietary", NV_OK}, {"build.kernel_module=open", NV_ERR_INVALID_CLASS}};
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        nvemu_config cfg;
        nvemu_config_init(&cfg);
        cfg.profile = "v100";
        const char *set[] = {rows[i].module};
        cfg.profile_set = set;
        cfg.profile_nset = 1;
        char err[256];
        struct tenv e;
        e.emu = nvemu_create(&cfg, err, sizeof err);
        assert_non_null(e.emu);
        e.t = nvemu_fdtable_create(e.emu, false);
        tenv_identity(&e.who, 100, 1000, 0);
        e.ctl = nvemu_fdtable_open(e.t, "/dev/nvidiactl", &e.who);
        uint32_t hc = tbase(&e, e.ctl, HDEV, HSUB);
        NV_VASPACE_ALLOCATION_PARAMETERS va = {0};
        uint32_t hva = HVA;
        assert_int_equal(talloc(&e, e.ctl, hc, HDEV, &hva, FERMI_VASPACE_A, &va), NV_OK);
        struct tgroup g = {0};
        assert_int_equal(tgroup_build(&e, e.ctl, hc, HDEV, HVA, 0x100, 0, &g), NV_OK);
        NV_CHANNEL_ALLOC_PARAMS chp = {.hContextShare = g.hctx, .engineType = NV2080_ENGINE_TYPE_GR0,
                                       .gpFifoEntries = 1024};
        uint32_t hch = 0x200, hobj = 0x201;
        assert_int_equal(talloc(&e, e.ctl, hc, g.htsg, &hch, VOLTA_CHANNEL_GPFIFO_A, &chp), NV_OK);
        NV_GR_ALLOCATION_PARAMETERS grp = {0};
        assert_int_equal(talloc(&e, e.ctl, hc, hch, &hobj, VOLTA_COMPUTE_A, &grp), rows[i].want);
        tenv_fini(&e);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(release_parse_takes_major_or_full_version),
        cmocka_unit_test(newest_listed_class_of_a_kind_is_preferred),
        cmocka_unit_test(class_rows_copy_what_the_descriptors_say),
        cmocka_unit_test(escape_rows_match_the_descriptors),
        cmocka_unit_test(uvm_rows_match_the_descriptors),
        cmocka_unit_test(layout_map_moves_fields_after_the_gap),
        cmocka_unit_test(gpfifo_schedule_takes_two_bytes_on_550_only),
        cmocka_unit_test(vaspace_params_are_48_bytes_before_580),
        cmocka_unit_test(channel_params_are_360_bytes_on_550),
        cmocka_unit_test(map_memory_dma_layout_follows_the_release),
        cmocka_unit_test(dmabuf_export_status_word_moves_on_550),
        cmocka_unit_test(get_context_id_is_unknown_on_550),
        cmocka_unit_test(preemption_bind_is_104_bytes_on_550),
        cmocka_unit_test(every_control_delta_takes_the_release_size),
        cmocka_unit_test(version_string_is_the_release),
        cmocka_unit_test(unknown_release_is_refused_with_the_known_ones),
        cmocka_unit_test(volta_compute_needs_the_proprietary_module),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
