/*
 * Maps on their own: the kernel's errno rules per type (the same matrix test_bpf_kernel checks
 * against a live kernel where it may), iteration for dumps, LRU eviction, global data, ringbuf
 * capacity and ordering.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "bpf/bpf_map.h"

#define ENOTSUPP 524

static struct bpf_map *mk(uint32_t type, uint32_t k, uint32_t v, uint32_t max, uint32_t flags)
{
    struct bpf_map_def d = {"m", type, k, v, max, flags};
    char err[128];
    struct bpf_map *m = bpf_map_create(&d, err, sizeof err);
    if (!m)
        fail_msg("%s", err);
    return m;
}

struct row {
    uint32_t type, key_size, value_size, max_entries, flags;
    int err;
    const char *msg;
};

static void test_create_errors(void **state)
{
    (void)state;
    static const struct row rows[] = {
        {BPF_MAP_TYPE_HASH, 0, 8, 4, 0, EINVAL, "must be > 0"},
        {BPF_MAP_TYPE_HASH, 4, 8, 4, 1u << 20, EINVAL, "unknown flags"},
        {BPF_MAP_TYPE_HASH, 4, (1u << 22) - 52, 1, 0, E2BIG, "too large"},
        {BPF_MAP_TYPE_LRU_HASH, 4, 8, 4, BPF_F_NO_PREALLOC, ENOTSUPP, "always preallocated"},
        {BPF_MAP_TYPE_ARRAY, 8, 8, 4, 0, EINVAL, "key_size 4"},
        {BPF_MAP_TYPE_ARRAY, 4, 8, 4, BPF_F_RDONLY_PROG | BPF_F_WRONLY_PROG, EINVAL, "known flags"},
        {BPF_MAP_TYPE_PERCPU_ARRAY, 4, 40000, 1, 0, E2BIG, "per-CPU"},
        {BPF_MAP_TYPE_RINGBUF, 0, 0, 3 * 4096, 0, EINVAL, "power-of-two"},
        {BPF_MAP_TYPE_RINGBUF, 4, 0, 4096, 0, EINVAL, "key/value size 0"},
        {BPF_MAP_TYPE_PROG_ARRAY, 4, 4, 4, 0, EINVAL, "unsupported map type"},
        {BPF_MAP_TYPE_ARRAY, 4, 1u << 20, 1u << 12, 0, ENOMEM, "too large to allocate"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        struct bpf_map_def d = {"bad", rows[i].type, rows[i].key_size, rows[i].value_size, rows[i].max_entries,
                                rows[i].flags};
        char err[160] = "";
        int e = -1;
        assert_null(bpf_map_create_errno(&d, &e, err, sizeof err));
        if (e != rows[i].err || !strstr(err, rows[i].msg) || strncmp(err, "map 'bad': ", 11))
            fail_msg("row %zu: errno %d (want %d), \"%s\"", i, e, rows[i].err, err);
    }
}

static void hash_map_ops_return_the_kernels_errnos(void **state)
{
    (void)state;
    struct bpf_map *m = mk(BPF_MAP_TYPE_HASH, 4, 8, 2, 0);
    uint32_t k1 = 1, k2 = 2, k3 = 3;
    uint64_t v = 10;
    assert_null(bpf_map_lookup(m, &k1));
    assert_int_equal(bpf_map_update(m, &k1, &v, BPF_EXIST), -ENOENT);
    assert_int_equal(bpf_map_update(m, &k1, &v, BPF_NOEXIST), 0);
    assert_int_equal(bpf_map_update(m, &k1, &v, BPF_NOEXIST), -EEXIST);
    assert_int_equal(bpf_map_update(m, &k1, &v, 3), -EINVAL);
    assert_int_equal(bpf_map_update(m, &k1, &v, BPF_F_LOCK), -EINVAL);
    assert_int_equal(bpf_map_update(m, &k2, &v, BPF_ANY), 0);
    assert_int_equal(bpf_map_update(m, &k3, &v, BPF_ANY), -E2BIG);
    v = 11;
    assert_int_equal(bpf_map_update(m, &k2, &v, BPF_ANY), 0); /* replacing still works when full */
    assert_int_equal(*(uint64_t *)bpf_map_lookup(m, &k2), 11);
    assert_int_equal(bpf_map_delete(m, &k3), -ENOENT);
    void *slot = bpf_map_lookup(m, &k1);
    assert_int_equal(bpf_map_delete(m, &k1), 0);
    assert_int_equal(bpf_map_update(m, &k3, &v, BPF_ANY), 0);
    /* the freed slot is reused: an old value pointer still points into the map */
    assert_ptr_equal(bpf_map_lookup(m, &k3), slot);
    bpf_map_destroy(m);
}

static void array_map_ops_return_the_kernels_errnos(void **state)
{
    (void)state;
    struct bpf_map *m = mk(BPF_MAP_TYPE_ARRAY, 4, 12, 4, 0);
    uint32_t k = 3, big = 4;
    uint8_t v[12] = {1, 2, 3};
    const uint8_t *p = bpf_map_lookup(m, &k);
    assert_non_null(p);
    assert_int_equal(p[0] | p[11], 0); /* zero-initialised */
    assert_null(bpf_map_lookup(m, &big));
    assert_int_equal(bpf_map_update(m, &big, v, BPF_ANY), -E2BIG);
    assert_int_equal(bpf_map_update(m, &k, v, BPF_NOEXIST), -EEXIST);
    assert_int_equal(bpf_map_update(m, &k, v, BPF_EXIST), 0);
    assert_int_equal(bpf_map_update(m, &big, v, 9), -EINVAL); /* flags checked first */
    assert_int_equal(p[2], 3);
    assert_int_equal(bpf_map_delete(m, &k), -EINVAL);
    /* value storage is 8-byte aligned per element */
    uint32_t k0 = 0;
    assert_int_equal(((uintptr_t)bpf_map_lookup(m, &k0)) % 8, 0);
    assert_int_equal(((uintptr_t)bpf_map_lookup(m, &k)) % 8, 0);
    bpf_map_destroy(m);
}

static void map_iteration_visits_every_element_for_dumps(void **state)
{
    (void)state;
    struct bpf_map *m = mk(BPF_MAP_TYPE_HASH, 16, 8, 8, 0);
    static const char *const names[] = {"lc-server", "be-train", "be-infer"};
    for (int i = 0; i < 3; i++) {
        char key[16] = {0};
        uint64_t v = (uint64_t)i;
        strncpy(key, names[i], sizeof key - 1);
        assert_int_equal(bpf_map_update(m, key, &v, BPF_ANY), 0);
    }
    char key[16], next[16];
    int n = 0;
    for (int rc = bpf_map_get_next_key(m, NULL, next); rc == 0; rc = bpf_map_get_next_key(m, key, next)) {
        assert_string_equal(next, names[n]); /* insertion order */
        memcpy(key, next, sizeof key);
        n++;
    }
    assert_int_equal(n, 3);
    char missing[16] = "nobody";
    assert_int_equal(bpf_map_get_next_key(m, missing, next), 0); /* unknown key: start over */
    assert_string_equal(next, "lc-server");
    bpf_map_destroy(m);

    struct bpf_map *a = mk(BPF_MAP_TYPE_ARRAY, 4, 8, 3, 0);
    uint32_t i = 1, ni;
    assert_int_equal(bpf_map_get_next_key(a, NULL, &ni), 0);
    assert_int_equal(ni, 0);
    assert_int_equal(bpf_map_get_next_key(a, &i, &ni), 0);
    assert_int_equal(ni, 2);
    i = 2;
    assert_int_equal(bpf_map_get_next_key(a, &i, &ni), -ENOENT);
    i = 77;
    assert_int_equal(bpf_map_get_next_key(a, &i, &ni), 0);
    assert_int_equal(ni, 0);
    bpf_map_destroy(a);
}

static void test_lru_evicts_least_recently_used(void **state)
{
    (void)state;
    struct bpf_map *m = mk(BPF_MAP_TYPE_LRU_HASH, 4, 8, 2, 0);
    uint32_t k1 = 1, k2 = 2, k3 = 3;
    uint64_t v = 5;
    assert_int_equal(bpf_map_update(m, &k1, &v, BPF_ANY), 0);
    assert_int_equal(bpf_map_update(m, &k2, &v, BPF_ANY), 0);
    assert_non_null(bpf_map_lookup(m, &k1)); /* k2 is now the least recently used */
    assert_int_equal(bpf_map_update(m, &k3, &v, BPF_NOEXIST), 0);
    assert_null(bpf_map_lookup(m, &k2));
    assert_non_null(bpf_map_lookup(m, &k1));
    assert_non_null(bpf_map_lookup(m, &k3));
    bpf_map_destroy(m);
}

static void global_data_map_takes_one_initial_value_and_bounds_its_values(void **state)
{
    (void)state;
    struct bpf_map *ro = mk(BPF_MAP_TYPE_ARRAY, 4, 24, 1, BPF_F_RDONLY_PROG);
    uint32_t knob = 500;
    assert_int_equal(bpf_map_initial_value(ro, &knob, sizeof knob), 0);
    assert_int_equal(bpf_map_initial_value(ro, &knob, 25), -EINVAL);
    assert_true(bpf_map_prog_readonly(ro));
    uint32_t size;
    uint8_t *base = bpf_map_value_base(ro, &size);
    assert_int_equal(size, 24);
    assert_memory_equal(base, &knob, 4);
    uintptr_t b;
    uint32_t s;
    assert_true(bpf_map_value_containing(ro, (uintptr_t)base + 23, &b, &s));
    assert_int_equal(b, (uintptr_t)base);
    assert_false(bpf_map_value_containing(ro, (uintptr_t)base + 24, &b, &s));
    struct bpf_map *h = mk(BPF_MAP_TYPE_HASH, 4, 8, 4, 0);
    assert_int_equal(bpf_map_initial_value(h, &knob, 4), -EINVAL);
    assert_null(bpf_map_value_base(h, NULL));
    /* a hash value counts as a value only while its element is live */
    uint64_t v = 1;
    assert_int_equal(bpf_map_update(h, &knob, &v, BPF_ANY), 0);
    uintptr_t addr = (uintptr_t)bpf_map_lookup(h, &knob);
    assert_true(bpf_map_value_containing(h, addr, &b, &s));
    assert_int_equal(bpf_map_delete(h, &knob), 0);
    assert_false(bpf_map_value_containing(h, addr, &b, &s));
    bpf_map_destroy(ro);
    bpf_map_destroy(h);
}

static int count_cb(void *arg, const void *data, uint32_t len)
{
    (void)data;
    (*(uint32_t *)arg) += len;
    return 0;
}

static int stop_cb(void *arg, const void *data, uint32_t len)
{
    (void)data;
    (void)len;
    (*(int *)arg)++;
    return 1;
}

static void ringbuf_keeps_order_and_refuses_past_capacity(void **state)
{
    (void)state;
    struct bpf_map *rb = mk(BPF_MAP_TYPE_RINGBUF, 0, 0, 4096, 0);
    uint32_t k = 0;
    uint64_t v = 0;
    assert_null(bpf_map_lookup(rb, &k));
    assert_int_equal(bpf_map_update(rb, &k, &v, 0), -ENOTSUPP);
    assert_int_equal(bpf_map_delete(rb, &k), -ENOTSUPP);
    /* 3 records of 1000 bytes (1008 with header) fit, a 4th does not while they are outstanding */
    void *r[4];
    for (int i = 0; i < 3; i++)
        assert_non_null(r[i] = bpf_map_ringbuf_reserve(rb, 1000, 0));
    assert_null(bpf_map_ringbuf_reserve(rb, 1100, 0));
    assert_int_equal(bpf_map_ringbuf_record_size(rb, r[1]), 1000);
    /* the consumer stops at the first record still reserved */
    assert_int_equal(bpf_map_ringbuf_submit(rb, r[1], 0), 0);
    uint32_t bytes = 0;
    assert_int_equal(bpf_map_ringbuf_drain(rb, count_cb, &bytes), 0);
    assert_int_equal(bpf_map_ringbuf_discard(rb, r[0], 0), 0);
    assert_int_equal(bpf_map_ringbuf_submit(rb, r[0], 0), -EINVAL); /* no longer outstanding */
    assert_int_equal(bpf_map_ringbuf_drain(rb, count_cb, &bytes), 1);
    assert_int_equal(bytes, 1000);
    assert_int_equal(bpf_map_ringbuf_submit(rb, r[2], 0), 0);
    /* wrapping: the next record does not fit before the end and starts over at offset 0 */
    assert_non_null(r[3] = bpf_map_ringbuf_reserve(rb, 2000, 0));
    assert_int_equal(bpf_map_ringbuf_submit(rb, r[3], 0), 0);
    int calls = 0;
    assert_int_equal(bpf_map_ringbuf_drain(rb, stop_cb, &calls), 1); /* fn asked to stop */
    assert_int_equal(bpf_map_ringbuf_drain(rb, stop_cb, &calls), 1);
    assert_int_equal(calls, 2);
    assert_int_equal(bpf_map_ringbuf_query(rb, BPF_RB_AVAIL_DATA), 0);
    assert_int_equal(bpf_map_ringbuf_output(rb, &v, 8, 0), 0);
    assert_int_equal(bpf_map_ringbuf_output(rb, &v, 8, 4), -EINVAL);
    assert_int_equal(bpf_map_ringbuf_output(rb, &v, 5000, 0), -EAGAIN);
    bpf_map_destroy(rb);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_create_errors),
        cmocka_unit_test(hash_map_ops_return_the_kernels_errnos),
        cmocka_unit_test(array_map_ops_return_the_kernels_errnos),
        cmocka_unit_test(map_iteration_visits_every_element_for_dumps),
        cmocka_unit_test(test_lru_evicts_least_recently_used),
        cmocka_unit_test(global_data_map_takes_one_initial_value_and_bounds_its_values),
        cmocka_unit_test(ringbuf_keeps_order_and_refuses_past_capacity),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
