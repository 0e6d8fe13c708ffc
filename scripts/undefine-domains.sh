#!/usr/bin/env bash
# Removes every domain named PREFIX-* from the test stack's libvirtd: running
# ones are destroyed first; managed-save images, snapshot and checkpoint
# metadata and NVRAM go with the definition. Disks are not touched (the
# benchmark domains have none; test volumes are removed by test-stack.sh down).
#
# Usage: scripts/undefine-domains.sh PREFIX
# Environment:
#   EGRESS_TEST_LIBVIRT_URI  connection URI (default qemu:///system)
#
# One virsh process reads all commands from stdin, as in define-many-domains.sh.
# Removing what is already gone is fine: a second run finds nothing to do.
set -euo pipefail

readonly URI=${EGRESS_TEST_LIBVIRT_URI:-qemu:///system}

die() { printf '[undefine-domains] error: %s\n' "$*" >&2; exit 1; }

[ $# -eq 1 ] || { echo "usage: $0 PREFIX   (removes all domains named PREFIX-*)" >&2; exit 2; }
prefix=$1
# An empty or odd prefix could match domains this script has no business with.
[[ $prefix =~ ^[A-Za-z0-9][A-Za-z0-9_.-]*$ ]] \
  || die "PREFIX '$prefix' may hold only letters, digits and . _ - (and must start with a letter or digit)"

all=$(virsh -q -c "$URI" list --all --name)
running=$(virsh -q -c "$URI" list --state-running --state-paused --name)
matching() { awk -v p="$prefix-" 'index($0, p) == 1' <<<"$1"; }

names=$(matching "$all")
if [ -z "$names" ]; then
  echo "no domains named $prefix-*"
  exit 0
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/undefine-domains.XXXXXX")
trap 'rm -rf -- "$work"' EXIT
{
  matching "$running" | sed 's/^/destroy /'
  sed 's/$/ --managed-save --snapshots-metadata --checkpoints-metadata --nvram/; s/^/undefine /' <<<"$names"
} >"$work/commands"

started=$(date +%s.%N)
# Interactive virsh exits 0 whatever happens: judge by stderr and by a recount.
virsh -q -c "$URI" <"$work/commands" >/dev/null 2>"$work/errors" || true
finished=$(date +%s.%N)

left=$(matching "$(virsh -q -c "$URI" list --all --name)")
if [ -n "$left" ]; then
  head -5 "$work/errors" >&2
  die "$(grep -c . <<<"$left") domains $prefix-* are still defined (first errors above)"
fi
printf 'undefined %d domains %s-* in %s s through one virsh session\n' \
  "$(grep -c . <<<"$names")" "$prefix" \
  "$(awk -v a="$started" -v b="$finished" 'BEGIN { printf "%.2f", b - a }')"
