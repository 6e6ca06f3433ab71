#!/usr/bin/env python3
"""Writes fuzz_profile's seed corpus (corpus/profile) from the bundled GPU profiles.

A whole profile is 7-58 KB, mostly canned hex answers, and the loader's cost is per YAML node: seeded with
whole profiles fuzz_profile ran ~2 k executions per CPU second. These seeds are small documents of the same
content: per profile one complete but trimmed document (every required section, short lists), one document
per section, and the info tables and canned answers a few at a time (the schema reads every section a
document gives before naming a missing one, so a section alone is checked through). Comments are dropped.
Usage: make_profile_seeds.py PROFILE_DIR OUT_DIR
"""
import hashlib
import os
import re
import sys

HEAD = ('name', 'chip', 'arch', 'marketing_name', 'short_name', 'notes', 'gpu_count', 'sli_status', 'uuid')
MAX_SECTION_BYTES = 2600
MAX_DOC_BYTES = 4000


def strip(lines):
    res = []
    for ln in lines:
        if re.match(r'^\s*#', ln) or ln.strip() == '':
            continue
        m = re.match(r'^(.*?)\s+#\s.*$', ln)
        if m and '"' not in ln and "'" not in ln:
            ln = m.group(1)
        res.append(ln.rstrip())
    return res


def sections(lines):
    secs, cur = [], None
    for ln in lines:
        if re.match(r'^[a-z_]+:', ln):
            cur = [ln]
            secs.append((ln.split(':')[0], cur))
        elif cur is not None:
            cur.append(ln)
    return secs


def items(sec):
    its, cur = [], None
    for ln in sec[1:]:
        if ln.startswith('  - '):
            cur = [ln]
            its.append(cur)
        elif cur is not None:
            cur.append(ln)
    return its


def trim_nested(sec, n):
    """At most n lines of each block nested four spaces deep."""
    res, k = [], 0
    for ln in sec:
        if ln.startswith('    '):
            k += 1
            if k > n:
                continue
        else:
            k = 0
        res.append(ln)
    return res


def main(src, out):
    os.makedirs(out, exist_ok=True)
    seen = set()

    def write(name, lines, limit=MAX_SECTION_BYTES):
        text = '\n'.join(lines) + '\n'
        digest = hashlib.sha1(text.encode()).hexdigest()
        if len(text) > limit or digest in seen:
            return
        seen.add(digest)
        with open(os.path.join(out, name + '.yaml'), 'w') as f:
            f.write(text)

    for fn in sorted(os.listdir(src)):
        if not fn.endswith('.yaml'):
            continue
        prof = fn[:-5]
        with open(os.path.join(src, fn)) as f:
            secs = sections(strip(f.read().split('\n')))
        whole, canned, tables = [], [], []
        for key, sec in secs:
            if key == 'canned':
                canned = items(sec)
                continue
            if key == 'info_tables':
                tables = items(sec)
                continue
            if key == 'classes' and sec[0].strip().endswith('['):
                body = [ln for ln in sec[1:] if ln.strip() != ']']
                sec = [sec[0]] + body[:2] + [']']
            elif key == 'engines':
                sec = [sec[0]] + [ln for it in items(sec)[:4] for ln in it]
            else:
                sec = trim_nested(sec, 6)
            whole += sec
            if key not in HEAD:
                write(f'{prof}-{key}', sec)
        write(f'{prof}-min', whole, MAX_DOC_BYTES)
        for i in range(0, min(len(tables), 6), 2):
            write(f'{prof}-info_tables{i // 2}',
                  ['info_tables:'] + [ln for it in tables[i:i + 2] for ln in trim_nested(it, 8)])
        for i in range(0, min(len(canned), 24), 4):
            write(f'{prof}-canned{i // 4}', ['canned:'] + [ln for it in canned[i:i + 4] for ln in it])
        with_in = [it for it in canned if any(ln.strip().startswith('in:') for ln in it)][:3]
        if with_in:
            write(f'{prof}-canned-in', ['canned:'] + [ln for it in with_in for ln in it])


if __name__ == '__main__':
    main(sys.argv[1], sys.argv[2])
