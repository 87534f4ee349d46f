#!/usr/bin/env bash
# Makes (once per machine) what the Soft-RoCE test VM boots, from Debian packages only: Debian
# bookworm's kernel (its rdma_rxe module is RoCE v2 in software over an Ethernet interface, which
# this host's kernel lacks), a debootstrapped bookworm root with rdma-core, the verbs providers and
# UCX 1.13.1 (libucx0, ucx-utils), this machine's JDK 25 at the same path as here, and an
# initramfs (busybox and the modules that mount an ext4 root from virtio-blk). Nothing of the
# distribution is patched. A finished image holds .fiucx-verbs-vm-ready (its kernel and UCX
# versions), and the next call returns at once. The checkout and the Maven repository are not in
# the image: run-vm shares them in at boot.
#
# usage: tools/verbs-vm/make-image.sh        prints the image's directory on stdout
#   FIUCX_VERBS_VM_CACHE  where the image lives (default /var/tmp/fiucx-verbs-vm)
#   DEBIAN_MIRROR         default http://deb.debian.org/debian
#   JAVA_HOME             the JDK to copy in (default: the first JDK 25 under /usr/lib/jvm)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cache="${FIUCX_VERBS_VM_CACHE:-/var/tmp/fiucx-verbs-vm}"
mirror="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
jdk="${JAVA_HOME:-}"
if [[ -z "$jdk" ]]; then
  for d in /usr/lib/jvm/*25*; do [[ -x "$d/bin/java" ]] && jdk="$d" && break; done
fi
jdk="$(cd "$jdk" && pwd -P)"
# what the root holds: the verbs stack and UCX as a user installs them, the tools the test script
# uses (ip, rdma, ibv_devinfo, ucx_info, ucx_perftest, ps, timeout), and the launcher's needs
packages=rdma-core,ibverbs-providers,ibverbs-utils,libucx0,ucx-utils,iproute2,kmod,procps
# what the image was made from: a change to any of these makes it again
recipe="packages=$packages jdk=$jdk init=$(sha256sum "$here/vm-init" | cut -c1-16)"
ready="$cache/.fiucx-verbs-vm-ready"

say() { echo "make-image: $*" >&2; }

if [[ -s "$ready" && "$(head -1 "$ready")" == "$recipe" ]]; then
  echo "$cache"
  exit 0
fi
if (($(id -u) != 0)); then
  say "debootstrap and the image's file system need root"
  exit 2
fi
need=()
for p in qemu-system-x86_64:qemu-system-x86 cpio:cpio mkfs.ext4:e2fsprogs depmod:kmod \
  debootstrap:debootstrap; do
  PATH="$PATH:/usr/sbin:/sbin" command -v "${p%%:*}" >/dev/null || need+=("${p#*:}")
done
# busybox-static: the initramfs needs a busybox that runs without libraries
if [[ ! -e /bin/busybox ]] || ldd /bin/busybox >/dev/null 2>&1; then need+=(busybox-static); fi
if ((${#need[@]})); then
  say "installing ${need[*]}"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${need[@]}" >&2
fi
mkdir -p "$cache"
# one maker at a time: a second caller waits for the first
exec 9>"$cache.lock"
flock 9
if [[ -s "$ready" && "$(head -1 "$ready")" == "$recipe" ]]; then
  echo "$cache"
  exit 0
fi
rm -f "$ready"
cd "$cache"

# the kernel linux-image-amd64 depends on today, unpacked (not installed)
kv="$(apt-cache depends linux-image-amd64 2>/dev/null | sed -n 's/.*Depends: linux-image-//p' | head -1)"
[[ -n "$kv" ]] || { say "apt knows no linux-image-amd64 (apt-get update?)"; exit 1; }
if [[ ! -e "kernel/boot/vmlinuz-$kv" ]]; then
  say "kernel linux-image-$kv"
  rm -rf kernel kpkg && mkdir -p kpkg
  (cd kpkg && apt-get download -q "linux-image-$kv" >&2)
  dpkg -x kpkg/linux-image-"$kv"_*.deb kernel
  depmod -b kernel "$kv"
  rm -rf kpkg
fi
for option in INFINIBAND INFINIBAND_USER_ACCESS RDMA_RXE; do
  grep -qE "^CONFIG_$option=(y|m)" "kernel/boot/config-$kv" ||
    { say "linux-image-$kv lacks CONFIG_$option"; exit 1; }
done

if [[ ! -s root/.fiucx-debootstrapped || "$(cat root/.fiucx-debootstrapped)" != "$packages" ]]; then
  say "debootstrap bookworm with $packages"
  rm -rf root
  debootstrap --variant=minbase --include="$packages" bookworm root "$mirror" >&2
  echo "$packages" > root/.fiucx-debootstrapped
fi
rm -rf root/lib/modules && mkdir -p root/lib/modules
cp -a "kernel/lib/modules/$kv" root/lib/modules/
depmod -b root "$kv"
install -m 755 "$here/vm-init" root/sbin/fiucx-vm-init
rm -rf "root$jdk" && mkdir -p "$(dirname "root$jdk")" && cp -a "$jdk" "root$jdk"

# the initramfs: busybox, and the modules that mount an ext4 root on virtio-blk (in this order)
m="kernel/lib/modules/$kv/kernel"
rm -rf initramfs && mkdir -p initramfs/{bin,dev,proc,sys,newroot,lib/modules}
cp /bin/busybox initramfs/bin/busybox
for k in drivers/virtio/virtio_ring drivers/virtio/virtio drivers/virtio/virtio_pci_modern_dev \
  drivers/virtio/virtio_pci_legacy_dev drivers/virtio/virtio_pci drivers/block/virtio_blk \
  lib/crc16 fs/mbcache fs/jbd2/jbd2 crypto/crc32c_generic fs/ext4/ext4; do
  cp "$m/$k.ko" initramfs/lib/modules/
  basename "$k.ko" >> initramfs/modlist
done
cat > initramfs/init <<'EOI'
#!/bin/busybox sh
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
for m in $(cat /modlist); do insmod /lib/modules/$m || echo "insmod $m failed"; done
i=0; while [ ! -b /dev/vda ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i+1)); done
mount -t ext4 -o rw /dev/vda /newroot || { echo "mount root failed"; echo o > /proc/sysrq-trigger; exec sh; }
umount /proc /sys
mount --move /dev /newroot/dev
exec switch_root /newroot /sbin/fiucx-vm-init
EOI
chmod +x initramfs/init
(cd initramfs && find . | cpio -o -H newc 2>/dev/null | gzip -1 > ../initrd.gz)
rm -rf initramfs
rm -f rootfs.ext4 && mkfs.ext4 -q -F -L fiucxvm -d root rootfs.ext4 3G
ucx="$(chroot root dpkg-query -W -f='${Version}' libucx0)"
printf '%s\nkernel=%s ucx=%s\n' "$recipe" "$kv" "$ucx" > "$ready"
say "made $cache: kernel $kv, UCX $ucx"
echo "$cache"
