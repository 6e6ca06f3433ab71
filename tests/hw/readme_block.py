"""A table generated from recordings, kept in a README between two marker lines (<!-- NAME --> and
<!-- /NAME -->): written there, or checked against what is there."""
import re
import sys


def split_mode(args):
    """ARGS [--check|--write README] -> (ARGS, README, write) with README None when neither option ends ARGS."""
    if len(args) >= 3 and args[-2] in ("--check", "--write"):
        return args[:-2], args[-1], args[-2] == "--write"
    return args, None, False


def show(readme, start, end, table, write, source):
    """Prints table when there is no README (split_mode gave None), else sync()s it there."""
    if readme is None:
        print(table)
    else:
        sync(readme, start, end, table, write, source)


def sync(readme, start, end, table, write, source):
    """With write, replaces what stands between the markers start and end of README with table. Otherwise exits
    with a message (and each differing line) unless that block is table, whitespace at its ends aside, and says
    ok. Exits when README has no such block."""
    pat = re.compile(r"(%s\n)(.*?)(\n?%s)" % (re.escape(start), re.escape(end)), re.S)
    text = open(readme).read()
    m = pat.search(text)
    if not m:
        sys.exit("%s has no %s ... %s block" % (readme, start, end))
    if write:
        with open(readme, "w") as f:
            f.write(pat.sub(lambda _: start + "\n" + table + "\n" + end, text))
        return
    if m.group(2).strip() != table.strip():
        for a, b in zip(m.group(2).strip().splitlines(), table.strip().splitlines()):
            if a != b:
                print("  README: %s\n  now:    %s" % (a, b))
        sys.exit("%s's table differs from what %s gives (rerun with --write after a change)" % (readme, source))
    print("ok: %s's table comes out of %s again" % (readme, source))
