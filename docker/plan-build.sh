#!/bin/sh
# Run by the Dockerfile's first stage: copies the build context CONTEXT into
# two trees under PLAN, so that the dependencies build in a Docker layer that
# only a manifest or Cargo.lock change invalidates (Docker caches a COPY by
# the content of what it copies, not by file times).
#
#   PLAN/deps  Cargo.toml, Cargo.lock, every crate's manifest, an empty stub
#              (`fn main() {}`, warnings off) for each of its .rs files, the build script,
#              and docker/cargo-home when docker/local-images.sh fetched the
#              crates there.
#   PLAN/src   the crates' real sources and what they embed at compile time
#              (migrations/, for sqlx::migrate!; web/, for rust-embed).
#
# With docker/prebuilt holding both binaries (built on the host; see
# docker/cargo-build.sh), PLAN/deps holds only them and cargo-build.sh, and
# PLAN/src is empty: nothing gets compiled.
#
# Usage: plan-build.sh CONTEXT PLAN
set -eu
context=$1
plan=$2
mkdir -p "$plan/deps/docker" "$plan/src"
cd "$context"

cp docker/cargo-build.sh "$plan/deps/docker/"
if [ -f docker/prebuilt/capicua-server ] && [ -f docker/prebuilt/capicua-bot ]; then
  mkdir -p "$plan/deps/docker/prebuilt"
  cp docker/prebuilt/capicua-server docker/prebuilt/capicua-bot "$plan/deps/docker/prebuilt/"
  exit 0
fi
cp Cargo.toml Cargo.lock "$plan/deps/"
if [ -d docker/cargo-home/registry ]; then
  cp -a docker/cargo-home "$plan/deps/docker/cargo-home"
fi

# Every crate below the root (the root is a virtual workspace manifest).
find . -mindepth 2 -name Cargo.toml -not -path './docker/*' -not -path '*/target/*' | sort | while read -r manifest; do
  crate=$(dirname "$manifest")
  mkdir -p "$plan/deps/$crate" "$(dirname "$plan/src/$crate")"
  cp "$manifest" "$plan/deps/$manifest"
  # A stub for every .rs file keeps cargo's target discovery (and the
  # explicitly declared targets) the same as with the real sources.
  find "$crate" -name '*.rs' -not -path '*/target/*' | while read -r file; do
    mkdir -p "$plan/deps/$(dirname "$file")"
    printf '#![allow(warnings)]\nfn main() {}\n' > "$plan/deps/$file"
  done
  (cd "$crate" && tar -c --exclude=./target .) | (mkdir -p "$plan/src/$crate" && cd "$plan/src/$crate" && tar -x)
done
cp -a migrations "$plan/src/migrations"
# The browser client, embedded into capicua-server by rust-embed at compile time.
cp -a web "$plan/src/web"
