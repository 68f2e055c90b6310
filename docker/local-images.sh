#!/usr/bin/env bash
# For machines that cannot pull from a container registry: makes the two base
# images the Dockerfile builds on from Debian packages, and fetches the crates
# on the host for a builder that cannot download them. Prints the variables
# that point docker-compose.yml at them, so one line does it all:
#
#   eval "$(docker/local-images.sh)"     # then: docker-compose up --build ...
#
# capicua-runtime:SUITE   stands in for debian:SUITE-slim: a minbase Debian
#                         without documentation, manual pages or locales.
# capicua-postgres:SUITE stands in for postgres:15-SUITE (the cluster profile).
# capicua-builder:SUITE-RUST
#                         stands in for rust:1-SUITE: the same plus gcc and
#                         libc6-dev, and the Rust toolchain of this host
#                         (`rustc --print sysroot`: rustc, cargo and the
#                         standard library), because Debian's rustc is too old
#                         for the workspace (edition 2024) and a machine
#                         without a registry usually cannot download another.
# docker/cargo-home/      the crates of Cargo.lock (`cargo fetch` here); the
#                         build then runs `cargo build --offline` on them.
#
# --no-builder makes neither the builder nor docker/cargo-home, and points
# CAPICUA_BUILDER_IMAGE at the runtime image: for a build from binaries made
# on the host (docker/prebuilt; docker/drill.sh with CAPICUA_DRILL_BINARIES),
# whose build stage runs nothing but sh and cp.
#
# Images that exist are kept (--force remakes them); the crates are fetched
# again only when Cargo.lock changed. Runs as root or, through mmdebstrap's
# user namespaces, as any user who may run docker: no sudo.
# Environment: SUITE (default bookworm, the release the official images use),
# DEBIAN_MIRROR (default http://deb.debian.org/debian).
set -euo pipefail
cd "$(dirname "$0")/.."

force=false
builder=true
for arg in "$@"; do
  case "$arg" in
    --force) force=true ;;
    --no-builder) builder=false ;;
    *) echo "usage: $0 [--force] [--no-builder]" >&2; exit 64 ;;
  esac
done
suite="${SUITE:-bookworm}"
mirror="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"

say() { echo "local-images: $*" >&2; }
die() { say "error: $*"; exit 1; }

command -v docker >/dev/null || die "docker is not installed"
command -v mmdebstrap >/dev/null \
  || die "mmdebstrap is not installed (Debian/Ubuntu package mmdebstrap; as a non-root user it also needs uidmap)"
if $builder; then
  command -v rustc >/dev/null || die "no Rust toolchain on this host (rustc and cargo): the builder image takes the host's"
fi

# What a slim image leaves out, as the official -slim images do.
slim=(
  --variant=minbase
  --aptopt='APT::Install-Recommends "false"'
  --dpkgopt='path-exclude=/usr/share/doc/*'
  --dpkgopt='path-include=/usr/share/doc/*/copyright'
  --dpkgopt='path-exclude=/usr/share/man/*'
  --dpkgopt='path-exclude=/usr/share/info/*'
  --dpkgopt='path-exclude=/usr/share/locale/*'
)
# Without this hook, bookworm's debootstrap-style setup pulls in the usrmerge
# package and a whole perl (30 MB) to convert a tree that can be merged
# from the start.
hooks=/usr/share/mmdebstrap/hooks/merged-usr
[ -d "$hooks" ] && slim+=(--hook-dir="$hooks")

have_image() { docker image inspect "$1" >/dev/null 2>&1; }

# mmdebstrap writes the tree as a tarball on stdout; `docker import` makes
# it an image with no registry involved.
make_image() {
  local tag=$1
  shift
  say "making $tag from Debian $suite packages ($mirror)"
  mmdebstrap --quiet "${slim[@]}" "$@" "$suite" - "$mirror" \
    | docker import --change 'ENV LANG=C.UTF-8' --change 'CMD ["bash"]' - "$tag" >/dev/null
  say "made $tag ($(docker image inspect -f '{{.Size}}' "$tag" | awk '{printf "%.0f MB", $1 / 1e6}'))"
}

runtime="capicua-runtime:$suite"
if $force || ! have_image "$runtime"; then
  make_image "$runtime"
else
  say "$runtime exists (--force remakes it)"
fi

# PostgreSQL for the cluster profile (docker-compose.yml), standing in for
# the official postgres:15-bookworm: Debian's server with docker/postgres.sh
# as its entry point, which reads the official image's variables. Debian's
# packaging creates a cluster at install time; the entry point makes its own.
postgres="capicua-postgres:$suite"
if $force || ! have_image "$postgres"; then
  say "making $postgres from Debian $suite packages ($mirror)"
  mmdebstrap --quiet "${slim[@]}" --include=postgresql-15 \
    --customize-hook='rm -rf "$1/var/lib/postgresql/15/main" "$1/etc/postgresql/15/main"' \
    --customize-hook='copy-in docker/postgres.sh /usr/local/bin' \
    --customize-hook='chmod 755 "$1/usr/local/bin/postgres.sh"' \
    "$suite" - "$mirror" \
    | docker import --change 'ENV LANG=C.UTF-8' \
      --change 'ENV PATH=/usr/lib/postgresql/15/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
      --change 'EXPOSE 5432' --change 'CMD ["/usr/local/bin/postgres.sh"]' - "$postgres" >/dev/null
  say "made $postgres ($(docker image inspect -f '{{.Size}}' "$postgres" | awk '{printf "%.0f MB", $1 / 1e6}'))"
else
  say "$postgres exists (--force remakes it)"
fi

if ! $builder; then
  # Binaries built on the host (docker/prebuilt, see docker/cargo-build.sh):
  # the build stage only copies them, which the runtime image can do.
  echo "export CAPICUA_RUNTIME_IMAGE=$runtime CAPICUA_BUILDER_IMAGE=$runtime CAPICUA_POSTGRES_IMAGE=$postgres"
  exit 0
fi

# The host toolchain: rustc, its libraries and standard library, and the
# cargo of the same toolchain (rustup keeps both in the sysroot; the cargo on
# PATH may be rustup's proxy, which would not run in the image).
sysroot="$(rustc --print sysroot)"
rust_version="$(rustc --version | awk '{print $2}')"
host="$(rustc -vV | sed -n 's/^host: //p')"
cargo_bin="$sysroot/bin/cargo"
if [ ! -x "$cargo_bin" ] && command -v rustup >/dev/null; then
  cargo_bin="$(rustup which cargo)"
fi
[ -x "$cargo_bin" ] || die "no cargo binary beside rustc in $sysroot"
[ -d "$sysroot/lib/rustlib/$host/lib" ] || die "no standard library for $host in $sysroot"

builder="capicua-builder:$suite-$rust_version"
if $force || ! have_image "$builder"; then
  # Installed under /usr/local: rustc finds its libraries and standard
  # library relative to its own path (bin/../lib), as under the sysroot.
  make_image "$builder" --include=gcc,libc6-dev,ca-certificates \
    --customize-hook="copy-in $sysroot/bin/rustc $cargo_bin /usr/local/bin" \
    --customize-hook="mkdir -p \"\$1/usr/local/lib/rustlib\"" \
    --customize-hook="copy-in $(printf '%s ' "$sysroot"/lib/*.so*)/usr/local/lib" \
    --customize-hook="copy-in $sysroot/lib/rustlib/$host /usr/local/lib/rustlib" \
    --customize-hook="chroot \"\$1\" rustc --version" \
    --customize-hook="chroot \"\$1\" cargo --version"
else
  say "$builder exists (--force remakes it)"
fi

# The crates, for this host's target only (cargo vendor would also copy the
# Windows-only crates: ten times the size).
home=docker/cargo-home
if [ -f "$home/Cargo.lock" ] && cmp -s Cargo.lock "$home/Cargo.lock"; then
  say "$home has the crates of Cargo.lock"
else
  say "fetching the crates of Cargo.lock into $home"
  rm -rf "$home"
  CARGO_HOME="$PWD/$home" "$cargo_bin" fetch --quiet --locked --target "$host" >&2
  rm -rf "$home/registry/src" # cargo unpacks the .crate files again in the build
  cp Cargo.lock "$home/Cargo.lock"
fi

echo "export CAPICUA_RUNTIME_IMAGE=$runtime CAPICUA_BUILDER_IMAGE=$builder CAPICUA_POSTGRES_IMAGE=$postgres"
