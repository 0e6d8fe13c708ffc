#!/usr/bin/env python3
"""Figures of `egressctl serve --etcd` replicas on the test stack's 3-member etcd cluster (issue #36).

Nothing is asserted: the machine may be loaded, so read the figures beside their targets.

  failover  3 replicas at the default timing (lease 15 s, renew deadline 10 s, retries 2 s), one
            fake entry of 10 proxies. Each round: kill -9 the entry's leader, delete one proxy
            behind the replicas' backs, and time from the kill to the end of the successful create
            that brings it back, by another replica (the state file's operation log). Median of
            ROUNDS (default 10); target: lease + 2 s.
  pass      one fake entry of 500 proxies: a single `serve -f` against one `serve --etcd` replica
            leading it, each for PASSES resync passes at --resync 1s: pass duration (serve's
            egress_reconcile_pass_duration_seconds) and the process's CPU per pass (/proc/PID/stat),
            alternated twice. Target: the replica within 5 % of the single serve.
  traffic   3 replicas at rest with 3 entries: etcd requests per second per replica over 60 s,
            from the members' own counters (grpc_server_handled_total; the JSON gateway goes
            through them), summed over the members and divided by the replicas.

Usage: scripts/bench-replicas.py [--only failover|pass|traffic] [--rounds N] [--passes N]
Needs the test stack (scripts/test-stack.sh up, as root) and the packaged egressctl
(./mvnw package -pl runtime -am -DskipTests). Loopback only; everything made is removed.
"""
import argparse
import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from datetime import datetime

ROOT = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
EGRESSCTL = os.path.join(ROOT, "runtime/target/egressctl/bin/egressctl")
STACK_DIR = os.environ.get("EGRESS_TEST_STACK_DIR", "/tmp/egress-test-stack")
TICKS = os.sysconf("SC_CLK_TCK")


def say(text):
    print(f"[bench-replicas {time.strftime('%H:%M:%S')}] {text}", flush=True)


def stack_env():
    values = {}
    with open(os.path.join(STACK_DIR, "env")) as env:
        for line in env:
            match = re.match(r"(?:export )?([A-Z0-9_]+)=(.*)", line.strip())
            if match:
                values[match.group(1)] = match.group(2).strip("'\"")
    return values


def parse_instant(text):
    """Seconds since the epoch of a Java Instant's text (UTC, 0 to 9 fraction digits)."""
    match = re.fullmatch(r"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d+))?Z", text)
    whole = datetime.fromisoformat(match.group(1) + "+00:00").timestamp()
    return whole + (int(match.group(2)) / 10 ** len(match.group(2)) if match.group(2) else 0)


class Bench:
    def __init__(self, endpoints):
        self.endpoints = endpoints
        self.work = tempfile.mkdtemp(prefix="egress-bench-replicas.")
        self.home = os.path.join(self.work, "home")
        os.makedirs(self.home)
        self.processes = []
        self.prefix = f"/egressctl/bench-{os.getpid()}-{int(time.time())}/"

    def env(self):
        env = {k: v for k, v in os.environ.items() if not k.startswith(("EGRESS", "XDG_", "OTEL_"))}
        env.update(HOME=self.home, EGRESSCTL_NO_CDS_CACHE="1", EGRESS_CONFIG=os.path.join(self.work, "egress.yaml"))
        return env

    def config(self, entries, latency="0s"):
        text = "providers:\n"
        for entry in entries:
            text += (f"  - name: {entry}\n    type: fake\n    zones: [zone-a]\n"
                     f"    stateFile: {self.state(entry)}\n    operationLog: true\n"
                     f"    faults:\n      create: {{latency: {latency}}}\n")
        with open(os.path.join(self.work, "egress.yaml"), "w") as out:
            out.write(text)

    def state(self, entry):
        return os.path.join(self.work, "state", entry + ".json")

    def desired(self, per_entry, entries):
        path = os.path.join(self.work, "proxies.yaml")
        with open(path, "w") as out:
            out.write(f"providers: [{', '.join(entries)}]\nproxies:\n")
            for entry in entries:
                for index in range(1, per_entry + 1):
                    out.write(f"  - {{name: p{index}, provider: {entry}, zone: zone-a, machineType: small,"
                              f" image: debian-12}}\n")
        return path

    def run(self, *arguments):
        return subprocess.run([EGRESSCTL, *arguments], env=self.env(), cwd=self.work, capture_output=True,
                              text=True, timeout=300)

    def apply_etcd(self, path):
        result = self.run("apply", "-f", path, "--etcd", self.endpoints, "--etcd-prefix", self.prefix)
        if result.returncode != 0:
            sys.exit(f"apply --etcd failed: {result.stderr}")

    def serve(self, name, *arguments):
        log = open(os.path.join(self.work, name + ".log"), "w+")
        process = subprocess.Popen([EGRESSCTL, "serve", "--listen", "127.0.0.1:0", *arguments], env=self.env(),
                                   cwd=self.work, stdout=subprocess.DEVNULL, stderr=log)
        self.processes.append(process)
        deadline = time.time() + 60
        while time.time() < deadline:
            log.seek(0)
            match = re.search(r"serving (http://[^/\s]+)/", log.read())
            if match:
                return process, match.group(1)
            if process.poll() is not None:
                log.seek(0)
                sys.exit(f"serve {name} exited: {log.read()}")
            time.sleep(0.1)
        sys.exit(f"serve {name} did not serve in 60 s")

    def replica(self, name, *timing):
        return self.serve(name, "--etcd", self.endpoints, "--etcd-prefix", self.prefix, "--replica", name, *timing)

    @staticmethod
    def get(base, path):
        with urllib.request.urlopen(base + path, timeout=10) as response:
            return response.read().decode()

    def await_running(self, base, count, limit=120):
        deadline = time.time() + limit
        while time.time() < deadline:
            try:
                proxies = json.loads(self.get(base, "/v1/proxies"))["proxies"]
                if len(proxies) == count and all(p["state"] == "RUNNING" for p in proxies):
                    return
            except OSError:
                pass
            time.sleep(0.2)
        sys.exit(f"{count} proxies did not run within {limit} s")

    def operations(self, entry):
        try:
            with open(self.state(entry)) as state:
                return json.load(state).get("operations", [])
        except (OSError, ValueError):
            return []

    def stop_all(self):
        for process in self.processes:
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
        for process in self.processes:
            try:
                process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                process.kill()
        self.processes = []

    def close(self):
        self.stop_all()
        subprocess.run(["etcdctl", "--endpoints", self.endpoints, "del", "--prefix", self.prefix],
                       env={**os.environ, "ETCDCTL_API": "3"}, capture_output=True)
        shutil.rmtree(self.work, ignore_errors=True)


def failover(bench, rounds):
    say(f"failover: 3 replicas, default timing, {rounds} rounds")
    bench.config(["lab"])
    bench.apply_etcd(bench.desired(10, ["lab"]))
    replicas = {name: bench.replica(name) for name in ("r1", "r2", "r3")}
    bench.await_running(replicas["r1"][1], 10)
    times = []
    for round_number in range(1, rounds + 1):
        alive = {name: rep for name, rep in replicas.items() if rep[0].poll() is None}
        some = next(iter(alive.values()))
        leader = json.loads(bench.get(some[1], "/v1/replicas"))["leaders"].get("lab")
        victim = replicas[leader][0]
        victim.kill()
        killed = time.time()
        victim.wait()
        deleted = bench.run("delete", "lab/zone-a/p1")
        if deleted.returncode != 0:
            sys.exit(f"delete failed: {deleted.stderr}")
        deadline = killed + 120
        took = None
        while time.time() < deadline and took is None:
            for operation in bench.operations("lab"):
                if (operation["operation"] == "create" and operation["pid"] != victim.pid
                        and operation.get("outcome") == "ok" and operation["instance"].endswith("p1")
                        and parse_instant(operation["started"]) > killed):
                    took = parse_instant(operation["ended"]) - killed
            time.sleep(0.1)
        if took is None:
            sys.exit("no replica made p1 again within 120 s")
        times.append(took)
        say(f"  round {round_number}: {leader} killed; p1 back by another replica after {took:.2f} s")
        replicas[leader] = bench.replica(leader)
        bench.await_running(replicas[leader][1], 10)
    median = statistics.median(times)
    print(f"failover: kill -9 of the leader to the next successful operation by another replica: median"
          f" {median:.2f} s of {rounds} (min {min(times):.2f}, max {max(times):.2f}); target <= 17 s (lease 15 s + 2 s)")
    bench.stop_all()


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def pass_metrics(base):
    text = bench_get_metrics(base)
    total = count = 0.0
    for line in text.splitlines():
        if line.startswith("egress_reconcile_pass_duration_seconds_sum"):
            total += float(line.split()[-1])
        elif line.startswith("egress_reconcile_pass_duration_seconds_count"):
            count += float(line.split()[-1])
    return total, count


def bench_get_metrics(base):
    with urllib.request.urlopen(base + "/metrics", timeout=10) as response:
        return response.read().decode()


def passes(bench, count):
    say(f"pass: 500 proxies, single serve against one replica, {count} passes each, twice")
    bench.config(["lab"])
    desired = bench.desired(500, ["lab"])
    apply = bench.run("apply", "-f", desired)
    if apply.returncode != 0:
        sys.exit(f"apply failed: {apply.stderr}")
    bench.apply_etcd(desired)

    def start(kind, resync):
        if kind == "single":
            return bench.serve("single", "-f", desired, "--resync", resync)
        return bench.replica("solo", "--resync", resync)

    results = {"single": [], "replica": []}
    for _ in range(2):
        for kind in ("single", "replica"):
            process, base = start(kind, "1s")
            bench.await_running(base, 500)
            time.sleep(3)
            seconds0, passes0 = pass_metrics(base)
            cpu0, at0 = cpu_seconds(process.pid), time.time()
            while pass_metrics(base)[1] - passes0 < count:
                time.sleep(0.5)
            seconds1, passes1 = pass_metrics(base)
            cpu1, at1 = cpu_seconds(process.pid), time.time()
            bench.stop_all()
            # The same process at rest (no pass for 5 minutes): what it costs per second without passes.
            process, base = start(kind, "300s")
            bench.await_running(base, 500)
            time.sleep(5)
            idle0, idle_at0 = cpu_seconds(process.pid), time.time()
            time.sleep(20)
            rest = (cpu_seconds(process.pid) - idle0) / (time.time() - idle_at0)
            bench.stop_all()
            done = passes1 - passes0
            results[kind].append(((seconds1 - seconds0) / done, (cpu1 - cpu0) / done,
                                  ((cpu1 - cpu0) - rest * (at1 - at0)) / done, rest))
    medians = {kind: [statistics.median(f[i] for f in figures) for i in range(4)] for kind, figures in results.items()}
    for kind, (wall, cpu, net, rest) in medians.items():
        print(f"pass of 500 proxies, {kind}: {wall * 1000:.1f} ms per pass; process CPU {cpu * 1000:.1f} ms per pass"
              f" at --resync 1s, {net * 1000:.1f} ms net of its CPU at rest ({rest * 1000:.1f} ms per second)")
    single, replica = medians["single"], medians["replica"]
    print(f"leadership costs a pass {100 * (replica[0] / single[0] - 1):+.1f} % wall and"
          f" {100 * (replica[2] / single[2] - 1):+.1f} % CPU net of rest; at rest the replica costs"
          f" {1000 * (replica[3] - single[3]):+.1f} ms CPU per second more; target <= +5 % per pass")


def etcd_requests(endpoints):
    total = 0.0
    for endpoint in endpoints.split(","):
        with urllib.request.urlopen(endpoint + "/metrics", timeout=10) as response:
            for line in response.read().decode().splitlines():
                if line.startswith("grpc_server_handled_total{"):
                    total += float(line.split()[-1])
    return total


def traffic(bench):
    say("traffic: 3 replicas at rest, 3 entries, 60 s")
    entries = ["lab-1", "lab-2", "lab-3"]
    bench.config(entries)
    bench.apply_etcd(bench.desired(5, entries))
    replicas = {name: bench.replica(name) for name in ("r1", "r2", "r3")}
    bench.await_running(replicas["r1"][1], 15)
    time.sleep(10)
    before = etcd_requests(bench.endpoints)
    time.sleep(60)
    after = etcd_requests(bench.endpoints)
    per_replica = (after - before) / 60 / 3
    print(f"etcd traffic at rest: {per_replica:.2f} requests/s per replica (3 replicas, 3 entries, resync 60 s,"
          f" retry period 2 s)")
    bench.stop_all()


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", choices=["failover", "pass", "traffic"])
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--passes", type=int, default=20)
    arguments = parser.parse_args()
    if not os.access(EGRESSCTL, os.X_OK):
        sys.exit(f"{EGRESSCTL} is missing: ./mvnw package -pl runtime -am -DskipTests")
    subprocess.run([os.path.join(ROOT, "scripts/test-stack.sh"), "up"], check=True, capture_output=True)
    endpoints = stack_env()["EGRESS_TEST_ETCD_ENDPOINTS"]
    load = os.getloadavg()
    say(f"{os.cpu_count()} cores, load {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    for part in ("failover", "pass", "traffic"):
        if arguments.only in (None, part):
            bench = Bench(endpoints)
            try:
                if part == "failover":
                    failover(bench, arguments.rounds)
                elif part == "pass":
                    passes(bench, arguments.passes)
                else:
                    traffic(bench)
            finally:
                bench.close()


if __name__ == "__main__":
    main()
