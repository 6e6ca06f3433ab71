/*
 * `nvemu record` as a standalone program, for the GPU machine, which lacks the libraries the `nvemu`
 * executable links (libyaml, fuse3): the same nvemu_cmd_record() runs; argv[1] must be "record".
 */
int nvemu_cmd_record(int argc, char **argv);

int main(int argc, char **argv)
{
    return argc > 1 ? nvemu_cmd_record(argc - 1, argv + 1) : 2;
}
