/* A valid policy whose constructor leaves a mark (a file named by NVEMU_TEST_CTOR_MARK): loading it runs code,
 * checking it must not. */
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "hooks/policy_api.h"

__attribute__((constructor)) static void leave_mark(void)
{
    const char *mark = getenv("NVEMU_TEST_CTOR_MARK");
    int fd = mark ? open(mark, O_WRONLY | O_CREAT | O_CLOEXEC, 0600) : -1;
    if (fd >= 0)
        close(fd);
}

__attribute__((visibility("default"))) const struct policy_ops nvemu_policy = {
    .api_version = NVEMU_POLICY_API_VERSION,
    .size = sizeof(struct policy_ops),
    .name = "ctor",
};
