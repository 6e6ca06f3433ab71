/*
 * libFuzzer target over the scenario loader: each input is a scenario
 * document parsed and validated from memory (no temp file), through the
 * shared YAML layer and the scenario schema. Any crash, leak, sanitizer
 * report or hang is a finding; a refusal is the expected outcome of most
 * inputs.
 */
#include <stddef.h>
#include <stdint.h>

#include "base/log.h"
#include "scenario.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
const char *__asan_default_options(void);

/*
 * Every input allocates and frees the parser's buffers and the loaded
 * object: with a small quarantine ASan hands the same memory back instead of
 * faulting in fresh pages each time (about 2.5x the executions per second).
 * A use after free within one input is still caught.
 */
const char *__asan_default_options(void)
{
    return "quarantine_size_mb=8:max_malloc_fill_size=0";
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int quiet;
    if (!quiet) {
        nvemu_log_set_level(NVEMU_LOG_ERROR);
        quiet = 1;
    }
    char err[512];
    struct scenario *s = scenario_load_set("fuzz.yaml", (const char *)data, size, NULL, 0, err, sizeof(err));
    scenario_free(s);
    return 0;
}
