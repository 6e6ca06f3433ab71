#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "front/front.h"

void front_opts_init(struct front_opts *o)
{
    memset(o, 0, sizeof(*o));
    nvemu_config_init(&o->cfg);
    /* one slow policy callback holds every caller: a daemon detaches a policy that overruns this */
    o->cfg.policy_hook_limit_ms = FRONT_POLICY_HOOK_LIMIT_MS;
    o->ready_fd = -1;
}

void front_opts_usage(FILE *out, bool serving)
{
    if (serving)
        fprintf(out,
                "  --mount DIR            FUSE: create the nodes as files in DIR\n"
                "  --cuse                 CUSE: create /dev/nvidiactl, /dev/nvidiaN, /dev/nvidia-uvm (needs /dev/cuse)\n");
    fprintf(out,
            "  --profile NAME|FILE    GPU profile (default h200)\n"
            "  --gpreempt-compat      emulate GPreempt's patched driver (escape 0x60, relaxed control fd check)\n"
            "  --policy NAME|FILE     attach a scheduling policy (a bundled name or a plugin file)\n"
            "  --policy-arg K=V       argument for the policy (repeatable)\n"
            "  --policy-hook-limit MS a policy callback running longer detaches the policy (default %u; 0: none)\n"
            "  --clock virtual|realtime, --seed N, --trace FILE.csv\n"
            "  --log-level LEVEL      error|warn|info|debug|trace\n",
            FRONT_POLICY_HOOK_LIMIT_MS);
    if (serving)
        fprintf(out,
                "  --socket PATH          control socket (default ${XDG_RUNTIME_DIR:-/tmp}/nvemu-PID.sock)\n"
                "  --log-file FILE        log lines go to FILE (a detached daemon has no stderr)\n"
                "  --foreground, -f       do not detach\n");
}

/* "--name VALUE" or "--name=VALUE": returns the value or NULL (not this option / missing value). */
static const char *opt_value(int argc, char **argv, int *i, const char *name, int *missing)
{
    size_t n = strlen(name);
    const char *a = argv[*i];
    if (strncmp(a, name, n) != 0)
        return NULL;
    if (a[n] == '=')
        return a + n + 1;
    if (a[n] != '\0')
        return NULL;
    if (*i + 1 >= argc) {
        *missing = 1;
        return NULL;
    }
    return argv[++*i];
}

int front_opts_parse(struct front_opts *o, int argc, char **argv, int *i)
{
    const char *a = argv[*i], *v;
    int missing = 0;
    if (strcmp(a, "--gpreempt-compat") == 0) {
        o->cfg.gpreempt_compat = true;
    } else if (strcmp(a, "--foreground") == 0 || strcmp(a, "-f") == 0) {
        o->foreground = true;
    } else if (strcmp(a, "--cuse") == 0) {
        o->cuse = true;
    } else if ((v = opt_value(argc, argv, i, "--mount", &missing))) {
        o->mount = v;
    } else if ((v = opt_value(argc, argv, i, "--profile", &missing))) {
        o->cfg.profile = v;
    } else if ((v = opt_value(argc, argv, i, "--policy-arg", &missing))) {
        if (!strchr(v, '=') || o->cfg.policy_nargs >= FRONT_MAX_POLICY_ARGS) {
            fprintf(stderr, "nvemu: --policy-arg wants KEY=VALUE (at most %d)\n", FRONT_MAX_POLICY_ARGS);
            return -1;
        }
        o->policy_args[o->cfg.policy_nargs++] = v;
        o->cfg.policy_args = o->policy_args;
    } else if ((v = opt_value(argc, argv, i, "--policy-hook-limit", &missing))) {
        char *end;
        errno = 0;
        unsigned long ms = strtoul(v, &end, 10);
        if (errno || *end || !*v || ms > 3600000) {
            fprintf(stderr, "nvemu: --policy-hook-limit wants milliseconds (0 to 3600000), not '%s'\n", v);
            return -1;
        }
        o->cfg.policy_hook_limit_ms = (uint32_t)ms;
    } else if ((v = opt_value(argc, argv, i, "--policy", &missing))) {
        o->cfg.policy_path = v;
    } else if ((v = opt_value(argc, argv, i, "--socket", &missing))) {
        o->socket_path = v;
    } else if ((v = opt_value(argc, argv, i, "--trace", &missing))) {
        o->cfg.trace_path = v;
    } else if ((v = opt_value(argc, argv, i, "--seed", &missing))) {
        char *end;
        errno = 0;
        o->cfg.seed = strtoull(v, &end, 0);
        if (errno || *end) {
            fprintf(stderr, "nvemu: bad --seed '%s'\n", v);
            return -1;
        }
    } else if ((v = opt_value(argc, argv, i, "--clock", &missing))) {
        if (strcmp(v, "virtual") == 0) {
            o->cfg.clock = NVEMU_CLOCK_VIRTUAL;
        } else if (strcmp(v, "realtime") == 0) {
            o->cfg.clock = NVEMU_CLOCK_REALTIME;
        } else {
            fprintf(stderr, "nvemu: --clock is virtual or realtime, not '%s'\n", v);
            return -1;
        }
    } else if ((v = opt_value(argc, argv, i, "--log-level", &missing))) {
        int lvl = nvemu_log_parse_level(v);
        if (lvl < 0) {
            fprintf(stderr, "nvemu: unknown log level '%s'\n", v);
            return -1;
        }
        nvemu_log_set_level((enum nvemu_log_level)lvl);
    } else if ((v = opt_value(argc, argv, i, "--log-file", &missing))) {
        FILE *fp = fopen(v, "ae");
        if (!fp) {
            fprintf(stderr, "nvemu: cannot open log file %s: %s\n", v, strerror(errno));
            return -1;
        }
        setvbuf(fp, NULL, _IOLBF, 0);
        nvemu_log_set_stream(fp); /* stays open for the life of the process */
    } else if (missing) {
        fprintf(stderr, "nvemu: %s needs a value\n", a);
        return -1;
    } else {
        return 0;
    }
    if (missing) {
        fprintf(stderr, "nvemu: %s needs a value\n", a);
        return -1;
    }
    (*i)++;
    return 1;
}
