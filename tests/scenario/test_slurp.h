/*
 * One file read whole into a NUL-terminated buffer for the scenario tests (header-only;
 * cmocka asserts: a file that cannot be read fails the test). Caller frees.
 */
#ifndef NVEMU_TEST_SCENARIO_SLURP_H
#define NVEMU_TEST_SCENARIO_SLURP_H

#include <stdio.h>
#include <stdlib.h>

static inline char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

#endif
