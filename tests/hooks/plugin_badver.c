/* A policy built against a future API version: the host must refuse it before reading anything else. */
#include "hooks/policy_api.h"

__attribute__((visibility("default"))) const struct policy_ops nvemu_policy = {
    .api_version = 999,
    .size = sizeof(struct policy_ops),
    .name = "from_the_future",
};
