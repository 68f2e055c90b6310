//! The dependency graph between sibling modules, and its cycles.
//!
//! A reference from module `a::x::p` to an item of `a::y::q` is an edge
//! `x -> y` among the children of `a`: each module stands for itself and
//! all its descendants, and the edge lives under the two modules' nearest
//! common ancestor. A reference between a module and one of its ancestors
//! or descendants is no edge (a child may use its parent's items and a
//! parent its children's: that is what nesting means). A path through a
//! re-export (`use crate::Board` where the root says `pub use board::Board`)
//! counts as a reference to the module that defines the item.
//!
//! The crate root is a node too (`crate`), next to the top-level modules:
//! its `use`s and paths are its edges out, and the items it defines itself
//! are where edges into it end (see [`sides`]).

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::path::PathBuf;

use crate::parse::RefKind;
use crate::tree::ModTree;

/// Where a reference is written.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Site {
    /// The file.
    pub file: PathBuf,
    /// The line (1-based).
    pub line: u32,
    /// The path as written (`crate::board::Board`).
    pub path: String,
}

impl fmt::Display for Site {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{} ({})", self.file.display(), self.line, self.path)
    }
}

/// An edge between two sibling modules, with every reference that makes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Edge {
    /// The module that refers (`game::x`).
    pub from: String,
    /// The module referred to (`game::y`).
    pub to: String,
    /// Every reference behind the edge, in file order.
    pub sites: Vec<Site>,
}

/// A cycle among sibling modules: `modules[0] -> modules[1] -> … -> modules[0]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cycle {
    /// The modules in cycle order, starting at the smallest.
    pub modules: Vec<String>,
    /// The edges, `modules[i] -> modules[i + 1]`, the last one back to the start.
    pub edges: Vec<Edge>,
}

impl fmt::Display for Cycle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "cycle: {} -> {}", self.modules.join(" -> "), self.modules[0])?;
        for e in &self.edges {
            write!(f, "\n    {} -> {}:", e.from, e.to)?;
            for s in &e.sites {
                write!(f, "\n        {s}")?;
            }
        }
        Ok(())
    }
}

/// Most cycles listed per group of tangled modules: past that, the edge
/// lists already say everything there is to untangle.
const MAX_CYCLES: usize = 64;

/// The module graph of one crate.
#[derive(Clone, Debug, Default)]
pub struct ModGraph {
    /// Every module, by path (`crate` for the root, then `game`, `game::x`, …).
    pub modules: Vec<String>,
    /// Edges between siblings, sorted by `from` then `to`.
    pub edges: Vec<Edge>,
    /// Every elementary cycle among siblings (at most 64 per tangle).
    pub cycles: Vec<Cycle>,
    /// The tangles: groups of sibling modules that all reach one another
    /// (strongly connected components of more than one module), each sorted.
    pub tangles: Vec<Vec<String>>,
    /// Module declarations whose file is missing.
    pub missing: Vec<String>,
}

/// What a path names, as far as it can be followed.
enum Lookup {
    /// An item or module defined in this module.
    Found(Vec<String>),
    /// Not found past this module (an item made by a macro, say): counts as it.
    Missing(Vec<String>),
    /// Another crate's.
    External,
}

/// Re-exports are followed this deep at most (guards against `use` loops).
const MAX_DEPTH: u32 = 16;

impl ModGraph {
    pub(crate) fn build(tree: &ModTree) -> ModGraph {
        let mut by_edge: BTreeMap<(Vec<String>, Vec<String>), Vec<Site>> = BTreeMap::new();
        for m in &tree.modules {
            for r in &m.refs {
                // A module-level `use` of a sibling is an edge; a relative
                // path in code never leaves the module, so only `use` may start
                // with a name in scope.
                // A relative path in code names a child module or nothing
                // this graph knows (a type's `Vec::new`, a crate's `std::mem`).
                if r.kind == RefKind::Relative && !r.segments.first().is_some_and(|s| m.children.contains(s)) {
                    continue;
                }
                let relative_ok = r.kind != RefKind::Code;
                let (target, found) = match resolve(tree, &m.path, &r.segments, relative_ok, 0) {
                    Lookup::Found(t) => (t, true),
                    Lookup::Missing(t) => (t, false),
                    Lookup::External => continue,
                };
                let Some((from, to)) = sides(&m.path, &target, found) else { continue };
                let site = Site { file: m.file.clone(), line: r.line, path: r.segments.join("::") };
                by_edge.entry((from, to)).or_default().push(site);
            }
        }
        let edges: Vec<Edge> = by_edge
            .into_iter()
            .map(|((from, to), mut sites)| {
                sites.sort();
                sites.dedup();
                Edge { from: name(&from), to: name(&to), sites }
            })
            .collect();
        let mut modules: Vec<String> = tree.modules.iter().map(|m| name(&m.path)).collect();
        modules.sort();
        let (tangles, cycles) = cycles(&edges);
        ModGraph { modules, edges, cycles, tangles, missing: tree.missing.clone() }
    }
}

/// The two sides of the edge a reference from module `from` to module
/// `target` makes, if it makes one: the children of their nearest common
/// ancestor that hold them. The crate root is the exception to "a module
/// and its ancestors make no edge": its items are shared by every module,
/// so a top-level module naming an item the root defines (`found`: not a
/// name the root was merely searched for) is an edge to `crate`, and the
/// root naming a top-level module's item is an edge from `crate`. A root
/// that defines items its modules use and also calls into them loops
/// (`http -> crate -> http`); a root of `mod`s and re-exports does not.
fn sides(from: &[String], target: &[String], found: bool) -> Option<(Vec<String>, Vec<String>)> {
    match (from, target) {
        ([], []) => None,
        ([], [top, ..]) => Some((Vec::new(), vec![top.clone()])),
        ([top, ..], []) => found.then(|| (vec![top.clone()], Vec::new())),
        _ => {
            let common = from.iter().zip(target).take_while(|(a, b)| a == b).count();
            if common == from.len() || common == target.len() {
                return None;
            }
            Some((from[..=common].to_vec(), target[..=common].to_vec()))
        }
    }
}

/// A module's display name: `crate` for the root, else its path.
fn name(path: &[String]) -> String {
    if path.is_empty() { "crate".into() } else { path.join("::") }
}

/// Follows `segments`, written in module `from`, to the module defining what it names.
fn resolve(tree: &ModTree, from: &[String], segments: &[String], relative_ok: bool, depth: u32) -> Lookup {
    let Some(first) = segments.first() else { return Lookup::External };
    if depth > MAX_DEPTH {
        return Lookup::Missing(from.to_vec());
    }
    match first.as_str() {
        "crate" => walk(tree, &[], &segments[1..], depth),
        "self" => walk(tree, from, &segments[1..], depth),
        "super" => {
            let ups = segments.iter().take_while(|s| *s == "super").count();
            if ups > from.len() {
                return Lookup::External;
            }
            walk(tree, &from[..from.len() - ups], &segments[ups..], depth)
        }
        name if relative_ok && tree.get(from).is_some_and(|m| in_scope(m, name)) => walk(tree, from, segments, depth),
        _ => Lookup::External,
    }
}

/// Whether `name` is a child module, an item or a (non-glob) import of `m`.
fn in_scope(m: &crate::tree::Module, name: &str) -> bool {
    m.children.contains(name)
        || m.defs.contains(name)
        || m.refs.iter().any(|r| matches!(&r.kind, RefKind::Import { name: n } if n == name))
}

/// Looks `rest` up from module `module`.
fn walk(tree: &ModTree, module: &[String], rest: &[String], depth: u32) -> Lookup {
    let Some(m) = tree.get(module) else { return Lookup::Missing(module.to_vec()) };
    let Some(head) = rest.first() else { return Lookup::Found(module.to_vec()) };
    if m.children.contains(head) {
        let mut child = module.to_vec();
        child.push(head.clone());
        return walk(tree, &child, &rest[1..], depth);
    }
    if m.defs.contains(head) {
        return Lookup::Found(module.to_vec());
    }
    // An import of that name: follow it (a re-export, or a name in scope).
    for r in &m.refs {
        if matches!(&r.kind, RefKind::Import { name } if name == head) {
            let mut path = r.segments.clone();
            path.extend_from_slice(&rest[1..]);
            return resolve(tree, module, &path, true, depth + 1);
        }
    }
    // A glob import that has it.
    for r in &m.refs {
        if matches!(&r.kind, RefKind::Import { name } if name == "*") {
            let mut path = r.segments.clone();
            path.extend_from_slice(rest);
            if let Lookup::Found(t) = resolve(tree, module, &path, true, depth + 1) {
                return Lookup::Found(t);
            }
        }
    }
    Lookup::Missing(module.to_vec())
}

/// The tangles of the graph and every elementary cycle in them (up to
/// [`MAX_CYCLES`] per tangle), each starting at its smallest module.
fn cycles(edges: &[Edge]) -> (Vec<Vec<String>>, Vec<Cycle>) {
    let mut adj: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for e in edges {
        adj.entry(&e.from).or_default().insert(&e.to);
        adj.entry(&e.to).or_default();
    }
    let edge = |a: &str, b: &str| edges.iter().find(|e| e.from == a && e.to == b).cloned();
    let mut out = Vec::new();
    let mut tangles = Vec::new();
    for scc in components(&adj) {
        if scc.len() < 2 {
            continue;
        }
        tangles.push(scc.iter().map(|m| m.to_string()).collect());
        let mut found = Vec::new();
        // Johnson-style: cycles through `start` using only modules after it.
        for (i, &start) in scc.iter().enumerate() {
            let allowed: BTreeSet<&str> = scc[i..].iter().copied().collect();
            let mut path = vec![start];
            extend(&adj, &allowed, start, &mut path, &mut found);
            if found.len() >= MAX_CYCLES {
                break;
            }
        }
        found.truncate(MAX_CYCLES);
        for modules in found {
            let edges = (0..modules.len()).filter_map(|i| edge(modules[i], modules[(i + 1) % modules.len()])).collect();
            out.push(Cycle { modules: modules.into_iter().map(str::to_owned).collect(), edges });
        }
    }
    (tangles, out)
}

/// Depth-first search for simple paths from the path's last module back to its first.
fn extend<'a>(
    adj: &BTreeMap<&'a str, BTreeSet<&'a str>>,
    allowed: &BTreeSet<&'a str>,
    start: &'a str,
    path: &mut Vec<&'a str>,
    found: &mut Vec<Vec<&'a str>>,
) {
    let last = path[path.len() - 1];
    for &next in &adj[last] {
        if found.len() >= MAX_CYCLES {
            return;
        }
        if next == start {
            found.push(path.clone());
        } else if allowed.contains(next) && !path.contains(&next) {
            path.push(next);
            extend(adj, allowed, start, path, found);
            path.pop();
        }
    }
}

/// Strongly connected components (Tarjan), each sorted.
fn components<'a>(adj: &BTreeMap<&'a str, BTreeSet<&'a str>>) -> Vec<Vec<&'a str>> {
    struct State<'a> {
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on_stack: BTreeSet<&'a str>,
        out: Vec<Vec<&'a str>>,
    }
    fn visit<'a>(v: &'a str, adj: &BTreeMap<&'a str, BTreeSet<&'a str>>, s: &mut State<'a>) {
        let i = s.index.len();
        s.index.insert(v, i);
        s.low.insert(v, i);
        s.stack.push(v);
        s.on_stack.insert(v);
        for &w in &adj[v] {
            if !s.index.contains_key(w) {
                visit(w, adj, s);
                let lw = s.low[w];
                let lv = s.low.get_mut(v).expect("visited");
                *lv = (*lv).min(lw);
            } else if s.on_stack.contains(w) {
                let iw = s.index[w];
                let lv = s.low.get_mut(v).expect("visited");
                *lv = (*lv).min(iw);
            }
        }
        if s.low[v] == s.index[v] {
            let mut comp = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on_stack.remove(w);
                comp.push(w);
                if w == v {
                    break;
                }
            }
            comp.sort();
            s.out.push(comp);
        }
    }
    let mut s = State {
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        out: Vec::new(),
    };
    for &v in adj.keys() {
        if !s.index.contains_key(v) {
            visit(v, adj, &mut s);
        }
    }
    s.out.sort();
    s.out
}

impl fmt::Display for ModGraph {
    /// One line per module below the root, with its siblings it refers to:
    /// `from -> to, to`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut targets: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
        for e in &self.edges {
            targets.entry(&e.from).or_default().push(&e.to);
        }
        if self.modules.iter().all(|m| m == "crate") {
            writeln!(f, "(no modules below the root)")?;
        }
        if let Some(to) = targets.get("crate") {
            writeln!(f, "crate -> {}", to.join(", "))?;
        }
        for m in self.modules.iter().filter(|m| *m != "crate") {
            match targets.get(m.as_str()) {
                Some(to) => writeln!(f, "{m} -> {}", to.join(", "))?,
                None => writeln!(f, "{m}")?,
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;
    use std::path::Path;

    use super::*;

    /// The graph of a crate made of `(file, text)` pairs, rooted at `src/lib.rs`.
    fn graph(files: &[(&str, &str)]) -> ModGraph {
        let files: BTreeMap<PathBuf, String> = files.iter().map(|(p, s)| (PathBuf::from(p), s.to_string())).collect();
        let read = |p: &Path| files.get(p).cloned();
        let tree = ModTree::load(Path::new("src/lib.rs"), &read).expect("root");
        assert!(tree.missing.is_empty(), "{:?}", tree.missing);
        ModGraph::build(&tree)
    }

    fn edges(g: &ModGraph) -> Vec<String> {
        g.edges.iter().map(|e| format!("{} -> {}", e.from, e.to)).collect()
    }

    #[test]
    fn a_two_module_cycle_is_found_with_its_sites() {
        let g = graph(&[
            ("src/lib.rs", "mod a;\nmod b;\npub use a::A;\n"),
            ("src/a.rs", "//! A.\nuse crate::b::B;\npub struct A(B);\n"),
            ("src/b.rs", "pub struct B;\nimpl B {\n    fn f() -> crate::a::A { todo!() }\n}\n"),
        ]);
        assert_eq!(edges(&g), ["crate -> a", "a -> b", "b -> a"]);
        assert_eq!(g.cycles.len(), 1);
        let c = &g.cycles[0];
        assert_eq!(c.modules, ["a", "b"]);
        assert_eq!(c.edges[0].sites, [Site { file: "src/a.rs".into(), line: 2, path: "crate::b::B".into() }]);
        assert_eq!(c.edges[1].sites, [Site { file: "src/b.rs".into(), line: 3, path: "crate::a::A".into() }]);
        assert!(c.to_string().contains("src/b.rs:3 (crate::a::A)"), "{c}");
    }

    #[test]
    fn a_dag_has_no_cycle() {
        let g = graph(&[
            ("src/lib.rs", "mod a;\nmod b;\nmod c;\npub use b::B;\n"),
            ("src/a.rs", "use crate::{b::B, c::C};\n"),
            ("src/b.rs", "pub struct B;\nfn f() { let _ = crate::c::C; }\n"),
            ("src/c.rs", "pub struct C;\n#[cfg(test)]\nmod tests {\n    use crate::a::*;\n}\n"),
        ]);
        assert_eq!(edges(&g), ["crate -> b", "a -> b", "a -> c", "b -> c"]);
        assert!(g.cycles.is_empty());
    }

    #[test]
    fn re_exports_lead_to_the_defining_module() {
        // `b` names `crate::A`, which the root re-exports from `a`.
        let g = graph(&[
            ("src/lib.rs", "mod a;\nmod b;\npub use a::A;\npub use b::*;\n"),
            ("src/a.rs", "pub struct A;\npub fn g() { crate::h(); }\n"),
            ("src/b.rs", "use crate::A;\npub fn h() {}\n"),
        ]);
        assert_eq!(edges(&g), ["crate -> a", "crate -> b", "a -> b", "b -> a"]);
        assert_eq!(g.cycles.len(), 1);
    }

    #[test]
    fn siblings_under_a_parent_and_collapsed_descendants() {
        let g = graph(&[
            ("src/lib.rs", "pub mod game;\nmod util;\n"),
            ("src/game.rs", "mod x;\nmod y;\npub(crate) use y::Y;\npub struct G;\n"),
            // x uses its parent (no edge) and, through the parent's re-export, y.
            ("src/game/x.rs", "use super::{G, Y};\nuse crate::util::deep::D;\n"),
            ("src/game/y.rs", "pub struct Y;\nfn f() { super::x::helper(); }\n"),
            ("src/util/mod.rs", "pub mod deep;\n"),
            ("src/util/deep.rs", "pub struct D;\nfn f() -> crate::game::G { crate::game::G }\n"),
        ]);
        assert_eq!(edges(&g), ["game -> util", "game::x -> game::y", "game::y -> game::x", "util -> game"]);
        let cycles: Vec<String> = g.cycles.iter().map(|c| c.modules.join(" ")).collect();
        assert_eq!(cycles, ["game util", "game::x game::y"]);
        assert_eq!(g.tangles, [["game", "util"], ["game::x", "game::y"]]);
        assert_eq!(g.modules, ["crate", "game", "game::x", "game::y", "util", "util::deep"]);
    }

    #[test]
    fn a_loop_through_the_root_is_a_cycle() {
        // The root defines `State` (used by `http`) and calls `http`.
        let g = graph(&[
            ("src/lib.rs", "mod http;\npub struct State;\npub fn run() { http::router(); crate::http::router(); }\n"),
            ("src/http.rs", "use crate::State;\npub fn router() {}\n"),
        ]);
        assert_eq!(edges(&g), ["crate -> http", "http -> crate"]);
        let cycles: Vec<String> = g.cycles.iter().map(|c| c.modules.join(" ")).collect();
        assert_eq!(cycles, ["crate http"]);
        assert!(g.to_string().starts_with("crate -> http\n"), "{g}");
    }

    #[test]
    fn a_root_of_modules_and_re_exports_is_no_cycle() {
        let g = graph(&[
            ("src/lib.rs", "mod http;\nmod state;\npub use serve::run;\nmod serve;\npub use state::State;\n"),
            ("src/state.rs", "pub struct State;\n"),
            ("src/http.rs", "use crate::State;\npub fn router() {}\n"),
            ("src/serve.rs", "pub fn run() { crate::http::router(); }\n"),
        ]);
        assert_eq!(edges(&g), ["crate -> serve", "crate -> state", "http -> state", "serve -> http"]);
        assert!(g.cycles.is_empty());
    }

    #[test]
    fn every_elementary_cycle_of_a_tangle() {
        // a -> b -> c -> a and a -> c -> a.
        let g = graph(&[
            ("src/lib.rs", "mod a;\nmod b;\nmod c;\n"),
            ("src/a.rs", "use crate::{b::B, c::C};\npub struct A;\n"),
            ("src/b.rs", "use crate::c::C;\npub struct B;\n"),
            ("src/c.rs", "use crate::a::A;\npub struct C;\n"),
        ]);
        let cycles: Vec<String> = g.cycles.iter().map(|c| c.modules.join(" ")).collect();
        assert_eq!(cycles, ["a b c", "a c"]);
        assert_eq!(g.tangles, [["a", "b", "c"]]);
    }

    #[test]
    fn inline_modules_and_super_chains() {
        let g = graph(&[
            ("src/lib.rs", "mod a;\nmod b { pub mod inner { pub fn f() { super::super::a::g(); } } }\n"),
            ("src/a.rs", "pub fn g() {}\n"),
        ]);
        assert_eq!(edges(&g), ["b -> a"]);
        assert!(g.cycles.is_empty());
    }
}
