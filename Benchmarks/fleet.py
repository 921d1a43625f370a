#!/usr/bin/env python3
"""The fleet uplink under load: N stepwised replays publishing into one mosquitto (standard
library only; needs mosquitto and mosquitto-clients).

  fleet.py run [--vehicles 100] [--speed 4] [--spread 1] [--no-restart]
               [--build release|debug] [--stepwised PATH] [--samples FILE]
      Starts a broker on a free loopback port (its own config and folder), a durable
      dispatcher (mosquitto_sub -V 5 -c, QoS 1, every message stamped with its receive time by
      -F %U), then N `stepwised --mqtt` replays of Simulations/001-marais-drive at SPEED times
      real time, each its own vehicle and state directory, reading its track from standard
      input. The tracks are fed once every vehicle is connected (startup_s: from the first
      start until then), one epoch at a time as receivers deliver fixes, vehicle i starting
      i/N of SPREAD seconds after the first, so that the drives run on a fleet that is up, as
      on the road, rather than on N processes starting and decoding whole tracks at once on
      this machine's cores (measured that way, every latency above 50 ms fell in those first
      seconds; with all N in step, every maneuver of the fleet falls in the same instant). Midway the broker
      is stopped (SIGTERM) and started again 2 s later. Prints key=value lines:
        events / received / missing / out_of_order (after dedupe by boot and seq, per vehicle,
        compared with each daemon's stdout), duplicates, and the latency from the event on the
        daemon's stdout to the dispatcher (p50, p99, max, in ms). Events published from 1 s
        before the broker went down until 10 s after it was back are left out of the latency
        (they wait for the broker and the reconnects by design) and measured apart:
        outage_events, outage_p50_ms / outage_max_ms, and outage_catchup_s, from the broker's
        return until the last event published before it reached the dispatcher. --samples writes one line per event: seconds since the start, latency in ms,
        vehicle, class, and whether it was in the outage window.

  fleet.py cost [--speed 10]
      One replay with and without --mqtt (broker up, nothing else running): user+system CPU
      seconds and peak RSS of stepwised, side by side.

Latency: the i-th non-PROGRESS line of a daemon's --json stdout is the i-th event of its
`events` topic. Its stdout time is when this script's reader got the line (one thread per
daemon), its dispatcher time the receive stamp of mosquitto_sub. Both clocks are this host's
CLOCK_REALTIME. The figure includes the journal's fdatasync, the broker and the dispatcher.
"""
import argparse
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROUTE = os.path.join(ROOT, "Simulations/001-marais-drive/route.json")
TRACK = os.path.join(ROOT, "Simulations/001-marais-drive/drive.nmea")


# Seconds before the daemon's pacing wants an epoch that the run writes it to the daemon.
FEED_LEAD = 0.1


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def listening(port):
    try:
        socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
        return True
    except OSError:
        return False


class Broker:
    """One mosquitto on a free loopback port with its own config and folder (persistence on),
    started and ended by its pid. Subclasses add mosquitto.conf lines by `settings`."""

    autosave_interval = 1

    def __init__(self, folder):
        self.folder = folder
        self.port = free_port()
        os.chmod(folder, 0o1777)
        lines = ["listener %d 127.0.0.1" % self.port, "persistence true",
                 "persistence_location %s/" % folder,
                 "autosave_interval %d" % self.autosave_interval,
                 "max_queued_messages 1000000", "max_inflight_messages 100",
                 "log_dest file %s/mosquitto.log" % folder] + self.settings()
        with open(os.path.join(folder, "mosquitto.conf"), "w") as f:
            f.write("\n".join(lines) + "\n")
        self.proc = None
        self.start()

    def settings(self):
        return ["allow_anonymous true"]

    def start(self):
        self.proc = subprocess.Popen(
            ["mosquitto", "-c", os.path.join(self.folder, "mosquitto.conf")],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        end = time.time() + 10
        while not listening(self.port):
            if time.time() > end:
                sys.exit("fleet: mosquitto did not start")
            time.sleep(0.05)

    def stop(self):
        """SIGTERM (mosquitto saves its database), SIGKILL when it has not ended in 60 s."""
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def binary(build, name, given=None):
    path = given or os.path.join(ROOT, ".build", build, name)
    if not os.access(path, os.X_OK):
        sys.exit("fleet: %s is not built (swift build -c %s)" % (path, build))
    return path


def reader(proc, lines):
    for raw in proc.stdout:
        lines.append((time.time(), raw.rstrip(b"\n")))


def percentile(values, p):
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100.0 * (len(values) - 1))))]


def run(args):
    work = tempfile.mkdtemp(prefix="stepwise-fleet-")
    # mosquitto, started as root, runs as user mosquitto: it must reach its log and database.
    os.chmod(work, 0o755)
    started_procs = []
    broker = None
    try:
        os.mkdir(os.path.join(work, "broker"))
        broker = Broker(os.path.join(work, "broker"))
        url = "mqtt://127.0.0.1:%d" % broker.port
        sub_out = open(os.path.join(work, "dispatcher.txt"), "wb")
        sub = subprocess.Popen(
            ["mosquitto_sub", "-h", "127.0.0.1", "-p", str(broker.port), "-V", "5", "-c",
             "-i", "dispatcher", "-x", "3600", "-q", "1", "-t", "stepwise/+/events",
             "-F", "%U %t %p"], stdout=sub_out, stderr=subprocess.DEVNULL)
        started_procs.append(sub)
        time.sleep(0.5)
        stepwised = binary(args.build, "stepwised", args.stepwised)
        started = time.time()
        daemons = []
        for i in range(args.vehicles):
            vid = "v%03d" % i
            p = subprocess.Popen(
                [stepwised, "--route", ROUTE, "--json", "--replay-speed", str(args.speed),
                 "--state-dir", os.path.join(work, "state-" + vid), "--mqtt", url,
                 "--vehicle", vid, "-"],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
            started_procs.append(p)
            lines = []
            t = threading.Thread(target=reader, args=(p, lines), daemon=True)
            t.start()
            daemons.append((vid, p, lines, t))
        wanted = set(" as %s " % vid for vid, _, _, _ in daemons)
        end = time.time() + 120
        while time.time() < end:
            with open(os.path.join(broker.folder, "mosquitto.log"), errors="replace") as f:
                log = f.read()
            if all(w in log for w in wanted):
                break
            time.sleep(0.2)
        else:
            sys.exit("fleet: not every vehicle connected within 120 s")
        startup = time.time() - started
        # Each epoch (from one $GPRMC to the next) a little before the daemon's own pacing
        # (SPEED times its time stamps) wants it, as a receiver delivers them; vehicle i starts
        # i/N of --spread seconds after the first, so that every maneuver of the whole fleet
        # falls within that spread (one second by default: bursts of N events a second).
        epochs = []
        with open(TRACK, "rb") as f:
            for line in f:
                if line.startswith(b"$GPRMC") or not epochs:
                    stamp = None
                    if line.startswith(b"$GPRMC"):
                        h = line.split(b",")[1]
                        stamp = int(h[0:2]) * 3600 + int(h[2:4]) * 60 + float(h[4:])
                    epochs.append([stamp, b""])
                epochs[-1][1] += line
        first = next(e[0] for e in epochs if e[0] is not None)

        schedule = sorted(
            (((stamp or first) - first) / args.speed + i * args.spread / len(daemons), i, chunk)
            for i in range(len(daemons)) for stamp, chunk in epochs)

        def feed():
            for due, i, chunk in schedule:
                delay = started + due - FEED_LEAD - time.time()
                if delay > 0:
                    time.sleep(delay)
                p = daemons[i][1]
                p.stdin.write(chunk)
                p.stdin.flush()
            for _, p, _, _ in daemons:
                p.stdin.close()
        feeder = threading.Thread(target=feed, daemon=True)
        started = time.time()
        feeder.start()
        outage = None
        if not args.no_restart:
            time.sleep(130.0 / args.speed)
            down = time.time()
            broker.stop()
            time.sleep(2)
            broker.start()
            outage = (down, time.time())
        for _, p, _, t in daemons:
            p.wait()
            t.join()
        # Let the dispatcher take what the journals sent last.
        expected = {}
        for vid, _, lines, _ in daemons:
            expected[vid] = [(ts, l) for ts, l in lines
                             if json.loads(l).get("class") != "PROGRESS"]
        total = sum(len(v) for v in expected.values())
        end = time.time() + 30
        while time.time() < end:
            sub_out.flush()
            with open(os.path.join(work, "dispatcher.txt"), "rb") as f:
                got = sum(1 for _ in f)
            if got >= total:
                break
            time.sleep(0.5)
        time.sleep(1)
        sub.terminate()
        sub.wait()
        sub_out.close()
        received = {}
        last = {}
        dups = 0
        out_of_order = 0
        count = 0
        with open(os.path.join(work, "dispatcher.txt"), "rb") as f:
            for raw in f:
                parts = raw.rstrip(b"\n").split(b" ", 2)
                if len(parts) != 3:
                    continue
                count += 1
                stamp, topic, payload = float(parts[0]), parts[1].decode(), json.loads(parts[2])
                vid = topic.split("/")[-2]
                key = (vid, payload["boot"])
                if key in last and payload["seq"] <= last[key]:
                    dups += 1
                    continue
                last[key] = payload["seq"]
                received.setdefault(vid, []).append((stamp, payload))
        missing = 0
        latencies = []
        outage_events = 0
        outage_last = None
        outage_latencies = []
        early = 0
        samples = []
        for vid, lines in expected.items():
            got = received.get(vid, [])
            for i, (ts, line) in enumerate(lines):
                want = json.loads(line)
                if i >= len(got):
                    missing += 1
                    continue
                have = {k: v for k, v in got[i][1].items() if k not in ("seq", "boot")}
                if have != want:
                    out_of_order += 1
                    continue
                latency = (got[i][0] - ts) * 1000
                in_outage = bool(outage and outage[0] - 1 <= ts <= outage[1] + 10)
                samples.append((ts - started, latency, vid, want.get("class"), in_outage))
                if ts < started:
                    early += 1
                    continue
                if in_outage:
                    outage_events += 1
                    outage_latencies.append(latency)
                    if ts <= outage[1]:
                        outage_last = max(outage_last or 0, got[i][0])
                    continue
                latencies.append(latency)
        print("vehicles=%d" % args.vehicles)
        print("speed=%s" % args.speed)
        print("broker_restarted=%s" % ("no" if args.no_restart else "yes"))
        print("startup_s=%.1f" % startup)
        print("events_before_start=%d" % early)
        print("events=%d" % total)
        print("received=%d" % count)
        print("duplicates=%d" % dups)
        print("missing=%d" % missing)
        print("out_of_order=%d" % out_of_order)
        print("latency_samples=%d" % len(latencies))
        print("latency_p50_ms=%.1f" % percentile(latencies, 50))
        print("latency_p99_ms=%.1f" % percentile(latencies, 99))
        print("latency_max_ms=%.1f" % (max(latencies) if latencies else float("nan")))
        if outage:
            print("outage_s=%.1f" % (outage[1] - outage[0]))
            print("outage_events=%d" % outage_events)
            print("outage_p50_ms=%.1f" % percentile(outage_latencies, 50))
            print("outage_max_ms=%.1f" % (max(outage_latencies) if outage_latencies else 0))
            print("outage_catchup_s=%.1f" % (max(0, (outage_last or outage[1]) - outage[1])))
        if args.samples:
            with open(args.samples, "w") as f:
                for t, latency, vid, cls, in_outage in sorted(samples):
                    f.write("%.3f %.2f %s %s %d\n" % (t, latency, vid, cls, in_outage))
        broker.stop()
        return 0 if missing == 0 and out_of_order == 0 else 1
    finally:
        # Whatever stopped the run, end what it started, by pid.
        for p in started_procs + ([broker.proc] if broker and broker.proc else []):
            if p.poll() is None:
                p.kill()
                p.wait()
        shutil.rmtree(work, ignore_errors=True)


def cost(args):
    work = tempfile.mkdtemp(prefix="stepwise-fleet-cost-")
    try:
        os.mkdir(os.path.join(work, "broker"))
        broker = Broker(os.path.join(work, "broker"))
        stepwised = binary(args.build, "stepwised", args.stepwised)
        results = {}
        for label, extra in (("without", []), ("with", [
                "--mqtt", "mqtt://127.0.0.1:%d" % broker.port, "--vehicle", "cost",
                "--mqtt-progress-interval", "1"])):
            p = subprocess.Popen(
                [stepwised, "--route", ROUTE, "--json", "--replay-speed", str(args.speed),
                 "--state-dir", os.path.join(work, "state-" + label), TRACK] + extra,
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            _, status, usage = os.wait4(p.pid, 0)
            cpu = usage.ru_utime + usage.ru_stime
            results[label] = (cpu, usage.ru_maxrss / 1024.0, status)
        for label, (cpu, rss, status) in results.items():
            print("%s_mqtt_cpu_s=%.3f" % (label, cpu))
            print("%s_mqtt_peak_rss_mib=%.1f" % (label, rss))
            print("%s_mqtt_status=%d" % (label, status))
        broker.stop()
        return 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sp = ap.add_subparsers(dest="command", required=True)
    r = sp.add_parser("run")
    r.add_argument("--vehicles", type=int, default=100)
    r.add_argument("--speed", type=float, default=4)
    r.add_argument("--no-restart", action="store_true")
    r.add_argument("--build", default="release")
    r.add_argument("--stepwised")
    r.add_argument("--samples")
    r.add_argument("--spread", type=float, default=1.0)
    c = sp.add_parser("cost")
    c.add_argument("--speed", type=float, default=10)
    c.add_argument("--build", default="release")
    c.add_argument("--stepwised")
    args = ap.parse_args()
    for tool in ("mosquitto", "mosquitto_sub"):
        if shutil.which(tool) is None and not os.path.exists("/usr/sbin/" + tool):
            sys.exit("fleet: %s is missing (Scripts/install-deps.sh)" % tool)
    os.environ["PATH"] = os.environ.get("PATH", "") + ":/usr/sbin"
    sys.exit(run(args) if args.command == "run" else cost(args))


if __name__ == "__main__":
    main()
