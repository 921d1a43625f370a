#!/usr/bin/env python3
"""make bench: Stepwise measured side by side with the commit a round starts from and with its
peers, in one run on this machine, written to docs/benchmarks.md (generated: do not edit it).

Two release builds (`swift build -c release --static-swift-stdlib`, as debian/rules builds):
HEAD (this working tree, uncommitted changes included) and BASE (BENCH_BASE, default 05a1bb0,
exported with `git archive` into the scratch directory). BASE is built with HEAD's
Sources/StepwiseBench in place of its own, so both engines are timed by the same harness; if that
does not build against BASE, BASE's own StepwiseBench is used (the report says which). Each
measurement runs the two builds one after the other on the same inputs, round after round, the
order swapped every round, so a burst of load falls on both; figures are medians over the rounds
with their spread (slowest / fastest) and the 1-minute load average is recorded with them.

Sections (BENCH_ONLY="perfix memory" runs some, prints their text and leaves the report alone):
  perfix      guidance cost per fix (NavigationSession.ingest) on routes of 100 to 1,000,000
              points, elapsed and thread CPU time; callgrind's instruction count per fix
  replay      stepwised --fast --json over 1,000,000 NMEA sentences, against gpsdecode
  nmea        NMEA parsing alone: StepwiseBench nmea, gpsdecode, pynmea2
  memory      resident bytes per route point: (RSS with a 1,000,000-point route - RSS with a
              100-point one) / (the difference in points), in StepwiseBench and in stepwised
  footprint   stepwised idle on a silent gpsd with 100 subscribers: RSS (anonymous and
              file-backed), CPU
  fanout      500 subscribers on the live gpsd path (Benchmarks/fanout.py live)
  longrun     a day of 10 Hz fixes through the live path (Benchmarks/longrun.py), HEAD only
  reroute     reroute request latency against Valhalla on loopback

Verdicts (issues 33-35): per-fix cost at most 1.05x BASE's (median over the routes of the paired
CPU-time ratios), at most 5 more resident bytes per route point, and "no slower, no bigger" for the
rest, read as at most 1.05x BASE's time and size.

Environment: BENCH_BASE (05a1bb0), BENCH_ROUNDS (5, rounds of the paired measurements),
BENCH_PASSES (15, passes per perfix run), BENCH_SENTENCES (1000000), BENCH_DATA (bench-data),
BENCH_SCRATCH (/tmp/stepwise-bench), BENCH_OUT (docs/benchmarks.md), BENCH_ONLY, BENCH_QUIET
(wait before a section while the 1-minute load is above this, default: the number of cores),
BENCH_QUIET_WAIT (at most this many seconds per section, default 60), BENCH_GPSD_PORT (29471),
BENCH_VALHALLA_PORT (29472), BENCH_LONGRUN (864000 epochs), BENCH_LONGRUN_TIMEOUT (900 s),
BENCH_FANOUT_EPOCHS (1500).
Results also go to $BENCH_DATA/results.json; `bench.py render [RESULTS.json]` writes the report
from them again without measuring.

Everything from the line FLEET_MARKER to the end of the report is kept as it is (another target,
`make bench-fleet`, writes it); without that line nothing follows this script's text.
"""
import json
import os
import platform
import re
import shutil
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FLEET_MARKER = '<!-- fleet benchmarks: written by make bench-fleet -->'
SECTIONS = ['perfix', 'replay', 'nmea', 'memory', 'footprint', 'fanout', 'longrun', 'reroute']
LENGTHS = [100, 1000, 10000, 100000, 1000000]
PER_FIX_LIMIT = 1.05
BYTES_PER_POINT_LIMIT = 5.0
SAME_LIMIT = 1.05


def env(name, default):
    value = os.environ.get(name, '')
    return type(default)(value) if value else default


BASE = env('BENCH_BASE', '05a1bb0')
ROUNDS = env('BENCH_ROUNDS', 5)
PASSES = env('BENCH_PASSES', 15)
SENTENCES = env('BENCH_SENTENCES', 1000000)
DATA = Path(env('BENCH_DATA', 'bench-data'))
DATA = DATA if DATA.is_absolute() else ROOT / DATA
SCRATCH = Path(env('BENCH_SCRATCH', '/tmp/stepwise-bench'))
OUT = Path(env('BENCH_OUT', 'docs/benchmarks.md'))
OUT = OUT if OUT.is_absolute() else ROOT / OUT
QUIET = env('BENCH_QUIET', float(os.cpu_count() or 2))
QUIET_WAIT = env('BENCH_QUIET_WAIT', 60.0)
GPSD_PORT = env('BENCH_GPSD_PORT', 29471)
VALHALLA_PORT = env('BENCH_VALHALLA_PORT', 29472)
LONGRUN = env('BENCH_LONGRUN', 864000)
FANOUT_EPOCHS = env('BENCH_FANOUT_EPOCHS', 1500)
LONGRUN_TIMEOUT = env('BENCH_LONGRUN_TIMEOUT', 900)
IDLE = 10


def say(message):
    print('bench: %s' % message, file=sys.stderr, flush=True)


def die(message):
    say(message)
    sys.exit(1)


def loadavg():
    return ' '.join(Path('/proc/loadavg').read_text().split()[:3])


def load1():
    return float(loadavg().split()[0])


def wait_quiet(section):
    """Waits (at most QUIET_WAIT s) for the 1-minute load to fall to QUIET; returns the load."""
    waited = 0.0
    while load1() > QUIET and waited < QUIET_WAIT:
        if waited == 0:
            say('%s: load %s above %.1f, waiting up to %d s' % (section, loadavg(), QUIET, QUIET_WAIT))
        time.sleep(5)
        waited += 5
    return loadavg()


def kv(text):
    """The key=value lines of a helper's output."""
    out = {}
    for line in text.splitlines():
        key, sep, value = line.partition('=')
        if sep:
            out[key.strip()] = value.strip()
    return out


def run(cmd, stdout=None):
    """Runs cmd (standard input /dev/null); its elapsed seconds and, with stdout='capture', its
    standard output. A failure ends the benchmark with the command's standard error."""
    capture = stdout == 'capture'
    t0 = time.monotonic()
    proc = subprocess.run([str(c) for c in cmd], stdin=subprocess.DEVNULL,
                          stdout=subprocess.PIPE if capture else subprocess.DEVNULL,
                          stderr=subprocess.PIPE)
    elapsed = time.monotonic() - t0
    if proc.returncode:
        die('failed (%d): %s\n%s' % (proc.returncode, ' '.join(map(str, cmd)),
                                     proc.stderr.decode()[-2000:]))
    result = {'s': round(elapsed, 4)}
    if capture:
        result['out'] = proc.stdout.decode()
    return result


def run_usage(cmd, stdin=None):
    """Runs cmd, its output discarded, standard input from the file stdin or /dev/null: elapsed
    seconds (clock around it), CPU seconds (user + system, from wait4) and peak RSS (kB).

    The peak comes from /usr/bin/time, which starts cmd: a process forked from this one keeps
    this one's high-water mark through exec (Linux's maxrss), time's child does not."""
    peak = DATA / 'peak.txt'
    t0 = time.monotonic()
    pid = os.fork()
    if pid == 0:
        try:
            os.dup2(os.open(str(stdin) if stdin else '/dev/null', os.O_RDONLY), 0)
            null = os.open('/dev/null', os.O_WRONLY)
            os.dup2(null, 1)
            os.dup2(null, 2)
            os.execv('/usr/bin/time', ['time', '-f', '%M', '-o', str(peak)]
                     + [str(c) for c in cmd])
        finally:
            os._exit(127)
    _, status, usage = os.wait4(pid, 0)
    elapsed = time.monotonic() - t0
    if status:
        die('failed (status %d): %s' % (status, ' '.join(map(str, cmd))))
    return {'s': round(elapsed, 4), 'cpu': round(usage.ru_utime + usage.ru_stime, 4),
            'kb': int(peak.read_text().split()[-1])}


def med(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def spread(values):
    values = [v for v in values if v]
    return round(max(values) / min(values), 3) if values else None


def summary(values):
    """Median, every value and spread (largest / smallest) of a list."""
    return {'median': med(values), 'all': values, 'spread': spread(values)}


# ---------------------------------------------------------------------------------------------
# Builds

class Build:
    def __init__(self, name, label, rev, src, scratch):
        self.name, self.label, self.rev, self.src, self.scratch = name, label, rev, src, scratch
        self.harness = 'HEAD'

    def swift(self, *extra):
        return ['swift', 'build', '-c', 'release', '--static-swift-stdlib',
                '--scratch-path', str(self.scratch)] + list(extra)

    def build(self):
        for product in ('stepwised', 'StepwiseBench'):
            say('%s: release build of %s (%s)' % (self.name, product, self.scratch))
            if subprocess.call(self.swift('--product', product), cwd=self.src,
                               stdout=sys.stderr) != 0:
                return False
        bindir = subprocess.run(self.swift('--show-bin-path'), cwd=self.src, check=True,
                                capture_output=True, text=True).stdout.strip()
        self.stepwised = Path(bindir) / 'stepwised'
        self.bench = Path(bindir) / 'StepwiseBench'
        return True


def git(*args):
    return subprocess.run(['git'] + list(args), cwd=ROOT, check=True, capture_output=True,
                          text=True).stdout.strip()


def make_builds():
    os.environ['PATH'] = '/opt/swift/usr/bin:' + os.environ.get('PATH', '')
    head_rev = git('rev-parse', '--short', 'HEAD')
    dirty = git('status', '--porcelain', '--untracked-files=no', '--', 'Sources', 'Package.swift')
    head = Build('HEAD', head_rev + (' + changes' if dirty else ''), head_rev, ROOT,
                 SCRATCH / 'head')
    base_rev = git('rev-parse', '--short', BASE + '^{commit}')
    home = SCRATCH / ('base-' + base_rev)
    src = home / 'src'
    if not (src / 'Package.swift').exists():
        say('exporting %s into %s' % (base_rev, src))
        src.mkdir(parents=True, exist_ok=True)
        archive = subprocess.Popen(['git', 'archive', base_rev], cwd=ROOT, stdout=subprocess.PIPE)
        subprocess.run(['tar', '-x', '-C', str(src)], stdin=archive.stdout, check=True)
        if archive.wait():
            die('git archive %s failed' % base_rev)
        shutil.copy(src / 'Sources/StepwiseBench/main.swift', home / 'own-StepwiseBench.swift')
    base = Build('BASE', base_rev, base_rev, src, home / 'build')
    if not head.build():
        die('HEAD does not build')
    harness = (ROOT / 'Sources/StepwiseBench/main.swift').read_bytes()
    if (src / 'Sources/StepwiseBench/main.swift').read_bytes() != harness:
        (src / 'Sources/StepwiseBench/main.swift').write_bytes(harness)
    if not base.build():
        say('HEAD\'s StepwiseBench does not build against %s: its own is used' % base_rev)
        shutil.copy(home / 'own-StepwiseBench.swift', src / 'Sources/StepwiseBench/main.swift')
        base.harness = base_rev
        if not base.build():
            die('%s does not build' % base_rev)
    return head, base


def pair_order(builds, i):
    return builds if i % 2 == 0 else builds[::-1]


# ---------------------------------------------------------------------------------------------
# Inputs (generated into DATA, never committed)

def stale(target, *sources):
    if not target.exists() or target.stat().st_size == 0:
        return True
    return any((ROOT / s).stat().st_mtime > target.stat().st_mtime for s in sources)


def make(target, cmd, *sources, stdout=False):
    """Makes target with cmd (its standard output, or the argument OUT) unless it is newer than
    every one of sources."""
    if stale(target, *sources):
        say('making %s' % target.name)
        tmp = target.with_name(target.name + '.tmp')
        if stdout:
            with open(tmp, 'wb') as f:
                subprocess.run(cmd, cwd=ROOT, stdout=f, check=True)
        else:
            subprocess.run([str(tmp) if c == 'OUT' else str(c) for c in cmd], cwd=ROOT, check=True)
        tmp.rename(target)
    return target


class Inputs:
    def __init__(self):
        DATA.mkdir(parents=True, exist_ok=True)
        mr = ['python3', 'Benchmarks/make_routes.py']
        dep = 'Benchmarks/make_routes.py'
        self.nmea = make(DATA / ('bench_%d.nmea' % SENTENCES),
                         ['python3', 'Benchmarks/gen_nmea.py', str(SENTENCES)],
                         'Benchmarks/gen_nmea.py', stdout=True)
        self.follow = make(DATA / ('follow_%d.json' % SENTENCES),
                           mr + ['follow', str(self.nmea), 'OUT'], dep)
        self.one_epoch = DATA / 'one-epoch.nmea'
        with open(self.nmea) as f:
            self.one_epoch.write_text(''.join(f.readline() for _ in range(3)))
        self.tracks = {'zigzag': make(DATA / 'zigzag.nmea', mr + ['zigzag-track', 'OUT'], dep),
                       'curve': make(DATA / 'curve.nmea', mr + ['curve-track', 'OUT'], dep)}
        self.routes = {}
        for shape in ('zigzag', 'curve'):
            for p in LENGTHS:
                self.routes[shape, p] = make(DATA / ('%s_%d.json' % (shape, p)),
                                             mr + [shape, str(p), 'OUT'], dep)
        for p in (100, 1000000):
            self.routes['curvenoise', p] = make(DATA / ('curvenoise_%d.json' % p),
                                                mr + ['curve', str(p), 'OUT', '0.08'], dep)
            self.routes['valhalla', p] = make(DATA / ('valhalla_%d.json' % p),
                                              mr + ['valhalla', str(self.routes['zigzag', p]),
                                                    'OUT'], dep)


def pynmea2():
    """The venv's python with pynmea2 1.19.0, or None."""
    venv = DATA / 'venv'
    python = venv / 'bin/python'
    check = [str(python), '-c', 'import pynmea2']
    if not python.exists() or subprocess.call(check, stderr=subprocess.DEVNULL):
        say('installing pynmea2 into %s' % venv)
        ok = subprocess.call([sys.executable, '-m', 'venv', str(venv)]) == 0 and subprocess.call(
            [str(venv / 'bin/pip'), 'install', '--quiet', 'pynmea2==1.19.0'],
            stdout=sys.stderr) == 0
        if not ok:
            say('pynmea2 could not be installed: its row is left out')
            return None, None
    version = subprocess.run([str(python), '-c', 'import pynmea2; print(pynmea2.version)'],
                             capture_output=True, text=True).stdout.strip()
    return python, version


# ---------------------------------------------------------------------------------------------
# Sections: each returns a dict of figures (JSON), rendered by render_* below.

def callgrind_instructions(build, route, track):
    """Instructions per fix of ingestLater under callgrind (one pass), or None. Valgrind 3.19
    cannot read the toolchain's DWARF 5, so it runs a copy without debug information (the
    symbols stay)."""
    if not shutil.which('valgrind'):
        return None
    binary = DATA / ('StepwiseBench-%s-nodebug' % build.name)
    if not binary.exists() or binary.stat().st_mtime < build.bench.stat().st_mtime:
        subprocess.run(['strip', '--strip-debug', '-o', str(binary), str(build.bench)], check=True)
    out = DATA / 'callgrind.out'
    proc = subprocess.run(['valgrind', '--tool=callgrind', '--collect-atstart=no',
                           '--toggle-collect=*ingestLater*', '--callgrind-out-file=%s' % out,
                           str(binary), 'perfix', str(route), str(track), '1'],
                          capture_output=True, text=True)
    found = re.search(r'Collected\s*:\s*(\d+)', proc.stderr)
    fixes = kv(proc.stdout).get('fixes')
    if proc.returncode or not found or not fixes:
        say('callgrind gave no count: %s' % proc.stderr[-300:])
        return None
    return int(found.group(1)) / max(1, int(fixes) - 1)


def section_perfix(builds, inputs):
    rows = []
    keys = [(shape, p) for shape in ('zigzag', 'curve') for p in LENGTHS]
    runs = {(b.name, k): [] for b in builds for k in keys}
    loads = []
    for r in range(ROUNDS):
        loads.append(loadavg())
        say('perfix: round %d of %d (load %s)' % (r + 1, ROUNDS, loads[-1]))
        for i, (shape, p) in enumerate(keys):
            for b in pair_order(builds, r + i):
                out = kv(run([b.bench, 'perfix', inputs.routes[shape, p], inputs.tracks[shape],
                              PASSES], stdout='capture')['out'])
                runs[b.name, (shape, p)].append(out)
    for shape, p in keys:
        head, base = runs['HEAD', (shape, p)], runs['BASE', (shape, p)]

        def column(outs, key):
            return [int(o[key]) if key in o else None for o in outs]

        row = {'shape': shape, 'points': p}
        for name, outs in (('head', head), ('base', base)):
            row[name] = {k: summary(column(outs, k)) for k in ('ns_per_fix', 'cpu_ns_per_fix')}
            row[name].update({k: outs[-1].get(k) for k in
                              ('kept_points', 'fixes', 'events', 'off_route_events', 'arrived',
                               'first_fix_us')})
        for key in ('ns_per_fix', 'cpu_ns_per_fix'):
            pairs = [h / b for h, b in zip(column(head, key), column(base, key)) if h and b]
            row[key + '_ratio'] = summary([round(x, 4) for x in pairs])
        rows.append(row)
    say('perfix: callgrind instruction counts')
    instructions = []
    for shape in ('zigzag', 'curve'):
        for p in (1000, 1000000):
            counts = {b.name: callgrind_instructions(b, inputs.routes[shape, p],
                                                     inputs.tracks[shape]) for b in builds}
            instructions.append({'shape': shape, 'points': p, 'head': counts['HEAD'],
                                 'base': counts['BASE']})
    ratio = med([row['cpu_ns_per_fix_ratio']['median'] for row in rows])
    growth = {}
    for shape in ('zigzag', 'curve'):
        cost = [row['head']['cpu_ns_per_fix']['median'] for row in rows if row['shape'] == shape]
        growth[shape] = round(cost[-1] / cost[0], 3) if cost[0] else None
    return {'rows': rows, 'instructions': instructions, 'ratio': ratio, 'growth': growth,
            'loads': loads, 'passes': PASSES}


def section_replay(builds, inputs):
    head, base = builds
    cmd = {b.name: [b.stepwised, '--route', inputs.follow, '--fast', '--json', inputs.nmea]
           for b in builds}
    cmd['gpsdecode'] = ['/usr/bin/gpsdecode']
    runs = {k: [] for k in cmd}
    loads = []
    for r in range(ROUNDS):
        loads.append(loadavg())
        order = ['HEAD', 'BASE', 'gpsdecode']
        order = order[r % 3:] + order[:r % 3]
        for name in order:
            runs[name].append(run_usage(cmd[name], stdin=inputs.nmea if name == 'gpsdecode'
                                        else None))
        say('replay: round %d: %s (load %s)' % (
            r + 1, ', '.join('%s %.3f s' % (n, runs[n][-1]['s']) for n in order), loads[-1]))
    result = {'loads': loads, 'sentences': SENTENCES,
              'mb': round(inputs.nmea.stat().st_size / 1e6, 1)}
    for name, values in runs.items():
        result[name] = {'s': summary([v['s'] for v in values]),
                        'cpu': summary([v['cpu'] for v in values]),
                        'kb': max(v['kb'] for v in values)}
    for key in ('s', 'cpu'):
        result['ratio_' + key] = summary([round(h[key] / b[key], 4)
                                          for h, b in zip(runs['HEAD'], runs['BASE'])])
        result['vs_gpsdecode_' + key] = {
            name: summary([round(g[key] / v[key], 3) for g, v in zip(runs['gpsdecode'], runs[name])])
            for name in ('HEAD', 'BASE')}
    # Start-up and route load alone, and the readable output, interleaved the same way.
    for label, args in (('startup', ['--json', inputs.one_epoch]), ('text', [inputs.nmea])):
        values = {b.name: [] for b in builds}
        for r in range(ROUNDS):
            for b in pair_order(builds, r):
                values[b.name].append(run_usage([b.stepwised, '--route', inputs.follow, '--fast']
                                                + args))
        result[label] = {n: {'s': summary([v['s'] for v in vs]), 'kb': max(v['kb'] for v in vs)}
                         for n, vs in values.items()}
    classes = {}
    for b in builds:
        out = run([b.stepwised, '--route', inputs.follow, '--fast', '--json', inputs.nmea],
                  stdout='capture')['out']
        counts = {}
        for line in out.splitlines():
            found = re.match(r'\{"class":"([A-Z]+)"', line)
            counts[found.group(1) if found else '?'] = counts.get(found.group(1) if found else '?',
                                                                  0) + 1
        classes[b.name] = counts
    result['classes'] = classes
    result['route_points'] = kv(run([head.bench, 'load', inputs.follow],
                                    stdout='capture')['out']).get('points')
    return result


def section_nmea(builds, inputs):
    """NMEAReader alone (best of 3 passes in memory) for HEAD and BASE, and gpsdecode, in
    rounds, the order rotated every round; pynmea2 three times."""
    result = {'loads': [loadavg()]}
    values = {'HEAD': [], 'BASE': [], 'gpsdecode': []}
    for r in range(ROUNDS):
        order = ['HEAD', 'BASE', 'gpsdecode']
        for name in order[r % 3:] + order[:r % 3]:
            if name == 'gpsdecode':
                values[name].append(run_usage(['/usr/bin/gpsdecode'], stdin=inputs.nmea)['s'])
            else:
                bench = builds[0 if name == 'HEAD' else 1].bench
                values[name].append(float(kv(run([bench, 'nmea', inputs.nmea],
                                                 stdout='capture')['out'])['seconds']))
    for name, v in values.items():
        result[name] = summary([round(x, 4) for x in v])
    result['ratios'] = summary([round(h / b, 4) for h, b in zip(values['HEAD'], values['BASE'])])
    python, version = pynmea2()
    if python:
        result['pynmea2'] = summary([run_usage([python, ROOT / 'Benchmarks/pynmea2_parse.py',
                                                inputs.nmea])['s'] for _ in range(3)])
        result['pynmea2_version'] = version
    result['ratio'] = result['ratios']['median']
    result['loads'].append(loadavg())
    return result


def section_memory(builds, inputs):
    """Bytes per route point from two processes: one with the 1,000,000-point route and one with
    the 100-point route of the same kind, so what every process has anyway cancels out."""
    kinds = ('zigzag', 'curvenoise', 'valhalla')
    runs = {}
    loads = [loadavg()]
    for r in range(ROUNDS):
        for i, kind in enumerate(kinds):
            for b in pair_order(builds, r + i):
                for p in (100, 1000000):
                    route = inputs.routes[kind, p]
                    m = kv(run([b.bench, 'memory', route], stdout='capture')['out'])
                    d = run_usage([b.stepwised, '--route', route, '--fast', '--json',
                                   inputs.one_epoch])
                    runs.setdefault((b.name, kind, p), []).append((m, d['kb']))
        say('memory: round %d of %d' % (r + 1, ROUNDS))
    loads.append(loadavg())
    rows = []
    for kind in kinds:
        row = {'kind': kind}
        for b in builds:
            short, long = runs[b.name, kind, 100], runs[b.name, kind, 1000000]
            points = int(long[0][0]['points']) - int(short[0][0]['points'])
            after = [(int(lm['rss_after_kb']) - int(sm['rss_after_kb'])) * 1024 / points
                     for (sm, _), (lm, _) in zip(short, long)]
            peak = [(int(lm['peak_kb']) - int(sm['peak_kb'])) * 1024 / points
                    for (sm, _), (lm, _) in zip(short, long)]
            daemon = [(ld - sd) * 1024 / points for (_, sd), (_, ld) in zip(short, long)]
            row[b.name] = {'points': int(long[0][0]['points']),
                           'kept': int(long[0][0]['kept_points']),
                           'rss_long_kb': med([int(m['rss_after_kb']) for m, _ in long]),
                           'rss_short_kb': med([int(m['rss_after_kb']) for m, _ in short]),
                           'bytes_per_point': summary([round(x, 2) for x in after]),
                           'peak_bytes_per_point': summary([round(x, 2) for x in peak]),
                           'daemon_peak_bytes_per_point': summary([round(x, 2) for x in daemon])}
        row['difference'] = round(row['HEAD']['bytes_per_point']['median']
                                  - row['BASE']['bytes_per_point']['median'], 2)
        rows.append(row)
    return {'rows': rows, 'loads': loads}


def status_kb(pid, key):
    for line in Path('/proc/%d/status' % pid).read_text().splitlines():
        if line.startswith(key + ':'):
            return int(line.split()[1])
    return None


def ticks(pid):
    fields = Path('/proc/%d/stat' % pid).read_text().rsplit(')', 1)[1].split()
    return int(fields[11]) + int(fields[12])


def stop(proc):
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def section_footprint(builds, inputs):
    """ROUNDS rounds, HEAD and BASE in turn: one daemon's resident memory moves by a few hundred
    kB from run to run (which pages of the binary the kernel maps around the ones touched), as
    much as the difference measured. The verdict takes the medians; the CPU while idle is summed
    over the rounds."""
    if not shutil.which('gpsd') and not Path('/usr/sbin/gpsd').exists():
        return {'missing': 'gpsd is not installed'}
    gpsd_bin = shutil.which('gpsd') or '/usr/sbin/gpsd'
    hz = os.sysconf('SC_CLK_TCK')
    idle = max(2, -(-IDLE // ROUNDS))
    result = {'loads': [loadavg()], 'idle_s': idle * ROUNDS, 'hz': hz, 'rounds': ROUNDS}
    runs = {b.name: [] for b in builds}
    for r in range(ROUNDS):
        for b in (builds if r % 2 == 0 else builds[::-1]):
            if 'error' in result.get(b.name, {}):
                continue
            run_ = footprint_once(b, inputs, gpsd_bin, idle)
            if 'error' in run_:
                result[b.name] = run_
                continue
            runs[b.name].append(run_)
    for name, rs in runs.items():
        if not rs:
            continue
        d = {key: summary([r[key] for r in rs])
             for key in ('rss_kb', 'anon_kb', 'file_kb', 'hwm_kb')}
        d = {key: v['median'] for key, v in d.items()} | {'runs': d}
        d.update(threads=max(r['threads'] for r in rs), fds=max(r['fds'] for r in rs),
                 ticks=sum(r['ticks'] for r in rs),
                 subscribers=min(int(r['subscribers'] or 0) for r in rs))
        result[name] = d
    result['loads'].append(loadavg())
    return result


def footprint_once(b, inputs, gpsd_bin, idle):
    sock = DATA / 'idle.sock'
    state = DATA / 'state'
    shutil.rmtree(state, ignore_errors=True)
    state.mkdir()
    sock.unlink(missing_ok=True)
    gpsd = subprocess.Popen([gpsd_bin, '-N', '-n', '-S', str(GPSD_PORT), '-F',
                             str(DATA / 'gpsd.sock')], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    try:
        time.sleep(1)
        daemon = subprocess.Popen([str(b.stepwised), '--route',
                                   str(inputs.routes['zigzag', 100000]), '--quiet',
                                   '--state-dir', str(state), '--socket', str(sock),
                                   '--max-clients', '600', 'gpsd://127.0.0.1:%d' % GPSD_PORT],
                                  stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.PIPE)
        time.sleep(2)
        hold = subprocess.Popen(['python3', 'Benchmarks/fanout.py', 'hold', str(sock), '100',
                                 str(idle + 4)], cwd=ROOT, stdout=subprocess.PIPE, text=True)
        time.sleep(2)
        if daemon.poll() is not None:
            hold.kill()
            hold.wait()
            return {'error': daemon.stderr.read().decode()[-500:]}
        t0 = ticks(daemon.pid)
        time.sleep(idle)
        t1 = ticks(daemon.pid)
        pid = daemon.pid
        out = {'rss_kb': status_kb(pid, 'VmRSS'), 'anon_kb': status_kb(pid, 'RssAnon'),
               'file_kb': status_kb(pid, 'RssFile'), 'hwm_kb': status_kb(pid, 'VmHWM'),
               'threads': status_kb(pid, 'Threads'),
               'fds': len(os.listdir('/proc/%d/fd' % pid)), 'ticks': t1 - t0}
        held = kv(hold.communicate()[0])
        out['subscribers'] = held.get('got_state') or held.get('connected')
        stop(daemon)
        return out
    finally:
        stop(gpsd)


def section_fanout(builds, inputs):
    result = {}
    for b in builds:
        load = loadavg()
        out = run(['python3', ROOT / 'Benchmarks/fanout.py', 'live', b.stepwised,
                   inputs.routes['zigzag', 100000], 500, FANOUT_EPOCHS, 0.04, 4],
                  stdout='capture')['out']
        result[b.name] = kv(out)
        result[b.name]['load'] = load
        say('fanout %s: p99 %s ms' % (b.name, result[b.name].get('latency_p99_ms')))
    return result


def section_longrun(builds, inputs):
    """HEAD only. longrun.py waits for its stand-in's epochs to come through; a stand-in that
    dies leaves it waiting (seen once on a machine with load 15), so it runs in a process group
    of its own, ended after LONGRUN_TIMEOUT seconds."""
    head = builds[0]
    proc = subprocess.Popen(['python3', 'Benchmarks/longrun.py', 'run', '--stepwised',
                             str(head.stepwised), '--epochs', str(LONGRUN), '--churn-rounds',
                             '100', '--churn', '20', '--stay', '5'], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=LONGRUN_TIMEOUT)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, _ = proc.communicate()
        say('longrun: no result after %d s, ended' % LONGRUN_TIMEOUT)
    return dict(kv(out), loads=[loadavg()])


def section_reroute(builds, inputs):
    home = Path(os.environ.get('VALHALLA_HOME') or Path(
        os.environ.get('XDG_CACHE_HOME') or Path.home() / '.cache') / 'stepwise-valhalla/vx')
    if not (home / 'valhalla/bin/valhalla_service').exists():
        return {'missing': 'no Valhalla binaries under %s (`sh Tests/Valhalla/serve.sh '
                           '--fetch-wheel`, or Scripts/install-deps.sh)' % home}
    serve = subprocess.run(['bash', 'Tests/Valhalla/serve.sh',
                            'Tests/Valhalla/extracts/paris_bss.osm.pbf', str(VALHALLA_PORT)],
                           cwd=ROOT, capture_output=True, text=True)
    if serve.returncode:
        return {'missing': 'Tests/Valhalla/serve.sh could not start Valhalla: '
                           + ' '.join(serve.stderr.splitlines()[-3:])}
    pid = int(serve.stdout.split()[-1])
    result = {}
    try:
        for b in builds:
            result[b.name] = kv(run([b.bench, 'reroute', 'http://127.0.0.1:%d' % VALHALLA_PORT,
                                     ROOT / 'Simulations/001-marais-drive/route.json', 500],
                                    stdout='capture')['out'])
    finally:
        os.kill(pid, signal.SIGTERM)
        while Path('/proc/%d' % pid).exists():
            time.sleep(0.2)
    wheels = sorted(home.parent.glob('pyvalhalla-*.whl'))
    result['valhalla'] = wheels[0].stem if wheels else 'pyvalhalla'
    return result


# ---------------------------------------------------------------------------------------------
# Rendering

def f(value, fmt='%.3f'):
    return 'n/a' if value is None else fmt % value


def mib(kb):
    return 'n/a' if kb in (None, '') else '%.1f MiB' % (float(kb) / 1024)


def runs_text(s, fmt='%.3f'):
    return ', '.join(fmt % v for v in s['all'] if v is not None)


def verdicts(results):
    """(measure, HEAD, BASE, HEAD/BASE with spread, limit, verdict) rows."""
    rows = []

    def add(measure, head, base, ratio, ratio_spread, limit, ok):
        rows.append((measure, head, base, '%s (%s)' % (f(ratio, '%.3f×'), ratio_spread), limit,
                     '**met**' if ok else '**not met**'))

    p = results.get('perfix')
    if p:
        cpu = [row['cpu_ns_per_fix_ratio']['median'] for row in p['rows']]
        wall = [row['ns_per_fix_ratio']['median'] for row in p['rows']]
        add('cost per fix, thread CPU (median over the 10 routes)',
            '%d ns' % med([row['head']['cpu_ns_per_fix']['median'] for row in p['rows']]),
            '%d ns' % med([row['base']['cpu_ns_per_fix']['median'] for row in p['rows']]),
            p['ratio'], 'rows %.3f to %.3f' % (min(cpu), max(cpu)), '≤ %.2f× (#34, #35)'
            % PER_FIX_LIMIT, p['ratio'] <= PER_FIX_LIMIT)
        add('cost per fix, elapsed (median over the 10 routes)',
            '%d ns' % med([row['head']['ns_per_fix']['median'] for row in p['rows']]),
            '%d ns' % med([row['base']['ns_per_fix']['median'] for row in p['rows']]),
            med(wall), 'rows %.3f to %.3f' % (min(wall), max(wall)), '≤ %.2f×' % PER_FIX_LIMIT,
            med(wall) <= PER_FIX_LIMIT)
        counted = [i for i in p['instructions'] if i['head'] and i['base']]
        if counted:
            ratios = [i['head'] / i['base'] for i in counted]
            add('instructions per fix (callgrind, median over %d routes)' % len(counted),
                '%d' % med([i['head'] for i in counted]), '%d' % med([i['base'] for i in counted]),
                med(ratios), 'rows %.3f to %.3f' % (min(ratios), max(ratios)),
                '≤ %.2f×' % PER_FIX_LIMIT, med(ratios) <= PER_FIX_LIMIT)
    m = results.get('memory')
    if m:
        for row in m['rows']:
            h, b = row['HEAD']['bytes_per_point'], row['BASE']['bytes_per_point']
            rows.append(('resident bytes per route point, %s (1,000,000 − 100 points)' % row['kind'],
                         '%.1f B' % h['median'], '%.1f B' % b['median'],
                         '%+.1f B (HEAD runs %s; BASE %s)' % (row['difference'],
                                                             runs_text(h, '%.1f'),
                                                             runs_text(b, '%.1f')),
                         '≤ +%.0f B (#34)' % BYTES_PER_POINT_LIMIT,
                         '**met**' if row['difference'] <= BYTES_PER_POINT_LIMIT
                         else '**not met**'))
    r = results.get('replay')
    if r:
        add('stepwised --fast --json, 1,000,000 sentences, elapsed', '%.3f s'
            % r['HEAD']['s']['median'], '%.3f s' % r['BASE']['s']['median'],
            r['ratio_s']['median'], 'rounds ' + runs_text(r['ratio_s']), '≤ %.2f× (#33)'
            % SAME_LIMIT, r['ratio_s']['median'] <= SAME_LIMIT)
        add('the same, CPU time (user + system)', '%.3f s' % r['HEAD']['cpu']['median'],
            '%.3f s' % r['BASE']['cpu']['median'], r['ratio_cpu']['median'],
            'rounds ' + runs_text(r['ratio_cpu']), '≤ %.2f×' % SAME_LIMIT,
            r['ratio_cpu']['median'] <= SAME_LIMIT)
        add('the same, peak RSS', mib(r['HEAD']['kb']), mib(r['BASE']['kb']),
            r['HEAD']['kb'] / r['BASE']['kb'], 'largest of the rounds', '≤ %.2f×' % SAME_LIMIT,
            r['HEAD']['kb'] / r['BASE']['kb'] <= SAME_LIMIT)
    n = results.get('nmea')
    if n:
        add('NMEAReader alone, in memory', '%.3f s' % n['HEAD']['median'],
            '%.3f s' % n['BASE']['median'], n['ratio'],
            'rounds ' + runs_text(n['ratios']),
            '≤ %.2f×' % SAME_LIMIT, n['ratio'] <= SAME_LIMIT)
    fp = results.get('footprint')
    if fp and 'HEAD' in fp and 'rss_kb' in fp['HEAD'] and 'rss_kb' in fp.get('BASE', {}):
        ratio = fp['HEAD']['rss_kb'] / fp['BASE']['rss_kb']
        if 'runs' in fp['HEAD'] and 'runs' in fp['BASE']:
            pairs = zip(fp['HEAD']['runs']['rss_kb']['all'], fp['BASE']['runs']['rss_kb']['all'])
            how = 'medians of %d runs each; rounds %s' % (fp['rounds'], ', '.join(
                '%.3f' % (h / b) for h, b in pairs))
        else:
            how = 'one run each'
        add('idle daemon resident, 100,000-point route, 100 subscribers', mib(fp['HEAD']['rss_kb']),
            mib(fp['BASE']['rss_kb']), ratio, how, '≤ %.2f×' % SAME_LIMIT,
            ratio <= SAME_LIMIT)
    fo = results.get('fanout')
    if fo and 'latency_p99_ms' in fo.get('HEAD', {}) and 'latency_p99_ms' in fo.get('BASE', {}):
        h, b = float(fo['HEAD']['latency_p99_ms']), float(fo['BASE']['latency_p99_ms'])
        rows.append(('fan-out to 500 subscribers, latency p99', '%.2f ms' % h, '%.2f ms' % b,
                     '%.3f× (one run each; load %s / %s)' % (h / b, fo['HEAD']['load'],
                                                              fo['BASE']['load']),
                     '≤ 5 ms', '**met**' if h <= 5 else '**not met**'))
    return rows


def table(head, rows):
    lines = ['| ' + ' | '.join(head) + ' |', '|' + '---|' * len(head)]
    lines += ['| ' + ' | '.join(str(c) for c in row) + ' |' for row in rows]
    return '\n'.join(lines)


def render_perfix(p, meta):
    head = ['geometry', 'route points', 'kept', 'fixes', 'events', 'off-route', 'arrived',
            'first fix (µs)', 'HEAD CPU ns/fix (spread)', 'BASE CPU ns/fix (spread)',
            'HEAD / BASE CPU (rounds)', 'HEAD elapsed ns/fix', 'BASE elapsed ns/fix',
            'HEAD / BASE elapsed']
    rows = []
    for row in p['rows']:
        h, b = row['head'], row['base']
        rows.append([row['shape'], row['points'], h['kept_points'], h['fixes'], h['events'],
                     h['off_route_events'], h['arrived'], h['first_fix_us'],
                     '%d (%.2f×)' % (h['cpu_ns_per_fix']['median'], h['cpu_ns_per_fix']['spread']),
                     '%d (%.2f×)' % (b['cpu_ns_per_fix']['median'], b['cpu_ns_per_fix']['spread']),
                     '**%.3f×** (%s)' % (row['cpu_ns_per_fix_ratio']['median'],
                                        runs_text(row['cpu_ns_per_fix_ratio'], '%.2f')),
                     '%d (%.2f×)' % (h['ns_per_fix']['median'], h['ns_per_fix']['spread']),
                     '%d (%.2f×)' % (b['ns_per_fix']['median'], b['ns_per_fix']['spread']),
                     '%.3f×' % row['ns_per_fix_ratio']['median']])
    inst = [[i['shape'], i['points'], f(i['head'], '%.0f'), f(i['base'], '%.0f'),
             f(i['head'] / i['base'] if i['head'] and i['base'] else None, '%.3f×')]
            for i in p['instructions']]
    return '''Two 300 km drives, each along routes of the same geometry with 100 to 1,000,000 points
(the points get denser, the route no longer): *zigzag* (`Benchmarks/make_routes.py zigzag-track`:
ten straight 30 km legs, nine 50° turns) and *curve* (`make_routes.py curve-track`: legs made of
arcs, whose points the route geometry cannot drop). 25 m/s, one epoch per second, 2 m lateral
wobble; the routes carry no lanes, signs, limits or road objects (the "routes without the new
data" of #34), and every fix is good (#35). `StepwiseBench perfix ROUTE TRACK {passes}`: the
time of `NavigationSession.ingest` alone, in process, for every fix after the first (which is
matched against the whole route and is timed apart), median of {passes} passes on a fresh
session each; thread CPU time (`CLOCK_THREAD_CPUTIME_ID`, what the pass cost whatever else ran)
and elapsed time. {rounds} rounds; in each, every route is run by HEAD and BASE one right after
the other (the order swapped from one to the next). A row's figure is the median of its rounds,
spread the slowest / fastest round; HEAD / BASE is the median of the rounds' paired ratios.
1-minute load at the start of each round: {loads}.

{table}

HEAD's CPU cost, largest / smallest route length: zigzag **{gz}×**, curve **{gc}×** (at most
1.5×: {growth_ok}): the work per fix does not grow with the route's length or density.

Instructions per fix (callgrind, one pass, only `ingestLater`, the loop over every fix after the
first; deterministic, so free of the machine's load):

{inst}'''.format(passes=p['passes'], rounds=meta['rounds'], loads='; '.join(p['loads']),
                 table=table(head, rows), gz=f(p['growth']['zigzag'], '%.2f'),
                 gc=f(p['growth']['curve'], '%.2f'),
                 growth_ok='yes' if max(p['growth'].values()) <= 1.5 else '**no**',
                 inst=table(['geometry', 'route points', 'HEAD', 'BASE', 'HEAD / BASE'], inst))


def render_replay(r, meta):
    def row(label, cmd, d, ratio=None):
        return [label, cmd, runs_text(d['s']), '%.3f s' % d['s']['median'],
                '%.2f×' % d['s']['spread'], '%d k' % (r['sentences'] / d['s']['median'] / 1000),
                '%.3f s' % d['cpu']['median'] if 'cpu' in d else '', ratio or '', mib(d['kb'])]

    vs = r['vs_gpsdecode_s']
    cmd = '`stepwised --route R --fast --json FILE > /dev/null`'
    rows = [row('Stepwise HEAD (%s)' % meta['head'], cmd, r['HEAD'],
                '**%.2f×** (%s)' % (vs['HEAD']['median'], runs_text(vs['HEAD'], '%.2f'))),
            row('Stepwise BASE (%s)' % meta['base'], cmd, r['BASE'],
                '%.2f× (%s)' % (vs['BASE']['median'], runs_text(vs['BASE'], '%.2f'))),
            row('gpsd %s' % meta['gpsd'], '`gpsdecode < FILE > /dev/null`', r['gpsdecode'], '1×')]
    for name in ('HEAD', 'BASE'):
        t = r['text'][name]
        rows.append(['Stepwise %s, readable output (no PROGRESS lines)' % name,
                     '`stepwised --route R --fast FILE`', runs_text(t['s']),
                     '%.3f s' % t['s']['median'], '%.2f×' % t['s']['spread'],
                     '%d k' % (r['sentences'] / t['s']['median'] / 1000), '',
                     '%.2f×' % (r['gpsdecode']['s']['median'] / t['s']['median']), mib(t['kb'])])
    for name in ('HEAD', 'BASE'):
        t = r['startup'][name]
        rows.append(['Stepwise %s, start-up and route load alone' % name,
                     '`stepwised --route R --fast --json one-epoch.nmea`', runs_text(t['s']),
                     '%.3f s' % t['s']['median'], '%.2f×' % t['s']['spread'], '', '', '',
                     mib(t['kb'])])
    classes = '; '.join('%s: %s' % (name, ', '.join('%d %s' % (v, k) for k, v in sorted(c.items())))
                        for name, c in r['classes'].items())
    return '''Input: `Benchmarks/gen_nmea.py {n}` ({mb} MB, RMC/GGA/GSA/GSV at 1 Hz, about 1 % no-fix
epochs), the generator of `../shared/reference/gpsd-and-nmea.md` §7, guided along a route of
{points} points that follows the track (`Benchmarks/make_routes.py follow`). Events out: {classes}.
HEAD, BASE and gpsdecode run in {rounds} rounds, the order rotated every round, so a change of
load falls on all three; ratios are the medians of the rounds' own ratios. Elapsed time from the
clock around each run, CPU time (user + system) and peak RSS from `wait4`. 1-minute load at the
start of each round: {loads}.

| program | command | runs (s) | median | spread | sentences/s | CPU | vs gpsdecode (rounds) | peak RSS |
|---|---|---|---|---|---|---|---|---|
{rows}

HEAD / BASE elapsed: **{rs}×** (rounds {rsa}); CPU: **{rc}×** (rounds {rca}). In CPU time (all of
stepwised's threads against gpsdecode's one) HEAD is {gc}× gpsdecode. gpsdecode decodes and
prints every report (TPV and SKY); stepwised decodes RMC/GGA/GSA, skips GSV, guides every epoch
and prints one JSON event per fix or more. Goal: stepwised end to end at least 20× gpsdecode:
**{goal}**.'''.format(
        n=r['sentences'], mb=r['mb'], points=r['route_points'], classes=classes,
        rounds=meta['rounds'], loads='; '.join(r['loads']),
        rows='\n'.join('| ' + ' | '.join(map(str, x)) + ' |' for x in rows),
        rs=f(r['ratio_s']['median']), rsa=runs_text(r['ratio_s']), rc=f(r['ratio_cpu']['median']),
        rca=runs_text(r['ratio_cpu']), gc=f(r['vs_gpsdecode_cpu']['HEAD']['median'], '%.2f'),
        goal='met' if vs['HEAD']['median'] >= 20 else 'not met')


def render_nmea(n, meta):
    g = n['gpsdecode']['median']
    rows = [['Stepwise HEAD NMEAReader, in memory', '`StepwiseBench nmea FILE` (best of 3 passes)',
             runs_text(n['HEAD']), '%.3f s' % n['HEAD']['median'], '%.2f×' % n['HEAD']['spread'],
             '%.1f×' % (g / n['HEAD']['median'])],
            ['Stepwise BASE NMEAReader, in memory', 'the same', runs_text(n['BASE']),
             '%.3f s' % n['BASE']['median'], '%.2f×' % n['BASE']['spread'],
             '%.1f×' % (g / n['BASE']['median'])],
            ['gpsd %s' % meta['gpsd'], '`gpsdecode < FILE > /dev/null`', runs_text(n['gpsdecode']),
             '%.3f s' % g, '%.2f×' % n['gpsdecode']['spread'], '1×']]
    if 'pynmea2' in n:
        rows.append(['pynmea2 %s' % n['pynmea2_version'],
                     '`python Benchmarks/pynmea2_parse.py FILE` (`parse()` per line)',
                     runs_text(n['pynmea2']), '%.3f s' % n['pynmea2']['median'],
                     '%.2f×' % n['pynmea2']['spread'], '%.2f×' % (g / n['pynmea2']['median'])])
    return '''The same 1,000,000 sentences parsed and nothing else, HEAD, BASE and gpsdecode in {rounds}
rounds, the order rotated every round (pynmea2: 3 runs); load before / after: {loads}.

{table}

HEAD / BASE: **{ratio:.3f}×** (median of the rounds' ratios).'''.format(rounds=meta['rounds'], loads=' / '.join(n['loads']),
                                       table=table(['reader', 'command', 'runs (s)', 'median',
                                                    'spread', 'vs gpsdecode'], rows),
                                       ratio=n['ratio'])


def render_memory(m, meta):
    rows = []
    for row in m['rows']:
        for name in ('HEAD', 'BASE'):
            d = row[name]
            rows.append([row['kind'], name, d['points'], d['kept'], mib(d['rss_short_kb']),
                         mib(d['rss_long_kb']), '**%.1f** (%s)' % (d['bytes_per_point']['median'],
                                                                  runs_text(d['bytes_per_point'],
                                                                            '%.1f')),
                         '%.1f' % d['peak_bytes_per_point']['median'],
                         '%.1f' % d['daemon_peak_bytes_per_point']['median']])
    diffs = ', '.join('%s %+.1f B' % (row['kind'], row['difference']) for row in m['rows'])
    return '''`StepwiseBench memory ROUTE` reads VmRSS once the document is loaded and the session (route
geometry and matcher index) built; a process with the 1,000,000-point route and one with the
100-point route of the same kind are compared, and the difference in resident memory divided by
the difference in points, so what every process has anyway (the runtime, the phrasebook, the
allocator's arenas) cancels out. *curvenoise* is the curve route with 8 cm of alternating noise
(`make_routes.py curve 1000000 R 0.08`): thinning keeps every point, the worst case; *valhalla* is
the zigzag route as a Valhalla response (`make_routes.py valhalla`). The peak columns do the same
with VmHWM of `StepwiseBench memory` and with the peak RSS of the whole daemon
(`stepwised --route R --fast --json one-epoch.nmea`), which includes what loading needs for a
moment. {rounds} rounds, HEAD and BASE in turn; medians, the rounds in brackets. Load before /
after: {loads}.

{table}

HEAD − BASE, resident bytes per point: {diffs} (at most +{limit:.0f} B: {ok}).'''.format(
        rounds=meta['rounds'], loads=' / '.join(m['loads']),
        table=table(['route', 'build', 'points', 'kept', 'RSS, 100 points', 'RSS, 1,000,000 points',
                     'resident bytes per point', 'peak bytes per point',
                     'daemon peak bytes per point'], rows),
        diffs=diffs, limit=BYTES_PER_POINT_LIMIT,
        ok='**met**' if all(r['difference'] <= BYTES_PER_POINT_LIMIT for r in m['rows'])
        else '**not met**')


def render_footprint(fp, meta):
    if 'missing' in fp:
        return 'Not measured: %s.' % fp['missing']
    rows = []
    for name in ('HEAD', 'BASE'):
        d = fp.get(name, {})
        if 'error' in d:
            rows.append(['%s exited early: %s' % (name, d['error'].replace('\n', ' ')), '', '', '',
                         '', '', '', ''])
            continue
        rows.append(['stepwised %s (%s), 100,000-point route, %s idle subscribers'
                     % (name, meta[name.lower()], d.get('subscribers')), mib(d['rss_kb']),
                     mib(d['anon_kb']), mib(d['file_kb']), mib(d['hwm_kb']), d['threads'],
                     d['fds'], '%d ms in %d s' % (d['ticks'] * 1000 // fp['hz'], fp['idle_s'])])
    rss = fp.get('HEAD', {}).get('rss_kb')
    return '''stepwised on the live source (gpsd {gpsd} `gpsd -N -n -S PORT` with no device): it connects,
sends WATCH and has nothing to do; 100 subscribers connect to its socket and wait
(`Benchmarks/fanout.py hold`). {rounds} rounds, HEAD and BASE in turn; memory from `/proc/PID/status`
once the subscribers are connected (medians: resident = anonymous + file-backed, the latter being
the pages of the binary and its libraries the kernel has mapped, clean and shared with the page
cache), CPU from `/proc/PID/stat` summed over the rounds. Load before / after: {loads}.

{table}

Goals: no CPU while idle; at most 16 MiB resident: **{ok}**.'''.format(
        gpsd=meta['gpsd'], rounds=fp['rounds'], loads=' / '.join(fp['loads']),
        table=table(['daemon', 'resident (VmRSS)', 'anonymous', 'file-backed', 'peak (VmHWM)',
                     'threads', 'descriptors', 'CPU while idle'], rows),
        ok='met' if rss and rss <= 16384 else 'not met')


def render_fanout(fo, meta):
    rows = []
    for name in ('HEAD', 'BASE'):
        d = fo.get(name, {})
        rows.append([name, d.get('clients'), d.get('epochs'), d.get('deliveries'),
                     d.get('complete_epochs'), '%s ms' % d.get('latency_p50_ms'),
                     '**%s ms**' % d.get('latency_p99_ms'), '%s ms' % d.get('latency_max_ms'),
                     '%s / %s ms' % (d.get('first_p50_ms'), d.get('first_p99_ms')),
                     '%s / %s ms' % (d.get('spread_p50_ms'), d.get('spread_p99_ms')),
                     '%s s' % d.get('daemon_cpu_s'), '%s (%s)' % (mib(d.get('daemon_rss_kb')),
                                                                mib(d.get('daemon_hwm_kb'))),
                     '%s / %s' % (d.get('load_before'), d.get('load_after'))])
    d = fo.get('HEAD', {})
    return '''stepwised on the live source (`gpsd://127.0.0.1:PORT`, libgps) fed by the gpsd stand-in of
`Benchmarks/longrun.py` (one epoch every {interval} ms) along the 100,000-point zigzag route, 500
subscribers, each its own Unix socket connection, in {readers} reader processes
(`Benchmarks/fanout_reader.c`, clang `-O2`, one epoll set each) pinned to CPU {rcpu}, stepwised
to CPU {dcpu}; HEAD's run, then BASE's. A delivery's latency runs from the instant the stand-in
wrote the TPV that completes an epoch to the instant a subscriber's `recv` returned that epoch's
`PROGRESS` (CLOCK_MONOTONIC both): libgps, the epoch merger, guidance, one encoding, 500 `send`s
and the reader's wake-up. *First subscriber*: per epoch, the earliest delivery (the path up to
the fan-out); *first to last*: the latest minus the earliest (the fan-out itself). Both move
with the machine's load.

{table}

Goal: p99 at most 5 ms with 500 subscribers.'''.format(
        interval=d.get('interval_ms'), readers=d.get('readers'), rcpu=d.get('reader_cpus'),
        dcpu=d.get('daemon_cpus'),
        table=table(['build', 'subscribers', 'epochs', 'deliveries', 'epochs every subscriber got',
                     'latency p50', 'p99', 'max', 'first subscriber p50 / p99',
                     'first to last p50 / p99', 'daemon CPU', 'daemon RSS (peak)',
                     'load before / after'], rows))


def render_longrun(lr, meta):
    if 'rss_kb_10' not in lr:
        return 'Not measured: `Benchmarks/longrun.py run` gave no figures.'
    grow = int(lr['rss_kb_100']) - int(lr['rss_kb_10'])
    finished = lr.get('failures') == 'none' and int(lr['rss_kb_100']) > 0
    verdict = ('met' if grow <= 256 else 'not met') if finished else 'not judged: the run did not finish'
    return '''`Benchmarks/longrun.py run --epochs {epochs}` with HEAD's stepwised: a gpsd stand-in (gpsd 3.22's
VERSION, DEVICES, WATCH, DEVICE, then one TPV and one SKY per epoch with 10 Hz times, checked
against a real gpsd's lines by `longrun.py check`) writes the epochs as fast as stepwised drains
its socket; stepwised reads them through libgps (`--json --socket`). {stay} subscribers stay
connected throughout; {churn} more connect in rounds of 20, read a few events and leave. VmRSS
from `/proc/PID/status` at every 1 % of the epochs consumed. Load after: {load}.

| epochs sent / consumed | run | epochs/s | daemon CPU | RSS at 10 % | 25 % | 50 % | 100 % | slope from 10 % on | peak (VmHWM) | glibc arenas besides the main one | subscribers that left / joined | problems |
|---|---|---|---|---|---|---|---|---|---|---|---|---|
| {sent} / {consumed} | {seconds} s | {eps} | {cpu} s | {r10} | {r25} | {r50} | **{r100}** | {slope} kB per 100,000 epochs | {hwm} | {arenas} | {done} / {churn} | {failures} |

Goal: memory does not grow with uptime, taken as at most 256 kB more resident at the end than at
10 % of the run: **{ok}** ({grow:+d} kB). `LongRunMemoryTests` runs the same with 12,000 epochs
in CI.'''.format(epochs=lr.get('epochs'), stay=lr.get('stay_clients'), churn=lr.get('churn_clients'),
                 load=lr['loads'][0], sent=lr.get('sent'), consumed=lr.get('consumed'),
                 seconds=lr.get('seconds'), eps=lr.get('epochs_per_second'),
                 cpu=lr.get('daemon_cpu_s'), r10=mib(lr['rss_kb_10']), r25=mib(lr.get('rss_kb_25')),
                 r50=mib(lr.get('rss_kb_50')), r100=mib(lr['rss_kb_100']),
                 slope=lr.get('rss_slope_kb_per_100k'), hwm=mib(lr.get('hwm_kb_end')),
                 arenas=lr.get('extra_arenas'), done=lr.get('churn_completed'),
                 failures=lr.get('failures'), grow=grow, ok=verdict)


def render_reroute(rr, meta):
    if 'missing' in rr:
        return 'Not measured: %s.' % rr['missing']

    def ms(d, key):
        return f(float(d[key]) if d.get(key) else None, '%.1f ms')

    rows = [[name, d.get('reroute_requests'), d.get('reroute_failures'),
             d.get('reroute_connections'), '**%s**' % ms(d, 'reroute_curl_median_ms'),
             ms(d, 'reroute_curl_p99_ms'), ms(d, 'reroute_waited_median_ms'),
             ms(d, 'reroute_waited_p99_ms')] for name, d in rr.items() if name in ('HEAD', 'BASE')]
    return '''`StepwiseBench reroute URL Simulations/001-marais-drive/route.json 500`: 500 Valhalla `/route`
requests ({valhalla}, `valhalla_service` started by `Tests/Valhalla/serve.sh` on 127.0.0.1 with
the `paris_bss` extract, stopped by its pid afterwards) through `RouterClient` (libcurl, one
connection reused), one after another, from origins spread along the Marais drive to its
destination; HEAD's run, then BASE's.

{table}'''.format(valhalla=rr.get('valhalla'),
                  table=table(['build', 'requests', 'failures', 'connections opened',
                               'libcurl total median', 'p99', 'as the caller waits median',
                               'p99'], rows))


TITLES = {'perfix': 'Guidance cost per fix against route length',
          'replay': 'Daemon replay throughput',
          'nmea': 'NMEA parsing alone',
          'memory': 'Resident memory per route point',
          'footprint': 'Daemon footprint and idle CPU',
          'fanout': 'Fan-out to 500 subscribers',
          'longrun': 'A day of 10 Hz fixes through the live gpsd path',
          'reroute': 'Reroute request latency on loopback'}
RENDER = {'perfix': render_perfix, 'replay': render_replay, 'nmea': render_nmea,
          'memory': render_memory, 'footprint': render_footprint, 'fanout': render_fanout,
          'longrun': render_longrun, 'reroute': render_reroute}


def render_sections(results, meta, names):
    parts = []
    for i, name in enumerate(names, 1):
        if name in results:
            parts.append('## %d. %s\n\n%s\n' % (i, TITLES[name], RENDER[name](results[name], meta)))
    return '\n'.join(parts)


def render(results, meta):
    names = [s for s in SECTIONS if s in results]
    summary_rows = verdicts(results)
    return '''# Benchmarks

Generated by `make bench` (`Scripts/bench.py`) on {date}. Do not edit by hand: run it again.

HEAD ({head}) against BASE ({base}: the commit this round starts from; `BENCH_BASE` changes
it), both release builds as the Debian package's (`swift build -c release
--static-swift-stdlib`), BASE with {harness}. Every figure comes from one run of the script,
the two builds and the peers side by side on the same inputs, interleaved, so the ratios are
what matter: absolute times move with the load of this shared machine.

**Machine:** {cpu}, {cores} cores visible, {mem} RAM; {os}, {kernel}; Swift {swift},
gpsd {gpsd}, Python {python}. 1-minute load average before / after the run: {load_before} /
{load_after} (other engineers compile on the same cores); each section records its own.

## Verdict

{verdicts}

{sections}
## Commands

    make bench                                  # or: python3 Scripts/bench.py
    BENCH_BASE=f240cd0 make bench               # another commit to compare with
    BENCH_ROUNDS=9 BENCH_ONLY="perfix memory" python3 Scripts/bench.py   # printed, report untouched
    python3 Scripts/bench.py render             # the report again from bench-data/results.json
    python3 Benchmarks/make_routes.py zigzag POINTS bench-data/zigzag_POINTS.json
    python3 Benchmarks/make_routes.py zigzag-track bench-data/zigzag.nmea
    {head_bin}/StepwiseBench perfix bench-data/zigzag_POINTS.json bench-data/zigzag.nmea {passes}
    valgrind --tool=callgrind --collect-atstart=no --toggle-collect='*ingestLater*' \\
        {head_bin}/StepwiseBench perfix bench-data/zigzag_1000.json bench-data/zigzag.nmea 1
    {head_bin}/StepwiseBench memory bench-data/curvenoise_1000000.json
    {head_bin}/stepwised --route bench-data/follow_{n}.json --fast --json bench-data/bench_{n}.nmea
    gpsdecode < bench-data/bench_{n}.nmea > /dev/null
    python3 Benchmarks/fanout.py live {head_bin}/stepwised bench-data/zigzag_100000.json 500 {fe} 0.04 4
    python3 Benchmarks/longrun.py run --stepwised {head_bin}/stepwised --epochs {lr} --churn-rounds 100 --churn 20 --stay 5
'''.format(date=meta['date'], head=meta['head'], base=meta['base'],
           harness=('HEAD\'s StepwiseBench harness (the same timing code for both)'
                    if meta['harness'] == 'HEAD' else 'its own StepwiseBench'),
           cpu=meta['cpu'], cores=meta['cores'], mem=meta['mem'], os=meta['os'],
           kernel=meta['kernel'], swift=meta['swift'], gpsd=meta['gpsd'], python=meta['python'],
           load_before=meta['load_before'], load_after=meta['load_after'],
           verdicts=table(['measure', 'HEAD', 'BASE', 'HEAD / BASE (spread)', 'limit', 'verdict'],
                          summary_rows),
           sections=render_sections(results, meta, names), head_bin=meta['head_bin'],
           passes=PASSES, n=SENTENCES, fe=FANOUT_EPOCHS, lr=LONGRUN)


def write_report(text):
    tail = ''
    if OUT.exists():
        old = OUT.read_text()
        at = old.find(FLEET_MARKER)
        if at >= 0:
            tail = old[at:]
    tmp = OUT.with_name(OUT.name + '.tmp')
    tmp.write_text(text + ('\n' + tail if tail else ''))
    tmp.rename(OUT)
    say('wrote %s%s' % (OUT, ' (the fleet section kept)' if tail else ''))


def machine():
    cpu = next((line.split(':', 1)[1].strip() for line in open('/proc/cpuinfo')
                if line.startswith('model name')), platform.processor())
    mem = int(next(line.split()[1] for line in open('/proc/meminfo') if line.startswith('MemTotal')))
    osname = next((line.split('=', 1)[1].strip().strip('"') for line in open('/etc/os-release')
                   if line.startswith('PRETTY_NAME=')), platform.system())
    swift = subprocess.run(['swift', '--version'], capture_output=True, text=True)
    found = re.search(r'Swift version (\S+)', swift.stdout + swift.stderr)
    gpsd = subprocess.run(['gpsdecode', '-V'], capture_output=True, text=True)
    gfound = re.search(r'revision ([^\s)]+)', gpsd.stdout + gpsd.stderr)
    return {'cpu': cpu, 'cores': os.cpu_count(), 'mem': '%.1f GiB' % (mem / 1048576), 'os': osname,
            'kernel': '%s %s' % (platform.system(), platform.release()),
            'swift': found.group(1) if found else '?', 'gpsd': gfound.group(1) if gfound else '?',
            'python': platform.python_version()}


def main():
    args = sys.argv[1:]
    results_file = DATA / 'results.json'
    if args and args[0] == 'render':
        saved = json.loads(Path(args[1] if len(args) > 1 else results_file).read_text())
        write_report(render(saved['results'], saved['meta']))
        return
    if args:
        sys.exit(__doc__)
    only = os.environ.get('BENCH_ONLY', '').split()
    for name in only:
        if name not in SECTIONS:
            die('BENCH_ONLY: no section %r (sections: %s)' % (name, ' '.join(SECTIONS)))
    names = only or SECTIONS
    os.chdir(ROOT)
    for tool in ('/usr/bin/gpsdecode', '/usr/bin/time'):
        if not Path(tool).exists():
            die('%s is missing (Scripts/install-deps.sh)' % tool)
    meta = machine()
    meta['load_before'] = loadavg()
    meta['date'] = time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())
    builds = make_builds()
    meta.update(head=builds[0].label, base=builds[1].label, harness=builds[1].harness,
                head_bin=str(builds[0].stepwised.parent), rounds=ROUNDS)
    inputs = Inputs()
    results = {}
    functions = {'perfix': section_perfix, 'replay': section_replay, 'nmea': section_nmea,
                 'memory': section_memory, 'footprint': section_footprint,
                 'fanout': section_fanout, 'longrun': section_longrun,
                 'reroute': section_reroute}
    for name in names:
        wait_quiet(name)
        say('%s (load %s)' % (name, loadavg()))
        started = time.monotonic()
        results[name] = functions[name](builds, inputs)
        results[name]['seconds'] = round(time.monotonic() - started, 1)
        # After every section, so an interrupted run keeps what it measured.
        meta['load_after'] = loadavg()
        results_file.write_text(json.dumps({'meta': meta, 'results': results}, indent=1))
    if only:
        print(table(['measure', 'HEAD', 'BASE', 'HEAD / BASE (spread)', 'limit', 'verdict'],
                    verdicts(results)))
        print()
        print(render_sections(results, meta, names))
        say('BENCH_ONLY: %s left as it was; figures in %s' % (OUT, results_file))
    else:
        write_report(render(results, meta))


if __name__ == '__main__':
    main()
