#!/usr/bin/env bash
# Builds the local base image `capicua-base:bookworm` from Debian packages.
#
# Why: capicua's images must build on machines that cannot pull from a
# container registry. debootstrap fetches a minimal Debian (the same release
# the binaries are built on, so glibc matches) from the Debian mirror and
# `docker import` turns it into an image.
#
# Usage: sudo docker/build-base.sh [TAG]     (needs debootstrap and docker)
set -euo pipefail
tag="${1:-capicua-base:bookworm}"
mirror="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
command -v debootstrap >/dev/null || apt-get install -y debootstrap
root="$(mktemp -d)"
trap 'rm -rf "$root"' EXIT
debootstrap --variant=minbase bookworm "$root" "$mirror"
rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/*
tar -C "$root" -c . | docker import - "$tag"
echo "built $tag"
