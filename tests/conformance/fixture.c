/* Loader for the libcuda object fixture. */
#include "fixture.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rmraw.h"

int fixture_load(struct fixture *f, const char *path)
{
    FILE *in = fopen(path, "r");
    if (!in) {
        fprintf(stderr, "conformance: cannot open fixture %s\n", path);
        return -1;
    }
    memset(f, 0, sizeof *f);
    char line[4096];
    int rc = 0;
    while (fgets(line, sizeof line, in)) {
        if (line[0] == '#' || line[0] == '\n')
            continue;
        if (strncmp(line, "client ", 7) == 0) {
            f->client = (uint32_t)strtoul(line + 7, NULL, 16);
            continue;
        }
        char name[32], parent[32], params[1200];
        unsigned handle, hclass, srcline;
        if (strncmp(line, "obj ", 4) != 0 || f->nobjs == FIXTURE_MAX_OBJS ||
            sscanf(line + 4, "%31s %x %31s %x %u %1199s", name, &handle, parent, &hclass, &srcline, params) != 6) {
            fprintf(stderr, "conformance: bad fixture line: %s", line);
            rc = -1;
            break;
        }
        struct fixture_obj *o = &f->objs[f->nobjs++];
        snprintf(o->name, sizeof o->name, "%s", name);
        o->handle = handle;
        o->hclass = hclass;
        o->parent = strcmp(parent, "client") == 0 ? 0 : (uint32_t)strtoul(parent, NULL, 16);
        o->nparams = strcmp(params, "null") == 0 ? 0 : hex_decode(params, o->params, sizeof o->params);
    }
    fclose(in);
    if (rc == 0 && (f->client == 0 || f->nobjs == 0)) {
        fprintf(stderr, "conformance: fixture %s has no client or no objects\n", path);
        rc = -1;
    }
    return rc;
}

const struct fixture_obj *fixture_find(const struct fixture *f, const char *name)
{
    for (int i = 0; i < f->nobjs; i++)
        if (strcmp(f->objs[i].name, name) == 0)
            return &f->objs[i];
    return NULL;
}

size_t fixture_params(const struct fixture_obj *o, uint8_t *out, size_t cap, const uint32_t *from,
                      const uint32_t *to, int n)
{
    size_t len = o->nparams < cap ? o->nparams : cap;
    memcpy(out, o->params, len);
    for (size_t off = 0; off + 4 <= len; off += 4) {
        uint32_t w;
        memcpy(&w, out + off, 4);
        for (int i = 0; i < n; i++)
            if (w == from[i]) {
                memcpy(out + off, &to[i], 4);
                break;
            }
    }
    return len;
}
