//! Prints the module graph of every crate of the workspace, then its cycles.
//!
//! `cargo run -p capicua-modgraph [WORKSPACE_ROOT]`; without an argument the
//! root is the nearest directory above the current one whose `Cargo.toml`
//! has a `[workspace]` table. Exits with status 1 when a crate has a cycle.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

fn main() -> ExitCode {
    let root = match std::env::args_os().nth(1) {
        Some(arg) => PathBuf::from(arg),
        None => match find_root() {
            Some(root) => root,
            None => {
                eprintln!("no workspace Cargo.toml above the current directory; pass the root as an argument");
                return ExitCode::from(2);
            }
        },
    };
    let crates = match capicua_modgraph::workspace_crates(&root) {
        Ok(crates) => crates,
        Err(e) => {
            eprintln!("{}: {e}", root.display());
            return ExitCode::from(2);
        }
    };
    let mut cyclic = false;
    for c in &crates {
        println!("## {} ({}: {})\n", c.member, c.target, c.root.display());
        print!("{}", c.graph);
        for m in &c.graph.missing {
            println!("missing file: {m}");
        }
        for f in &c.unreached {
            println!("not in any module tree: {}", f.display());
        }
        for tangle in &c.graph.tangles {
            println!("\ntangled: {}", tangle.join(", "));
        }
        for cycle in &c.graph.cycles {
            cyclic = true;
            println!("\n{cycle}");
        }
        println!();
    }
    if cyclic { ExitCode::FAILURE } else { ExitCode::SUCCESS }
}

/// The nearest directory at or above the current one with a workspace manifest.
fn find_root() -> Option<PathBuf> {
    let cwd = std::env::current_dir().ok()?;
    cwd.ancestors().find(|d| is_workspace(d)).map(Path::to_path_buf)
}

fn is_workspace(dir: &Path) -> bool {
    std::fs::read_to_string(dir.join("Cargo.toml")).is_ok_and(|m| m.lines().any(|l| l.trim() == "[workspace]"))
}
