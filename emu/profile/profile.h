/*
 * GPU profile: everything the emulator knows about one GPU model, loaded from
 * a data file (emu/profiles/<name>.yaml). rm reads the identity, classes and
 * discovery answers; fifo and sim read the scheduling and timing parameters.
 * No code path hard-codes a value that lives here.
 */
#ifndef NVEMU_PROFILE_H
#define NVEMU_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "abi/nv_abi_desc.h"

#define PROFILE_MAX_CLASSES   256

/*
 * The kernel module a profile's GPU runs on: the open one (Turing and later), or NVIDIA's proprietary one,
 * which has the same RM and ioctl ABI and also serves Volta (VOLTA_COMPUTE_A has an allocation entry there).
 */
enum { PROFILE_MODULE_OPEN = 0, PROFILE_MODULE_PROPRIETARY = 1 };

/* Where a part of a profile comes from: recorded on the board, derived from driver sources or documents, assumed. */
enum profile_source { PROFILE_SOURCE_MEASURED = 0, PROFILE_SOURCE_DERIVED = 1, PROFILE_SOURCE_ASSUMED = 2 };

/* One `provenance:` row: a top-level key of the profile (or KEY.FIELD), its kind and the source it cites. */
struct profile_provenance {
    char key[48];
    int kind;                      /* enum profile_source */
    char source[200];
};
#define PROFILE_MAX_ENGINES   64
#define PROFILE_MAX_INFO      128
#define PROFILE_MAX_CANNED    512
#define PROFILE_MAX_PROVENANCE 32

/* One engine and the runlist that serves it (from the device-info table). */
struct profile_engine {
    uint32_t engine_type;     /* NV2080_ENGINE_TYPE_* (GR0 = 1, COPY0 = 9, ...) */
    uint32_t runlist_id;
    char name[16];            /* "GR0", "COPY2", ... */
};

/* An index -> value pair of GPU_GET_INFO_V2 / GR_GET_INFO / FIFO_GET_INFO style tables. */
struct profile_info {
    uint32_t index;
    uint32_t value;
};

/*
 * A control whose answer the emulator replays as recorded on the real GPU
 * (semantics not modelled): on NV_OK the params are replaced by `out`.
 * `source` says where the bytes came from (e.g. "hw-h200-580 trace line 57").
 */
struct profile_canned_ctrl {
    uint32_t cmd;
    uint32_t size;
    uint8_t *out;
    char source[64];
    /* when `in` is set the answer applies only to a call whose
     * input params equal these in_size bytes (controls answering per input). */
    uint8_t *in;
    uint32_t in_size;
    uint32_t status;    /* NV_STATUS the driver answered (0: NV_OK, out copied; else out is not written) */
};

/*
 * An index -> value table of another {listSize, {index,data}[N]} style control
 * (FB_GET_INFO_V2, BUS_GET_INFO_V2 ...), keyed by the control's cmd.
 */
#define PROFILE_MAX_INFO_TABLES 8
struct profile_info_table {
    uint32_t cmd;
    uint32_t count;
    struct profile_info entries[PROFILE_MAX_INFO];
};

/*
 * What the board's sensors read, for the RM user-shared-data page (emu/rm/rusd.h): clocks, power and
 * temperatures at idle and under full graphics load; the page moves between them with the engine's
 * utilisation. All 0 (the section absent): the page's polled data stays "not available".
 */
struct profile_sensors {
    uint32_t graphics_idle_mhz, graphics_max_mhz, memory_mhz, video_mhz;
    uint32_t power_idle_mw, power_busy_mw, power_limit_mw;
    uint32_t gpu_temp_idle_c, gpu_temp_busy_c, memory_temp_idle_c, memory_temp_busy_c;
    uint64_t thermal_tau_ns;           /* time constant of the temperature's approach to its target */
};

/*
 * NVLink of each GPU (`nvlink:`): NVLINK_GET_NVLINK_CAPS's global caps table (NV2080_CTRL_NVLINK_CAPS_* bits,
 * byte 0 in bits 0-7, byte 1 in 8-15), the NVLink and NCI versions (lowest = highest) and the discovered = enabled
 * link mask, and the copy engines P2P over those links uses (SYSTEM_GET_P2P_CAPS optimal read/write CE masks).
 * All 0 (the section absent): no NVLink, the caps answer zeros and P2P caps are not modelled.
 */
struct profile_nvlink {
    uint32_t caps;
    uint32_t version, nci_version;
    uint64_t links;
    uint32_t p2p_read_ces, p2p_write_ces;
};

/* Scheduling and timing parameters of the FIFO model (all times in ns). */
struct profile_timing {
    uint64_t ctxsw_ns;             /* TSG context switch on an engine */
    uint64_t runlist_update_ns;    /* runlist rebuild + submit */
    uint64_t wfi_overhead_ns;      /* fixed cost on top of draining the running kernel */
    uint64_t cta_overhead_ns;      /* fixed cost on top of draining running thread blocks */
    uint64_t cilp_save_ns;         /* instruction-level save latency */
    uint64_t preempt_timeout_ns;   /* default preempt timeout when no manual timeout is given */
    /* control-path latencies injected when nvemu_config.inject_latency is set */
    uint64_t lat_get_timeslice_ns;
    uint64_t lat_set_timeslice_ns;
    uint64_t lat_preempt_ns;
    uint64_t lat_tsg_alloc_ns;
    uint64_t lat_channel_alloc_ns;
    uint64_t lat_control_ns;       /* any other control */
    /* the saved context grows with the kernel's footprint (0 in profiles that do not model it) */
    uint64_t save_ns_per_kb;       /* CILP save: per KiB of shared memory per block of the interrupted kernel */
    uint64_t restore_ns_per_kb;    /* switch-in of a group saved mid-kernel, before its slice: per KiB of that kernel's
                                    * shared memory */
    uint64_t idle_save_ns;         /* switch away from a group still loaded after it ran out of work: its context save */
    uint64_t restore_busy_ns;      /* a group resumed from a CILP save is still restoring until this long after its load
                                    * began: a CILP save of it before then waits for the rest (0: none) */
    /* per save and per SM (emu/fifo/fifo.h; all 0: every load ctxsw_ns, every CILP save cilp_save_ns): a CILP save
     * costs cilp_save_per_sm_ns more per SM the interrupted kernel occupied, cilp_resave_ns instead of cilp_save_ns
     * when that kernel was the one its group's load restored; the load of a group so saved costs cilp_restore_ns +
     * cilp_restore_per_sm_ns per SM instead of ctxsw_ns */
    uint64_t cilp_save_per_sm_ns;
    uint64_t cilp_resave_ns;
    uint64_t cilp_restore_ns;
    uint64_t cilp_restore_per_sm_ns;
    /* ... but a short slice's load restores in at most short_slice_restore_ns + short_slice_restore_per_us_ns per
     * microsecond of the slice (0: no such bound) */
    uint64_t short_slice_restore_ns;
    uint64_t short_slice_restore_per_us_ns;
    /* a CILP preemption near a kernel boundary takes the boundary (a WFI save): the kernel completes when at most
     * lock_left_ns of it is left, goes back to its queue when it began at most lock_ran_ns before (0: never) */
    uint64_t lock_left_ns;
    uint64_t lock_ran_ns;
    /* a kernel that starts its group's work from idle but waited in its queue at least the part of kernel_gap_ns
     * that kernel_gap_overlap_ns hides behind a running kernel hides that part too (false: it pays all of it) */
    bool wait_hides_gap;
    /* kernel shapes (emu/fifo/fifo.h): the SM's limits that give resident blocks per SM (0 sm_threads: one block per
     * SM whatever the shape), the default kernel's registers, and the restore that the block's own threads do of its
     * shared memory inside the new slice: per KiB each thread copies plus per KiB of the SM's resident blocks, less
     * what restore_thread_free_bytes per thread would cost (hidden by the rest of the load) */
    uint32_t sm_threads, sm_regs, sm_blocks, sm_shared_kb, kernel_regs;
    uint64_t restore_ns_per_thread_kb;
    uint64_t restore_ns_per_sm_kb;
    uint32_t restore_thread_free_bytes;
    uint64_t timeslice_tick_ns;    /* what one microsecond of a runlist entry's timeslice lasts (0: 1000 ns) */
    /* a group that runs out of work hands the engine to the next group that was already runnable when it was
     * switched in; work that came later waits for an expiry (false: to the next runnable group) */
    bool yield_skips_late_work;
    /* ... but only when it ran at least this long since its load ended: one that ran out of work sooner hands the
     * engine to the next runnable group in runlist order, late work included (0: whatever it ran) */
    uint64_t yield_skip_min_run_ns;
    /* a slice that expires while the group runs its last queued kernel hands the engine to the next group that was
     * already runnable when that kernel began (or resumed); work that came later waits for the next pass (false: to
     * the next runnable group) */
    bool expiry_skips_late_work;
    /* an engine that idled longer than wake_after_ns takes wake_per_ms_ns per ms beyond it (at most wake_max_ns) more
     * to start its next work */
    uint64_t wake_after_ns;
    uint64_t wake_per_ms_ns;
    uint64_t wake_max_ns;
    uint64_t kernel_gap_ns;        /* engine time each kernel costs beyond its blocks (launch processing, drain) */
    /* a kernel submitted while another kernel of its group is queued or running hides up to kernel_gap_overlap_ns
     * of kernel_gap_ns behind it, overlap_wave_ns less per wave after its first (emu/fifo/fifo.h; 0: none) */
    uint64_t kernel_gap_overlap_ns;
    uint64_t overlap_wave_ns;
    /* host side, applied by the scenario runner (not by RM or the engines) */
    uint64_t launch_ns;            /* a process's launch call to its kernel being queued on the channel */
    uint64_t completion_ns;        /* a kernel's completion to the process seeing it */
    uint64_t host_jitter_ns;       /* scale of the logistic spread around completion_ns (0: none) */
};

/* The PCI BAR addresses of one GPU: BAR0 (registers), BAR1 (the framebuffer aperture) and BAR2. */
struct profile_gpu_bars {
    uint64_t bar0_address, fb_address, bar2_address;
};

struct profile {
    char name[32];                 /* "h200" */
    char chip[32];                 /* "GH100" */
    char arch[16];                 /* "volta" | "turing" | "ampere" | "ada" | "hopper" | "blackwell" */
    char marketing_name[64];       /* GPU_GET_NAME_STRING answer */
    char driver_version[32];       /* "580.159.04" */
    enum nv_release release;       /* the driver release whose layouts answer (from driver_version) */
    int kernel_module;             /* PROFILE_MODULE_OPEN or _PROPRIETARY: which nvidia.ko serves the GPU */
    char notes[256];               /* what the profile assumes (e.g. Volta on the open driver) */

    uint32_t gpu_count;            /* /dev/nvidia0..N-1 */
    /* PCI identity of GPU 0; GPU i gets bus + i, or slot + i when pci_gpus_by_slot (a VM's GPUs on one bus) */
    uint32_t pci_domain, pci_bus, pci_slot, pci_function;
    bool pci_gpus_by_slot;
    uint16_t pci_vendor_id, pci_device_id;
    uint32_t pci_subsystem_id;
    uint64_t bar0_address, bar0_size, fb_address, fb_size;
    uint64_t bar2_address;         /* GPU 0's BAR2 (0: not given) */
    /* BAR addresses of GPUs 1..gpu_count-1 in order (`pci.next_gpus`); a GPU past the list answers GPU 0's */
    uint32_t next_gpu_bars_count;
    struct profile_gpu_bars next_gpu_bars[31];
    uint16_t interrupt_line;
    uint8_t uuid[16];
    /* UUIDs of GPUs 1..gpu_count-1 in order (`uuids:`); a GPU past the list answers GPU 0's */
    uint32_t extra_uuid_count;
    uint8_t extra_uuids[31][16];

    uint32_t class_count;
    uint32_t classes[PROFILE_MAX_CLASSES];

    uint32_t sm_count, gpc_count, tpc_per_gpc, sm_per_tpc;

    uint32_t engine_count;
    struct profile_engine engines[PROFILE_MAX_ENGINES];

    /* FIFO limits and defaults */
    uint64_t default_timeslice_us;     /* 1024 */
    uint64_t min_timeslice_us;         /* hardware minimum the model rounds up to */
    uint32_t timeslice_scale_max;      /* hardware encodes timeout x 2^scale */
    uint32_t max_channel_groups;       /* 2048 */
    uint32_t max_channels_per_group;   /* 128 */
    uint32_t max_subcontexts;          /* 64 */
    bool per_runlist_chram;            /* separate TSG/ChID spaces per runlist */
    uint32_t default_compute_preempt_mode; /* 0 WFI, 1 CTA, 2 CILP */

    struct profile_timing timing;
    struct profile_sensors sensors;    /* optional section `sensors:` */
    struct profile_nvlink nvlink;      /* optional section `nvlink:` */

    uint32_t gpu_info_count;
    struct profile_info gpu_info[PROFILE_MAX_INFO];   /* GPU_GET_INFO_V2 */
    uint32_t gr_info_count;
    struct profile_info gr_info[PROFILE_MAX_INFO];    /* GR_GET_INFO */

    uint32_t canned_count;

    uint32_t provenance_count;
    struct profile_provenance provenance[PROFILE_MAX_PROVENANCE];
    struct profile_canned_ctrl canned[PROFILE_MAX_CANNED];

    /* discovery answers: names, build strings, PCI and memory facts */
    char short_name[64];           /* GPU_GET_SHORT_NAME_STRING answer ("GH100GL-A") */
    char build_version[64];        /* SYSTEM_GET_BUILD_VERSION versionBuffer */
    char build_title[64];          /* SYSTEM_GET_BUILD_VERSION titleBuffer */
    uint32_t changelist;           /* SYSTEM_GET_BUILD_VERSION changelistNumber */
    uint32_t official_changelist;  /* SYSTEM_GET_BUILD_VERSION officialChangelistNumber */
    uint32_t pci_revision_id;      /* BUS_GET_PCI_INFO pciRevisionId */
    uint32_t pci_ext_device_id;    /* BUS_GET_PCI_INFO pciExtDeviceId */
    uint32_t arch_id, arch_impl, arch_revision, arch_subrevision; /* MC_GET_ARCH_INFO */
    uint32_t gr_info_max;          /* NV0080_CTRL_GR_INFO_MAX_SIZE of the driver: GR_GET_INFO index bound */
    uint64_t gr_ctx_buffer_size;   /* GR_GET_CTX_BUFFER_SIZE answer for a GR channel */
    uint32_t sli_status;           /* GPU_GET_ID_INFO(_V2) sliStatus */
    bool per_runlist_chram_hw;     /* HW has per-runlist channel RAM (TSG needs a valid engineType), even when
                                      per_runlist_chram (separate ID spaces) is off */
    uint32_t reserved_chids;       /* ChIDs 0..N-1 held by RM/UVM-internal channels before any client */
    uint32_t channel_uid_first;    /* first value of the driver's global channel unique-id counter
                                      (NV_CHANNEL_ALLOC_PARAMS.cid); machine-history dependent */
    uint32_t info_table_count;
    struct profile_info_table info_tables[PROFILE_MAX_INFO_TABLES];
};

/* Table of `cmd` among info_tables, or NULL. */
const struct profile_info_table *profile_info_table(const struct profile *p, uint32_t cmd);

/*
 * Loads a profile by name (looked up in the built-in table compiled from
 * emu/profiles/) or by path to a YAML file. Returns NULL and writes
 * "file:line:column: message" (or "unknown profile NAME") to err on failure.
 */
struct profile *profile_load(const char *name_or_path, char *err, size_t errlen);

/*
 * profile_load with overrides: each of set[0..nset) is "path=value" in the
 * profile's own keys (e.g. "fifo.default_timeslice=2048us",
 * "timing.ctxsw=30us", "fifo.default_compute_preempt_mode=cta"), applied to
 * the document before it is validated, so an override gets the same checks
 * and messages as the file's value and wins over the file's spelling of
 * that key (an older "_us" key included).
 */
struct profile *profile_load_set(const char *name_or_path, const char *const *set, int nset, char *err,
                                 size_t errlen);

/*
 * Answers as another driver release: `driver` is a major ("550") or a full
 * version ("550.127.05"); a major takes its release's version (nv_release_info).
 * The profile's version strings (driver_version, build version and title) and
 * its release change; false with a message in err for a release nvemu has no
 * tables for.
 */
bool profile_use_driver(struct profile *p, const char *driver, char *err, size_t errlen);

/* "measured", "derived", "assumed" (index = enum profile_source), NULL-terminated. */
extern const char *const profile_source_names[];

/*
 * Prints which parts of the profile are measured, derived or assumed, with their sources (the profile's
 * `provenance:` rows), one "KEY  KIND  SOURCE" line each, measured first; what the rows do not name is
 * said to be cited in the profile file's comments.
 */
void profile_print_provenance(const struct profile *p, FILE *out);

/* Names of default_compute_preempt_mode values (index = mode: 0 WFI, 1 CTA, 2 CILP), NULL-terminated. */
extern const char *const profile_preempt_mode_names[];

/*
 * The timing duration a profile key names ("cilp_resave" or its older "cilp_resave_us"), in ns: true with *ns
 * set, false for a key that is no timing duration.
 */
bool profile_timing_get(const struct profile *p, const char *key, uint64_t *ns);

/* Frees a loaded profile and its canned blobs; NULL is a no-op. */
void profile_free(struct profile *p);

/* Engine row for an engine type, or NULL. */
const struct profile_engine *profile_engine(const struct profile *p, uint32_t engine_type);

/* True when the GPU exposes the class. */
bool profile_has_class(const struct profile *p, uint32_t hclass);

/* Names of the built-in profiles, NULL-terminated. */
const char *const *profile_builtin_names(void);

#endif
