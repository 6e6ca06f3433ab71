/*
 * The class and control registries: the owners' row arrays aggregated into
 * two hash indexes, built once per process (pthread_once) and read-only
 * afterwards, so every emulator instance shares them without mutable state.
 */
#include <pthread.h>
#include <stdlib.h>

#include "base/log.h"
#include "rm/rm.h"

#define CLASS_SLOTS 1024u   /* power of two, > 2x the number of classes */
#define CTRL_SLOTS 4096u    /* power of two, > 2x the number of controls */

static struct {
    const struct rm_class_row *classes[CLASS_SLOTS];
    const struct rm_ctrl_row *ctrls[CTRL_SLOTS];
} index_tables;
static pthread_once_t index_once = PTHREAD_ONCE_INIT;

static inline uint32_t slot_of(uint32_t key, uint32_t slots)
{
    return (key * 0x9E3779B1u) >> (32 - __builtin_ctz(slots));
}

static void add_classes(const struct rm_class_row *rows, const char *table)
{
    for (const struct rm_class_row *r = rows; r->name; r++) {
        uint32_t i = slot_of(r->hclass, CLASS_SLOTS), n = 0;
        while (index_tables.classes[i] && index_tables.classes[i]->hclass != r->hclass && n++ < CLASS_SLOTS)
            i = (i + 1) & (CLASS_SLOTS - 1);
        if (index_tables.classes[i]) {
            LOG_ERROR("rm", "class 0x%04x (%s) in %s: duplicate or table full; row ignored", r->hclass, r->name,
                      table);
            continue;
        }
        index_tables.classes[i] = r;
    }
}

static void add_ctrls(const struct rm_ctrl_row *rows, const char *table)
{
    for (const struct rm_ctrl_row *r = rows; r->name; r++) {
        uint32_t i = slot_of(r->cmd, CTRL_SLOTS), n = 0;
        while (index_tables.ctrls[i] && index_tables.ctrls[i]->cmd != r->cmd && n++ < CTRL_SLOTS)
            i = (i + 1) & (CTRL_SLOTS - 1);
        if (index_tables.ctrls[i]) {
            LOG_ERROR("rm", "control 0x%08x (%s) in %s: duplicate or table full; row ignored", r->cmd, r->name,
                      table);
            continue;
        }
        index_tables.ctrls[i] = r;
    }
}

const struct rm_class_table rm_class_tables[] = {
    {"rm_class_rows_core", "emu/rm", rm_class_rows_core},
    {"rm_class_rows_fifo", "emu/fifo", rm_class_rows_fifo},
    {"rm_class_rows_fabric", "emu/rm", rm_class_rows_fabric},
    {NULL, NULL, NULL},
};

const struct rm_ctrl_table rm_ctrl_tables[] = {
    {"rm_ctrl_rows_core", "emu/rm", rm_ctrl_rows_core},
    {"rm_ctrl_rows_discovery", "emu/profile", rm_ctrl_rows_discovery},
    {"rm_ctrl_rows_fifo", "emu/fifo", rm_ctrl_rows_fifo},
    {"rm_ctrl_rows_monitoring", "emu/rm", rm_ctrl_rows_monitoring},
    {"rm_ctrl_rows_export", "emu/rm", rm_ctrl_rows_export},
    {"rm_ctrl_rows_gpu_ids", "emu/rm", rm_ctrl_rows_gpu_ids},
    {"rm_ctrl_rows_nvlink", "emu/rm", rm_ctrl_rows_nvlink},
    {"rm_ctrl_rows_pids", "emu/rm", rm_ctrl_rows_pids},
    {"rm_ctrl_rows_memory", "emu/rm", rm_ctrl_rows_memory},
    {"rm_ctrl_rows_fabric", "emu/rm", rm_ctrl_rows_fabric},
    {NULL, NULL, NULL},
};

static void build_index(void)
{
    for (const struct rm_class_table *t = rm_class_tables; t->rows; t++)
        add_classes(t->rows, t->name);
    for (const struct rm_ctrl_table *t = rm_ctrl_tables; t->rows; t++)
        add_ctrls(t->rows, t->name);
}

const struct rm_class_row *rm_class_lookup(uint32_t hclass)
{
    pthread_once(&index_once, build_index);
    for (uint32_t i = slot_of(hclass, CLASS_SLOTS), n = 0; n < CLASS_SLOTS; n++, i = (i + 1) & (CLASS_SLOTS - 1)) {
        const struct rm_class_row *r = index_tables.classes[i];
        if (!r)
            return NULL;
        if (r->hclass == hclass)
            return r;
    }
    return NULL;
}

const struct rm_ctrl_row *rm_ctrl_lookup(uint32_t cmd)
{
    pthread_once(&index_once, build_index);
    for (uint32_t i = slot_of(cmd, CTRL_SLOTS), n = 0; n < CTRL_SLOTS; n++, i = (i + 1) & (CTRL_SLOTS - 1)) {
        const struct rm_ctrl_row *r = index_tables.ctrls[i];
        if (!r)
            return NULL;
        if (r->cmd == cmd)
            return r;
    }
    return NULL;
}
