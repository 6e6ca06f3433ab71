/*
 * Profile overrides by line substitution: a profile file names each of these
 * keys exactly once (its schema is strict), so replacing the value on that
 * key's line keeps every other byte, comment and citation as it was.
 */
#include "gpu_overlay.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "profile/profile_builtin.h"

/* Profile key of each sc_timing_field (values in us). */
static const char *const timing_keys[SC_T_COUNT] = {
    "ctxsw_us", "runlist_update_us", "wfi_overhead_us", "cta_overhead_us", "cilp_save_us", "preempt_timeout_us",
};

bool gpu_overlay_needed(const struct sc_gpu *g)
{
    if (g->timeslice_us || g->preempt_mode != SC_PREEMPT_PROFILE)
        return true;
    for (int f = 0; f < SC_T_COUNT; f++)
        if (g->timing[f].set)
            return true;
    return false;
}

static char *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = NULL;
    size_t cap = 0, n = 0;
    for (;;) {
        if (n + 4096 + 1 > cap) {
            cap = cap ? cap * 2 : 65536;
            char *nb = realloc(buf, cap);
            if (!nb) {
                free(buf);
                fclose(f);
                return NULL;
            }
            buf = nb;
        }
        size_t got = fread(buf + n, 1, 4096, f);
        n += got;
        if (got < 4096)
            break;
    }
    fclose(f);
    buf[n] = '\0';
    *len = n;
    return buf;
}

static char *base_text(const char *profile, size_t *len)
{
    if (!strchr(profile, '/')) {
        for (const struct profile_builtin *b = profile_builtins; b->name; b++) {
            if (strcmp(b->name, profile) == 0) {
                char *t = malloc(b->len + 1);
                if (t) {
                    memcpy(t, b->text, b->len);
                    t[b->len] = '\0';
                    *len = b->len;
                }
                return t;
            }
        }
        return NULL;
    }
    return read_all(profile, len);
}

/* Replaces the value on the line "<indent>key: value  # comment"; -1 when the key is absent. */
static int substitute(char **text, const char *key, const char *value)
{
    size_t klen = strlen(key);
    for (char *line = *text; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
        char *p = line;
        while (*p == ' ')
            p++;
        if (strncmp(p, key, klen) != 0 || p[klen] != ':')
            continue;
        char *vstart = p + klen + 1;
        char *eol = strchr(vstart, '\n');
        char *hash = strchr(vstart, '#');
        char *vend = hash && (!eol || hash < eol) ? hash : eol ? eol : vstart + strlen(vstart);
        size_t head = (size_t)(vstart - *text), tail_len = strlen(vend);
        char *out = malloc(head + strlen(value) + 3 + tail_len + 1);
        if (!out)
            return -1;
        memcpy(out, *text, head);
        int n = sprintf(out + head, " %s ", value);
        memcpy(out + head + (size_t)n, vend, tail_len + 1);
        free(*text);
        *text = out;
        return 0;
    }
    return -1;
}

int gpu_overlay_write(const struct sc_gpu *g, const char *dir, char *path_out, size_t path_len, char *err,
                      size_t errlen)
{
    static const char *const modes[] = {"wfi", "cta", "cilp"};
    size_t len = 0;
    char *text = base_text(g->profile, &len);
    if (!text) {
        snprintf(err, errlen, "gpu.profile '%s': no such built-in profile or readable file", g->profile);
        return -1;
    }
    char val[48];
    const char *missing = NULL;
    if (g->timeslice_us) {
        snprintf(val, sizeof(val), "%llu", (unsigned long long)g->timeslice_us);
        if (substitute(&text, "default_timeslice_us", val))
            missing = "default_timeslice_us";
    }
    if (!missing && g->preempt_mode != SC_PREEMPT_PROFILE &&
        substitute(&text, "default_compute_preempt_mode", modes[g->preempt_mode]))
        missing = "default_compute_preempt_mode";
    for (int f = 0; f < SC_T_COUNT && !missing; f++) {
        if (!g->timing[f].set)
            continue;
        snprintf(val, sizeof(val), "%.3f", (double)g->timing[f].value_ns / 1e3);
        if (substitute(&text, timing_keys[f], val))
            missing = timing_keys[f];
    }
    if (missing) {
        snprintf(err, errlen, "profile '%s' has no '%s' line to override", g->profile, missing);
        free(text);
        return -1;
    }
    snprintf(path_out, path_len, "%s/nvemu-profile-XXXXXX", dir);
    int fd = mkstemp(path_out);
    if (fd < 0) {
        snprintf(err, errlen, "%s: %s", path_out, strerror(errno));
        free(text);
        return -1;
    }
    size_t tlen = strlen(text);
    ssize_t w = write(fd, text, tlen);
    close(fd);
    free(text);
    if (w < 0 || (size_t)w != tlen) {
        snprintf(err, errlen, "%s: write failed", path_out);
        unlink(path_out);
        return -1;
    }
    return 0;
}
