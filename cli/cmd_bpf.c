/*
 * `nvemu bpf dump FILE.bpf.o` and `nvemu bpf disasm FILE.bpf.o`: what the
 * loader made of a policy object (programs, maps, variables; instructions
 * with their source lines). Exit status 0, 1 when the object is refused, 2 on
 * bad usage.
 */
#include <stdio.h>
#include <string.h>

#include "bpf/bpf_obj.h"
#include "bpf/bpf_policy.h"
#include "bpf/bpf_report.h"

static void bpf_usage(FILE *out)
{
    fprintf(out, "usage: nvemu bpf dump FILE.bpf.o     programs, maps, global variables, kfuncs and helpers\n"
                 "       nvemu bpf disasm FILE.bpf.o   instructions of the bound callbacks with source lines\n"
                 "       (nvemu policy FILE.bpf.o checks an object the way an attach would)\n");
}

int nvemu_cmd_bpf(int argc, char **argv)
{
    if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        bpf_usage(stdout);
        return 0;
    }
    if (argc != 3 || (strcmp(argv[1], "dump") != 0 && strcmp(argv[1], "disasm") != 0)) {
        bpf_usage(stderr);
        return 2;
    }
    char err[2048];
    struct bpf_obj *obj = bpf_policy_check(argv[2], err, sizeof err);
    if (!obj) {
        fprintf(stderr, "nvemu bpf: %s\n", err);
        return 1;
    }
    if (strcmp(argv[1], "dump") == 0)
        bpf_report_dump(obj, stdout);
    else
        bpf_report_disasm(obj, stdout);
    bpf_obj_close(obj);
    return 0;
}
