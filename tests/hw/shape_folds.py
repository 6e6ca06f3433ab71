#!/usr/bin/env python3
"""Training vs held-out metrics of the kernel-shape timing values (fixtures/hw/h200-580.159.04/shapes/README.md).

shape_folds.py NVEMU [WORKDIR]: for each fold (leave one regime out, then 5 folds by scenario) fits the restore's
three values (GRID: restore_per_thread_kb_us x restore_per_sm_kb x restore_thread_free_bytes) on a grid by least
squares of log(predicted/measured) over the training scenarios' headline metrics (LC p50 and p99 relative to alone,
BE requests/s; the hardware's value: each board's median over its repeats r*, then the median over the boards, the
first recordings REC/r* one board and each REC/board*/ another), and reports the share within 10% and 25% on
the training and the held-out scenarios, then the held-out metrics beyond 10%. The emulator runs each scenario
with emu/profiles/h200.yaml, those values replaced, with the recording's seed (JOBS runs at once, default 2).
With restore_per_sm_kb fixed at 0ns the grid is the per-thread restore it replaced.

shape_folds.py NVEMU WORKDIR validation: the same over the H200 validation suite (fixtures/hw/h200-580.159.04/
validation), regimes by policy (native, lcbe200, gpreempt, lcboost, interleave, x-slice, x-switch), refitting the
two switch costs fitted to it by hand (cilp_save_us, idle_save_us).

shape_folds.py NVEMU WORKDIR short: the same over the short-kernel recordings (fixtures/hw/h200-580.159.04/
short-kernels), regimes by slice and launch pattern (back to back g0 or launch-bound, 200 or 2048 us; l-* the LC),
refitting the kernel-boundary overlap (kernel_gap_overlap_us; overlap_wave_us follows as a seventh of it, so that
from eight waves a kernel pays the whole kernel_gap_us, as the suite's 8-wave kernels do) on the training part's
back-to-back 2048 us scenarios (k-ts2048-*-g0, where the profile's value comes from; on all its scenarios when the
fold holds every one of those out).

shape_folds.py NVEMU WORKDIR waves: the multi-wave recordings (fixtures/hw/h200-580.159.04/waves), regimes by
policy; nothing is fitted (an empty grid), so every fold's held-out metrics are the model's predictions: the suite
was recorded after them. waves-h100: the same on the H100's (fixtures/hw/h100-580.159.04/waves), emu/profiles/h100.yaml.
mixed, mixed-h100: the same for the mixed-shape requests (scenarios/validation-mixed, fixtures/hw/*/mixed); yield,
yield-h100: for where the engine goes after a yield (scenarios/validation-yield, fixtures/hw/*/yield).

--profile FILE: the profile to start from instead of the built-in one (a profile with `base:` a built-in name, such
as what `nvemu calibrate` writes).

--timing FILE: runs the emulator on the profile with the timing values in FILE (lines `key: value`, as in the
profile's timing section) put in place of those it has or added to it; a grid given relative to the profile's value
(the validation suite's) is relative to FILE's.

--floors K10 K25 R10 R25 (after the suite): exits 1 when the pooled held-out metrics of the 5 folds have fewer than
K10 percent within 10% or K25 percent within 25%, or those of leave-one-regime-out fewer than R10 or R25.
"""
import glob, itertools, json, math, os, random, re, shutil, statistics, subprocess, sys, threading

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
NV = sys.argv[1]
FLOORS = None
if '--floors' in sys.argv:
    i = sys.argv.index('--floors')
    FLOORS = [float(v) for v in sys.argv[i + 1:i + 5]]
    del sys.argv[i:i + 5]
TIMING = {}
if '--timing' in sys.argv:
    i = sys.argv.index('--timing')
    for line in open(sys.argv[i + 1]):
        line = line.split('#')[0].strip()
        if line:
            key, value = (x.strip() for x in line.split(':', 1))
            TIMING[key] = value
    del sys.argv[i:i + 2]
PROFILE = None
if '--profile' in sys.argv:
    i = sys.argv.index('--profile')
    PROFILE = os.path.abspath(sys.argv[i + 1])
    del sys.argv[i:i + 2]
GPU = 'h200'
WORK = sys.argv[2] if len(sys.argv) > 2 else '/tmp/nvemu-shape-folds'
SUITE = sys.argv[3] if len(sys.argv) > 3 else 'shapes'
DERIVED = {}  # key: its value from the grid point's, for keys tied to a fitted one
RELATIVE = False  # the grid's values are steps around the profile's
if SUITE == 'shapes':
    REC = ROOT + '/fixtures/hw/h200-580.159.04/shapes'
    SC = ROOT + '/scenarios/validation-shapes'
    GRID = [('restore_per_thread_kb_us', [20, 22, 24, 26, 28, 30]),
            ('restore_per_sm_kb', ['0ns', '150ns', '200ns', '250ns', '300ns', '350ns']),
            ('restore_thread_free_bytes', [1280, 1792, 2304, 2816, 3328, 3840])]
    fitted = lambda n: n.startswith(('s-', 'l-'))  # the m-* scenarios have no shared memory to restore
    regime = lambda n: ('ts200 grid' if n.startswith('s-ts200') else 'ts500/1000 grid' if n.startswith('s-')
                        else 'native multi-BE' if n.startswith('m-') else 'LC next to shapes')
elif SUITE == 'validation':
    REC = ROOT + '/fixtures/hw/h200-580.159.04/validation'
    SC = ROOT + '/scenarios/validation'
    GRID = [('cilp_save_us', [-30, -20, -10, 0, 10, 20]), ('idle_save_us', [-40, -20, 0, 20, 40])]
    RELATIVE = True  # around 165 and 120 in emu/profiles/h200.yaml: 135-185 and 80-160
    fitted = lambda n: True
    regime = lambda n: n.split('-')[1] if n.startswith('v') else '-'.join(n.split('-')[:2])
elif SUITE == 'short':
    REC = ROOT + '/fixtures/hw/h200-580.159.04/short-kernels'
    SC = ROOT + '/scenarios/validation-short'
    GRID = [('kernel_gap_overlap_us', [0, 2, 3, 4, 4.15, 4.3, 4.45, 5, 6])]
    DERIVED = {'overlap_wave_us': lambda prm: math.ceil(prm[0] / 7 * 100) / 100}
    fitted = lambda n: n.startswith('k-ts2048-') and n.endswith('-g0')  # as the profile's value was fitted
    regime = lambda n: ('LC next to launch-bound BE' if n.startswith('l-') else
                        n.split('-')[1] + (' back to back' if n.endswith('-g0') else ' launch-bound'))
elif SUITE in ('waves', 'waves-h100', 'mixed', 'mixed-h100', 'yield', 'yield-h100'):
    GPU = 'h100' if SUITE.endswith('-h100') else 'h200'
    kind = SUITE.split('-')[0]
    REC = ROOT + f'/fixtures/hw/{GPU}-580.159.04/{kind}'
    SC = ROOT + f'/scenarios/validation-{kind}'
    GRID = []
    fitted = lambda n: True
    # the yield suite is native scheduling throughout: a regime is its BE request (kernels x length)
    regime = (lambda n: n.split('-')[-1]) if kind == 'yield' else (lambda n: n.split('-')[1])
else:
    sys.exit(f'unknown suite {SUITE}: shapes, validation, short, waves, waves-h100, mixed, mixed-h100, yield or '
             'yield-h100')
BASE = open(PROFILE or ROOT + f'/emu/profiles/{GPU}.yaml').read()


def with_value(profile, key, value, add=False):
    """profile's text with key's value replaced; with add, a key it lacks is put first in its timing section."""
    out, hits = re.subn(rf'^( *{key}:) *\S+', rf'\g<1> {value}', profile, flags=re.M)
    if add and not hits:
        out, hits = re.subn(r'^timing:\n', f'timing:\n  {key}: {value}\n', profile, flags=re.M)
    assert hits == 1, key
    return out


for key, value in TIMING.items():
    BASE = with_value(BASE, key, value, add=True)
if RELATIVE:
    def profile_value(key):
        return float(re.search(rf'^ *{key}: *(\S+)', BASE, flags=re.M).group(1))
    GRID = [(key, [round(profile_value(key) + d, 3) for d in steps]) for key, steps in GRID]
    if re.search(r'^ *cilp_resave_us:', BASE, flags=re.M):
        # the re-save keeps its distance from the save, as nvemu calibrate keeps it (engine/calibrate)
        resave_gap = profile_value('cilp_resave_us') - profile_value('cilp_save_us')
        DERIVED['cilp_resave_us'] = lambda prm: round(prm[0] + resave_gap, 3)


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


names = sorted(os.path.basename(os.path.dirname(f)) for f in glob.glob(REC + '/r1/*/results.json'))
BOARDS = [REC] + sorted(glob.glob(REC + '/board*'))  # a recording set per board (README: the reference's rule)
HW, SEED = {}, {}
for n in names:
    votes = []
    for b in BOARDS:
        reps = [metrics(f) for f in sorted(glob.glob(f'{b}/r*/{n}/results.json'))]
        if reps:
            votes.append({k: statistics.median([m[k] for m in reps]) for k in reps[0]})
    HW[n] = {k: statistics.median([v[k] for v in votes]) for k in votes[0]}
    SEED[n] = json.load(open(sorted(glob.glob(f'{REC}/r*/{n}/results.json'))[0]))['seed']
cache = {}
written, written_lock = set(), threading.Lock()


def emu(n, prm):
    if (n, prm) not in cache:
        tag = '-'.join(map(str, prm))
        pf = f'{WORK}/{GPU}-{tag}.yaml'
        with written_lock:  # written once per run: a file left by an earlier run may hold another base profile
            if pf not in written:
                written.add(pf)
                s = BASE
                for (key, _), v in zip(GRID, prm):
                    s = with_value(s, key, v)
                for key, f in DERIVED.items():
                    s = with_value(s, key, f(prm))
                open(pf, 'w').write(s)
        out = f'{WORK}/{n}-{tag}'
        cmd = [NV, 'scenario', 'run', f'{SC}/{n}.yaml', '--quiet', '--profile', pf, '--seed', str(SEED[n]), '--out',
               out]
        rc = subprocess.run(cmd, capture_output=True)
        if rc.returncode > 1 and b'did not return within' in rc.stderr:
            # the policy watchdog counts wall time: a machine that stalls the run looks like a hung policy, and a
            # policy that really hangs does so again with the same seed
            rc = subprocess.run(cmd, capture_output=True)
        if rc.returncode > 1:  # 1: an expectation failed, the metrics stand; above: no run (a policy not found)
            sys.exit(f'{n}: the emulator could not run it (exit {rc.returncode}): {rc.stderr.decode().strip()}')
        cache[(n, prm)] = metrics(out + '/results.json')
        shutil.rmtree(out)  # a grid is thousands of runs: keep their metrics, not their reports
    return cache[(n, prm)]


def rows(ns, prm):
    return [(n, k, v, emu(n, prm)[k]) for n in ns for k, v in HW[n].items()]


def ratio(p, m):
    """predicted/measured; a metric the hardware measured 0 (a starved BE) is matched only by 0, as validation.sh"""
    return p / m if m else 1.0 if p == 0 else 1e9


def loss(ns, prm):
    return sum(math.log(min(max(ratio(p, m), 1e-3), 1e3)) ** 2 for _, _, m, p in rows(ns, prm))


def summary(rs):
    off = [abs(ratio(p, m) - 1) for _, _, m, p in rs]
    a = sum(o <= 0.10 + 1e-9 for o in off)
    b = sum(o <= 0.25 + 1e-9 for o in off)
    return f'{len(off):3d} metrics: {a:3d} within 10% ({100 * a / len(off):3.0f}%), {b:3d} within 25%, worst {100 * max(off):3.0f}%'


def prefetch(ns):
    from concurrent.futures import ThreadPoolExecutor
    todo = [(n, p) for p in itertools.product(*(vals for _, vals in GRID)) for n in ns]
    with ThreadPoolExecutor(int(os.environ.get('JOBS', '2'))) as ex:
        list(ex.map(lambda a: emu(*a), todo))


def fit(train):
    ss = [n for n in train if fitted(n)] or train  # a fold holding out every fitted scenario fits on the rest
    return min(itertools.product(*(vals for _, vals in GRID)), key=lambda p: loss(ss, p))


os.makedirs(WORK, exist_ok=True)
prefetch([n for n in names if fitted(n)])
print(f'all scenarios, fitted on all: {fit(names)}')
print('%-28s %-10s %-58s %s' % ('held out', 'fit', 'training', 'held out'))
regime_te = []
for h in sorted(set(map(regime, names))):
    test = [n for n in names if regime(n) == h]
    train = [n for n in names if regime(n) != h]
    p = fit(train)
    regime_te += rows(test, p)
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
print('%-28s %-10s %-58s %s' % ('regimes pooled', '', '', summary(regime_te)))
for what, rs in (('5-fold', pooled_te), ('leave-one-regime-out', regime_te)):
    print(f'held-out metrics beyond 10% ({what}): scenario metric measured predicted ratio')
    for n, k, m, p in rs:
        if abs(ratio(p, m) - 1) > 0.10 + 1e-9:
            print(f'  {n} {k} {m:.4g} {p:.4g} {ratio(p, m):.3f}')
if FLOORS:
    bad = []
    for what, rs, floors in (('5-fold', pooled_te, FLOORS[:2]), ('leave-one-regime-out', regime_te, FLOORS[2:])):
        off = [abs(ratio(p, m) - 1) for _, _, m, p in rs]
        for lim, floor in zip((0.10, 0.25), floors):
            pct = 100 * sum(o <= lim + 1e-9 for o in off) / len(off)
            if pct + 1e-9 < floor:
                bad.append(f'{what} held out: {pct:.1f}% within {lim:.0%}, floor {floor:g}%')
    print('\n'.join(bad) if bad else 'held-out floors met (5 folds %g%% / %g%%, regimes %g%% / %g%%)' % tuple(FLOORS))
    sys.exit(1 if bad else 0)
