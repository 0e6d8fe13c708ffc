#!/usr/bin/env bash
# Checks a running test stack (scripts/test-stack.sh up) end to end, the way
# the Java code uses it, and leaves nothing behind:
#   1. virsh over qemu+ssh (OpenSSH, host key checked) lists domains
#   2. a wrong known_hosts file is refused
#   3. an OpenSSH stream-local forward of the libvirt socket carries
#      qemu+unix:///system?socket=... (what kvm-common does with MINA SSHD)
#   4. a tiny BIOS domain (EGRESS_TEST_DOMAIN_TYPE, 64 MiB, an overlay on the
#      test qcow2 in the test pool, a bridge interface) defines, starts,
#      destroys and undefines; its volumes are deleted
#   5. the HTTP server returns the image with Content-Length and the digest
#      from the env file, and 404 for a missing one
# Usage: scripts/test-stack-smoke.sh     (as root; prints one line per check)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
env_file=${EGRESS_TEST_STACK_DIR:-/tmp/egress-test-stack}/env
[ -s "$env_file" ] || { echo "no $env_file: run scripts/test-stack.sh up first" >&2; exit 1; }
# shellcheck source=/dev/null
. "$env_file"

readonly DOMAIN=egress-it-smoke-$$
readonly BASE_VOLUME=egress-it-smoke-$$-base.qcow2
readonly OVERLAY_VOLUME=egress-it-smoke-$$.qcow2
work=$(mktemp -d "${TMPDIR:-/tmp}/test-stack-smoke.XXXXXX")
forward_pid=

local_virsh() { virsh -q -c qemu:///system "$@"; }
ok() { printf 'ok   %s\n' "$*"; }
fail() { printf 'FAIL %s\n' "$*" >&2; exit 1; }

# Everything this script made goes, whatever failed.
cleanup() {
  [ -z "$forward_pid" ] || kill "$forward_pid" 2>/dev/null || true
  local_virsh destroy "$DOMAIN" >/dev/null 2>&1 || true
  local_virsh undefine "$DOMAIN" --nvram --managed-save --snapshots-metadata >/dev/null 2>&1 || true
  local_virsh vol-delete --pool "$EGRESS_TEST_POOL" "$OVERLAY_VOLUME" >/dev/null 2>&1 || true
  local_virsh vol-delete --pool "$EGRESS_TEST_POOL" "$BASE_VOLUME" >/dev/null 2>&1 || true
  rm -rf -- "$work"
}
trap cleanup EXIT

# elapsed_since START: seconds since a "date +%s.%N" reading.
elapsed_since() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }'; }

# 1
started=$(date +%s.%N)
"$here/virsh-over-ssh.sh" list --all >/dev/null || fail "virsh over qemu+ssh: $("$here/virsh-over-ssh.sh" --uri)"
ok "virsh list --all over qemu+ssh in $(elapsed_since "$started") s"

# 2
wrong_uri="qemu+libssh://root@127.0.0.1:$EGRESS_TEST_SSH_PORT/system?keyfile=$EGRESS_TEST_SSH_KEY&known_hosts=$EGRESS_TEST_WRONG_KNOWN_HOSTS&known_hosts_verify=normal&socket=$EGRESS_TEST_LIBVIRT_SOCKET"
if virsh -q -c "$wrong_uri" list >/dev/null 2>"$work/wrong"; then
  fail "a known_hosts file with another key for [127.0.0.1]:$EGRESS_TEST_SSH_PORT was accepted"
fi
grep -q 'HOST KEY VERIFICATION FAILED' "$work/wrong" || fail "wrong host key refused for another reason: $(cat "$work/wrong")"
if ssh -p "$EGRESS_TEST_SSH_PORT" -i "$EGRESS_TEST_SSH_KEY" -o IdentitiesOnly=yes -o BatchMode=yes \
     -o UserKnownHostsFile="$EGRESS_TEST_WRONG_KNOWN_HOSTS" -o GlobalKnownHostsFile=/dev/null \
     -o StrictHostKeyChecking=yes root@127.0.0.1 true 2>/dev/null; then
  fail "OpenSSH accepted the wrong known_hosts"
fi
ok "wrong known_hosts refused (libssh and OpenSSH clients)"

# each client key format logs in
for key in "$EGRESS_TEST_SSH_KEY" "$EGRESS_TEST_SSH_KEY_RSA" "$EGRESS_TEST_SSH_KEY_ECDSA"; do
  ssh -p "$EGRESS_TEST_SSH_PORT" -i "$key" -o IdentitiesOnly=yes -o BatchMode=yes \
    -o UserKnownHostsFile="$EGRESS_TEST_KNOWN_HOSTS" -o GlobalKnownHostsFile=/dev/null \
    -o StrictHostKeyChecking=yes root@127.0.0.1 true || fail "key $key does not log in"
done
ok "ed25519 (OpenSSH format), RSA (PEM) and ECDSA (PEM) client keys log in"

# 3
socket=$work/libvirt.sock
ssh -N -p "$EGRESS_TEST_SSH_PORT" -i "$EGRESS_TEST_SSH_KEY" -o IdentitiesOnly=yes -o BatchMode=yes \
  -o UserKnownHostsFile="$EGRESS_TEST_KNOWN_HOSTS" -o GlobalKnownHostsFile=/dev/null \
  -o StrictHostKeyChecking=yes -o ExitOnForwardFailure=yes \
  -L "$socket:$EGRESS_TEST_LIBVIRT_SOCKET" root@127.0.0.1 &
forward_pid=$!
for _ in $(seq 50); do [ -S "$socket" ] && break; sleep 0.1; done
[ -S "$socket" ] || fail "ssh -L $socket:$EGRESS_TEST_LIBVIRT_SOCKET made no socket"
virsh -q -c "qemu+unix:///system?socket=$socket" pool-list --all --name >"$work/pools" \
  || fail "virsh through the forwarded socket"
grep -Eq "^${EGRESS_TEST_POOL}[[:space:]]*\$" "$work/pools" || fail "pool $EGRESS_TEST_POOL not listed through the forward"
kill "$forward_pid"; wait "$forward_pid" 2>/dev/null || true; forward_pid=
ok "stream-local forward: qemu+unix:///system?socket=... lists pool $EGRESS_TEST_POOL"

# 4
image=$EGRESS_TEST_IMAGES_DIR/$EGRESS_TEST_IMAGE_QCOW2
local_virsh vol-create-as "$EGRESS_TEST_POOL" "$BASE_VOLUME" "$(stat -c %s "$image")" --format raw >/dev/null
local_virsh vol-upload --pool "$EGRESS_TEST_POOL" "$BASE_VOLUME" "$image"
local_virsh vol-create-as "$EGRESS_TEST_POOL" "$OVERLAY_VOLUME" 64M --format qcow2 \
  --backing-vol "$EGRESS_TEST_POOL_DIR/$BASE_VOLUME" --backing-vol-format qcow2 >/dev/null
cat >"$work/domain.xml" <<EOF
<domain type='$EGRESS_TEST_DOMAIN_TYPE'>
  <name>$DOMAIN</name>
  <memory unit='MiB'>64</memory>
  <vcpu>1</vcpu>
  <os><type arch='x86_64' machine='pc'>hvm</type><boot dev='hd'/></os>
  <devices>
    <disk type='volume' device='disk'>
      <driver name='qemu' type='qcow2'/>
      <source pool='$EGRESS_TEST_POOL' volume='$OVERLAY_VOLUME'/>
      <target dev='vda' bus='virtio'/>
    </disk>
    <interface type='bridge'>
      <source bridge='$EGRESS_TEST_BRIDGE'/>
      <model type='virtio'/>
    </interface>
    <serial type='pty'/>
  </devices>
</domain>
EOF
started=$(date +%s.%N)
local_virsh define "$work/domain.xml" >/dev/null
local_virsh start "$DOMAIN" >/dev/null || fail "start $DOMAIN (see /var/log/libvirt/qemu/$DOMAIN.log)"
[ "$(local_virsh domstate "$DOMAIN")" = running ] || fail "$DOMAIN is not running after start"
local_virsh destroy "$DOMAIN" >/dev/null
local_virsh undefine "$DOMAIN" --nvram --managed-save --snapshots-metadata >/dev/null
local_virsh vol-delete --pool "$EGRESS_TEST_POOL" "$OVERLAY_VOLUME" >/dev/null
local_virsh vol-delete --pool "$EGRESS_TEST_POOL" "$BASE_VOLUME" >/dev/null
ok "domain type=$EGRESS_TEST_DOMAIN_TYPE, BIOS, 64 MiB, qcow2 overlay, bridge $EGRESS_TEST_BRIDGE: define+start+destroy+undefine in $(elapsed_since "$started") s"

# 5
headers=$(curl -fsS -D - -o "$work/image" "$EGRESS_TEST_HTTP_URL/$EGRESS_TEST_IMAGE_QCOW2") || fail "GET $EGRESS_TEST_HTTP_URL/$EGRESS_TEST_IMAGE_QCOW2"
length=$(tr -d '\r' <<<"$headers" | awk -F': ' 'tolower($1) == "content-length" { print $2 }')
[ "$length" = "$(stat -c %s "$image")" ] || fail "Content-Length '$length' is not the file size $(stat -c %s "$image")"
[ "$(sha256sum <"$work/image" | cut -d' ' -f1)" = "$EGRESS_TEST_IMAGE_QCOW2_SHA256" ] || fail "downloaded image digest differs"
[ "$(curl -s -o /dev/null -w '%{http_code}' "$EGRESS_TEST_HTTP_URL/no-such-image.qcow2")" = 404 ] || fail "missing image is not 404"
ok "HTTP: $EGRESS_TEST_IMAGE_QCOW2 with Content-Length $length and the digest from the env file; 404 for a missing file"
