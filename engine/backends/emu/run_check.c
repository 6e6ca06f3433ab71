/* sc_check_deps (runner.h): what a run needs from outside the scenario file, checked without running. */
#include "runner.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hooks/hooks.h"
#include "profile/profile.h"
#include "run_proc.h"

__attribute__((format(printf, 5, 6)))
static int fail_at(const struct scenario *s, struct sc_pos p, char *err, size_t errlen, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    snprintf(err, errlen, "%s:%u:%u: %s", s->path, p.line ? p.line : 1, p.column ? p.column : 1, msg);
    return -1;
}

/* A path the scenario names must be an executable regular file (a bare name is looked up in $PATH at run time). */
static int check_binary(const struct scenario *s, const char *path, struct sc_pos p, const char *what, char *err,
                        size_t errlen)
{
    struct stat st;
    if (!strchr(path, '/'))
        return 0;
    if (stat(path, &st) != 0)
        return fail_at(s, p, err, errlen, "%s %s: %s", what, path, strerror(errno));
    if (!S_ISREG(st.st_mode) || access(path, X_OK) != 0)
        return fail_at(s, p, err, errlen, "%s %s is not an executable file", what, path);
    return 0;
}

int sc_check_deps(const struct scenario *s, char *err, size_t errlen)
{
    char gpu_set[SC_GPU_MAX_SET][SC_GPU_SET_LEN], why[512] = "";
    const char *gpu_set_ptr[SC_GPU_MAX_SET];
    nvemu_config cfg;
    nvemu_config_init(&cfg);
    cfg.profile = s->gpu.profile;
    cfg.profile_nset = sc_gpu_profile_set(&s->gpu, gpu_set);
    for (int i = 0; i < cfg.profile_nset; i++)
        gpu_set_ptr[i] = gpu_set[i];
    cfg.profile_set = gpu_set_ptr;
    /* The profile alone first, so that its errors point at gpu.profile (a custom profile's name its file). */
    struct profile *p = profile_load_set(cfg.profile, cfg.profile_set, cfg.profile_nset, why, sizeof(why));
    if (!p)
        return fail_at(s, s->gpu.pos, err, errlen, "gpu.profile '%s': %s", s->gpu.profile, why);
    uint32_t gpus = p->gpu_count;
    profile_free(p);
    for (uint32_t t = 0; t < s->task_count; t++)
        if (s->tasks[t].gpu >= gpus)
            return fail_at(s, s->tasks[t].pos, err, errlen, "task '%s': gpu %u, but profile '%s' has %u GPU%s",
                           s->tasks[t].name, s->tasks[t].gpu, s->gpu.profile, gpus, gpus == 1 ? "" : "s");
    if (s->policy.plugin[0]) {
        char policy_path[512];
        if (hooks_find_policy(s->policy.plugin, policy_path, sizeof(policy_path), why, sizeof(why)))
            return fail_at(s, s->policy.pos, err, errlen, "%s", why);
        /* a plugin is checked from its file (loading it would run its constructors); a BPF object by a load */
        int prc = hooks_check_plugin(policy_path, &s->policy.args, why, sizeof(why));
        nvemu *emu = NULL;
        if (prc == 1) {
            cfg.policy_path = policy_path;
            cfg.policy_arglist = &s->policy.args;
            emu = nvemu_create(&cfg, why, sizeof(why));
        }
        if (prc < 0 || (prc == 1 && !emu))
            return fail_at(s, s->policy.pos, err, errlen, "policy '%s': %s", s->policy.plugin, why);
        if (emu)
            nvemu_destroy(emu);
    }
    if (s->scheduler.binary &&
        check_binary(s, s->scheduler.binary, s->scheduler.pos, "scheduler.binary", err, errlen))
        return -1;
    for (uint32_t t = 0; t < s->task_count; t++)
        if (s->tasks[t].process &&
            check_binary(s, s->tasks[t].process, s->tasks[t].pos, "process.binary", err, errlen))
            return -1;
    if (run_proc_check(s, why, sizeof(why)))
        return fail_at(s, (struct sc_pos){1, 1}, err, errlen, "%s", why);
    return 0;
}

