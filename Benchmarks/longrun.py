#!/usr/bin/env python3
"""A day of 10 Hz fixes through stepwised's live gpsd path (standard library only).

  longrun.py route EPOCHS ROUTE.json
      The route the feeder's drive follows: straight 30 km legs near Munich, headings
      alternating 20 and 70 degrees, long enough for EPOCHS epochs at 25 m/s plus 2 km (no
      arrival while fixes come).

  longrun.py serve EPOCHS [PORT]
      A gpsd stand-in on 127.0.0.1:PORT (0 or absent: any free port, printed as `port=P`):
      VERSION on connect, DEVICES/WATCH/DEVICE once the client sends ?WATCH, then EPOCHS
      epochs (one TPV and one SKY each, 10 Hz timestamps) along the route, as fast as the
      client drains its socket. One client; the connection stays open until it leaves.

  longrun.py paced EPOCHS INTERVAL STAMPS
      The same stand-in, paced: waits for a line on standard input (sending a SKY every
      0.5 s meanwhile, as a receiver without a fix), then writes one epoch
      every INTERVAL seconds, and records in STAMPS, for each epoch, its time and the
      CLOCK_MONOTONIC instant (seconds) just before the next epoch's TPV was written: from then
      on gpsd's client can know the epoch is complete (Benchmarks/fanout.py live measures from there).

  longrun.py drain SOCKET N
      N subscribers that read everything until standard input closes (`run`'s staying ones,
      in a process of their own so they keep up); one that stepwised drops for falling behind
      is counted and connected again. Prints the lines received and the drops.

  longrun.py check CAPTURE
      Compares the classes and members of the lines the feeder sends with those of a real
      gpsd's output (a `gpspipe -w` capture through gpsfake): exits 1 on a difference.

  longrun.py run --stepwised BIN --epochs N [--churn-rounds R] [--churn 20] [--stay 5]
                 [--stall-output S] [--timeout S]
      Runs the feeder and `stepwised --json --socket` on it (gpsd://127.0.0.1:P, so libgps and
      GPSDSource do the reading), subscribers connecting and leaving throughout: `--stay` of
      them connected from start to end reading everything, and R rounds of `--churn` that
      connect, read their VERSION, STATE and a few events, and leave. VmRSS, VmHWM and the
      thread count of the daemon are sampled from /proc at every 1 % of the epochs consumed (a
      PROGRESS on its standard output per epoch). Prints key=value lines.
      --stall-output S stops reading the daemon's standard output for S seconds at half the
      run, as a journal that stalls: lines wait in the daemon, whose sink drops the oldest once
      full (then the epochs consumed are counted from the time of the last PROGRESS read, and
      lost_progress says how many lines were dropped). rss_kb_stall is the most VmRSS sampled
      during the stall, rss_kb_settled VmRSS after the last epoch and 2 s more.

Why Python: the feeder only formats lines and writes them to a socket, about 5 us an epoch, and
it runs in a process of its own, so it is not the bottleneck (stepwised is); gpsfake is, at
several milliseconds an epoch. The line templates are gpsd 3.22's own (copied from a gpspipe -w
capture through gpsfake of Benchmarks/gen_nmea.py's track: Tests/Fixtures/gpsd/gpsd-3.22-sky.json),
and `check` keeps them honest.
"""
import calendar
import json
import math
import os
import selectors
import signal
import socket
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_routes import to_latlon, write_route  # noqa: E402

RATE_HZ = 10
SPEED = 25.0                # metres per second
LEG_M = 30_000.0
POINT_EVERY_M = 1_000.0
T0 = 1_795_000_000          # 2026-11-18T11:06:40Z
DEVICE = '/dev/pts/1'
CHUNK_EPOCHS = 256          # epochs formatted and written at once

VERSION = '{"class":"VERSION","release":"3.22","rev":"3.22","proto_major":3,"proto_minor":14}\n'
DEVICES = ('{"class":"DEVICES","devices":[{"class":"DEVICE","path":"%s","activated":"%s",'
           '"native":0,"bps":4800,"parity":"N","stopbits":1,"cycle":0.10}]}\n')
WATCH = ('{"class":"WATCH","enable":true,"json":true,"nmea":false,"raw":0,"scaled":false,'
         '"timing":false,"split24":false,"pps":false}\n')
DEVICE_LINE = ('{"class":"DEVICE","path":"%s","driver":"NMEA0183","activated":"%s","native":0,'
               '"bps":4800,"parity":"N","stopbits":1,"cycle":0.10}\n')
TPV = ('{"class":"TPV","device":"%s","mode":3,"time":"%s","ept":0.005,"lat":%.9f,"lon":%.9f,'
       '"altHAE":568.0000,"altMSL":520.1000,"alt":520.1000,"epx":3.209,"epy":3.554,"epv":9.900,'
       '"track":%.4f,"magtrack":%.4f,"magvar":3.3,"speed":%.3f,"climb":0.000,"epd":6.3854,'
       '"eps":7.11,"epc":19.80,"geoidSep":47.900,"eph":6.900,"sep":13.200}\n')
SATS = [(5, 20.0, 205.0, 22.0), (6, 57.0, 318.0, 42.0), (9, 83.0, 297.0, 41.0),
        (10, 35.0, 50.0, 40.0), (14, 13.0, 142.0, 19.0), (20, 65.0, 100.0, 40.0),
        (22, 54.0, 326.0, 43.0), (26, 32.0, 58.0, 43.0), (27, 69.0, 171.0, 22.0)]
SKY = ('{"class":"SKY","device":"%s","xdop":0.88,"ydop":0.90,"vdop":1.30,"tdop":1.35,'
       '"hdop":2.10,"gdop":2.67,"pdop":2.80,"nSat":%d,"uSat":%d,"satellites":[%s]}\n') % (
    DEVICE, len(SATS), len(SATS) - 1,
    ','.join('{"PRN":%d,"el":%.1f,"az":%.1f,"ss":%.1f,"used":%s,"gnssid":0,"svid":%d}'
             % (p, el, az, ss, 'true' if k < len(SATS) - 1 else 'false', p)
             for k, (p, el, az, ss) in enumerate(SATS)))


def heading(leg):
    return 20.0 if leg % 2 == 0 else 70.0


def corner(leg):
    """Start of leg `leg`, in metres east and north of the origin."""
    x = y = 0.0
    for i in range(leg):
        x += LEG_M * math.sin(math.radians(heading(i)))
        y += LEG_M * math.cos(math.radians(heading(i)))
    return x, y


class Drive:
    """Position along the legs by distance, with the corners cached."""

    def __init__(self):
        self.corners = [(0.0, 0.0)]

    def at(self, s):
        leg = int(s // LEG_M)
        while len(self.corners) <= leg + 1:
            x, y = self.corners[-1]
            h = math.radians(heading(len(self.corners) - 1))
            self.corners.append((x + LEG_M * math.sin(h), y + LEG_M * math.cos(h)))
        x0, y0 = self.corners[leg]
        d = s - leg * LEG_M
        h = heading(leg)
        return x0 + d * math.sin(math.radians(h)), y0 + d * math.cos(math.radians(h)), h


def route(epochs, path):
    total = epochs * SPEED / RATE_HZ + 2_000.0
    drive = Drive()
    steps = []
    s = 0.0
    leg = 0
    while s < total:
        end = min(total, (leg + 1) * LEG_M)
        pl = []
        d = s
        while d < end:
            x, y, _ = drive.at(d)
            pl.append(to_latlon(x, y))
            d += POINT_EVERY_M
        x, y, _ = drive.at(end - 1e-6) if end < total else drive.at(end)
        pl.append(to_latlon(x, y))
        if steps:
            pl.insert(0, steps[-1][-1])
        steps.append(pl)
        s = end
        leg += 1
    write_route(path, steps, 'Long run %d epochs' % epochs)


def stamp(t):
    s = int(t)
    return time.strftime('%Y-%m-%dT%H:%M:%S', time.gmtime(s)) + '.%03dZ' % round((t - s) * 1000)


def epochs_text(first, count, drive, cache):
    out = []
    for i in range(first, first + count):
        sec = T0 + i // RATE_HZ
        base = cache.get(sec)
        if base is None:
            cache.clear()
            base = cache[sec] = time.strftime('%Y-%m-%dT%H:%M:%S', time.gmtime(sec))
        x, y, h = drive.at(i * SPEED / RATE_HZ)
        # A deterministic lateral wobble of up to 1 m, as a receiver's noise.
        w = math.sin(i * 0.37)
        x += w * math.cos(math.radians(h))
        y -= w * math.sin(math.radians(h))
        lat, lon = to_latlon(x, y)
        out.append(TPV % (DEVICE, '%s.%03dZ' % (base, (i % RATE_HZ) * (1000 // RATE_HZ)),
                          lat, lon, h, h + 3.3, SPEED))
        out.append(SKY)
    return ''.join(out).encode()


def accept_watcher(port):
    """Listens, takes one client, and answers its ?WATCH as gpsd does."""
    ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind(('127.0.0.1', port))
    ls.listen(1)
    print('port=%d' % ls.getsockname()[1], flush=True)
    c, _ = ls.accept()
    ls.close()
    c.sendall(VERSION.encode())
    got = b''
    while b'?WATCH' not in got or b';' not in got[got.find(b'?WATCH'):]:
        data = c.recv(4096)
        if not data:
            sys.exit('feeder: client left before ?WATCH')
        got += data
    now = stamp(time.time())
    c.sendall((DEVICES % (DEVICE, now) + WATCH + DEVICE_LINE % (DEVICE, now)).encode())
    c.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return c


def serve(epochs, port):
    c = accept_watcher(port)
    drive = Drive()
    cache = {}
    t = time.monotonic()
    i = 0
    # LONGRUN_MAX_RATE (epochs/s): a ceiling, to tell a backlog in stepwised from other growth.
    ceiling = float(os.environ.get('LONGRUN_MAX_RATE', '0'))
    try:
        while i < epochs:
            n = min(CHUNK_EPOCHS, epochs - i)
            c.sendall(epochs_text(i, n, drive, cache))
            i += n
            if ceiling > 0:
                ahead = t + i / ceiling - time.monotonic()
                if ahead > 0:
                    time.sleep(ahead)
    except OSError as e:
        sys.exit('feeder: client left after %d epochs (%s)' % (i, e))
    print('sent=%d' % i, file=sys.stderr)
    print('send_seconds=%.2f' % (time.monotonic() - t), file=sys.stderr, flush=True)
    # Like gpsd with a receiver gone quiet: keep the connection until the client leaves.
    while c.recv(4096):
        pass


def paced(epochs, interval, stamps):
    c = accept_watcher(0)
    # Until told to go, a SKY every half second, as a receiver without a fix yet: a client that
    # takes seconds to connect its subscribers must not find gpsd silent (stepwised counts 3 s
    # of silence from an active device as a lost connection).
    waiting = selectors.DefaultSelector()
    waiting.register(sys.stdin, selectors.EVENT_READ)
    while not waiting.select(0.5):
        c.sendall(SKY.encode())
    waiting.close()
    sys.stdin.readline()
    drive = Drive()
    cache = {}
    texts = [epochs_text(i, 1, drive, cache) for i in range(epochs + 1)]
    times = [stamp(T0 + i / RATE_HZ) for i in range(epochs + 1)]
    written = []
    due = time.monotonic()
    for i in range(epochs + 1):
        now = time.monotonic()
        if due > now:
            time.sleep(due - now)
        # Stamped before the write: the daemon may read it before this process runs again.
        written.append(time.monotonic())
        c.sendall(texts[i])
        due += interval
    with open(stamps, 'w') as f:
        for i in range(epochs):
            f.write('%s %.6f\n' % (times[i], written[i + 1]))
    print('done', flush=True)
    while c.recv(4096):
        pass


def members(line):
    try:
        o = json.loads(line)
    except ValueError:
        return None
    if not isinstance(o, dict):
        return None
    sats = o.get('satellites')
    inner = tuple(sats[0].keys()) if sats else ()
    devs = o.get('devices')
    if devs:
        inner = tuple(devs[0].keys())
    return o.get('class'), tuple(o.keys()), inner


def check(capture):
    """Every class the feeder sends must appear in the capture with the same members, in the
    same order (the fullest form of each class gpsd sent)."""
    real = {}
    with open(capture) as f:
        for line in f:
            m = members(line)
            if m:
                real.setdefault(m[0], set()).add(m[1:])
    now = stamp(T0)
    ours = [VERSION, DEVICES % (DEVICE, now), WATCH, DEVICE_LINE % (DEVICE, now)]
    ours += epochs_text(0, 2, Drive(), {}).decode().splitlines(True)
    bad = 0
    for line in ours:
        c, keys, inner = members(line)
        if (keys, inner) not in real.get(c, set()):
            print('check: %s differs from every %s gpsd sent: %s' % (c, c, line.strip()))
            bad += 1
    print('check: %d classes compared, %d differ' % (len(ours), bad))
    sys.exit(1 if bad else 0)


def status_kb(pid):
    out = {}
    try:
        with open('/proc/%d/status' % pid) as f:
            for line in f:
                k, _, v = line.partition(':')
                if k in ('VmRSS', 'VmHWM', 'RssAnon', 'RssFile', 'Threads'):
                    out[k] = int(v.split()[0])
    except OSError:
        pass
    return (out.get('VmRSS', 0), out.get('VmHWM', 0), out.get('RssAnon', 0), out.get('RssFile', 0),
            out.get('Threads', 0))


GLIBC_HEAP = 64 << 20   # HEAP_MAX_SIZE on 64-bit: every arena but the main one is one such heap


def arenas(pid):
    """The process's glibc arenas besides the main one: mappings that start on a 64 MiB
    boundary, readable and writable, followed by the reserved (---p) rest of the same 64 MiB."""
    try:
        with open('/proc/%d/maps' % pid) as f:
            rows = [line.split()[:2] for line in f]
    except OSError:
        return -1
    spans = [(int(r[0].split('-')[0], 16), int(r[0].split('-')[1], 16), r[1]) for r in rows]
    count = 0
    for (lo, hi, perms), nxt in zip(spans, spans[1:] + [(0, 0, '')]):
        if lo % GLIBC_HEAP or not perms.startswith('rw'):
            continue
        if hi - lo == GLIBC_HEAP or (nxt[0] == hi and nxt[2].startswith('---')
                                     and nxt[1] - lo == GLIBC_HEAP):
            count += 1
    return count


def last_progress_epoch(data):
    """The epoch (0-based) of the last PROGRESS line in `data`, from its time (T0 + i / RATE_HZ)."""
    at = data.rfind(b'"class":"PROGRESS"')
    start = data.find(b'"time":"', at) + 8
    stamp = data[start:data.find(b'Z"', start)].decode()
    day, clock = stamp.split('T')
    y, mo, d = (int(x) for x in day.split('-'))
    h, mi, sec = clock.split(':')
    seconds = calendar.timegm((y, mo, d, int(h), int(mi), 0)) + float(sec)
    return round((seconds - T0) * RATE_HZ)


def cpu_seconds(pid):
    try:
        with open('/proc/%d/stat' % pid) as f:
            fields = f.read().rsplit(')', 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf('SC_CLK_TCK')
    except OSError:
        return 0.0


def die_with_parent():
    # The feeder and the daemon are ended by pid at the end; PR_SET_PDEATHSIG also ends them
    # if this process is killed first (a test's time limit).
    try:
        import ctypes
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)
    except (OSError, AttributeError):
        pass


def connect(path, seconds=10.0):
    """A subscriber socket, retried while the daemon is not listening yet."""
    end = time.monotonic() + seconds
    while True:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            s.connect(path)
            s.setblocking(False)
            return s
        except OSError:
            s.close()
            if time.monotonic() > end:
                raise
            time.sleep(0.05)


def drain(path, n):
    """Subscribers that stay: in a process of their own, so they keep up with a daemon that
    publishes thousands of events a second (one that stops reading is dropped by stepwised)."""
    socks = [connect(path) for _ in range(n)]
    sel = selectors.EpollSelector()
    for i, s in enumerate(socks):
        sel.register(s, selectors.EVENT_READ, i)
    sel.register(sys.stdin, selectors.EVENT_READ, -1)
    lines = [0] * n
    closed = 0
    print('ready', flush=True)
    while True:
        stop = False
        for key, _ in sel.select():
            i = key.data
            if i < 0:
                stop = True
                continue
            try:
                data = key.fileobj.recv(1 << 18)
            except BlockingIOError:
                continue
            except OSError:
                data = b''
            if not data:
                # Dropped by stepwised for not keeping up (a firehose of thousands of events a
                # second on a loaded machine): counted, and connected again.
                sel.unregister(key.fileobj)
                key.fileobj.close()
                closed += 1
                s = connect(path)
                socks[i] = s
                sel.register(s, selectors.EVENT_READ, i)
                continue
            lines[i] += data.count(b'\n')
        if stop:
            break
    print('lines=%d' % sum(lines))
    print('dropped=%d' % closed, flush=True)


class Subscriber:
    def __init__(self, path, wanted):
        self.sock = connect(path)
        self.lines = 0
        self.wanted = wanted      # lines after which a churning subscriber leaves; None: stays


def run(args):
    o = {'--churn-rounds': '40', '--churn': '20', '--stay': '5', '--timeout': '1800',
         '--stall-output': '0'}
    i = 0
    while i < len(args):
        o[args[i]] = args[i + 1]
        i += 2
    binary, epochs = o['--stepwised'], int(o['--epochs'])
    rounds, churn, stay = int(o['--churn-rounds']), int(o['--churn']), int(o['--stay'])
    scratch = tempfile.mkdtemp(prefix='stepwise-longrun-')
    route_path = os.path.join(scratch, 'route.json')
    route(epochs, route_path)
    feeder = subprocess.Popen([sys.executable, os.path.abspath(__file__), 'serve', str(epochs)],
                              stdout=subprocess.PIPE, stderr=open(scratch + '/feeder.err', 'w'),
                              preexec_fn=die_with_parent)
    port = int(feeder.stdout.readline().decode().split('=')[1])
    sock_path = os.path.join(scratch, 'stepwised.sock')
    os.mkdir(scratch + '/state')
    daemon = subprocess.Popen(
        [binary, '--route', route_path, '--json', '--socket', sock_path, '--max-clients',
         str(stay + churn + 10), '--state-dir', scratch + '/state', 'gpsd://127.0.0.1:%d' % port],
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
        stderr=open(scratch + '/stepwised.err', 'w'), preexec_fn=die_with_parent)
    sel = selectors.DefaultSelector()
    os.set_blocking(daemon.stdout.fileno(), False)
    sel.register(daemon.stdout, selectors.EVENT_READ, None)
    t_start = time.monotonic()
    deadline = t_start + float(o['--timeout'])
    progress = 0
    tail = b''
    smaps = os.environ.get('LONGRUN_SMAPS')
    samples = []              # (epochs consumed, VmRSS, VmHWM, RssAnon, RssFile kB, threads)
    next_sample = 0
    step = max(1, epochs // 100)
    churn_every = max(1, epochs // (rounds + 1)) if rounds else epochs + 1
    next_churn = churn_every
    stayers = None
    churners = []
    churn_done = churn_started = 0
    failures = []
    ended = None
    stall_seconds = float(o['--stall-output'])
    stall_until = None        # monotonic time the stall ends, while standard output is not read
    stall_rss = 0
    lines_read = 0            # PROGRESS lines read; `progress` is the last one's epoch + 1
    while progress < epochs:
        if time.monotonic() > deadline:
            failures.append('timeout')
            break
        if stayers is None and os.path.exists(sock_path):
            stayers = subprocess.Popen(
                [sys.executable, os.path.abspath(__file__), 'drain', sock_path, str(stay)],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, preexec_fn=die_with_parent)
            stayers.stdout.readline()
        if stayers is not None and progress >= next_churn and churn_started < rounds * churn:
            next_churn += churn_every
            for _ in range(churn):
                s = Subscriber(sock_path, 5)
                sel.register(s.sock, selectors.EVENT_READ, s)
                churners.append(s)
                churn_started += 1
        if stall_seconds and stall_until is None and progress >= epochs // 2:
            sel.unregister(daemon.stdout)
            stall_until = time.monotonic() + stall_seconds
        if stall_until is not None and stall_until > 0:
            stall_rss = max(stall_rss, status_kb(daemon.pid)[0])
            if time.monotonic() >= stall_until:
                sel.register(daemon.stdout, selectors.EVENT_READ, None)
                stall_until = 0
        for key, _ in sel.select(0.5 if stall_until is None or stall_until == 0 else 0.05):
            sub = key.data
            try:
                data = key.fileobj.read() if sub is None else key.fileobj.recv(1 << 16)
            except BlockingIOError:
                continue
            except OSError:
                data = b''
            if sub is None:
                if not data:
                    ended = daemon.poll()
                    sel.unregister(key.fileobj)
                    failures.append('stepwised ended its output after %d epochs' % progress)
                    break
                data = tail + data
                cut = data.rfind(b'\n') + 1
                read_now = data.count(b'"class":"PROGRESS"', 0, cut)
                lines_read += read_now
                if stall_seconds and read_now:
                    progress = max(progress, last_progress_epoch(data[:cut]) + 1)
                else:
                    progress += read_now
                tail = data[cut:]
                while progress >= next_sample:
                    samples.append((progress,) + status_kb(daemon.pid))
                    if smaps and len(samples) in (11, 101):
                        # LONGRUN_SMAPS=DIR: the daemon's mappings at 10 % and 100 %, to see
                        # which ones grow.
                        subprocess.call(['cp', '/proc/%d/smaps' % daemon.pid,
                                         '%s/smaps.%d' % (smaps, len(samples) - 1)])
                    next_sample += step
                continue
            if not data:
                sel.unregister(sub.sock)
                sub.sock.close()
                churners.remove(sub)
                continue
            sub.lines += data.count(b'\n')
            if sub.wanted is not None and sub.lines >= sub.wanted:
                sel.unregister(sub.sock)
                sub.sock.close()
                churners.remove(sub)
                churn_done += 1
        if failures:
            break
    seconds = time.monotonic() - t_start
    settled = 0
    if stall_seconds:
        # What stays of the stall's backlog once the daemon has been idle for 2 s.
        time.sleep(2)
        settled = status_kb(daemon.pid)[0]
    last = status_kb(daemon.pid)
    cpu = cpu_seconds(daemon.pid)
    extra_arenas = arenas(daemon.pid)
    samples.append((progress,) + last)
    stay_lines = closed = 0
    if stayers is not None:
        stayers.stdin.close()
        out = dict(line.decode().strip().split('=', 1) for line in stayers.stdout)
        stayers.wait()
        stay_lines, closed = int(out.get('lines', 0)), int(out.get('dropped', 0))
    daemon.send_signal(signal.SIGTERM)
    try:
        ended = daemon.wait(10)
    except subprocess.TimeoutExpired:
        daemon.kill()
        ended = daemon.wait()
        failures.append('stepwised did not end on SIGTERM')
    feeder.kill()
    feeder.wait()
    with open(scratch + '/feeder.err') as f:
        sent = dict(line.strip().split('=', 1) for line in f if '=' in line)

    def at(fraction):
        want = epochs * fraction
        return next((s for s in samples if s[0] >= want), samples[-1])

    # Least-squares slope of VmRSS over the epochs from 10 % on (start-up and the first
    # subscribers' buffers left out), in kB per 100,000 epochs.
    tail_samples = [s for s in samples if s[0] >= epochs * 0.1] or samples
    n = len(tail_samples)
    mx = sum(s[0] for s in tail_samples) / n
    my = sum(s[1] for s in tail_samples) / n
    sxx = sum((s[0] - mx) ** 2 for s in tail_samples)
    slope = (sum((s[0] - mx) * (s[1] - my) for s in tail_samples) / sxx * 100_000) if sxx else 0.0
    print('epochs=%d' % epochs)
    print('sent=%s' % sent.get('sent', 0))
    print('send_seconds=%s' % sent.get('send_seconds', ''))
    print('consumed=%d' % progress)
    print('seconds=%.2f' % seconds)
    print('epochs_per_second=%d' % (progress / seconds if seconds > 0 else 0))
    print('daemon_cpu_s=%.2f' % cpu)
    print('stay_clients=%d' % (stay if stayers is not None else 0))
    print('stay_lines=%d' % stay_lines)
    print('stay_dropped=%d' % closed)
    print('churn_clients=%d' % churn_started)
    print('churn_completed=%d' % churn_done)
    for name, fr in (('10', 0.10), ('25', 0.25), ('50', 0.50), ('100', 1.0)):
        print('rss_kb_%s=%d' % (name, at(fr)[1]))
        print('anon_kb_%s=%d' % (name, at(fr)[3]))
        print('file_kb_%s=%d' % (name, at(fr)[4]))
        print('threads_%s=%d' % (name, at(fr)[5]))
    if stall_seconds:
        print('rss_kb_stall=%d' % stall_rss)
        print('rss_kb_settled=%d' % settled)
        print('lost_progress=%d' % (progress - lines_read))
    print('hwm_kb_end=%d' % samples[-1][2])
    print('threads_max=%d' % max(s[5] for s in samples))
    print('extra_arenas=%d' % extra_arenas)
    print('rss_slope_kb_per_100k=%.1f' % slope)
    print('samples=%s' % ' '.join('%d:%d' % (s[0], s[1]) for s in samples))
    print('daemon_status=%s' % ended)
    print('failures=%s' % ('; '.join(failures) or 'none'))
    if failures:
        with open(scratch + '/stepwised.err') as f:
            sys.stderr.write(f.read()[-2000:])
    subprocess.call(['rm', '-rf', scratch])
    sys.exit(1 if failures else 0)


def main():
    a = sys.argv[1:]
    if len(a) == 3 and a[0] == 'route':
        route(int(a[1]), a[2])
    elif len(a) in (2, 3) and a[0] == 'serve':
        serve(int(a[1]), int(a[2]) if len(a) == 3 else 0)
    elif len(a) == 4 and a[0] == 'paced':
        paced(int(a[1]), float(a[2]), a[3])
    elif len(a) == 3 and a[0] == 'drain':
        drain(a[1], int(a[2]))
    elif len(a) == 2 and a[0] == 'check':
        check(a[1])
    elif a and a[0] == 'run' and len(a) % 2 == 1:
        run(a[1:])
    else:
        sys.exit(__doc__)


if __name__ == '__main__':
    main()
