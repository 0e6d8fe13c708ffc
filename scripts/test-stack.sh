#!/usr/bin/env bash
# The real hypervisor stack the integration tests and benchmarks run against,
# on this machine, as root, loopback only:
#   libvirtd (+ virtlogd)      the hypervisor, reached only through its unix socket
#   sshd on 127.0.0.1:PORT     the SSH hop the KVM backends dial (key auth only)
#   dir pool "egress-test"     in the state folder, never the host's default pool
#   bridge "egress-test-br0"   for the domains' bridge interfaces (no address, no uplink)
#   HTTP on 127.0.0.1:PORT     serves small qcow2/raw/compressed images
# and a second, independent hypervisor, so entries with two hosts (zones) are
# tested on two libvirt instances that share nothing but the machine:
#   libvirtd #2 (+ virtlogd)   in a private mount namespace in which its state
#                              folders (/etc/libvirt, /run/libvirt,
#                              /var/lib/libvirt, /var/cache/libvirt,
#                              /var/log/libvirt) are bind mounts of
#                              $STATE/host2/*: its own domains, pools and
#                              sockets; its socket is $STATE/host2/run/libvirt-sock
#   sshd #2 on 127.0.0.1:PORT2 the same keys; the backends reach libvirtd #2
#                              through it by that socket path
#   sshd #4 on 127.0.0.1:PORT4 in front of the first libvirtd; its commands run
#                              with a PATH of links to everything but curl and wget
#   dir pool "egress-test"     on libvirtd #2, in $STATE/host2/pool
# and etcd, for the replicated serve (docs/test-stack.md, "etcd"):
#   etcd cluster, 3 members    egress-etcd-1..3, clients on http://127.0.0.1:23791..23793,
#                              peers on 23801..23803, each with its data, log and pid file
#                              in $STATE/etcd/egress-etcd-N
#   etcd TLS member            egress-etcd-tls, alone, on https://127.0.0.1:23794 (peer 23804):
#                              client certificates required and authentication on (user
#                              egress, readwrite on /egressctl/); CA, certificates, keys and
#                              passwords in $STATE/etcd/tls
#
# Usage: scripts/test-stack.sh up|down|env|status|kill-sshd [second|jump]
#                              |etcd-stop|etcd-kill|etcd-start 1|2|3|all
#   up      start or repair everything; safe to run again at any time
#   down    stop both sshds and the HTTP server; remove egress-it-* domains,
#           the pools with their volumes, and the bridge; stop libvirtd #2; stop
#           every etcd member and remove its data.
#           The machine's libvirtd and virtlogd are left running (they are
#           machine-wide; the next up is faster).
#           Keys, etcd's certificates and passwords, and images stay in the state
#           folder, so host keys, the env file and image digests are stable across down/up.
#   env     print the KEY=VALUE lines the Java tests read (also in $STATE/env)
#   status  print what runs
#   kill-sshd  SIGKILL the sshd listener AND its per-connection processes
#           (killing only EGRESS_TEST_SSHD_PID leaves open connections
#           working); for fault tests. "up" starts it again on the same port.
#           "kill-sshd second" does so to the second host's sshd, "kill-sshd jump"
#           to the jump host's.
#   etcd-stop N|all   SIGTERM cluster member N (1, 2, 3) or all three; waits until gone
#   etcd-kill N|all   SIGKILL them; waits until gone
#   etcd-start N|all  start them again on their data. "all" waits until the cluster is
#           healthy; N waits until the member is healthy when a quorum (2) runs with it,
#           else only until it listens (a lone member serves nothing before a quorum).
#           "up" also starts every stopped member, the TLS member included.
#
# Environment (all optional):
#   EGRESS_TEST_STACK_DIR   state folder            (default /tmp/egress-test-stack)
#   EGRESS_TEST_POOL        libvirt pool name       (default egress-test)
#   EGRESS_TEST_BRIDGE      bridge name, <= 15 chars (default egress-test-br0)
#   network namespace egress-jump, reached only through a veth pair (10.219.0.1 here,
#                              10.219.0.2 there): a jump host sshd on 10.219.0.2:22 and,
#                              behind it, an sshd on the namespace's own 127.0.0.1:2522 in
#                              front of the first libvirtd; ProxyJump tests pass through both
#   EGRESS_TEST_SSH_PORT    preferred sshd port     (default 2222; next free one if taken)
#   EGRESS_TEST_HOST2_SSH_PORT preferred port of the second host's sshd (default 2322)
#   EGRESS_TEST_HTTP_PORT   preferred HTTP port     (default 18080; next free one if taken)
#   EGRESS_TEST_DOMAIN_TYPE force kvm or qemu       (default: kvm when usable)
set -euo pipefail

# etcd and etcdctl take every flag from an ETCD_* / ETCDCTL_* variable too, and refuse one set both
# ways: a caller's settings (an ETCDCTL_ENDPOINTS, an ETCDCTL_API=2) must not reach the stack's
# members or this script's etcdctl calls. Done before the constants below are defined.
for variable in $(compgen -e); do
  case $variable in ETCD_* | ETCDCTL_*) unset "$variable" ;; esac
done
unset variable

readonly STATE_DIR=${EGRESS_TEST_STACK_DIR:-/tmp/egress-test-stack}
readonly POOL=${EGRESS_TEST_POOL:-egress-test}
readonly BRIDGE=${EGRESS_TEST_BRIDGE:-egress-test-br0}
readonly LIBVIRT_SOCKET=/var/run/libvirt/libvirt-sock
readonly LIBVIRT_URI=qemu:///system
# Domains the integration tests create; down removes them.
readonly TEST_DOMAIN_PREFIX=egress-it-

readonly SSH_DIR=$STATE_DIR/ssh
readonly POOL_DIR=$STATE_DIR/pool
readonly IMAGES_DIR=$STATE_DIR/images
readonly ENV_FILE=$STATE_DIR/env
readonly SSHD_CONFIG=$SSH_DIR/sshd_config
readonly SSHD_PID_FILE=$SSH_DIR/sshd.pid
readonly SSHD_PORT_FILE=$SSH_DIR/port
readonly SSHD2_CONFIG=$SSH_DIR/sshd2_config
readonly SSHD2_PID_FILE=$SSH_DIR/sshd2.pid
readonly SSHD2_PORT_FILE=$SSH_DIR/port2
# A third sshd in front of the first libvirtd that forwards no unix sockets, as some embedded or
# VPN sshds: clients reach libvirt through an exec channel (nc -U, virt-ssh-helper) instead.
readonly SSHD3_CONFIG=$SSH_DIR/sshd3_config
readonly SSHD3_PID_FILE=$SSH_DIR/sshd3.pid
readonly SSHD3_PORT_FILE=$SSH_DIR/port3
# A fourth sshd in front of the first libvirtd whose commands run with a PATH without curl or
# wget, as on a minimal hypervisor: check must name what a host-side fetch there lacks.
readonly SSHD4_CONFIG=$SSH_DIR/sshd4_config
readonly SSHD4_PID_FILE=$SSH_DIR/sshd4.pid
readonly SSHD4_PORT_FILE=$SSH_DIR/port4
readonly NO_CURL_BIN=$STATE_DIR/no-curl-bin
# A jump host (bastion) and a host behind it, in a network namespace of their own: from here only
# the jump host's address is reachable, so a client must pass through it (ProxyJump).
readonly JUMP_NETNS=egress-jump
readonly JUMP_VETH=egress-jmp0
readonly JUMP_LOCAL_ADDRESS=10.219.0.1
readonly JUMP_ADDRESS=10.219.0.2
readonly JUMP_PORT=22
readonly BEHIND_JUMP_PORT=2522
readonly JUMP_SSHD_CONFIG=$SSH_DIR/jump_sshd_config
readonly JUMP_SSHD_PID_FILE=$SSH_DIR/jump_sshd.pid
readonly BEHIND_SSHD_CONFIG=$SSH_DIR/behind_sshd_config
readonly BEHIND_SSHD_PID_FILE=$SSH_DIR/behind_sshd.pid
readonly HOST2_DIR=$STATE_DIR/host2
readonly HOST2_SOCKET=$HOST2_DIR/run/libvirt-sock
readonly HOST2_URI=qemu+unix:///system?socket=$HOST2_SOCKET
readonly HOST2_POOL_DIR=$HOST2_DIR/pool
readonly HOST2_LIBVIRTD_PID_FILE=$HOST2_DIR/libvirtd.pid
readonly HOST2_VIRTLOGD_PID_FILE=$HOST2_DIR/virtlogd.pid
readonly HTTP_PID_FILE=$STATE_DIR/http.pid
readonly HTTP_PORT_FILE=$STATE_DIR/http.port
readonly IMAGE_BASENAME=egress-test
readonly IMAGE_VIRTUAL_SIZE=64M
# etcd: members 1, 2, 3 form the cluster; member "tls" stands alone. Member M keeps its data, log
# and pid file in $ETCD_DIR/egress-etcd-M; the TLS member's CA, certificates, keys and passwords
# live in $ETCD_TLS_DIR, which down keeps.
readonly ETCD_DIR=$STATE_DIR/etcd
readonly ETCD_TLS_DIR=$ETCD_DIR/tls
readonly ETCD_ENDPOINTS=http://127.0.0.1:23791,http://127.0.0.1:23792,http://127.0.0.1:23793
readonly ETCD_INITIAL_CLUSTER=egress-etcd-1=http://127.0.0.1:23801,egress-etcd-2=http://127.0.0.1:23802,egress-etcd-3=http://127.0.0.1:23803
readonly ETCD_TLS_PREFIX=/egressctl/
readonly ETCD_TLS_USER=egress

log() { printf '[test-stack] %s\n' "$*" >&2; }
die() { printf '[test-stack] error: %s\n' "$*" >&2; exit 1; }

virsh_local() { virsh -q -c "$LIBVIRT_URI" "$@"; }
# virsh_on URI ARGS...: virsh against either hypervisor.
virsh_on() { local uri=$1; shift; virsh -q -c "$uri" "$@"; }

require_root() {
  [ "$(id -u)" -eq 0 ] || die "must run as root (it starts libvirtd and sshd, creates a bridge)"
}

require_commands() {
  local missing=() command
  for command in virsh libvirtd virtlogd tini timeout pgrep qemu-img ssh ssh-keygen ip ss xz gzip curl; do
    command -v "$command" >/dev/null 2>&1 || missing+=("$command")
  done
  [ -x /usr/sbin/sshd ] || missing+=(/usr/sbin/sshd)
  [ ${#missing[@]} -eq 0 ] || die "missing commands: ${missing[*]}; run scripts/install-test-dependencies.sh first"
}

# The python3 from Debian's package, not a pyenv/venv shim that a CI PATH may
# put first: the shim can point at an interpreter that is not installed.
python_binary() {
  if [ -x /usr/bin/python3 ]; then echo /usr/bin/python3
  elif command -v python3 >/dev/null 2>&1; then command -v python3
  else die "python3 missing (serves the test images); run scripts/install-test-dependencies.sh"
  fi
}

# pid_alive FILE: true when FILE names a live process. A zombie is dead: PID 1
# on these machines reaps orphans only about once a second, and kill -0
# succeeds on a zombie.
pid_alive() {
  local pid state
  [ -s "$1" ] || return 1
  pid=$(tr -dc '0-9' <"$1")
  [ -n "$pid" ] || return 1
  state=$(awk '{ print $3 }' "/proc/$pid/stat" 2>/dev/null) || return 1
  [ -n "$state" ] && [ "$state" != Z ] && [ "$state" != X ]
}

pid_gone() { ! pid_alive "$1"; }

port_in_use() { [ -n "$(ss -Hltn "sport = :$1" 2>/dev/null)" ]; }

# free_port PREFERRED: PREFERRED when nothing listens on it, else the next free one.
free_port() {
  local port=$1
  while port_in_use "$port"; do
    port=$((port + 1))
    [ "$port" -lt 65535 ] || die "no free TCP port at or above $1"
  done
  echo "$port"
}

# preferred_port OVERRIDE PORT_FILE DEFAULT: the explicit override, else the
# port of the previous run (so a server restarted after a fault test keeps the
# address the tests already read), else DEFAULT.
preferred_port() {
  if [ -n "$1" ]; then echo "$1"
  elif [ -s "$2" ]; then tr -dc '0-9' <"$2"
  else echo "$3"
  fi
}

# wait_for SECONDS COMMAND...: polls COMMAND every 0.1 s; false on timeout.
wait_for() {
  local seconds=$1; shift
  local deadline=$((SECONDS + seconds))
  until "$@" >/dev/null 2>&1; do
    [ "$SECONDS" -lt "$deadline" ] || return 1
    sleep 0.1
  done
}

# stop_pid_file FILE NAME: TERM, then KILL after 5 s; removes FILE.
stop_pid_file() {
  local file=$1 name=$2 pid
  if pid_alive "$file"; then
    pid=$(tr -dc '0-9' <"$file")
    log "stopping $name (pid $pid)"
    kill -TERM "$pid" 2>/dev/null || true
    if ! wait_for 5 pid_gone "$file"; then
      kill -KILL "$pid" 2>/dev/null || true
    fi
  fi
  rm -f "$file"
}

# --- libvirt ---------------------------------------------------------------

# What libvirt-daemon-system would create: the qemu driver runs guests as
# libvirt-qemu (compiled-in default) and refuses to start without that user.
ensure_users_and_folders() {
  getent group kvm >/dev/null || groupadd -r kvm
  getent group libvirt-qemu >/dev/null || groupadd -r libvirt-qemu
  getent group libvirt >/dev/null || groupadd -r libvirt
  getent passwd libvirt-qemu >/dev/null \
    || useradd -r -g libvirt-qemu -G kvm -d /var/lib/libvirt -s /usr/sbin/nologin libvirt-qemu
  # A login without root's rights, for tests of a libvirt socket that user may not open; the
  # stack's sshds take the same authorized keys for every user.
  getent passwd egress-unprivileged >/dev/null \
    || useradd -r -m -d /var/lib/egress-unprivileged -s /bin/sh egress-unprivileged
  # "!" (locked, useradd's default) makes sshd refuse even key logins; "*" only has no password.
  usermod -p '*' egress-unprivileged
  mkdir -p /var/log/libvirt /var/run/libvirt /var/lib/libvirt /var/cache/libvirt /run/sshd
  chmod 0755 /run/sshd
  # Guests run as libvirt-qemu, which reaches /dev/kvm through the kvm group
  # (udev does this on a normal host; there is no udev here).
  if [ -c /dev/kvm ]; then
    chgrp kvm /dev/kvm
    chmod 0660 /dev/kvm
  fi
}

# Bounded: a libvirtd stopped with SIGSTOP (fault tests) accepts the
# connection in the kernel and never answers.
libvirt_answers() { timeout 5 virsh -q -c "$LIBVIRT_URI" version >/dev/null 2>&1; }

# Prints the pid in PIDFILE, first resuming the process if a fault test left it stopped (SIGSTOP):
# waiting for an answer from a stopped daemon cannot succeed.
resume_if_stopped() {
  local pid
  pid=$(tr -dc '0-9' <"$1")
  if [ "$(awk '{ print $3 }' "/proc/$pid/stat" 2>/dev/null)" = T ]; then
    log "$2 (pid $pid) is stopped; sending SIGCONT"
    kill -CONT "$pid"
  fi
  echo "$pid"
}

ensure_libvirtd() {
  local pid
  if ! pid_alive /run/virtlogd.pid; then
    log "starting virtlogd"
    # qemu's console/log output goes through virtlogd (qemu.conf stdio_handler=logd)
    virtlogd -d
  fi
  if pid_alive /run/libvirtd.pid; then
    pid=$(resume_if_stopped /run/libvirtd.pid libvirtd)
    wait_for 10 libvirt_answers \
      || die "libvirtd (pid $pid) runs but does not answer on $LIBVIRT_SOCKET; see /var/log/libvirt/libvirtd.log"
    return
  fi
  if libvirt_answers; then
    return   # answering without our pid file: someone else's libvirtd; use it
  fi
  log "starting libvirtd"
  # libvirtd runs in the foreground under "tini -s", a child subreaper: the
  # qemu processes libvirt daemonizes (guests and capability probes) are
  # reparented to tini, which reaps them at once. Reparented to PID 1 instead,
  # they stay zombies for about a second here, and libvirt polls until each
  # one vanishes: a cold start (4 capability probes) took ~8 s instead of
  # ~1.5 s, and every killed guest would cost the same wait. libvirtd still
  # writes its own pid to /run/libvirtd.pid, so SIGSTOP fault tests hit
  # libvirtd, not tini.
  # Warnings and errors go to a file: there is no terminal and no journald.
  LIBVIRT_LOG_OUTPUTS="3:file:/var/log/libvirt/libvirtd.log" \
    setsid tini -s -- libvirtd </dev/null >>/var/log/libvirt/libvirtd.out 2>&1 &
  wait_for 30 libvirt_answers \
    || die "libvirtd did not answer on $LIBVIRT_SOCKET within 30 s; see /var/log/libvirt/libvirtd.log"
}

# kvm when the kernel offers it and libvirt's qemu driver can use it, else
# plain emulation. (docs/test-stack.md: nested KVM here runs BIOS guests, not UEFI ones;
# that is the tests' business, not this script's.)
detect_domain_type() {
  if [ -n "${EGRESS_TEST_DOMAIN_TYPE:-}" ]; then
    case $EGRESS_TEST_DOMAIN_TYPE in
      kvm|qemu) echo "$EGRESS_TEST_DOMAIN_TYPE"; return ;;
      *) die "EGRESS_TEST_DOMAIN_TYPE must be kvm or qemu, not '$EGRESS_TEST_DOMAIN_TYPE'" ;;
    esac
  fi
  if [ -c /dev/kvm ] && (exec 3<>/dev/kvm) 2>/dev/null \
     && virsh_local domcapabilities --virttype kvm --arch x86_64 >/dev/null 2>&1 \
     && kvm_starts_host_model; then
    echo kvm
  else
    echo qemu
  fi
}

# Whether a KVM domain with the backends' default CPU (host-model) starts here: on some nested
# machines QEMU aborts on an MSR the host-model CPU enables ("failed to set MSR 0x10a"), and the
# tests would then fail on every start for a reason that is the machine's, not the code's.
kvm_starts_host_model() {
  local probe=egress-it-cpu-probe xml
  xml="<domain type='kvm'><name>$probe</name><memory unit='MiB'>32</memory><vcpu>1</vcpu>
<os><type arch='x86_64'>hvm</type></os><cpu mode='host-model'/><devices/></domain>"
  virsh_local destroy "$probe" >/dev/null 2>&1 || true
  if virsh_local create /dev/stdin <<<"$xml" >/dev/null 2>&1; then
    virsh_local destroy "$probe" >/dev/null 2>&1 || true
    return 0
  fi
  log "a kvm domain with a host-model CPU does not start on this machine; the tests use domain type qemu"
  return 1
}

# --- storage pool ------------------------------------------------------------

# The pool functions take the hypervisor's URI (and where the pool lives):
# both hypervisors have a pool named $POOL, each in its own folder.
pool_exists() { virsh_on "$1" pool-info "$POOL" >/dev/null 2>&1; }

# Pipes into "grep -q" or "head" are avoided on purpose: they exit at the
# first match, virsh dies of SIGPIPE, and pipefail turns the match into a failure.
pool_running() {
  local info
  info=$(virsh_on "$1" pool-info "$POOL" 2>/dev/null) || return 1
  grep -Eq '^State:[[:space:]]+running' <<<"$info"
}

pool_target() {
  local xml
  xml=$(virsh_on "$1" pool-dumpxml "$POOL")
  sed -n 's:.*<path>\(.*\)</path>.*:\1:p' <<<"$xml" | sed -n 1p
}

# ensure_pool URI DIR
ensure_pool() {
  local uri=$1 dir=$2
  # The pool folder must be reachable by libvirt-qemu, which opens the disks.
  mkdir -p "$dir"
  chmod 0755 "$STATE_DIR" "$dir"
  if pool_exists "$uri"; then
    local target
    target=$(pool_target "$uri")
    [ "$target" = "$dir" ] \
      || die "pool '$POOL' exists with target '$target', not '$dir'; run 'down' with the EGRESS_TEST_STACK_DIR it was made with, or set EGRESS_TEST_POOL to another name"
  else
    log "defining pool $POOL at $dir"
    virsh_on "$uri" pool-define-as "$POOL" dir --target "$dir" >/dev/null
  fi
  if ! pool_running "$uri"; then
    virsh_on "$uri" pool-build "$POOL" >/dev/null 2>&1 || true
    virsh_on "$uri" pool-start "$POOL" >/dev/null
  fi
  # A restarted libvirtd brings the pool back by itself.
  virsh_on "$uri" pool-autostart "$POOL" >/dev/null
  virsh_on "$uri" pool-refresh "$POOL" >/dev/null
}

# remove_pool URI
remove_pool() {
  local uri=$1
  pool_exists "$uri" || return 0
  local target volume
  target=$(pool_target "$uri")
  log "removing pool $POOL ($target)"
  if pool_running "$uri"; then
    virsh_on "$uri" pool-refresh "$POOL" >/dev/null 2>&1 || true
    while read -r volume; do
      [ -n "$volume" ] || continue
      virsh_on "$uri" vol-delete --pool "$POOL" "$volume" >/dev/null \
        || log "could not delete volume $volume (left in $target)"
    done < <(virsh_on "$uri" vol-list --pool "$POOL" | awk '{ print $1 }')
    virsh_on "$uri" pool-destroy "$POOL" >/dev/null
  fi
  virsh_on "$uri" pool-undefine "$POOL" >/dev/null
  # Only a folder this script owns: never rm -r something outside the state dir.
  case $target in
    "$STATE_DIR"/*) rm -rf -- "$target" ;;
  esac
}

# remove_test_domains URI
remove_test_domains() {
  local uri=$1 domain
  while read -r domain; do
    case $domain in
      "$TEST_DOMAIN_PREFIX"*) ;;
      *) continue ;;
    esac
    log "removing domain $domain"
    virsh_on "$uri" destroy "$domain" >/dev/null 2>&1 || true
    virsh_on "$uri" undefine "$domain" --managed-save --snapshots-metadata --checkpoints-metadata --nvram >/dev/null \
      || log "could not undefine $domain"
  done < <(virsh_on "$uri" list --all --name)
}

# --- the second hypervisor -----------------------------------------------------

# A second privileged libvirtd cannot share the first one's compiled-in state
# folders (/run/libvirt, /var/lib/libvirt/qemu, /etc/libvirt/qemu, ...), and a
# per-user session libvirtd would need another connection URI and a setuid
# bridge helper. So it runs as root in a mount namespace of its own, where
# those folders are bind mounts of $HOST2_DIR: the same binaries, bridge and
# /dev/kvm, but its own domains, pools, sockets and logs.
host2_answers() { timeout 5 virsh -q -c "$HOST2_URI" version >/dev/null 2>&1; }

ensure_second_libvirtd() {
  local pid folder
  if pid_alive "$HOST2_LIBVIRTD_PID_FILE"; then
    pid=$(resume_if_stopped "$HOST2_LIBVIRTD_PID_FILE" "libvirtd #2")
    wait_for 10 host2_answers \
      || die "libvirtd #2 (pid $pid) runs but does not answer on $HOST2_SOCKET; see $HOST2_DIR/log/libvirtd.log"
    return
  fi
  # A virtlogd left from an earlier libvirtd #2 lives in that one's namespace.
  stop_pid_file "$HOST2_VIRTLOGD_PID_FILE" "virtlogd #2"
  for folder in etc run lib cache log; do
    mkdir -p "$HOST2_DIR/$folder"
  done
  chmod 0755 "$HOST2_DIR"
  # cgroups stay the machine's libvirtd's business: two daemons would name
  # their domains' cgroups alike.
  printf '# Generated by scripts/test-stack.sh\ncgroup_controllers = [ ]\n' >"$HOST2_DIR/etc/qemu.conf"
  log "starting libvirtd #2 (socket $HOST2_SOCKET)"
  # shellcheck disable=SC2016
  LIBVIRT_LOG_OUTPUTS="3:file:/var/log/libvirt/libvirtd.log" \
    setsid unshare --mount --propagation private sh -c '
      set -e
      mount --bind "$1/etc" /etc/libvirt
      mount --bind "$1/run" /run/libvirt
      mount --bind "$1/lib" /var/lib/libvirt
      mount --bind "$1/cache" /var/cache/libvirt
      mount --bind "$1/log" /var/log/libvirt
      virtlogd -d -p "$1/virtlogd.pid"
      exec tini -s -- libvirtd -p "$1/libvirtd.pid"' _ "$HOST2_DIR" \
    </dev/null >>"$HOST2_DIR/libvirtd.out" 2>&1 &
  wait_for 30 host2_answers \
    || die "libvirtd #2 did not answer on $HOST2_SOCKET within 30 s; see $HOST2_DIR/libvirtd.out and $HOST2_DIR/log/libvirtd.log"
}

stop_second_libvirtd() {
  stop_pid_file "$HOST2_LIBVIRTD_PID_FILE" "libvirtd #2"
  stop_pid_file "$HOST2_VIRTLOGD_PID_FILE" "virtlogd #2"
}

# --- bridge ------------------------------------------------------------------

ensure_bridge() {
  [ ${#BRIDGE} -le 15 ] || die "bridge name '$BRIDGE' is longer than 15 characters (Linux IFNAMSIZ)"
  if ! ip link show dev "$BRIDGE" >/dev/null 2>&1; then
    log "creating bridge $BRIDGE"
    ip link add name "$BRIDGE" type bridge
  fi
  # No address on the host side, not even IPv6 link-local: guests on the bridge reach nothing
  # but each other (the real-guest test checks this).
  if [ -w "/proc/sys/net/ipv6/conf/$BRIDGE/disable_ipv6" ]; then
    echo 1 >"/proc/sys/net/ipv6/conf/$BRIDGE/disable_ipv6"
  fi
  ip link set dev "$BRIDGE" up
}

remove_bridge() {
  if ip link show dev "$BRIDGE" >/dev/null 2>&1; then
    log "removing bridge $BRIDGE"
    ip link del dev "$BRIDGE"
  fi
}

# --- ssh ---------------------------------------------------------------------

# new_key TYPE FILE [ssh-keygen options]: only when missing, so host keys and
# known_hosts stay valid across down/up.
new_key() {
  local type=$1 file=$2; shift 2
  [ -s "$file" ] && [ -s "$file.pub" ] && return
  rm -f "$file" "$file.pub"
  ssh-keygen -q -t "$type" -N '' -C "egress-test-$(basename "$file")" "$@" -f "$file"
}

ensure_keys() {
  mkdir -p "$SSH_DIR"
  chmod 0700 "$SSH_DIR"
  new_key ed25519 "$SSH_DIR/host_ed25519_key"
  # A host key sshd never serves: known_hosts that names it is the "wrong key" case.
  new_key ed25519 "$SSH_DIR/other_host_ed25519_key"
  new_key ed25519 "$SSH_DIR/client_ed25519"                 # OpenSSH format
  new_key rsa     "$SSH_DIR/client_rsa.pem"   -b 3072 -m PEM  # BEGIN RSA PRIVATE KEY
  new_key ecdsa   "$SSH_DIR/client_ecdsa.pem" -b 256  -m PEM  # BEGIN EC PRIVATE KEY
  cat "$SSH_DIR/client_ed25519.pub" "$SSH_DIR/client_rsa.pem.pub" "$SSH_DIR/client_ecdsa.pem.pub" \
    >"$SSH_DIR/authorized_keys.new"
  chmod 0600 "$SSH_DIR/authorized_keys.new"
  mv -f "$SSH_DIR/authorized_keys.new" "$SSH_DIR/authorized_keys"
  # sshd reads a user's keys as that user, who may not enter the state folder.
  install -d -m 0700 -o egress-unprivileged /var/lib/egress-unprivileged/.ssh
  install -m 0600 -o egress-unprivileged "$SSH_DIR/authorized_keys" /var/lib/egress-unprivileged/.ssh/authorized_keys
}

# write_sshd_config CONFIG PID_FILE PORT: true when the file changed.
write_sshd_config() {
  local config=$1 pid_file=$2 port=$3 streamlocal=${4:-yes} listen=${5:-127.0.0.1} force_command=${6:-}
  cat >"$config.new" <<EOF
# Generated by scripts/test-stack.sh; rewritten on every up.
Port $port
ListenAddress $listen
HostKey $SSH_DIR/host_ed25519_key
PidFile $pid_file
# Keys for root live in the state folder: /root/.ssh stays untouched.
AuthorizedKeysFile $SSH_DIR/authorized_keys .ssh/authorized_keys
PermitRootLogin prohibit-password
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
UseDNS no
# The state folder defaults to /tmp, which is world-writable: StrictModes
# would refuse every key under it.
StrictModes no
# OpenSSH refuses unix-socket forwarding when TCP forwarding is off.
AllowTcpForwarding yes
AllowStreamLocalForwarding $streamlocal
X11Forwarding no
PrintMotd no
# Tests dial many connections at once; the default 10:30:100 would drop some.
MaxStartups 200
MaxSessions 100
LogLevel INFO
EOF
  if [ -n "$force_command" ]; then
    printf 'ForceCommand %s\n' "$force_command" >>"$config.new"
  fi
  chmod 0600 "$config.new"
  if cmp -s "$config.new" "$config"; then
    rm -f "$config.new"
    return 1
  fi
  mv -f "$config.new" "$config"
}

# ssh_answers PORT [ADDRESS [NETNS]]: from inside network namespace NETNS when given.
ssh_answers() {
  ${3:+ip netns exec "$3"} ssh -q -p "$1" -i "$SSH_DIR/client_ed25519" \
    -o BatchMode=yes -o IdentitiesOnly=yes -o ConnectTimeout=2 \
    -o UserKnownHostsFile="$SSH_DIR/known_hosts" -o StrictHostKeyChecking=yes \
    -o GlobalKnownHostsFile=/dev/null \
    "root@${2:-127.0.0.1}" true
}

# write_known_hosts [PORT]: the lines of PORT and of both sshds' recorded ports.
write_known_hosts() {
  local port
  : >"$SSH_DIR/known_hosts.new"
  : >"$SSH_DIR/wrong_known_hosts.new"
  for port in $(printf '%s\n' "$@" "$(cat "$SSHD_PORT_FILE" 2>/dev/null)" "$(cat "$SSHD2_PORT_FILE" 2>/dev/null)" \
      "$(cat "$SSHD3_PORT_FILE" 2>/dev/null)" "$(cat "$SSHD4_PORT_FILE" 2>/dev/null)" \
      | grep -E '^[0-9]+$' | sort -u); do
    printf '[127.0.0.1]:%s %s\n' "$port" "$(cut -d' ' -f1,2 "$SSH_DIR/host_ed25519_key.pub")" \
      >>"$SSH_DIR/known_hosts.new"
    printf '[127.0.0.1]:%s %s\n' "$port" "$(cut -d' ' -f1,2 "$SSH_DIR/other_host_ed25519_key.pub")" \
      >>"$SSH_DIR/wrong_known_hosts.new"
  done
  # The jump host listens on port 22, so known_hosts names it bare.
  printf '%s %s\n' "$JUMP_ADDRESS" "$(cut -d' ' -f1,2 "$SSH_DIR/host_ed25519_key.pub")" >>"$SSH_DIR/known_hosts.new"
  printf '[127.0.0.1]:%s %s\n' "$BEHIND_JUMP_PORT" "$(cut -d' ' -f1,2 "$SSH_DIR/host_ed25519_key.pub")" \
    >>"$SSH_DIR/known_hosts.new"
  mv -f "$SSH_DIR/known_hosts.new" "$SSH_DIR/known_hosts"
  mv -f "$SSH_DIR/wrong_known_hosts.new" "$SSH_DIR/wrong_known_hosts"
}

# libvirt's qemu+ssh transport (the OpenSSH binary) ignores the URI's
# known_hosts= (only its libssh/libssh2 transports honour it) and runs ssh with
# a scrubbed environment, so it would check ~/.ssh/known_hosts. This wrapper,
# named in the URI as command=PATH, points ssh at the stack's known_hosts
# instead, leaving /root/.ssh alone. See scripts/virsh-over-ssh.sh.
write_virsh_ssh_command() {
  local wrapper=$SSH_DIR/ssh-for-libvirt
  {
    echo '#!/bin/sh'
    echo "# Generated by scripts/test-stack.sh: the ssh of libvirt URIs qemu+ssh://...&command=$wrapper"
    echo "exec ssh -o UserKnownHostsFile=$SSH_DIR/known_hosts -o GlobalKnownHostsFile=/dev/null \\"
    echo '  -o StrictHostKeyChecking=yes -o IdentitiesOnly=yes -o BatchMode=yes "$@"'
  } >"$wrapper.new"
  chmod 0755 "$wrapper.new"
  mv -f "$wrapper.new" "$wrapper"
}

# ensure_sshd CONFIG PID_FILE PORT_FILE PREFERRED_PORT NAME [STREAMLOCAL [FORCE_COMMAND]]: prints the port.
ensure_sshd() {
  local config=$1 pid_file=$2 port_file=$3 preferred=$4 name=$5 streamlocal=${6:-yes} force_command=${7:-} port
  # Keep a running sshd (and its port): tests of a previous up may hold
  # connections. A changed config (a newer version of this script) reaches it
  # through SIGHUP, which re-executes the listener and leaves sessions alone.
  if pid_alive "$pid_file" && [ -s "$port_file" ]; then
    port=$(cat "$port_file")
    if write_sshd_config "$config" "$pid_file" "$port" "$streamlocal" 127.0.0.1 "$force_command"; then
      /usr/sbin/sshd -t -f "$config" || die "sshd rejects $config"
      log "$name config changed; sending SIGHUP to $name"
      kill -HUP "$(tr -dc '0-9' <"$pid_file")"
    fi
    write_known_hosts "$port"
    if wait_for 5 ssh_answers "$port"; then
      echo "$port"
      return
    fi
    log "$name on port $port does not accept the client key; restarting it"
    stop_pid_file "$pid_file" "$name"
  fi
  port=$(free_port "$preferred")
  write_sshd_config "$config" "$pid_file" "$port" "$streamlocal" 127.0.0.1 "$force_command" || true
  write_known_hosts "$port"
  /usr/sbin/sshd -t -f "$config" || die "sshd rejects $config"
  log "starting $name on 127.0.0.1:$port"
  # The -o options repeat the config on purpose: they are what the tests rely on.
  /usr/sbin/sshd -f "$config" -E "${pid_file%.pid}.log" \
    -o AllowTcpForwarding=yes -o AllowStreamLocalForwarding="$streamlocal" \
    -o PermitRootLogin=prohibit-password
  echo "$port" >"$port_file"
  wait_for 10 ssh_answers "$port" \
    || die "$name on 127.0.0.1:$port does not accept the client key; see ${pid_file%.pid}.log"
  echo "$port"
}

# The PATH of sshd #4's commands: links to every command of /usr/bin and /bin but curl and wget.
ensure_no_curl_bin() {
  local tool name
  mkdir -p "$NO_CURL_BIN"
  for tool in /usr/bin/* /bin/*; do
    name=${tool##*/}
    case $name in curl | wget | wget2) continue ;; esac
    [ -e "$NO_CURL_BIN/$name" ] || [ -L "$NO_CURL_BIN/$name" ] || ln -s "$tool" "$NO_CURL_BIN/$name"
  done
  rm -f "$NO_CURL_BIN/curl" "$NO_CURL_BIN/wget" "$NO_CURL_BIN/wget2"
}

# --- jump host ---------------------------------------------------------------

in_jump_netns() { ip netns exec "$JUMP_NETNS" "$@"; }

ensure_jump_netns() {
  [ -e "/var/run/netns/$JUMP_NETNS" ] || ip netns add "$JUMP_NETNS"
  in_jump_netns ip link set lo up
  if ! ip link show "$JUMP_VETH" >/dev/null 2>&1; then
    ip link add "$JUMP_VETH" type veth peer name egress-jmp1 netns "$JUMP_NETNS"
    ip addr add "$JUMP_LOCAL_ADDRESS/30" dev "$JUMP_VETH"
    in_jump_netns ip addr add "$JUMP_ADDRESS/30" dev egress-jmp1
  fi
  ip link set "$JUMP_VETH" up
  in_jump_netns ip link set egress-jmp1 up
}

# ensure_netns_sshd CONFIG PID_FILE PORT LISTEN NAME: an sshd inside the namespace.
ensure_netns_sshd() {
  local config=$1 pid_file=$2 port=$3 listen=$4 name=$5 changed=0
  write_sshd_config "$config" "$pid_file" "$port" yes "$listen" && changed=1
  if pid_alive "$pid_file"; then
    if [ "$changed" -eq 1 ]; then
      log "$name config changed; sending SIGHUP to $name"
      kill -HUP "$(tr -dc '0-9' <"$pid_file")"
    fi
    return
  fi
  /usr/sbin/sshd -t -f "$config" || die "sshd rejects $config"
  log "starting $name on $listen:$port in network namespace $JUMP_NETNS"
  in_jump_netns /usr/sbin/sshd -f "$config" -E "${pid_file%.pid}.log"
}

ensure_jump_hosts() {
  ensure_jump_netns
  ensure_netns_sshd "$JUMP_SSHD_CONFIG" "$JUMP_SSHD_PID_FILE" "$JUMP_PORT" "$JUMP_ADDRESS" "jump host sshd"
  ensure_netns_sshd "$BEHIND_SSHD_CONFIG" "$BEHIND_SSHD_PID_FILE" "$BEHIND_JUMP_PORT" 127.0.0.1 "sshd behind the jump host"
  wait_for 10 ssh_answers "$JUMP_PORT" "$JUMP_ADDRESS" \
    || die "the jump host sshd on $JUMP_ADDRESS:$JUMP_PORT does not accept the client key; see ${JUMP_SSHD_PID_FILE%.pid}.log"
  wait_for 10 ssh_answers "$BEHIND_JUMP_PORT" 127.0.0.1 "$JUMP_NETNS" \
    || die "the sshd behind the jump host does not accept the client key; see ${BEHIND_SSHD_PID_FILE%.pid}.log"
}

remove_jump_hosts() {
  stop_pid_file "$JUMP_SSHD_PID_FILE" "jump host sshd"
  stop_pid_file "$BEHIND_SSHD_PID_FILE" "sshd behind the jump host"
  if [ -e "/var/run/netns/$JUMP_NETNS" ]; then
    ip netns del "$JUMP_NETNS"
  fi
}

# --- images and HTTP ---------------------------------------------------------

# The images are made once and kept, so their digests stay stable across runs.
# The qcow2 holds 256 KiB of random data in a 64 MiB disk: a few hundred KB on
# disk and over HTTP, and compressed copies that are not trivially small, so
# streaming, length and digest checks see real bytes.
ensure_images() {
  local qcow2=$IMAGES_DIR/$IMAGE_BASENAME.qcow2 seed=$IMAGES_DIR/seed.raw.tmp
  mkdir -p "$IMAGES_DIR"
  chmod 0755 "$IMAGES_DIR"
  if [ ! -s "$qcow2" ]; then
    log "creating $qcow2 ($IMAGE_VIRTUAL_SIZE virtual)"
    rm -f "$seed"
    truncate -s "$IMAGE_VIRTUAL_SIZE" "$seed"
    dd if=/dev/urandom of="$seed" bs=64k count=4 conv=notrunc status=none
    qemu-img convert -f raw -O qcow2 "$seed" "$qcow2.tmp"
    rm -f "$seed"
    mv -f "$qcow2.tmp" "$qcow2"
    # Everything derived from an older qcow2 is stale now.
    rm -f "$IMAGES_DIR/$IMAGE_BASENAME.raw" "$qcow2.xz" "$qcow2.gz" "$IMAGES_DIR/SHA256SUMS"
  fi
  if [ ! -s "$IMAGES_DIR/$IMAGE_BASENAME.raw" ]; then
    qemu-img convert -f qcow2 -O raw "$qcow2" "$IMAGES_DIR/$IMAGE_BASENAME.raw.tmp"
    mv -f "$IMAGES_DIR/$IMAGE_BASENAME.raw.tmp" "$IMAGES_DIR/$IMAGE_BASENAME.raw"
  fi
  if [ ! -s "$qcow2.xz" ]; then
    xz -c -T1 "$qcow2" >"$qcow2.xz.tmp" && mv -f "$qcow2.xz.tmp" "$qcow2.xz"
  fi
  if [ ! -s "$qcow2.gz" ]; then
    gzip -c -n "$qcow2" >"$qcow2.gz.tmp" && mv -f "$qcow2.gz.tmp" "$qcow2.gz"
  fi
  if [ ! -s "$IMAGES_DIR/SHA256SUMS" ]; then
    (cd "$IMAGES_DIR" && sha256sum "$IMAGE_BASENAME.qcow2" "$IMAGE_BASENAME.raw" \
      "$IMAGE_BASENAME.qcow2.xz" "$IMAGE_BASENAME.qcow2.gz" >SHA256SUMS.tmp && mv -f SHA256SUMS.tmp SHA256SUMS)
  fi
}

http_answers() { curl -fsS -o /dev/null --max-time 2 "http://127.0.0.1:$1/SHA256SUMS"; }

ensure_http() {
  local port python
  if pid_alive "$HTTP_PID_FILE" && [ -s "$HTTP_PORT_FILE" ]; then
    port=$(cat "$HTTP_PORT_FILE")
    if http_answers "$port"; then
      echo "$port"
      return
    fi
    stop_pid_file "$HTTP_PID_FILE" "HTTP server"
  fi
  python=$(python_binary)
  port=$(free_port "$(preferred_port "${EGRESS_TEST_HTTP_PORT:-}" "$HTTP_PORT_FILE" 18080)")
  log "starting HTTP server on 127.0.0.1:$port for $IMAGES_DIR"
  # sh writes its own pid, then execs python: the pid file names the server
  # itself. setsid detaches it from this shell's session and job control.
  # shellcheck disable=SC2016
  setsid sh -c 'echo $$ >"$1"; shift; exec "$@"' _ "$HTTP_PID_FILE" \
    "$python" -m http.server --bind 127.0.0.1 --directory "$IMAGES_DIR" "$port" \
    </dev/null >"$STATE_DIR/http.log" 2>&1 &
  echo "$port" >"$HTTP_PORT_FILE"
  wait_for 10 http_answers "$port" \
    || die "HTTP server on 127.0.0.1:$port does not answer; see $STATE_DIR/http.log"
  echo "$port"
}

# --- etcd --------------------------------------------------------------------

# Missing etcd commands, space-separated; empty when all are there. Not part of require_commands:
# without etcd the rest of the stack still comes up (the KVM tests need no etcd), and up says loudly
# what is missing.
etcd_missing_commands() {
  local missing=() command
  for command in etcd etcdctl openssl; do
    command -v "$command" >/dev/null 2>&1 || missing+=("$command")
  done
  echo "${missing[*]}"
}

require_etcd_commands() {
  local missing
  missing=$(etcd_missing_commands)
  [ -z "$missing" ] || die "missing commands: $missing (Debian packages etcd-server, etcd-client); run scripts/install-test-dependencies.sh first"
}

etcd_name() { echo "egress-etcd-$1"; }
etcd_member_dir() { echo "$ETCD_DIR/egress-etcd-$1"; }
etcd_pid_file() { echo "$ETCD_DIR/egress-etcd-$1/etcd.pid"; }
etcd_log() { echo "$ETCD_DIR/egress-etcd-$1/etcd.log"; }

etcd_client_port() {
  case $1 in
    tls) echo 23794 ;;
    *) echo "$((23790 + $1))" ;;
  esac
}

etcd_peer_port() {
  case $1 in
    tls) echo 23804 ;;
    *) echo "$((23800 + $1))" ;;
  esac
}

etcd_client_url() {
  case $1 in
    tls) echo "https://127.0.0.1:$(etcd_client_port tls)" ;;
    *) echo "http://127.0.0.1:$(etcd_client_port "$1")" ;;
  esac
}

# etcdctl with the v3 API (3.4's default already; explicit, as an ETCDCTL_API=2 would switch to
# the v2 commands) and short timeouts. Every call names its endpoints: etcdctl's default,
# 127.0.0.1:2379, is where the Debian package's own etcd would listen, which the stack never uses.
etcdctl_v3() { ETCDCTL_API=3 etcdctl --dial-timeout=1s --command-timeout=3s "$@"; }

# The TLS member, with the stack's CA and client certificate (and no user: add --user).
etcdctl_tls() {
  etcdctl_v3 --endpoints="$(etcd_client_url tls)" --cacert="$ETCD_TLS_DIR/ca.pem" \
    --cert="$ETCD_TLS_DIR/client.pem" --key="$ETCD_TLS_DIR/client-key.pkcs8.pem" "$@"
}

# etcd_alive M: member M's pid file names a live etcd. The name is checked too: the state folder
# may outlive a reboot, and its pid files with it.
etcd_alive() {
  local file
  file=$(etcd_pid_file "$1")
  pid_alive "$file" && [ "$(cat "/proc/$(tr -dc '0-9' <"$file")/comm" 2>/dev/null)" = etcd ]
}

etcd_gone() { ! etcd_alive "$1"; }

etcd_running_count() {
  local member count=0
  for member in 1 2 3; do
    if etcd_alive "$member"; then count=$((count + 1)); fi
  done
  echo "$count"
}

# Healthy: the member answers a linearizable read, so it is part of a cluster with a leader. (The
# TLS member answers "permission denied" to a client without a user; etcdctl counts that healthy.)
etcd_member_healthy() {
  case $1 in
    tls) etcdctl_tls endpoint health ;;
    *) etcdctl_v3 --endpoints="$(etcd_client_url "$1")" endpoint health ;;
  esac
}

etcd_cluster_healthy() { etcdctl_v3 --endpoints="$ETCD_ENDPOINTS" endpoint health; }

etcd_log_tail() { tail -n 5 "$(etcd_log "$1")" 2>/dev/null || true; }

# etcd_start_member M: starts member M, detached, on its data folder (a new one: a new member of a
# new cluster); nothing when it runs, but a member left stopped (SIGSTOP) is resumed. Returns when
# the process runs, not when it serves.
etcd_start_member() {
  local member=$1 name dir data state port flags=()
  name=$(etcd_name "$member")
  if etcd_alive "$member"; then
    resume_if_stopped "$(etcd_pid_file "$member")" "etcd member $name" >/dev/null
    return
  fi
  for port in "$(etcd_client_port "$member")" "$(etcd_peer_port "$member")"; do
    ! port_in_use "$port" \
      || die "port $port, which etcd member $name needs, is taken by another process (ss -ltnp 'sport = :$port' shows which)"
  done
  dir=$(etcd_member_dir "$member")
  data=$dir/data
  mkdir -p "$dir"
  chmod 0755 "$dir"
  # etcd wants its data folder private.
  mkdir -p "$data"
  chmod 0700 "$data"
  if [ -d "$data/member" ]; then state=existing; else state=new; fi
  if [ "$member" = tls ]; then
    flags=(--initial-cluster "$name=http://127.0.0.1:$(etcd_peer_port tls)"
      --initial-cluster-token egress-test-etcd-tls
      --cert-file "$ETCD_TLS_DIR/server.pem" --key-file "$ETCD_TLS_DIR/server-key.pem"
      --client-cert-auth --trusted-ca-file "$ETCD_TLS_DIR/ca.pem")
  else
    flags=(--initial-cluster "$ETCD_INITIAL_CLUSTER" --initial-cluster-token egress-test-etcd)
  fi
  log "starting etcd member $name on $(etcd_client_url "$member") ($state data in $data)"
  rm -f "$(etcd_pid_file "$member")"
  # As the HTTP server: sh writes its own pid, then execs etcd. etcd's default heartbeat (100 ms)
  # and election timeout (1 s) are kept: a busy two-core machine would see spurious elections with
  # shorter ones, and a stopped leader is replaced within about a second anyway.
  # shellcheck disable=SC2016
  setsid sh -c 'echo $$ >"$1"; shift; exec "$@"' _ "$(etcd_pid_file "$member")" \
    etcd --name "$name" --data-dir "$data" \
    --listen-client-urls "$(etcd_client_url "$member")" --advertise-client-urls "$(etcd_client_url "$member")" \
    --listen-peer-urls "http://127.0.0.1:$(etcd_peer_port "$member")" \
    --initial-advertise-peer-urls "http://127.0.0.1:$(etcd_peer_port "$member")" \
    --initial-cluster-state "$state" "${flags[@]}" \
    --logger zap --log-outputs stderr \
    </dev/null >>"$(etcd_log "$member")" 2>&1 &
  wait_for 5 etcd_alive "$member" \
    || die "etcd member $name did not start; $(etcd_log "$member") ends with:
$(etcd_log_tail "$member")"
}

# etcd_await_listener M: until member M's client port is bound; dies when it exits or after 15 s.
etcd_await_listener() {
  local member=$1 port deadline=$((SECONDS + 15))
  port=$(etcd_client_port "$member")
  until port_in_use "$port"; do
    etcd_alive "$member" || die "etcd member $(etcd_name "$member") exited; $(etcd_log "$member") ends with:
$(etcd_log_tail "$member")"
    [ "$SECONDS" -lt "$deadline" ] || die "etcd member $(etcd_name "$member") does not listen on $port after 15 s; see $(etcd_log "$member")"
    sleep 0.1
  done
}

# etcd_signal_members SIGNAL M...: sends SIGNAL to those of members M... that run, all at once,
# then waits until each is gone: after SIGTERM up to 15 s, then SIGKILL.
etcd_signal_members() {
  local signal=$1 member pid stopping=()
  shift
  for member in "$@"; do
    etcd_alive "$member" || { rm -f "$(etcd_pid_file "$member")"; continue; }
    pid=$(tr -dc '0-9' <"$(etcd_pid_file "$member")")
    log "sending SIG$signal to etcd member $(etcd_name "$member") (pid $pid)"
    kill "-$signal" "$pid" 2>/dev/null || true
    # A stopped (SIGSTOP) process acts on SIGTERM only once resumed.
    kill -CONT "$pid" 2>/dev/null || true
    stopping+=("$member")
  done
  for member in "${stopping[@]}"; do
    if ! wait_for 15 etcd_gone "$member"; then
      log "etcd member $(etcd_name "$member") still runs 15 s after SIG$signal; sending SIGKILL"
      kill -KILL "$(tr -dc '0-9' <"$(etcd_pid_file "$member")")" 2>/dev/null || true
      wait_for 5 etcd_gone "$member" || die "etcd member $(etcd_name "$member") survived SIGKILL"
    fi
    rm -f "$(etcd_pid_file "$member")"
  done
}

# etcd_cluster_leader M...: which of the running cluster members M... leads, when one says so.
# etcdctl's status line: endpoint, ID, version, DB size, is leader, ...; the member's number is
# the client port's last digit.
etcd_cluster_leader() {
  local member urls=()
  for member in "$@"; do
    case $member in 1 | 2 | 3) if etcd_alive "$member"; then urls+=("$(etcd_client_url "$member")"); fi ;; esac
  done
  [ ${#urls[@]} -gt 1 ] || return 0
  etcdctl_v3 --command-timeout=1s --endpoints="$(IFS=,; echo "${urls[*]}")" endpoint status 2>/dev/null \
    | awk -F', ' '$5 == "true" && !found { found = 1; print substr($1, length($1)) }' || true
}

# etcd_stop_members SIGNAL M...: stops members M... with SIGNAL (TERM or KILL) and waits until
# they are gone. On SIGTERM a leader first hands its leadership to a follower; if that follower is
# shutting down too, the leader waits about 7 s for the handover to time out. So the followers
# go first, and the leader, with no one left to hand over to, after them.
etcd_stop_members() {
  local signal=$1 leader member followers=()
  shift
  leader=
  if [ "$signal" = TERM ]; then leader=$(etcd_cluster_leader "$@"); fi
  if [ -z "$leader" ]; then
    etcd_signal_members "$signal" "$@"
    return
  fi
  for member in "$@"; do
    [ "$member" = "$leader" ] || followers+=("$member")
  done
  etcd_signal_members "$signal" "${followers[@]}"
  etcd_signal_members "$signal" "$leader"
}

# The cluster: starts the members that do not run and waits until all three are healthy.
ensure_etcd_cluster() {
  local member
  for member in 1 2 3; do
    etcd_start_member "$member"
  done
  wait_for 30 etcd_cluster_healthy \
    || die "the etcd cluster ($ETCD_ENDPOINTS) is not healthy after 30 s; see $ETCD_DIR/egress-etcd-{1,2,3}/etcd.log ('$0 down' removes its data: the next up starts it empty)"
}

# new_etcd_password FILE: a random password, without a newline, when FILE has none yet.
new_etcd_password() {
  [ -s "$1" ] && return
  openssl rand -hex 16 | tr -d '\n' >"$1.tmp"
  chmod 0600 "$1.tmp"
  mv -f "$1.tmp" "$1"
}

# new_etcd_certificate FOLDER NAME SUBJECT EXTENSIONS: FOLDER/NAME-key.pem and FOLDER/NAME.pem,
# signed by FOLDER/ca.pem.
new_etcd_certificate() {
  local work=$1 name=$2 subject=$3 extensions=$4
  openssl req -newkey rsa:2048 -nodes -subj "$subject" -keyout "$work/$name-key.pem" -out "$work/$name.csr" \
    2>"$work/openssl.log" || die "openssl could not make the $name key: $(cat "$work/openssl.log")"
  printf '%s\n' "$extensions" >"$work/$name.ext"
  openssl x509 -req -in "$work/$name.csr" -CA "$work/ca.pem" -CAkey "$work/ca-key.pem" \
    -set_serial "0x$(openssl rand -hex 8)" -days 3650 -extfile "$work/$name.ext" -out "$work/$name.pem" \
    2>"$work/openssl.log" || die "openssl could not sign the $name certificate: $(cat "$work/openssl.log")"
}

# tls-v2: server certificates that also authenticate clients, and a client certificate without CN.
readonly ETCD_TLS_FILES="ca.pem ca-key.pem server.pem server-key.pem client.pem client-key.pem client-key.pkcs8.pem tls-v2"

# The TLS member's files, made once (like the SSH keys) and kept across down/up: a CA, a server
# certificate for 127.0.0.1 and localhost that is a client certificate too (etcd's JSON gateway
# calls its own member with it), a client certificate without CN (O=egress-test-client: etcd's
# JSON gateway refuses a client certificate with a CN, whose CN it could not use as the user) with its
# RSA key twice, traditional (BEGIN RSA PRIVATE KEY) and as unencrypted PKCS#8 (BEGIN PRIVATE KEY,
# which Java's key factories read), and the passwords of users root and egress.
ensure_etcd_tls_files() {
  local dir=$ETCD_TLS_DIR file work complete=true
  mkdir -p "$dir"
  chmod 0755 "$dir"
  for file in $ETCD_TLS_FILES; do
    [ -s "$dir/$file" ] || complete=false
  done
  if ! $complete; then
    log "making the etcd TLS member's CA and certificates in $dir"
    work=$(mktemp -d "$dir/new.XXXXXX")
    openssl req -x509 -newkey rsa:2048 -nodes -days 3650 -subj "/CN=egress-test etcd CA" \
      -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign,cRLSign \
      -keyout "$work/ca-key.pem" -out "$work/ca.pem" 2>"$work/openssl.log" \
      || die "openssl could not make the etcd CA: $(cat "$work/openssl.log")"
    new_etcd_certificate "$work" server "/CN=egress-etcd-tls" "basicConstraints=CA:FALSE
keyUsage=critical,digitalSignature,keyEncipherment
extendedKeyUsage=serverAuth,clientAuth
subjectAltName=IP:127.0.0.1,DNS:localhost"
    new_etcd_certificate "$work" client "/O=egress-test-client" "basicConstraints=CA:FALSE
keyUsage=critical,digitalSignature,keyEncipherment
extendedKeyUsage=clientAuth"
    openssl pkcs8 -topk8 -nocrypt -in "$work/client-key.pem" -out "$work/client-key.pkcs8.pem" 2>"$work/openssl.log" \
      || die "openssl could not convert the client key to PKCS#8: $(cat "$work/openssl.log")"
    openssl rsa -in "$work/client-key.pkcs8.pem" -traditional -out "$work/client-key.pem" 2>"$work/openssl.log" \
      || die "openssl could not convert the client key to its traditional form: $(cat "$work/openssl.log")"
    : >"$work/tls-v2"
    for file in $ETCD_TLS_FILES; do
      case $file in *key*) chmod 0600 "$work/$file" ;; *) chmod 0644 "$work/$file" ;; esac
      mv -f "$work/$file" "$dir/$file"
    done
    rm -rf "$work"
  fi
  new_etcd_password "$dir/root.password"
  new_etcd_password "$dir/$ETCD_TLS_USER.password"
}

# etcdctl_tls_admin ARGS...: an administrative etcdctl call on the TLS member; dies with its output.
etcdctl_tls_admin() {
  local output
  output=$(etcdctl_tls "$@" 2>&1) || die "etcdctl $* on the TLS member failed: $output"
}

# The TLS member: client certificates from the stack's CA only, and authentication. Its users and
# role are made once, on a new data folder; a marker beside the data holds a digest of the CA and
# the passwords they were made with, so a setup that broke off, or new credentials, start it anew.
ensure_etcd_tls_member() {
  local dir marker digest
  ensure_etcd_tls_files
  dir=$(etcd_member_dir tls)
  marker=$dir/auth-configured
  digest=$(cat "$ETCD_TLS_DIR/ca.pem" "$ETCD_TLS_DIR/root.password" "$ETCD_TLS_DIR/$ETCD_TLS_USER.password" \
    | sha256sum | cut -d' ' -f1)
  if [ "$(cat "$marker" 2>/dev/null)" != "$digest" ]; then
    etcd_stop_members TERM tls
    rm -rf "$dir/data" "$marker"
  fi
  etcd_start_member tls
  wait_for 20 etcd_member_healthy tls \
    || die "etcd member $(etcd_name tls) is not healthy after 20 s; see $(etcd_log tls)"
  if [ ! -s "$marker" ]; then
    log "enabling authentication on etcd member $(etcd_name tls): users root and $ETCD_TLS_USER (role $ETCD_TLS_USER: readwrite on prefix $ETCD_TLS_PREFIX)"
    etcdctl_tls_admin user add root --new-user-password="$(cat "$ETCD_TLS_DIR/root.password")"
    etcdctl_tls_admin user grant-role root root
    etcdctl_tls_admin role add "$ETCD_TLS_USER"
    etcdctl_tls_admin role grant-permission "$ETCD_TLS_USER" --prefix=true readwrite "$ETCD_TLS_PREFIX"
    etcdctl_tls_admin user add "$ETCD_TLS_USER" --new-user-password="$(cat "$ETCD_TLS_DIR/$ETCD_TLS_USER.password")"
    etcdctl_tls_admin user grant-role "$ETCD_TLS_USER" "$ETCD_TLS_USER"
    etcdctl_tls_admin auth enable
    echo "$digest" >"$marker"
  fi
}

# Both; false (with a warning, and nothing started) when etcd is not installed.
ensure_etcd() {
  local missing
  missing=$(etcd_missing_commands)
  if [ -n "$missing" ]; then
    log "WARNING: missing commands: $missing (Debian packages etcd-server, etcd-client): the etcd members are NOT started and the env file names none; run scripts/install-test-dependencies.sh, then up again"
    return 1
  fi
  mkdir -p "$ETCD_DIR"
  chmod 0755 "$ETCD_DIR"
  ensure_etcd_cluster
  ensure_etcd_tls_member
}

remove_etcd() {
  local member
  etcd_stop_members TERM 1 2 3 tls
  for member in 1 2 3 tls; do
    if [ -d "$(etcd_member_dir "$member")" ]; then
      log "removing etcd member $(etcd_name "$member")'s data"
      rm -rf -- "$(etcd_member_dir "$member")"
    fi
  done
}

# --- env ---------------------------------------------------------------------

write_env() {
  local ssh_port=$1 http_port=$2 domain_type=$3 ssh2_port=$4 ssh3_port=$5 ssh4_port=$6 etcd=$7
  cat >"$ENV_FILE.tmp" <<EOF
EGRESS_TEST_STACK_DIR=$STATE_DIR
EGRESS_TEST_SSH_HOST=127.0.0.1
EGRESS_TEST_SSH_PORT=$ssh_port
EGRESS_TEST_SSH_USER=root
EGRESS_TEST_SSH_KEY=$SSH_DIR/client_ed25519
EGRESS_TEST_SSH_KEY_RSA=$SSH_DIR/client_rsa.pem
EGRESS_TEST_SSH_KEY_ECDSA=$SSH_DIR/client_ecdsa.pem
EGRESS_TEST_KNOWN_HOSTS=$SSH_DIR/known_hosts
EGRESS_TEST_WRONG_KNOWN_HOSTS=$SSH_DIR/wrong_known_hosts
EGRESS_TEST_LIBVIRT_SOCKET=$LIBVIRT_SOCKET
EGRESS_TEST_POOL=$POOL
EGRESS_TEST_POOL_DIR=$POOL_DIR
EGRESS_TEST_BRIDGE=$BRIDGE
EGRESS_TEST_HTTP_URL=http://127.0.0.1:$http_port
EGRESS_TEST_IMAGES_DIR=$IMAGES_DIR
EGRESS_TEST_IMAGE_QCOW2=$IMAGE_BASENAME.qcow2
EGRESS_TEST_IMAGE_QCOW2_SHA256=$(sha256sum "$IMAGES_DIR/$IMAGE_BASENAME.qcow2" | cut -d' ' -f1)
EGRESS_TEST_IMAGE_RAW=$IMAGE_BASENAME.raw
EGRESS_TEST_IMAGE_QCOW2_XZ=$IMAGE_BASENAME.qcow2.xz
EGRESS_TEST_IMAGE_QCOW2_GZ=$IMAGE_BASENAME.qcow2.gz
EGRESS_TEST_SSHD_PID=$(tr -dc '0-9' <"$SSHD_PID_FILE")
EGRESS_TEST_LIBVIRTD_PID=$(tr -dc '0-9' </run/libvirtd.pid)
EGRESS_TEST_HTTP_PID=$(tr -dc '0-9' <"$HTTP_PID_FILE")
EGRESS_TEST_DOMAIN_TYPE=$domain_type
EGRESS_TEST_VIRSH_SSH_COMMAND=$SSH_DIR/ssh-for-libvirt
EGRESS_TEST_HOST2_SSH_PORT=$ssh2_port
EGRESS_TEST_HOST2_LIBVIRT_SOCKET=$HOST2_SOCKET
EGRESS_TEST_HOST2_LIBVIRT_URI=$HOST2_URI
EGRESS_TEST_HOST2_POOL_DIR=$HOST2_POOL_DIR
EGRESS_TEST_HOST2_SSHD_PID=$(tr -dc '0-9' <"$SSHD2_PID_FILE")
EGRESS_TEST_HOST2_LIBVIRTD_PID=$(tr -dc '0-9' <"$HOST2_LIBVIRTD_PID_FILE")
EGRESS_TEST_NO_STREAMLOCAL_SSH_PORT=$ssh3_port
EGRESS_TEST_NO_CURL_SSH_PORT=$ssh4_port
EGRESS_TEST_UNPRIVILEGED_USER=egress-unprivileged
EGRESS_TEST_JUMP_HOST=$JUMP_ADDRESS
EGRESS_TEST_JUMP_LOCAL_ADDRESS=$JUMP_LOCAL_ADDRESS
EGRESS_TEST_JUMP_SSH_PORT=$JUMP_PORT
EGRESS_TEST_JUMP_SSHD_PID=$(tr -dc '0-9' <"$JUMP_SSHD_PID_FILE")
EGRESS_TEST_BEHIND_JUMP_HOST=127.0.0.1
EGRESS_TEST_BEHIND_JUMP_SSH_PORT=$BEHIND_JUMP_PORT
EOF
  if [ "$etcd" = yes ]; then
    cat >>"$ENV_FILE.tmp" <<EOF
EGRESS_TEST_ETCD_ENDPOINTS=$ETCD_ENDPOINTS
EGRESS_TEST_ETCD_TLS_ENDPOINT=$(etcd_client_url tls)
EGRESS_TEST_ETCD_CA=$ETCD_TLS_DIR/ca.pem
EGRESS_TEST_ETCD_CLIENT_CERT=$ETCD_TLS_DIR/client.pem
EGRESS_TEST_ETCD_CLIENT_KEY=$ETCD_TLS_DIR/client-key.pkcs8.pem
EGRESS_TEST_ETCD_USER=$ETCD_TLS_USER
EGRESS_TEST_ETCD_PASSWORD_FILE=$ETCD_TLS_DIR/$ETCD_TLS_USER.password
EOF
  fi
  mv -f "$ENV_FILE.tmp" "$ENV_FILE"
}

# --- subcommands ---------------------------------------------------------------

# The env file is plain KEY=VALUE, read by shells and by Java alike: no value
# may need quoting.
check_names() {
  case $STATE_DIR in
    /*) ;;
    *) die "EGRESS_TEST_STACK_DIR must be an absolute path, not '$STATE_DIR'" ;;
  esac
  [[ $STATE_DIR =~ ^[A-Za-z0-9_./-]+$ ]] \
    || die "EGRESS_TEST_STACK_DIR '$STATE_DIR' may hold only letters, digits and . _ / - (it goes unquoted into the env file and into libvirt URIs)"
  [[ $POOL =~ ^[A-Za-z0-9_.-]+$ ]] || die "EGRESS_TEST_POOL '$POOL' may hold only letters, digits and . _ -"
  [[ $BRIDGE =~ ^[A-Za-z0-9_.-]+$ ]] || die "EGRESS_TEST_BRIDGE '$BRIDGE' may hold only letters, digits and . _ -"
}

cmd_up() {
  require_root
  require_commands
  check_names
  local started=$SECONDS ssh_port ssh2_port ssh3_port ssh4_port http_port domain_type etcd=yes
  mkdir -p "$STATE_DIR"
  chmod 0755 "$STATE_DIR"
  ensure_users_and_folders
  ensure_libvirtd
  ensure_second_libvirtd
  ensure_bridge
  ensure_pool "$LIBVIRT_URI" "$POOL_DIR"
  ensure_pool "$HOST2_URI" "$HOST2_POOL_DIR"
  ensure_images
  ensure_keys
  write_virsh_ssh_command
  ssh_port=$(ensure_sshd "$SSHD_CONFIG" "$SSHD_PID_FILE" "$SSHD_PORT_FILE" \
    "$(preferred_port "${EGRESS_TEST_SSH_PORT:-}" "$SSHD_PORT_FILE" 2222)" sshd)
  ssh2_port=$(ensure_sshd "$SSHD2_CONFIG" "$SSHD2_PID_FILE" "$SSHD2_PORT_FILE" \
    "$(preferred_port "${EGRESS_TEST_HOST2_SSH_PORT:-}" "$SSHD2_PORT_FILE" 2322)" "sshd #2")
  ssh3_port=$(ensure_sshd "$SSHD3_CONFIG" "$SSHD3_PID_FILE" "$SSHD3_PORT_FILE" \
    "$(preferred_port "" "$SSHD3_PORT_FILE" 2422)" "sshd #3 (no streamlocal)" no)
  ensure_no_curl_bin
  ssh4_port=$(ensure_sshd "$SSHD4_CONFIG" "$SSHD4_PID_FILE" "$SSHD4_PORT_FILE" \
    "$(preferred_port "" "$SSHD4_PORT_FILE" 2622)" "sshd #4 (no curl)" yes \
    "PATH=$NO_CURL_BIN exec /bin/sh -c \"\$SSH_ORIGINAL_COMMAND\"")
  ensure_jump_hosts
  http_port=$(ensure_http)
  ensure_etcd || etcd=no
  domain_type=$(detect_domain_type)
  write_env "$ssh_port" "$http_port" "$domain_type" "$ssh2_port" "$ssh3_port" "$ssh4_port" "$etcd"
  log "up in $((SECONDS - started)) s; environment in $ENV_FILE"
}

cmd_down() {
  require_root
  stop_pid_file "$SSHD_PID_FILE" sshd
  stop_pid_file "$SSHD2_PID_FILE" "sshd #2"
  stop_pid_file "$SSHD3_PID_FILE" "sshd #3"
  stop_pid_file "$SSHD4_PID_FILE" "sshd #4"
  remove_jump_hosts
  stop_pid_file "$HTTP_PID_FILE" "HTTP server"
  remove_etcd
  if libvirt_answers; then
    remove_test_domains "$LIBVIRT_URI"
    remove_pool "$LIBVIRT_URI"
  else
    log "libvirtd does not answer: domains ($TEST_DOMAIN_PREFIX*) and pool $POOL left as they are"
  fi
  if pid_alive "$HOST2_LIBVIRTD_PID_FILE"; then
    kill -CONT "$(tr -dc '0-9' <"$HOST2_LIBVIRTD_PID_FILE")" 2>/dev/null || true
    if host2_answers; then
      remove_test_domains "$HOST2_URI"
      remove_pool "$HOST2_URI"
    else
      log "libvirtd #2 does not answer: its domains and pool $POOL are left in $HOST2_DIR"
    fi
  fi
  stop_second_libvirtd
  remove_bridge
  rm -f "$ENV_FILE"
  log "down; the machine's libvirtd and virtlogd keep running (machine-wide daemons); keys, etcd's certificates and passwords, and images kept in $STATE_DIR"
}

cmd_env() {
  [ -s "$ENV_FILE" ] || die "no $ENV_FILE: run '$0 up' first"
  cat "$ENV_FILE"
}

cmd_status() {
  local pid
  if pid_alive /run/libvirtd.pid; then
    pid=$(tr -dc '0-9' </run/libvirtd.pid)
    if libvirt_answers; then
      echo "libvirtd      running, pid $pid, $(virsh_local version | sed -n 's/^ *\(Running hypervisor.*\)/\1/p')"
    else
      echo "libvirtd      pid $pid but NOT answering on $LIBVIRT_SOCKET (stopped with SIGSTOP?)"
    fi
  else
    echo "libvirtd      not running"
  fi
  if pid_alive /run/virtlogd.pid; then echo "virtlogd      running, pid $(cat /run/virtlogd.pid)"
  else echo "virtlogd      not running"; fi
  if pid_alive "$SSHD_PID_FILE"; then
    echo "sshd          running, pid $(cat "$SSHD_PID_FILE"), 127.0.0.1:$(cat "$SSHD_PORT_FILE" 2>/dev/null || echo '?')"
  else
    echo "sshd          not running"
  fi
  if pid_alive "$HTTP_PID_FILE"; then
    echo "http          running, pid $(cat "$HTTP_PID_FILE"), http://127.0.0.1:$(cat "$HTTP_PORT_FILE" 2>/dev/null || echo '?')/ serving $IMAGES_DIR"
  else
    echo "http          not running"
  fi
  if libvirt_answers && pool_exists "$LIBVIRT_URI"; then
    echo "pool          $POOL: $(virsh_local pool-info "$POOL" | awk -F': *' '/^State/ { print $2 }'), $(virsh_local vol-list --pool "$POOL" 2>/dev/null | grep -c . || true) volumes, target $(pool_target "$LIBVIRT_URI")"
  else
    echo "pool          $POOL: absent"
  fi
  if pid_alive "$HOST2_LIBVIRTD_PID_FILE" && host2_answers; then
    echo "libvirtd #2   running, pid $(cat "$HOST2_LIBVIRTD_PID_FILE"), socket $HOST2_SOCKET, $(virsh_on "$HOST2_URI" list --all --name | grep -c . || true) domains"
  else
    echo "libvirtd #2   not running or not answering"
  fi
  if pid_alive "$SSHD2_PID_FILE"; then
    echo "sshd #2       running, pid $(cat "$SSHD2_PID_FILE"), 127.0.0.1:$(cat "$SSHD2_PORT_FILE" 2>/dev/null || echo '?')"
  else
    echo "sshd #2       not running"
  fi
  if ip link show dev "$BRIDGE" >/dev/null 2>&1; then
    # Operstate is DOWN/UNKNOWN while no guest is attached; the admin flag counts.
    echo "bridge        $BRIDGE: $(ip -br link show dev "$BRIDGE" \
      | awk '{ admin = ($4 ~ /[<,]UP[,>]/) ? "up" : "DOWN (run up)"; print "admin " admin ", operstate " $2 }')"
  else
    echo "bridge        $BRIDGE: absent"
  fi
  if libvirt_answers; then
    echo "domains       $(virsh_local list --all --name | grep -c "^$TEST_DOMAIN_PREFIX" || true) named $TEST_DOMAIN_PREFIX*, $(virsh_local list --all --name | grep -c . || true) in all"
  fi
  status_etcd
  if [ -s "$ENV_FILE" ]; then echo "env           $ENV_FILE"; else echo "env           none (run up)"; fi
}

status_etcd() {
  local member missing health
  missing=$(etcd_missing_commands)
  if [ -n "$missing" ]; then
    echo "etcd          not installed ($missing missing; run scripts/install-test-dependencies.sh)"
    return
  fi
  for member in 1 2 3 tls; do
    if etcd_alive "$member"; then
      if etcd_member_healthy "$member" >/dev/null 2>&1; then health=healthy; else health="NOT healthy"; fi
      printf '%-13s %s\n' "$(etcd_name "$member")" \
        "running, pid $(tr -dc '0-9' <"$(etcd_pid_file "$member")"), $(etcd_client_url "$member"), $health"
    else
      printf '%-13s %s\n' "$(etcd_name "$member")" "not running ($(etcd_client_url "$member"))"
    fi
  done
}

# descendants PID: PID's children, grandchildren, ... one per line.
descendants() {
  local child
  for child in $(pgrep -P "$1" || true); do
    echo "$child"
    descendants "$child"
  done
}

# cmd_kill_sshd [second]
cmd_kill_sshd() {
  require_root
  local pid_file=$SSHD_PID_FILE port_file=$SSHD_PORT_FILE name=sshd listener pids
  case ${1:-} in
    '') ;;
    second) pid_file=$SSHD2_PID_FILE port_file=$SSHD2_PORT_FILE name="sshd #2" ;;
    jump) pid_file=$JUMP_SSHD_PID_FILE port_file=/dev/null name="jump host sshd" ;;
    *) die "kill-sshd takes no argument, 'second' or 'jump', not '$1'" ;;
  esac
  pid_alive "$pid_file" || die "$name is not running"
  listener=$(tr -dc '0-9' <"$pid_file")
  # Children first in the list, but all get SIGKILL at once: sessions must
  # drop as abruptly as a crashed host.
  pids=$(descendants "$listener")
  # shellcheck disable=SC2086
  kill -KILL $pids "$listener" 2>/dev/null || true
  wait_for 5 pid_gone "$pid_file" || die "$name (pid $listener) survived SIGKILL"
  log "killed $name listener $listener and $(grep -c . <<<"$pids" || true) connection processes; 'up' restarts it"
}

# etcd_members ARGUMENT SUBCOMMAND: the cluster members an etcd-* subcommand is about.
etcd_members() {
  case $1 in
    1 | 2 | 3) echo "$1" ;;
    all) echo "1 2 3" ;;
    *) die "$2 takes a member of the cluster (1, 2 or 3) or 'all', not '$1'" ;;
  esac
}

# The member list is assigned first: a die in a command substitution that is an argument would
# end only the subshell.
cmd_etcd_stop() {
  require_root
  local members
  members=$(etcd_members "$1" etcd-stop)
  # shellcheck disable=SC2086
  etcd_stop_members TERM $members
}

cmd_etcd_kill() {
  require_root
  local members
  members=$(etcd_members "$1" etcd-kill)
  # shellcheck disable=SC2086
  etcd_stop_members KILL $members
}

cmd_etcd_start() {
  require_root
  require_etcd_commands
  local members member
  members=$(etcd_members "$1" etcd-start)
  for member in $members; do
    etcd_start_member "$member"
  done
  if [ "$1" = all ]; then
    wait_for 30 etcd_cluster_healthy \
      || die "the etcd cluster ($ETCD_ENDPOINTS) is not healthy 30 s after its start; see $ETCD_DIR/egress-etcd-{1,2,3}/etcd.log"
    return
  fi
  etcd_await_listener "$1"
  if [ "$(etcd_running_count)" -ge 2 ]; then
    wait_for 30 etcd_member_healthy "$1" \
      || die "etcd member $(etcd_name "$1") is not healthy 30 s after its start; see $(etcd_log "$1")"
  else
    log "etcd member $(etcd_name "$1") runs without a quorum: it serves once a second member runs"
  fi
}

# Callers run this script under flock(1) (the stack is shared). flock's lock
# lives as long as any process holds the lock file open, and every daemon
# started here would inherit that descriptor: the lock would never be
# released. So descriptors above stderr are closed first (255 is bash's own
# handle on this script).
close_inherited_descriptors() {
  local fd
  for fd in /proc/$$/fd/*; do
    fd=${fd##*/}
    if [ "$fd" -gt 2 ] && [ "$fd" -ne 255 ]; then
      eval "exec $fd>&-" 2>/dev/null || true
    fi
  done
}

main() {
  close_inherited_descriptors
  case ${1:-} in
    up) cmd_up ;;
    down) cmd_down ;;
    env) cmd_env ;;
    status) cmd_status ;;
    kill-sshd) cmd_kill_sshd "${2:-}" ;;
    etcd-stop) cmd_etcd_stop "${2:-}" ;;
    etcd-kill) cmd_etcd_kill "${2:-}" ;;
    etcd-start) cmd_etcd_start "${2:-}" ;;
    *) echo "usage: $0 up|down|env|status|kill-sshd [second|jump]|etcd-stop|etcd-kill|etcd-start 1|2|3|all" >&2; exit 2 ;;
  esac
}

main "$@"
