//! What one file says about modules: the modules it declares, the names it
//! defines and imports, and every path into the crate it uses.
//!
//! Read as tokens, not as a syntax tree: an item is what runs to a `;` or
//! to the end of its first `{…}` block, which is enough to tell module-level
//! `use` declarations and items from the code inside them.

use std::collections::BTreeSet;

use crate::lex::{Tok, Token, lex};

/// The contents of one module, whether it is a file or an inline `mod x { … }`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct ModItems {
    /// Child modules, in order of declaration.
    pub(crate) mods: Vec<ModDecl>,
    /// Every reference to a path, from `use` declarations and from code.
    pub(crate) refs: Vec<Reference>,
    /// Names of items defined here (functions, types, traits, constants, macros).
    pub(crate) defs: BTreeSet<String>,
    /// The whole module is `#![cfg(test)]`.
    pub(crate) test_only: bool,
}

/// A `mod name;` or `mod name { … }`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ModDecl {
    pub(crate) name: String,
    pub(crate) line: u32,
    pub(crate) body: ModBody,
}

/// Where a module's items are.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum ModBody {
    /// In a file of its own; `path` is its `#[path = "…"]`, if any.
    File { path: Option<String> },
    /// Between braces in the declaring file.
    Inline(ModItems),
}

/// A path the module refers to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Reference {
    /// The path as written, without a trailing `self` (`crate`, `a`, `B`).
    pub(crate) segments: Vec<String>,
    /// Line of the path's last segment.
    pub(crate) line: u32,
    /// How it was written.
    pub(crate) kind: RefKind,
}

/// How a [`Reference`] appears.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum RefKind {
    /// A module-level `use`, which brings `name` into the module (`*` for a glob).
    Import { name: String },
    /// A `use` inside a function or block: only a dependency.
    LocalUse,
    /// A `crate::…`, `super::…` or `self::…` path in code.
    Code,
    /// Any other path of two or more segments in code (`http::router`,
    /// `Vec::new`): a reference only when its first segment is a child
    /// module of the module it is written in.
    Relative,
}

/// Parses a whole file.
pub(crate) fn parse_file(src: &str) -> ModItems {
    let toks = lex(src);
    let mut p = Parser { toks: &toks, pos: 0 };
    p.items(false)
}

struct Parser<'a> {
    toks: &'a [Token],
    pos: usize,
}

/// What the attributes in front of an item say.
#[derive(Default)]
struct Attrs {
    cfg_test: bool,
    path: Option<String>,
    /// Paths named in them: `#[derive(crate::X)]`, and strings such as
    /// serde's `with = "crate::x"`.
    refs: Vec<Reference>,
}

impl<'a> Parser<'a> {
    fn peek(&self, ahead: usize) -> Option<&'a Token> {
        self.toks.get(self.pos + ahead)
    }

    fn at_punct(&self, c: char) -> bool {
        self.peek(0).is_some_and(|t| t.is_punct(c))
    }

    fn at_ident(&self, name: &str) -> bool {
        self.peek(0).is_some_and(|t| t.is_ident(name))
    }

    /// Items up to the end of the input, or to the `}` closing the current
    /// inline module when `braced` (the `}` is consumed).
    fn items(&mut self, braced: bool) -> ModItems {
        let mut m = ModItems::default();
        while self.pos < self.toks.len() {
            if braced && self.at_punct('}') {
                self.pos += 1;
                break;
            }
            if self.at_punct('#') && self.peek(1).is_some_and(|t| t.is_punct('!')) {
                self.pos += 1;
                let attrs = self.attribute();
                m.test_only |= attrs.cfg_test;
                continue;
            }
            let mut attrs = self.attributes();
            if !attrs.cfg_test {
                m.refs.append(&mut attrs.refs);
            }
            self.visibility();
            let Some(tok) = self.peek(0) else { break };
            let line = tok.line;
            match tok.ident() {
                Some("mod") if self.peek(1).and_then(Token::ident).is_some() => {
                    let name = self.peek(1).and_then(Token::ident).unwrap_or_default().to_owned();
                    self.pos += 2;
                    if self.at_punct('{') {
                        if attrs.cfg_test {
                            self.skip_group();
                        } else {
                            self.pos += 1;
                            let body = self.items(true);
                            m.mods.push(ModDecl { name, line, body: ModBody::Inline(body) });
                        }
                    } else {
                        if self.at_punct(';') {
                            self.pos += 1;
                        }
                        if !attrs.cfg_test {
                            m.mods.push(ModDecl { name, line, body: ModBody::File { path: attrs.path } });
                        }
                    }
                }
                Some("use") => {
                    self.pos += 1;
                    let mut leaves = Vec::new();
                    self.use_tree(Vec::new(), &mut leaves);
                    self.skip_past(';');
                    if !attrs.cfg_test {
                        for (segments, name, line) in leaves {
                            m.refs.push(Reference { segments, line, kind: RefKind::Import { name } });
                        }
                    }
                }
                _ => {
                    if let Some(name) = self.defined_name()
                        && !attrs.cfg_test
                    {
                        m.defs.insert(name);
                    }
                    let from = self.pos;
                    self.skip_item();
                    if !attrs.cfg_test {
                        scan_code(&self.toks[from..self.pos], &mut m.refs);
                    }
                }
            }
        }
        m
    }

    /// Any number of outer attributes.
    fn attributes(&mut self) -> Attrs {
        let mut all = Attrs::default();
        while self.at_punct('#') && self.peek(1).is_some_and(|t| t.is_punct('[')) {
            let a = self.attribute();
            all.cfg_test |= a.cfg_test;
            all.path = a.path.or(all.path);
            all.refs.extend(a.refs);
        }
        all
    }

    /// One attribute: at `#` (an inner one's `!` already passed), through its `]`.
    fn attribute(&mut self) -> Attrs {
        self.pos += 1;
        let from = self.pos;
        self.skip_group();
        // Inside the brackets; nothing for a malformed attribute.
        let body = self.toks.get(from + 1..self.pos.saturating_sub(1)).unwrap_or(&[]);
        let mut a = Attrs::default();
        if body.first().is_some_and(|t| t.is_ident("cfg")) {
            // `cfg(test)`, `cfg(all(test, …))`; a `not` anywhere leaves it alone.
            a.cfg_test = body.iter().any(|t| t.is_ident("test")) && !body.iter().any(|t| t.is_ident("not"));
        }
        if body.first().is_some_and(|t| t.is_ident("path"))
            && let Some(Token { tok: Tok::Str(s), .. }) = body.get(2)
        {
            a.path = Some(s.clone());
        }
        scan_code(body, &mut a.refs);
        for t in body {
            if let Tok::Str(s) = &t.tok {
                let segments: Vec<String> = s.split("::").map(|seg| seg.trim().to_owned()).collect();
                let pathlike = segments.len() > 1
                    && matches!(segments[0].as_str(), "crate" | "super" | "self")
                    && segments
                        .iter()
                        .all(|seg| !seg.is_empty() && seg.chars().all(|c| c == '_' || c.is_alphanumeric()));
                if pathlike {
                    a.refs.push(Reference { segments, line: t.line, kind: RefKind::Code });
                }
            }
        }
        a
    }

    /// `pub`, `pub(crate)`, `pub(in crate::x)`: skipped, so a visibility's
    /// path is never read as a dependency.
    fn visibility(&mut self) {
        if self.at_ident("pub") {
            self.pos += 1;
            if self.at_punct('(') {
                self.skip_group();
            }
        }
    }

    /// At an opening bracket: moves past its matching closer.
    fn skip_group(&mut self) {
        let mut depth = 0i32;
        while let Some(t) = self.peek(0) {
            self.pos += 1;
            match t.tok {
                Tok::Punct('(' | '[' | '{') => depth += 1,
                Tok::Punct(')' | ']' | '}') => {
                    depth -= 1;
                    if depth <= 0 {
                        return;
                    }
                }
                _ => {}
            }
        }
    }

    /// Moves past the next `c` outside brackets.
    fn skip_past(&mut self, c: char) {
        while let Some(t) = self.peek(0) {
            if t.is_punct(c) {
                self.pos += 1;
                return;
            }
            if matches!(t.tok, Tok::Punct('(' | '[' | '{')) {
                self.skip_group();
            } else if matches!(t.tok, Tok::Punct(')' | ']' | '}')) {
                return;
            } else {
                self.pos += 1;
            }
        }
    }

    /// Moves past one item: to a `;`, or through its first `{…}` block.
    /// Stops before a `}` that closes the enclosing block.
    fn skip_item(&mut self) {
        let start = self.pos;
        while let Some(t) = self.peek(0) {
            match t.tok {
                Tok::Punct(';') => {
                    self.pos += 1;
                    return;
                }
                Tok::Punct('{') => {
                    self.skip_group();
                    return;
                }
                Tok::Punct('(' | '[') => self.skip_group(),
                Tok::Punct(')' | ']' | '}') => {
                    if self.pos == start {
                        self.pos += 1;
                    }
                    return;
                }
                _ => self.pos += 1,
            }
        }
    }

    /// The name an item at the cursor defines, if any (`fn f`, `struct S`,
    /// `macro_rules! m`, `unsafe fn g`, `const _` defines nothing).
    fn defined_name(&self) -> Option<String> {
        const KEYWORDS: &[&str] = &["fn", "struct", "enum", "union", "trait", "type", "const", "static"];
        let mut i = 0;
        while let Some(t) = self.peek(i) {
            let word = t.ident()?;
            if word == "macro_rules" {
                return self.peek(i + 2).and_then(Token::ident).map(str::to_owned);
            }
            if KEYWORDS.contains(&word) {
                let mut j = i + 1;
                // `static mut X`, `const fn f`, `const unsafe fn g`.
                while self.peek(j).is_some_and(|t| t.is_ident("mut") || t.is_ident("fn") || t.is_ident("unsafe")) {
                    j += 1;
                }
                return self.peek(j).and_then(Token::ident).filter(|n| *n != "_").map(str::to_owned);
            }
            if !matches!(word, "async" | "unsafe" | "extern" | "default" | "auto") {
                return None;
            }
            i += 1;
        }
        None
    }

    /// A use tree after `prefix`: pushes one `(path, imported name, line)` per leaf.
    fn use_tree(&mut self, prefix: Vec<String>, leaves: &mut Vec<(Vec<String>, String, u32)>) {
        let mut segments = prefix;
        if self.peek(0).is_some_and(|t| t.tok == Tok::PathSep) {
            // `use ::std::…`: a crate from outside, never ours.
            self.pos += 1;
            segments.push("::".into());
        }
        loop {
            let Some(t) = self.peek(0) else { return };
            let line = t.line;
            if let Some(word) = t.ident() {
                segments.push(word.to_owned());
                self.pos += 1;
                if self.peek(0).is_some_and(|t| t.tok == Tok::PathSep) {
                    self.pos += 1;
                    continue;
                }
                let mut name = word.to_owned();
                if segments.last().is_some_and(|s| s == "self") {
                    segments.pop();
                    name = segments.last().cloned().unwrap_or_default();
                }
                if self.at_ident("as") {
                    self.pos += 1;
                    if let Some(alias) = self.peek(0).and_then(Token::ident) {
                        name = alias.to_owned();
                        self.pos += 1;
                    }
                }
                leaves.push((segments, name, line));
                return;
            }
            if t.is_punct('*') {
                self.pos += 1;
                leaves.push((segments, "*".into(), line));
                return;
            }
            if t.is_punct('{') {
                self.pos += 1;
                while !self.at_punct('}') && self.pos < self.toks.len() {
                    let before = self.pos;
                    self.use_tree(segments.clone(), leaves);
                    if self.at_punct(',') {
                        self.pos += 1;
                    } else if self.pos == before {
                        // Something unexpected: step over it rather than loop.
                        self.pos += 1;
                    }
                }
                self.pos += 1;
                return;
            }
            return;
        }
    }
}

/// Finds the references in the tokens of one item: `crate::`, `super::`
/// and `self::` paths, and `use` declarations inside it. Nested items
/// marked `#[cfg(test)]` are left out.
fn scan_code(toks: &[Token], refs: &mut Vec<Reference>) {
    let mut i = 0;
    while i < toks.len() {
        let t = &toks[i];
        if t.is_punct('#') && toks.get(i + 1).is_some_and(|n| n.is_punct('[')) {
            let mut p = Parser { toks, pos: i };
            let mut attrs = p.attributes();
            if attrs.cfg_test {
                p.visibility();
                p.skip_item();
            } else {
                refs.append(&mut attrs.refs);
            }
            i = p.pos;
            continue;
        }
        if t.is_ident("pub") && toks.get(i + 1).is_some_and(|n| n.is_punct('(')) {
            let mut p = Parser { toks, pos: i + 1 };
            p.skip_group();
            i = p.pos;
            continue;
        }
        if t.is_ident("use") {
            let mut p = Parser { toks, pos: i + 1 };
            let mut leaves = Vec::new();
            p.use_tree(Vec::new(), &mut leaves);
            for (segments, _, line) in leaves {
                refs.push(Reference { segments, line, kind: RefKind::LocalUse });
            }
            i = p.pos.max(i + 1);
            continue;
        }
        let starts_path = matches!(t.ident(), Some("crate" | "super" | "self"))
            && toks.get(i + 1).is_some_and(|n| n.tok == Tok::PathSep)
            && !(i > 0 && (toks[i - 1].is_punct('$') || toks[i - 1].tok == Tok::PathSep));
        if starts_path {
            let (segments, line, j) = path_at(toks, i);
            refs.push(Reference { segments, line, kind: RefKind::Code });
            i = j;
            continue;
        }
        let starts_relative = t.ident().is_some()
            && toks.get(i + 1).is_some_and(|n| n.tok == Tok::PathSep)
            && toks.get(i + 2).and_then(Token::ident).is_some()
            && !(i > 0 && (toks[i - 1].is_punct('$') || toks[i - 1].tok == Tok::PathSep));
        if starts_relative {
            let (segments, line, j) = path_at(toks, i);
            refs.push(Reference { segments, line, kind: RefKind::Relative });
            i = j;
            continue;
        }
        i += 1;
    }
}

/// The path starting at the identifier `toks[i]`: its segments, the line
/// of its last segment, and the index after it.
fn path_at(toks: &[Token], i: usize) -> (Vec<String>, u32, usize) {
    let mut segments = vec![toks[i].ident().unwrap_or_default().to_owned()];
    let mut line = toks[i].line;
    let mut j = i + 1;
    while toks.get(j).is_some_and(|n| n.tok == Tok::PathSep)
        && let Some(next) = toks.get(j + 1).and_then(Token::ident)
    {
        segments.push(next.to_owned());
        line = toks[j + 1].line;
        j += 2;
    }
    (segments, line, j)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn imports(m: &ModItems) -> Vec<(String, String, u32)> {
        m.refs
            .iter()
            .filter_map(|r| match &r.kind {
                RefKind::Import { name } => Some((r.segments.join("::"), name.clone(), r.line)),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn use_trees_with_groups_aliases_and_visibility() {
        let m = parse_file(
            "pub(crate) use crate::{a::b, c::{self, D as E}};\n\
             pub use super::\n    {f,\n     g::*};\nuse std::fmt;\nuse ::serde::X;\n",
        );
        assert_eq!(
            imports(&m),
            [
                ("crate::a::b".into(), "b".into(), 1),
                ("crate::c".into(), "c".into(), 1),
                ("crate::c::D".into(), "E".into(), 1),
                ("super::f".into(), "f".into(), 3),
                ("super::g".into(), "*".into(), 4),
                ("std::fmt".into(), "fmt".into(), 5),
                ("::::serde::X".into(), "X".into(), 6),
            ]
        );
    }

    #[test]
    fn test_modules_and_comments_are_skipped() {
        let m = parse_file(
            "// use crate::a;\n/// crate::b::f()\nfn f() { crate::c::g(); }\n\
             #[cfg(test)]\nmod tests { use crate::d; fn t() { crate::e::h(); } }\n\
             #[cfg(test)] mod more;\n#[cfg(not(test))] use crate::f::X;\n",
        );
        let paths: Vec<String> = m.refs.iter().map(|r| r.segments.join("::")).collect();
        assert_eq!(paths, ["crate::c::g", "crate::f::X"]);
        assert!(m.mods.is_empty());
        assert!(m.defs.contains("f"));
    }

    #[test]
    fn paths_in_attributes() {
        let m = parse_file(
            "#[derive(crate::m::Derive)]\nstruct S {\n    #[serde(with = \"crate::codec\")]\n    a: u8,\n    \
             #[doc = \"crate::not a path\"]\n    b: u8,\n}\n",
        );
        let paths: Vec<(String, u32)> = m.refs.iter().map(|r| (r.segments.join("::"), r.line)).collect();
        assert_eq!(paths, [("crate::m::Derive".into(), 1), ("crate::codec".into(), 3)]);
    }

    #[test]
    fn code_paths_inline_modules_and_definitions() {
        let m = parse_file(
            "pub mod inner {\n    pub(super) fn a() { super::outer(); }\n    pub struct S { pub(in crate::x) f: u8 }\n}\n\
             #[path = \"other.rs\"]\nmod renamed;\n\
             impl T { fn m(&self) { self.x(); let v = self::inner::a(); use crate::k::L; } }\n\
             const _: () = ();\npub(crate) const fn cf() {}\nmacro_rules! mac { () => { $crate::z() } }\n",
        );
        assert_eq!(m.mods.len(), 2);
        let ModBody::Inline(inner) = &m.mods[0].body else { panic!("inline") };
        assert_eq!(inner.refs.len(), 1);
        assert_eq!(inner.refs[0].segments, ["super", "outer"]);
        assert_eq!(inner.defs.iter().collect::<Vec<_>>(), ["S", "a"]);
        assert_eq!(m.mods[1].body, ModBody::File { path: Some("other.rs".into()) });
        let paths: Vec<(String, &RefKind)> = m.refs.iter().map(|r| (r.segments.join("::"), &r.kind)).collect();
        assert_eq!(paths, [("self::inner::a".into(), &RefKind::Code), ("crate::k::L".into(), &RefKind::LocalUse)]);
        assert_eq!(m.defs.iter().collect::<Vec<_>>(), ["cf", "mac"]);
    }
}
