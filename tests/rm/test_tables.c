/*
 * Walks every escape, class and control table: ids are unique across all tables of a kind, every row
 * has a name from a symbol, a handler (or, for an unmodelled escape, a status field inside its
 * argument) and a family or node, sizes are within what the driver copies, the registry answers each
 * id with its own row, and each volatile-output declaration lies inside the control's parameters.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "abi/nv_escape.h"
#include "dispatch/dispatch_internal.h"
#include "rm/rm.h"

static void controls_are_unique_and_sane(void **state)
{
    (void)state;
    size_t rows = 0;
    for (const struct rm_ctrl_table *t = rm_ctrl_tables; t->rows; t++) {
        assert_non_null(t->name);
        assert_non_null(t->owner); /* replay names it in a mismatch */
        for (const struct rm_ctrl_row *r = t->rows; r->name; r++, rows++) {
            assert_int_not_equal(r->cmd & 0xFFFFu, 0); /* cmd 0 / index 0 are the NULL command */
            assert_true((r->name[0] >= 'A' && r->name[0] <= 'Z')); /* a symbol, not an expanded number */
            assert_non_null(r->handler);
            assert_int_not_equal(r->families, 0);
            assert_true(r->param_size <= RMAPI_PARAM_COPY_MAX_PARAMS_SIZE);
            assert_true(r->priv >= RM_PRIV_USER && r->priv <= RM_PRIV_INTERNAL);
            /* a control charges a control-path latency, never an allocation's */
            assert_true(r->latency <= RM_LAT_PREEMPT);
            /* recorded answers are raw bytes whose size is the recorded paramsSize */
            assert_true(!(r->flags & RM_CTRL_CANNED) || r->priv == RM_PRIV_USER);
            assert_ptr_equal(rm_ctrl_lookup(r->cmd), r); /* a duplicate would be answered by the other row */
            for (const struct rm_ctrl_table *u = rm_ctrl_tables; u->rows; u++)
                for (const struct rm_ctrl_row *o = u->rows; o->name; o++)
                    if (o != r && o->cmd == r->cmd)
                        fail_msg("control 0x%08x is in two rows (%s, %s)", r->cmd, r->name, o->name);
            for (const struct rm_ctrl_volatile *v = r->volatile_out; v && v->why; v++) {
                assert_true(v->off + (v->info_index ? 4u : v->len) <= r->param_size);
                assert_true(v->info_index || v->len > 0);
            }
        }
    }
    assert_true(rows > 100);
}

static void classes_are_unique_and_sane(void **state)
{
    (void)state;
    size_t rows = 0;
    for (const struct rm_class_table *t = rm_class_tables; t->rows; t++) {
        assert_non_null(t->name);
        assert_non_null(t->owner); /* replay names it in a mismatch */
        for (const struct rm_class_row *r = t->rows; r->name; r++, rows++) {
            assert_true(r->param_size <= RMAPI_PARAM_COPY_MAX_PARAMS_SIZE);
            assert_true((r->name[0] >= 'A' && r->name[0] <= 'Z')); /* a symbol, not an expanded number */
            /* a class that requires parameters must know how many bytes to copy */
            assert_true(r->params != RM_PARAMS_REQUIRED || r->param_size > 0);
            assert_true(r->params != RM_PARAMS_NONE || r->param_size == 0);
            assert_int_not_equal(r->family, 0);
            assert_true(r->latency == RM_LAT_NONE || r->latency == RM_LAT_TSG_ALLOC ||
                        r->latency == RM_LAT_CHANNEL_ALLOC);
            assert_true(r->latency == RM_LAT_NONE || r->construct); /* charged once constructed */
            assert_ptr_equal(rm_class_lookup(r->hclass), r);
            for (const struct rm_class_table *u = rm_class_tables; u->rows; u++)
                for (const struct rm_class_row *o = u->rows; o->name; o++)
                    if (o != r && o->hclass == r->hclass)
                        fail_msg("class 0x%04x is in two rows (%s, %s)", r->hclass, r->name, o->name);
        }
    }
    assert_true(rows > 50);
}

static void escapes_unique_and_sane(void **state)
{
    (void)state;
    const struct esc_row *const t[] = {esc_rows_os, esc_rows_rm, esc_rows_workload};
    size_t rows = 0;
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        for (const struct esc_row *r = t[i]; r->name; r++, rows++) {
            assert_true(r->nr < 256);
            assert_true(strncmp(r->name, "NV", 2) == 0); /* a symbol, not an expanded number */
            assert_true(r->size <= NV_ABSOLUTE_MAX_IOCTL_SIZE);
            assert_true(r->node == ESC_CTL || r->node == ESC_DEV || r->node == ESC_ANY);
            if (!r->fn) {
                /* an unmodelled escape has a fixed size with its status field inside */
                assert_int_not_equal(r->size, 0);
                assert_true(r->status_offset + sizeof(NV_STATUS) <= r->size);
            }
            for (size_t j = 0; j < sizeof t / sizeof t[0]; j++)
                for (const struct esc_row *o = t[j]; o->name; o++)
                    if (o != r && o->nr == r->nr)
                        fail_msg("escape 0x%02x is in two rows (%s, %s)", r->nr, r->name, o->name);
        }
    assert_true(rows > 30);
}

/* The /dev/nvidia-uvm rows: UVM's own numbers (not _IOC words), each block holding its rmStatus. */
static void uvm_rows_are_unique_and_sane(void **state)
{
    (void)state;
    size_t rows = 0;
    for (const struct esc_row *r = esc_rows_uvm; r->name; r++, rows++) {
        assert_true(strncmp(r->name, "UVM_IOCTL_", 10) == 0);
        assert_int_equal(r->node, ESC_UVM);
        assert_false(r->gpreempt_only);
        assert_ptr_equal(dispatch_uvm_row(r->nr), r);
        /* only UVM_DEINITIALIZE takes no block; every other one has its status inside */
        if (r->size == 0)
            assert_string_equal(r->name, "UVM_IOCTL_DEINITIALIZE");
        else
            assert_true(r->status_offset + sizeof(NV_STATUS) <= r->size);
        assert_true(r->size <= 0x3FFFu);
        for (const struct esc_row *o = esc_rows_uvm; o->name; o++)
            if (o != r && o->nr == r->nr)
                fail_msg("UVM request %u is in two rows (%s, %s)", r->nr, r->name, o->name);
    }
    assert_true(rows > 40);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(escapes_unique_and_sane),
        cmocka_unit_test(uvm_rows_are_unique_and_sane),
        cmocka_unit_test(controls_are_unique_and_sane),
        cmocka_unit_test(classes_are_unique_and_sane),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
