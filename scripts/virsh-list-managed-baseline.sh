#!/usr/bin/env bash
# Baseline for the listManaged benchmark: what ONE virsh session over SSH
# needs to list every domain, then read the platform's metadata element and
# the state of each, as listManaged must (it cannot filter by name: a domain
# is managed when its metadata says so).
#
# Usage: scripts/virsh-list-managed-baseline.sh [ROUNDS]   (default 3)
# Environment:
#   EGRESS_TEST_VIRSH_TRANSPORT  ssh (default, OpenSSH binary) or libssh
#   EGRESS_TEST_LIBVIRT_URI      use this URI instead of the stack's SSH one
#                                (e.g. qemu:///system for the local floor)
#
# Prints one line per round: seconds, domains listed, managed domains found.
# The time covers the whole session: process start, SSH handshake, the list,
# 2 calls per domain, and the exit.
set -euo pipefail

readonly NAMESPACE=https://egressproxies.dev/xmlns/instance/1
here=$(cd "$(dirname "$0")" && pwd)

die() { printf '[virsh-list-managed-baseline] error: %s\n' "$*" >&2; exit 1; }

rounds=${1:-3}
[[ $rounds =~ ^[1-9][0-9]*$ ]] || die "ROUNDS must be a positive number, not '$rounds'"
uri=${EGRESS_TEST_LIBVIRT_URI:-$("$here/virsh-over-ssh.sh" --uri)}

# The end-of-list marker is written as two quoted halves: virsh joins them in
# its output, while its echo of the command line keeps the quotes, so only the
# output matches. The empty command after it ends the output line (interactive
# virsh prints its next prompt right after echo's text, with no newline).
readonly LIST_END=__END_OF_LIST__

one_round() {
  local started finished line names=() name listed counts
  started=$(date +%s.%N)
  # Interactive virsh: prompts and echoed commands go to stdout too; the
  # parsing below skips them.
  coproc VIRSH { exec virsh -q -c "$uri" 2>/dev/null; }
  printf 'list --all --name\necho "__END_OF""_LIST__"\n\n' >&"${VIRSH[1]}"
  while IFS= read -r line <&"${VIRSH[0]}"; do
    case $line in
      *"$LIST_END"*) break ;;
      "virsh # "*|"") ;;
      *) names+=("$line") ;;
    esac
  done
  for name in "${names[@]}"; do
    printf 'metadata %s %s\ndomstate %s\n' "$name" "$NAMESPACE" "$name"
  done >&"${VIRSH[1]}"
  printf 'quit\n' >&"${VIRSH[1]}"
  # Managed = a metadata element came back; states are domstate's answers.
  counts=$(awk '/<uid>/ { m++ } /^(running|idle|paused|in shutdown|shut off|crashed|pmsuspended)$/ { s++ }
                END { printf "%d %d", m, s }' <&"${VIRSH[0]}")
  wait "$VIRSH_PID" 2>/dev/null || true
  finished=$(date +%s.%N)
  listed=${#names[@]}
  awk -v a="$started" -v b="$finished" -v l="$listed" -v c="$counts" \
    'BEGIN { split(c, n, " "); printf "%.2f s: %d domains listed, %d with platform metadata, %d states read, one virsh session\n", b - a, l, n[1], n[2] }'
}

echo "URI: $uri"
for ((round = 1; round <= rounds; round++)); do
  one_round
done
