/*
 * One line of a recorded ioctl trace (format: fixtures/replay/README.md,
 * copied in fixtures/replay/README.md):
 *   IOCTL tid=T fd=N path=DEV req=0xREQ nr=0xNR size=BYTES ret=RET us=US [t=NS] <decoded> in=HEX out=HEX
 *         [pin=HEX pout=HEX [ein=HEX eout=HEX]] [aparams=HEX]
 * The decoded part (ALLOC64/ALLOC/CTRL/FREE key=value pairs) is informative; replay works from the
 * raw bytes and reads only `cmd` from it for reporting. `t` (CLOCK_MONOTONIC ns at the call) and the
 * embedded lists ein/eout are written by recorders since fixtures/hw/h200-580.159.04/programs4-nccl;
 * older traces lack them.
 */
#ifndef NVEMU_REPLAY_TRACE_H
#define NVEMU_REPLAY_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

/* A hex field of the line, decoded. */
struct trace_bytes {
    uint8_t *data;
    uint32_t len;
    bool present;
};

struct trace_call {
    int line;
    int32_t tid;
    int32_t fd;
    char path[64];
    uint32_t req, nr, size;
    int32_t ret;
    int32_t err;           /* errno=N when the recording has it, else 0 */
    char kind[16];         /* "ALLOC64", "ALLOC", "CTRL", "FREE" or "" */
    uint32_t cmd;          /* CTRL: control command (from the decoded part) */
    bool has_t;
    uint64_t t_ns;         /* t=: when the call was issued, one clock for all processes of the machine */
    struct trace_bytes in, out, pin, pout, aparams;
    struct trace_bytes ein, eout;  /* the lists behind a control's embedded pointers, before/after the call */
};

/*
 * Parses one line. Returns 0, 1 for a line to ignore (empty or '#' comment), or
 * -1 with a message in err (missing or malformed field, hex length not matching size...).
 */
int trace_parse_line(const char *s, int lineno, struct trace_call *tc, char *err, size_t errlen);

/* Frees the byte buffers of a parsed call and zeroes it (reusable for the next line). */
void trace_call_free(struct trace_call *tc);

/* A trace is text of at most this many bytes (after gzip's decompression), in lines of at most the other. */
#define REPLAY_MAX_TRACE_BYTES (4ull << 30)
#define REPLAY_MAX_LINE_BYTES (64u << 20)

/*
 * Opens a trace for reading: a regular file of at most REPLAY_MAX_TRACE_BYTES only (a FIFO or device would hold
 * the reader until someone writes; O_NONBLOCK stays set, so a file that only looks regular, /proc/kmsg, answers
 * EAGAIN in trace_read_line instead of blocking). A gzip-compressed one (magic 1f 8b) is read through `gzip -dc`
 * in a child process (*child set; 0 otherwise). NULL with a message in err when it cannot be opened.
 */
FILE *trace_open(const char *path, pid_t *child, char *err, size_t errlen);

/*
 * getline with bounds: a line longer than REPLAY_MAX_LINE_BYTES, or a trace (decompressed) longer than
 * REPLAY_MAX_TRACE_BYTES, ends the reading with *why set; so does a read that would block. Returns the
 * line's length, 0 at the end (or on *why).
 */
size_t trace_read_line(FILE *f, char **buf, size_t *cap, uint64_t *total, const char **why);

/* Closes what trace_open opened; -1 when the decompressor failed (a truncated or corrupt .gz). */
int trace_close(FILE *f, pid_t child);

#endif
