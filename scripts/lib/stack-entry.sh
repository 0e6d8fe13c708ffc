# shellcheck shell=bash
# The test stack's two hypervisors as one kvm2 entry, for the serve scripts (sourced, not run).

# stack_up ROOT: builds the launcher if missing, brings the stack up, loads its environment and sets
# egressctl (the launcher), stack_dir, host1_uri and host2_uri (the two libvirtds) and pool.
# shellcheck disable=SC2034 # the variables are for the sourcing script
stack_up() {
  local root=$1
  stack_dir=${EGRESS_TEST_STACK_DIR:-/tmp/egress-test-stack}
  egressctl="$root/runtime/target/egressctl/bin/egressctl"
  [ -x "$egressctl" ] || "$root/egressctl" --version >/dev/null
  "$root/scripts/test-stack.sh" up >/dev/null 2>&1 || "$root/scripts/test-stack.sh" up
  # shellcheck source=/dev/null
  . "$stack_dir/env"
  host1_uri=qemu:///system
  host2_uri=$EGRESS_TEST_HOST2_LIBVIRT_URI
  pool=$EGRESS_TEST_POOL
}

# The functions below need the stack's environment loaded (stack_up).

# kvm2_two_host_entry ENTRY POOL IMAGE_URL: prints a config with entry ENTRY on hosts local and
# local2 (both using POOL), machine type small and image tiny at IMAGE_URL.
kvm2_two_host_entry() {
  local entry=$1 pool=$2 image_url=$3
  cat <<EOF2
providers:
  - name: $entry
    type: kvm2
    sshKeyFile: "$EGRESS_TEST_SSH_KEY"
    knownHostsFile: "$EGRESS_TEST_KNOWN_HOSTS"
    handshakeTimeout: 30s
    keepaliveInterval: 15s
    hosts:
      - {name: local, address: "$EGRESS_TEST_SSH_HOST", port: $EGRESS_TEST_SSH_PORT, user: "$EGRESS_TEST_SSH_USER", socket: "$EGRESS_TEST_LIBVIRT_SOCKET", pool: "$pool", bridge: "$EGRESS_TEST_BRIDGE", domainType: $EGRESS_TEST_DOMAIN_TYPE}
      - {name: local2, address: "$EGRESS_TEST_SSH_HOST", port: $EGRESS_TEST_HOST2_SSH_PORT, user: "$EGRESS_TEST_SSH_USER", socket: "$EGRESS_TEST_HOST2_LIBVIRT_SOCKET", pool: "$pool", bridge: "$EGRESS_TEST_BRIDGE", domainType: $EGRESS_TEST_DOMAIN_TYPE}
    machineTypes:
      small: {vcpus: 1, memoryMiB: 128}
    images:
      tiny: {url: "$image_url", sha256: $EGRESS_TEST_IMAGE_QCOW2_SHA256, firmware: bios}
EOF2
}
