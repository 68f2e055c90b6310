#!/bin/sh
# Run by the Dockerfile's build stage, in the workspace root.
#
#   cargo-build.sh dependencies    builds against the stub sources: every
#                                  dependency gets compiled and cached
#   cargo-build.sh binaries OUT    builds the real capicua-server and
#                                  capicua-bot and copies them to OUT
#
# Both steps must build with the same settings, or the second would rebuild
# the dependencies.
#
# With capicua-server and capicua-bot in docker/prebuilt (binaries built on
# the host and stripped: docker/drill.sh with CAPICUA_DRILL_BINARIES puts them
# there for the run and removes them after), no cargo runs at all: the first
# step does nothing and the second copies them. They must run on the runtime
# image's glibc (build them on the same Debian release or an older one).
set -eu

prebuilt=docker/prebuilt
if [ -f "$prebuilt/capicua-server" ] && [ -f "$prebuilt/capicua-bot" ]; then
  case "${1:-}" in
    dependencies)
      echo "cargo-build.sh: using the binaries of $prebuilt, built on the host" >&2
      exit 0
      ;;
    binaries)
      out=${2:?usage: cargo-build.sh binaries OUT}
      mkdir -p "$out"
      cp "$prebuilt/capicua-server" "$prebuilt/capicua-bot" "$out/"
      chmod 755 "$out/capicua-server" "$out/capicua-bot"
      exit 0
      ;;
  esac
fi

# Crates fetched on the host by docker/local-images.sh: build offline on them.
if [ -d docker/cargo-home/registry ]; then
  CARGO_HOME="$PWD/docker/cargo-home"
  CARGO_NET_OFFLINE=true
  export CARGO_HOME CARGO_NET_OFFLINE
fi
# The release profile has no debug info; stripping also drops the symbols
# and the standard library's own debug info: half the binary's size.
CARGO_PROFILE_RELEASE_STRIP=true
CARGO_INCREMENTAL=0
export CARGO_PROFILE_RELEASE_STRIP CARGO_INCREMENTAL

build() {
  cargo build --release --locked -p capicua-server -p capicua-bot
}

case "${1:-}" in
  dependencies)
    build
    ;;
  binaries)
    out=${2:?usage: cargo-build.sh binaries OUT}
    # The real sources may be older than the stubs built a moment ago (COPY
    # keeps the context's file times): make cargo see them as changed.
    find . -name '*.rs' -not -path './target/*' -not -path './docker/*' -exec touch {} +
    build
    mkdir -p "$out"
    cp target/release/capicua-server target/release/capicua-bot "$out/"
    ;;
  *)
    echo "usage: cargo-build.sh dependencies | binaries OUT" >&2
    exit 64
    ;;
esac
