#!/usr/bin/env bash
# What fetch: host gains (issue #34): times whole processes on the test stack, all in one run, and
# prints medians and ratios. Nothing is asserted: the machine may be loaded, so read ratios.
#
# Usage: scripts/bench-host-fetch.sh [--runs N] [--mebibytes N] [--client] [--egressctl PATH]
#   anchor  virsh vol-upload of the image file over qemu+ssh (OpenSSH, the stack's sshd) into a raw
#           volume of its size, made before each run and removed after: the bare transfer
#   host    egressctl create of an instance of that image (catalogue image, format raw, sha256
#           pinned, fetch: host) on a kvm2 entry with the stack's first host: the host downloads it
#           from a loopback HTTP server with its curl, checks it with sha256sum, then the overlay,
#           seed and domain; the base and its marker are removed after each run, so every create
#           fetches the image anew
#   cached  the same create when the base is cached (fetched once before the measurement, only
#           the instance removed after each run): what a create costs without any fetch, so
#           (host - cached) is what the fetch itself costs egressctl
#   client  with --client, the same create with fetch: client: the image streams through egressctl
# Each case: one warm-up run, then N runs (default 5), alternating between the cases run by run.
# Wall and CPU (user + system of the process: egressctl's own, or virsh's and ssh's) are medians;
# speed is anchor wall / case wall (above 1.00x is faster than the anchor); egressctl's CPU per GiB
# is given whole and less the cached create's. The image (default
# 1024 MiB of random bytes) is made once in $TMPDIR/egress-host-fetch-bench and kept; it is
# served by python3's http.server on 127.0.0.1. Needs the test stack (`scripts/test-stack.sh up`,
# as root); removes every domain and volume it makes, also when interrupted.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd -P)

runs=5
mebibytes=1024
client=no
egressctl="$root/runtime/target/egressctl/bin/egressctl"
while [ $# -gt 0 ]; do
  case $1 in
    --runs) runs=$2; shift 2 ;;
    --mebibytes) mebibytes=$2; shift 2 ;;
    --client) client=yes; shift ;;
    --egressctl) egressctl=$2; shift 2 ;;
    -h|--help) sed -n '2,25p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "bench-host-fetch: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
[[ $runs =~ ^[1-9][0-9]*$ ]] || { echo "bench-host-fetch: --runs must be a positive number" >&2; exit 2; }
[[ $mebibytes =~ ^[1-9][0-9]*$ ]] || { echo "bench-host-fetch: --mebibytes must be a positive number" >&2; exit 2; }
command -v python3 >/dev/null || { echo "bench-host-fetch: needs python3 (Debian package 'python3')" >&2; exit 2; }
env_file=${EGRESS_TEST_STACK_DIR:-/tmp/egress-test-stack}/env
[ -f "$env_file" ] || { echo "bench-host-fetch: the test stack is not up (scripts/test-stack.sh up, as root)" >&2; exit 2; }
# shellcheck source=/dev/null
. "$env_file"
if [ ! -x "$egressctl" ]; then
  "$root/egressctl" --version >/dev/null
fi

images=${TMPDIR:-/tmp}/egress-host-fetch-bench
image=$images/image-${mebibytes}MiB.raw
if [ ! -s "$image.sha256" ] || [ ! -f "$image" ]; then
  echo "== making $image ($mebibytes MiB of random bytes, once)"
  mkdir -p "$images"
  head -c "$((mebibytes << 20))" /dev/urandom >"$image.partial"
  mv -f "$image.partial" "$image"
  sha256sum "$image" | cut -d' ' -f1 >"$image.sha256"
fi
sha256=$(cat "$image.sha256")

work=$(mktemp -d "${TMPDIR:-/tmp}/egress-bench-host-fetch.XXXXXX")
prefix="bench-hostfetch-$$"
config="$work/egress.yaml"
anchor_volume="$prefix-anchor.raw"
http_pid=

on() { virsh -q -c qemu:///system "$@"; }

# remove_run ENTRY NAME [PATTERN]: the instance's domain and every volume of the entry (base and
# marker too), or those matching PATTERN (ENTRY+NAME. for the instance's only).
remove_run() {
  local entry=$1 name=$2 pattern=${3:-$1+} volume
  if on dominfo "$name" >/dev/null 2>&1; then
    on destroy "$name" >/dev/null 2>&1 || true
    on undefine "$name" --nvram >/dev/null
  fi
  for volume in $(on vol-list "$EGRESS_TEST_POOL" | awk '{print $1}' | grep -F "$pattern" || true); do
    on vol-delete --pool "$EGRESS_TEST_POOL" "$volume" >/dev/null
  done
}

cleanup() {
  local domain volume
  [ -z "$http_pid" ] || kill "$http_pid" 2>/dev/null || true
  for domain in $(on list --all --name 2>/dev/null | grep "^$prefix-" || true); do
    on destroy "$domain" >/dev/null 2>&1 || true
    on undefine "$domain" --nvram >/dev/null 2>&1 || true
  done
  for volume in $(on vol-list "$EGRESS_TEST_POOL" 2>/dev/null | awk '{print $1}' | grep "^$prefix-" || true); do
    on vol-delete --pool "$EGRESS_TEST_POOL" "$volume" >/dev/null 2>&1 || true
  done
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
python3 -m http.server --bind 127.0.0.1 --directory "$images" "$port" >"$work/http.log" 2>&1 &
http_pid=$!
for _ in $(seq 50); do
  curl -fsS -o /dev/null -I "http://127.0.0.1:$port/${image##*/}" 2>/dev/null && break
  sleep 0.1
done

# entry NAME FETCH: a kvm2 entry on the stack's first host with the image as "big".
entry() {
  cat <<EOF2
  - name: $1
    type: kvm2
    sshKeyFile: $EGRESS_TEST_SSH_KEY
    knownHostsFile: $EGRESS_TEST_KNOWN_HOSTS
    hosts:
      - {name: local, address: $EGRESS_TEST_SSH_HOST, port: $EGRESS_TEST_SSH_PORT, user: $EGRESS_TEST_SSH_USER,
         socket: $EGRESS_TEST_LIBVIRT_SOCKET, pool: $EGRESS_TEST_POOL, bridge: $EGRESS_TEST_BRIDGE,
         domainType: $EGRESS_TEST_DOMAIN_TYPE}
    machineTypes:
      small: {vcpus: 1, memoryMiB: 128}
    images:
      big: {url: 'http://127.0.0.1:$port/${image##*/}', sha256: "$sha256", format: raw, firmware: bios, fetch: $2}
    diskSizeGb: 2
EOF2
}
{
  echo "providers:"
  entry "$prefix-host" host
  entry "$prefix-cached" host
  entry "$prefix-client" client
} >"$config"

MEASURE_LABEL=bench-host-fetch
MEASURE_NAME_WIDTH=8
# shellcheck source=lib/measure.sh
. "$root/scripts/lib/measure.sh"

java_cmd="${JAVA_HOME:+$JAVA_HOME/bin/}java"
echo "bench-host-fetch: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $("$java_cmd" -version 2>&1 | head -1)"
echo "egressctl: $egressctl; image: $mebibytes MiB, sha256 $sha256"

echo "== fetching the image's base for the cached case"
"$egressctl" --config "$config" create "$prefix-warm" --provider "$prefix-cached" --machine-type small --image big \
  >/dev/null
remove_run "$prefix-cached" "$prefix-warm" "$prefix-cached+$prefix-warm."

uri=$("$root/scripts/virsh-over-ssh.sh" --uri)
on vol-create-as "$EGRESS_TEST_POOL" "$anchor_volume" "$((mebibytes << 20))" --format raw >/dev/null
egressctl_q=$(printf '%q --config %q' "$egressctl" "$config")
cases=(
  anchor "virsh -q -c '$uri' vol-upload --pool $EGRESS_TEST_POOL $anchor_volume $(printf '%q' "$image")"
  host "$egressctl_q create $prefix-h --provider $prefix-host --machine-type small --image big"
  cached "$egressctl_q create $prefix-k --provider $prefix-cached --machine-type small --image big"
)
if [ "$client" = yes ]; then
  cases+=(client "$egressctl_q create $prefix-c --provider $prefix-client --machine-type small --image big")
fi
echo "== $runs runs each after a warm-up, alternating; every create fetches the image anew"
BETWEEN_RUNS_anchor="on vol-delete --pool '$EGRESS_TEST_POOL' '$anchor_volume' >/dev/null; on vol-create-as '$EGRESS_TEST_POOL' '$anchor_volume' $((mebibytes << 20)) --format raw >/dev/null" \
  BETWEEN_RUNS_host="remove_run '$prefix-host' '$prefix-h'" \
  BETWEEN_RUNS_cached="remove_run '$prefix-cached' '$prefix-k' '$prefix-cached+$prefix-k.'" \
  BETWEEN_RUNS_client="remove_run '$prefix-client' '$prefix-c'" \
  measure "$runs" "${cases[@]}"

gib=$(awk -v m="$mebibytes" 'BEGIN { print m / 1024 }')
echo "== speed against the anchor (anchor wall / case wall) and CPU per GiB of the process"
per_gib() { awk -v c="$1" -v k="${CPU[cached]}" -v g="$gib" 'BEGIN { printf "%.2f s per GiB, %.2f s less the cached create", c / g, (c - k) / g }'; }
printf '  host    %s   egressctl cpu %s\n' "$(ratio "${WALL[anchor]}" "${WALL[host]}")" "$(per_gib "${CPU[host]}")"
if [ "$client" = yes ]; then
  printf '  client  %s   egressctl cpu %s\n' "$(ratio "${WALL[anchor]}" "${WALL[client]}")" "$(per_gib "${CPU[client]}")"
fi
echo "bench-host-fetch: load after $(cut -d' ' -f1-3 /proc/loadavg)"
