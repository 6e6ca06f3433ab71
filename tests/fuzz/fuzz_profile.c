/*
 * libFuzzer target over the GPU profile loader: each input is a profile
 * document parsed and validated from memory, through the shared YAML layer
 * and the profile schema (canned hex blobs, info tables, durations).
 */
#include <stddef.h>
#include <stdint.h>

#include "base/log.h"
#include "profile/profile.h"
#include "profile/profile_yaml.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
const char *__asan_default_options(void);

/*
 * Every input allocates and frees the parser's buffers and the loaded
 * object: with a small quarantine ASan hands the same memory back instead of
 * faulting in fresh pages each time (about 2.5x the executions per second),
 * and 5-frame allocation stacks (as ctest gives fuzz_ioctl) spare an unwind
 * per YAML node. A use after free within one input is still caught.
 */
const char *__asan_default_options(void)
{
    return "quarantine_size_mb=8:max_malloc_fill_size=0:malloc_context_size=5";
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int quiet;
    if (!quiet) {
        nvemu_log_set_level(NVEMU_LOG_ERROR);
        quiet = 1;
    }
    char err[512];
    profile_free(profile_parse_yaml("fuzz.yaml", (const char *)data, size, err, sizeof(err)));
    return 0;
}
