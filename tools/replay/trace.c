/* Parser of the recorded ioctl trace line format (see trace.h). */
#include "trace.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* Argument blocks the recorder writes whole; larger ones are cut (README: "up to 4096 bytes"). */
#define TRACE_MAX_BLOCK 4096u

static int parse_hex(const char *v, size_t n, struct trace_bytes *b)
{
    if (n % 2)
        return -1;
    b->data = malloc(n / 2 + 1);
    if (!b->data)
        return -1;
    for (size_t i = 0; i < n; i += 2) {
        if (!isxdigit((unsigned char)v[i]) || !isxdigit((unsigned char)v[i + 1]))
            return -1;
        char t[3] = {v[i], v[i + 1], 0};
        b->data[i / 2] = (uint8_t)strtoul(t, NULL, 16);
    }
    b->len = (uint32_t)(n / 2);
    b->present = true;
    return 0;
}

static int parse_num(const char *v, size_t n, long long lo, long long hi, long long *out)
{
    char buf[32];
    if (n == 0 || n >= sizeof buf)
        return -1;
    memcpy(buf, v, n);
    buf[n] = 0;
    char *end;
    errno = 0;
    long long x = strtoll(buf, &end, 0);
    if (errno || *end || x < lo || x > hi)
        return -1;
    *out = x;
    return 0;
}

int trace_parse_line(const char *s, int lineno, struct trace_call *tc, char *err, size_t errlen)
{
    memset(tc, 0, sizeof *tc);
    tc->line = lineno;
    while (*s == ' ' || *s == '\t')
        s++;
    if (!*s || *s == '\n' || *s == '#')
        return 1;
    if (strncmp(s, "IOCTL ", 6) != 0) {
        snprintf(err, errlen, "line does not start with 'IOCTL '");
        return -1;
    }
    enum { K_TID = 1, K_FD = 2, K_PATH = 4, K_REQ = 8, K_NR = 16, K_SIZE = 32, K_RET = 64 };
    unsigned seen = 0;
    const char *p = s + 6;
    while (*p) {
        while (*p == ' ' || *p == '\t')
            p++;
        if (!*p || *p == '\n' || *p == '\r')
            break;
        const char *tok = p;
        while (*p && *p != ' ' && *p != '\t' && *p != '\n' && *p != '\r')
            p++;
        size_t tl = (size_t)(p - tok);
        const char *eq = memchr(tok, '=', tl);
        if (!eq) {
            if (tl < sizeof tc->kind && !tc->kind[0]) {
                memcpy(tc->kind, tok, tl);
                tc->kind[tl] = 0;
                continue;
            }
            snprintf(err, errlen, "unexpected token '%.*s'", (int)(tl > 40 ? 40 : tl), tok);
            return -1;
        }
        size_t kl = (size_t)(eq - tok);
        const char *v = eq + 1;
        size_t vl = tl - kl - 1;
        long long x = 0;
        int bad = 0;
#define KEY(k) (kl == sizeof(k) - 1 && !memcmp(tok, k, kl))
        if (KEY("tid")) {
            bad = parse_num(v, vl, 0, INT32_MAX, &x);
            tc->tid = (int32_t)x;
            seen |= K_TID;
        } else if (KEY("fd")) {
            bad = parse_num(v, vl, 0, INT32_MAX, &x);
            tc->fd = (int32_t)x;
            seen |= K_FD;
        } else if (KEY("path")) {
            bad = vl == 0 || vl >= sizeof tc->path;
            if (!bad) {
                memcpy(tc->path, v, vl);
                tc->path[vl] = 0;
            }
            seen |= K_PATH;
        } else if (KEY("req")) {
            bad = parse_num(v, vl, 0, UINT32_MAX, &x);
            tc->req = (uint32_t)x;
            seen |= K_REQ;
        } else if (KEY("nr")) {
            bad = parse_num(v, vl, 0, 255, &x);
            tc->nr = (uint32_t)x;
            seen |= K_NR;
        } else if (KEY("size")) {
            bad = parse_num(v, vl, 0, 16383, &x);
            tc->size = (uint32_t)x;
            seen |= K_SIZE;
        } else if (KEY("ret")) {
            bad = parse_num(v, vl, INT32_MIN, INT32_MAX, &x);
            tc->ret = (int32_t)x;
            seen |= K_RET;
        } else if (KEY("errno")) {
            bad = parse_num(v, vl, 0, 4095, &x);
            tc->err = (int32_t)x;
        } else if (KEY("t")) {
            bad = parse_num(v, vl, 0, INT64_MAX, &x);
            tc->t_ns = (uint64_t)x;
            tc->has_t = true;
        } else if (KEY("cmd")) {
            bad = parse_num(v, vl, 0, UINT32_MAX, &x);
            tc->cmd = (uint32_t)x;
        } else if (KEY("in") || KEY("out") || KEY("pin") || KEY("pout") || KEY("aparams") || KEY("ein") ||
                   KEY("eout")) {
            struct trace_bytes *b = KEY("in") ? &tc->in : KEY("out") ? &tc->out : KEY("pin") ? &tc->pin
                                    : KEY("pout") ? &tc->pout : KEY("ein") ? &tc->ein : KEY("eout") ? &tc->eout
                                    : &tc->aparams;
            if (b->present) {
                snprintf(err, errlen, "field '%.*s' given twice", (int)kl, tok);
                return -1;
            }
            bad = parse_hex(v, vl, b);
        }
        /* other decoded fields (hRoot, status, us, ...) are informative only */
        if (bad) {
            snprintf(err, errlen, "malformed value in '%.*s'", (int)(tl > 60 ? 60 : tl), tok);
            return -1;
        }
#undef KEY
    }
    static const char *const names[] = {"tid", "fd", "path", "req", "nr", "size", "ret"};
    for (unsigned i = 0; i < 7; i++)
        if (!(seen & (1u << i))) {
            snprintf(err, errlen, "missing field '%s'", names[i]);
            return -1;
        }
    if ((tc->req & 0xFFu) != tc->nr || ((tc->req >> 16) & 0x3FFFu) != tc->size) {
        snprintf(err, errlen, "req 0x%08x does not encode nr 0x%x size %u", tc->req, tc->nr, tc->size);
        return -1;
    }
    /* UVM requests are plain integers: `size` decoded from one means nothing, parameters are in pin/pout */
    if (!strcmp(tc->path, "/dev/nvidia-uvm"))
        return 0;
    uint32_t want = tc->size < TRACE_MAX_BLOCK ? tc->size : TRACE_MAX_BLOCK;
    if (tc->size && (!tc->in.present || !tc->out.present)) {
        snprintf(err, errlen, "missing field '%s'", tc->in.present ? "out" : "in");
        return -1;
    }
    if (tc->size && (tc->in.len != want || tc->out.len != want)) {
        snprintf(err, errlen, "in/out hold %u/%u bytes, size is %u", tc->in.len, tc->out.len, tc->size);
        return -1;
    }
    return 0;
}

void trace_call_free(struct trace_call *tc)
{
    free(tc->in.data);
    free(tc->out.data);
    free(tc->pin.data);
    free(tc->pout.data);
    free(tc->aparams.data);
    free(tc->ein.data);
    free(tc->eout.data);
    memset(tc, 0, sizeof *tc);
}

FILE *trace_open(const char *path, pid_t *child, char *err, size_t errlen)
{
    *child = 0;
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        snprintf(err, errlen, "%s", strerror(errno));
        if (fd >= 0)
            close(fd);
        return NULL;
    }
    if (!S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "not a regular file (a trace is read from a file, not a pipe or device)");
        close(fd);
        return NULL;
    }
    if ((uint64_t)st.st_size > REPLAY_MAX_TRACE_BYTES) {
        snprintf(err, errlen, "%lld bytes; a trace may hold at most %llu", (long long)st.st_size,
                 (unsigned long long)REPLAY_MAX_TRACE_BYTES);
        close(fd);
        return NULL;
    }
    FILE *f = fdopen(fd, "r");
    if (!f) {
        snprintf(err, errlen, "%s", strerror(errno));
        close(fd);
        return NULL;
    }
    int b0 = fgetc(f), b1 = fgetc(f);
    if (b0 != 0x1f || b1 != 0x8b) {
        rewind(f);
        return f;
    }
    int fds[2];
    if (pipe(fds) != 0) {
        snprintf(err, errlen, "%s", strerror(errno));
        fclose(f);
        return NULL;
    }
    pid_t pid = fork();
    if (pid == 0) {
        rewind(f);
        dup2(fileno(f), STDIN_FILENO);
        dup2(fds[1], STDOUT_FILENO);
        close(fds[0]);
        close(fds[1]);
        execlp("gzip", "gzip", "-dc", (char *)NULL);
        _exit(127);
    }
    fclose(f);
    close(fds[1]);
    if (pid < 0) {
        snprintf(err, errlen, "%s", strerror(errno));
        close(fds[0]);
        return NULL;
    }
    *child = pid;
    FILE *z = fdopen(fds[0], "r");
    if (!z)
        snprintf(err, errlen, "%s", strerror(errno));
    return z;
}

size_t trace_read_line(FILE *f, char **buf, size_t *cap, uint64_t *total, const char **why)
{
    size_t n = 0;
    int c;
    errno = 0;
    while ((c = getc_unlocked(f)) != EOF) {
        if (n >= REPLAY_MAX_LINE_BYTES) {
            *why = "a line longer than a trace's lines may be";
            return 0;
        }
        if (n + 2 > *cap) {
            size_t nc = *cap ? 2 * *cap : 65536;
            char *g = realloc(*buf, nc);
            if (!g) {
                *why = "out of memory";
                return 0;
            }
            *buf = g;
            *cap = nc;
        }
        (*buf)[n++] = (char)c;
        if (++*total > REPLAY_MAX_TRACE_BYTES) {
            *why = "more bytes than a trace may hold";
            return 0;
        }
        if (c == '\n')
            break;
    }
    if (c == EOF && ferror(f)) {
        *why = errno == EAGAIN || errno == EWOULDBLOCK ? "reading it would block; not a trace file" : "read error";
        return 0;
    }
    if (n)
        (*buf)[n] = '\0';
    return n;
}

int trace_close(FILE *f, pid_t child)
{
    fclose(f);
    int st = 0;
    if (child > 0 && (waitpid(child, &st, 0) != child || !WIFEXITED(st) || WEXITSTATUS(st) != 0))
        return -1;
    return 0;
}
