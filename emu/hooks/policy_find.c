/* Policy lookup shared by every command that takes a policy (hooks.h: hooks_find_policy). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/paths.h"
#include "hooks/hooks.h"

/* dir/name as given, then with each policy kind's suffix, for the first that names a readable file. */
static int find_in(const char *dir, const char *name, char *out, size_t len)
{
    if (!dir || !*dir)
        return -1;
    size_t nkinds;
    const struct policy_loader *kinds = hooks_policy_loaders(&nkinds);
    for (size_t i = 0; i <= nkinds; i++) {
        int w = snprintf(out, len, "%s/%s%s", dir, name, i == 0 ? "" : kinds[i - 1].suffix);
        if (w > 0 && (size_t)w < len && access(out, R_OK) == 0)
            return 0;
    }
    return -1;
}

/* "(.so|.bpf.o)": the suffixes a bare name is tried with, for the error message. */
static void suffix_list(char *out, size_t len)
{
    size_t nkinds, used = 0;
    const struct policy_loader *kinds = hooks_policy_loaders(&nkinds);
    out[0] = '\0';
    for (size_t i = 0; i < nkinds && used < len; i++) {
        int w = snprintf(out + used, len - used, "%s%s%s", i == 0 ? "(" : "|", kinds[i].suffix,
                         i + 1 == nkinds ? ")" : "");
        if (w < 0)
            break;
        used += (size_t)w;
    }
}

int hooks_find_policy(const char *name, char *out, size_t len, char *err, size_t errlen)
{
    char dummy[1];
    if (!err || errlen == 0) {
        err = dummy;
        errlen = sizeof dummy;
    }
    if (!name || !*name) {
        snprintf(err, errlen, "no policy given");
        return -1;
    }
    if (strchr(name, '/') || access(name, R_OK) == 0) {
        if (access(name, R_OK) != 0) {
            snprintf(err, errlen, "cannot load policy %s: %s", name, strerror(errno));
            return -1;
        }
        int w = snprintf(out, len, "%s", name);
        if (w < 0 || (size_t)w >= len) {
            snprintf(err, errlen, "policy path too long");
            return -1;
        }
        return 0;
    }
    char build_dir[1024], install_dir[1024];
    snprintf(build_dir, sizeof build_dir, "%s/policies", nvemu_exe_dir());
    if (nvemu_install_path("policies", install_dir, sizeof install_dir) != 0)
        install_dir[0] = '\0';
    const char *dirs[] = {getenv("NVEMU_POLICY_DIR"), build_dir, install_dir};
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++)
        if (find_in(dirs[i], name, out, len) == 0)
            return 0;
    char suffixes[64];
    suffix_list(suffixes, sizeof suffixes);
    snprintf(err, errlen, "policy '%.64s': no file of that name and no bundled policy %s%s in "
                          "$NVEMU_POLICY_DIR%s%s or %s", name, name, suffixes, dirs[0] ? "=" : " (unset)",
             dirs[0] ? dirs[0] : "", install_dir);
    return -1;
}
