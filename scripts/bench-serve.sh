#!/usr/bin/env bash
# Figures of `egressctl serve` on the test stack, each next to its anchor measured in the same run.
# Nothing is asserted; the targets (issue #32) are printed beside the figures.
#   heal     a kvm2 entry with the stack's two hosts, serve at --resync 5s: from `virsh destroy` +
#            `virsh undefine` of a proxy's domain to the proxy back in serve's view (PROVISIONING,
#            outcome ok, a new domain; the stack's guests have no OS, so never RUNNING), median of
#            HEAL_ROUNDS (default 5); also when the domain itself runs again (virsh). Anchor: a
#            plain `egressctl create` of the cached image (median of 3). Target: resync + 1.5x create.
#   api      500 managed domains (scripts/define-many-domains.sh: 250 stopped stubs on each host,
#            of one kvm2 entry), `GET /v1/proxies` with wrk, 50 connections, 2 threads, 30 s:
#            p50, p99, requests/s. Anchor: one `virsh list` over qemu+ssh, and one session of
#            scripts/virsh-list-managed-baseline.sh (list + metadata + state of every domain).
#   pass     wall and CPU of a resync pass over those 500 unchanged proxies: serve's
#            egress_reconcile_pass_duration_seconds (sum/count) and the process's CPU from
#            /proc/PID/stat over the same passes, while nothing else calls serve.
#   rss      serve's RSS every 10 s for MINUTES (default 10) of 5 s resyncs over the 500; minute 2
#            against the last minute, and the maximum.
# The stubs have no disk: a desired set naming them would make serve start 500 VMs. So the desired
# set names the entry with no proxies: every pass lists, plans and shows all 500, and the
# mass-delete rule holds their deletes (500 of 500 is more than half), so no operation runs.
#
# Usage: scripts/bench-serve.sh [MINUTES]     (MINUTES of the RSS part; default 10)
# Environment: HEAL_ROUNDS (default 5), EGRESS_TEST_STACK_DIR. Needs the stack and wrk
# (Debian's package). Loopback only; everything made is removed at the end.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd -P)
minutes=${1:-10}
[[ $minutes =~ ^[1-9][0-9]*$ ]] || { echo "bench-serve: MINUTES must be a positive number" >&2; exit 2; }
rounds=${HEAL_ROUNDS:-5}
command -v wrk >/dev/null || { echo "bench-serve: needs wrk (apt-get install wrk)" >&2; exit 2; }
python=/usr/bin/python3
[ -x "$python" ] || python=$(command -v python3)

say() { printf '[bench-serve %s] %s\n' "$(date -u +%H:%M:%S)" "$*"; }
now() { date +%s.%N; }
sub() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f\n", b - a }'; }
median() { sort -g | awk '{ a[NR] = $1 } END { print (NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2) }'; }

# shellcheck source=lib/stack-entry.sh
. "$root/scripts/lib/stack-entry.sh"
stack_up "$root"

# Not egress-it-: the integration tests' leftover sweeps would remove these under the benchmark.
readonly prefix=egress-sbench
entry=$prefix-$(printf '%04x' $((RANDOM)))
work=$(mktemp -d "${TMPDIR:-/tmp}/egress-bench-serve.XXXXXX")
export HOME=$work/home EGRESSCTL_NO_CDS_CACHE=1
mkdir -p "$HOME"

vsh() { local uri=$1; shift; timeout 120 virsh -q -c "$uri" "$@"; }
domains_of() { vsh "$1" list --all --name 2>/dev/null | awk -v p="$2" 'index($0, p) == 1'; }
volumes_of() { vsh "$1" vol-list "$pool" 2>/dev/null | awk -v p="$2" 'index($1, p) == 1 { print $1 }'; }
remove_entry_things() {
  local uri name
  for uri in "$host1_uri" "$host2_uri"; do
    # One virsh session for the many stubs; it removes PREFIX-*, so without the prefix's own '-'.
    EGRESS_TEST_LIBVIRT_URI=$uri "$root/scripts/undefine-domains.sh" "${1%-}" >/dev/null 2>&1 || true
    for name in $(domains_of "$uri" "$1"); do
      vsh "$uri" destroy "$name" >/dev/null 2>&1 || true
      vsh "$uri" undefine "$name" --managed-save --snapshots-metadata --nvram >/dev/null 2>&1 || true
    done
    for name in $(volumes_of "$uri" "$1"); do
      vsh "$uri" vol-delete --pool "$pool" "$name" >/dev/null 2>&1 || true
    done
  done
}

serve_pid=
cleanup() {
  if [ -n "$serve_pid" ] && kill -0 "$serve_pid" 2>/dev/null; then
    kill -TERM "$serve_pid" 2>/dev/null || true
    timeout 90 tail --pid="$serve_pid" -f /dev/null || kill -KILL "$serve_pid" 2>/dev/null || true
  fi
  remove_entry_things "$entry"
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
remove_entry_things "$prefix-"

kvm2_two_host_entry "$entry" "$pool" "$EGRESS_TEST_HTTP_URL/$EGRESS_TEST_IMAGE_QCOW2" >"$work/egress.yaml"
ctl() { "$egressctl" --config "$work/egress.yaml" "$@"; }

# start_serve DESIRED: starts serve at --resync 5s and sets serve_pid and base.
start_serve() {
  : >"$work/serve.log"
  # The launcher itself, not through ctl: $! must be the JVM (the launcher execs it), not a subshell.
  "$egressctl" --config "$work/egress.yaml" serve -f "$1" --listen 127.0.0.1:0 --resync 5s --grace 30s 2>"$work/serve.log" &
  serve_pid=$!
  base=
  for _ in $(seq 600); do
    base=$(sed -n 's|.*serving \(http://127\.0\.0\.1:[0-9]*\)/.*|\1|p' "$work/serve.log" | head -1 || true)
    [ -n "$base" ] && return 0
    kill -0 "$serve_pid" 2>/dev/null || break
    sleep 0.1
  done
  cat "$work/serve.log" >&2
  echo "bench-serve: serve did not serve" >&2
  exit 1
}
stop_serve() {
  kill -TERM "$serve_pid"
  local status=0
  wait "$serve_pid" || status=$?
  serve_pid=
  [ "$status" -eq 0 ] || say "serve exited $status after SIGTERM"
}

# ---- heal ----------------------------------------------------------------------------------
say "entry $entry on local and local2; resync 5s"
say "heal: warm-up create (fetches and caches the base image), then 3 timed creates"
# create_timed NAME: creates NAME on local and prints the wall time of the create that succeeded; the
# stack's pool is shared with other runs, whose jobs can make a pool refresh fail now and then.
create_timed() {
  local attempt t0
  for attempt in 1 2 3; do
    t0=$(now)
    if ctl create --provider "$entry" --zone local --machine-type small --image tiny "$1" >/dev/null 2>"$work/create.err"; then
      sub "$t0" "$(now)"
      return 0
    fi
    say "create $1 failed (attempt $attempt): $(head -c 300 "$work/create.err")" >&2
    ctl delete "$entry/local/$1" >/dev/null 2>&1 || true
  done
  return 1
}
create_timed "$entry-w0" >/dev/null
: >"$work/create"
for i in 1 2 3; do
  create_timed "$entry-w$i" >>"$work/create"
done
for i in 0 1 2 3; do ctl delete "$entry/local/$entry-w$i" >/dev/null; done
create_median=$(median <"$work/create")
say "plain egressctl create, cached image: $(tr '\n' ' ' <"$work/create")s; median ${create_median} s"

cat >"$work/heal.yaml" <<EOF
proxies:
  - {name: $entry-h1, provider: $entry, zone: local, machineType: small, image: tiny}
  - {name: $entry-h2, provider: $entry, zone: local2, machineType: small, image: tiny}
EOF
start_serve "$work/heal.yaml"
"$python" - "$base" "$entry" "$rounds" "$host1_uri" >"$work/heal" <<'EOF'
import json, subprocess, sys, time, urllib.request
base, entry, rounds, uri = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
name = entry + "-h1"
def view():
    with urllib.request.urlopen(base + "/v1/proxies", timeout=10) as r:
        for p in json.load(r)["proxies"]:
            if p["entry"] == entry and p["name"] == name:
                return p
def healthy(p):
    return p is not None and p["state"] == "PROVISIONING" and p["outcome"] == "ok" and p["observed"]
def virsh(*args):
    return subprocess.run(["virsh", "-q", "-c", uri, *args], capture_output=True, text=True, timeout=60).stdout
def running():
    return name in virsh("list", "--state-running", "--name").split()
end = time.time() + 300
while not (healthy(view()) and running()):
    if time.time() > end:
        sys.exit("the proxies did not come up within 300 s")
    time.sleep(0.5)
for i in range(rounds):
    time.sleep(3 + i)  # another phase of the 5 s resync each round
    before = view()["observed"]["createdAt"]
    uuid = virsh("domuuid", name).strip()
    t0 = time.time()
    virsh("destroy", name)
    virsh("undefine", name, "--nvram")
    domain_back = None
    while True:
        if time.time() - t0 > 300:
            sys.exit("not healed within 300 s")
        if domain_back is None and running() and virsh("domuuid", name).strip() not in ("", uuid):
            domain_back = time.time() - t0
        p = view()
        if healthy(p) and p["observed"]["createdAt"] != before and domain_back is not None:
            print("%.2f %.2f" % (time.time() - t0, domain_back))
            sys.stdout.flush()
            break
        time.sleep(0.1)
EOF
stop_serve
heal_median=$(cut -d' ' -f1 "$work/heal" | median)
domain_median=$(cut -d' ' -f2 "$work/heal" | median)
heal_target=$(awk -v c="$create_median" 'BEGIN { printf "%.2f", 5 + 1.5 * c }')
say "heal rounds (serve's view, domain running): $(tr '\n' ';' <"$work/heal")"
say "HEAL: median ${heal_median} s to serve's view (domain running again after ${domain_median} s); target resync + 1.5x create = 5 + 1.5 x ${create_median} = ${heal_target} s"
grep -E ' (create|delete|start) ' "$work/serve.log" | tail -3 || true
remove_entry_things "$entry"

# ---- 500 proxies ---------------------------------------------------------------------------
say "defining 250 stub domains on each host"
EGRESS_TEST_LIBVIRT_URI=$host1_uri "$root/scripts/define-many-domains.sh" 250 "$entry-a" "$entry"
EGRESS_TEST_LIBVIRT_URI=$host2_uri "$root/scripts/define-many-domains.sh" 250 "$entry-b" "$entry"
printf 'providers: [%s]\nproxies: []\n' "$entry" >"$work/many.yaml"
start_serve "$work/many.yaml"
started=$(date +%s)
( while kill -0 "$serve_pid" 2>/dev/null; do
    echo "$(( $(date +%s) - started )) $(awk '/^VmRSS:/ { print $2 }' "/proc/$serve_pid/status" 2>/dev/null)"
    sleep 10
  done ) >"$work/rss" &
rss_sampler=$!
"$python" - "$base" "$entry" <<'EOF'
import json, sys, time, urllib.request
base, entry = sys.argv[1], sys.argv[2]
end = time.time() + 300
while time.time() < end:
    with urllib.request.urlopen(base + "/v1/proxies", timeout=30) as r:
        proxies = [p for p in json.load(r)["proxies"] if p["entry"] == entry and p["observed"]]
    if len(proxies) >= 500:
        print("[bench-serve] serve shows %d proxies of %s (%s)" % (len(proxies), entry,
              ", ".join(sorted({p["state"] + "/" + p["outcome"] for p in proxies}))))
        sys.exit(0)
    time.sleep(1)
sys.exit("serve did not show the 500 proxies within 300 s")
EOF

metric_sum_count() {
  curl -sf "$base/metrics" | awk -v e="$entry" '
    index($0, "egress_reconcile_pass_duration_seconds_sum{") == 1 && index($0, "entry=\"" e "\"") { s = $2 }
    index($0, "egress_reconcile_pass_duration_seconds_count{") == 1 && index($0, "entry=\"" e "\"") { c = $2 }
    END { print s + 0, c + 0 }'
}
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$serve_pid/stat"; }
hz=$(getconf CLK_TCK)
sleep 20
read -r sum0 count0 <<<"$(metric_sum_count)"; ticks0=$(cpu_ticks)
sleep 60
read -r sum1 count1 <<<"$(metric_sum_count)"; ticks1=$(cpu_ticks)
pass_wall=$(awk -v a="$sum0" -v b="$sum1" -v n="$count0" -v m="$count1" 'BEGIN { printf "%.3f", (b - a) / (m - n) }')
pass_cpu=$(awk -v a="$ticks0" -v b="$ticks1" -v n="$count0" -v m="$count1" -v hz="$hz" 'BEGIN { printf "%.3f", (b - a) / hz / (m - n) }')
say "PASS over 500 unchanged proxies: $(awk -v n="$count0" -v m="$count1" 'BEGIN { print m - n }') passes in 60 s; wall ${pass_wall} s per pass (serve's histogram), CPU ${pass_cpu} s per pass (the whole process's CPU over those 60 s, divided by the passes); targets <= 1.5 s wall, <= 1 s CPU"

rss_end=$((started + minutes * 60))
say "RSS: sampling every 10 s until minute $minutes of 5 s resyncs"
while [ "$(date +%s)" -lt "$rss_end" ]; do sleep 5; done
kill "$rss_sampler" 2>/dev/null || true
rss_at() { awk -v t="$1" '$2 != "" { d = $1 - t; if (d < 0) d = -d; if (best == "" || d < bd) { best = $2; bd = d } } END { print best }' "$work/rss"; }
rss2=$(rss_at 120)
rss_last=$(awk '$2 != "" { v = $2 } END { print v }' "$work/rss")
rss_max=$(awk '$2 > m { m = $2 } END { print m }' "$work/rss")
say "RSS samples (s KiB): $(awk '{ printf "%s:%d ", $1, $2 / 1024 }' "$work/rss")(MiB)"
say "RSS with 500 proxies: minute 2 $((rss2 / 1024)) MiB, minute $minutes $((rss_last / 1024)) MiB ($(awk -v a="$rss2" -v b="$rss_last" 'BEGIN { printf "%+.1f", (b - a) * 100 / a }')%), max $((rss_max / 1024)) MiB; targets <= 256 MiB, < 10% growth"

say "API: wrk -t2 -c50 -d30s GET /v1/proxies ($(curl -sf "$base/v1/proxies" | wc -c) bytes per response)"
wrk -t2 -c50 -d30s --latency "$base/v1/proxies" >"$work/wrk"
p50=$(awk '$1 == "50%" { print $2 }' "$work/wrk")
p99=$(awk '$1 == "99%" { print $2 }' "$work/wrk")
rps=$(awk '/^Requests\/sec:/ { print $2 }' "$work/wrk")
errors=$(grep -E 'Non-2xx|Socket errors' "$work/wrk" || echo "none")
say "API: p50 $p50, p99 $p99, $rps requests/s (errors: $errors); target p99 <= 20 ms"
say "RSS after the API load: $(( $(awk '/^VmRSS:/ { print $2 }' "/proc/$serve_pid/status") / 1024 )) MiB"

t0=$(now)
"$root/scripts/virsh-over-ssh.sh" list --all --name >/dev/null
virsh_list=$(sub "$t0" "$(now)")
baseline=$("$root/scripts/virsh-list-managed-baseline.sh" 1 | tail -1)
say "ANCHOR: one virsh list over qemu+ssh (250 domains on that host): ${virsh_list} s; list-managed baseline session: $baseline"
stop_serve
say "done"
