#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/log.h"
#include "front/front.h"

void front_opts_init(struct front_opts *o)
{
    memset(o, 0, sizeof(*o));
    nvemu_config_init(&o->cfg);
    /* a daemon serves every local user: only its own may hold virtual time unless told otherwise */
    o->cfg.workload_restricted = true;
    o->cfg.workload_uid = (uint32_t)geteuid();
    /* and each user's share of the resource server (a heap-trim run makes 100 000 clients; events are objects) */
    o->cfg.quota_clients = 131072;
    o->cfg.quota_objects = 262144;
    o->cfg.quota_events = 65536;
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
            "  --driver 550|575|580   answer as that driver release (default: the profile's driver_version)\n"
            "  --gpreempt-compat      emulate GPreempt's patched driver (escape 0x60, relaxed control fd check)\n"
            "  --policy NAME|FILE     attach a scheduling policy (a bundled name or a plugin file)\n"
            "  --policy-arg K=V       argument for the policy (repeatable)\n"
            "  --policy-hook-limit MS a policy callback running longer detaches the policy (default %u; 0: none)\n"
            "  --clock virtual|realtime, --seed N, --trace FILE.csv\n"
            "  --workload-uid UID|any the uid whose programs may use the workload escapes (default: the daemon's)\n"
            "  --workload-gid GID     also programs of this gid may\n"
            "  --rm-quota KIND=N      what one uid may hold: clients, objects or events (repeatable)\n"
            "  --log-level LEVEL      error|warn|info|debug|trace\n",
            FRONT_POLICY_HOOK_LIMIT_MS);
    if (serving)
        fprintf(out,
                "  --socket PATH          control socket (default ${XDG_RUNTIME_DIR:-/tmp}/nvemu-PID.sock)\n"
                "  --log-file FILE        log lines go to FILE (a detached daemon has no stderr)\n"
                "  --foreground, -f       do not detach\n");
}

/* A uid or gid: a decimal number below 2^32 - 1 (that value is the kernel's "no id"). */
static int parse_id(const char *v, uint32_t *out)
{
    char *end;
    errno = 0;
    unsigned long long n = strtoull(v, &end, 10);
    if (errno || *end || end == v || *v == '-' || n >= UINT32_MAX)
        return -1;
    *out = (uint32_t)n;
    return 0;
}

/* --rm-quota KIND=N: one of the per-uid quotas of the resource server. */
static int parse_quota(nvemu_config *cfg, const char *v)
{
    static const struct {
        const char *kind;
        size_t off;
    } kinds[] = {
        {"clients", offsetof(nvemu_config, quota_clients)},
        {"objects", offsetof(nvemu_config, quota_objects)},
        {"events", offsetof(nvemu_config, quota_events)},
    };
    const char *eq = strchr(v, '=');
    uint32_t n;
    if (!eq || parse_id(eq + 1, &n) != 0 || n == 0)
        return -1;
    for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++)
        if (strlen(kinds[k].kind) == (size_t)(eq - v) && strncmp(v, kinds[k].kind, (size_t)(eq - v)) == 0) {
            memcpy((char *)cfg + kinds[k].off, &n, sizeof(n));
            return 0;
        }
    return -1;
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
    } else if ((v = opt_value(argc, argv, i, "--driver", &missing))) {
        o->cfg.driver = v;
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
    } else if ((v = opt_value(argc, argv, i, "--workload-uid", &missing))) {
        if (strcmp(v, "any") == 0) {
            o->cfg.workload_restricted = false;
        } else if (parse_id(v, &o->cfg.workload_uid) != 0) {
            fprintf(stderr, "nvemu: bad --workload-uid '%s' (a number or any)\n", v);
            return -1;
        } else {
            o->cfg.workload_restricted = true;
        }
    } else if ((v = opt_value(argc, argv, i, "--workload-gid", &missing))) {
        if (parse_id(v, &o->cfg.workload_gid) != 0) {
            fprintf(stderr, "nvemu: bad --workload-gid '%s'\n", v);
            return -1;
        }
        o->cfg.workload_gid_set = true;
    } else if ((v = opt_value(argc, argv, i, "--rm-quota", &missing))) {
        if (parse_quota(&o->cfg, v) != 0) {
            fprintf(stderr, "nvemu: --rm-quota wants clients=N, objects=N or events=N (N >= 1), not '%s'\n", v);
            return -1;
        }
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
