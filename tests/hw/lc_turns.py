#!/usr/bin/env python3
"""When an LC request catches its runlist turn next to closed-loop BE groups (fixtures/hw/h200-580.159.04/lc-arrivals).

lc_turns.py TRACE [WARMUP_MS]: TRACE is a `scenario run --csv` trace (trace.csv or .csv.gz, hardware or model) of
one LC task (instance 0) next to BE instances 1..N, all with request marks. Between two consecutive LC completions
the engine runs each BE group once (an LC interval) or twice (the LC missed a turn: a wrap). Prints
- the LC intervals by the number of BE request completions inside them (each completion ends a BE slice early);
- for each LC request after WARMUP_MS (default 200): x, its arrival after the LC's previous completion, whether it
  caught the next turn, and the slot, within its current request, of the BE group that runs just before the LC's
  turn (1 = the first slice of a request; its completion falls in the last): as ranges of x per slot and outcome.
Counting slots assumes the BE requests take the same number of slices each (true of v17: 4.8 slices).
"""
import collections, gzip, sys


def marks(path):
    f = gzip.open(path, 'rt') if path.endswith('.gz') else open(path)
    arr, done, be = {}, {}, []
    for line in f:
        r = line.rstrip('\n').split(',')
        if len(r) < 11 or r[2] != 'mark' or r[10] not in ('req_arrive', 'req_done'):
            continue
        t, a, b = int(r[1]) / 1e6, int(r[8]), int(r[9])
        if a == 0:
            (arr if r[10] == 'req_arrive' else done)[b] = t
        elif r[10] == 'req_done':
            be.append((t, a))
    return arr, done, be


def main():
    path = sys.argv[1]
    warm = float(sys.argv[2]) if len(sys.argv) > 2 else 200.0
    arr, done, be = marks(path)
    groups = sorted({a for _, a in be})
    ks = [k for k in sorted(done) if k - 1 in done]
    by_n = collections.defaultdict(list)
    slot = {g: None for g in groups}  # slot index of g's next slice, None until its first completion
    rows = []
    for k in ks:
        d0, d1 = done[k - 1], done[k]
        wrap = d1 - d0 > 11.0
        inside = [(t, a) for t, a in be if d0 < t <= d1]
        if arr[k] >= warm:
            by_n[len(inside)].append(d1 - d0)
        last = groups[-1]
        if slot[last] is not None and arr[k] >= warm:
            rows.append((slot[last], 'missed' if wrap else 'caught', arr[k] - d0))
        for g in groups:
            if slot[g] is not None:
                slot[g] += 2 if wrap else 1
            done_g = [t for t, a in inside if a == g]
            if done_g:
                # in a wrap the group runs twice: a completion in its first slice leaves one slice of the next request
                slot[g] = 2 if wrap and done_g[0] - d0 < (d1 - d0) / 2 else 1
    print('LC intervals (ms between LC completions) by BE completions inside:')
    for n in sorted(by_n):
        v = sorted(by_n[n])
        one = [x for x in v if x <= 11.0]
        two = [x for x in v if x > 11.0]
        med = lambda xs: '%.2f (%d)' % (xs[len(xs) // 2], len(xs)) if xs else '-'
        print('  %d completions: one round %s, two rounds %s' % (n, med(one), med(two)))
    print('x = LC arrival - previous LC completion (ms), by the slot of BE group %d (before the LC\'s turn):'
          % groups[-1])
    ranges = collections.defaultdict(list)
    for s, outcome, x in rows:
        ranges[(s, outcome)].append(x)
    for key in sorted(ranges):
        v = ranges[key]
        print('  slot %d %-6s %3d requests, x %.2f-%.2f' % (key[0], key[1], len(v), min(v), max(v)))
    missed = sum(1 for r in rows if r[1] == 'missed')
    print('missed a turn: %d of %d' % (missed, len(rows)))


if __name__ == '__main__':
    main()
