/* A profile of the board a trace came from (derive.h). */
#include "derive.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "abi/nv_ctrl_discovery.h"
#include "abi/nv_ctrl_monitoring.h"
#include "abi/nv_escape.h"
#include "identity.h"
#include "trace.h"

/* One per-board answer of the trace: a control's input and output params. */
struct answer {
    uint32_t cmd, size;
    int line;
    uint8_t *in, *out;
};

#define MAX_INFO 16

struct derived {
    struct answer *a;
    size_t n, cap;
    bool have_uuid;
    uint8_t uuid[16];
    nv_ctrl_info_pair info[MAX_INFO];   /* per-board GPU_GET_INFO_V2 entries */
    size_t ninfo;
};

/* Keeps a per-board GPU_GET_INFO_V2 entry of the trace (the first answer of an index). */
static void keep_info(struct derived *d, const nv_ctrl_info_pair *e)
{
    for (size_t i = 0; i < d->ninfo; i++)
        if (d->info[i].index == e->index)
            return;
    if (d->ninfo < MAX_INFO)
        d->info[d->ninfo++] = *e;
}

static uint32_t rd32(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

/* Keeps the first answer per (command, input): later ones of a steady per-board value are the same. */
static int keep(struct derived *d, const struct trace_call *tc, uint32_t cmd)
{
    for (size_t i = 0; i < d->n; i++)
        if (d->a[i].cmd == cmd && d->a[i].size == tc->pin.len && !memcmp(d->a[i].in, tc->pin.data, tc->pin.len))
            return 0;
    if (d->n == d->cap) {
        size_t cap = d->cap ? 2 * d->cap : 16;
        struct answer *g = realloc(d->a, cap * sizeof *g);
        if (!g)
            return -1;
        d->a = g;
        d->cap = cap;
    }
    struct answer *a = &d->a[d->n];
    a->in = malloc(tc->pin.len);
    a->out = malloc(tc->pout.len);
    if (!a->in || !a->out) {
        free(a->in);
        free(a->out);
        return -1;
    }
    memcpy(a->in, tc->pin.data, tc->pin.len);
    memcpy(a->out, tc->pout.data, tc->pout.len);
    a->cmd = cmd;
    a->size = tc->pin.len;
    a->line = tc->line;
    d->n++;
    return 0;
}

/* A successful control whose answer is per board: its UUID, or a canned answer to keep. */
static int take(struct derived *d, const struct trace_call *tc)
{
    if (tc->nr != NV_ESC_RM_CONTROL || tc->size != sizeof(NVOS54_PARAMETERS) || tc->ret != 0 ||
        tc->out.len < sizeof(NVOS54_PARAMETERS) || !tc->pin.present || !tc->pout.present ||
        tc->pin.len != tc->pout.len || !tc->pin.len)
        return 0;
    if (rd32(tc->out.data + offsetof(NVOS54_PARAMETERS, status)) != NV_OK)
        return 0;
    uint32_t cmd = rd32(tc->in.data + offsetof(NVOS54_PARAMETERS, cmd));
    if (cmd == NV2080_CTRL_CMD_GPU_GET_INFO_V2) {
        const size_t first = offsetof(NV2080_CTRL_GPU_GET_INFO_V2_PARAMS, gpuInfoList);
        uint32_t n = tc->pout.len >= first ? rd32(tc->pout.data) : 0;
        for (uint32_t i = 0; i < n && first + (i + 1) * sizeof(nv_ctrl_info_pair) <= tc->pout.len; i++) {
            nv_ctrl_info_pair e;
            memcpy(&e, tc->pout.data + first + i * sizeof e, sizeof e);
            if (replay_board_info_index(cmd, e.index))
                keep_info(d, &e);
        }
        return 0;
    }
    /* the fabric's partition, cluster and clique ids are per machine: the whole answer is kept */
    if (!replay_board_identity(cmd) && cmd != NV2080_CTRL_CMD_GET_GPU_FABRIC_PROBE_INFO)
        return 0;
    if (cmd == NV2080_CTRL_CMD_GPU_GET_GID_INFO) {
        /* the binary form (16 bytes) is the UUID itself; the ASCII form repeats it */
        if (tc->pout.len >= sizeof(NV2080_CTRL_GPU_GET_GID_INFO_PARAMS) &&
            rd32(tc->pout.data + offsetof(NV2080_CTRL_GPU_GET_GID_INFO_PARAMS, length)) == sizeof d->uuid) {
            memcpy(d->uuid, tc->pout.data + offsetof(NV2080_CTRL_GPU_GET_GID_INFO_PARAMS, data), sizeof d->uuid);
            d->have_uuid = true;
        }
        return 0;
    }
    return keep(d, tc, cmd);
}

/* Bytes as the profile's hex notation: runs of four or more equal bytes as "xx*N" tokens. */
static void put_hex(FILE *out, const uint8_t *b, uint32_t n)
{
    bool sep = false; /* a repeat token ended: the next token starts after a space */
    for (uint32_t i = 0; i < n;) {
        uint32_t run = 1;
        while (i + run < n && b[i + run] == b[i])
            run++;
        if (run >= 4) {
            fprintf(out, "%s%02x*%u", i ? " " : "", b[i], run);
            sep = true;
            i += run;
        } else {
            fprintf(out, "%s%02x", sep ? " " : "", b[i]);
            sep = false;
            i++;
        }
    }
}

static void put_answers(FILE *out, const struct derived *d, const char *trace)
{
    const char *base = strrchr(trace, '/') ? strrchr(trace, '/') + 1 : trace;
    for (size_t i = 0; i < d->n; i++) {
        const struct answer *a = &d->a[i];
        fprintf(out, "  - cmd: 0x%x\n    source: \"%.32s line %d\"\n    in: ", a->cmd, base, a->line);
        put_hex(out, a->in, a->size);
        fprintf(out, "\n    size: %u\n    out: ", a->size);
        put_hex(out, a->out, a->size);
        fputc('\n', out);
    }
}

/* True when a canned entry that starts with this line ("  - cmd: X") answers a command the trace re-answers. */
static bool replaced(const struct derived *d, const char *line)
{
    const char *c = strstr(line, "cmd:");
    if (!c)
        return false;
    uint32_t cmd = (uint32_t)strtoul(c + 4, NULL, 0);
    for (size_t i = 0; i < d->n; i++)
        if (d->a[i].cmd == cmd)
            return true;
    return false;
}

/* True when a `gpu_info:` line ("  0xNN: value") gives an entry the trace answered per board. */
static bool replaced_info(const struct derived *d, const char *line)
{
    uint32_t index = (uint32_t)strtoul(line, NULL, 0);
    for (size_t i = 0; i < d->ninfo; i++)
        if (d->info[i].index == index)
            return true;
    return false;
}

static void put_document(FILE *out, const struct derived *d, const char *trace, const char *base_label,
                         const char *text, size_t len, const char *name)
{
    fprintf(out, "# Derived by 'nvemu profile from-trace' from %s over the profile %s: the board's per-board answers\n"
                 "# (UUID, serial, floorsweeping, ECC, PCI location) replace the base's.\n",
            trace, base_label);
    bool in_canned = false, skipping = false, canned_seen = false, in_info = false;
    for (size_t off = 0; off < len;) {
        const char *l = text + off;
        const char *nl = memchr(l, '\n', len - off);
        size_t n = nl ? (size_t)(nl - l) : len - off;
        off += n + (nl ? 1 : 0);
        bool top = n && l[0] != ' ' && l[0] != '#';
        if (top)
            in_canned = skipping = in_info = false;
        if (top && !strncmp(l, "name:", 5)) {
            fprintf(out, "name: %s\n", name);
            continue;
        }
        if (top && !strncmp(l, "uuid:", 5) && d->have_uuid) {
            const uint8_t *u = d->uuid;
            fprintf(out,
                    "uuid: GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x   "
                    "# GPU_GET_GID_INFO of the trace\n",
                    u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14],
                    u[15]);
            continue;
        }
        if (top && !strncmp(l, "gpu_info:", 9)) {
            fprintf(out, "%.*s\n", (int)n, l);
            for (size_t i = 0; i < d->ninfo; i++)
                fprintf(out, "  0x%02x: 0x%x   # per board, from the trace\n", d->info[i].index, d->info[i].data);
            in_info = true;
            continue;
        }
        if (in_info && n > 2 && l[0] == ' ' && replaced_info(d, l))
            continue;
        if (top && !strncmp(l, "canned:", 7)) {
            fprintf(out, "%.*s\n", (int)n, l);
            put_answers(out, d, trace);
            in_canned = canned_seen = true;
            continue;
        }
        if (in_canned && n >= 4 && !strncmp(l, "  - ", 4))
            skipping = replaced(d, l);
        if (!skipping)
            fprintf(out, "%.*s\n", (int)n, l);
    }
    if (!canned_seen && d->n) {
        fputs("canned:\n", out);
        put_answers(out, d, trace);
    }
}

int replay_derive_profile(const char *trace, const char *base_label, const char *base_text, size_t base_len,
                          const char *name, FILE *out, char *err, size_t errlen)
{
    pid_t unzip = 0;
    char oerr[160];
    FILE *f = trace_open(trace, &unzip, oerr, sizeof oerr);
    if (!f) {
        snprintf(err, errlen, "%s: %s", trace, oerr);
        return -1;
    }
    struct derived d = {0};
    struct trace_call tc = {0};
    char *line = NULL, perr[256];
    size_t cap = 0;
    uint64_t total = 0;
    const char *why = NULL;
    int lineno = 0, rc = 0;
    while (rc == 0 && trace_read_line(f, &line, &cap, &total, &why) > 0) {
        lineno++;
        int pr = trace_parse_line(line, lineno, &tc, perr, sizeof perr);
        if (pr < 0) {
            snprintf(err, errlen, "%s", perr);
            rc = -1;
        } else if (pr == 0 && take(&d, &tc) != 0) {
            snprintf(err, errlen, "out of memory");
            rc = -1;
        }
        trace_call_free(&tc);
    }
    free(line);
    if (why && rc == 0) {
        snprintf(err, errlen, "%s: %s", trace, why);
        rc = -1;
    }
    if (trace_close(f, unzip) != 0 && rc == 0) {
        snprintf(err, errlen, "%s: gzip could not decompress it whole", trace);
        rc = -1;
    }
    if (rc == 0) {
        put_document(out, &d, trace, base_label, base_text, base_len, name);
        rc = (int)(d.n + d.ninfo) + (d.have_uuid ? 1 : 0);
    }
    for (size_t i = 0; i < d.n; i++) {
        free(d.a[i].in);
        free(d.a[i].out);
    }
    free(d.a);
    return rc;
}
