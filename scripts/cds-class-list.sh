#!/usr/bin/env bash
# Records which classes egressctl loads when it talks to a real hypervisor (`list` and `check` of
# a kvm2 entry through the test stack's sshd: the SSH handshake, the libvirt binding, the kvm
# backends, in the kvm plugin's layer) into runtime/src/build/cds-classes.txt. Packaging adds them to the class-data-sharing
# archive, so that a first contact with a host starts from mapped classes too; a package build has
# no host to talk to. Run it again after changes that bring in many new classes on that path (a
# stale list costs only start-up time: classes it no longer names are not archived).
#
# Usage: scripts/cds-class-list.sh   (as root, after ./mvnw -B package; starts the test stack)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd -P)
launcher="$root/runtime/target/egressctl/bin/egressctl"
[ -x "$launcher" ] || { echo "cds-class-list: build first (./mvnw -B package -DskipTests)" >&2; exit 2; }
"$root/scripts/test-stack.sh" up >/dev/null
# shellcheck source=/dev/null
. /tmp/egress-test-stack/env
work=$(mktemp -d "${TMPDIR:-/tmp}/egress-cds-list.XXXXXX")
trap 'rm -rf "$work"' EXIT
cat >"$work/egress.yaml" <<YAML
providers:
  - name: cds-class-list
    type: kvm2
    sshKeyFile: $EGRESS_TEST_SSH_KEY
    knownHostsFile: $EGRESS_TEST_KNOWN_HOSTS
    hosts:
      - {name: hv-1, address: $EGRESS_TEST_SSH_HOST, port: $EGRESS_TEST_SSH_PORT, user: $EGRESS_TEST_SSH_USER,
         pool: $EGRESS_TEST_POOL, bridge: $EGRESS_TEST_BRIDGE, domainType: $EGRESS_TEST_DOMAIN_TYPE}
    machineTypes:
      small: {vcpus: 1, memoryMiB: 128}
    images:
      tiny: {url: '$EGRESS_TEST_HTTP_URL/$EGRESS_TEST_IMAGE_QCOW2', sha256: $EGRESS_TEST_IMAGE_QCOW2_SHA256, firmware: bios}
YAML
# Without the archive: a class mapped from it is logged without the jar it came from, so the
# plugin layers' classes would drop out of the list the archive is made from.
for command in list check; do
  HOME="$work" EGRESSCTL_NO_CDS_CACHE=1 \
    EGRESSCTL_JAVA_OPTS="-Xshare:off -XX:DumpLoadedClassList=$work/$command.txt -Xlog:class+load=info:file=$work/$command-loaded.txt" \
    "$launcher" --config "$work/egress.yaml" "$command" >/dev/null 2>&1 || true
done
output="$root/runtime/src/build/cds-classes.txt"
# The platform's classes as the JVM listed them, then the plugin layers' classes by folder
# (`NAME @plugin kvm`), each once in first-loaded order.
java "$root/runtime/src/build/CdsClassList.java" --record "$root/runtime/target/egressctl" "$work/recorded.txt" \
  "$work/list.txt" "$work/list-loaded.txt" "$work/check.txt" "$work/check-loaded.txt"
{
  echo "# Classes egressctl loads on a first contact with a hypervisor; made by scripts/cds-class-list.sh."
  cat "$work/recorded.txt"
} >"$output"
echo "cds-class-list: $(grep -vc '^#' "$output") classes in $output ($(grep -c ' @plugin ' "$output") of plugins)"
