/*
 * BPF maps as a program and its host see them: HASH, ARRAY, PERCPU_HASH, PERCPU_ARRAY (one
 * emulated CPU), LRU_HASH and RINGBUF, with the kernel's errno rules (Linux kernel/bpf/hashtab.c,
 * arraymap.c, ringbuf.c):
 *   update flags: BPF_ANY 0, BPF_NOEXIST 1, BPF_EXIST 2; anything else -EINVAL
 *   HASH/LRU_HASH: NOEXIST on an existing key -EEXIST, EXIST on a missing key -ENOENT,
 *                  HASH full -E2BIG (LRU evicts the least recently used key instead),
 *                  delete of a missing key -ENOENT
 *   ARRAY: key is a u32 index; index >= max_entries -E2BIG on update, NULL on lookup;
 *          NOEXIST -EEXIST (every element exists); delete -EINVAL; values start zeroed
 *   RINGBUF: no keys: lookup NULL; update, delete, get_next_key -ENOTSUPP (524, the kernel's
 *            internal value, which is what bpf() returns for them)
 * A global-data section (.data, .rodata, .bss) is a 1-entry ARRAY whose value is the section, as
 * libbpf makes it; `.rodata` is created with BPF_F_RDONLY_PROG: programs may read, not write it.
 *
 * Element storage is allocated once at creation and never moves or shrinks while the map lives,
 * so a value pointer a program got from a lookup stays valid memory (the kernel's preallocated
 * maps behave the same: a deleted element's slot is reused by the next insert).
 *
 * Names: libbpf's <bpf/bpf.h> (syscall wrappers) also declares bpf_map_create() and
 * bpf_map_get_next_key() with other signatures; never include it next to this header. libbpf's
 * <bpf/libbpf.h> and <bpf/btf.h> are fine (their `struct bpf_map` is only a forward declaration).
 * nvemu never loads programs through libbpf, so its exported symbols of those names are unused.
 *
 * Not thread-safe: one map is used by one emulator thread at a time (hooks run under the
 * emulator's lock).
 */
#ifndef NVEMU_BPF_MAP_H
#define NVEMU_BPF_MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/bpf.h>

struct bpf_map;

/* What a map is made from: the object's .maps BTF (or a global-data section). Numbers are the
 * kernel's: type is BPF_MAP_TYPE_* (HASH 1, ARRAY 2, PERCPU_HASH 5, PERCPU_ARRAY 6, LRU_HASH 9,
 * RINGBUF 27), map_flags BPF_F_* (BPF_F_NO_PREALLOC, BPF_F_RDONLY_PROG, BPF_F_ZERO_SEED, ... as the
 * kernel accepts them per type). */
struct bpf_map_def {
    const char *name;       /* copied; at most 63 characters are kept */
    uint32_t type;
    uint32_t key_size;
    uint32_t value_size;
    uint32_t max_entries;   /* RINGBUF: data bytes, a power of two and a multiple of 4096 */
    uint32_t map_flags;
};

/* Creates a map. Returns NULL and writes "name: reason (errno name)" to err when the kernel would
 * refuse the definition (EINVAL: zero sizes, unknown type or flags, ARRAY key_size != 4, RINGBUF
 * size not a page-aligned power of two; E2BIG: key or value larger than the kernel allows). When
 * err_no is wanted, bpf_map_create_errno() gives it. */
struct bpf_map *bpf_map_create(const struct bpf_map_def *def, char *err, size_t errlen);

/* Bytes a map of this definition allocates (its pools, before any is touched). */
uint64_t bpf_map_memory(const struct bpf_map_def *def);

/* What all maps of one object may allocate together: past it the object is refused at load, so a
 * policy cannot take the memory of the process it runs in (48 ARRAY maps of 1 GiB each were taken). */
#define BPF_OBJ_MAP_MEMORY_LIMIT (1ull << 30)

/* As bpf_map_create; *err_no gets the positive errno of a refusal (0 on success). */
struct bpf_map *bpf_map_create_errno(const struct bpf_map_def *def, int *err_no, char *err, size_t errlen);

/* Frees the map and everything in it. NULL is a no-op. */
void bpf_map_destroy(struct bpf_map *map);

/* The definition the map was created with (name points into the map). */
const struct bpf_map_def *bpf_map_definition(const struct bpf_map *map);

/* Value of key, or NULL (missing key, ARRAY index out of range, RINGBUF). The pointer stays valid
 * for the map's life; for LRU_HASH a lookup marks the key recently used. */
void *bpf_map_lookup(struct bpf_map *map, const void *key);

/* Inserts or replaces key's value under flags (BPF_ANY/BPF_NOEXIST/BPF_EXIST). 0 or -errno, with
 * the map's own rules, i.e. what the map_update_elem helper returns (BPF_F_LOCK: -EINVAL, after
 * -E2BIG/-EEXIST for arrays). The bpf() syscall refuses BPF_F_LOCK before reaching the map. */
int bpf_map_update(struct bpf_map *map, const void *key, const void *value, uint64_t flags);

/* Removes key. 0, -ENOENT (missing), -EINVAL (ARRAY: elements cannot be deleted). */
int bpf_map_delete(struct bpf_map *map, const void *key);

/* Iteration for dumping: next gets the key after key (key NULL, or not in the map: the first key).
 * 0, or -ENOENT after the last key. HASH order is insertion order, ARRAY order is by index. */
int bpf_map_get_next_key(struct bpf_map *map, const void *key, void *next);

/* Global data: copies len bytes into the value of entry 0 of a 1-entry ARRAY (the rest stays
 * zero). 0, or -EINVAL (not such an array, len > value_size). Host writes ignore BPF_F_RDONLY_PROG,
 * which is how a loader sets `.rodata` knobs before the first run. */
int bpf_map_initial_value(struct bpf_map *map, const void *data, size_t len);

/* Address range of the value storage of entry 0 of an ARRAY map (global data), for relocating
 * LD_IMM64 BPF_PSEUDO_MAP_VALUE: NULL for other types. *size gets value_size. */
void *bpf_map_value_base(struct bpf_map *map, uint32_t *size);

/* The map holding addr in the value of one of its elements, or NULL; *base and *size get that
 * value's range. Used by the interpreter to check a relocated global-data address. */
bool bpf_map_value_containing(struct bpf_map *map, uintptr_t addr, uintptr_t *base, uint32_t *size);

/* True when programs may not write values of this map (BPF_F_RDONLY_PROG). */
bool bpf_map_prog_readonly(const struct bpf_map *map);

/* --- RINGBUF (BPF_MAP_TYPE_RINGBUF): records of up to max_entries - 8 bytes, consumed in order ---
 * The flags arguments take BPF_RB_NO_WAKEUP / BPF_RB_FORCE_WAKEUP (accepted, meaningless here);
 * other bits give NULL / -EINVAL as in the kernel. */

/* Reserves size bytes; NULL when the ring has no room, size is too large, or flags are invalid. */
void *bpf_map_ringbuf_reserve(struct bpf_map *map, uint64_t size, uint64_t flags);

/* Commits / drops a record returned by reserve. -EINVAL when rec is not an outstanding record. */
int bpf_map_ringbuf_submit(struct bpf_map *map, void *rec, uint64_t flags);
int bpf_map_ringbuf_discard(struct bpf_map *map, void *rec, uint64_t flags);

/* reserve + copy + submit. 0, -EINVAL (flags), -EAGAIN (no room: the kernel's answer). */
int bpf_map_ringbuf_output(struct bpf_map *map, const void *data, uint64_t size, uint64_t flags);

/* The record at rec, if rec is the start of an outstanding (reserved, not yet submitted or
 * discarded) record: its size, else 0. */
uint32_t bpf_map_ringbuf_record_size(const struct bpf_map *map, const void *rec);

/* BPF_RB_AVAIL_DATA, BPF_RB_RING_SIZE, BPF_RB_CONS_POS, BPF_RB_PROD_POS; 0 for others. */
uint64_t bpf_map_ringbuf_query(const struct bpf_map *map, uint64_t flags);

/* Consumer side: calls fn for each submitted record in order (discarded ones are skipped and
 * consumed), stopping at the first record still reserved or when fn returns nonzero. Returns the
 * number of records passed to fn. */
typedef int (*bpf_ringbuf_drain_fn)(void *arg, const void *data, uint32_t len);
int bpf_map_ringbuf_drain(struct bpf_map *map, bpf_ringbuf_drain_fn fn, void *arg);

#endif
