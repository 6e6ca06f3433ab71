/*
 * Typed arguments described by a table. An owner (a policy kind) lists what it accepts, one row per
 * argument (name, type, accepted words, help); a command-line word or a scenario key is parsed and checked
 * against that table once, into a list of typed values the owner's code reads without parsing again. A bad
 * argument is refused with a message naming it and what the table accepts.
 *
 * The written form of each type (the `--policy-arg` word; the scenario keys carry the same parts):
 *   ARG_PAIR      KEY=VALUE                any key, judged by the owner's own code (a plugin's init)
 *   ARG_KNOB      NAME:VAR=VALUE           a named variable set to a value
 *   ARG_ELEMENT   NAME:TABLE[KEY]=VALUE    one element of a named table
 *   ARG_TARGET    NAME:PROG=LIB:FUNC       where a named program runs
 *   ARG_COUNT     NAME=N                   a positive integer
 *   ARG_CHOICE    NAME=WORD                one of the row's words (any letter case)
 */
#ifndef NVEMU_BASE_ARGS_H
#define NVEMU_BASE_ARGS_H

#include <stddef.h>
#include <stdint.h>

enum arg_type { ARG_PAIR, ARG_KNOB, ARG_ELEMENT, ARG_TARGET, ARG_COUNT, ARG_CHOICE };

/* One accepted argument; a table ends with a row whose name is NULL. */
struct arg_spec {
    const char *name;    /* "rodata", "budget"; "" for ARG_PAIR (any key) */
    enum arg_type type;
    const char *choices; /* ARG_CHOICE: the accepted words, comma-separated ("K1,K2,K3,K4") */
    const char *help;    /* one line: what it sets */
    int id;              /* the owner's number for it, so its code applies a value by table, not by name */
};

/* One parsed argument; the fields its type has are set, the others NULL / 0. */
struct arg {
    const struct arg_spec *spec;
    char *name;     /* ARG_PAIR: the key; KNOB/ELEMENT/TARGET: the variable, table or program */
    char *key;      /* ARG_ELEMENT: the element's key */
    char *value;    /* the value's text; ARG_CHOICE: the row's spelling of the word */
    uint64_t count; /* ARG_COUNT */
};

/* A list of parsed arguments, in the order given; zero-initialised is the empty list. */
struct arg_list {
    struct arg *v;
    int n;
};

/*
 * Checks one argument given by its parts (a scenario key: spec "rodata", name "be_us", value "100") against
 * table and appends it to l. Parts a type does not have are NULL. Returns 0, or -1 with a one-line reason
 * naming the argument in err (unknown name, wrong shape, not a number, not one of the words).
 */
int arg_list_add(struct arg_list *l, const struct arg_spec *table, const char *spec, const char *name,
                 const char *key, const char *value, char *err, size_t errlen);

/* Parses one written argument (the forms above) and appends it as arg_list_add does. */
int arg_list_parse(struct arg_list *l, const struct arg_spec *table, const char *text, char *err, size_t errlen);

/* Appends a copy of every argument of src to dst (same spec rows): 0, or -1 out of memory. */
int arg_list_copy(struct arg_list *dst, const struct arg_list *src);

/* Frees the values and leaves l empty. */
void arg_list_free(struct arg_list *l);

/* The written form of one argument, malloc'd ("rodata:be_us=100"), or NULL out of memory. */
char *arg_text(const struct arg *a);

/* One row's written form ("rodata:NAME=VALUE", "driver_abi=K1|K2|K3|K4") into out (truncated to len). */
void arg_spec_form(const struct arg_spec *s, char *out, size_t len);

/* What table accepts, in written forms ("rodata:VAR=VALUE, budget=N, ..."), into out (truncated to len). */
void arg_table_forms(const struct arg_spec *table, char *out, size_t len);

#endif
