/*
 * `nvemu scenario run DIR|FILE... [--seeds N] --out OUT`: a suite of scenarios and seed sets in one command,
 * with one aggregate junit.xml, suite.json and a summary table (cli.h: cli_scenario_suite).
 */
#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/util.h"
#include "cli.h"
#include "seeds.h"

struct entry {
    char *file, *name, *dir;   /* the scenario file, its name in the table and its run (or seed set) directory */
    unsigned seeds;            /* runs of its seed set (0: one run) */
    int status;
};

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool is_yaml(const char *name)
{
    size_t n = strlen(name);
    return (n > 5 && !strcmp(name + n - 5, ".yaml")) || (n > 4 && !strcmp(name + n - 4, ".yml"));
}

/* Appends path to list (grown as needed); -1 when out of memory. */
static int push(char ***list, size_t *n, size_t *cap, const char *path)
{
    if (*n == *cap) {
        *cap = *cap ? *cap * 2 : 16;
        char **nl = realloc(*list, *cap * sizeof(*nl));
        if (!nl)
            return -1;
        *list = nl;
    }
    if (!((*list)[*n] = strdup(path)))
        return -1;
    (*n)++;
    return 0;
}

/* The files the arguments name: a directory gives its *.yaml / *.yml in name order. -1 (message printed). */
static int expand(const char *const *args, size_t nargs, char ***out, size_t *n)
{
    size_t cap = 0;
    *out = NULL;
    *n = 0;
    for (size_t i = 0; i < nargs; i++) {
        struct stat st;
        if (stat(args[i], &st) != 0 || !S_ISDIR(st.st_mode)) {
            if (push(out, n, &cap, args[i]))
                return -1;
            continue;
        }
        DIR *d = opendir(args[i]);
        if (!d) {
            fprintf(stderr, "nvemu scenario: %s: %s\n", args[i], strerror(errno));
            return -1;
        }
        char **found = NULL;
        size_t nf = 0, fcap = 0;
        struct dirent *e;
        while ((e = readdir(d))) {
            char path[1024];
            if (e->d_name[0] == '.' || !is_yaml(e->d_name))
                continue;
            snprintf(path, sizeof path, "%s/%s", args[i], e->d_name);
            if (push(&found, &nf, &fcap, path)) {
                closedir(d);
                return -1;
            }
        }
        closedir(d);
        if (!nf)
            fprintf(stderr, "nvemu scenario: %s holds no scenario file (*.yaml)\n", args[i]);
        qsort(found, nf, sizeof(*found), cmp_str);
        for (size_t k = 0; k < nf; k++) {
            if (push(out, n, &cap, found[k]))
                return -1;
            free(found[k]);
        }
        free(found);
        if (!nf)
            return -1;
    }
    return 0;
}

/* The file's base name without .yaml, made unique among the first `upto` entries ("name-2"). */
static char *unique_name(const char *file, const struct entry *e, size_t upto)
{
    const char *base = strrchr(file, '/') ? strrchr(file, '/') + 1 : file;
    char stem[256];
    snprintf(stem, sizeof stem, "%s", base);
    char *dot = strrchr(stem, '.');
    if (dot && dot != stem)
        *dot = '\0';
    char name[300];
    snprintf(name, sizeof name, "%s", stem);
    for (int k = 2;; k++) {
        bool taken = false;
        for (size_t i = 0; i < upto && !taken; i++)
            taken = !strcmp(e[i].name, name);
        if (!taken)
            break;
        snprintf(name, sizeof name, "%s-%d", stem, k);
    }
    return strdup(name);
}

/* Runs of an earlier, larger --seeds in a seed set: only the files a run writes are removed, then the folder. */
static void clear_seed_runs(const char *dir)
{
    static const char *const outputs[] = {"results.json", "junit.xml", "trace.json", "report.html", "trace.csv"};
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (strncmp(e->d_name, "seed-", 5))
            continue;
        char path[1024];
        for (size_t i = 0; i < sizeof outputs / sizeof outputs[0]; i++) {
            snprintf(path, sizeof path, "%s/%s/%s", dir, e->d_name, outputs[i]);
            unlink(path);
        }
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        rmdir(path);
    }
    closedir(d);
}

/* The exit status of a suite: its worst run's (could not run 3, invalid 2, failed 1, passed 0). */
static int worst(int a, int b)
{
    return a > b ? a : b;
}

static const char *status_word(int status)
{
    return status == 0 ? "PASS" : status == 1 ? "FAIL" : status == 2 ? "INVALID" : "ERROR";
}

/* A run's own output file (junit.xml, results.json), NULL when it cannot be read. */
static char *slurp(const char *path)
{
    char err[256];
    return nvemu_slurp(path, 64u << 20, NULL, err, sizeof err);
}

/* The <testsuite> elements of run_dir/name into out; a missing file becomes a failing suite unless optional. */
static void merge_junit(FILE *out, const char *run_dir, const char *name, const char *label, bool optional)
{
    char path[1200];   /* a run directory (< 1100) and a file name */
    snprintf(path, sizeof path, "%s/%s", run_dir, name);
    if (optional && access(path, R_OK) != 0)
        return;
    char *text = slurp(path);
    char *from = text ? strstr(text, "<testsuite ") : NULL;
    char *to = from ? strstr(from, "</testsuites>") : NULL;
    if (!from || !to) {
        fprintf(out, "  <testsuite name=\"%s\" tests=\"1\" failures=\"1\" errors=\"0\">\n"
                     "    <testcase classname=\"%s\" name=\"run\"><failure message=\"no junit.xml in %s\"/></testcase>\n"
                     "  </testsuite>\n", label, label, run_dir);
        free(text);
        return;
    }
    fwrite(from, 1, (size_t)(to - from), out);
    free(text);
}

/* One line of the summary table from a run's results.json: its result, expectations met and warnings. */
static void summary_line(const char *name, const char *run_dir)
{
    char path[1200];   /* a run directory (< 1100) and results.json */
    snprintf(path, sizeof path, "%s/results.json", run_dir);
    char *text = slurp(path);
    cJSON *root = text ? cJSON_Parse(text) : NULL;
    const cJSON *ex = cJSON_GetObjectItemCaseSensitive(root, "expectations");
    int total = cJSON_GetArraySize(ex), met = 0;
    const cJSON *it;
    cJSON_ArrayForEach(it, ex) {
        const cJSON *p = cJSON_GetObjectItemCaseSensitive(it, "pass");
        met += cJSON_IsTrue(p);
    }
    int warnings = cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(root, "warnings"));
    const cJSON *err = cJSON_GetObjectItemCaseSensitive(root, "error");
    int status = !root || (cJSON_IsString(err) && err->valuestring[0]) ? 3
                 : cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(root, "passed")) ? 0 : 1;
    printf("%-36s %-7s %5d/%-5d %8d\n", name, status_word(status), met, total, warnings);
    cJSON_Delete(root);
    free(text);
}

int cli_scenario_suite(const struct cli_suite *su)
{
    if (!su->out_dir) {
        fprintf(stderr, "nvemu scenario: several scenarios, a directory, --seeds or expectations over seeds need --out DIR\n");
        return 2;
    }
    char **files;
    size_t n;
    if (expand(su->files, su->nfiles, &files, &n))
        return 2;
    int status = 0;
    for (size_t i = 0; i < n; i++)
        status = worst(status, su->check(su->ctx, files[i]));
    if (status) {
        fprintf(stderr, "nvemu scenario: nothing ran: an invalid scenario above\n");
        for (size_t i = 0; i < n; i++)
            free(files[i]);
        free(files);
        return 2;
    }
    char merr[512];
    if (nvemu_mkdir_p(su->out_dir, merr, sizeof merr) != 0) {
        fprintf(stderr, "nvemu scenario: %s\n", merr);
        for (size_t i = 0; i < n; i++)
            free(files[i]);
        free(files);
        return 3;
    }
    struct entry *e = calloc(n, sizeof(*e));
    uint64_t base = su->base_seed ? *su->base_seed : 1;
    for (size_t i = 0; e && i < n; i++) {
        e[i].file = files[i];
        e[i].name = unique_name(files[i], e, i);
        e[i].seeds = su->seeds ? su->seeds : su->seeds_needed(su->ctx, files[i]);
        char dir[1024];
        if (n == 1 && e[i].seeds)
            snprintf(dir, sizeof dir, "%s", su->out_dir);
        else
            snprintf(dir, sizeof dir, "%s/%s", su->out_dir, e[i].name ? e[i].name : "scenario");
        e[i].dir = strdup(dir);
        if (!e[i].name || !e[i].dir) {
            fprintf(stderr, "nvemu scenario: out of memory\n");
            e[i].status = 3;
            continue;
        }
        if (!e[i].seeds) {
            e[i].status = su->run(su->ctx, e[i].file, e[i].dir, NULL);
            if (!su->quiet)
                printf("%s: %s\n", e[i].name, status_word(e[i].status));
            continue;
        }
        mkdir(e[i].dir, 0755);
        clear_seed_runs(e[i].dir);
        for (unsigned k = 0; k < e[i].seeds; k++) {
            uint64_t seed = base + k;
            char run_dir[1100];
            snprintf(run_dir, sizeof run_dir, "%s/seed-%llu", e[i].dir, (unsigned long long)seed);
            int st = su->run(su->ctx, e[i].file, run_dir, &seed);
            e[i].status = worst(e[i].status, st);
            if (!su->quiet)
                printf("%s seed %llu: %s\n", e[i].name, (unsigned long long)seed, status_word(st));
        }
        struct seed_set set;
        char err[512], path[1100];
        if (seeds_load(e[i].dir, &set, err, sizeof err) == 0) {
            snprintf(path, sizeof path, "%s/seeds.json", e[i].dir);
            if (seeds_write_summary(&set, path, err, sizeof err)) {
                fprintf(stderr, "nvemu scenario: %s\n", err);
                e[i].status = worst(e[i].status, 3);
            }
            if (!su->quiet)
                seeds_print(&set, stdout);
            seeds_free(&set);
            e[i].status = worst(e[i].status, su->judge(su->ctx, e[i].file, e[i].dir, base));
        } else {
            fprintf(stderr, "nvemu scenario: %s\n", err);
            e[i].status = worst(e[i].status, 3);
        }
    }
    if (!e) {
        fprintf(stderr, "nvemu scenario: out of memory\n");
        for (size_t i = 0; i < n; i++)
            free(files[i]);
        free(files);
        return 3;
    }
    /* the table, the aggregate JUnit file and suite.json */
    printf("\n%-36s %-7s %11s %8s\n", "scenario", "result", "expect met", "warnings");
    char path[1100];
    snprintf(path, sizeof path, "%s/junit.xml", su->out_dir);
    const char *junits[2] = {path, su->junit};
    FILE *jf[2] = {fopen(junits[0], "w"), su->junit ? fopen(su->junit, "w") : NULL};
    for (int j = 0; j < 2; j++)
        if (jf[j])
            fprintf(jf[j], "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n");
    cJSON *root = cJSON_CreateObject();
    cJSON *arr = cJSON_AddArrayToObject(root, "scenarios");
    size_t counts[4] = {0};
    for (size_t i = 0; i < n; i++) {
        status = worst(status, e[i].status);
        counts[e[i].status >= 0 && e[i].status <= 3 ? e[i].status : 3]++;
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "file", e[i].file);
        cJSON_AddStringToObject(o, "name", e[i].name ? e[i].name : "");
        cJSON_AddStringToObject(o, "dir", e[i].dir ? e[i].dir : "");
        cJSON_AddStringToObject(o, "result", status_word(e[i].status));
        cJSON_AddNumberToObject(o, "exit_status", e[i].status);
        cJSON_AddItemToArray(arr, o);
        if (!e[i].dir)
            continue;
        for (unsigned k = 0; k < (e[i].seeds ? e[i].seeds : 1); k++) {
            char run_dir[1100], label[400];
            if (e[i].seeds) {
                snprintf(run_dir, sizeof run_dir, "%s/seed-%llu", e[i].dir, (unsigned long long)(base + k));
                snprintf(label, sizeof label, "%s seed %llu", e[i].name, (unsigned long long)(base + k));
            } else {
                snprintf(run_dir, sizeof run_dir, "%s", e[i].dir);
                snprintf(label, sizeof label, "%s", e[i].name);
            }
            for (int j = 0; j < 2; j++)
                if (jf[j])
                    merge_junit(jf[j], run_dir, "junit.xml", label, false);
            summary_line(label, run_dir);
        }
        for (int j = 0; j < 2 && e[i].seeds; j++)
            if (jf[j])
                merge_junit(jf[j], e[i].dir, "junit-seeds.xml", e[i].name, true);
    }
    for (int j = 0; j < 2; j++) {
        if (!jf[j] && (j == 0 || su->junit)) {
            fprintf(stderr, "nvemu scenario: cannot write %s: %s\n", junits[j], strerror(errno));
            status = worst(status, 3);
            continue;
        }
        if (jf[j] && (fprintf(jf[j], "</testsuites>\n") < 0 || fclose(jf[j]) != 0)) {
            fprintf(stderr, "nvemu scenario: cannot write %s\n", junits[j]);
            status = worst(status, 3);
        }
    }
    cJSON_AddNumberToObject(root, "seeds", su->seeds);
    cJSON_AddNumberToObject(root, "passed", (double)counts[0]);
    cJSON_AddNumberToObject(root, "failed", (double)counts[1]);
    cJSON_AddNumberToObject(root, "errors", (double)(counts[2] + counts[3]));
    char *text = cJSON_Print(root);
    cJSON_Delete(root);
    snprintf(path, sizeof path, "%s/suite.json", su->out_dir);
    FILE *f = text ? fopen(path, "w") : NULL;
    if (!f || fputs(text, f) < 0 || fputc('\n', f) == EOF || fclose(f) != 0) {
        fprintf(stderr, "nvemu scenario: cannot write %s\n", path);
        status = worst(status, 3);
    }
    free(text);
    printf("%zu %s: %zu passed, %zu failed an expectation, %zu could not run; %s/{junit.xml,suite.json}\n", n,
           n == 1 ? "scenario" : "scenarios", counts[0], counts[1], counts[2] + counts[3], su->out_dir);
    for (size_t i = 0; i < n; i++) {
        free(e[i].file);
        free(e[i].name);
        free(e[i].dir);
    }
    free(e);
    free(files);
    return status;
}
