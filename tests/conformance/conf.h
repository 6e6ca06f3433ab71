/*
 * nvemu-conformance: walks a catalogue of RM ioctl cases and prints one canonical line per case:
 *   NAME ret=R errno=E status=S [key=value ...]
 * R is ioctl(2)'s result, E the errno name (0 when R is 0), S the NV_STATUS left in the argument
 * block ("untouched" when the driver did not write it back). Values that legitimately vary between
 * machines and runs are printed normalised (e.g. "auto-ok"); their raw values go to lines starting
 * with '#', which comparisons ignore.
 */
#ifndef NVEMU_CONFORMANCE_CONF_H
#define NVEMU_CONFORMANCE_CONF_H

#include <stdint.h>

#include "fixture.h"
#include "rmraw.h"

/* Handles the probe chooses for objects that are not in the libcuda fixture ("NV" prefix). */
enum {
    H_TSG_P = 0x4e560100u,   /* populated channel group (8 channels) on the plain VA space */
    H_CTX_P = 0x4e560101u,   /* its context share */
    H_TSG_E = 0x4e560102u,   /* empty channel group */
    H_CH_P0 = 0x4e560110u,   /* first of the 8 channels of H_TSG_P */
    H_SCRATCH = 0x4e560200u, /* objects allocated and freed inside one case */
    H_ABSENT = 0x4e56ffffu,  /* never allocated */
};

struct conf {
    int ctl;              /* /dev/nvidiactl, owner of the main client */
    int dev0;             /* /dev/nvidia0 */
    uint32_t client;      /* main client (auto handle) */
    uint32_t gpu_id;      /* from GET_ATTACHED_IDS */
    uint32_t dev, subdev; /* handles (the fixture's) */
    int have_tree;        /* device + subdevice allocated */
    int have_pop;         /* H_TSG_P with its channels allocated */
    int nchan;            /* channels of H_TSG_P that were allocated */
    struct fixture fix;
};

/* Prints a case line for an RM call. */
void emit_rm(const char *name, struct rm_result r, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Prints a case line for a plain ioctl whose status (if any) is given by the caller. */
void emit_raw(const char *name, int ret, int err, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* Prints an informational '#' line (raw values; not compared). */
void note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Prints this process's uid and effective capabilities as a '#' line. */
void note_creds(const char *when);

/* Allocates the fixture object NAME under our client, with handle substitutions from[i] -> to[i]
 * applied to its params; handle/parent overrides when non-zero. */
struct rm_result alloc_fixture(struct conf *c, const char *name, uint32_t handle, uint32_t parent,
                               const uint32_t *from, const uint32_t *to, int n);

/* Groups of cases, in the order main runs them. */
void cases_escapes(struct conf *c);
void cases_clients(struct conf *c);
void cases_alloc(struct conf *c);
void cases_libcuda(struct conf *c);
void cases_fifo(struct conf *c);
void cases_controls(struct conf *c);
void cases_openers(struct conf *c);
void cases_privilege(struct conf *c);
void cases_frees(struct conf *c);

#endif
