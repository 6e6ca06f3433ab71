/* The preload reads open's mode argument only when the flags say one was passed. */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "open_mode.h"

static void open_needs_mode_only_with_creat_or_tmpfile(void **state)
{
    (void)state;
    assert_false(open_needs_mode(O_RDONLY));
    assert_false(open_needs_mode(O_RDWR | O_CLOEXEC));
    /* O_DIRECTORY shares a bit with O_TMPFILE: no mode follows */
    assert_false(open_needs_mode(O_RDONLY | O_DIRECTORY));
    assert_false(open_needs_mode(O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    assert_true(open_needs_mode(O_WRONLY | O_CREAT));
    assert_true(open_needs_mode(O_RDWR | O_CREAT | O_EXCL | O_TRUNC));
    assert_true(open_needs_mode(O_RDWR | O_TMPFILE));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(open_needs_mode_only_with_creat_or_tmpfile),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
