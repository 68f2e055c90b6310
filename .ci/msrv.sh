#!/usr/bin/env bash
# The declared minimum Rust version (`rust-version` in Cargo.toml) holds for
# what the workspace builds on:
# - every crate of the workspace declares the workspace's version;
# - no dependency in the lock file asks for a newer toolchain;
# - clippy's `incompatible_msrv` (denied in the workspace lints) rejects
#   standard-library calls newer than it, and nothing allows it away.
# CI machines carry one toolchain, so the language features are not compiled
# on the declared version itself; let-chains set the floor at 1.88.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo metadata --format-version 1 --locked | python3 -c '
import json, sys
meta = json.load(sys.stdin)
members = set(meta["workspace_members"])
def parse(v):
    return tuple(int(x) for x in v.split("."))
declared = {p["rust_version"] for p in meta["packages"] if p["id"] in members}
if len(declared) != 1 or None in declared:
    sys.exit(f"msrv: workspace crates declare {sorted(map(str, declared))}, want one rust-version")
msrv = declared.pop()
bad = ["%s %s needs %s" % (p["name"], p["version"], p["rust_version"])
       for p in meta["packages"]
       if p["id"] not in members and p.get("rust_version") and parse(p["rust_version"]) > parse(msrv)]
if bad:
    sys.exit("msrv: dependencies above rust-version " + msrv + ":\n  " + "\n  ".join(bad))
print(f"msrv: rust-version {msrv}; no dependency asks for more")
'
if grep -rnE --include='*.rs' --include='*.toml' '(allow|expect)\([^)]*incompatible_msrv' . \
  --exclude-dir=target --exclude-dir=.git; then
  echo "msrv: incompatible_msrv must not be allowed" >&2
  exit 1
fi
