#!/usr/bin/env bash
# Makes (once per machine) a root file system of a Debian suite with that suite's UCX in it, so
# fiucx can be tested on UCX releases this host's glibc cannot run: trixie carries UCX 1.18.1,
# sid 1.23.0~rc1, both built against glibc 2.38 or later. debootstrap's minimal variant, then
# apt-get inside it; nothing of the distribution is patched. A finished root holds
# .fiucx-rootfs-ready (its UCX version), and the next call returns at once.
#
# --bare makes SUITE-bare instead: debootstrap's minimal variant and no package more, what a
# newcomer's fresh Debian holds before fiucx's launcher installs UCX into it (newcomer-demo copies
# it afresh for each run). Its .fiucx-rootfs-ready holds the suite's Debian version.
#
# usage: tools/ucx-rootfs/make-rootfs.sh [--bare] SUITE      prints the root's directory on stdout
#   FIUCX_ROOTFS_CACHE  where the roots live (default /var/tmp/fiucx-rootfs)
#   DEBIAN_MIRROR       default http://deb.debian.org/debian
set -euo pipefail

bare=0
if [[ "${1:-}" == --bare ]]; then
  bare=1
  shift
fi
suite="${1:?usage: make-rootfs.sh [--bare] SUITE (trixie, sid)}"
cache="${FIUCX_ROOTFS_CACHE:-/var/tmp/fiucx-rootfs}"
mirror="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
# a bare root and a root with UCX are two roots, each with its own lock and ready marker
name="$suite"
((bare)) && name="$suite-bare"
root="$cache/$name"
ready="$root/.fiucx-rootfs-ready"
# ucx-utils brings ucx_perftest and, on trixie, the Open MPI it links; libucx-dev the headers the
# layout probe compiles against (with gcc); maven builds and runs the tests inside (with this
# machine's JDK 25, bound in by `enter`); fontconfig and a font for bench's plots (sid's maven
# brings none)
packages=(libucx0 libucx-dev ucx-utils gcc libc6-dev procps iproute2 maven fontconfig
  fonts-dejavu-core)
# the list a root was made with: a root made with an older list gets what is missing
listed="$root/.fiucx-rootfs-packages"

complete() {
  [[ -s "$ready" ]] && { ((bare)) || [[ "$(cat "$listed" 2>/dev/null)" == "${packages[*]}" ]]; }
}

if complete; then
  echo "$root"
  exit 0
fi
if (( $(id -u) != 0 )); then
  echo "make-rootfs: debootstrap and chroot need root" >&2
  exit 2
fi
if ! command -v debootstrap >/dev/null; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends debootstrap >&2
fi
mkdir -p "$cache"
# one maker at a time per root: a second caller waits for the first
exec 9>"$cache/$name.lock"
flock 9
if complete; then
  echo "$root"
  exit 0
fi
install_packages() {
  mount -t proc proc "$root/proc"
  trap 'umount "$root/proc" 2>/dev/null || true' EXIT
  chroot "$root" apt-get update -q >&2
  DEBIAN_FRONTEND=noninteractive chroot "$root" apt-get install -y -q --no-install-recommends \
    "${packages[@]}" >&2
  chroot "$root" apt-get clean
  echo "${packages[*]}" > "$listed"
}
if [[ -s "$ready" ]]; then
  echo "make-rootfs: installing what $root lacks of: ${packages[*]}" >&2
  install_packages
  echo "$root"
  exit 0
fi
rm -rf "$root"
echo "make-rootfs: debootstrap $suite into $root" >&2
debootstrap --variant=minbase "$suite" "$root" "$mirror" >&2
# package scripts start no services inside the root: a chroot shares the host's kernel, and a
# service started there would outlive the command that installed it (a bare root too: the
# launcher's apt-get runs there)
printf '#!/bin/sh\nexit 101\n' > "$root/usr/sbin/policy-rc.d"
chmod 755 "$root/usr/sbin/policy-rc.d"
cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
# sid's Release file carries a Valid-Until that a mirror's copy outlives: seen expired here by three
# weeks, which makes apt refuse the suite; the signature is still checked
echo 'Acquire::Check-Valid-Until "false";' > "$root/etc/apt/apt.conf.d/99fiucx-valid-until"
if ((bare)); then
  cp "$root/etc/debian_version" "$ready"
  echo "$root"
  exit 0
fi
install_packages
chroot "$root" dpkg-query -W -f='${Version}\n' libucx0 > "$ready"
echo "$root"
