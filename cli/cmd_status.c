/* `nvemu status [--json] [--socket PATH]`: asks a running daemon for its state over the control socket. */
#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "front/front.h"

static double num(const cJSON *o, const char *k)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    return cJSON_IsNumber(v) ? v->valuedouble : 0;
}

/* Human-readable form: the daemon's counters, then every other section of the document. */
static void print_text(const cJSON *root)
{
    const cJSON *d = cJSON_GetObjectItemCaseSensitive(root, "daemon");
    const cJSON *s = cJSON_GetObjectItemCaseSensitive(d, "stats");
    const cJSON *tr = cJSON_GetObjectItemCaseSensitive(d, "transport");
    const cJSON *at = cJSON_GetObjectItemCaseSensitive(d, "nodes_at");
    printf("daemon pid %.0f, %s at %s, %.0f GPU(s)\n", num(d, "pid"), cJSON_IsString(tr) ? tr->valuestring : "?",
           cJSON_IsString(at) ? at->valuestring : "?", num(d, "gpus"));
    printf("openers %.0f  clients %.0f  objects %.0f  channel groups %.0f\n", num(s, "openers"), num(s, "clients"),
           num(s, "objects"), num(s, "channel_groups"));
    printf("ioctls served %.0f  errors %.0f  uvm ioctls %.0f\n", num(s, "ioctls"), num(s, "errors"),
           num(d, "uvm_ioctls"));
    const cJSON *item;
    cJSON_ArrayForEach(item, root)
    {
        if (item == d)
            continue;
        char *txt = cJSON_PrintUnformatted(item);
        if (txt) {
            printf("%s: %s\n", item->string, txt);
            free(txt);
        }
    }
}

int nvemu_cmd_status(int argc, char **argv)
{
    bool json = false;
    const char *sock = getenv("NVEMU_SOCKET");
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--json") == 0) {
            json = true;
        } else if (strcmp(argv[i], "--socket") == 0 && i + 1 < argc) {
            sock = argv[++i];
        } else {
            bool help = cli_is_help(argv[i]);
            fprintf(help ? stdout : stderr, "usage: nvemu status [--json] [--socket PATH]   (default: $NVEMU_SOCKET)\n"
                                            "  --json    the daemon's whole state document as JSON\n");
            return help ? 0 : 2;
        }
    }
    if (!sock || !*sock) {
        fprintf(stderr, "nvemu status: no daemon (set NVEMU_SOCKET or pass --socket)\n");
        return 1;
    }
    char *reply = NULL;
    int rc = ctlsock_query(sock, "status", &reply);
    if (rc != 0) {
        fprintf(stderr, "nvemu status: %s: %s\n", sock, strerror(-rc));
        return 1;
    }
    int status = 0;
    if (json) {
        fputs(reply, stdout);
    } else {
        cJSON *root = cJSON_Parse(reply);
        if (root) {
            print_text(root);
            cJSON_Delete(root);
        } else {
            fprintf(stderr, "nvemu status: the daemon's answer is not JSON\n");
            status = 1;
        }
    }
    free(reply);
    return status;
}
