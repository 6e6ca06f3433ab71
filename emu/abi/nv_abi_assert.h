/*
 * The one family of compile-time layout checks for ABI structs: every struct
 * the emulator shares with the driver, libcuda, a BPF program or a recording
 * states its size, alignment and field offsets with these, so a layout change
 * fails the build instead of a run.
 */
#ifndef NVEMU_ABI_NV_ABI_ASSERT_H
#define NVEMU_ABI_NV_ABI_ASSERT_H

#include <stddef.h>

/* sizeof(type) == size and _Alignof(type) == align. */
#define NV_ASSERT_LAYOUT(type, size, align)                    \
    _Static_assert(sizeof(type) == (size), #type " size");     \
    _Static_assert(_Alignof(type) == (align), #type " alignment")
/* sizeof(type) == size (alignment not part of the contract, e.g. a struct the driver copies bytewise). */
#define NV_ASSERT_SIZE(type, size) _Static_assert(sizeof(type) == (size), #type " size")
/* offsetof(type, field) == off. */
#define NV_ASSERT_OFF(type, field, off) \
    _Static_assert(offsetof(type, field) == (off), #type "." #field " offset")

#endif
