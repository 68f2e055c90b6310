//! Every crate of the workspace has an acyclic module graph (see the
//! crate's documentation for what an edge is).

use std::path::{Path, PathBuf};

use capicua_modgraph::{CrateGraph, workspace_crates, workspace_members};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn crates() -> Vec<CrateGraph> {
    workspace_crates(&root()).expect("the workspace is readable")
}

fn report(c: &CrateGraph) -> String {
    let tangles: Vec<String> = c.graph.tangles.iter().map(|t| format!("tangled: {}", t.join(", "))).collect();
    let cycles: Vec<String> = c.graph.cycles.iter().map(ToString::to_string).collect();
    format!("{} ({}):\n{}\n{}", c.member, c.target, tangles.join("\n"), cycles.join("\n"))
}

/// Tangles known and being taken apart, by member: the modules of each
/// tangle, sorted. The modules tangled must be exactly these: a new one
/// fails, and one that leaves the tangle must leave this list. None is
/// left: the server's shared state (`AppState`) holds only types of modules
/// that never read it back, so the modules reading it do not loop through
/// it.
const UNTANGLING: &[(&str, &[&str])] = &[];

#[test]
fn no_module_cycles() {
    let crates = crates();
    let known = |c: &CrateGraph| UNTANGLING.iter().find(|(m, _)| *m == c.member).map(|(_, t)| *t);
    let failures: Vec<String> = crates
        .iter()
        .filter(|c| !c.graph.cycles.is_empty())
        .filter(|c| match known(c) {
            None => true,
            Some(tangled) => {
                let mut found: Vec<&str> = c.graph.tangles.iter().flatten().map(String::as_str).collect();
                found.sort();
                found != tangled
            }
        })
        .map(report)
        .collect();
    assert!(failures.is_empty(), "module cycles:\n{}", failures.join("\n\n"));
    for (member, tangled) in UNTANGLING {
        let c = crates.iter().find(|c| c.member == *member).expect("a listed member");
        let mut found: Vec<&str> = c.graph.tangles.iter().flatten().map(String::as_str).collect();
        found.sort();
        assert_eq!(found, *tangled, "{member}: the tangle changed; update UNTANGLING\n{}", report(c));
    }
}

#[test]
fn every_member_is_analysed() {
    let members = workspace_members(&root()).expect("root Cargo.toml");
    assert!(members.iter().any(|m| m == "tournament") && members.iter().any(|m| m == "tools/modgraph"), "{members:?}");
    let crates = crates();
    for m in &members {
        assert!(crates.iter().any(|c| &c.member == m), "no crate found in {m}");
    }
    for c in &crates {
        assert!(c.graph.missing.is_empty(), "{}: {:?}", c.member, c.graph.missing);
    }
}
