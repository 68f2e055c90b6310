//! The workspace's size rules: no function over [`MAX_FN_LINES`] lines
//! outside tests, and no file of the server over [`MAX_SERVER_FILE_LINES`]
//! lines of code (its unit tests left out), except the data and the entries listed
//! below with the reason each one stands. A listed entry that has come
//! under the limit fails too, so the lists only shrink.
//!
//! `cargo test -p capicua-modgraph --test sizes -- --nocapture` prints the
//! longest functions.

use std::fs;
use std::path::{Path, PathBuf};

use capicua_modgraph::sizes::{code_lines, functions};
use capicua_modgraph::workspace_members;

const MAX_FN_LINES: u32 = 80;
const MAX_SERVER_FILE_LINES: usize = 600;

/// Functions over the limit, as `path::name`, and why each stands.
const LONG_FUNCTIONS: &[(&str, &str)] = &[("engine/src/catalog.rs::catalog", "data: the rule catalog, one literal")];

/// Files of `server/src` over the limit, and why each stands.
const LONG_SERVER_FILES: &[(&str, &str)] = &[];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Every `.rs` file under `dir`, recursively.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else { return };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The workspace's code outside tests: each member's `src`, `examples`
/// and `benches`, as paths relative to the root.
fn code_files() -> Vec<String> {
    let root = root();
    let mut files = Vec::new();
    for member in workspace_members(&root).expect("root Cargo.toml") {
        for dir in ["src", "examples", "benches"] {
            rust_files(&root.join(&member).join(dir), &mut files);
        }
    }
    let mut rel: Vec<String> = files
        .iter()
        .map(|p| p.strip_prefix(&root).expect("under the root").to_string_lossy().replace('\\', "/"))
        .collect();
    rel.sort();
    rel
}

#[test]
fn functions_fit_in_a_screen() {
    let root = root();
    let mut long: Vec<(u32, String)> = Vec::new();
    for file in code_files() {
        // Files named `tests.rs` hold a module's unit tests.
        if file.ends_with("/tests.rs") {
            continue;
        }
        let src = fs::read_to_string(root.join(&file)).expect("readable");
        for f in functions(&src) {
            long.push((f.lines, format!("{file}::{}", f.name)));
        }
    }
    long.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    println!("longest functions:");
    for (lines, name) in long.iter().take(10) {
        println!("  {lines:4} {name}");
    }
    let over: Vec<&(u32, String)> = long.iter().filter(|(n, _)| *n > MAX_FN_LINES).collect();
    let unlisted: Vec<String> = over
        .iter()
        .filter(|(_, name)| !LONG_FUNCTIONS.iter().any(|(l, _)| l == name))
        .map(|(n, name)| format!("{name}: {n} lines"))
        .collect();
    assert!(unlisted.is_empty(), "functions over {MAX_FN_LINES} lines:\n{}", unlisted.join("\n"));
    let shrunk: Vec<&str> =
        LONG_FUNCTIONS.iter().filter(|(l, _)| !over.iter().any(|(_, name)| name == l)).map(|(l, _)| *l).collect();
    assert!(shrunk.is_empty(), "listed as long but no longer over {MAX_FN_LINES} lines (or gone): {shrunk:?}");
}

#[test]
fn server_files_hold_one_concept() {
    let root = root();
    let mut over = Vec::new();
    for file in code_files().into_iter().filter(|f| f.starts_with("server/src/")) {
        // A module's unit tests may run long: they are not the module.
        let lines = code_lines(&fs::read_to_string(root.join(&file)).expect("readable")) as usize;
        if lines > MAX_SERVER_FILE_LINES && !file.ends_with("/tests.rs") {
            over.push((file, lines));
        }
    }
    let unlisted: Vec<String> = over
        .iter()
        .filter(|(f, _)| !LONG_SERVER_FILES.iter().any(|(l, _)| l == f))
        .map(|(f, n)| format!("{f}: {n} lines"))
        .collect();
    assert!(unlisted.is_empty(), "server files over {MAX_SERVER_FILE_LINES} lines:\n{}", unlisted.join("\n"));
    let shrunk: Vec<&str> =
        LONG_SERVER_FILES.iter().filter(|(l, _)| !over.iter().any(|(f, _)| f == l)).map(|(l, _)| *l).collect();
    assert!(shrunk.is_empty(), "listed as long but no longer over {MAX_SERVER_FILE_LINES} lines: {shrunk:?}");
}
