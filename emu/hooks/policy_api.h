/*
 * The policy plugin ABI lives in the installed public header <nvemu/policy.h>;
 * emulator code includes it through this name.
 */
#ifndef NVEMU_POLICY_API_H
#define NVEMU_POLICY_API_H

#include "nvemu/policy.h"

#endif
