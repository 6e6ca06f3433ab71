/*
 * `nvemu record` as a standalone program, for the GPU machine, which lacks the libraries the `nvemu`
 * executable links (libyaml, fuse3): the same record_main() runs; argv[1] must be "record".
 */
int record_main(int argc, char **argv);

int main(int argc, char **argv)
{
    return argc > 1 ? record_main(argc - 1, argv + 1) : 2;
}
