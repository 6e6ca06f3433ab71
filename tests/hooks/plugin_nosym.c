/* A shared object that is not an nvemu policy: it exports no `nvemu_policy`. */
int nvemu_not_a_policy(void);
int nvemu_not_a_policy(void) { return 1; }
