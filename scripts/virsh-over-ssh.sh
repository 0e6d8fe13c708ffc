#!/usr/bin/env bash
# Runs virsh against the test stack's libvirtd the way a remote client would:
# through the stack's sshd on 127.0.0.1, key auth, host key checked.
#
# Usage: scripts/virsh-over-ssh.sh [--uri] [virsh arguments...]
#   --uri   print the connection URI and exit
# Environment:
#   EGRESS_TEST_VIRSH_TRANSPORT  ssh (default): libvirt's qemu+ssh, the OpenSSH
#                                binary plus "nc -U" on the far side;
#                                libssh: libvirt's built-in libssh client
#   EGRESS_TEST_STACK_DIR        state folder of scripts/test-stack.sh
#
# Why command= in the qemu+ssh URI: that transport ignores known_hosts= (only
# libssh/libssh2 honour it), so the URI names a wrapper, made by test-stack.sh
# up, that hands ssh the stack's known_hosts file. Without it ssh checks
# ~/.ssh/known_hosts and fails with "Host key verification failed".
set -euo pipefail

die() { printf '[virsh-over-ssh] error: %s\n' "$*" >&2; exit 1; }

env_file=${EGRESS_TEST_STACK_DIR:-/tmp/egress-test-stack}/env
[ -s "$env_file" ] || die "no $env_file: run scripts/test-stack.sh up first"
# shellcheck source=/dev/null
. "$env_file"

stack_uri() {
  local base="root@127.0.0.1:$EGRESS_TEST_SSH_PORT/system"
  local common="keyfile=$EGRESS_TEST_SSH_KEY&known_hosts=$EGRESS_TEST_KNOWN_HOSTS&socket=$EGRESS_TEST_LIBVIRT_SOCKET"
  case ${EGRESS_TEST_VIRSH_TRANSPORT:-ssh} in
    ssh) echo "qemu+ssh://$base?$common&no_verify=0&command=$EGRESS_TEST_VIRSH_SSH_COMMAND" ;;
    libssh) echo "qemu+libssh://$base?$common&known_hosts_verify=normal" ;;
    *) die "EGRESS_TEST_VIRSH_TRANSPORT must be ssh or libssh, not '$EGRESS_TEST_VIRSH_TRANSPORT'" ;;
  esac
}

if [ "${1:-}" = --uri ]; then
  stack_uri
  exit 0
fi
exec virsh -c "$(stack_uri)" "$@"
