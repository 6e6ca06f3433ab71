# Compares two nvemu-conformance outputs case by case.
#   awk -f compare.awk -v allow=ALLOWLIST HW_OUTPUT EMU_OUTPUT
# Lines starting with '#' are ignored. A case differs when its line (ret, errno, status, values)
# is not identical, or when it is present on one side only. Differences whose case name matches a
# pattern of the allow-list (shell-style '*' wildcards, one pattern per line, '# why' after it)
# are counted as allowed. Exit status: 0 when every difference is allowed, 1 otherwise.
function glob2re(g,    r) {
    r = g
    gsub(/[.+?^${}()|\[\]\\]/, "\\\\&", r)
    gsub(/\*/, ".*", r)
    return "^" r "$"
}
function allowed(name,    i) {
    for (i = 1; i <= nallow; i++)
        if (name ~ allowre[i]) { allowhit[i]++; return 1 }
    return 0
}
BEGIN {
    nallow = 0
    while (allow != "" && (getline line < allow) > 0) {
        sub(/#.*/, "", line)
        gsub(/^[ \t]+|[ \t]+$/, "", line)
        if (line == "") continue
        allowpat[++nallow] = line
        allowre[nallow] = glob2re(line)
    }
}
/^#/ || NF == 0 { next }
FNR == NR { hw[$1] = $0; order[++n] = $1; next }
{ emu[$1] = $0; if (!($1 in hw)) extra[++nextra] = $1 }
END {
    match_ = 0; allow_ = 0; differ = 0
    for (i = 1; i <= n; i++) {
        k = order[i]
        if ((k in emu) && emu[k] == hw[k]) { match_++; continue }
        e = (k in emu) ? emu[k] : "(missing)"
        if (allowed(k)) { allow_++; printf("ALLOWED %s\n  hw:  %s\n  emu: %s\n", k, hw[k], e); continue }
        differ++
        printf("DIFF %s\n  hw:  %s\n  emu: %s\n", k, hw[k], e)
    }
    for (i = 1; i <= nextra; i++) {
        k = extra[i]
        if (allowed(k)) { allow_++; continue }
        differ++
        printf("DIFF %s\n  hw:  (missing)\n  emu: %s\n", k, emu[k])
    }
    for (i = 1; i <= nallow; i++)
        if (!allowhit[i]) printf("NOTE allow-list entry matches nothing: %s\n", allowpat[i])
    printf("hwdiff: %d cases recorded, %d match, %d allowed differences, %d differences\n", n, match_, allow_, differ)
    exit differ ? 1 : 0
}
