/*
 * Typed table handlers. A row table stores one untyped function pointer type
 * per table (escapes, classes, controls), but each handler is written against
 * the params type of its row: NVEMU_TYPED_FN defines the typed body and the
 * untyped entry the table stores, and NVEMU_TYPED_REF, used by the row macros,
 * only compiles when the handler was written for the row's params type. So a
 * row whose size comes from sizeof(T) cannot name a handler that reads a
 * different struct, and no handler casts a void pointer itself.
 *
 * Calls go through the untyped entry's own type (no cast function pointers),
 * so sanitizers see only well-typed calls.
 */
#ifndef NVEMU_BASE_TYPED_H
#define NVEMU_BASE_TYPED_H

/*
 * Defines `static ret fn(ctx_type ctx, void *arg)` forwarding to a typed body
 * `ret fn##_typed(ctx_type ctx, type *p)`; write the body right after the
 * macro. Either parameter may go unused (a handler need not read its params).
 * `type` may be void for a handler that takes raw bytes (opaque rows).
 */
#define NVEMU_TYPED_FN(ret, fn, ctx_type, ctx, type, p)                                  \
    typedef type fn##_params_t;                                                          \
    static ret fn##_typed(ctx_type ctx __attribute__((unused)), type *p __attribute__((unused))); \
    static ret fn(ctx_type ctx, void *arg) { return fn##_typed(ctx, arg); }              \
    static ret fn##_typed(ctx_type ctx __attribute__((unused)), type *p __attribute__((unused)))

/*
 * Declares (in a header) a typed handler defined elsewhere with
 * NVEMU_TYPED_EXTERN_FN, so rows of other files can name it.
 */
#define NVEMU_TYPED_DECL(ret, fn, ctx_type, type) \
    typedef type fn##_params_t;                   \
    ret fn(ctx_type ctx, void *arg)

/* The definition matching NVEMU_TYPED_DECL (external linkage). */
#define NVEMU_TYPED_EXTERN_FN(ret, fn, ctx_type, ctx, type, p)                           \
    static ret fn##_typed(ctx_type ctx __attribute__((unused)), type *p __attribute__((unused))); \
    ret fn(ctx_type ctx, void *arg) { return fn##_typed(ctx, arg); }                     \
    static ret fn##_typed(ctx_type ctx __attribute__((unused)), type *p __attribute__((unused)))

/* fn's untyped entry; a compile error unless fn was defined for params `type` (void for opaque rows). */
#define NVEMU_TYPED_REF(fn, type) _Generic((fn##_params_t *)0, type *: (fn))

#endif
