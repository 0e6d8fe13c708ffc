#!/usr/bin/env bash
# What an entry with several hosts costs a create (issue #37): times whole `egressctl create`
# processes of a cached image on the test stack and prints medians and ratios, all in one run.
# Nothing is asserted: the machine may be loaded, so read ratios.
#
# Usage: scripts/bench-fleet.sh [--runs N] [--egressctl PATH] [--baseline PATH]
#   one-host  create on a kvm2 entry with one host: no name claim (the anchor)
#   zone      create --zone hv-1 on a kvm2 entry with two hosts (the stack's two libvirtds): the
#             name claim taken and released on the claims host (hv-1), the name looked up on hv-2
#   placed    create without --zone on that entry: the hosts surveyed and one chosen, then as zone
#   before    with --baseline PATH, an egressctl built before name claims (for example from the
#             commit before them, in a worktree: ./mvnw package): zone's create without the claim,
#             so zone/before is what the claim alone costs
# Each case: one warm-up run, then N runs (default 10), alternating between the cases run by run;
# after each run the instance is removed behind egressctl's back (virsh), so every create is fresh
# and every placement sees the entry empty. Wall and CPU (user + system) of the process, medians.
# The image's base volumes are fetched before the measurement, on both hosts, so every create
# finds its base cached. Needs the test stack (`scripts/test-stack.sh up`, as root); removes every
# domain and volume it makes, also when interrupted.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd -P)

runs=10
baseline=
egressctl="$root/runtime/target/egressctl/bin/egressctl"
while [ $# -gt 0 ]; do
  case $1 in
    --runs) runs=$2; shift 2 ;;
    --egressctl) egressctl=$2; shift 2 ;;
    --baseline) baseline=$2; shift 2 ;;
    -h|--help) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "bench-fleet: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
[[ $runs =~ ^[1-9][0-9]*$ ]] || { echo "bench-fleet: --runs must be a positive number" >&2; exit 2; }
command -v python3 >/dev/null || { echo "bench-fleet: needs python3 to time the runs (Debian package 'python3')" >&2; exit 2; }
env_file=${EGRESS_TEST_STACK_DIR:-/tmp/egress-test-stack}/env
[ -f "$env_file" ] || { echo "bench-fleet: the test stack is not up (scripts/test-stack.sh up, as root)" >&2; exit 2; }
# shellcheck source=/dev/null
. "$env_file"
if [ ! -x "$egressctl" ]; then
  "$root/egressctl" --version >/dev/null
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/egress-bench-fleet.XXXXXX")
# Domain names are unique per libvirtd, not per entry: every instance starts with $prefix.
prefix="bench-fleet-$$"
one="$prefix-one-host"
two="$prefix-two-hosts"
config="$work/egress.yaml"
uris=(qemu:///system "$EGRESS_TEST_HOST2_LIBVIRT_URI")

on() { local uri=$1; shift; virsh -q -c "$uri" "$@"; }

# remove_instance ENTRY NAME: the domain on either host, its overlay and seed (ENTRY+NAME.*).
remove_instance() {
  local entry=$1 name=$2 uri volume
  for uri in "${uris[@]}"; do
    if on "$uri" dominfo "$name" >/dev/null 2>&1; then
      on "$uri" destroy "$name" >/dev/null 2>&1 || true
      on "$uri" undefine "$name" --nvram >/dev/null
    fi
    for volume in $(on "$uri" vol-list "$EGRESS_TEST_POOL" | awk '{print $1}' | grep -F "$entry+$name." || true); do
      on "$uri" vol-delete --pool "$EGRESS_TEST_POOL" "$volume" >/dev/null
    done
  done
}

# Everything the run made: its domains, and the entries' volumes (instances, bases, claims, cordons).
cleanup() {
  local uri domain volume
  for uri in "${uris[@]}"; do
    for domain in $(on "$uri" list --all --name 2>/dev/null | grep "^$prefix-" || true); do
      on "$uri" destroy "$domain" >/dev/null 2>&1 || true
      on "$uri" undefine "$domain" --nvram >/dev/null 2>&1 || true
    done
    for volume in $(on "$uri" vol-list "$EGRESS_TEST_POOL" 2>/dev/null | awk '{print $1}' | grep "^$prefix-" || true); do
      on "$uri" vol-delete --pool "$EGRESS_TEST_POOL" "$volume" >/dev/null 2>&1 || true
    done
  done
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# host NAME PORT SOCKET: one host of the stack, as a flow mapping.
host() {
  echo "      - {name: $1, address: $EGRESS_TEST_SSH_HOST, port: $2, user: $EGRESS_TEST_SSH_USER, socket: $3,"
  echo "         pool: $EGRESS_TEST_POOL, bridge: $EGRESS_TEST_BRIDGE, domainType: $EGRESS_TEST_DOMAIN_TYPE}"
}
# entry NAME HOSTS...: a kvm2 entry on those of the stack's hosts (hv-1, hv-2).
entry() {
  local name=$1
  shift
  echo "  - name: $name"
  echo "    type: kvm2"
  echo "    sshKeyFile: $EGRESS_TEST_SSH_KEY"
  echo "    knownHostsFile: $EGRESS_TEST_KNOWN_HOSTS"
  echo "    hosts:"
  local h
  for h in "$@"; do
    case $h in
      hv-1) host hv-1 "$EGRESS_TEST_SSH_PORT" "$EGRESS_TEST_LIBVIRT_SOCKET" ;;
      hv-2) host hv-2 "$EGRESS_TEST_HOST2_SSH_PORT" "$EGRESS_TEST_HOST2_LIBVIRT_SOCKET" ;;
    esac
  done
  echo "    machineTypes:"
  echo "      small: {vcpus: 1, memoryMiB: 128}"
  echo "    images:"
  echo "      bench: {url: '$EGRESS_TEST_HTTP_URL/$EGRESS_TEST_IMAGE_QCOW2', sha256: $EGRESS_TEST_IMAGE_QCOW2_SHA256, firmware: bios}"
  echo "    diskSizeGb: 2"
}
{
  echo "providers:"
  entry "$one" hv-1
  entry "$two" hv-1 hv-2
} >"$config"

MEASURE_LABEL=bench-fleet
MEASURE_NAME_WIDTH=10
# shellcheck source=lib/measure.sh
. "$root/scripts/lib/measure.sh"

java_cmd="${JAVA_HOME:+$JAVA_HOME/bin/}java"
echo "bench-fleet: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $("$java_cmd" -version 2>&1 | head -1)"
echo "egressctl: $egressctl"

run() { "$egressctl" --config "$config" "$@"; }
# The image's base on every host of each entry (bases are per entry), so no measured create fetches.
echo "== fetching the image's base: $one on hv-1, $two on hv-1 and hv-2"
run create "$prefix-warm" --provider "$one" --zone hv-1 --machine-type small --image bench >/dev/null
remove_instance "$one" "$prefix-warm"
for zone in hv-1 hv-2; do
  run create "$prefix-warm" --provider "$two" --zone "$zone" --machine-type small --image bench >/dev/null
  remove_instance "$two" "$prefix-warm"
done

echo "== create of a cached image, fresh process each, instance removed after each"
egressctl_q=$(printf '%q --config %q' "$egressctl" "$config")
cases=(
  one-host "$egressctl_q create $prefix-a --provider $one --zone hv-1 --machine-type small --image bench"
  zone "$egressctl_q create $prefix-b --provider $two --zone hv-1 --machine-type small --image bench"
  placed "$egressctl_q create $prefix-c --provider $two --machine-type small --image bench"
)
if [ -n "$baseline" ]; then
  cases+=(before "$(printf '%q --config %q' "$baseline" "$config") create $prefix-d --provider $two --zone hv-1 --machine-type small --image bench")
fi
BETWEEN_RUNS_one_host="remove_instance '$one' '$prefix-a'" \
  BETWEEN_RUNS_zone="remove_instance '$two' '$prefix-b'" \
  BETWEEN_RUNS_placed="remove_instance '$two' '$prefix-c'" \
  BETWEEN_RUNS_before="remove_instance '$two' '$prefix-d'" \
  measure "$runs" "${cases[@]}"
printf '  (a) two hosts, --zone hv-1 (name claim):          %6.3f s wall, %s of the one-host create (%.3f s); cpu %s\n' \
  "${WALL[zone]}" "$(ratio "${WALL[zone]}" "${WALL[one-host]}")" "${WALL[one-host]}" \
  "$(ratio "${CPU[zone]}" "${CPU[one-host]}")"
printf '  (b) two hosts, no zone (placement + name claim):  %6.3f s wall, %s of the one-host create (%.3f s); cpu %s\n' \
  "${WALL[placed]}" "$(ratio "${WALL[placed]}" "${WALL[one-host]}")" "${WALL[one-host]}" \
  "$(ratio "${CPU[placed]}" "${CPU[one-host]}")"
if [ -n "$baseline" ]; then
  printf '  the claim alone: two hosts, --zone hv-1, %.3f s wall with it, %.3f s without (baseline): %s; cpu %s\n' \
    "${WALL[zone]}" "${WALL[before]}" "$(ratio "${WALL[zone]}" "${WALL[before]}")" \
    "$(ratio "${CPU[zone]}" "${CPU[before]}")"
  printf '  placement and claim: two hosts, no zone, against the baseline with --zone: %s wall, cpu %s\n' \
    "$(ratio "${WALL[placed]}" "${WALL[before]}")" "$(ratio "${CPU[placed]}" "${CPU[before]}")"
fi
echo "  placed: the last run went to $(cat "$work/placed.out")"
