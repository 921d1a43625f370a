#!/usr/bin/env python3
"""Socket subscribers for Scripts/bench.sh (standard library only).

  fanout.py hold SOCKET N SECONDS
      Connects N subscribers, reads their VERSION and STATE, keeps them connected and reading
      for SECONDS, then prints `connected=N`.

  fanout.py replay SOCKET N FIFO TRACK SPEED
      Opens FIFO for writing (stepwised reads its track from it, so the replay cannot start
      early), connects N subscribers, waits for every VERSION and STATE, then writes TRACK into
      the FIFO and reads every subscriber until the daemon closes them. Prints key=value lines:
      events published, lines delivered, delivery rate, clients that saw every seq without a gap,
      and the latency from fix to the last subscriber (p50, p99, max).

Latency: stepwised paces the replay at SPEED times the fix times, so the fix of an event is due
at t0 + (fix time - first fix time) / SPEED. t0 is calibrated as the earliest (arrival - due)
over all events, so the figures are latencies relative to the fastest delivery seen (an upper
bound on queueing, a lower bound on the total). Arrival is when this process's recv returned:
with 500 sockets in one Python process on a shared 2-core machine, the reader is part of it.
"""
import calendar
import os
import selectors
import socket
import sys
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


def fix_time(line):
    i = line.find(b'"time":"')
    if i < 0:
        return None
    t = line[i + 8:i + 32].decode('ascii', 'replace')  # 2026-11-18T11:06:40.000Z
    try:
        base = calendar.timegm(time.strptime(t[:19], '%Y-%m-%dT%H:%M:%S'))
        return base + float('0' + t[19:23]) if t[19:20] == '.' else base
    except ValueError:
        return None


def seq_of(line):
    i = line.find(b'"seq":')
    if i < 0:
        return None
    j = i + 6
    k = j
    while k < len(line) and 48 <= line[k] <= 57:
        k += 1
    return int(line[j:k]) if k > j else None


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


def replay(path, n, fifo, track, speed):
    w = os.open(fifo, os.O_WRONLY)  # blocks until stepwised opens its end
    socks = connect(path, n)
    r = Reader(socks)
    ready = set()
    end = time.monotonic() + 30
    while len(ready) < n and time.monotonic() < end:
        r.poll(0.5, lambda i, line, now: ready.add(i) if b'"STATE"' in line else None)
    first = {}     # seq -> (first arrival, fix time)
    last = {}      # seq -> last arrival
    per_client = [[] for _ in range(n)]
    lines = [0]

    def on_line(i, line, now):
        s = seq_of(line)
        if s is None:
            return
        lines[0] += 1
        per_client[i].append(s)
        if s not in first:
            first[s] = (now, fix_time(line))
        last[s] = now

    with open(track, 'rb') as f:
        data = f.read()
    # Written in pieces while reading, so a full pipe never blocks the readers.
    view = memoryview(data)
    os.set_blocking(w, False)
    while view:
        try:
            view = view[os.write(w, view[:65536]):]
        except BlockingIOError:
            r.poll(0.01, on_line)
    os.close(w)
    end = time.monotonic() + 600
    while r.open and time.monotonic() < end:
        r.poll(0.5, on_line)
    timed = [(s, a, t) for s, (a, t) in first.items() if t is not None]
    if not timed:
        sys.exit('fanout: no events received')
    t_first_fix = min(t for _, _, t in timed)
    due = {s: (t - t_first_fix) / speed for s, _, t in timed}
    t0 = min(a - due[s] for s, a, _ in timed)
    lat = sorted((last[s] - (t0 + due[s])) * 1000 for s, _, _ in timed)
    gapless = sum(1 for c in per_client if c and c == list(range(c[0], c[0] + len(c))))
    complete = sum(1 for c in per_client if len(c) == len(first))
    span = max(last.values()) - min(a for a, _ in first.values())
    pct = lambda p: lat[min(len(lat) - 1, int(p * len(lat)))]
    print('clients=%d' % n)
    print('events=%d' % len(first))
    print('lines=%d' % lines[0])
    print('seconds=%.2f' % span)
    print('lines_per_second=%d' % (lines[0] / span if span > 0 else 0))
    print('gapless_clients=%d' % gapless)
    print('complete_clients=%d' % complete)
    print('latency_p50_ms=%.1f' % pct(0.50))
    print('latency_p99_ms=%.1f' % pct(0.99))
    print('latency_max_ms=%.1f' % lat[-1])


def main():
    a = sys.argv[1:]
    if len(a) == 4 and a[0] == 'hold':
        hold(a[1], int(a[2]), float(a[3]))
    elif len(a) == 6 and a[0] == 'replay':
        replay(a[1], int(a[2]), a[3], a[4], float(a[5]))
    else:
        sys.exit(__doc__)


if __name__ == '__main__':
    main()
