//! A crate's module tree: from its root file, every `mod` declaration
//! followed to its file, each module flattened with its path.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use crate::parse::{ModBody, ModItems, Reference, parse_file};

/// One module of a crate, its own items only (child modules are separate).
#[derive(Clone, Debug)]
pub(crate) struct Module {
    /// Path from the crate root (empty for the root).
    pub(crate) path: Vec<String>,
    /// The file holding its items (the declaring file for an inline module).
    pub(crate) file: PathBuf,
    /// Its child modules' names.
    pub(crate) children: BTreeSet<String>,
    /// Names it defines.
    pub(crate) defs: BTreeSet<String>,
    /// Paths it refers to.
    pub(crate) refs: Vec<Reference>,
}

/// Every module of a crate, and the declarations whose file was not found.
#[derive(Clone, Debug, Default)]
pub(crate) struct ModTree {
    pub(crate) modules: Vec<Module>,
    /// `file:line: mod name` for declarations without a file.
    pub(crate) missing: Vec<String>,
}

impl ModTree {
    /// Follows the module declarations from `root` (a `lib.rs`, `main.rs` or
    /// bin file); `read` gives a file's text, `None` if there is none.
    pub(crate) fn load(root: &Path, read: &dyn Fn(&Path) -> Option<String>) -> Option<ModTree> {
        let items = parse_file(&read(root)?);
        let mut tree = ModTree::default();
        let dir = root.parent().unwrap_or(Path::new("")).to_path_buf();
        tree.add(Vec::new(), root.to_path_buf(), dir, items, read);
        Some(tree)
    }

    /// The module at `path`.
    pub(crate) fn get(&self, path: &[String]) -> Option<&Module> {
        self.modules.iter().find(|m| m.path == path)
    }

    /// Adds the module `path` whose items are `items` (in `file`) and,
    /// recursively, its children, whose files are looked up in `dir`.
    fn add(
        &mut self,
        path: Vec<String>,
        file: PathBuf,
        dir: PathBuf,
        items: ModItems,
        read: &dyn Fn(&Path) -> Option<String>,
    ) {
        if items.test_only {
            return;
        }
        let children = items.mods.iter().map(|m| m.name.clone()).collect();
        self.modules.push(Module {
            path: path.clone(),
            file: file.clone(),
            children,
            defs: items.defs,
            refs: items.refs,
        });
        for decl in items.mods {
            let mut child = path.clone();
            child.push(decl.name.clone());
            match decl.body {
                ModBody::Inline(inner) => {
                    let inner_dir = dir.join(&decl.name);
                    self.add(child, file.clone(), inner_dir, inner, read);
                }
                ModBody::File { path: attr } => {
                    // A `#[path]` file, like a `mod.rs`, keeps its children beside it.
                    let candidates = match &attr {
                        Some(p) => vec![(file.parent().unwrap_or(Path::new("")).join(p), true)],
                        None => vec![
                            (dir.join(format!("{}.rs", decl.name)), false),
                            (dir.join(&decl.name).join("mod.rs"), true),
                        ],
                    };
                    let found = candidates.into_iter().find_map(|(f, mod_rs)| read(&f).map(|text| (f, mod_rs, text)));
                    match found {
                        Some((f, mod_rs, text)) => {
                            let child_dir = if mod_rs {
                                f.parent().unwrap_or(Path::new("")).to_path_buf()
                            } else {
                                dir.join(&decl.name)
                            };
                            self.add(child, f, child_dir, parse_file(&text), read);
                        }
                        None => self.missing.push(format!("{}:{}: mod {}", file.display(), decl.line, decl.name)),
                    }
                }
            }
        }
    }
}
