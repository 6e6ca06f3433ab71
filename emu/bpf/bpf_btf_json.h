/*
 * Map values and global data as a loader prints them, decoded through the
 * object's BTF: integers as numbers (bool as true/false), char arrays as
 * strings, other arrays as lists, structs and unions as objects with their
 * member names (bitfields included), a data section as an object of its
 * variables. What BTF cannot describe is a hex string.
 */
#ifndef NVEMU_BPF_BTF_JSON_H
#define NVEMU_BPF_BTF_JSON_H

#include <stdint.h>
#include <stdio.h>

struct btf;

/* Writes the value of BTF type `type` held in data (size bytes) as JSON; btf NULL or type 0: hex. */
void bpf_btf_json(FILE *f, const struct btf *btf, uint32_t type, const uint8_t *data, uint32_t size);

/* Writes size bytes as a JSON hex string "0x...". */
void bpf_btf_json_hex(FILE *f, const uint8_t *data, uint32_t size);

#endif
