#!/usr/bin/env bash
# Installs the system packages the test suite uses, on a Debian machine, as root.
# Idempotent: a machine that has them all installs nothing and needs no network
# (one dpkg-query call answers for the whole list, so the no-op path is fast).
set -euo pipefail

packages=(
  # independent ISO 9660 readers that check the seed ISO writer
  xorriso genisoimage libarchive-tools util-linux

  # the hypervisor the KVM backends talk to (scripts/test-stack.sh starts it).
  # libvirt-daemon-system is deliberately absent: it drags in systemd units and
  # polkit; test-stack.sh creates the users, groups and runtime folders itself.
  libvirt-daemon libvirt-daemon-driver-qemu libvirt-clients
  qemu-system-x86 qemu-utils
  # child subreaper that libvirtd runs under (see test-stack.sh ensure_libvirtd)
  tini
  # libvirt-java is a JNA binding: it dlopen()s libvirt.so.0 at run time
  libvirt0
  # UEFI firmware (OVMF_CODE_4M.fd / OVMF_VARS_4M.fd) for the firmware tests
  ovmf

  # the SSH hop: sshd the tests dial, ssh/ssh-keygen for keys and known_hosts
  openssh-server openssh-client
  # virsh's qemu+ssh/qemu+libssh baseline: with socket= in the URI, libvirt
  # runs "nc -U SOCKET" on the far side (virt-ssh-helper takes no socket path);
  # egressctl does the same through an sshd that forwards no unix sockets
  # (virt-ssh-helper, for the default socket, comes with libvirt-daemon)
  netcat-openbsd

  # the local image server (python3 -m http.server; http.server lives in the
  # stdlib package that python3 pulls in, python3-minimal lacks it) and the
  # compressed image copies
  python3 xz-utils gzip
  # what a host-side image fetch runs on the hypervisor (here: this machine): the other
  # decompressors, and wget for a host without curl
  bzip2 zstd wget
  # bridge for domain interfaces, free-port checks, process checks, HTTP probes
  iproute2 procps curl

  # scripts/build-test-image.sh, the real-guest end-to-end test's Debian image, made without
  # mounting anything: the tree (mmdebstrap), the root file system (mke2fs -d), the GPT (sfdisk,
  # in fdisk), the EFI system partition (mtools) and its boot loader (grub-mkstandalone)
  mmdebstrap e2fsprogs fdisk mtools grub-efi-amd64-bin

  # the real browser that loads serve's status page headless (ServeStatusPageBrowserTest dumps
  # its DOM and screenshots it); its text font comes through fontconfig's fonts-dejavu-core
  chromium
  # the HTTP load tool of the serve API benchmark (many concurrent clients, latency percentiles)
  wrk
  # a self-signed certificate for serve's TLS test
  openssl

  # the etcd members test-stack.sh starts (a 3-member cluster, a TLS+auth member) for replicated
  # serve, and etcdctl, through which the script and the tests talk to them. The package's own
  # etcd service (init.d, 127.0.0.1:2379) is not started here (policy-rc.d below) and nothing
  # of ours uses it: the stack's members listen on 23791-23794.
  etcd-server etcd-client
)

# One dpkg-query for all packages; a package dpkg has never heard of prints
# nothing on stdout, so compare the list of installed names to the wanted one.
installed=$(dpkg-query -W -f='${Package} ${Status}\n' "${packages[@]}" 2>/dev/null \
  | awk '$NF == "installed" && $(NF-1) == "ok" { print $1 }' || true)
missing=()
for package in "${packages[@]}"; do
  grep -qx -- "$package" <<<"$installed" || missing+=("$package")
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "all test packages present: ${packages[*]}"
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "missing packages: ${missing[*]}; run this script as root, or install them with apt-get" >&2
  exit 1
fi
echo "installing: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
# policy-rc.d 101 keeps the maintainer scripts from starting daemons (sshd,
# libvirtd) with their default configuration; test-stack.sh starts its own.
policy=/usr/sbin/policy-rc.d
created_policy=false
if [ ! -e "$policy" ]; then
  printf '#!/bin/sh\nexit 101\n' >"$policy"
  chmod 755 "$policy"
  created_policy=true
fi
cleanup() { if $created_policy; then rm -f "$policy"; fi; }
trap cleanup EXIT
apt-get install -y -q --no-install-recommends "${missing[@]}"
