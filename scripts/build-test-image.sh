#!/usr/bin/env bash
# Builds the small Debian guest image the real-guest end-to-end test boots, without mounting
# anything, and caches it outside the repository:
#   Debian bookworm (mmdebstrap, variant minbase, no recommends) with linux-image-amd64,
#   systemd-sysv, udev, qemu-guest-agent, ifupdown, iproute2 and cloud-init (NoCloud only, no
#   fallback network config, which would wait minutes for a DHCP server the test bridge lacks);
#   the root file system made by "mke2fs -d" from the tree; a GPT disk laid out by sfdisk in a
#   sparse file, with an EFI system partition written by mtools that holds a grub-mkstandalone
#   BOOTX64.EFI whose embedded grub.cfg finds the root by its file system UUID; converted to a
#   compressed qcow2. The guest boots with UEFI only (there is no BIOS boot loader on the disk).
#
# Nothing is mounted, not even /proc in the tree: mmdebstrap runs in root mode with
# --skip=chroot/mount, and the maintainer scripts of these packages need none of it.
#
# The package mirror is read at run time from this machine's apt sources (deb822 files in
# /etc/apt/sources.list.d or /etc/apt/sources.list): no host name is written here.
#
# The image is cached in $EGRESS_TEST_IMAGE_CACHE (default /var/cache/egress-test-image) under a
# folder named after the recipe: the sha256 of this script and of the mirror lines it used. A later
# run with the same recipe reuses it. Prints what it did and how long it took on standard error,
# and the image's path as the last line on standard output.
#
# Usage: scripts/build-test-image.sh [build|path|cached]
#   build   (default) build the image unless cached; print its path
#   path    print the path the image has (or would have) for this recipe; build nothing
#   cached  exit 0 when the image for this recipe is cached, 1 otherwise; build nothing
#
# Needs root and the packages of scripts/install-test-dependencies.sh (mmdebstrap, mtools,
# fdisk, grub-efi-amd64-bin, e2fsprogs, qemu-utils).
set -euo pipefail

readonly SUITE=bookworm
readonly CACHE_ROOT=${EGRESS_TEST_IMAGE_CACHE:-/var/cache/egress-test-image}
readonly IMAGE_NAME=debian-12-egress-test-guest.qcow2
readonly PACKAGES=linux-image-amd64,systemd-sysv,udev,qemu-guest-agent,ifupdown,iproute2,cloud-init
# Fixed identities, so grub.cfg and fstab can name them and every build lays the same disk.
readonly DISK_GUID=6c0a2b1e-2f1d-4e59-9f0e-0e9a55e50001
readonly ESP_PARTUUID=6c0a2b1e-2f1d-4e59-9f0e-0e9a55e50002
readonly ROOT_PARTUUID=6c0a2b1e-2f1d-4e59-9f0e-0e9a55e50003
readonly ROOT_FS_UUID=6c0a2b1e-2f1d-4e59-9f0e-0e9a55e50004
readonly ROOT_LABEL=egress-root
readonly ESP_SERIAL=0E5E0001
# Sizes in MiB: the root is a sparse 2 GiB (about 700 MiB used), so guests have room to write.
readonly ESP_MIB=32
readonly ROOT_MIB=2048
# File times inside the image (mmdebstrap, mke2fs and grub honour it): 2025-05-20, the date
# of the package snapshot this recipe was written against.
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-1747699200}

log() { printf '[build-test-image] %s\n' "$*" >&2; }
die() { printf '[build-test-image] error: %s\n' "$*" >&2; exit 1; }

# mirror_lines: one "deb URI SUITE COMPONENTS" line per bookworm suite of this machine's apt
# sources (bookworm, bookworm-updates, bookworm-security), first deb822 files, then sources.list.
mirror_lines() {
  local file
  for file in /etc/apt/sources.list.d/*.sources; do
    [ -e "$file" ] || continue
    # deb822: stanzas separated by blank lines; fields Types, URIs, Suites, Components.
    awk -v suite="$SUITE" '
      function flush() {
        if (types ~ /(^| )deb( |$)/) {
          n = split(uris, u, " "); m = split(suites, s, " ")
          for (i = 1; i <= n; i++) for (j = 1; j <= m; j++)
            if (s[j] == suite || index(s[j], suite "-") == 1) print "deb " u[i] " " s[j] " " components
        }
        types = uris = suites = components = ""
      }
      /^[[:space:]]*#/ { next }
      /^[[:space:]]*$/ { flush(); next }
      /^Types:/      { sub(/^Types:[[:space:]]*/, "");      types = $0 }
      /^URIs:/       { sub(/^URIs:[[:space:]]*/, "");       uris = $0 }
      /^Suites:/     { sub(/^Suites:[[:space:]]*/, "");     suites = $0 }
      /^Components:/ { sub(/^Components:[[:space:]]*/, ""); components = $0 }
      END { flush() }
    ' "$file"
  done
  for file in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [ -e "$file" ] || continue
    # One-line style; options in brackets ([signed-by=...]) are dropped: the host's keyrings apply.
    sed -e 's/#.*//' -e 's/\[[^]]*\]//' "$file" \
      | awk -v suite="$SUITE" '$1 == "deb" && ($3 == suite || index($3, suite "-") == 1) { $1 = "deb"; print }'
  done
}

require_tools() {
  local missing=() command
  for command in mmdebstrap mke2fs sfdisk mformat mmd mcopy grub-mkstandalone qemu-img sha256sum flock; do
    command -v "$command" >/dev/null 2>&1 || missing+=("$command")
  done
  [ -d /usr/lib/grub/x86_64-efi ] || missing+=(grub-efi-amd64-bin)
  [ ${#missing[@]} -eq 0 ] || die "missing: ${missing[*]}; run scripts/install-test-dependencies.sh first"
}

MIRRORS=$(mirror_lines | awk '!seen[$0]++')
[ -n "$MIRRORS" ] || die "no '$SUITE' suite in /etc/apt/sources.list.d/*.sources or /etc/apt/sources.list: add a Debian $SUITE mirror to the apt sources"
RECIPE=$( { cat "$0"; printf '%s\n' "$MIRRORS"; } | sha256sum | cut -c1-16)
readonly MIRRORS RECIPE
readonly CACHE_DIR=$CACHE_ROOT/$RECIPE
readonly IMAGE=$CACHE_DIR/$IMAGE_NAME

# The tree's configuration: NoCloud only, no fallback network, root and ESP in fstab, a
# serial console, an empty machine-id (systemd makes one on first boot), no root password.
customize_tree() {
  local root=$1
  mkdir -p "$root/etc/cloud/cloud.cfg.d"
  cat >"$root/etc/cloud/cloud.cfg.d/90-egress-test.cfg" <<'EOF'
# scripts/build-test-image.sh: the test seeds every guest with a NoCloud ISO (label cidata).
datasource_list: [NoCloud, None]
# No DHCP server on the test bridge: the fallback config would wait minutes for a lease.
# The test's user-data sets the address itself.
network: {config: disabled}
EOF
  printf 'LABEL=%s / ext4 defaults,errors=remount-ro 0 1\n' "$ROOT_LABEL" >"$root/etc/fstab"
  printf 'auto lo\niface lo inet loopback\nsource /etc/network/interfaces.d/*\n' >"$root/etc/network/interfaces"
  : >"$root/etc/machine-id"
  rm -f "$root/var/lib/dbus/machine-id" "$root/etc/hostname"
  # Debian's agent unit has no [Install] section ("systemctl enable" does nothing): udev starts
  # it when its virtio port appears. The wants link starts it even where that rule does not fire.
  ln -sf /lib/systemd/system/qemu-guest-agent.service \
    "$root/etc/systemd/system/multi-user.target.wants/qemu-guest-agent.service"
  chroot "$root" systemctl enable serial-getty@ttyS0.service >/dev/null 2>&1 || true
  # Package lists and caches: not needed in the guest, and 100+ MB.
  rm -rf "$root"/var/lib/apt/lists/* "$root"/var/cache/apt/*.bin "$root"/var/cache/apt/archives/*.deb
  rm -rf "$root"/var/log/* "$root"/tmp/* "$root"/var/tmp/*
  # mke2fs -d copies each file's times: clamp them to SOURCE_DATE_EPOCH, as dpkg does for its own.
  find "$root" -newermt "@$SOURCE_DATE_EPOCH" -exec touch --no-dereference --date="@$SOURCE_DATE_EPOCH" {} +
}

# The EFI binary: GRUB with its modules and this grub.cfg in a memdisk, no install step.
make_bootloader() {
  local work=$1 kernel=$2 initrd=$3
  cat >"$work/grub.cfg" <<EOF
set timeout=0
insmod part_gpt
insmod ext2
search --no-floppy --fs-uuid --set=root $ROOT_FS_UUID
linux /boot/$kernel root=PARTUUID=$ROOT_PARTUUID ro console=tty0 console=ttyS0,115200n8
initrd /boot/$initrd
boot
EOF
  grub-mkstandalone --format=x86_64-efi --output="$work/BOOTX64.EFI" \
    --install-modules="part_gpt ext2 search search_fs_uuid linux normal echo configfile all_video gzio" \
    --modules="part_gpt ext2" --locales= --themes= --fonts= \
    "boot/grub/grub.cfg=$work/grub.cfg"
}

make_esp() {
  local work=$1 esp=$1/esp.img
  rm -f "$esp"
  truncate -s "${ESP_MIB}M" "$esp"
  # FAT16: 32 MiB is too small for FAT32, and UEFI reads both.
  mformat -i "$esp" -N "$ESP_SERIAL" -v EGRESS-ESP -T $((ESP_MIB * 2048)) -h 64 -s 32 ::
  mmd -i "$esp" ::/EFI ::/EFI/BOOT
  touch -d "@$SOURCE_DATE_EPOCH" "$work/BOOTX64.EFI"
  mcopy -m -i "$esp" "$work/BOOTX64.EFI" ::/EFI/BOOT/BOOTX64.EFI
}

make_disk() {
  local work=$1 disk=$1/disk.raw esp_start=2048 root_start
  root_start=$((esp_start + ESP_MIB * 2048))
  rm -f "$disk"
  # 1 MiB in front of the ESP, 1 MiB behind the root for the backup GPT.
  truncate -s $((1 + ESP_MIB + ROOT_MIB + 1))M "$disk"
  sfdisk --quiet --no-reread --no-tell-kernel "$disk" <<EOF
label: gpt
label-id: $DISK_GUID
unit: sectors
start=$esp_start, size=$((ESP_MIB * 2048)), type=C12A7328-F81F-11D2-BA4B-00A0C93EC93B, uuid=$ESP_PARTUUID, name="EFI system"
start=$root_start, size=$((ROOT_MIB * 2048)), type=0FC63DAF-8483-4772-8E79-3D69D8477DE4, uuid=$ROOT_PARTUUID, name="$ROOT_LABEL"
EOF
  dd if="$work/esp.img" of="$disk" bs=512 seek="$esp_start" conv=notrunc,sparse status=none
  dd if="$work/root.img" of="$disk" bs=1M seek=$((root_start / 2048)) conv=notrunc,sparse status=none
}

build() {
  local started=$SECONDS step work kernel initrd
  mkdir -p "$CACHE_DIR"
  work=$(mktemp -d "$CACHE_DIR/.build.XXXXXX")
  # shellcheck disable=SC2064
  trap "rm -rf -- '$work'" EXIT
  log "recipe $RECIPE; mirror lines from the apt sources:"
  printf '%s\n' "$MIRRORS" | sed 's/^/[build-test-image]   /' >&2

  step=$SECONDS
  log "mmdebstrap $SUITE (minbase + $PACKAGES), root mode, nothing mounted"
  printf '%s\n' "$MIRRORS" | mmdebstrap --mode=root --variant=minbase --format=directory \
    --skip=chroot/mount --skip=output/dev \
    --aptopt='APT::Install-Recommends "false"' \
    --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-exclude=/usr/share/man/*' \
    --dpkgopt='path-exclude=/usr/share/locale/*' --dpkgopt='path-include=/usr/share/locale/locale.alias' \
    --include="$PACKAGES" \
    "$SUITE" "$work/root" - >"$work/mmdebstrap.log" 2>&1 \
    || { tail -40 "$work/mmdebstrap.log" >&2; die "mmdebstrap failed (log above)"; }
  customize_tree "$work/root"
  kernel=$(cd "$work/root/boot" && ls vmlinuz-* | sort -V | tail -1)
  initrd=initrd.img-${kernel#vmlinuz-}
  [ -s "$work/root/boot/$initrd" ] || die "no $initrd in the tree: initramfs-tools did not run"
  log "tree: $(du -sm "$work/root" | cut -f1) MiB, kernel $kernel, in $((SECONDS - step)) s"

  step=$SECONDS
  # E2FSPROGS_FAKE_TIME and hash_seed: file system times and directory hashes do not depend on
  # the build's clock. orphan_file and metadata_csum_seed stay off: GRUB 2.06 reads neither.
  truncate -s "${ROOT_MIB}M" "$work/root.img"
  E2FSPROGS_FAKE_TIME=$SOURCE_DATE_EPOCH mke2fs -q -F -t ext4 -L "$ROOT_LABEL" -U "$ROOT_FS_UUID" \
    -O '^orphan_file,^metadata_csum_seed' -E "hash_seed=$ROOT_FS_UUID,root_owner=0:0" \
    -d "$work/root" "$work/root.img"
  rm -rf "$work/root"
  make_bootloader "$work" "$kernel" "$initrd"
  make_esp "$work"
  make_disk "$work"
  log "disk laid out (GPT, ESP ${ESP_MIB} MiB, root ${ROOT_MIB} MiB) in $((SECONDS - step)) s"

  step=$SECONDS
  qemu-img convert -c -f raw -O qcow2 "$work/disk.raw" "$work/$IMAGE_NAME"
  (cd "$work" && sha256sum "$IMAGE_NAME" >SHA256SUMS)
  mv -f "$work/SHA256SUMS" "$CACHE_DIR/SHA256SUMS"
  cp "$work/mmdebstrap.log" "$CACHE_DIR/mmdebstrap.log"
  # Last: the image's presence means the build completed.
  mv -f "$work/$IMAGE_NAME" "$IMAGE"
  log "compressed qcow2 in $((SECONDS - step)) s"
  log "built $IMAGE ($(du -m "$IMAGE" | cut -f1) MiB) in $((SECONDS - started)) s"
  prune_other_recipes
}

# Images of older recipes are never used again (the recipe is this script): free their space.
prune_other_recipes() {
  local folder
  for folder in "$CACHE_ROOT"/*/; do
    folder=${folder%/}
    [[ ${folder##*/} =~ ^[0-9a-f]{16}$ ]] && [ "$folder" != "$CACHE_DIR" ] || continue
    log "removing the image of an older recipe: $folder"
    rm -rf -- "$folder"
    rm -f -- "$CACHE_ROOT/.lock-${folder##*/}"
  done
}

main() {
  case ${1:-build} in
    path) echo "$IMAGE"; return ;;
    cached) [ -s "$IMAGE" ]; return ;;
    build) ;;
    *) echo "usage: $0 [build|path|cached]" >&2; exit 2 ;;
  esac
  [ "$(id -u)" -eq 0 ] || die "must run as root (mmdebstrap's root mode keeps file ownership in the tree)"
  require_tools
  mkdir -p "$CACHE_ROOT"
  # One build per recipe at a time; a second caller waits and then finds the image cached.
  exec 9>"$CACHE_ROOT/.lock-$RECIPE"
  flock 9
  if [ -s "$IMAGE" ]; then
    log "cached: $IMAGE ($(du -m "$IMAGE" | cut -f1) MiB), recipe $RECIPE; nothing to build"
  else
    build
  fi
  echo "$IMAGE"
}

main "$@"
