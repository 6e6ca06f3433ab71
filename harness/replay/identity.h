/*
 * Board identity: the answers in which two boards of one kind differ (UUID, board serial, floorsweeping,
 * ECC history, PCI location). A trace recorded on another board of the profile's kind differs there and
 * nowhere else, so replay reports these as their own class, not as mismatches.
 */
#ifndef NVEMU_REPLAY_IDENTITY_H
#define NVEMU_REPLAY_IDENTITY_H

#include <stdint.h>

/* What per-board value control cmd answers ("GPU UUID", ...), or NULL when its answer is the same on every board. */
const char *replay_board_identity(uint32_t cmd);

#endif
