#!/usr/bin/env bash
# Makes the base image the Dockerfiles name, debian:bookworm-slim, from Debian's packages when it
# is missing (no registry needed): debootstrap's minimal variant, imported into Docker. The root
# file system's tarball is kept in a cache directory, so the next time takes seconds.
#
# usage: docker/base-image.sh
#   FIUCX_DOCKER_CACHE  the cache directory (default /var/tmp/fiucx-docker)
#   DEBIAN_MIRROR       default http://deb.debian.org/debian
#   DOCKER              the docker command (default docker)
set -euo pipefail

image=debian:bookworm-slim
cache_dir="${FIUCX_DOCKER_CACHE:-/var/tmp/fiucx-docker}"
tarball="$cache_dir/debian-bookworm-minbase.tar"
docker="${DOCKER:-docker}"

if "$docker" image inspect "$image" >/dev/null 2>&1; then
  exit 0
fi
if [[ ! -s "$tarball" ]]; then
  mkdir -p "$cache_dir"
  rootfs="$(mktemp -d "$cache_dir/rootfs.XXXXXX")"
  trap 'rm -rf "$rootfs" "$tarball.part"' EXIT
  echo "base-image: debootstrap bookworm into $rootfs" >&2
  debootstrap --variant=minbase bookworm "$rootfs" "${DEBIAN_MIRROR:-http://deb.debian.org/debian}" >&2
  # as in Debian's own image: package scripts start no services inside a build, and no package
  # caches (the Dockerfiles run apt-get update themselves)
  printf '#!/bin/sh\nexit 101\n' > "$rootfs/usr/sbin/policy-rc.d"
  chmod 755 "$rootfs/usr/sbin/policy-rc.d"
  rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/*
  tar -C "$rootfs" --numeric-owner -cf "$tarball.part" .
  mv "$tarball.part" "$tarball"
fi
echo "base-image: importing $tarball as $image" >&2
"$docker" import "$tarball" "$image" >/dev/null
