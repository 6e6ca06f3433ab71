/*
 * libFuzzer target over the scenario loader: each input is a scenario
 * document parsed and validated from memory (no temp file), through the
 * shared YAML layer and the scenario schema. Any crash, leak, sanitizer
 * report or hang is a finding; a refusal is the expected outcome of most
 * inputs.
 */
#include <stddef.h>
#include <stdint.h>

#include "core/log.h"
#include "scenario.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

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
