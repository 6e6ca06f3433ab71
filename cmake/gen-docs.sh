#!/bin/sh
# Generates the man page (nvemu.1), the bash completion (nvemu.bash) and the plain-text command reference
# (cli.txt) from the built tool's own help texts, so they never drift from `nvemu COMMAND --help`.
# usage: gen-docs.sh NVEMU OUTDIR
set -eu
nvemu=$1 out=$2
mkdir -p "$out"
version=$("$nvemu" --version | cut -d' ' -f2)
cmds=$("$nvemu" --list-commands | cut -f1)

# roff: escape backslashes, keep lines starting with . or ' literal.
roff() { sed -e 's/\\/\\e/g' -e "s/^\\([.']\\)/\\\\\\&\\1/"; }
{
  printf '.TH NVEMU 1 "" "nvemu %s" "User Commands"\n' "$version"
  printf '.SH NAME\nnvemu \\- NVIDIA RM ioctl emulator for GPU scheduling tests without a GPU\n'
  printf '.SH SYNOPSIS\n.B nvemu\n.I COMMAND\n[\\fIARGS\\fR...]\n.br\n.B nvemu --version\n'
  printf '.SH COMMANDS\n'
  "$nvemu" --list-commands | while IFS="$(printf '\t')" read -r name summary; do
    printf ".TP\n.B %s\n%s\n" "$name" "$summary"
  done
  for c in $cmds; do
    printf '.SH "nvemu %s"\n.nf\n' "$c"
    "$nvemu" "$c" --help | roff
    printf '.fi\n'
  done
  printf '.SH ENVIRONMENT\n.TP\n.B NVEMU_POLICY_DIR\nextra directory searched first for a policy given by name\n'
  printf '.TP\n.B NVEMU_LOG_LEVEL\nerror, warn, info, debug or trace\n'
  printf '.TP\n.B NVEMU_SOCKET\ncontrol socket of a running daemon (nvemu status)\n'
  printf '.TP\n.B NVEMU_MOUNT\ndirectory with a daemon'"'"'s nodes (the preload library redirects /dev/nvidia* there)\n'
  printf '.TP\n.B NVEMU_RECORD_LIB\nthe recorder library nvemu record preloads\n'
  printf '.TP\n.B NO_COLOR\nno colours in the scenario summary\n'
  printf '.SH FILES\nPaths under the installation prefix (the directory above bin/nvemu).\n'
  printf '.TP\n.B share/doc/nvemu/\nREADME.md, scenarios.md (the scenario schema), policy-guide.md (C and BPF policies), profiles.md, policies.md (the bundled policies), cli.txt (every command'"'"'s help)\n'
  printf '.TP\n.B share/nvemu/examples/\nscenarios/, c-policy/ and bpf-policy/ (the projects nvemu init writes), policy/, ci/ (a sharded sweep workflow)\n'
  printf '.TP\n.B share/nvemu/profiles/\nthe built-in GPU profiles as files (a start for base: overrides)\n'
  printf '.TP\n.B include/nvemu/\npolicy.h (plugin ABI), policy_util.h (helpers, lib/libnvemu-policy-util.a), nv_gpu_sched.bpf.h (BPF policies)\n'
} >"$out/nvemu.1"

# Completion: subcommands, then each one's options and sub-subcommands as its --help lists them.
{
  printf '# bash completion for nvemu %s (generated from nvemu --help)\n' "$version"
  printf '_nvemu() {\n  local cur=${COMP_WORDS[COMP_CWORD]} words=""\n'
  printf '  if [ "$COMP_CWORD" -eq 1 ]; then COMPREPLY=($(compgen -W "%s --help --version" -- "$cur")); return; fi\n' \
    "$(echo $cmds)"
  # a profile is a built-in name (asked of nvemu itself) or a file
  printf '  case ${COMP_WORDS[COMP_CWORD-1]} in --profile) COMPREPLY=($(compgen -W "$(nvemu profile list --names 2>/dev/null)" -- "$cur") $(compgen -f -- "$cur")); return;; esac\n'
  printf '  case ${COMP_WORDS[1]} in\n'
  for c in $cmds; do
    help=$("$nvemu" "$c" --help)
    opts=$(printf '%s\n' "$help" | grep -o -- '--[a-z][a-z0-9-]*' | sort -u | tr '\n' ' ')
    subs=$(printf '%s\n' "$help" | sed -n "s/^.*nvemu $c \\([a-z][a-z-]*\\) .*\$/\\1/p; s/^.*nvemu $c \\([a-z][a-z-]*\\)\$/\\1/p" |
           sort -u | tr '\n' ' ')
    printf '    %s) words="%s%s-h";;\n' "$c" "$subs" "$opts"
  done
  printf '  esac\n'
  printf '  case $cur in -*) COMPREPLY=($(compgen -W "$words" -- "$cur"));;\n'
  printf '    *) COMPREPLY=($(compgen -W "$words" -- "$cur") $(compgen -f -- "$cur"));; esac\n}\n'
  printf 'complete -o filenames -F _nvemu nvemu\n'
} >"$out/nvemu.bash"

# The command reference: the list of commands, then every command's --help.
{
  printf 'nvemu %s: command reference (nvemu COMMAND --help)\n\n' "$version"
  "$nvemu" --list-commands | while IFS="$(printf '\t')" read -r name summary; do
    printf '  %-10s %s\n' "$name" "$summary"
  done
  for c in $cmds; do
    printf '\n== nvemu %s ==\n\n' "$c"
    "$nvemu" "$c" --help
  done
} >"$out/cli.txt"
