//! How long each function of a file is, test code left out: the measure
//! behind the workspace's size rules (a function fits in a screen, a file
//! holds one concept).
//!
//! ```
//! let src = "fn short() {\n    1;\n}\n\n#[cfg(test)]\nmod tests {\n    fn helper() {}\n}\n";
//! let fns = capicua_modgraph::sizes::functions(src);
//! assert_eq!(fns.len(), 1);
//! assert_eq!((fns[0].name.as_str(), fns[0].line, fns[0].lines), ("short", 1, 3));
//! ```

use crate::lex::{Tok, Token, lex};

/// A function with a body, where it starts and how many lines it spans
/// (from the line of `fn` to the line of its closing brace).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Function {
    /// Its name (a method's name alone).
    pub name: String,
    /// The line of `fn` (1-based).
    pub line: u32,
    /// Lines from `fn` to the closing brace, both included.
    pub lines: u32,
}

/// Every function with a body in `src`, nested ones included, except test
/// code: items marked `#[cfg(test)]` (a `mod tests` and all it holds) and
/// functions marked `#[test]`.
pub fn functions(src: &str) -> Vec<Function> {
    let toks = lex(src);
    let mut out = Vec::new();
    let mut i = 0;
    while i < toks.len() {
        if let Some(after) = test_attribute(&toks, i) {
            i = skip_item(&toks, after);
            continue;
        }
        if toks[i].is_ident("fn")
            && let Some(name) = toks.get(i + 1).and_then(Token::ident)
            && let Some(open) = body_start(&toks, i + 2)
            && let Some(close) = matching(&toks, open)
        {
            out.push(Function {
                name: name.to_string(),
                line: toks[i].line,
                lines: toks[close].line - toks[i].line + 1,
            });
        }
        i += 1;
    }
    out
}

/// The lines of `src` outside test code (items marked `#[cfg(test)]` or
/// `#[test]`, from the attribute to their end): what a reader of the
/// module reads.
pub fn code_lines(src: &str) -> u32 {
    let toks = lex(src);
    let total = src.lines().count() as u32;
    let mut test_lines = 0;
    let mut i = 0;
    while i < toks.len() {
        match test_attribute(&toks, i) {
            Some(after) => {
                let end = skip_item(&toks, after);
                let last = toks[end.min(toks.len()) - 1].line;
                test_lines += last - toks[i].line + 1;
                i = end;
            }
            None => i += 1,
        }
    }
    total - test_lines.min(total)
}

/// If an attribute `#[cfg(test)]` or `#[test]` starts at `i`, the index after it.
fn test_attribute(toks: &[Token], i: usize) -> Option<usize> {
    let shape = |k: usize, want: &[&str]| {
        want.iter().enumerate().all(|(j, w)| match toks.get(k + j).map(|t| &t.tok) {
            Some(Tok::Ident(s)) => s == w,
            Some(Tok::Punct(c)) => w.len() == 1 && w.starts_with(*c),
            _ => false,
        })
    };
    if shape(i, &["#", "[", "cfg", "(", "test", ")", "]"]) {
        Some(i + 7)
    } else if shape(i, &["#", "[", "test", "]"]) {
        Some(i + 4)
    } else {
        None
    }
}

/// The index after the item starting at `i` (its other attributes, then up
/// to its `;` or the brace closing its body).
fn skip_item(toks: &[Token], mut i: usize) -> usize {
    while toks.get(i).is_some_and(|t| t.is_punct('#')) {
        match toks.get(i + 1).filter(|t| t.is_punct('[')).and_then(|_| matching(toks, i + 1)) {
            Some(close) => i = close + 1,
            None => return toks.len(),
        }
    }
    let mut depth = 0i32;
    while i < toks.len() {
        match &toks[i].tok {
            Tok::Punct('(' | '[') => depth += 1,
            Tok::Punct(')' | ']') => depth -= 1,
            Tok::Punct(';') if depth == 0 => return i + 1,
            Tok::Punct('{') if depth == 0 => return matching(toks, i).map_or(toks.len(), |c| c + 1),
            _ => {}
        }
        i += 1;
    }
    toks.len()
}

/// The `{` opening the body of a function whose signature starts at `i`,
/// or `None` for a declaration without a body (`;` first).
fn body_start(toks: &[Token], mut i: usize) -> Option<usize> {
    let mut depth = 0i32;
    while i < toks.len() {
        match &toks[i].tok {
            Tok::Punct('(' | '[') => depth += 1,
            Tok::Punct(')' | ']') => depth -= 1,
            Tok::Punct(';') if depth == 0 => return None,
            Tok::Punct('{') if depth == 0 => return Some(i),
            _ => {}
        }
        i += 1;
    }
    None
}

/// The index of the bracket closing the one at `open`.
fn matching(toks: &[Token], open: usize) -> Option<usize> {
    let (o, c) = match toks[open].tok {
        Tok::Punct('{') => ('{', '}'),
        Tok::Punct('[') => ('[', ']'),
        Tok::Punct('(') => ('(', ')'),
        _ => return None,
    };
    let mut depth = 0;
    for (k, t) in toks.iter().enumerate().skip(open) {
        if t.is_punct(o) {
            depth += 1;
        } else if t.is_punct(c) {
            depth -= 1;
            if depth == 0 {
                return Some(k);
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_run_from_fn_to_the_closing_brace() {
        let src = "impl A {\n    pub async fn go(&self) -> Result<(), E>\n    where\n        E: Debug,\n    {\n        let s = \"}\";\n        // }\n    }\n}\n";
        assert_eq!(functions(src), [Function { name: "go".into(), line: 2, lines: 7 }]);
    }

    #[test]
    fn declarations_and_test_code_are_left_out() {
        let src = "trait T {\n    fn f(&self);\n    fn g(&self) {}\n}\n#[test]\nfn t() {\n}\n#[cfg(test)]\n#[allow(dead_code)]\nmod tests {\n    fn h() {}\n}\nfn after() {}\n";
        let found = functions(src);
        let names: Vec<&str> = found.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names, ["g", "after"]);
    }

    #[test]
    fn test_modules_are_not_code_lines() {
        let src = "fn a() {}\n\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn t() {}\n}\n";
        assert_eq!(code_lines(src), 2);
    }

    #[test]
    fn nested_functions_count_on_their_own() {
        let src = "fn outer() {\n    fn inner() {\n        1;\n    }\n}\n";
        let f = functions(src);
        assert_eq!((f[0].lines, f[1].lines), (5, 3));
    }
}
