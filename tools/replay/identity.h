/*
 * Board identity: the answers in which two boards of one kind differ (UUID, board serial, floorsweeping,
 * ECC history, PCI location). A trace recorded on another board of the profile's kind differs there and
 * nowhere else, so replay reports these as their own class, not as mismatches.
 */
#ifndef NVEMU_REPLAY_IDENTITY_H
#define NVEMU_REPLAY_IDENTITY_H

#include <stdbool.h>
#include <stdint.h>

/* What per-board value control cmd answers ("GPU UUID", ...), or NULL when its answer is the same on every board. */
const char *replay_board_identity(uint32_t cmd);

/* True when entry `index` of list control cmd (GPU_GET_INFO_V2) holds a per-board value. */
bool replay_board_info_index(uint32_t cmd, uint32_t index);

/*
 * For a control that mixes per-board and common values (GPU_GET_INFO_V2's {index, data} pairs, NVLINK_STATUS's
 * per-link wiring): what per-board value it answers when every byte in which got and want (len bytes of params)
 * differ is a per-board one (or volatile), else NULL.
 */
const char *replay_board_identity_entries(uint32_t cmd, const uint8_t *got, const uint8_t *want, uint32_t len);

#endif
