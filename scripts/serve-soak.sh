#!/usr/bin/env bash
# Soak of `egressctl serve` on the test stack: serve keeps 20 proxies of one kvm2 entry with the
# stack's two hosts in force (5 s resync) while random faults are injected for MINUTES (default 30;
# CI runs 3). The faults, drawn from a fixed seed printed at the start (SOAK_SEED replays a run):
#   sshd          one host's sshd and its connections SIGKILLed, revived 10-30 s later
#                 (scripts/test-stack.sh up)
#   libvirtd      one host's libvirtd SIGSTOPped for 20 s, then SIGCONTed
#   images        the entry's image server (this script's own, on loopback) SIGSTOPped for 20 s;
#                 the first fault, so that it catches the first creates fetching the base image
#   destroy       `virsh destroy` of a random proxy's domain
#   undefine      `virsh destroy` + `virsh undefine` of a random proxy's domain
#   edit          the desired file gains or loses one proxy (16..24 proxies: never near the
#                 mass-delete rule's half)
# serve's RSS is sampled every 10 s, and both hosts' domain lists every 2 s (a name on both
# hosts at once is a violation). At the end it waits up to 6 minutes for convergence and checks:
# desired equals observed (in serve's API and in virsh: every desired proxy exists exactly once,
# on its host, nothing undesired), no orphan domain or volume of the entry on either host, RSS flat
# (< 10% growth from minute 2 to the end); then SIGTERMs serve (exit 0 expected) and removes
# everything it made. Prints its figures; exits 1 on any violation.
#
# Usage: scripts/serve-soak.sh [MINUTES]
# Environment: SOAK_SEED (default: from the clock), EGRESS_TEST_STACK_DIR (the stack's folder).
# Needs the stack (run as root; `scripts/test-stack.sh up` is run first) and a built launcher
# (runtime/target/egressctl; built when missing). Loopback only; bounded in time.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd -P)
minutes=${1:-30}
[[ $minutes =~ ^[1-9][0-9]*$ ]] || { echo "serve-soak: MINUTES must be a positive number" >&2; exit 2; }
seed=${SOAK_SEED:-$(( $(date +%s) % 100000 ))}
[[ $seed =~ ^[0-9]+$ ]] || { echo "serve-soak: SOAK_SEED must be a number" >&2; exit 2; }
RANDOM=$seed
python=/usr/bin/python3
[ -x "$python" ] || python=$(command -v python3)

say() { printf '[serve-soak %s] %s\n' "$(date -u +%H:%M:%S)" "$*"; }
echo "[serve-soak] seed $seed (replay with SOAK_SEED=$seed), $minutes minutes of faults"

# shellcheck source=lib/stack-entry.sh
. "$root/scripts/lib/stack-entry.sh"
stack_up "$root"

# Not egress-it-: the integration tests' leftover sweeps would remove a soak's domains under it.
readonly prefix=egress-soak
entry=$prefix-$(printf '%04x' $((seed % 65536)))
work=$(mktemp -d "${TMPDIR:-/tmp}/egress-serve-soak.XXXXXX")
violations=$work/violations
: >"$violations"
violation() { say "VIOLATION: $*"; echo "$*" >>"$violations"; }

vsh() { local uri=$1; shift; timeout 60 virsh -q -c "$uri" "$@"; }
uri_of() { if [ "$1" = local ]; then echo "$host1_uri"; else echo "$host2_uri"; fi; }
domains_of() { vsh "$1" list --all --name 2>/dev/null | awk -v p="$2" 'index($0, p) == 1'; }
volumes_of() { vsh "$1" vol-list "$pool" 2>/dev/null | awk -v p="$2" 'index($1, p) == 1 { print $1 }'; }

# remove_entry_things PREFIX: every domain and volume named PREFIX* on both hosts.
remove_entry_things() {
  local uri name
  for uri in "$host1_uri" "$host2_uri"; do
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
image_pid=
pids=()
frozen=()
cleanup() {
  local pid
  for pid in "${frozen[@]}" "$image_pid"; do [ -n "$pid" ] && kill -CONT "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  if [ -n "$serve_pid" ] && kill -0 "$serve_pid" 2>/dev/null; then
    kill -TERM "$serve_pid" 2>/dev/null || true
    timeout 90 tail --pid="$serve_pid" -f /dev/null || kill -KILL "$serve_pid" 2>/dev/null || true
  fi
  [ -n "$image_pid" ] && kill "$image_pid" 2>/dev/null || true
  "$root/scripts/test-stack.sh" up >/dev/null 2>&1 || true
  remove_entry_things "$entry"
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# What an earlier, aborted soak left.
remove_entry_things "$prefix-"

# The entry's own image server, so that stalling it disturbs nobody else on the shared stack.
image_port=$("$python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$python" -m http.server --bind 127.0.0.1 --directory "$EGRESS_TEST_IMAGES_DIR" "$image_port" \
  >"$work/images.log" 2>&1 &
image_pid=$!
for _ in $(seq 50); do curl -sf -o /dev/null "http://127.0.0.1:$image_port/SHA256SUMS" && break; sleep 0.1; done

kvm2_two_host_entry "$entry" "$pool" "http://127.0.0.1:$image_port/$EGRESS_TEST_IMAGE_QCOW2" >"$work/egress.yaml"

# The desired set: one proxy NAME per line in $work/names; proxy NN lives on local when NN is odd.
desired=$work/proxies.yaml
host_of() { local n=$((10#${1##*-p})); if [ $((n % 2)) -eq 1 ]; then echo local; else echo local2; fi; }
write_desired() {
  local name
  {
    echo "proxies:"
    while read -r name; do
      echo "  - {name: $name, provider: $entry, zone: $(host_of "$name"), machineType: small, image: tiny}"
    done <"$work/names"
  } >"$desired.new"
  mv "$desired.new" "$desired"
}
: >"$work/names"
for i in $(seq 1 20); do printf '%s-p%02d\n' "$entry" "$i" >>"$work/names"; done
next_proxy=21
write_desired

export HOME=$work/home EGRESSCTL_NO_CDS_CACHE=1
mkdir -p "$HOME"
started=$(date +%s)
: >"$work/serve.log"
"$egressctl" --config "$work/egress.yaml" serve -f "$desired" --listen 127.0.0.1:0 --resync 5s --grace 30s \
  2>"$work/serve.log" &
serve_pid=$!
base=
for _ in $(seq 600); do
  base=$(sed -n 's|.*serving \(http://127\.0\.0\.1:[0-9]*\)/.*|\1|p' "$work/serve.log" | head -1 || true)
  [ -n "$base" ] && break
  kill -0 "$serve_pid" 2>/dev/null || { cat "$work/serve.log"; echo "[serve-soak] serve exited at start" >&2; exit 1; }
  sleep 0.1
done
[ -n "$base" ] || { cat "$work/serve.log"; echo "[serve-soak] serve did not serve within 60 s" >&2; exit 1; }
say "serve pid $serve_pid at $base, entry $entry, 20 proxies on local and local2"

# RSS every 10 s: "SECONDS_SINCE_START KIB".
( while kill -0 "$serve_pid" 2>/dev/null; do
    echo "$(( $(date +%s) - started )) $(awk '/^VmRSS:/ { print $2 }' "/proc/$serve_pid/status" 2>/dev/null)"
    sleep 10
  done ) >"$work/rss" &
pids+=($!)
# Both hosts' domain lists every 2 s; a name on both at once is written down.
( while :; do
    a=$(domains_of "$host1_uri" "$entry-") || continue
    b=$(domains_of "$host2_uri" "$entry-") || continue
    both=$(comm -12 <(sort <<<"$a") <(sort <<<"$b") | grep . || true)
    [ -z "$both" ] || echo "$(date -u +%H:%M:%S) $both" >>"$work/twice"
    echo x >>"$work/polls"
    sleep 2
  done ) &
pids+=($!)
: >"$work/twice"

declare -A fault_count
fault() { fault_count[$1]=$(( ${fault_count[$1]:-0} + 1 )); say "fault: $*"; }
pick_name() { sed -n "$((RANDOM % $(wc -l <"$work/names") + 1))p" "$work/names"; }
libvirtd_pid() {
  if [ "$1" = local ]; then tr -dc '0-9' </run/libvirtd.pid; else tr -dc '0-9' <"$stack_dir/host2/libvirtd.pid"; fi
}
freeze_for() { # PID SECONDS
  frozen+=("$1")
  kill -STOP "$1"
  sleep "$2"
  kill -CONT "$1"
}

end=$((started + minutes * 60))
first=1
while [ "$(date +%s)" -lt "$end" ]; do
  if [ -n "$first" ]; then kind=images; first=; else
    kinds=(sshd libvirtd images destroy undefine undefine edit edit)
    kind=${kinds[$((RANDOM % ${#kinds[@]}))]}
  fi
  host=$([ $((RANDOM % 2)) -eq 0 ] && echo local || echo local2)
  case $kind in
    sshd)
      fault sshd "$host"
      if [ "$host" = local ]; then "$root/scripts/test-stack.sh" kill-sshd >/dev/null 2>&1
      else "$root/scripts/test-stack.sh" kill-sshd second >/dev/null 2>&1; fi
      sleep $((10 + RANDOM % 21))
      "$root/scripts/test-stack.sh" up >/dev/null 2>&1 || "$root/scripts/test-stack.sh" up ;;
    libvirtd)
      fault libvirtd "$host SIGSTOP 20 s"
      freeze_for "$(libvirtd_pid "$host")" 20 ;;
    images)
      fault images "image server SIGSTOP 20 s"
      freeze_for "$image_pid" 20 ;;
    destroy|undefine)
      name=$(pick_name)
      uri=$(uri_of "$(host_of "$name")")
      fault "$kind" "$name"
      vsh "$uri" destroy "$name" >/dev/null 2>&1 || true
      if [ "$kind" = undefine ]; then vsh "$uri" undefine "$name" --nvram >/dev/null 2>&1 || true; fi ;;
    edit)
      count=$(wc -l <"$work/names")
      if [ "$count" -le 16 ] || { [ "$count" -lt 24 ] && [ $((RANDOM % 2)) -eq 0 ]; }; then
        name=$(printf '%s-p%02d' "$entry" "$next_proxy")
        next_proxy=$((next_proxy + 1))
        echo "$name" >>"$work/names"
        fault edit "add $name"
      else
        name=$(pick_name)
        grep -vx "$name" "$work/names" >"$work/names.new" || true
        mv "$work/names.new" "$work/names"
        fault edit "remove $name"
      fi
      write_desired ;;
  esac
  kill -0 "$serve_pid" 2>/dev/null || { violation "serve died during the faults"; break; }
  sleep $((5 + RANDOM % 16))
done
faults_done=$(date +%s)
say "faults over after $((faults_done - started)) s: $(for k in "${!fault_count[@]}"; do printf '%s=%s ' "$k" "${fault_count[$k]}"; done)"

# Convergence: serve's view and both hosts agree with the desired set.
check_state() { # prints problems; empty when converged
  curl -sf --max-time 10 "$base/v1/proxies" >"$work/proxies.json" || { echo "API did not answer"; return; }
  "$python" - "$work/proxies.json" "$work/names" "$entry" <<'EOF'
import json, sys
doc = json.load(open(sys.argv[1]))
names = [n.strip() for n in open(sys.argv[2]) if n.strip()]
entry = sys.argv[3]
views = {p["name"]: p for p in doc["proxies"] if p["entry"] == entry}
for n in names:
    v = views.get(n)
    if v is None or v["state"] not in ("PROVISIONING", "RUNNING") or v["outcome"] != "ok":
        print("serve: %s is %s" % (n, None if v is None else (v["state"], v["outcome"], v["error"])))
for n, v in views.items():
    if n not in names:
        print("serve: undesired %s is %s" % (n, v["state"]))
EOF
  local h name expected
  for h in local local2; do
    while read -r name; do
      [ "$(host_of "$name")" = "$h" ] || continue
      grep -qx "$name" <<<"$(domains_of "$(uri_of "$h")" "$entry-")" || echo "virsh: $name missing on $h"
    done <"$work/names"
    for name in $(domains_of "$(uri_of "$h")" "$entry-"); do
      grep -qx "$name" "$work/names" && [ "$(host_of "$name")" = "$h" ] || echo "virsh: undesired domain $name on $h"
    done
    # Volumes: each desired proxy's overlay and seed there, and the cached base with its marker.
    for name in $(volumes_of "$(uri_of "$h")" "$entry+"); do
      case $name in
        "$entry+tiny."*.base.qcow2|"$entry+tiny."*.base.qcow2.sha256) continue ;;
      esac
      expected=${name#"$entry+"}; expected=${expected%.qcow2}; expected=${expected%.seed.iso}
      grep -qx "$expected" "$work/names" && [ "$(host_of "$expected")" = "$h" ] \
        || echo "virsh: orphan volume $name on $h"
    done
  done
}
converge_started=$(date +%s)
converged=
while [ $(( $(date +%s) - converge_started )) -lt 360 ]; do
  problems=$(check_state)
  if [ -z "$problems" ]; then converged=1; break; fi
  sleep 5
done
converge_seconds=$(( $(date +%s) - converge_started ))
if [ -n "$converged" ]; then
  say "converged $converge_seconds s after the last fault"
else
  violation "not converged 360 s after the last fault:"
  printf '  %s\n' "$problems" | tee -a "$violations"
fi
[ -s "$work/twice" ] && violation "a name existed on both hosts at once: $(tr '\n' ';' <"$work/twice")"

# RSS: minute 2 (the sample nearest 120 s) against the last sample.
rss_at() { awk -v t="$1" '$2 != "" { d = $1 - t; if (d < 0) d = -d; if (best == "" || d < bd) { best = $2; bd = d } } END { print best }' "$work/rss"; }
rss2=$(rss_at 120)
rss_last=$(awk '$2 != "" { v = $2 } END { print v }' "$work/rss")
rss_max=$(awk '$2 > m { m = $2 } END { print m }' "$work/rss")
growth=$(awk -v a="$rss2" -v b="$rss_last" 'BEGIN { printf "%.1f", (b - a) * 100 / a }')
say "RSS minute 2: $((rss2 / 1024)) MiB, last ($(( $(tail -1 "$work/rss" | cut -d' ' -f1) / 60 )) min): $((rss_last / 1024)) MiB, growth ${growth}%, max $((rss_max / 1024)) MiB, $(wc -l <"$work/rss") samples"
awk -v g="$growth" 'BEGIN { exit !(g >= 10) }' && violation "RSS grew ${growth}% from minute 2 to the end (limit 10%)"

passes=$(curl -sf "$base/metrics" | awk '/^egress_reconcile_passes_total\{/ { s += $2 } END { print s + 0 }')
operations=$(curl -sf "$base/metrics" | awk '/^egress_operations_total\{/ { print $1 "=" $2 }' | sed 's/egress_operations_total//' | tr '\n' ' ')
say "passes: $passes; operations: $operations"
say "domain-list polls: $(wc -l <"$work/polls" 2>/dev/null || echo 0)"

stop_started=$(date +%s)
kill -TERM "$serve_pid"
status=0
wait "$serve_pid" || status=$?
serve_pid=
say "serve exited $status $(( $(date +%s) - stop_started )) s after SIGTERM"
[ "$status" -eq 0 ] || violation "serve exited $status after SIGTERM"
grep -c ' ok ' "$work/serve.log" >/dev/null || true
say "serve's log: $(wc -l <"$work/serve.log") lines, $(grep -ci 'warn' "$work/serve.log" || true) warnings"

if [ -s "$violations" ]; then
  echo "[serve-soak] FAILED (seed $seed): $(wc -l <"$violations") violation(s); serve's last log lines:"
  tail -40 "$work/serve.log"
  exit 1
fi
echo "[serve-soak] passed (seed $seed): $minutes min of faults, converged in ${converge_seconds} s, RSS growth ${growth}%"
