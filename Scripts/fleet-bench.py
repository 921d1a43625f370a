#!/usr/bin/env python3
"""The fleet at scale: N simulated vehicles into a three-node RabbitMQ cluster and into one
mosquitto, side by side in one run (`make bench-fleet`; standard library only).

  fleet-bench.py [--sizes 1000,3000,10000] [--seconds 60] [--kill-size 1000]
                 [--kill-seconds 90] [--daemons 20] [--stepwised PATH]
                 [--write docs/benchmarks.md] [--work DIR]

For each size, one run on each broker of Benchmarks/fleet_load.c (built here with cc and
libmosquitto): N vehicles publishing what `stepwised --mqtt` publishes (a real daemon's recorded
payloads, seq and boot their own) at one message a second on events/progress, plus the
retained state the daemon publishes 1 s after them, each with its own account; one durable
dispatcher subscribed as `stepwise fleet` is, through which every message's delivery latency
is measured (from the vehicle's hand-over to libmosquitto to the dispatcher's callback; one
clock). The cluster's vehicles are spread over its three nodes (vehicle i starts at node i mod
3) and list all three; the dispatcher is on node 3. Broker CPU (user + system, over the
publishing seconds, from /proc) and resident memory (at the end of them; the cluster's is the
sum of its three nodes) are read per broker process, and the load average of this shared
machine is recorded with each run. Beside the simulated vehicles, --daemons real `stepwised
--mqtt` (20 by default; .build/release/stepwised, else debug, or --stepwised) replay
Simulations/001 into the same broker during each measured run, each with its own account; a
durable subscriber of their `events` (an account of its own) must get every event each printed,
in order, none missing after dedupe (the failure runs included).

Then the failure runs at --kill-size vehicles: on the cluster, node 1 is killed with SIGKILL a
third into the publishing and started again 15 s later (it rejoins); on mosquitto (which has no
other node to fail over to) the broker is stopped (SIGTERM: its persistence is saved) at the
same moment and started again 2 s later. Every message must reach the dispatcher, in order per
vehicle, none missing after dedupe, and on the cluster every vehicle that lost its node must be
connected to another within 10 s.

Both brokers run on loopback under this script, each process ended by its pid (the cluster's
nodes and epmd by Scripts/rabbitmq-cluster.sh stop). The open-files limit is raised for the
brokers and the generator (root may raise the hard limit).

--write FILE replaces everything from the line
    <!-- fleet benchmarks: written by make bench-fleet -->
to the end of FILE (appending it when missing) with the tables; without it the tables are
printed.
"""
import argparse
import base64
import hashlib
import json
import os
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "Benchmarks"))
from fleet import ROUTE, TRACK, Broker, free_port  # noqa: E402  (Benchmarks/fleet.py)
from longrun import cpu_seconds  # noqa: E402
MARKER = "<!-- fleet benchmarks: written by make bench-fleet -->"
CLUSTER = os.path.join(ROOT, "Scripts", "rabbitmq-cluster.sh")
DISPATCHER = ("dispatcher", "pw-dispatcher")
PREFIX = "fl"
# The real `stepwised` in every run (--daemons), and the durable subscriber that checks them.
REAL_PREFIX = "sw"
REAL_READER = ("realreader", "pw-realreader")


def log(*args):
    print("fleet-bench:", *args, file=sys.stderr, flush=True)


def raise_files(n):
    """Lets this process and its children open n files: the soft limit up to the hard one
    (raising the hard one needs CAP_SYS_RESOURCE, which a container may not give even to
    root); says so when that is short of n."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = max(soft, n)
    try:
        resource.setrlimit(resource.RLIMIT_NOFILE, (want, max(hard, want)))
    except (ValueError, OSError):
        want = max(soft, min(n, hard))
        resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
        if want < n:
            log("open files limited to %d (hard limit), %d wanted" % (want, n))
    return want


def rss_mib(pid):
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024.0
    except OSError:
        pass
    return 0.0


def vehicle_ids(n):
    return ["%s%05d" % (PREFIX, i) for i in range(n)]


def real_ids(n):
    return ["%s%02d" % (REAL_PREFIX, i) for i in range(n)]


STEPWISED = []


def stepwised_binary():
    if STEPWISED:
        return STEPWISED[0]
    for build in ("release", "debug"):
        path = os.path.join(ROOT, ".build", build, "stepwised")
        if os.access(path, os.X_OK):
            return path
    sys.exit("fleet-bench: stepwised is not built (swift build -c release --product stepwised)")


class RealDaemons:
    """Real `stepwised --mqtt` replays in the same run as the simulated fleet, each with its own
    account, publishing into the same broker, and a durable subscriber (its own account, read
    only) on their `events` topics: at the end every event a daemon printed must have reached
    the subscriber, in order, none missing after dedupe by (boot, seq)."""

    def __init__(self, work, broker, n, seconds, mqtt311):
        self.ids = real_ids(n)
        self.folder = os.path.join(work, "daemons-%s-%d" % (broker.name[:4], int(time.time())))
        os.makedirs(self.folder)
        host, port = broker.brokers().split(",")[-1].split(":")
        argv = ["mosquitto_sub", "-h", host, "-p", port, "-c", "-i", REAL_READER[0], "-q", "1",
                "-u", REAL_READER[0], "-P", REAL_READER[1], "-v",
                "-V", "mqttv311" if mqtt311 else "5"]
        if not mqtt311:
            argv += ["-x", "3600"]
        for v in self.ids:
            argv += ["-t", "stepwise/%s/events" % v]
        self.received = open(os.path.join(self.folder, "received.txt"), "wb")
        self.reader = subprocess.Popen(argv, stdout=self.received, stderr=subprocess.DEVNULL)
        time.sleep(1)
        # The drive (about 400 s of fixes) paced to end within the run's publishing seconds.
        speed = "%.2f" % max(1.0, 420.0 / max(seconds, 1))
        urls = ",".join("mqtt://" + b for b in broker.brokers().split(","))
        self.procs = []
        for v in self.ids:
            credentials = os.path.join(self.folder, v + ".credentials")
            with open(credentials, "w") as f:
                f.write("%s\npw-%s\n" % (v, v))
            argv = [stepwised_binary(), "--route", ROUTE, "--json", "--state-dir",
                    os.path.join(self.folder, "state-" + v), "--mqtt", urls, "--vehicle", v,
                    "--mqtt-credentials", credentials, "--mqtt-keepalive", "5",
                    "--replay-speed", speed, TRACK]
            if mqtt311:
                argv += ["--mqtt-protocol", "3.1.1"]
            out = open(os.path.join(self.folder, v + ".out"), "wb")
            err = open(os.path.join(self.folder, v + ".err"), "wb")
            self.procs.append((v, subprocess.Popen(argv, stdout=out, stderr=err), out, err))

    def finish(self, timeout):
        """Waits for the daemons (at most `timeout` s), then for their events to arrive (at
        most 60 s more); returns what the report says of them."""
        end = time.time() + timeout
        for _, p, out, err in self.procs:
            try:
                p.wait(timeout=max(1, end - time.time()))
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
            out.close()
            err.close()
        # What each daemon printed (standard output has no seq or boot) but PROGRESS, which goes
        # to the progress topic.
        expected = {}
        for v, p, _, _ in self.procs:
            with open(os.path.join(self.folder, v + ".out")) as f:
                expected[v] = [self.same(json.loads(line)) for line in f if line.startswith("{")
                               and '"class":"PROGRESS"' not in line]
        wanted = sum(len(e) for e in expected.values())
        got = {}
        end = time.time() + 60
        while True:
            got = self.collect()
            if sum(len(g) for g in got.values()) >= wanted or time.time() > end:
                break
            time.sleep(0.5)
        self.reader.terminate()
        self.reader.wait()
        self.received.close()
        missing = out_of_order = 0
        for v, lines in expected.items():
            arrived = got.get(v, [])
            out_of_order += sum(1 for a, b in zip(arrived, arrived[1:]) if b[0] <= a[0])
            left = {}
            for _, line in arrived:
                left[line] = left.get(line, 0) + 1
            for line in lines:
                if left.get(line, 0) > 0:
                    left[line] -= 1
                else:
                    missing += 1
        return {"daemons": len(self.procs),
                "daemons_exited_ok": sum(1 for _, p, _, _ in self.procs if p.returncode == 0),
                "daemon_events": wanted, "daemon_delivered": wanted - missing,
                "daemon_missing": missing, "daemon_out_of_order": out_of_order}

    @staticmethod
    def same(o):
        """An event as a comparable line, without the uplink's seq and boot."""
        o.pop("seq", None)
        o.pop("boot", None)
        return json.dumps(o, sort_keys=True)

    def collect(self):
        """Each daemon's events as received, deduped by (boot, seq), in arrival order: (seq,
        the event without seq and boot)."""
        self.received.flush()
        got, seen = {}, set()
        with open(os.path.join(self.folder, "received.txt"), errors="replace") as f:
            for line in f:
                topic, _, payload = line.partition(" ")
                parts = topic.split("/")
                try:
                    o = json.loads(payload)
                except ValueError:
                    continue
                if len(parts) != 3 or (parts[1], o.get("boot"), o.get("seq")) in seen:
                    continue
                seen.add((parts[1], o.get("boot"), o.get("seq")))
                got.setdefault(parts[1], []).append((o.get("seq", 0), self.same(o)))
        return got


class Mosquitto(Broker):
    """Benchmarks/fleet.py's broker with accounts: a password file (the vehicles' and the
    dispatcher's) and docs/fleet/mosquitto.acl, each user's name its client id."""

    name = "mosquitto"
    # The database is saved every 30 s rather than every second: the run measures the broker
    # serving the fleet, not rewriting a database of thousands of sessions.
    autosave_interval = 30

    def __init__(self, folder, vehicles, daemons=0):
        os.makedirs(folder)
        os.chmod(folder, 0o1777)  # started as root, mosquitto runs as user mosquitto
        self.passwd = os.path.join(folder, "passwd")
        with open(self.passwd, "w") as f:
            for v in vehicle_ids(vehicles) + real_ids(daemons):
                f.write("%s:pw-%s\n" % (v, v))
            f.write("%s:%s\n" % DISPATCHER)
            f.write("%s:%s\n" % REAL_READER)
        subprocess.run(["mosquitto_passwd", "-U", self.passwd], check=True)
        os.chmod(self.passwd, 0o644)
        self.acl = os.path.join(folder, "stepwise.acl")
        shutil.copyfile(os.path.join(ROOT, "docs/fleet/mosquitto.acl"), self.acl)
        with open(self.acl, "a") as f:
            f.write("\nuser %s\ntopic read stepwise/+/events\n" % REAL_READER[0])
        os.chmod(self.acl, 0o644)
        Broker.__init__(self, folder)

    def settings(self):
        return ["per_listener_settings false", "allow_anonymous false",
                "password_file " + self.passwd, "acl_file " + self.acl,
                "use_username_as_clientid true"]

    def brokers(self):
        return "127.0.0.1:%d" % self.port

    def pids(self):
        return [self.proc.pid]

    def fail(self):
        """A clean stop (persistence saved), started again 2 s later."""
        self.stop()
        time.sleep(2)
        self.start()


def password_hash(password):
    """RabbitMQ's rabbit_password_hashing_sha256: base64(salt + sha256(salt + password))."""
    salt = os.urandom(4)
    return base64.b64encode(salt + hashlib.sha256(salt + password.encode()).digest()).decode()


def write_definitions(path, ids):
    """RabbitMQ definitions (rabbitmqctl import_definitions) of vehicle accounts with the
    permissions of `rabbitmq-cluster.sh user NAME PASSWORD vehicle`, password pw-NAME."""
    users, perms, topics = [], [], []
    for v in ids:
        own = "^mqtt-subscription-%sqos[01]$" % v
        users.append({"name": v, "password_hash": password_hash("pw-" + v),
                      "hashing_algorithm": "rabbit_password_hashing_sha256", "tags": []})
        perms.append({"user": v, "vhost": "stepwise", "configure": own,
                      "write": own + "|^amq\\.topic$", "read": own + "|^amq\\.topic$"})
        topics.append({"user": v, "vhost": "stepwise", "exchange": "amq.topic",
                       "write": "^stepwise\\.%s\\." % v,
                       "read": "^stepwise\\.%s\\.command$" % v})
    with open(path, "w") as f:
        json.dump({"users": users, "permissions": perms, "topic_permissions": topics}, f)


class Cluster:
    name = "RabbitMQ ×3"

    def __init__(self, folder, prefetch, queue_type):
        self.folder = folder
        self.prefetch = prefetch
        self.queue_type = queue_type
        self.env_file = os.path.join(folder, "cluster.env")
        started = time.time()
        r = self.script("start", timeout=300)
        if r.returncode != 0:
            self.stop()
            sys.exit("fleet-bench: the cluster did not start:\n" + r.stderr)
        self.start_s = time.time() - started
        self.accounts = 0
        self.add_account(*DISPATCHER, "dispatcher")
        self.add_account(*REAL_READER, "dispatcher")
        self.daemon_accounts = False

    def add_daemons(self, n):
        """Accounts sw00 … for the real daemons, as vehicles."""
        if self.daemon_accounts or n == 0:
            return
        path = os.path.join(self.folder, "daemons.json")
        write_definitions(path, real_ids(n))
        r = self.script("definitions", path, timeout=300)
        if r.returncode != 0:
            sys.exit("fleet-bench: cannot import the daemons' accounts: " + r.stderr)
        self.daemon_accounts = True

    def script(self, *args, timeout=300):
        env = dict(os.environ, RABBITMQ_CLUSTER_PORT=os.environ.get("RABBITMQ_CLUSTER_PORT",
                                                                    "27700"),
                   RABBITMQ_MQTT_PREFETCH=str(self.prefetch),
                   RABBITMQ_MQTT_QUEUE_TYPE=self.queue_type)
        # The nodes keep the script's stdout: a file, not a pipe whose reader would wait on them.
        with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
            p = subprocess.run(["sh", CLUSTER, args[0], self.folder] + list(args[1:]),
                               env=env, stdout=out, stderr=err, timeout=timeout)
            err.seek(0)
            p.stderr = err.read().decode(errors="replace")
            out.seek(0)
            p.stdout = out.read().decode(errors="replace")
        return p

    def env(self):
        values = {}
        with open(self.env_file) as f:
            for line in f:
                k, _, v = line.strip().partition("=")
                values[k] = v
        return values

    def add_account(self, name, password, role):
        r = self.script("user", name, password, role, timeout=120)
        if r.returncode != 0:
            sys.exit("fleet-bench: cannot add %s: %s" % (name, r.stderr))

    def add_vehicles(self, n):
        """Accounts fl00000 … as `rabbitmq-cluster.sh user … vehicle` makes them, imported in
        one go (one rabbitmqctl call per account would take a second each)."""
        if n <= self.accounts:
            return
        path = os.path.join(self.folder, "vehicles-%d.json" % n)
        write_definitions(path, vehicle_ids(n)[self.accounts:])
        started = time.time()
        r = self.script("definitions", path, timeout=900)
        if r.returncode != 0:
            sys.exit("fleet-bench: cannot import the vehicles' accounts: " + r.stderr)
        log("%d accounts imported in %.0f s" % (n - self.accounts, time.time() - started))
        self.accounts = n

    def brokers(self):
        e = self.env()
        return ",".join("127.0.0.1:%s" % e["MQTT_PORT_%d" % i] for i in (1, 2, 3))

    def pids(self):
        e = self.env()
        return [int(e["PID_%d" % i]) for i in (1, 2, 3)]

    def backlog(self):
        """The dispatcher's queue now (asked of node 3, which is never killed): messages
        waiting and messages delivered but not yet acknowledged."""
        r = self.script("ctl", "3", "-q", "list_queues", "-p", "stepwise", "name",
                        "messages_ready", "messages_unacknowledged", timeout=60)
        for line in r.stdout.splitlines() if r.returncode == 0 else []:
            f = line.split()
            if len(f) == 3 and f[0] == "mqtt-subscription-%sqos1" % DISPATCHER[0]:
                return int(f[1]), int(f[2])
        return None

    def fail(self):
        """Node 1 killed with SIGKILL, started again 15 s later (it rejoins from its data)."""
        os.kill(self.pids()[0], signal.SIGKILL)
        time.sleep(15)
        started = time.time()
        r = self.script("start-node", "1", timeout=300)
        self.restart_s = time.time() - started
        if r.returncode != 0:
            log("node 1 did not start again: " + r.stderr)

    def stop(self):
        if os.path.exists(self.env_file):
            self.script("stop", timeout=300)


def build_generator(work):
    out = os.path.join(work, "fleet_load")
    subprocess.run(["cc", "-O2", "-o", out, os.path.join(ROOT, "Benchmarks/fleet_load.c"),
                    "-lmosquitto", "-lm", "-lpthread"], check=True)
    return out


def load_average():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


# Vehicles per generator process: each libmosquitto client holds three descriptors, and the
# hard open-files limit (20,000 in the container this was written in) may not be raised.
PER_PROCESS = int(os.environ.get("FLEET_PER_PROCESS", "5000"))
# Seconds a generator process may take to have all its vehicles connected at once.
CONNECT_TIMEOUT = 120


def run_fleet(generator, broker, n, seconds, fail_at=None, mqtt311=False, daemons=0, work=None):
    """One run of the generator against `broker`; returns its key=value report plus the
    broker's CPU and memory over the publishing seconds. Beyond PER_PROCESS vehicles the
    others run in more processes without a dispatcher (started first, publishing through the
    measured seconds): the measuring process's vehicles are the sample."""
    common = [generator, "--brokers", broker.brokers(), "--recording",
              os.path.join(ROOT, "Benchmarks/fleet-recording.txt"), "--prefix", PREFIX,
              "--password-prefix", "pw-", "--connect-rate", "500", "--connect-timeout",
              str(CONNECT_TIMEOUT)]
    if mqtt311:
        common.append("--mqtt311")
    log("%s: %d vehicles, %d s%s" % (broker.name, n, seconds,
                                     ", with a failure" if fail_at is not None else ""))
    report = {"load_before": load_average(), "measured_vehicles": min(n, PER_PROCESS)}
    helpers = []
    for first in range(PER_PROCESS, n, PER_PROCESS):
        h = subprocess.Popen(common + ["--first", str(first), "--vehicles",
                                       str(min(PER_PROCESS, n - first)), "--seconds",
                                       str(seconds + 600), "--no-dispatcher"],
                             stdout=subprocess.PIPE, text=True)
        helpers.append(h)
        line = h.stdout.readline().strip()
        if not line.startswith("connect_s="):
            report["result"] = "fail"
            report["error"] = "vehicles from %d: %s" % (first, line or "no answer")
    if report.get("result") == "fail":
        for h in helpers:
            h.kill()
            h.wait()
        return report
    proc = subprocess.Popen(common + ["--vehicles", str(min(n, PER_PROCESS)), "--seconds",
                                      str(seconds), "--dispatcher", "%s:%s" % DISPATCHER,
                                      "--drain", "120"], stdout=subprocess.PIPE, text=True)
    first = proc.stdout.readline().strip()
    if not first.startswith("connect_s="):
        proc.wait()
        for h in helpers:
            h.kill()
            h.wait()
        report["result"] = "fail"
        report["error"] = "the measured vehicles: %s" % (first or "no answer")
        report["load_during"] = load_average()
        return report
    report["connect_s"] = first.split("=")[1]
    real = RealDaemons(work, broker, daemons, seconds, mqtt311) if daemons else None
    # Each broker process's CPU from here: a node restarted by the failure starts again at 0,
    # and the killed one's seconds are taken just before it dies.
    cpu0 = {p: cpu_seconds(p) for p in broker.pids()}
    before_fail = {}
    generators = [proc.pid] + [h.pid for h in helpers]
    generator0 = sum(cpu_seconds(p) for p in generators)
    t0 = time.time()
    failer = None
    if fail_at is not None:
        def fail():
            time.sleep(fail_at)
            report["failed_at_s"] = "%.1f" % (time.time() - t0)
            before_fail.update({p: cpu_seconds(p) for p in broker.pids()})
            broker.fail()
        failer = threading.Thread(target=fail)
        failer.start()
    # The end of the publishing seconds: CPU and memory then (after a failure the pids are
    # the ones of that moment).
    time.sleep(max(0, seconds - (time.time() - t0) - 0.5))
    pids = broker.pids()
    now = {p: cpu_seconds(p) for p in pids}
    now.update({p: c for p, c in before_fail.items() if p not in now})
    report["broker_cpu_s"] = sum(max(0.0, c - cpu0.get(p, 0)) for p, c in now.items())
    report["broker_rss_mib"] = sum(rss_mib(p) for p in pids)
    report["window_s"] = time.time() - t0
    report["generator_cores"] = (sum(cpu_seconds(p) for p in generators) - generator0) \
        / report["window_s"]
    report["load_during"] = load_average()
    if hasattr(broker, "backlog"):
        report["backlog"] = broker.backlog()
    for line in proc.stdout:
        k, _, v = line.strip().partition("=")
        report[k] = v
    proc.wait()
    if real:
        report.update(real.finish(timeout=max(60, seconds)))
    for h in helpers:
        h.terminate()
        h.wait()
    if failer:
        failer.join()
    return report


def figure(v, unit=""):
    try:
        x = float(v)
    except (TypeError, ValueError):
        return "–"
    if x != x:
        return "–"
    if unit == "ms":
        return "%.0f ms" % x if x >= 100 else "%.1f ms" % x
    return "%g" % x


def tables(results, failures, seconds, kill_size, cluster_start_s, started, ended, prefetch,
           queue_type):
    lines = [MARKER, "", "## Fleets at scale: a RabbitMQ cluster and one mosquitto", ""]
    lines.append(
        "`make bench-fleet` (`Scripts/fleet-bench.py`), %s to %s UTC, on this shared 2-core "
        "machine, not otherwise idle (builds ran beside it at times: the load average is in each row). "
        "`Benchmarks/fleet_load.c` simulates N vehicles in one process through libmosquitto: "
        "what `stepwised --mqtt --mqtt-progress-interval 1` publishes (a real daemon's "
        "recorded payloads, `Benchmarks/fleet-recording.txt`, with each vehicle's own `seq` "
        "and `boot`), one message a second on `events`/`progress` plus the retained `state` "
        "1 s after it (so two messages a second in per vehicle, both QoS 1), each vehicle with "
        "its own account and topic permissions, for %d s once the fleet is connected; one "
        "durable dispatcher subscribed to `online`, `state`, `events`, `progress` as "
        "`stepwise fleet` is. Latency is from the vehicle's hand-over to libmosquitto to "
        "the dispatcher's callback (one process, one clock), over every events/progress "
        "message. The cluster: three nodes of Debian's RabbitMQ 3.10.8 (%s queues for the "
        "durable sessions, MQTT 3.1.1, `mqtt.prefetch` %d), vehicle i first on node i mod 3, "
        "the dispatcher on node 3 (cluster start: %.0f s); *queued at the end* is the "
        "dispatcher's queue when the publishing ends (ready + delivered unacknowledged, from "
        "`rabbitmqctl list_queues`). mosquitto 2.0.11 with MQTT 5, persistence on. Broker CPU is user + system "
        "over the publishing seconds, in cores (1.00 = one core busy); memory is resident at "
        "their end (the cluster's: its three nodes together). Beyond %d vehicles the others "
        "run in more generator processes (each libmosquitto client holds three descriptors "
        "and the open-files hard limit here is %d): they publish alike, and delivery and "
        "latency are counted on the first %d."
        % (time.strftime("%Y-%m-%d %H:%M", time.gmtime(started)),
           time.strftime("%H:%M", time.gmtime(ended)), seconds, queue_type, prefetch,
           cluster_start_s,
           PER_PROCESS, resource.getrlimit(resource.RLIMIT_NOFILE)[1], PER_PROCESS))
    lines.append("")
    lines.append("| vehicles | broker | connect | delivered | missing | out of order | p50 | "
                 "p99 | max | broker CPU (cores) | per 1,000 | broker RSS | per 1,000 | "
                 "generator CPU (cores) | queued at the end | load avg |")
    lines.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for n, name, r in results:
        cores = r.get("broker_cpu_s", 0) / max(r.get("window_s", 1), 1)
        rss = r.get("broker_rss_mib", 0)
        lines.append(
            "| %s | %s | %s s | %s of %s | %s | %s | %s | %s | %s | %.2f | %.2f | %.0f MiB | "
            "%.0f MiB | %.2f | %s | %s |"
            % ("{:,}".format(n) + ("" if n <= PER_PROCESS else " (%s measured)"
                                   % "{:,}".format(r.get("measured_vehicles"))),
               name, figure(r.get("connect_s")), r.get("unique", "–"),
               r.get("sent", "–"), r.get("missing", "–"), r.get("out_of_order", "–"),
               figure(r.get("p50_ms"), "ms"), figure(r.get("p99_ms"), "ms"),
               figure(r.get("max_ms"), "ms"), cores, cores / (n / 1000.0), rss,
               rss / (n / 1000.0), r.get("generator_cores", 0),
               "%d + %d" % tuple(r["backlog"]) if r.get("backlog") else "–",
               r.get("load_during", "–")))
    lines.append("")
    runs = [(n, name, r, "") for n, name, r in results]
    runs += [(kill_size, name, r, " (the failure run)") for name, _, r in failures]
    for n, name, r, which in runs:
        if "daemons" in r:
            lines.append(
                "- %s vehicles, %s%s: %d real `stepwised` in the same run (exit 0: %d), their "
                "events %d of %d at a durable subscriber, %d missing, %d out of order."
                % ("{:,}".format(n), name, which, r["daemons"], r["daemons_exited_ok"],
                   r["daemon_delivered"], r["daemon_events"], r["daemon_missing"],
                   r["daemon_out_of_order"]))
    for n, name, r in results:
        if r.get("error"):
            lines.append("- %s vehicles, %s: no measurement, %s (load average %s)."
                         % ("{:,}".format(n), name, r["error"], r.get("load_during", "–")))
    held = {}
    for n, name, r in results:
        ok = r.get("result") == "ok" and float(r.get("p99_ms", "inf")) < 1000
        if ok:
            held[name] = max(held.get(name, 0), n)
    for name in sorted({name for _, name, _ in results}):
        lines.append("- Largest fleet measured with every message delivered and p99 under 1 s, "
                     "%s: %s." % (name, "{:,}".format(held[name]) if name in held else "none"))
    lines.append("")
    if failures:
        lines.append("Failure during the run, %s vehicles for %d s: on the cluster node 1 "
                     "killed with SIGKILL a third in and started again 15 s later; on mosquitto "
                     "(no other node) the broker stopped with SIGTERM at the same moment and "
                     "started again 2 s later. Counted after dedupe by (vehicle, boot, seq); "
                     "*failover* is from a vehicle seeing its link break to its next accepted "
                     "CONNACK."
                     % ("{:,}".format(kill_size), failures[0][2].get("seconds_planned", 0)))
        lines.append("")
        lines.append("| broker | delivered | missing | out of order | duplicates | links lost | "
                     "back on a node: mean / max | p50 / p99 outside the outage | during the "
                     "outage: p50 / max | load avg |")
        lines.append("|---|---|---|---|---|---|---|---|---|---|")
        for name, _, r in failures:
            lines.append(
                "| %s | %s of %s | %s | %s | %s | %s (%s back) | %s s / %s s | %s / %s | %s / %s | %s |"
                % (name, r.get("unique", "–"), r.get("sent", "–"), r.get("missing", "–"),
                   r.get("out_of_order", "–"), r.get("duplicates", "–"),
                   r.get("link_losses", "–"), r.get("failovers", "–"),
                   figure(r.get("failover_mean_s")), figure(r.get("failover_max_s")),
                   figure(r.get("steady_p50_ms"), "ms"), figure(r.get("steady_p99_ms"), "ms"),
                   figure(r.get("outage_p50_ms"), "ms"), figure(r.get("outage_max_ms"), "ms"),
                   r.get("load_during", "–")))
        lines.append("")
        for name, _, r in failures:
            if r.get("restart_s"):
                lines.append("Node 1 was killed %s s into the publishing; starting it again "
                             "took %.0f s (`rabbitmq-cluster.sh start-node`), after which it "
                             "rejoined." % (r.get("failed_at_s", "?"), r["restart_s"]))
                lines.append("")
    lines.append("Commands: `make bench-fleet` (`FLEET_SIZES=1000,3000,10000`, "
                 "`FLEET_SECONDS=%d`), i.e. `python3 Scripts/fleet-bench.py --sizes … "
                 "--write docs/benchmarks.md`." % seconds)
    lines.append("")
    return "\n".join(lines)


def write_section(path, text):
    with open(path) as f:
        content = f.read()
    at = content.find(MARKER)
    head = content[:at] if at >= 0 else content.rstrip("\n") + "\n\n"
    with open(path, "w") as f:
        f.write(head + text)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", default="1000,3000,10000")
    ap.add_argument("--seconds", type=int, default=60)
    ap.add_argument("--kill-size", type=int, default=1000)
    ap.add_argument("--kill-seconds", type=int, default=90)
    ap.add_argument("--brokers", default="cluster,mosquitto")
    ap.add_argument("--prefetch", type=int, default=100,
                    help="the cluster's mqtt.prefetch: unacknowledged messages per MQTT "
                         "subscriber (the plugin's default is 10: the dispatcher's quorum "
                         "queue then delivered about 900 messages a second; 100 kept up "
                         "with 1,000 vehicles, 1,000 did not)")
    ap.add_argument("--queue-type", default="quorum", choices=("quorum", "classic"),
                    help="the queue type of the cluster's durable MQTT subscriptions "
                         "(mqtt.durable_queue_type; quorum queues are replicated)")
    ap.add_argument("--daemons", type=int, default=20,
                    help="real stepwised replays in each measured run, beside the simulated "
                         "vehicles (built: .build/release or .build/debug)")
    ap.add_argument("--stepwised", help="the stepwised the --daemons run")
    ap.add_argument("--write")
    ap.add_argument("--work")
    ap.add_argument("--definitions", nargs=2, metavar=("N", "FILE"),
                    help="only write the accounts of vehicles fl00000 … as RabbitMQ "
                         "definitions (for rabbitmq-cluster.sh definitions; FleetClusterTests)")
    args = ap.parse_args()
    if args.definitions:
        write_definitions(args.definitions[1], vehicle_ids(int(args.definitions[0])))
        return
    if args.stepwised:
        STEPWISED.append(args.stepwised)
    if args.daemons:
        stepwised_binary()
    sizes = [int(s) for s in args.sizes.split(",") if s]
    which = args.brokers.split(",")
    biggest = max(sizes + [args.kill_size])
    raise_files(biggest + 4096)
    for tool in ("cc", "mosquitto", "mosquitto_passwd"):
        if not shutil.which(tool):
            sys.exit("fleet-bench: %s is missing (Scripts/install-deps.sh)" % tool)
    work = args.work or tempfile.mkdtemp(prefix="stepwise-fleet-bench-")
    os.makedirs(work, exist_ok=True)
    os.chmod(work, 0o755)
    log("working in", work)
    generator = build_generator(work)
    started = time.time()
    results, failures = [], []
    cluster = None
    try:
        if "cluster" in which:
            cluster = Cluster(os.path.join(work, "cluster"), args.prefetch, args.queue_type)
            log("cluster started in %.0f s" % cluster.start_s)
            cluster.add_vehicles(biggest)
            cluster.add_daemons(args.daemons)
        # A short run first on each broker, not reported: the dispatcher's session (on the
        # cluster a quorum queue) is made then, not in the first measured seconds (a 10 s run
        # of 300 vehicles on a fresh cluster had p50 3 s; the same fleet later, 4 ms).
        if cluster:
            run_fleet(generator, cluster, min(sizes), 15, mqtt311=True)
        for n in sizes:
            if cluster:
                results.append((n, cluster.name, run_fleet(
                    generator, cluster, n, args.seconds, mqtt311=True, daemons=args.daemons,
                    work=work)))
                log(results[-1][2])
            if "mosquitto" in which:
                m = Mosquitto(os.path.join(work, "mosquitto-%d" % n), n, args.daemons)
                try:
                    results.append((n, m.name, run_fleet(generator, m, n, args.seconds,
                                                         daemons=args.daemons, work=work)))
                finally:
                    m.stop()
                log(results[-1][2])
        if args.kill_size:
            third = args.kill_seconds / 3.0
            if cluster:
                r = run_fleet(generator, cluster, args.kill_size, args.kill_seconds,
                              fail_at=third, mqtt311=True, daemons=args.daemons, work=work)
                r["seconds_planned"] = args.kill_seconds
                r["restart_s"] = getattr(cluster, "restart_s", None)
                failures.append((cluster.name, args.kill_size, r))
                log(r)
            if "mosquitto" in which:
                m = Mosquitto(os.path.join(work, "mosquitto-fail"), args.kill_size, args.daemons)
                try:
                    r = run_fleet(generator, m, args.kill_size, args.kill_seconds, fail_at=third,
                                  daemons=args.daemons, work=work)
                finally:
                    m.stop()
                r["seconds_planned"] = args.kill_seconds
                failures.append((m.name, args.kill_size, r))
                log(r)
    finally:
        if cluster:
            cluster.stop()
    text = tables(results, failures, args.seconds, args.kill_size,
                  cluster.start_s if cluster else 0, started, time.time(), args.prefetch,
                  args.queue_type)
    with open(os.path.join(work, "results.json"), "w") as f:
        json.dump({"results": results, "failures": failures}, f, indent=1, default=str)
    if args.write:
        write_section(args.write, text)
        log("wrote", args.write)
    else:
        print(text)
    bad = [r for _, _, r in failures if r.get("result") != "ok"]
    bad += [r for _, _, r in results + failures
            if r.get("daemon_missing") or r.get("daemon_out_of_order")]
    bad += [r for name, _, r in failures
            if "RabbitMQ" in name and float(r.get("failover_max_s", "99")) >= 10]
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
