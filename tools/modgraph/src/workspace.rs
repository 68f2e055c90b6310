//! The workspace on disk: its member directories and each member's crates.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use crate::graph::ModGraph;
use crate::tree::ModTree;

/// The member directories listed in `root/Cargo.toml`'s `[workspace]
/// members`, relative to `root`, in the listed order. A trailing `/*`
/// stands for every subdirectory holding a `Cargo.toml`; a root that is a
/// package itself is listed as `.`.
pub fn workspace_members(root: &Path) -> io::Result<Vec<String>> {
    let manifest = fs::read_to_string(root.join("Cargo.toml"))?;
    let mut members = Vec::new();
    if section(&manifest, "package").is_some() {
        members.push(".".to_owned());
    }
    let workspace = section(&manifest, "workspace").unwrap_or_default();
    for pattern in string_array(&workspace, "members") {
        match pattern.strip_suffix("/*") {
            Some(dir) => {
                let mut found: Vec<String> = fs::read_dir(root.join(dir))?
                    .filter_map(Result::ok)
                    .filter(|e| e.path().join("Cargo.toml").is_file())
                    .map(|e| format!("{dir}/{}", e.file_name().to_string_lossy()))
                    .collect();
                found.sort();
                members.extend(found);
            }
            None => members.push(pattern),
        }
    }
    let excluded = string_array(&workspace, "exclude");
    members.retain(|m| !excluded.contains(m));
    Ok(members)
}

/// The lines of table `[name]` (up to the next table header), comments removed.
fn section(manifest: &str, name: &str) -> Option<String> {
    let header = format!("[{name}]");
    let mut lines = manifest.lines().map(|l| strip_comment(l).trim().to_owned());
    lines.by_ref().find(|l| *l == header)?;
    Some(lines.take_while(|l| !l.starts_with('[') || l.starts_with("[\"") || *l == "[").collect::<Vec<_>>().join("\n"))
}

/// A TOML line without its `#` comment (a `#` inside quotes stays).
fn strip_comment(line: &str) -> &str {
    let mut quoted = false;
    for (i, c) in line.char_indices() {
        match c {
            '"' => quoted = !quoted,
            '#' if !quoted => return &line[..i],
            _ => {}
        }
    }
    line
}

/// The strings of `key = [ "a", "b" ]` in a table's text (the array may span lines).
fn string_array(table: &str, key: &str) -> Vec<String> {
    let Some(start) = table.lines().position(|l| l.split('=').next().is_some_and(|k| k.trim() == key)) else {
        return Vec::new();
    };
    let text: String = table.lines().skip(start).collect::<Vec<_>>().join("\n");
    let Some(open) = text.find('[') else { return Vec::new() };
    let close = text[open..].find(']').map_or(text.len(), |c| open + c);
    text[open + 1..close].split(',').map(|s| s.trim().trim_matches('"').to_owned()).filter(|s| !s.is_empty()).collect()
}

/// One crate of a package (its library, its main binary, or a `src/bin` binary).
#[derive(Clone, Debug)]
pub struct CrateGraph {
    /// The member directory, as listed in the workspace (`engine`).
    pub member: String,
    /// Which crate of the member: `lib`, `bin`, or `bin <name>`.
    pub target: String,
    /// Its root file.
    pub root: PathBuf,
    /// Its module graph.
    pub graph: ModGraph,
    /// `.rs` files under the member's `src/` that no crate declares (only
    /// on the member's first crate).
    pub unreached: Vec<PathBuf>,
}

/// The crates under `root/member/src`: `lib.rs`, `main.rs`, `bin/*.rs` and
/// `bin/*/main.rs`. Paths in the result are relative to `root`.
pub fn member_crates(root: &Path, member: &str) -> io::Result<Vec<CrateGraph>> {
    let src = Path::new(member).join("src");
    let mut roots = Vec::new();
    for (file, target) in [("lib.rs", "lib"), ("main.rs", "bin")] {
        if root.join(&src).join(file).is_file() {
            roots.push((src.join(file), target.to_owned()));
        }
    }
    let bin = root.join(&src).join("bin");
    if bin.is_dir() {
        let mut entries: Vec<PathBuf> = fs::read_dir(&bin)?.filter_map(Result::ok).map(|e| e.path()).collect();
        entries.sort();
        for p in entries {
            let name = p.file_stem().unwrap_or_default().to_string_lossy().into_owned();
            let rel = src.join("bin").join(p.file_name().unwrap_or_default());
            if p.extension().is_some_and(|e| e == "rs") {
                roots.push((rel, format!("bin {name}")));
            } else if p.join("main.rs").is_file() {
                roots.push((rel.join("main.rs"), format!("bin {name}")));
            }
        }
    }
    let read = |p: &Path| fs::read_to_string(root.join(p)).ok();
    let mut crates = Vec::new();
    let mut reached = Vec::new();
    for (file, target) in roots {
        let Some(tree) = ModTree::load(&file, &read) else { continue };
        reached.extend(tree.modules.iter().map(|m| m.file.clone()));
        crates.push(CrateGraph {
            member: member.to_owned(),
            target,
            root: file,
            graph: ModGraph::build(&tree),
            unreached: Vec::new(),
        });
    }
    let mut all = Vec::new();
    rust_files(root, &src, &mut all)?;
    all.retain(|f| !reached.contains(f));
    all.sort();
    if let Some(first) = crates.first_mut() {
        first.unreached = all;
    }
    Ok(crates)
}

/// Every `.rs` file under `root/dir`, as paths relative to `root`.
fn rust_files(root: &Path, dir: &Path, out: &mut Vec<PathBuf>) -> io::Result<()> {
    for entry in fs::read_dir(root.join(dir))? {
        let entry = entry?;
        let rel = dir.join(entry.file_name());
        if entry.file_type()?.is_dir() {
            rust_files(root, &rel, out)?;
        } else if rel.extension().is_some_and(|e| e == "rs") {
            out.push(rel);
        }
    }
    Ok(())
}

/// The crates of every workspace member, in the members' order.
pub fn workspace_crates(root: &Path) -> io::Result<Vec<CrateGraph>> {
    let mut out = Vec::new();
    for member in workspace_members(root)? {
        out.extend(member_crates(root, &member)?);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn members_across_lines_with_comments() {
        let manifest = "[package]\nname = \"x\" # [not a table]\n\n[workspace]\nresolver = \"3\"\n\
                        members = [\n  \"engine\", # the rules\n  \"tools/modgraph\",\n]\nexclude = [\"old\"]\n\
                        [workspace.package]\nversion = \"1\"\n";
        let ws = section(manifest, "workspace").unwrap();
        assert_eq!(string_array(&ws, "members"), ["engine", "tools/modgraph"]);
        assert_eq!(string_array(&ws, "exclude"), ["old"]);
        assert!(section(manifest, "package").is_some());
        assert!(section(manifest, "dependencies").is_none());
    }
}
