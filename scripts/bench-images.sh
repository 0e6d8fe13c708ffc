#!/usr/bin/env bash
# What managing base images costs (issue #34): times whole `egressctl images` processes on the test
# stack's two hosts and prints medians and ratios, all in one run. Nothing is asserted: the machine
# may be loaded, so read ratios.
#
# Usage: scripts/bench-images.sh [--runs N] [--egressctl PATH] [--only pull|list] [--image-mib M]
#   pull       `images pull` of a new image onto both hosts of a kvm2 entry (hosts at once), against
#              two `images pull --host H` processes one after the other; the image is M MiB
#              (default 256) of pseudo-random bytes, sha256 pinned, served over loopback HTTP; both
#              hosts' bases are deleted (virsh) after each run
#   list       `images` of a kvm2 entry with 50 bases and 500 instances on the two hosts (25 bases and
#              250 instances each: a stopped domain, its overlay on one of the bases, its seed),
#              against one virsh session per host over the stack's sshd, one after the other, that
#              reads the same: vol-list, vol-dumpxml of every volume, the list of domains and each
#              domain's XML (its disks)
# Each case: one warm-up run, then N runs (default 5), alternating between the cases run by run.
# Wall and CPU (user + system) of the processes, medians. Needs the test stack
# (`scripts/test-stack.sh up`, as root); removes every domain and volume it makes, also when
# interrupted.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd -P)

runs=5
only=
image_mib=256
egressctl="$root/runtime/target/egressctl/bin/egressctl"
while [ $# -gt 0 ]; do
  case $1 in
    --runs) runs=$2; shift 2 ;;
    --egressctl) egressctl=$2; shift 2 ;;
    --only) only=$2; shift 2 ;;
    --image-mib) image_mib=$2; shift 2 ;;
    -h|--help) sed -n '2,22p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "bench-images: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
[[ $runs =~ ^[1-9][0-9]*$ ]] || { echo "bench-images: --runs must be a positive number" >&2; exit 2; }
[[ $image_mib =~ ^[1-9][0-9]*$ ]] || { echo "bench-images: --image-mib must be a positive number" >&2; exit 2; }
case $only in ''|pull|list) ;; *) echo "bench-images: --only pull or list" >&2; exit 2 ;; esac
command -v python3 >/dev/null || { echo "bench-images: needs python3 (Debian package 'python3')" >&2; exit 2; }
env_file=${EGRESS_TEST_STACK_DIR:-/tmp/egress-test-stack}/env
[ -f "$env_file" ] || { echo "bench-images: the test stack is not up (scripts/test-stack.sh up, as root)" >&2; exit 2; }
# shellcheck source=/dev/null
. "$env_file"
if [ ! -x "$egressctl" ]; then
  "$root/egressctl" --version >/dev/null
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/egress-bench-images.XXXXXX")
# Domain names are unique per libvirtd: every domain and volume of the run starts with $prefix.
prefix="bench-images-$$"
entry="$prefix-e"
config="$work/egress.yaml"
uris=(qemu:///system "$EGRESS_TEST_HOST2_LIBVIRT_URI")
ssh_uri() {
  echo "qemu+ssh://root@127.0.0.1:$1/system?keyfile=$EGRESS_TEST_SSH_KEY&known_hosts=$EGRESS_TEST_KNOWN_HOSTS&socket=$2&no_verify=0&command=$EGRESS_TEST_VIRSH_SSH_COMMAND"
}
ssh_uris=("$(ssh_uri "$EGRESS_TEST_SSH_PORT" "$EGRESS_TEST_LIBVIRT_SOCKET")"
  "$(ssh_uri "$EGRESS_TEST_HOST2_SSH_PORT" "$EGRESS_TEST_HOST2_LIBVIRT_SOCKET")")
server_pid=

on() { local uri=$1; shift; virsh -q -c "$uri" "$@"; }

# remove_volumes MATCH: the volumes of the pool on both hosts whose names start with MATCH.
remove_volumes() {
  local uri volume
  for uri in "${uris[@]}"; do
    for volume in $(on "$uri" vol-list "$EGRESS_TEST_POOL" 2>/dev/null | awk '{print $1}' | grep "^$1" || true); do
      on "$uri" vol-delete --pool "$EGRESS_TEST_POOL" "$volume" >/dev/null 2>&1 || true
    done
  done
}

cleanup() {
  local uri domain
  [ -z "$server_pid" ] || kill "$server_pid" 2>/dev/null || true
  for uri in "${uris[@]}"; do
    for domain in $(on "$uri" list --all --name 2>/dev/null | grep "^$prefix-" || true); do
      on "$uri" destroy "$domain" >/dev/null 2>&1 || true
      on "$uri" undefine "$domain" --nvram >/dev/null 2>&1 || true
    done
  done
  remove_volumes "$prefix-"
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

MEASURE_LABEL=bench-images
MEASURE_NAME_WIDTH=16
# shellcheck source=lib/measure.sh
. "$root/scripts/lib/measure.sh"
# shellcheck source=lib/stack-entry.sh
. "$root/scripts/lib/stack-entry.sh"

java_cmd="${JAVA_HOME:+$JAVA_HOME/bin/}java"
echo "bench-images: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $("$java_cmd" -version 2>&1 | head -1)"
echo "egressctl: $egressctl"

# The stack's two hosts as entry $entry (hosts local and local2), with a "big" image besides tiny.
mkdir -p "$work/www"
head -c "$((image_mib * 1024 * 1024))" /dev/urandom >"$work/www/big.raw"
big_sha=$(sha256sum "$work/www/big.raw" | cut -d' ' -f1)
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
python3 -m http.server "$port" --bind 127.0.0.1 --directory "$work/www" >/dev/null 2>&1 &
server_pid=$!
{
  kvm2_two_host_entry "$entry" "$EGRESS_TEST_POOL" "$EGRESS_TEST_HTTP_URL/$EGRESS_TEST_IMAGE_QCOW2"
  echo "      big: {url: 'http://127.0.0.1:$port/big.raw', sha256: $big_sha, format: raw, firmware: bios}"
} >"$config"
for _ in $(seq 50); do
  python3 -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:$port/', timeout=1)" 2>/dev/null && break
  sleep 0.1
done
egressctl_q=$(printf '%q --config %q' "$egressctl" "$config")

if [ -z "$only" ] || [ "$only" = pull ]; then
  echo "== images pull of a new $image_mib MiB image onto two hosts, fresh bases each run"
  BETWEEN_RUNS_two_at_once="remove_volumes '$entry+big.'" \
    BETWEEN_RUNS_one_after_other="remove_volumes '$entry+big.'" \
    measure "$runs" \
    two-at-once "$egressctl_q images pull big --provider $entry" \
    one-after-other "$egressctl_q images pull big --provider $entry --host local && $egressctl_q images pull big --provider $entry --host local2"
  printf '  pull onto two hosts at once: %.3f s wall, %s of two pulls one after the other (%.3f s); cpu %s\n' \
    "${WALL[two-at-once]}" "$(ratio "${WALL[two-at-once]}" "${WALL[one-after-other]}")" \
    "${WALL[one-after-other]}" "$(ratio "${CPU[two-at-once]}" "${CPU[one-after-other]}")"
fi

if [ -z "$only" ] || [ "$only" = list ]; then
  echo "== images of 50 bases and 500 instances on two hosts"
  # Per host, in one virsh session: 25 bases (qcow2, 1 MiB) with their markers, 250 overlays on
  # them, 250 seeds and 250 stopped domains whose disk is the overlay.
  for index in 0 1; do
    uri=${uris[$index]}
    {
      for b in $(seq -w 1 25); do
        echo "vol-create-as $EGRESS_TEST_POOL $entry+k$index$b.0123456789abcdef.base.qcow2 1M --format qcow2"
        echo "vol-create-as $EGRESS_TEST_POOL $entry+k$index$b.0123456789abcdef.base.qcow2.sha256 1 --format raw"
      done
    } | virsh -q -c "$uri" >/dev/null
    pool_dir=$(on "$uri" pool-dumpxml "$EGRESS_TEST_POOL" | sed -n 's:.*<path>\(.*\)</path>.*:\1:p' | head -1)
    {
      for i in $(seq -w 1 250); do
        b=$(printf '%02d' $(( (10#$i - 1) % 25 + 1 )))
        name="$prefix-h$index-$i"
        echo "vol-create-as $EGRESS_TEST_POOL $entry+$name.qcow2 1G --format qcow2 --backing-vol $entry+k$index$b.0123456789abcdef.base.qcow2 --backing-vol-format qcow2"
        echo "vol-create-as $EGRESS_TEST_POOL $entry+$name.seed.iso 1M --format raw"
        cat >"$work/$name.xml" <<EOF
<domain type='$EGRESS_TEST_DOMAIN_TYPE'><name>$name</name><memory unit='MiB'>64</memory><vcpu>1</vcpu>
<os><type arch='x86_64'>hvm</type></os><devices>
<disk type='file' device='disk'><driver name='qemu' type='qcow2'/><source file='$pool_dir/$entry+$name.qcow2'/><target dev='vda' bus='virtio'/></disk>
<disk type='file' device='cdrom'><driver name='qemu' type='raw'/><source file='$pool_dir/$entry+$name.seed.iso'/><target dev='sda' bus='sata'/><readonly/></disk>
</devices></domain>
EOF
        echo "define $work/$name.xml"
      done
    } | virsh -q -c "$uri" >/dev/null
  done
  # One virsh session per host over SSH, reading what images reads: volumes, their XML, domains, their XML.
  cat >"$work/virsh-images.sh" <<'EOF'
#!/usr/bin/env bash
set -euo pipefail
pool=$1; shift
for uri in "$@"; do
  # virsh buffers its output when it is not a terminal: line-buffered, each list reaches us as it ends.
  coproc VIRSH { exec stdbuf -oL virsh -q -c "$uri" 2>/dev/null; }
  virsh_pid=$VIRSH_PID
  printf 'vol-list %s\necho "__END_OF""_LIST__"\n\n' "$pool" >&"${VIRSH[1]}"
  volumes=()
  while IFS= read -r line <&"${VIRSH[0]}"; do
    case $line in *__END_OF_LIST__*) break ;; *" /"*) volumes+=("$(awk '{print $1}' <<<"$line")") ;; esac
  done
  printf 'list --all --name\necho "__END_OF""_LIST__"\n\n' >&"${VIRSH[1]}"
  domains=()
  while IFS= read -r line <&"${VIRSH[0]}"; do
    case $line in *__END_OF_LIST__*) break ;; "virsh # "*|"") ;; *) domains+=("$line") ;; esac
  done
  # Read while writing: the XML would fill the pipe and stall virsh, and then the commands. Through
  # a copy of the descriptor: bash does not pass a coprocess's own descriptors to a subshell.
  exec {xml}<&"${VIRSH[0]}"
  grep -c '<backingStore>\|<source file' <&"$xml" >/dev/null &
  reader=$!
  { for v in "${volumes[@]}"; do printf 'vol-dumpxml --pool %s %s\n' "$pool" "$v"; done
    for d in "${domains[@]}"; do printf 'dumpxml %s\n' "$d"; done
    printf 'quit\n'; } >&"${VIRSH[1]}"
  wait "$reader" || true
  exec {xml}<&-
  # bash unsets VIRSH_PID once the coprocess has ended, hence the copy.
  wait "$virsh_pid" 2>/dev/null || true
done
EOF
  chmod +x "$work/virsh-images.sh"
  virsh_q=$(printf '%q %q %q %q' "$work/virsh-images.sh" "$EGRESS_TEST_POOL" "${ssh_uris[0]}" "${ssh_uris[1]}")
  measure "$runs" \
    images "$egressctl_q images --provider $entry" \
    virsh-session "$virsh_q"
  echo "  images listed $(tail -n +2 "$work/images.out" | wc -l) bases"
  printf '  images, 50 bases and 500 instances on two hosts: %.3f s wall, %s of the virsh sessions (%.3f s); cpu %.3f s\n' \
    "${WALL[images]}" "$(ratio "${WALL[images]}" "${WALL[virsh-session]}")" "${WALL[virsh-session]}" "${CPU[images]}"
fi
echo "bench-images: load at the end $(cut -d' ' -f1-3 /proc/loadavg)"
