//! # capicua-modgraph
//!
//! The module graph of every crate of the workspace, and its cycles.
//!
//! Each crate's modules are found by following `mod` declarations from its
//! root file (`src/lib.rs`, `src/main.rs`, `src/bin/*`). The references of a
//! module are its `use` declarations (`use crate::…`, `use super::…`, and
//! `use child::…` relative to the module) and the `crate::…`, `super::…`
//! and `self::…` paths in its code. Comments, string literals and items
//! marked `#[cfg(test)]` (above all `mod tests`, which may import its parent
//! freely) are not read.
//!
//! Granularity: edges join **sibling** modules. A reference from `a::x::p`
//! to an item of `a::y::q` is the edge `a::x -> a::y` (each module stands for
//! itself and all its descendants); references between a module and its
//! ancestors or descendants are no edge. A path through a re-export counts
//! as a reference to the module that defines the item. A cycle is a cycle
//! among the children of one module (or among the top-level modules).
//!
//! The crate root is the one ancestor that does make edges: it is the node
//! `crate` among the top-level modules, with an edge out for each top-level
//! module whose items it names (`use`, re-export or path) and an edge in
//! from each top-level module that names an item the root defines itself.
//! A root that holds shared items and also calls into the modules using
//! them is a loop (`http -> crate -> http`); a root of `mod` declarations
//! and re-exports never is.
//!
//! ```
//! use std::collections::BTreeMap;
//! use std::path::{Path, PathBuf};
//!
//! let files = BTreeMap::from([
//!     (PathBuf::from("src/lib.rs"), "mod a;\nmod b;\n"),
//!     (PathBuf::from("src/a.rs"), "use crate::b::B;\npub struct A;\n"),
//!     (PathBuf::from("src/b.rs"), "pub struct B(crate::a::A);\n"),
//! ]);
//! let graph = capicua_modgraph::analyze(Path::new("src/lib.rs"), |p| files.get(p).map(|s| s.to_string())).unwrap();
//! assert_eq!(graph.cycles[0].modules, ["a", "b"]);
//! assert_eq!(graph.cycles[0].edges[0].sites[0].to_string(), "src/a.rs:1 (crate::b::B)");
//! ```
//!
//! | file | concept |
//! |---|---|
//! | `lex.rs` | tokens without comments or literal contents |
//! | `parse.rs` | one file's modules, definitions, imports and paths |
//! | `tree.rs` | a crate's module tree, from its root file |
//! | `graph.rs` | [`ModGraph`]: sibling edges, re-exports followed, [`Cycle`]s |
//! | `sizes.rs` | [`sizes::functions`]: each function's span, test code left out |
//! | `workspace.rs` | [`workspace_members`], [`CrateGraph`] per crate of a member |

mod graph;
mod lex;
mod parse;
pub mod sizes;
mod tree;
mod workspace;

use std::path::Path;

pub use graph::{Cycle, Edge, ModGraph, Site};
pub use workspace::{CrateGraph, member_crates, workspace_crates, workspace_members};

/// The module graph of the crate whose root file is `root`; `read` gives
/// the text of a file (`None` when there is none). `None` if the root
/// cannot be read.
pub fn analyze(root: &Path, read: impl Fn(&Path) -> Option<String>) -> Option<ModGraph> {
    tree::ModTree::load(root, &read).map(|t| ModGraph::build(&t))
}
