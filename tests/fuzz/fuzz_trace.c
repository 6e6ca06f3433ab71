/*
 * libFuzzer target over the replay trace parser (tools/replay/trace.h):
 * the input is a trace file, parsed line by line as `nvemu replay` does.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = 0;
    int lineno = 0;
    for (char *line = text, *next; line && line < text + size; line = next) {
        next = memchr(line, '\n', (size_t)(text + size - line));
        if (next)
            *next++ = 0;
        struct trace_call tc;
        char err[160];
        trace_parse_line(line, ++lineno, &tc, err, sizeof(err));
        trace_call_free(&tc);
    }
    free(text);
    return 0;
}
