#!/usr/bin/env python3
"""Training vs held-out metrics of the kernel-shape timing values (fixtures/hw/h200-580.159.04/shapes/README.md).

shape_folds.py NVEMU [WORKDIR]: for each fold (leave one regime out, then 5 folds by scenario) fits
restore_per_thread_kb_us x restore_thread_free_bytes on a grid by least squares of log(predicted/measured) over the
training scenarios' headline metrics (LC p50 and p99 relative to alone, BE requests/s; the hardware's value the
median over the repeats r*), and reports the share within 10% and 25% on the training and the held-out scenarios.
The emulator runs each scenario with emu/profiles/h200.yaml, those two values replaced, with the recording's seed.
"""
import glob, json, math, os, random, re, statistics, subprocess, sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
REC = ROOT + '/fixtures/hw/h200-580.159.04/shapes'
SC = ROOT + '/scenarios/validation-shapes'
NV = sys.argv[1]
WORK = sys.argv[2] if len(sys.argv) > 2 else '/tmp/nvemu-shape-folds'
K = [20, 25, 30, 35]
B0 = [768, 1024, 1280, 1536, 1792]
BASE = open(ROOT + '/emu/profiles/h200.yaml').read()


def metrics(path):
    r = json.load(open(path))
    out = {}
    for t in r['tasks']:
        if t['class'] == 'LC':
            out[t['name'] + '.p50_vs_alone'] = t['latency_us']['p50'] / t['alone']['p50_us']
            out[t['name'] + '.p99_vs_alone'] = t['latency_us']['p99'] / t['alone']['p99_us']
        else:
            out[t['name'] + '.throughput_rps'] = t['throughput_rps']
    return out


names = sorted(os.path.basename(d) for d in glob.glob(REC + '/r1/*'))
HW, SEED = {}, {}
for n in names:
    files = sorted(glob.glob(f'{REC}/r*/{n}/results.json'))
    reps = [metrics(f) for f in files]
    HW[n] = {k: statistics.median([m[k] for m in reps]) for k in reps[0]}
    SEED[n] = json.load(open(files[0]))['seed']
cache = {}


def emu(n, prm):
    if (n, prm) not in cache:
        pf = f'{WORK}/h200-{prm[0]}-{prm[1]}.yaml'
        if not os.path.exists(pf):
            s = re.sub(r'(restore_per_thread_kb_us:) *\S+', rf'\g<1> {prm[0]}', BASE)
            s = re.sub(r'(restore_thread_free_bytes:) *\S+', rf'\g<1> {prm[1]}', s)
            open(pf, 'w').write(s)
        out = f'{WORK}/{n}-{prm[0]}-{prm[1]}'
        subprocess.run([NV, 'scenario', 'run', f'{SC}/{n}.yaml', '--quiet', '--profile', pf, '--seed', str(SEED[n]),
                        '--out', out], capture_output=True)
        cache[(n, prm)] = metrics(out + '/results.json')
    return cache[(n, prm)]


def rows(ns, prm):
    return [(n, k, v, emu(n, prm)[k]) for n in ns for k, v in HW[n].items()]


def loss(ns, prm):
    return sum(math.log(max(p / m, 1e-3)) ** 2 for _, _, m, p in rows(ns, prm))


def summary(rs):
    off = [abs(p / m - 1) for _, _, m, p in rs]
    a = sum(o <= 0.10 + 1e-9 for o in off)
    b = sum(o <= 0.25 + 1e-9 for o in off)
    return f'{len(off):3d} metrics: {a:3d} within 10% ({100 * a / len(off):3.0f}%), {b:3d} within 25%, worst {100 * max(off):3.0f}%'


def fit(train):
    ss = [n for n in train if n.startswith(('s-', 'l-'))]
    return min(((k, b) for k in K for b in B0), key=lambda p: loss(ss, p))


os.makedirs(WORK, exist_ok=True)
regime = lambda n: ('ts200 grid' if n.startswith('s-ts200') else 'ts500/1000 grid' if n.startswith('s-')
                    else 'native multi-BE' if n.startswith('m-') else 'LC next to shapes')
print(f'all scenarios, fitted on all: {fit(names)}')
print('%-28s %-10s %-58s %s' % ('held out', 'fit', 'training', 'held out'))
for h in sorted(set(map(regime, names))):
    test = [n for n in names if regime(n) == h]
    train = [n for n in names if regime(n) != h]
    p = fit(train)
    print('%-28s %-10s %-58s %s' % ('regime ' + h, p, summary(rows(train, p)), summary(rows(test, p))))
shuffled = names[:]
random.Random(1).shuffle(shuffled)
pooled_tr, pooled_te = [], []
for i in range(5):
    test = shuffled[i::5]
    train = [n for n in names if n not in test]
    p = fit(train)
    pooled_tr += rows(train, p)
    pooled_te += rows(test, p)
    print('%-28s %-10s %-58s %s' % (f'5-fold, fold {i}', p, summary(rows(train, p)), summary(rows(test, p))))
print('%-28s %-10s %-58s %s' % ('5-fold pooled', '', summary(pooled_tr), summary(pooled_te)))
