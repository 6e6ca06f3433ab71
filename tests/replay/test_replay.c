/*
 * Replay engine and trace parser: a clean prefix of the H200 recording
 * replays with 0 mismatches; a changed output byte, a changed status and a
 * corrupted line are each reported (so the integration test can fail);
 * --other-client-on-gpu changes exactly the GPU-in-use answers.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "abi/nv_ctrl_core.h"
#include "abi/nv_ctrl_monitoring.h"
#include "abi/nv_escape.h"
#include "identity.h"
#include "order.h"
#include "replay.h"
#include "trace.h"

/* Lines 1..34 of the fixture: two clients, device, GPU ids, class list; no fifo objects. */
#define PREFIX_LINES 34

static char **fixture_lines(int n)
{
    FILE *f = fopen(NVEMU_REPLAY_FIXTURE, "r");
    assert_non_null(f);
    char **v = calloc((size_t)n + 1, sizeof *v);
    size_t cap = 0;
    for (int i = 0; i < n; i++) {
        v[i] = NULL;
        cap = 0;
        assert_true(getline(&v[i], &cap, f) > 0);
    }
    fclose(f);
    return v;
}

static void free_lines(char **v)
{
    for (int i = 0; v[i]; i++)
        free(v[i]);
    free(v);
}

/* Replays the lines (after `edit` changed them) with options `o` and returns the report text. */
static char *replay_lines_opts(char **v, const struct replay_opts *o, struct replay_result *res)
{
    char path[] = "/tmp/nvemu-replay-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    for (int i = 0; v[i]; i++)
        fputs(v[i], f);
    fclose(f);
    char *text = NULL;
    size_t len = 0;
    FILE *rep = open_memstream(&text, &len);
    assert_int_equal(replay_file(path, o, rep, res), 0);
    fclose(rep);
    unlink(path);
    return text;
}

static char *replay_lines(char **v, struct replay_result *res)
{
    const struct replay_opts o = {.profile = "h200"};
    return replay_lines_opts(v, &o, res);
}

static void replace(char **line, const char *from, const char *to)
{
    char *at = strstr(*line, from);
    assert_non_null(at);
    size_t pre = (size_t)(at - *line), fl = strlen(from), tl = strlen(to), n = strlen(*line);
    char *s = malloc(n - fl + tl + 1);
    memcpy(s, *line, pre);
    memcpy(s + pre, to, tl);
    strcpy(s + pre + tl, at + fl);
    free(*line);
    *line = s;
}

static void good_line_parses_into_its_fields(void **state)
{
    (void)state;
    char **v = fixture_lines(4);
    struct trace_call tc;
    char err[128];
    assert_int_equal(trace_parse_line(v[3], 4, &tc, err, sizeof err), 0);
    assert_string_equal(tc.kind, "CTRL");
    assert_int_equal(tc.cmd, 0x101);
    assert_int_equal(tc.nr, 0x2A);
    assert_int_equal(tc.size, 32);
    assert_int_equal(tc.fd, 8);
    assert_string_equal(tc.path, "/dev/nvidiactl");
    assert_int_equal(tc.pin.len, 40);
    assert_int_equal(tc.out.data[0], 0x18);
    trace_call_free(&tc);
    assert_int_equal(trace_parse_line("# comment\n", 5, &tc, err, sizeof err), 1);
    assert_int_equal(trace_parse_line("\n", 6, &tc, err, sizeof err), 1);
    free_lines(v);
}

static void bad_lines_are_refused_with_their_message(void **state)
{
    (void)state;
    static const struct {
        const char *line, *msg;
    } bad[] = {
        {"IOCTL tid=1 fd=8 path=/dev/nvidiactl req=0xc00846d6 nr=0xd6 size=8 ret=0 in=00000040000000 out=0000004000000000",
         "in/out hold 7/8 bytes, size is 8"},
        {"IOCTL tid=1 fd=8 path=/dev/nvidiactl req=0xc00846d6 nr=0xd6 size=8 ret=0 in=000000400000000 out=0000004000000000",
         "malformed value in 'in=000000400000000'"},
        {"IOCTL tid=1 fd=8 path=/dev/nvidiactl req=0xc00846d6 nr=0xd6 size=8 in=0000004000000000 out=0000004000000000",
         "missing field 'ret'"},
        {"IOCTL tid=1 fd=8 path=/dev/nvidiactl req=0xc00846d7 nr=0xd6 size=8 ret=0 in=0000004000000000 out=0000004000000000",
         "req 0xc00846d7 does not encode nr 0xd6 size 8"},
        {"IOCTL tid=1 fd=x path=/dev/nvidiactl req=0xc00846d6 nr=0xd6 size=8 ret=0 in=0000004000000000 out=0000004000000000",
         "malformed value in 'fd=x'"},
        {"IOCTL tid=1 fd=8 path=/dev/nvidiactl req=0xc00846d6 nr=0xd6 size=8 ret=0 in=0000004000000000",
         "missing field 'out'"},
        {"IOTCL tid=1", "line does not start with 'IOCTL '"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct trace_call tc;
        char err[160] = "";
        assert_int_equal(trace_parse_line(bad[i].line, 1, &tc, err, sizeof err), -1);
        assert_string_equal(err, bad[i].msg);
        trace_call_free(&tc);
    }
}

/* Replays the prefix with v[idx] (line idx+1) edited from -> to; the report must contain expect.
 * Returns the number of mismatches. */
static uint32_t replay_edited(int idx, const char *from, const char *to, const char *expect)
{
    char **v = fixture_lines(PREFIX_LINES);
    replace(&v[idx], from, to);
    struct replay_result res;
    char *rep = replay_lines(v, &res);
    assert_non_null(strstr(rep, expect));
    free(rep);
    free_lines(v);
    return res.mismatches;
}

static void test_clean_prefix_replays(void **state)
{
    (void)state;
    char **v = fixture_lines(PREFIX_LINES);
    struct replay_result res;
    char *rep = replay_lines(v, &res);
    if (res.mismatches)
        fail_msg("unexpected mismatches:\n%s", rep);
    assert_int_equal(res.calls, 31);
    /* UVM_INITIALIZE is issued from the head of its in/out block; the two requests without blocks are skipped */
    assert_int_equal(res.uvm_calls, 1);
    assert_int_equal(res.skipped_uvm, 2);
    free(rep);
    free_lines(v);
}

/* UVM lines with parameter blocks are issued and their pout compared: CREATE_RANGE_GROUP hands out 1, then 2. */
static void test_uvm_blocks_replayed(void **state)
{
    (void)state;
    const char *init = "IOCTL tid=1 fd=10 path=/dev/nvidia-uvm req=0x30000001 nr=0x1 size=12288 ret=0 us=1.0 "
                       "UVM op=INITIALIZE rmStatus=0x0 pin=00000000000000000000000000000000 "
                       "pout=00000000000000000000000000000000\n";
    const char *fmt = "IOCTL tid=1 fd=10 path=/dev/nvidia-uvm req=0x17 nr=0x17 size=0 ret=0 us=1.0 "
                      "UVM op=CREATE_RANGE_GROUP rmStatus=0x0 pin=00000000000000000000000000000000 "
                      "pout=0%c000000000000000000000000000000\n";
    char l0[256], l1[256], l2[256];
    snprintf(l0, sizeof l0, "%s", init);
    snprintf(l1, sizeof l1, fmt, '1');
    snprintf(l2, sizeof l2, fmt, '2');
    char *v[] = {l0, l1, l2, NULL};
    struct replay_result res;
    char *rep = replay_lines(v, &res);
    if (res.mismatches)
        fail_msg("unexpected mismatches:\n%s", rep);
    assert_int_equal(res.uvm_calls, 3);
    assert_int_equal(res.skipped_uvm, 0);
    free(rep);
    snprintf(l2, sizeof l2, fmt, '5');
    rep = replay_lines(v, &res);
    if (!strstr(rep, "line 3: UVM parameters differ at byte 0: got 02000000"))
        fail_msg("no UVM difference reported:\n%s", rep);
    assert_int_equal(res.mismatches, 1);
    free(rep);
}

static void test_changed_output_is_a_mismatch(void **state)
{
    (void)state;
    /* line 31: GET_NUM_SUBDEVICES answered 1; pretend the hardware said 2 */
    uint32_t n = replay_edited(30, "pout=01000000", "pout=02000000",
                               "line 31: control 0x00800280 params differ at byte 0: got 01000000, recorded 02000000 "
                               "[emu/profile]");
    assert_int_equal(n, 1);
}

static void test_changed_status_is_a_mismatch(void **state)
{
    (void)state;
    /* line 30 (GET_CLASSLIST_V2): recorded status NV_ERR_INVALID_ARGUMENT instead of NV_OK */
    uint32_t n = replay_edited(29, "out=1900d0c10200005c92028000000000000068287bfc7f00002403000000000000",
                               "out=1900d0c10200005c92028000000000000068287bfc7f0000240300001f000000",
                               "line 30: control 0x00800292 on 0x5c000002: status 0x0, recorded 0x1f");
    assert_int_equal(n, 1);
}

static void test_corrupted_line_is_reported(void **state)
{
    (void)state;
    uint32_t n = replay_edited(11, "in=", "in=zz", "line 12: parse error: malformed value in 'in=zz");
    assert_int_equal(n, 1);
}

/* The handle the emulator gives a client differs from the recorded one; controls still reach it. */
static void test_wrong_handle_is_a_mismatch(void **state)
{
    (void)state;
    /* line 31 targets device 0x5c000002; aim it at an object that does not exist */
    uint32_t n = replay_edited(30, "1900d0c10200005c80028000", "1900d0c10900005c80028000",
                               "line 31: control 0x00800280 on 0x5c000009: status 0x57, recorded 0x0");
    assert_true(n >= 1);
}

/*
 * The prefix was recorded on an idle GPU: GET_ID_INFO_V2 (lines 21, 27) and GET_ID_INFO (line 24) answered
 * gpuFlags 0 before libcuda's device (line 28). With another process holding a device on GPU 0 the emulator
 * must answer IN_USE there, and nothing else may change.
 */
static void test_other_client_on_gpu_sets_in_use(void **state)
{
    (void)state;
    char **v = fixture_lines(PREFIX_LINES);
    const struct replay_opts o = {.profile = "h200", .other_client_on_gpu = true};
    struct replay_result res;
    char *rep = replay_lines_opts(v, &o, &res);
    static const char *const want[] = {
        "line 21: control 0x00000205 params differ at byte 4: got 0100000000000000, recorded 0000000000000000 "
        "[emu/profile]\n",
        "line 24: control 0x00000202 params differ at byte 4: got 0100000000000000, recorded 0000000000000000 "
        "[emu/profile]\n",
        "line 27: control 0x00000205 params differ at byte 4: got 0100000000000000, recorded 0000000000000000 "
        "[emu/profile]\n",
        /* the two GET_ID_INFO commands are the controls not answered exactly */
        "coverage: 11 of 13 distinct controls and 4 of 4 classes answered exactly\n",
    };
    char expect[640] = "";
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        strcat(expect, want[i]);
    assert_string_equal(rep, expect);
    assert_int_equal(res.mismatches, 3);
    assert_int_equal(res.calls, 31);
    free(rep);
    free_lines(v);
}

/* Writes len bytes to a temporary trace and replays it; returns replay_file's result and the report in *text. */
static int replay_bytes(const char *bytes, size_t len, char **text, struct replay_result *res)
{
    char path[] = "/tmp/nvemu-replay-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, bytes, len), (ssize_t)len);
    close(fd);
    size_t tl = 0;
    FILE *rep = open_memstream(text, &tl);
    const struct replay_opts o = {.profile = "h200"};
    int rc = replay_file(path, &o, rep, res);
    fclose(rep);
    unlink(path);
    return rc;
}

static void test_empty_or_foreign_file_is_refused(void **state)
{
    (void)state;
    static const char *const inputs[] = {"", "\n\n# only a comment\n", "hello world\nnot a trace\n"};
    for (size_t i = 0; i < sizeof inputs / sizeof inputs[0]; i++) {
        char *text = NULL;
        struct replay_result res;
        assert_int_equal(replay_bytes(inputs[i], strlen(inputs[i]), &text, &res), -1);
        assert_non_null(strstr(text, "no IOCTL line: empty or not a trace"));
        free(text);
    }
}

/* The first line of the fixture, whole and then cut, then a line starting with NUL. */
static void test_truncated_and_nul_lines_are_errors(void **state)
{
    (void)state;
    char **v = fixture_lines(1);
    size_t n = strlen(v[0]);
    char *text = NULL;
    struct replay_result res;
    assert_int_equal(replay_bytes(v[0], n, &text, &res), 0);
    assert_int_equal(res.mismatches, 0);
    free(text);

    assert_int_equal(replay_bytes(v[0], n - 1, &text, &res), 0);
    assert_true(res.mismatches > 0);
    assert_non_null(strstr(text, ":1: truncated trace: the last line has no newline"));
    free(text);

    char *buf = malloc(2 * n + 2);
    memcpy(buf, v[0], n);
    buf[n] = 0;
    memcpy(buf + n + 1, v[0], n);
    assert_int_equal(replay_bytes(buf, 2 * n + 1, &text, &res), 0);
    assert_int_equal(res.mismatches, 1);
    assert_non_null(strstr(text, ":2: NUL byte in the line"));
    free(text);
    free(buf);
    free_lines(v);
}

/* A FIFO (or any file that is not regular) is refused at once: nothing may hold the replay until a writer
 * comes. */
static void test_fifo_is_refused_not_waited_on(void **state)
{
    (void)state;
    char dir[] = "/tmp/nvemu-replay-fifo-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[128];
    snprintf(path, sizeof path, "%s/trace", dir);
    assert_int_equal(mkfifo(path, 0600), 0);
    char *text = NULL;
    size_t len = 0;
    FILE *report = open_memstream(&text, &len);
    struct replay_opts o = {.profile = "h200"};
    struct replay_result res;
    assert_int_equal(replay_file(path, &o, report, &res), -1);
    fclose(report);
    assert_non_null(strstr(text, "not a regular file"));
    free(text);
    unlink(path);
    rmdir(dir);
}

/* A failure without an errno never prints strerror(0) ("Success"). */
static void test_error_messages_never_end_in_success(void **state)
{
    (void)state;
    char **v = fixture_lines(1);
    replace(&v[0], " fd=", " fd=9999");
    char *text = NULL;
    struct replay_result res;
    assert_int_equal(replay_bytes(v[0], strlen(v[0]), &text, &res), 0);
    assert_true(res.mismatches > 0);
    assert_non_null(strstr(text, "cannot open"));
    assert_null(strstr(text, "Success"));
    free(text);
    free_lines(v);
}

/*
 * NVLINK_STATUS answers that differ in links' lane reversal or local SID (and link power states) are board
 * wiring; a difference anywhere else (here a link's capsTbl) is not.
 */
static void nvlink_status_wiring_is_board_identity_and_nothing_else(void **state)
{
    (void)state;
    static uint8_t got[NV2080_CTRL_CMD_NVLINK_GET_NVLINK_STATUS_PARAMS_SIZE], want[sizeof got];
    const uint32_t link3 = NVLINK_STATUS_LINKS_OFF + 3 * NVLINK_LINK_STATUS_SIZE;
    want[link3 + 14] = 1;         /* lane reversal */
    want[link3 + 72 + 5] = 0x9A;  /* local link SID */
    want[link3 + 8] = 3;          /* link state: volatile */
    assert_non_null(replay_board_identity_entries(NV2080_CTRL_CMD_NVLINK_GET_NVLINK_STATUS, got, want, sizeof got));
    want[link3] = 0xCA;           /* capsTbl */
    assert_null(replay_board_identity_entries(NV2080_CTRL_CMD_NVLINK_GET_NVLINK_STATUS, got, want, sizeof got));
    memset(want, 0, sizeof want);
    want[link3 + 8] = 3;          /* power state alone is not identity (it is skipped as volatile) */
    assert_null(replay_board_identity_entries(NV2080_CTRL_CMD_NVLINK_GET_NVLINK_STATUS, got, want, sizeof got));
}

/*
 * GET_GPU_FABRIC_PROBE_INFO answers that differ in the fabric partition id (programs2's machine 4, programs4-nccl's
 * 6), the cluster UUID or the clique id are board identity; a difference in the probe state or caps is not.
 */
static void fabric_partition_is_board_identity_and_nothing_else(void **state)
{
    (void)state;
    nv2080_fabric_probe_info_params got = {.state = 3, .fabricCaps = 3, .fabricPartitionId = 4}, want = got;
    want.fabricPartitionId = 6;
    want.clusterUuid[3] = 0x5a;
    want.fabricCliqueId = 2;
    assert_non_null(replay_board_identity_entries(NV2080_CTRL_CMD_GET_GPU_FABRIC_PROBE_INFO, (const uint8_t *)&got,
                                                  (const uint8_t *)&want, sizeof got));
    want.fabricCaps = 1;
    assert_null(replay_board_identity_entries(NV2080_CTRL_CMD_GET_GPU_FABRIC_PROBE_INFO, (const uint8_t *)&got,
                                              (const uint8_t *)&want, sizeof got));
    want.fabricCaps = got.fabricCaps;
    want.state = 0;
    assert_null(replay_board_identity_entries(NV2080_CTRL_CMD_GET_GPU_FABRIC_PROBE_INFO, (const uint8_t *)&got,
                                              (const uint8_t *)&want, sizeof got));
}

/* The order class is for traces of several processes without times; one process, or traces with times, never. */
static void order_class_applies_to_untimed_processes_replayed_together_only(void **state)
{
    (void)state;
    assert_true(replay_order_applies(2, false));
    assert_true(replay_order_applies(3, false));
    assert_false(replay_order_applies(2, true));
    assert_false(replay_order_applies(1, false));
}

/*
 * A channel id whose gap from the process's first is at least the ids the process took itself and at most those
 * plus every id the other processes took is one the driver's counter could have given (programs2's rank at
 * +40 where it took 22 and the others 24); lower than its own ids, above all of them, or with no other process
 * taking any, no interleaving gives it.
 */
static void channel_id_is_order_only_where_some_interleaving_gives_it(void **state)
{
    (void)state;
    assert_true(replay_order_channel_id(40, 22, 24));
    assert_true(replay_order_channel_id(22, 22, 24));
    assert_true(replay_order_channel_id(46, 22, 24));
    assert_false(replay_order_channel_id(47, 22, 24));
    assert_false(replay_order_channel_id(21, 22, 24));
    assert_false(replay_order_channel_id(3, 2, 0));
}

static bool pid_721_is_another_process(void *ctx, uint32_t pid)
{
    (void)ctx;
    return pid == 721;
}

/*
 * GET_PID_INFO: a different video memory count of another replayed process is order; the same difference for a
 * pid no other process of the replay has, or a difference in the entry's pid or MIG ids, is not.
 */
static void pid_info_memory_of_another_replayed_process_is_order_and_nothing_else(void **state)
{
    (void)state;
    NV2080_CTRL_GPU_GET_PID_INFO_PARAMS got = {.pidInfoListCount = 1}, want;
    got.pidInfoList[0].pid = 721;
    got.pidInfoList[0].index = NV2080_CTRL_GPU_PID_INFO_INDEX_VIDEO_MEMORY_USAGE;
    want = got;
    got.pidInfoList[0].vidMemUsage.memPrivate = 0x34a00000;
    want.pidInfoList[0].vidMemUsage.memSharedOwned = 14u << 20;
    const uint8_t *g = (const uint8_t *)&got, *w = (const uint8_t *)&want;
    assert_true(replay_order_pid_info(g, w, sizeof got, pid_721_is_another_process, NULL));
    got.pidInfoList[0].pid = want.pidInfoList[0].pid = 722;
    assert_false(replay_order_pid_info(g, w, sizeof got, pid_721_is_another_process, NULL));
    got.pidInfoList[0].pid = 721;
    assert_false(replay_order_pid_info(g, w, sizeof got, pid_721_is_another_process, NULL));
    want.pidInfoList[0].pid = 721;
    want.pidInfoList[0].computeInstanceId = 1;
    assert_false(replay_order_pid_info(g, w, sizeof got, pid_721_is_another_process, NULL));
    want.pidInfoList[0].computeInstanceId = 0;
    assert_true(replay_order_pid_info(g, w, sizeof got, pid_721_is_another_process, NULL));
    assert_false(replay_order_pid_info(g, g, sizeof got, pid_721_is_another_process, NULL));
}

/* Writes the fixture's lines idx[0..n) (0-based), each with " t=T" from t[] when t is not NULL, to a temp file. */
static void write_trace(char *path, char **v, const int *idx, const unsigned *t, int n)
{
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    for (int i = 0; i < n; i++) {
        const char *l = v[idx[i]];
        if (t)
            fprintf(f, "%.*s t=%u\n", (int)strcspn(l, "\n"), l, t[i]);
        else
            fputs(l, f);
    }
    fclose(f);
}

/*
 * Two processes: A holds a device on GPU 0 from t=6 until it frees its client at t=20; B asks GET_ID_INFO at t=10,
 * recorded with the GPU in use. With times the calls interleave as they ran (0 mismatches); the same traces
 * without times replay in start order, A whole first, and B sees the GPU free.
 */
static void processes_with_times_replay_in_the_order_their_calls_were_issued(void **state)
{
    (void)state;
    char **v = fixture_lines(PREFIX_LINES);
    /* A's last line frees its client (line 5 freed the first client; here the second, 0xc1d00019) */
    replace(&v[4], "in=1800d0c11800d0c11800d0c1", "in=1900d0c11900d0c11900d0c1");
    replace(&v[4], "out=1800d0c11800d0c11800d0c1", "out=1900d0c11900d0c11900d0c1");
    /* B's GET_ID_INFO on its own client (the first one, 0xc1d00018), recorded while A held GPU 0 */
    for (int k = 0; k < 2; k++)
        replace(&v[20], "1900d0c11900d0c1", "1800d0c11800d0c1");
    replace(&v[20], "pout=0600000000000000", "pout=0600000001000000");
    const int a[] = {0, 1, 7, 24, 25, 27, 4}, b[] = {0, 1, 2, 20};
    const unsigned ta[] = {1, 2, 3, 4, 5, 6, 20}, tb[] = {7, 8, 9, 10};
    char pa[] = "/tmp/nvemu-replay-a-XXXXXX", pb[] = "/tmp/nvemu-replay-b-XXXXXX";
    const struct replay_opts o = {.profile = "h200"};
    struct replay_result res;
    char *text = NULL;
    size_t tl = 0;
    for (int timed = 1; timed >= 0; timed--) {
        write_trace(pa, v, a, timed ? ta : NULL, 7);
        write_trace(pb, v, b, timed ? tb : NULL, 4);
        const char *paths[] = {pa, pb};
        FILE *rep = open_memstream(&text, &tl);
        assert_int_equal(replay_files(paths, 2, &o, rep, &res), 0);
        fclose(rep);
        if (timed && res.mismatches)
            fail_msg("timed replay: unexpected mismatches:\n%s", text);
        if (!timed)
            assert_non_null(strstr(text, "line 4: control 0x00000205 params differ at byte 4: got 0000000000000000, "
                                         "recorded 0100000000000000"));
        assert_int_equal(res.mismatches, timed ? 0 : 1);
        free(text);
        text = NULL;
        unlink(pa);
        unlink(pb);
        strcpy(pa, "/tmp/nvemu-replay-a-XXXXXX");
        strcpy(pb, "/tmp/nvemu-replay-b-XXXXXX");
    }
    free_lines(v);
}

static void to_hex(char *out, const void *p, size_t n)
{
    const uint8_t *b = p;
    for (size_t i = 0; i < n; i++)
        sprintf(out + 2 * i, "%02x", b[i]);
}

/*
 * A GET_SURFACE_INFO whose list was recorded (ein/eout): the emulator gets the recorded indices and its answers
 * are compared with eout, so a recorded answer that differs is a mismatch naming the list.
 */
static void recorded_embedded_list_is_handed_in_and_its_answer_compared(void **state)
{
    (void)state;
    char **v = fixture_lines(PREFIX_LINES);
    const NVOS64_PARAMETERS a = {.hRoot = 0xc1d00019u, .hObjectParent = 0x5c000002u, .hObjectNew = 0x5c000040u,
                                 .hClass = 0x40, .pAllocParms = 0x7f0000001000ull};
    uint8_t ap[128] = {0};
    uint64_t size = 0x600000;
    memcpy(ap + 64, &size, 8);
    const NVOS54_PARAMETERS c = {.hClient = 0xc1d00019u, .hObject = 0x5c000040u, .cmd = 0x410110,
                                 .params = 0x7f0000002000ull, .paramsSize = 16};
    const NV0041_CTRL_GET_SURFACE_INFO_PARAMS sp = {.surfaceInfoListSize = 2, .surfaceInfoList = 0x7f0000003000ull};
    const uint32_t ein[4] = {2, 0, 9, 0};
    char ha[97], hap[257], hc[65], hsp[33], hein[33];
    to_hex(ha, &a, 48);
    to_hex(hap, ap, 128);
    to_hex(hc, &c, 32);
    to_hex(hsp, &sp, 16);
    to_hex(hein, ein, 16);
    for (int wrong = 0; wrong <= 2; wrong++) {
        /* the driver's answer: PHYS_SIZE_LO 0x600000, ADDR_SPACE_TYPE VIDMEM (2); or a size it did not give; or
         * (2) a line of an older recorder, without ein/eout: skipped, not compared */
        const char *eout = wrong ? "0200000000007000" "0900000002000000" : "0200000000006000" "0900000002000000";
        char alloc[1024], ctrl[1024];
        snprintf(alloc, sizeof alloc,
                 "IOCTL tid=1 fd=8 path=/dev/nvidiactl req=0xc030462b nr=0x2b size=48 ret=0 in=%s out=%s aparams=%s\n",
                 ha, ha, hap);
        snprintf(ctrl, sizeof ctrl,
                 "IOCTL tid=1 fd=8 path=/dev/nvidiactl req=0xc020462a nr=0x2a size=32 ret=0 CTRL cmd=0x410110 in=%s "
                 "out=%s pin=%s pout=%s%s%s%s%s\n", hc, hc, hsp, hsp, wrong == 2 ? "" : " ein=",
                 wrong == 2 ? "" : hein, wrong == 2 ? "" : " eout=", wrong == 2 ? "" : eout);
        char *lines[] = {v[0], v[1], v[7], v[24], v[25], v[27], alloc, ctrl, NULL};
        struct replay_result res;
        char *rep = replay_lines(lines, &res);
        if (wrong != 1 && res.mismatches)
            fail_msg("unexpected mismatches:\n%s", rep);
        if (wrong == 1 && !strstr(rep, "line 8: control 0x00410110 GET_SURFACE_INFO.surfaceInfoList[surfaceInfoListSize] "
                                  "differ at byte 6: got 0000600009000000, recorded 0000700009000000"))
            fail_msg("report:\n%s", rep);
        assert_int_equal(res.mismatches, wrong == 1 ? 1 : 0);
        assert_int_equal(res.calls, wrong == 2 ? 7 : 8);
        assert_int_equal(res.skipped_lists, wrong == 2 ? 1 : 0);
        free(rep);
    }
    free_lines(v);
}

/*
 * An NV50_P2P alloc recorded without its params block (paramsSize 0, a params pointer, no aparams: the recorder
 * knew no size for the class) is skipped with the free of its handle, not a mismatch. The same alloc with a
 * recorded block is issued: a block naming no subdevice is refused, where the driver answered NV_OK.
 */
static void alloc_recorded_without_its_params_is_skipped_with_the_calls_on_its_object(void **state)
{
    (void)state;
    char **v = fixture_lines(PREFIX_LINES);
    const NVOS64_PARAMETERS a = {.hRoot = 0xc1d00019u, .hObjectParent = 0xc1d00019u, .hObjectNew = 0x5c000279u,
                                 .hClass = 0x503b, .pAllocParms = 0x7f0000001000ull};
    const uint32_t f[4] = {0xc1d00019u, 0xc1d00019u, 0x5c000279u, 0};
    char ha[97], hf[33], hap[145];
    to_hex(ha, &a, 48);
    to_hex(hf, f, 16);
    uint8_t zero[72] = {0};
    to_hex(hap, zero, sizeof zero);
    for (int recorded = 0; recorded <= 1; recorded++) {
        char alloc[1024], freeline[256];
        snprintf(alloc, sizeof alloc,
                 "IOCTL tid=1 fd=8 path=/dev/nvidiactl req=0xc030462b nr=0x2b size=48 ret=0 in=%s out=%s%s%s\n", ha,
                 ha, recorded ? " aparams=" : "", recorded ? hap : "");
        snprintf(freeline, sizeof freeline,
                 "IOCTL tid=1 fd=8 path=/dev/nvidiactl req=0xc0104629 nr=0x29 size=16 ret=0 in=%s out=%s\n", hf, hf);
        char *lines[] = {v[0], v[1], v[7], v[24], v[25], v[27], alloc, freeline, NULL};
        struct replay_result res;
        char *rep = replay_lines(lines, &res);
        if (recorded ? !strstr(rep, "line 7: alloc of class 0x503b as 0x5c000279: status 0x1f, recorded 0x0")
                     : res.mismatches != 0)
            fail_msg("report:\n%s", rep);
        assert_int_equal(res.skipped_rm, recorded ? 0 : 2);
        assert_int_equal(res.calls, recorded ? 8 : 6);
        free(rep);
    }
    free_lines(v);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(good_line_parses_into_its_fields),
        cmocka_unit_test(bad_lines_are_refused_with_their_message),
        cmocka_unit_test(test_clean_prefix_replays),
        cmocka_unit_test(test_uvm_blocks_replayed),
        cmocka_unit_test(test_changed_output_is_a_mismatch),
        cmocka_unit_test(test_changed_status_is_a_mismatch),
        cmocka_unit_test(test_corrupted_line_is_reported),
        cmocka_unit_test(test_wrong_handle_is_a_mismatch),
        cmocka_unit_test(test_other_client_on_gpu_sets_in_use),
        cmocka_unit_test(test_empty_or_foreign_file_is_refused),
        cmocka_unit_test(test_truncated_and_nul_lines_are_errors),
        cmocka_unit_test(test_error_messages_never_end_in_success),
        cmocka_unit_test(test_fifo_is_refused_not_waited_on),
        cmocka_unit_test(nvlink_status_wiring_is_board_identity_and_nothing_else),
        cmocka_unit_test(fabric_partition_is_board_identity_and_nothing_else),
        cmocka_unit_test(processes_with_times_replay_in_the_order_their_calls_were_issued),
        cmocka_unit_test(recorded_embedded_list_is_handed_in_and_its_answer_compared),
        cmocka_unit_test(alloc_recorded_without_its_params_is_skipped_with_the_calls_on_its_object),
        cmocka_unit_test(order_class_applies_to_untimed_processes_replayed_together_only),
        cmocka_unit_test(channel_id_is_order_only_where_some_interleaving_gives_it),
        cmocka_unit_test(pid_info_memory_of_another_replayed_process_is_order_and_nothing_else),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
