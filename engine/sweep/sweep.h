/*
 * Parameter sweeps (`nvemu scenario sweep`): a grid of dotted-path overrides
 * (ytree_set_path, emu/yaml/ytree.h) times seeds, every point a full scenario run in its own worker
 * process, one table row per point. A point's row depends only on the
 * scenario, its parameter values and its seed, so any split of the grid
 * (--shard I/N, in any order, on any machine) merges back into the table the
 * whole grid gives, byte for byte.
 */
#ifndef NVEMU_SCENARIO_SWEEP_H
#define NVEMU_SCENARIO_SWEEP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct sc_backend;

#define SWEEP_MAX_PARAMS 8
#define SWEEP_MAX_VALUES 256
#define SWEEP_MAX_COLUMNS 160
#define SWEEP_MAX_MERGED_POINTS (1 << 20) /* a merged grid's rows are allocated up front */
#define SWEEP_MAX_FILE_BYTES (1024u << 20)  /* a shard's sweep.csv or sweep.json */

struct sweep_param {
    char *path;                         /* "tasks.be.count" */
    char *values[SWEEP_MAX_VALUES];
    size_t nvalues;
};

struct sweep {
    char *scenario;                     /* the scenario file */
    struct sweep_param params[SWEEP_MAX_PARAMS];
    size_t nparams;
    uint32_t seeds;                     /* 0: every point runs with the scenario's own seed; N: seeds 1..N */
    size_t points;                      /* product of the value counts, times max(seeds, 1) */
    uint32_t shard_i, shard_n;          /* 1-based shard of the points (index % n == i - 1); n = 0: all */
    char *columns[SWEEP_MAX_COLUMNS];   /* point, each parameter, seed, pass, error, then the metrics */
    size_t ncolumns;
    char **rows;                        /* rows[point]: the CSV line (no newline), NULL when not run here */
    const struct sc_backend *backend;   /* what runs every point (backend.h); set before sweep_run */
};

/*
 * Adds "--set PATH=V1,V2,..." to the grid. Returns 0, or -1 with a reason
 * (no '=', no value, too many parameters or values).
 */
int sweep_add_param(struct sweep *sw, const char *spec, char *err, size_t errlen);

/*
 * Loads the scenario once (validating it) and fixes the point count and the
 * column list (metrics of every task of the file). Returns 0 or -1 with err.
 */
int sweep_prepare(struct sweep *sw, const char *scenario, uint32_t seeds, char *err, size_t errlen);

/*
 * Runs every point of the shard in `jobs` worker processes (one at a time
 * for a backend that must have the machine to itself), filling rows.
 * Progress (points done, points/s, ETA) goes to progress when not NULL.
 * Returns 0 when every point produced a row, -1 with err otherwise.
 */
int sweep_run(struct sweep *sw, unsigned jobs, FILE *progress, char *err, size_t errlen);

/*
 * Writes DIR/sweep.csv, DIR/sweep.json and DIR/sweep.html (plots of the
 * metrics named in plot[], or the default LC p99 and BE throughput ones,
 * against each parameter). Returns 0 or -1 with err.
 */
int sweep_write(const struct sweep *sw, const char *dir, const char *const *plot, size_t nplot, char *err,
                size_t errlen);

/*
 * Joins the outputs of shard runs (their --out directories) into sw, which is
 * left as the unsharded sweep of the same grid would be. Refuses shards of
 * different grids, duplicate or missing points. Returns 0 or -1 with err.
 */
int sweep_merge(struct sweep *sw, const char *const *dirs, size_t ndirs, char *err, size_t errlen);

/* Counts points in sw->rows whose pass cell is "false" (failed) and whose error cell is set (could not run). */
/*
 * One shard of a merge, from its sweep.json and sweep.csv texts (csv is cut up in place); `name` is
 * what messages call the shard. The first shard fixes sw's grid, later ones must match it. Never
 * trusts either text: a malformed grid, header or row is -1 with err. sweep_merge is this for each
 * directory plus the check that no point is missing.
 */
int sweep_merge_shard(struct sweep *sw, const char *json, char *csv, const char *name, bool first, char *err,
                      size_t errlen);

void sweep_outcome(const struct sweep *sw, size_t *failed, size_t *broken);

void sweep_free(struct sweep *sw);

#endif
