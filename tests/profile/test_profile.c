/*
 * Profile loader: every built-in profile loads, the h200 values are the
 * recorded ones, and every validation error names file:line:column.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "abi/nv_classes.h"

#include "profile/profile.h"
#include "profile/profile_builtin.h"
#include "profile/profile_yaml.h"

static const struct profile_builtin *builtin(const char *name)
{
    for (const struct profile_builtin *b = profile_builtins; b->name; b++)
        if (!strcmp(b->name, name))
            return b;
    return NULL;
}

static void test_all_builtins_load(void **state)
{
    (void)state;
    int n = 0;
    for (const char *const *name = profile_builtin_names(); *name; name++, n++) {
        char err[256] = "";
        struct profile *p = profile_load(*name, err, sizeof err);
        if (!p)
            fail_msg("%s: %s", *name, err);
        assert_string_equal(p->name, *name);
        assert_true(p->class_count > 0);
        assert_non_null(profile_engine(p, 1));
        assert_int_equal(p->default_timeslice_us, 1024);
        assert_int_equal(p->max_channels_per_group, 128);
        profile_free(p);
    }
    assert_true(n >= 4);
    for (const char *want[] = {"h200", "h100", "a100", "v100"}, **w = want; w < want + 4; w++)
        assert_non_null(builtin(*w));
}

static void builtin_h200_profile_has_the_boards_values(void **state)
{
    (void)state;
    char err[256];
    struct profile *p = profile_load(NULL, err, sizeof err);
    assert_non_null(p);
    assert_string_equal(p->name, "h200");
    assert_string_equal(p->marketing_name, "NVIDIA H200");
    assert_int_equal(p->pci_device_id, 0x2335);
    assert_int_equal(p->pci_slot, 6);
    assert_int_equal(p->class_count, 103);
    assert_true(profile_has_class(p, HOPPER_CHANNEL_GPFIFO_A));
    assert_true(profile_has_class(p, HOPPER_COMPUTE_A));
    assert_false(profile_has_class(p, AMPERE_COMPUTE_A));
    assert_int_equal(p->engine_count, 23);
    assert_int_equal(profile_engine(p, 1)->runlist_id, 0);
    assert_int_equal(profile_engine(p, 0x0C)->runlist_id, 3);
    assert_string_equal(profile_engine(p, 0x0D)->name, "COPY4");
    assert_null(profile_engine(p, 0x1B));
    assert_int_equal(p->max_channel_groups, 2048);
    assert_int_equal(p->max_subcontexts, 64);
    assert_int_equal(p->timing.ctxsw_ns, 25000);
    assert_int_equal(p->timing.lat_get_timeslice_ns, 3500);
    assert_int_equal(p->timing.lat_set_timeslice_ns, 160000);
    assert_int_equal(p->timing.preempt_timeout_ns, 4000000000ull); /* measured: empty-group waited PREEMPT gives up after 4 s */
    assert_int_equal(p->uuid[0], 0xB5);
    assert_int_equal(p->uuid[15], 0x2F);
    const struct profile_info_table *fb = profile_info_table(p, 0x20801303);
    assert_non_null(fb);
    assert_null(profile_info_table(p, 0x12345678));
    /* canned blobs: size pads with zeros, HH*N repeats */
    bool seen = false;
    for (uint32_t i = 0; i < p->canned_count; i++)
        if (p->canned[i].cmd == 0x288) {
            seen = true;
            assert_int_equal(p->canned[i].size, 3076);
            assert_int_equal(p->canned[i].out[4], 6);
            assert_int_equal(p->canned[i].out[8], 0xFF);
            assert_int_equal(p->canned[i].out[15], 0xFF);
            assert_int_equal(p->canned[i].out[16], 0);
            assert_int_equal(p->canned[i].out[3075], 0);
        }
    assert_true(seen);
    profile_free(p);
}

/* A timing duration is read by its key or the key's older "_us" spelling; a key that is no timing duration is not. */
static void timing_duration_is_read_by_key(void **state)
{
    (void)state;
    char err[256];
    struct profile *p = profile_load("h200", err, sizeof err);
    assert_non_null(p);
    uint64_t ns = 0;
    assert_true(profile_timing_get(p, "cilp_save", &ns));
    assert_int_equal(ns, p->timing.cilp_save_ns);
    ns = 0;
    assert_true(profile_timing_get(p, "cilp_save_us", &ns));
    assert_int_equal(ns, p->timing.cilp_save_ns);
    assert_true(profile_timing_get(p, "restore_per_kb_us", &ns));
    assert_int_equal(ns, p->timing.restore_ns_per_kb);
    assert_false(profile_timing_get(p, "default_timeslice", &ns));
    assert_false(profile_timing_get(p, "no_such_key", &ns));
    profile_free(p);
}

static void test_unknown_name_and_missing_file(void **state)
{
    (void)state;
    char err[256];
    assert_null(profile_load("nope", err, sizeof err));
    assert_string_equal(err, "unknown profile nope");
    assert_null(profile_load("/nonexistent/x.yaml", err, sizeof err));
    assert_non_null(strstr(err, "/nonexistent/x.yaml: No such file"));
}

static void test_load_from_file(void **state)
{
    (void)state;
    const struct profile_builtin *b = builtin("a100");
    char path[] = "/tmp/nvemu-profile-XXXXXX.yaml";
    int fd = mkstemps(path, 5);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, b->text, b->len), (ssize_t)b->len);
    close(fd);
    char err[256];
    struct profile *p = profile_load(path, err, sizeof err);
    unlink(path);
    assert_non_null(p);
    assert_string_equal(p->chip, "GA100");
    assert_true(profile_has_class(p, AMPERE_COMPUTE_A));
    profile_free(p);
}

/*
 * Replaces the first `from` in h200's text by `to`, parses, and checks the
 * error is "emu/profiles/h200.yaml:LINE:COL: msg" where LINE:COL is the position
 * of `anchor` (a substring of `to`) in the edited text (anchor NULL: position 1:1
 * of the line given by want_line).
 */
static void expect_error(const char *from, const char *to, const char *anchor, const char *msg)
{
    const struct profile_builtin *b = builtin("h200");
    const char *at = strstr(b->text, from);
    if (!at)
        fail_msg("test text '%s' not in h200.yaml", from);
    size_t pre = (size_t)(at - b->text), flen = strlen(from), tlen = strlen(to);
    size_t n = b->len - flen + tlen;
    char *text = malloc(n + 1);
    memcpy(text, b->text, pre);
    memcpy(text + pre, to, tlen);
    memcpy(text + pre + tlen, at + flen, b->len - pre - flen);
    text[n] = 0;
    const char *a = strstr(text + pre, anchor);
    if (!a)
        a = strstr(text, anchor);
    assert_non_null(a);
    size_t pos = (size_t)(a - text);
    int line = 1, col = 1;
    for (size_t i = 0; i < pos; i++) {
        if (text[i] == '\n') {
            line++;
            col = 1;
        } else {
            col++;
        }
    }
    char err[256] = "", want[300];
    struct profile *p = profile_parse_yaml("emu/profiles/h200.yaml", text, n, err, sizeof err);
    free(text);
    if (p) {
        profile_free(p);
        fail_msg("'%s' -> '%s' was accepted", from, to);
    }
    snprintf(want, sizeof want, "emu/profiles/h200.yaml:%d:%d: %s", line, col, msg);
    if (strncmp(err, want, strlen(want)) != 0)
        fail_msg("expected '%s...', got '%s'", want, err);
}

static void unknown_key_is_refused_at_its_line(void **state)
{
    (void)state;
    expect_error("  max_subcontexts: 64\n", "  max_subcontexts: 64\n  max_subcontext: 64\n", "max_subcontext: ",
                 "unknown key 'max_subcontext'");
    expect_error("name: h200\n", "name: h200\nbogus: 1\n", "bogus", "unknown key 'bogus'");
}

static void wrong_types_are_refused_naming_the_key(void **state)
{
    (void)state;
    expect_error("gpu_count: 1\n", "gpu_count: [1]\n", "[1]", "gpu_count must be a scalar, not a sequence");
    expect_error("gpu_count: 1\n", "gpu_count: one\n", "one", "gpu_count must be a whole number, not 'one'");
    expect_error("arch: hopper\n", "arch: {a: 1}\n", "{a: 1}", "arch must be a scalar, not a mapping");
    expect_error("  per_runlist_chram: false", "  per_runlist_chram: no", "no",
                 "fifo.per_runlist_chram must be true or false, not 'no'");
    expect_error("  ctxsw_us: 25 ", "  ctxsw_us: 25.0001 ", "25.0001",
                 "timing.ctxsw_us '25.0001' is finer than 1 ns");
    expect_error("  default_compute_preempt_mode: wfi", "  default_compute_preempt_mode: gfxp", "gfxp",
                 "fifo.default_compute_preempt_mode must be one of wfi|cta|cilp, not 'gfxp'");
}

static void impossible_values_are_refused_with_their_range(void **state)
{
    (void)state;
    expect_error("  max_channels_per_group: 128", "  max_channels_per_group: 129", "129",
                 "fifo.max_channels_per_group must be between 1 and 128, not 129");
    expect_error("  slot: 6", "  slot: 32", "32", "pci.slot must be between 0 and 31, not 32");
    expect_error("gpu_count: 1\n", "gpu_count: 0\n", "0", "gpu_count must be between 1 and 32, not 0");
    expect_error("0x0100, 0x0101,", "0x0100, 0x0101, 0x0100 ,", "0x0100 ,", "class 0x100 listed twice");
    expect_error("uuid: GPU-b59a16c5", "uuid: GPU-x59a16c5", "GPU-x", "uuid must look like GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx");
    expect_error("  - {name: COPY0,   type: 0x09,", "  - {name: COPY0,   type: 0x01,", "{name: COPY0",
                 "engine type 0x1 listed twice");
    expect_error("  0x11: 0x1\n", "  0x11: 0x1\n  0x11: 0x2\n", "0x11: 0x2", "duplicate key '0x11' (first at line");
    expect_error("  0x11: 0x1\n", "  0x11: 0x1\n  17: 0x2\n", "17: 0x2", "index 0x11 listed twice");
}

static void minimum_above_the_default_timeslice_is_refused(void **state)
{
    (void)state;
    const struct profile_builtin *b = builtin("h200");
    char *text = strndup(b->text, b->len);
    char *at = strstr(text, "  min_timeslice_us: 0 ");
    assert_non_null(at);
    /* same length replacement keeps every other position */
    memcpy(at, "  min_timeslice_us: 9", 21);
    char *fifo = strstr(text, "\nfifo:");
    int line = 1;
    for (char *q = text; q <= fifo; q++)
        line += *q == '\n';
    /* "9" < 1024: accepted */
    char err[256];
    struct profile *p = profile_parse_yaml("x.yaml", text, b->len, err, sizeof err);
    assert_non_null(p);
    profile_free(p);
    char *def = strstr(text, "default_timeslice_us: 1024");
    memcpy(def, "default_timeslice_us: 0008", 26);
    assert_null(profile_parse_yaml("x.yaml", text, b->len, err, sizeof err));
    char want[128];
    snprintf(want, sizeof want, "x.yaml:%d:3: min_timeslice_us 9 exceeds default_timeslice_us 8", line + 1);
    assert_string_equal(err, want);
    free(text);
}

/* Separate ID spaces per runlist without the hardware for it is impossible. */
static void test_chram_needs_hw(void **state)
{
    (void)state;
    const struct profile_builtin *b = builtin("h200");
    char *text = strndup(b->text, b->len);
    char *sw = strstr(text, "per_runlist_chram: false");
    char *hw = strstr(text, "per_runlist_chram_hw: true ");
    assert_non_null(sw);
    assert_non_null(hw);
    memcpy(sw, "per_runlist_chram: true ", 24);
    memcpy(hw, "per_runlist_chram_hw: false", 27);
    int line = 1;
    for (char *q = text; q <= strstr(text, "\nfifo:"); q++)
        line += *q == '\n';
    char err[256], want[128];
    assert_null(profile_parse_yaml("x.yaml", text, b->len, err, sizeof err));
    snprintf(want, sizeof want, "x.yaml:%d:3: per_runlist_chram needs per_runlist_chram_hw", line + 1);
    assert_string_equal(err, want);
    free(text);
}

static void missing_and_duplicate_keys_are_refused(void **state)
{
    (void)state;
    expect_error("chip: GH100\n", "", "name: h200", "the profile needs 'chip'");
    expect_error("arch: hopper\n", "arch: hopper\narch: volta\n", "arch: volta", "duplicate key 'arch'");
}

static void bad_canned_bytes_are_refused(void **state)
{
    (void)state;
    expect_error("    size: 4\n    out: 08\n", "    size: 4\n    out: 0g\n", "0g", "canned.out: invalid character 'g' in hex byte string");
    expect_error("    size: 4\n    out: 08\n", "    size: 4\n    out: 080\n", "080", "canned.out: hex token with an odd number of digits");
    expect_error("  - cmd: 0x1f0\n    source: \"hw-h200-580 trace line 12\"\n    size: 4\n    out: 08\n",
                 "  - cmd: 0x1f0\n    source: \"hw-h200-580 trace line 12\"\n    size: 2\n    out: 080000\n",
                 "cmd: 0x1f0", "'out' holds 3 bytes but size is 2");
    expect_error("  - cmd: 0x27b\n", "  - cmd: 0x1f0\n", "cmd: 0x1f0", "cmd 0x1f0 already has an answer for every input");
}

/* Every built-in profile says where its class list, FIFO values and timing come from; the kinds are checked. */
static void every_profile_states_its_provenance(void **state)
{
    (void)state;
    for (const struct profile_builtin *b = profile_builtins; b->name; b++) {
        char err[256];
        struct profile *p = profile_load(b->name, err, sizeof err);
        assert_non_null(p);
        const char *need[] = {"classes", "fifo", "timing"};
        for (size_t i = 0; i < 3; i++) {
            bool found = false;
            for (uint32_t k = 0; k < p->provenance_count; k++)
                found |= !strcmp(p->provenance[k].key, need[i]) && p->provenance[k].source[0];
            if (!found)
                fail_msg("profile %s: no provenance for %s", b->name, need[i]);
        }
        profile_free(p);
    }
    char err[256];
    struct profile *t4 = profile_load("t4", err, sizeof err), *h200 = profile_load("h200", err, sizeof err);
    assert_non_null(t4);
    assert_non_null(h200);
    for (uint32_t k = 0; k < t4->provenance_count; k++)
        if (!strcmp(t4->provenance[k].key, "timing"))
            assert_int_equal(t4->provenance[k].kind, PROFILE_SOURCE_ASSUMED);
    for (uint32_t k = 0; k < h200->provenance_count; k++)
        if (!strcmp(h200->provenance[k].key, "timing"))
            assert_int_equal(h200->provenance[k].kind, PROFILE_SOURCE_MEASURED);
    char *text = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    profile_print_provenance(t4, m);
    fclose(m);
    assert_non_null(strstr(text, "classes"));
    assert_non_null(strstr(text, "derived   g_gpu_class_list.c"));
    free(text);
    profile_free(t4);
    profile_free(h200);
    expect_error("  timing: \"measured,", "  timing: \"guessed,", "\"guessed",
                 "provenance.timing must be 'measured|derived|assumed, SOURCE'");
    expect_error("  timing: \"measured,", "  timings: \"measured,", "timings", "provenance: 'timings' is not a key");
}

static void yaml_syntax_error_is_refused(void **state)
{
    (void)state;
    char err[256];
    const char *doc = "name: h200\nchip: [GH100\n";
    assert_null(profile_parse_yaml("bad.yaml", doc, strlen(doc), err, sizeof err));
    assert_non_null(strstr(err, "bad.yaml:3:1: "));
    assert_null(profile_parse_yaml("empty.yaml", "", 0, err, sizeof err));
    assert_string_equal(err, "empty.yaml:1:1: empty document");
}

/* h200's text with the first `from` replaced by `to`, parsed with overrides; NULL on error (message in err). */
static struct profile *edited(const char *from, const char *to, const char *const *set, int nset, char *err,
                              size_t errlen)
{
    const struct profile_builtin *b = builtin("h200");
    const char *at = strstr(b->text, from);
    assert_non_null(at);
    size_t pre = (size_t)(at - b->text), flen = strlen(from), tlen = strlen(to), n = b->len - flen + tlen;
    char *text = malloc(n + 1);
    assert_non_null(text);
    memcpy(text, b->text, pre);
    memcpy(text + pre, to, tlen);
    memcpy(text + pre + tlen, at + flen, b->len - pre - flen + 1);
    struct profile *p = profile_parse_yaml_set("x.yaml", text, n, set, nset, err, errlen);
    free(text);
    return p;
}

/*
 * One duration grammar in profiles and scenarios: "ctxsw: 25us" is the same
 * value as the older "ctxsw_us: 25"; giving both is refused; an override of
 * either spelling wins over the file's.
 */
static void both_duration_spellings_give_one_value(void **state)
{
    (void)state;
    char err[512];
    struct profile *base = profile_load("h200", err, sizeof err);
    assert_non_null(base);
    struct profile *p = edited("  ctxsw_us: 25 ", "  ctxsw: 25us ", NULL, 0, err, sizeof err);
    assert_non_null(p);
    assert_int_equal(p->timing.ctxsw_ns, base->timing.ctxsw_ns);
    profile_free(p);
    p = edited("  default_timeslice_us: 1024", "  default_timeslice: 1.024ms", NULL, 0, err, sizeof err);
    assert_non_null(p);
    assert_int_equal(p->default_timeslice_us, 1024);
    profile_free(p);
    assert_null(edited("  ctxsw_us: 25 ", "  ctxsw_us: 25\n  ctxsw: 25us ", NULL, 0, err, sizeof err));
    assert_non_null(strstr(err, "'ctxsw' and 'ctxsw_us' give the same value twice"));
    assert_null(edited("  default_timeslice_us: 1024", "  default_timeslice: 1500ns", NULL, 0, err, sizeof err));
    assert_non_null(strstr(err, "fifo.default_timeslice must be a whole number of microseconds"));

    const char *set[] = {"timing.ctxsw=30us", "fifo.default_compute_preempt_mode=cilp", "fifo.default_timeslice=2ms"};
    p = edited("name: h200", "name: h200", set, 3, err, sizeof err);
    if (!p)
        fail_msg("%s", err);
    assert_int_equal(p->timing.ctxsw_ns, 30000);
    assert_int_equal(p->default_compute_preempt_mode, 2);
    assert_int_equal(p->default_timeslice_us, 2000);
    assert_int_equal(p->timing.cilp_save_ns, base->timing.cilp_save_ns);
    profile_free(p);
    const char *bad[] = {"timing.ctxsw=2h"};
    assert_null(edited("name: h200", "name: h200", bad, 1, err, sizeof err));
    assert_non_null(strstr(err, "timing.ctxsw '2h' has an unknown unit (use ns, us, ms or s) (value set by an override)"));
    const char *through[] = {"name.x=1"};
    assert_null(edited("name: h200", "name: h200", through, 1, err, sizeof err));
    assert_non_null(strstr(err, "x.yaml: override 'name.x=1': 'name' is inside a scalar"));
    profile_free(base);
}

/* A profile of `text` written to a temporary file and loaded (NULL and the message in err when it fails). */
static struct profile *load_text(const char *text, char *err, size_t errlen)
{
    char path[] = "/tmp/nvemu-profile-XXXXXX.yaml";
    int fd = mkstemps(path, 5);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    struct profile *p = profile_load(path, err, errlen);
    unlink(path);
    return p;
}

/* The answers of canned control cmd for input in (NULL: the row without an input), or NULL. */
static const struct profile_canned_ctrl *canned(const struct profile *p, uint32_t cmd, const char *in)
{
    for (uint32_t i = 0; i < p->canned_count; i++) {
        const struct profile_canned_ctrl *k = &p->canned[i];
        if (k->cmd == cmd && (in ? k->in && !memcmp(k->in, in, strlen(in)) : !k->in))
            return k;
    }
    return NULL;
}

/*
 * A derived profile's canned rows add to its base's: a new control is appended, a row of the same control and
 * input (another spelling of its hex included) replaces the base's, the base's other inputs of it stay.
 */
static void derived_canned_rows_add_to_and_override_the_base(void **state)
{
    (void)state;
    char err[256];
    struct profile *base = profile_load("h200-2b42", err, sizeof err);
    assert_non_null(base);
    struct profile *p = load_text("base: h200-2b42\n"
                                  "name: derived\n"
                                  "canned:\n"
                                  "  - cmd: 0x20800999\n"
                                  "    source: new control\n"
                                  "    out: 0102\n"
                                  "  - cmd: 314\n"
                                  "    source: 0x13a again, decimal\n"
                                  "    size: 1352\n"
                                  "    out: 02\n"
                                  "  - cmd: 0x2080014b\n"
                                  "    source: one input of several\n"
                                  "    in: 4F 42 44\n"
                                  "    size: 5\n"
                                  "    out: 4f42440909\n",
                                  err, sizeof err);
    assert_non_null(p);
    assert_int_equal(p->canned_count, base->canned_count + 1);
    const struct profile_canned_ctrl *k = canned(p, 0x20800999, NULL);
    assert_non_null(k);
    assert_int_equal(k->size, 2);
    k = canned(p, 0x13a, NULL);
    assert_non_null(k);
    assert_int_equal(k->out[0], 2);
    k = canned(p, 0x2080014b, "OBD");
    assert_non_null(k);
    assert_int_equal(k->out[3], 9);
    k = canned(p, 0x2080014b, "ECC");
    assert_non_null(k);
    assert_memory_equal(k->out, canned(base, 0x2080014b, "ECC")->out, 5);
    assert_non_null(canned(p, 0x1f0, NULL));
    profile_free(p);
    profile_free(base);
}

/*
 * A row's input is zero-padded to its size, so a derived row whose input spells out the zero tail the base's
 * left implicit ("00*24" against "00") is the same input and replaces the base's row (as `profile from-trace`
 * writes it); before, both stayed and the derived profile failed to load ("same input listed twice").
 */
static void derived_canned_row_with_its_zero_tail_written_out_replaces_the_base_row(void **state)
{
    (void)state;
    char err[256];
    struct profile *base = profile_load("h200-2b42", err, sizeof err);
    assert_non_null(base);
    struct profile *p = load_text("base: h200-2b42\nname: derived\ncanned:\n"
                                  "  - cmd: 0x2080122b\n    source: GPC 0 of another board\n    in: 00*24\n"
                                  "    size: 24\n    out: 00*20 7f010000\n",
                                  err, sizeof err);
    if (!p)
        fail_msg("derived profile refused: %s", err);
    assert_int_equal(p->canned_count, base->canned_count);
    uint32_t gpc0 = 0;
    for (uint32_t i = 0; i < p->canned_count; i++)
        if (p->canned[i].cmd == 0x2080122b && p->canned[i].in[16] == 0) {
            gpc0++;
            assert_int_equal(p->canned[i].out[20], 0x7f);
        }
    assert_int_equal(gpc0, 1);
    profile_free(p);
    profile_free(base);
}

/* A derived row answering every input of a control replaces all the base's rows of that control. */
static void derived_canned_row_without_input_replaces_every_base_row_of_its_control(void **state)
{
    (void)state;
    char err[256];
    struct profile *base = profile_load("h200-2b42", err, sizeof err);
    assert_non_null(base);
    uint32_t rows = 0;
    for (uint32_t i = 0; i < base->canned_count; i++)
        rows += base->canned[i].cmd == 0x2080014b;
    assert_true(rows >= 2);
    struct profile *p = load_text("base: h200-2b42\nname: derived\ncanned:\n"
                                  "  - cmd: 0x2080014b\n    source: every input\n    size: 5\n    out: 00\n",
                                  err, sizeof err);
    assert_non_null(p);
    assert_int_equal(p->canned_count, base->canned_count - rows + 1);
    assert_non_null(canned(p, 0x2080014b, NULL));
    assert_null(canned(p, 0x2080014b, "ECC"));
    profile_free(p);
    profile_free(base);
}

/* A profile file as deep as the parser fuzzer's crashes, and a FIFO or directory as the profile. */
static void hostile_profiles_are_refused_without_crashing(void **state)
{
    (void)state;
    char err[512];
    size_t n = 100000;
    char *t = malloc(n + 16);
    assert_non_null(t);
    memcpy(t, "name: ", 6);
    memset(t + 6, '[', n);
    t[6 + n] = 0;
    assert_null(profile_parse_yaml("deep.yaml", t, strlen(t), err, sizeof err));
    assert_string_equal(err, "deep.yaml:1:70: nested deeper than 64 levels");
    free(t);
    /* 200,000 keys in one mapping (once 91 s of duplicate checks): refused at the first key past the limit */
    char *keys = malloc(200000 * 16 + 16);
    assert_non_null(keys);
    size_t off = (size_t)sprintf(keys, "gpu_info:\n");
    for (int i = 0; i < 200000; i++)
        off += (size_t)sprintf(keys + off, "  %d: 1\n", i);
    assert_null(profile_parse_yaml("keys.yaml", keys, off, err, sizeof err));
    assert_string_equal(err, "keys.yaml:4098:3: more than 4096 keys in one mapping");
    free(keys);
    char dir[] = "/tmp/nvemu-prof-XXXXXX";
    assert_non_null(mkdtemp(dir));
    assert_null(profile_load(dir, err, sizeof err));
    assert_non_null(strstr(err, "is a directory"));
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_all_builtins_load),
        cmocka_unit_test(builtin_h200_profile_has_the_boards_values),
        cmocka_unit_test(timing_duration_is_read_by_key),
        cmocka_unit_test(test_unknown_name_and_missing_file),
        cmocka_unit_test(test_load_from_file),
        cmocka_unit_test(unknown_key_is_refused_at_its_line),
        cmocka_unit_test(wrong_types_are_refused_naming_the_key),
        cmocka_unit_test(impossible_values_are_refused_with_their_range),
        cmocka_unit_test(minimum_above_the_default_timeslice_is_refused),
        cmocka_unit_test(test_chram_needs_hw),
        cmocka_unit_test(missing_and_duplicate_keys_are_refused),
        cmocka_unit_test(bad_canned_bytes_are_refused),
        cmocka_unit_test(every_profile_states_its_provenance),
        cmocka_unit_test(yaml_syntax_error_is_refused),
        cmocka_unit_test(both_duration_spellings_give_one_value),
        cmocka_unit_test(derived_canned_rows_add_to_and_override_the_base),
        cmocka_unit_test(derived_canned_row_without_input_replaces_every_base_row_of_its_control),
        cmocka_unit_test(derived_canned_row_with_its_zero_tail_written_out_replaces_the_base_row),
        cmocka_unit_test(hostile_profiles_are_refused_without_crashing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
