#!/usr/bin/env bash
# Times whole egressctl processes, as a person runs them, next to their anchors in the same run,
# and prints medians and ratios. Nothing is asserted: the machine may be loaded, so read ratios.
#
# Usage: scripts/bench-cli.sh [--only startup|list|ingest] [--runs N] [--domains N]
#                             [--image-mib N] [--egressctl PATH]
#   startup  `--help`, `--version` and `list` on the built-in fake, against `java -version`
#   list     `list` of a kvm2 entry with 0 and N managed domains (default 500) through the test
#            stack's sshd, against one virsh session over qemu+ssh doing the same reads
#            (list, then metadata and state of every domain)
#   ingest   `create` of a kvm2 instance from a new N MiB raw image (default 1024, sha256 pinned)
#            over HTTP into the pool through sshd, against `virsh vol-upload` of the same file
#            over qemu+ssh; then the instance, the base volume and the file are removed
# Default: all three. --egressctl names another launcher (e.g. an older build) to compare.
# The list and ingest parts need the test stack (`scripts/test-stack.sh up`, as root).
#
# Each case: one warm-up run, then N runs (default 10; 5 for ingest); wall and CPU (user + system,
# children included) to the microsecond, from the kernel's accounting of the finished process
# (GNU time prints hundredths, too coarse for a 0.03 s `java -version`); the median of each.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd -P)

only=all
runs=10
domains=500
image_mib=1024
egressctl="$root/runtime/target/egressctl/bin/egressctl"
while [ $# -gt 0 ]; do
  case $1 in
    --only) only=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --domains) domains=$2; shift 2 ;;
    --image-mib) image_mib=$2; shift 2 ;;
    --egressctl) egressctl=$2; shift 2 ;;
    -h|--help) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "bench-cli: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
case $only in all|startup|list|ingest) ;; *) echo "bench-cli: --only takes startup, list or ingest" >&2; exit 2 ;; esac
[[ $runs =~ ^[1-9][0-9]*$ ]] || { echo "bench-cli: --runs must be a positive number" >&2; exit 2; }
command -v python3 >/dev/null || { echo "bench-cli: needs python3 to time the runs (Debian package 'python3')" >&2; exit 2; }
if [ ! -x "$egressctl" ]; then
  "$root/egressctl" --version >/dev/null
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/egress-bench-cli.XXXXXX")
cleanups=()
cleanup() {
  local step
  for step in "${cleanups[@]}"; do eval "$step" || true; done
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

MEASURE_LABEL=bench-cli
# shellcheck source=lib/measure.sh
. "$root/scripts/lib/measure.sh"

java_cmd="${JAVA_HOME:+$JAVA_HOME/bin/}java"

bench_startup() {
  echo "== start-up: egressctl on the built-in fake vs java -version"
  local home="$work/home"
  mkdir -p "$home"
  local java_q egressctl_q
  java_q=$(printf '%q' "$java_cmd") egressctl_q=$(printf 'env HOME=%q %q' "$home" "$egressctl")
  measure "$runs" java-version "$java_q -version" egressctl-help "$egressctl_q --help" \
    egressctl-version "$egressctl_q --version" egressctl-list-fake "$egressctl_q list"
  local c
  for c in egressctl-help egressctl-version egressctl-list-fake; do
    printf '  %-34s cpu %s, wall %s of java -version\n' "$c" \
      "$(ratio "${CPU[$c]}" "${CPU[java-version]}")" "$(ratio "${WALL[$c]}" "${WALL[java-version]}")"
  done
}

stack_env() {
  local env_file=/tmp/egress-test-stack/env
  [ -f "$env_file" ] || { echo "bench-cli: the test stack is not up (scripts/test-stack.sh up, as root)" >&2; exit 2; }
  # shellcheck source=/dev/null
  . "$env_file"
  uri=$("$root/scripts/virsh-over-ssh.sh" --uri)
}

# kvm2_config FILE ENTRY [IMAGE_URL SHA256]: a config with one kvm2 entry on the test stack.
kvm2_config() {
  local file=$1 entry=$2 url=${3:-} sha=${4:-}
  {
    echo "providers:"
    echo "  - name: $entry"
    echo "    type: kvm2"
    echo "    sshKeyFile: $EGRESS_TEST_SSH_KEY"
    echo "    knownHostsFile: $EGRESS_TEST_KNOWN_HOSTS"
    echo "    hosts:"
    echo "      - {name: hv-1, address: $EGRESS_TEST_SSH_HOST, port: $EGRESS_TEST_SSH_PORT, user: $EGRESS_TEST_SSH_USER,"
    echo "         pool: $EGRESS_TEST_POOL, bridge: $EGRESS_TEST_BRIDGE, domainType: $EGRESS_TEST_DOMAIN_TYPE}"
    echo "    machineTypes:"
    echo "      small: {vcpus: 1, memoryMiB: 128}"
    echo "    images:"
    if [ -n "$url" ]; then
      echo "      bench: {url: '$url', sha256: $sha, format: raw, firmware: bios}"
    else
      echo "      bench: {url: '$EGRESS_TEST_HTTP_URL/$EGRESS_TEST_IMAGE_QCOW2', sha256: $EGRESS_TEST_IMAGE_QCOW2_SHA256, firmware: bios}"
    fi
    echo "    diskSizeGb: 2"
  } >"$file"
}

bench_list() {
  stack_env
  local entry="bench-list-$$" prefix="bench-list-$$"
  local config="$work/list.yaml"
  kvm2_config "$config" "$entry"
  echo "== list of a kvm2 entry through sshd vs one virsh session over qemu+ssh"
  local baseline="$root/scripts/virsh-list-managed-baseline.sh"
  local n
  for n in 0 "$domains"; do
    if [ "$n" -gt 0 ]; then
      cleanups+=("'$root/scripts/undefine-domains.sh' '$prefix' >/dev/null 2>&1")
      "$root/scripts/define-many-domains.sh" "$n" "$prefix" "$entry" >/dev/null
    fi
    measure "$runs" "egressctl-list-$n" "$(printf '%q --config %q list' "$egressctl" "$config")" \
      "virsh-session-$n" "$(printf '%q 1' "$baseline")"
    printf '  list of %s domains: egressctl %s of the virsh session (wall), cpu %.2f s vs %.2f s\n' "$n" \
      "$(ratio "${WALL[egressctl-list-$n]}" "${WALL[virsh-session-$n]}")" "${CPU[egressctl-list-$n]}" "${CPU[virsh-session-$n]}"
  done
  "$root/scripts/undefine-domains.sh" "$prefix" >/dev/null
}

# The ingest case's names are global: the EXIT trap may need them after bench_ingest returned.
ingest_config="" ingest_entry="" ingest_name="" ingest_virsh=()

# After each create the instance and the base volume go, so the next create fetches again.
remove_instance_and_base() {
  [ -n "$ingest_config" ] || return 0
  "$egressctl" --config "$ingest_config" delete "$ingest_entry/hv-1/$ingest_name" >/dev/null 2>&1 || true
  local volume
  for volume in $("${ingest_virsh[@]}" vol-list --pool "$EGRESS_TEST_POOL" | awk '{print $1}' | grep -F "$ingest_entry+" || true); do
    "${ingest_virsh[@]}" vol-delete --pool "$EGRESS_TEST_POOL" "$volume" >/dev/null
  done
}

bench_ingest() {
  stack_env
  local ingest_runs=$((runs < 5 ? runs : 5))
  ingest_entry="bench-ingest-$$" ingest_name="bench-$$"
  ingest_config="$work/ingest.yaml"
  ingest_virsh=(virsh -q -c "$uri")
  local file="bench-ingest-$$.raw"
  local path="$EGRESS_TEST_IMAGES_DIR/$file"
  echo "== ingest: kvm2 create of a new ${image_mib} MiB image vs virsh vol-upload over qemu+ssh"
  cleanups+=("rm -f '$path'")
  # Pseudo-random bytes do not compress, so no transport shortcut flatters either side.
  head -c $((image_mib * 1024 * 1024)) /dev/urandom >"$path"
  local sha
  sha=$(sha256sum "$path" | cut -d' ' -f1)
  kvm2_config "$ingest_config" "$ingest_entry" "$EGRESS_TEST_HTTP_URL/$file" "$sha"
  local virsh_q
  virsh_q=$(printf '%q ' "${ingest_virsh[@]}")
  local upload="bench-upload-$$.raw"
  cleanups+=("$virsh_q vol-delete --pool $EGRESS_TEST_POOL $upload >/dev/null 2>&1")
  cleanups+=("remove_instance_and_base")
  # One virsh session, as egressctl has one SSH connection: create the volume, then upload.
  BETWEEN_RUNS_egressctl_create=remove_instance_and_base \
    BETWEEN_RUNS_virsh_vol_upload="$virsh_q vol-delete --pool $EGRESS_TEST_POOL $upload >/dev/null" \
    measure "$ingest_runs" egressctl-create \
    "$(printf '%q --config %q create %q --machine-type small --image bench' "$egressctl" "$ingest_config" "$ingest_name")" \
    virsh-vol-upload "$virsh_q$(printf '%q' "vol-create-as $EGRESS_TEST_POOL $upload ${image_mib}M --format raw; vol-upload --pool $EGRESS_TEST_POOL $upload $path")"
  printf '  create of a new %s MiB image: %s the speed of virsh vol-upload (wall); egressctl cpu %.1f s per GiB\n' \
    "$image_mib" "$(ratio "${WALL[virsh-vol-upload]}" "${WALL[egressctl-create]}")" \
    "$(awk -v c="${CPU[egressctl-create]}" -v m="$image_mib" 'BEGIN { print c * 1024 / m }')"
}

echo "bench-cli: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $("$java_cmd" -version 2>&1 | head -1)"
echo "egressctl: $egressctl"
case $only in
  all) bench_startup; bench_list; bench_ingest ;;
  startup) bench_startup ;;
  list) bench_list ;;
  ingest) bench_ingest ;;
esac
