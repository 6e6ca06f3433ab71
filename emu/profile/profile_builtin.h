/*
 * Internal to emu/profile: the built-in profiles, generated at build time
 * from emu/profiles/NAME.yaml (see emu/profile/embed.cmake).
 */
#ifndef NVEMU_PROFILE_BUILTIN_H
#define NVEMU_PROFILE_BUILTIN_H

#include <stddef.h>

struct profile_builtin {
    const char *name;  /* file name without .yaml */
    const char *file;  /* "emu/profiles/NAME.yaml", for error messages */
    const char *text;
    size_t len;
};

/* Terminated by a row with name NULL. */
extern const struct profile_builtin profile_builtins[];
/* The names of profile_builtins, NULL-terminated. */
extern const char *const profile_builtin_name_list[];

#endif
