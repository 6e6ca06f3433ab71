/*
 * libFuzzer target over `nvemu scenario compare`'s reading of two results.json texts
 * (engine/compare/compare.h: cmp_texts): the input is run A's text, a NUL byte, run B's text. Pairs
 * tasks and engines by name and builds the table; nothing in either text may crash it or make it
 * quadratic.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 2);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = text[size + 1] = '\0';
    const char *a = text, *b = text + strlen(text) + 1; /* no NUL in the input: B is empty */
    struct cmp_result r;
    char err[256];
    if (cmp_texts(a, "a", b, "b", 0.1, false, &r, err, sizeof err) == 0)
        cmp_result_free(&r);
    free(text);
    return 0;
}
