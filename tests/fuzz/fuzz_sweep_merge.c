/*
 * libFuzzer target over `nvemu scenario sweep-merge`'s reading of shards (engine/sweep/sweep.h): the
 * input is up to two shards, each a sweep.json text and a sweep.csv text, the four parts separated by NUL
 * bytes; they are merged as sweep_merge merges shard directories, then the outcome is counted. A grid
 * the texts describe wrongly must be refused, never divide by zero or index past the rows.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sweep.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The next NUL-terminated part of [*p, end), copied (empty when the input ran out). */
static char *part(const uint8_t **p, const uint8_t *end)
{
    const uint8_t *z = memchr(*p, 0, (size_t)(end - *p));
    size_t n = (size_t)((z ? z : end) - *p);
    char *s = malloc(n + 1);
    if (s) {
        memcpy(s, *p, n);
        s[n] = '\0';
    }
    *p = z ? z + 1 : end;
    return s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *p = data, *end = data + size;
    struct sweep sw;
    memset(&sw, 0, sizeof sw);
    char err[512];
    bool ok = true;
    for (int shard = 0; shard < 2 && ok && (shard == 0 || p < end); shard++) {
        char *json = part(&p, end), *csv = part(&p, end);
        ok = json && csv && sweep_merge_shard(&sw, json, csv, "shard", shard == 0, err, sizeof err) == 0;
        free(json);
        free(csv);
    }
    if (ok) {
        size_t failed, broken;
        sweep_outcome(&sw, &failed, &broken);
    }
    sweep_free(&sw);
    return 0;
}
