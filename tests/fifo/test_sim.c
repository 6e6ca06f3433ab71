/* The discrete-event core: stable order, cancel, re-entrancy, RNG, trace (CSV, intern, subscribers, digest). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "fifo/fifo_rec.h"
#include "sim/sim.h"

static struct sim *mk(uint64_t seed, bool keep)
{
    struct sim_config c = {.seed = seed, .keep_trace = keep};
    struct sim *s = sim_create(&c);
    assert_non_null(s);
    return s;
}

struct log {
    uint64_t v[64];
    unsigned n;
};

static void push(struct sim *s, void *arg, uint64_t data)
{
    (void)s;
    struct log *l = arg;
    l->v[l->n++] = data;
}

static void same_time_events_keep_their_order_and_cancel_removes_one(void **state)
{
    (void)state;
    struct sim *s = mk(1, false);
    struct log l = {0};
    sim_at(s, 20, push, &l, 3);
    sim_at(s, 10, push, &l, 1);
    sim_event_id x = sim_at(s, 10, push, &l, 99);
    sim_at(s, 10, push, &l, 2);
    assert_true(sim_cancel(s, x));
    assert_false(sim_cancel(s, x));
    assert_int_equal(sim_pending(s), 3);
    uint64_t t;
    assert_true(sim_next_time(s, &t));
    assert_int_equal(t, 10);
    assert_int_equal(sim_run_until(s, 15), 2);
    assert_int_equal(sim_now(s), 15);
    /* an event in the past fires now */
    sim_at(s, 5, push, &l, 4);
    assert_int_equal(sim_run_until(s, 100), 2);
    assert_int_equal(l.n, 4);
    assert_int_equal(l.v[0], 1);
    assert_int_equal(l.v[1], 2);
    assert_int_equal(l.v[2], 4);
    assert_int_equal(l.v[3], 3);
    assert_false(sim_step(s));
    assert_int_equal(sim_fired(s), 4);
    sim_destroy(s);
}

struct order {
    uint64_t last_t, last_seq;
    unsigned fired;
    bool ok;
};

static void check_order(struct sim *s, void *arg, uint64_t seq)
{
    struct order *o = arg;
    uint64_t t = sim_now(s);
    if (o->fired && (t < o->last_t || (t == o->last_t && seq < o->last_seq)))
        o->ok = false;
    o->last_t = t;
    o->last_seq = seq;
    o->fired++;
}

static void many_events_come_out_in_time_order(void **state)
{
    (void)state;
    struct sim *s = mk(9, false);
    struct order o = {.ok = true};
    sim_event_id ids[5000];
    for (uint64_t i = 0; i < 5000; i++)
        ids[i] = sim_at(s, sim_rand_u64(s) % 1000, check_order, &o, i);
    unsigned cancelled = 0;
    for (unsigned i = 0; i < 5000; i += 7)
        cancelled += sim_cancel(s, ids[i]);
    sim_run_until(s, 2000);
    assert_true(o.ok);
    assert_int_equal(o.fired, 5000 - cancelled);
    sim_destroy(s);
}

static void reenter(struct sim *s, void *arg, uint64_t data)
{
    (void)data;
    *(uint64_t *)arg = sim_run_until(s, 1000) + (sim_in_event(s) ? 100 : 0);
}

static void test_reentry_refused(void **state)
{
    (void)state;
    struct sim *s = mk(1, false);
    uint64_t r = 7;
    struct log l = {0};
    sim_at(s, 1, reenter, &r, 0);
    sim_at(s, 500, push, &l, 1);
    sim_run_until(s, 10);
    assert_int_equal(r, 100);
    assert_int_equal(l.n, 0);
    sim_destroy(s);
}

static void same_seed_gives_the_same_random_sequence(void **state)
{
    (void)state;
    struct sim *a = mk(5, false), *b = mk(5, false), *c = mk(6, false);
    bool differ = false;
    for (int i = 0; i < 100; i++) {
        uint64_t x = sim_rand_u64(a);
        assert_int_equal(x, sim_rand_u64(b));
        differ |= x != sim_rand_u64(c);
        double u = sim_rand_unit(a);
        sim_rand_unit(b);
        assert_true(u >= 0.0 && u < 1.0);
    }
    assert_true(differ);
    double sum = 0;
    for (int i = 0; i < 20000; i++)
        sum += (double)sim_rand_exp(a, 1000.0);
    assert_true(sum / 20000 > 950 && sum / 20000 < 1050);
    sim_destroy(a);
    sim_destroy(b);
    sim_destroy(c);
}

static void count_cb(void *ctx, const struct sim_rec *r)
{
    (void)r;
    (*(unsigned *)ctx)++;
}

static void sim_names_a_record_kind_only_from_its_producer(void **state)
{
    (void)state;
    char path[64];
    snprintf(path, sizeof(path), "/tmp/nvemu-sim-trace-%d.csv", (int)getpid());
    struct sim_config cfg = {.seed = 1, .trace_path = path, .keep_trace = true};
    struct sim *s = sim_create(&cfg);
    assert_non_null(s);
    char buf[32];
    strcpy(buf, "task_init");
    const char *i1 = sim_intern(s, buf);
    strcpy(buf, "xxxx");
    assert_string_equal(i1, "task_init");
    assert_ptr_equal(sim_intern(s, "task_init"), i1);
    unsigned n1 = 0, n2 = 0;
    int id1 = sim_trace_subscribe(s, count_cb, &n1);
    sim_trace_subscribe(s, count_cb, &n2);
    /* the sim knows a kind's name only from its producer */
    assert_string_equal(sim_kind_name(s, SIM_REC_HOOK), "unknown");
    fifo_rec_register(s);
    assert_string_equal(sim_kind_name(s, SIM_REC_HOOK), "hook");
    assert_int_equal(sim_kind_register(s, SIM_REC_HOOK, "other"), -1);
    struct sim_rec r = {.kind = SIM_REC_HOOK, .engine = 1, .runlist = 0, .tsg = 3, .chid = SIM_NONE, .a = 2048,
                        .name = "timeslice_set", .field = "timeslice", .result = "reject",
                        .reason = "below minimum, \"1 us\""};
    sim_trace(s, &r);
    uint64_t d1 = sim_trace_digest(s);
    sim_trace_unsubscribe(s, id1);
    struct sim_rec m = {.kind = SIM_REC_MARK, .engine = SIM_NONE, .runlist = SIM_NONE, .tsg = SIM_NONE,
                        .chid = SIM_NONE, .name = "req"};
    sim_trace(s, &m);
    assert_int_not_equal(sim_trace_digest(s), d1);
    assert_int_equal(n1, 1);
    assert_int_equal(n2, 2);
    assert_int_equal(sim_trace_count(s), 2);
    assert_int_equal(sim_trace_get(s, 1)->seq, 1);
    assert_null(sim_trace_get(s, 2));
    sim_trace_flush(s);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char line[512];
    assert_non_null(fgets(line, sizeof(line), f));
    assert_string_equal(line, "seq,t_ns,kind,gpu,engine,runlist,tsg,chid,a,b,name,field,result,reason\n");
    assert_non_null(fgets(line, sizeof(line), f));
    assert_string_equal(line, "0,0,hook,0,1,0,3,-,2048,0,timeslice_set,timeslice,reject,"
                              "\"below minimum, \"\"1 us\"\"\"\n");
    fclose(f);
    sim_destroy(s);
    unlink(path);
}

static void test_call_charge(void **state)
{
    (void)state;
    struct sim *s = mk(1, false);
    sim_charge_call(s, 5);
    sim_charge_call(s, 7);
    assert_int_equal(sim_take_call_charge(s), 12);
    assert_int_equal(sim_take_call_charge(s), 0);
    sim_destroy(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(same_time_events_keep_their_order_and_cancel_removes_one),
        cmocka_unit_test(many_events_come_out_in_time_order),
        cmocka_unit_test(test_reentry_refused),
        cmocka_unit_test(same_seed_gives_the_same_random_sequence),
        cmocka_unit_test(sim_names_a_record_kind_only_from_its_producer),
        cmocka_unit_test(test_call_charge),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
