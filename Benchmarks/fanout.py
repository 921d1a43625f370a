#!/usr/bin/env python3
"""Socket subscribers for Scripts/bench.py (standard library only).

  fanout.py hold SOCKET N SECONDS
      Connects N subscribers, reads their VERSION and STATE, keeps them connected and reading
      for SECONDS, then prints `connected=N`.

  fanout.py live STEPWISED ROUTE N [EPOCHS] [INTERVAL] [READERS]
      Fan-out on the live path: the gpsd stand-in of Benchmarks/longrun.py (paced, one epoch
      every INTERVAL s, default 0.04), stepwised --socket on it through libgps, and N
      subscribers spread over READERS processes (default 4), each waiting on its sockets with
      epoll. The readers are pinned to the last CPU and stepwised to the others when there are
      at least two. Once every subscriber has its STATE, EPOCHS epochs (default 1000) are sent.

      Latency of a delivery: from the instant the stand-in wrote the TPV that completes an
      epoch (the next epoch's: before it, stepwised cannot know the epoch is over) to the
      instant a subscriber's recv returned the PROGRESS of that epoch, both CLOCK_MONOTONIC
      (system-wide on Linux). So the figure is the whole live path: libgps, the epoch merger,
      guidance, one encoding, the write to 500 sockets, and the reader's wake-up. Prints
      key=value lines: p50/p99/max over every delivery; per epoch, of the first subscriber (the
      path up to the fan-out), of the last, and the spread between them (the fan-out itself).
      The readers are Benchmarks/fanout_reader.c, compiled with $CC (default clang, else cc)
      into the scratch directory: it stamps each recv right after it returns. FANOUT_READER=python
      uses this file's `read` instead, as a cross-check: a few microseconds of Python per recv,
      which with 500 subscribers on one CPU adds up to milliseconds of the spread.
      FANOUT_PERF='perf record -g -o FILE' runs that command on stepwised (`-p PID` added)
      while the epochs are sent.

  fanout.py read SOCKET N OUT
      One reader process of `live` (FANOUT_READER=python; fanout_reader.c takes the same
      arguments and does the same): connects N subscribers, prints `ready` once each has its
      STATE, then stamps every recv until standard input closes, and writes `TIME MONO` per
      PROGRESS line received to OUT.
"""
import os
import selectors
import signal
import socket
import subprocess
import sys
import tempfile
import time


def connect(path, n, deadline=30.0):
    end = time.monotonic() + deadline
    socks = []
    while len(socks) < n:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            s.connect(path)
        except OSError:
            s.close()
            if time.monotonic() > end:
                sys.exit('fanout: cannot connect to %s (%d connected)' % (path, len(socks)))
            time.sleep(0.05)
            continue
        s.setblocking(False)
        socks.append(s)
    return socks


class Reader:
    def __init__(self, socks):
        self.sel = selectors.DefaultSelector()
        self.buf = {}
        for i, s in enumerate(socks):
            self.sel.register(s, selectors.EVENT_READ, i)
            self.buf[i] = b''
        self.open = len(socks)

    def poll(self, timeout, on_line):
        for key, _ in self.sel.select(timeout):
            now = time.monotonic()
            try:
                data = key.fileobj.recv(1 << 16)
            except BlockingIOError:
                continue
            except OSError:
                data = b''
            i = key.data
            if not data:
                self.sel.unregister(key.fileobj)
                key.fileobj.close()
                self.open -= 1
                continue
            lines = (self.buf[i] + data).split(b'\n')
            self.buf[i] = lines.pop()
            for line in lines:
                on_line(i, line, now)


def hold(path, n, seconds):
    socks = connect(path, n)
    r = Reader(socks)
    seen = set()
    end = time.monotonic() + seconds
    while time.monotonic() < end and r.open:
        r.poll(0.5, lambda i, line, now: seen.add(i) if b'"STATE"' in line else None)
    print('connected=%d' % r.open)
    print('got_state=%d' % len(seen))


def read(path, n, out):
    socks = connect(path, n)
    sel = selectors.EpollSelector()
    for i, sk in enumerate(socks):
        sel.register(sk, selectors.EVENT_READ, i)
    sel.register(sys.stdin, selectors.EVENT_READ, -1)
    bufs = [b''] * n
    ready = set()
    said = False
    got = []                  # (monotonic, bytes) per recv: parsed once the run is over
    while True:
        events = sel.select(1.0)
        stop = False
        for key, _ in events:
            i = key.data
            if i < 0:
                stop = True
                continue
            try:
                data = key.fileobj.recv(1 << 16)
            except BlockingIOError:
                continue
            now = time.monotonic()
            if not data:
                sel.unregister(key.fileobj)
                continue
            if said:
                got.append((now, i, data))
            else:
                bufs[i] += data
                if b'"STATE"' in bufs[i]:
                    ready.add(i)
                    got.append((now, i, bufs[i]))
                    bufs[i] = b''
        if not said and len(ready) == n:
            print('ready', flush=True)
            said = True
        if stop:
            break
    parts = [b''] * n
    with open(out, 'w') as f:
        for now, i, data in got:
            lines = (parts[i] + data).split(b'\n')
            parts[i] = lines.pop()
            for line in lines:
                if b'"class":"PROGRESS"' in line:
                    j = line.find(b'"time":"')
                    f.write('%s %.6f %d\n' % (line[j + 8:j + 32].decode(), now, i))


def live(binary, route_path, n, epochs, interval, readers):
    here = os.path.dirname(os.path.abspath(__file__))
    scratch = tempfile.mkdtemp(prefix='stepwise-fanout-')
    cpus = sorted(os.sched_getaffinity(0))
    reader_cpus = {cpus[-1]} if len(cpus) > 1 else set(cpus)
    daemon_cpus = set(cpus[:-1]) if len(cpus) > 1 else set(cpus)
    if os.environ.get('FANOUT_PIN', '1') == '0':
        # FANOUT_PIN=0: readers and daemon anywhere, to compare.
        reader_cpus = daemon_cpus = set(cpus)
    stamps = os.path.join(scratch, 'stamps')
    feeder = subprocess.Popen(
        [sys.executable, os.path.join(here, 'longrun.py'), 'paced', str(epochs), str(interval),
         stamps], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    port = int(feeder.stdout.readline().decode().split('=')[1])
    sock = os.path.join(scratch, 'fan.sock')
    os.mkdir(scratch + '/state')
    daemon = subprocess.Popen(
        [binary, '--route', route_path, '--quiet', '--socket', sock, '--max-clients',
         str(n + 10), '--state-dir', scratch + '/state', 'gpsd://127.0.0.1:%d' % port],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
        stderr=open(scratch + '/stepwised.err', 'w'),
        preexec_fn=lambda: os.sched_setaffinity(0, daemon_cpus))
    per = [n // readers + (1 if k < n % readers else 0) for k in range(readers)]
    kind = os.environ.get('FANOUT_READER', 'c')
    if kind == 'python':
        command = [sys.executable, os.path.abspath(__file__), 'read']
    elif kind == 'c':
        command = [compile_reader(here, scratch)]
    else:
        sys.exit('fanout: FANOUT_READER is c or python, not %s' % kind)
    procs = []
    for k, count in enumerate(per):
        procs.append(subprocess.Popen(
            command + [sock, str(count), os.path.join(scratch, 'read.%d' % k)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            preexec_fn=lambda: os.sched_setaffinity(0, reader_cpus)))

    def fail(why):
        # Ends every process this run started, by its own handle, then the run.
        for p in procs + [daemon, feeder] + ([profiler] if profiler else []):
            if p.poll() is None:
                p.kill()
                p.wait()
        subprocess.call(['rm', '-rf', scratch])
        sys.exit('fanout: ' + why)

    profiler = None
    for p in procs:
        if p.stdout.readline().strip() != b'ready':
            fail('a reader did not get ready')
    load_before = open('/proc/loadavg').read().split()[:3]
    if os.environ.get('FANOUT_PERF'):
        # FANOUT_PERF='perf record -g -o FILE': that command on stepwised during the epochs.
        profiler = subprocess.Popen(os.environ['FANOUT_PERF'].split() + ['-p', str(daemon.pid)])
        time.sleep(1.0)
    ticks0 = cpu_ticks(daemon.pid)
    feeder.stdin.write(b'go\n')
    feeder.stdin.flush()
    if feeder.stdout.readline().strip() != b'done':
        fail('the feeder did not finish (stepwised: %s)'
             % open(scratch + '/stepwised.err').read().strip().replace('\n', '; '))
    time.sleep(1.0)           # the last epoch's deliveries
    ticks1 = cpu_ticks(daemon.pid)
    if profiler:
        profiler.send_signal(signal.SIGINT)
        profiler.wait()
    rss, hwm = status_kb(daemon.pid)
    load_after = open('/proc/loadavg').read().split()[:3]
    for p in procs:
        p.stdin.close()
        p.wait()
    daemon.terminate()
    daemon.wait()
    feeder.kill()
    feeder.wait()
    written = {}
    with open(stamps) as f:
        for line in f:
            t, m = line.split()
            written[t] = float(m)
    lat = []
    first = {}
    last = {}
    seen = {}
    for k in range(readers):
        with open(os.path.join(scratch, 'read.%d' % k)) as f:
            for line in f:
                t, m, i = line.split()
                if t not in written:
                    continue
                d = (float(m) - written[t]) * 1000
                lat.append(d)
                last[t] = max(last.get(t, d), d)
                first[t] = min(first.get(t, d), d)
                seen[t] = seen.get(t, 0) + 1
    subprocess.call(['rm', '-rf', scratch])
    if not lat:
        sys.exit('fanout: no PROGRESS received')
    lat.sort()
    worst = sorted(last.values())
    best = sorted(first.values())
    spread = sorted(last[t] - first[t] for t in last)
    pct = lambda a, p: a[min(len(a) - 1, int(p * len(a)))]
    hz = os.sysconf('SC_CLK_TCK')
    print('clients=%d' % n)
    print('readers=%d' % readers)
    print('reader=%s' % kind)
    print('reader_cpus=%s' % ','.join(map(str, sorted(reader_cpus))))
    print('daemon_cpus=%s' % ','.join(map(str, sorted(daemon_cpus))))
    print('epochs=%d' % epochs)
    print('interval_ms=%.0f' % (interval * 1000))
    print('epochs_delivered=%d' % len(last))
    print('complete_epochs=%d' % sum(1 for v in seen.values() if v == n))
    print('deliveries=%d' % len(lat))
    print('latency_p50_ms=%.2f' % pct(lat, 0.50))
    print('latency_p99_ms=%.2f' % pct(lat, 0.99))
    print('latency_max_ms=%.2f' % lat[-1])
    print('first_p50_ms=%.2f' % pct(best, 0.50))
    print('first_p99_ms=%.2f' % pct(best, 0.99))
    print('spread_p50_ms=%.2f' % pct(spread, 0.50))
    print('spread_p99_ms=%.2f' % pct(spread, 0.99))
    print('last_p50_ms=%.2f' % pct(worst, 0.50))
    print('last_p99_ms=%.2f' % pct(worst, 0.99))
    print('last_max_ms=%.2f' % worst[-1])
    print('daemon_cpu_s=%.2f' % ((ticks1 - ticks0) / hz))
    print('daemon_cpu_us_per_delivery=%.2f' % ((ticks1 - ticks0) / hz * 1e6 / len(lat)))
    print('daemon_rss_kb=%d' % rss)
    print('daemon_hwm_kb=%d' % hwm)
    print('load_before=%s' % ' '.join(load_before))
    print('load_after=%s' % ' '.join(load_after))


def compile_reader(here, scratch):
    """Benchmarks/fanout_reader.c built with $CC (default: clang, else cc) into scratch."""
    source = os.path.join(here, 'fanout_reader.c')
    binary = os.path.join(scratch, 'fanout_reader')
    for cc in ([os.environ['CC']] if os.environ.get('CC') else ['clang', 'cc']):
        try:
            if subprocess.call([cc, '-O2', '-o', binary, source]) == 0:
                return binary
        except OSError:
            continue
    sys.exit('fanout: cannot compile %s (set CC, or FANOUT_READER=python)' % source)


def cpu_ticks(pid):
    with open('/proc/%d/stat' % pid) as f:
        fields = f.read().rsplit(')', 1)[1].split()
    return int(fields[11]) + int(fields[12])


def status_kb(pid):
    out = {}
    with open('/proc/%d/status' % pid) as f:
        for line in f:
            k, _, v = line.partition(':')
            if k in ('VmRSS', 'VmHWM'):
                out[k] = int(v.split()[0])
    return out.get('VmRSS', 0), out.get('VmHWM', 0)


def main():
    a = sys.argv[1:]
    if len(a) == 4 and a[0] == 'hold':
        hold(a[1], int(a[2]), float(a[3]))
    elif len(a) == 4 and a[0] == 'read':
        read(a[1], int(a[2]), a[3])
    elif 4 <= len(a) <= 7 and a[0] == 'live':
        live(a[1], a[2], int(a[3]), int(a[4]) if len(a) > 4 else 1000,
             float(a[5]) if len(a) > 5 else 0.04, int(a[6]) if len(a) > 6 else 4)
    else:
        sys.exit(__doc__)


if __name__ == '__main__':
    main()
