#!/usr/bin/env bash
# Defines N tiny stopped domains PREFIX-0001..PREFIX-N on the test stack's
# libvirtd, each carrying the platform's metadata element naming provider
# entry ENTRY (only that entry lists them), for the listManaged benchmark.
# Remove them with scripts/undefine-domains.sh PREFIX.
#
# Usage: scripts/define-many-domains.sh N PREFIX ENTRY
# Environment:
#   EGRESS_TEST_LIBVIRT_URI  connection URI (default qemu:///system)
#   EGRESS_TEST_STACK_DIR    state folder of scripts/test-stack.sh; its env
#                            file supplies the domain type and the bridge
#
# Fast on purpose: all domains are defined by ONE virsh process reading
# "define FILE" commands from stdin. One virsh process per domain pays a
# process start and a connection each, minutes for hundreds of domains.
# Defining an existing name again replaces its definition (new uid and time).
set -euo pipefail

readonly NAMESPACE=https://egressproxies.dev/xmlns/instance/1
readonly URI=${EGRESS_TEST_LIBVIRT_URI:-qemu:///system}

die() { printf '[define-many-domains] error: %s\n' "$*" >&2; exit 1; }

# elapsed START END: seconds between two "date +%s.%N" readings (awk: bc is
# not on a fresh Debian).
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }

usage() { echo "usage: $0 N PREFIX ENTRY   (defines PREFIX-0001 .. PREFIX-N, stopped, of provider entry ENTRY)" >&2; exit 2; }

[ $# -eq 3 ] || usage
count=$1 prefix=$2 entry=$3
if ! [[ $count =~ ^[0-9]+$ ]] || [ "$count" -lt 1 ] || [ "$count" -gt 9999 ]; then
  die "N must be a number from 1 to 9999, not '$count'"
fi
# The name goes into XML and into virsh command lines unescaped: keep it plain.
[[ $prefix =~ ^[A-Za-z0-9][A-Za-z0-9_.-]*$ ]] \
  || die "PREFIX '$prefix' may hold only letters, digits and . _ - (and must start with a letter or digit)"
[[ $entry =~ ^[A-Za-z0-9._-]+$ ]] \
  || die "ENTRY '$entry' may hold only letters, digits and . _ - (as provider entry names do)"

# Domain type and bridge from the running stack when there is one; the
# defaults suit a stack made with default settings.
domain_type=qemu
bridge=egress-test-br0
env_file=${EGRESS_TEST_STACK_DIR:-/tmp/egress-test-stack}/env
if [ -s "$env_file" ]; then
  # shellcheck source=/dev/null
  . "$env_file"
  domain_type=${EGRESS_TEST_DOMAIN_TYPE:-$domain_type}
  bridge=${EGRESS_TEST_BRIDGE:-$bridge}
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/define-many-domains.XXXXXX")
trap 'rm -rf -- "$work"' EXIT

# One timestamp for all: the metadata records a creation time, and one
# "date" call beats N of them.
created=$(date -u +%Y-%m-%dT%H:%M:%SZ)

# domain_xml NAME UID: a stopped guest needs no disk; the bridge interface
# makes it look like what the backends create.
domain_xml() {
  cat <<EOF
<domain type='$domain_type'>
  <name>$1</name>
  <metadata>
    <ep:instance xmlns:ep="$NAMESPACE">
      <ep:uid>$2</ep:uid>
      <ep:created>$created</ep:created>
      <ep:entry>$entry</ep:entry>
    </ep:instance>
  </metadata>
  <memory unit='MiB'>64</memory>
  <vcpu>1</vcpu>
  <os><type arch='x86_64' machine='pc'>hvm</type><boot dev='hd'/></os>
  <devices>
    <interface type='bridge'>
      <source bridge='$bridge'/>
      <model type='virtio'/>
    </interface>
  </devices>
</domain>
EOF
}

for ((i = 1; i <= count; i++)); do
  name=$(printf '%s-%04d' "$prefix" "$i")
  read -r uid </proc/sys/kernel/random/uuid   # a builtin read: no process per domain
  domain_xml "$name" "$uid" >"$work/$name.xml"
  printf 'define %s\n' "$work/$name.xml" >>"$work/commands"
done

started=$(date +%s.%N)
# virsh in interactive mode echoes a prompt per command to stdout (discarded)
# and keeps going after a failed command, exiting 0: errors are judged by
# stderr and by counting afterwards.
virsh -q -c "$URI" <"$work/commands" >/dev/null 2>"$work/errors" || true
finished=$(date +%s.%N)
if [ -s "$work/errors" ]; then
  head -5 "$work/errors" >&2
  die "virsh reported errors while defining (first ones above)"
fi

defined=$(virsh -q -c "$URI" list --all --name | grep -c "^$prefix-[0-9]\{4\}\$" || true)
[ "$defined" -ge "$count" ] || die "only $defined of $count domains $prefix-NNNN are defined"
printf 'defined %d domains %s-0001..%s-%04d (type %s) in %s s through one virsh session; %d domains %s-NNNN now exist\n' \
  "$count" "$prefix" "$prefix" "$count" "$domain_type" "$(elapsed "$started" "$finished")" "$defined" "$prefix"
