#![doc = include_str!("../README.md")]
//!
//! ## Files
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
