//! A Rust tokenizer just precise enough to find paths: comments vanish,
//! string and char literals become single tokens (so a `"crate::x"` in a
//! message is never read as a path), `::` is one token.

/// What a token is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Tok {
    /// An identifier or keyword (`r#type` is read as `type`).
    Ident(String),
    /// A string literal's contents (escapes left as written).
    Str(String),
    /// A number, char or byte literal: nothing to look into.
    Literal,
    /// A lifetime or loop label.
    Lifetime,
    /// `::`.
    PathSep,
    /// Any other punctuation, one character at a time.
    Punct(char),
}

/// A token and the line it starts on (1-based).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Token {
    pub(crate) tok: Tok,
    pub(crate) line: u32,
}

impl Token {
    /// Whether this is the identifier `name`.
    pub(crate) fn is_ident(&self, name: &str) -> bool {
        matches!(&self.tok, Tok::Ident(s) if s == name)
    }

    /// Whether this is the punctuation `c`.
    pub(crate) fn is_punct(&self, c: char) -> bool {
        self.tok == Tok::Punct(c)
    }

    /// The identifier, if this is one.
    pub(crate) fn ident(&self) -> Option<&str> {
        match &self.tok {
            Tok::Ident(s) => Some(s),
            _ => None,
        }
    }
}

/// Splits `src` into tokens. Never fails: text it does not understand
/// becomes punctuation, which is harmless for finding paths.
pub(crate) fn lex(src: &str) -> Vec<Token> {
    let c: Vec<char> = src.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    let mut line = 1u32;
    // Counts the newlines of c[from..to] into `line`.
    let count = |from: usize, to: usize, line: &mut u32| {
        *line += c[from..to.min(c.len())].iter().filter(|&&ch| ch == '\n').count() as u32;
    };
    while i < c.len() {
        let ch = c[i];
        let start_line = line;
        if ch == '\n' {
            line += 1;
            i += 1;
        } else if ch.is_whitespace() {
            i += 1;
        } else if ch == '/' && c.get(i + 1) == Some(&'/') {
            while i < c.len() && c[i] != '\n' {
                i += 1;
            }
        } else if ch == '/' && c.get(i + 1) == Some(&'*') {
            // Block comments nest in Rust.
            let mut depth = 0;
            let from = i;
            while i < c.len() {
                if c[i] == '/' && c.get(i + 1) == Some(&'*') {
                    depth += 1;
                    i += 2;
                } else if c[i] == '*' && c.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
            count(from, i, &mut line);
        } else if let Some(end) = raw_string(&c, i) {
            let (body_from, body_to, next) = end;
            out.push(Token { tok: Tok::Str(c[body_from..body_to].iter().collect()), line: start_line });
            count(i, next, &mut line);
            i = next;
        } else if ch == '"' || ((ch == 'b' || ch == 'c') && c.get(i + 1) == Some(&'"')) {
            let open = if ch == '"' { i } else { i + 1 };
            let mut j = open + 1;
            while j < c.len() && c[j] != '"' {
                j += if c[j] == '\\' { 2 } else { 1 };
            }
            let end = j.min(c.len());
            out.push(Token { tok: Tok::Str(c[open + 1..end].iter().collect()), line: start_line });
            count(i, end, &mut line);
            i = end + 1;
        } else if ch == '\'' || (ch == 'b' && c.get(i + 1) == Some(&'\'')) {
            let open = if ch == '\'' { i } else { i + 1 };
            let next = c.get(open + 1).copied();
            if next == Some('\\') {
                // An escaped char: runs to the closing quote.
                let mut j = open + 2;
                while j < c.len() && c[j] != '\'' {
                    j += if c[j] == '\\' { 2 } else { 1 };
                }
                out.push(Token { tok: Tok::Literal, line: start_line });
                i = j + 1;
            } else if c.get(open + 2) == Some(&'\'') {
                out.push(Token { tok: Tok::Literal, line: start_line });
                i = open + 3;
            } else {
                // A lifetime or label: `'a`, `'static`, `'outer:`.
                let mut j = open + 1;
                while j < c.len() && is_ident_char(c[j]) {
                    j += 1;
                }
                out.push(Token { tok: Tok::Lifetime, line: start_line });
                i = j.max(open + 1);
            }
        } else if ch == 'r' && c.get(i + 1) == Some(&'#') && c.get(i + 2).is_some_and(|&n| is_ident_start(n)) {
            let mut j = i + 2;
            while j < c.len() && is_ident_char(c[j]) {
                j += 1;
            }
            out.push(Token { tok: Tok::Ident(c[i + 2..j].iter().collect()), line: start_line });
            i = j;
        } else if is_ident_start(ch) {
            let mut j = i;
            while j < c.len() && is_ident_char(c[j]) {
                j += 1;
            }
            out.push(Token { tok: Tok::Ident(c[i..j].iter().collect()), line: start_line });
            i = j;
        } else if ch.is_ascii_digit() {
            let mut j = i;
            while j < c.len() && (is_ident_char(c[j])) {
                j += 1;
            }
            out.push(Token { tok: Tok::Literal, line: start_line });
            i = j;
        } else if ch == ':' && c.get(i + 1) == Some(&':') {
            out.push(Token { tok: Tok::PathSep, line: start_line });
            i += 2;
        } else {
            out.push(Token { tok: Tok::Punct(ch), line: start_line });
            i += 1;
        }
    }
    out
}

fn is_ident_start(c: char) -> bool {
    c == '_' || c.is_alphabetic()
}

fn is_ident_char(c: char) -> bool {
    c == '_' || c.is_alphanumeric()
}

/// A raw string (`r"…"`, `r#"…"#`, `br#"…"#`, `cr"…"`) starting at `i`:
/// the bounds of its body and the index after it.
fn raw_string(c: &[char], i: usize) -> Option<(usize, usize, usize)> {
    let mut j = i;
    if matches!(c.get(j), Some('b') | Some('c')) {
        j += 1;
    }
    if c.get(j) != Some(&'r') {
        return None;
    }
    j += 1;
    let mut hashes = 0;
    while c.get(j) == Some(&'#') {
        hashes += 1;
        j += 1;
    }
    if c.get(j) != Some(&'"') {
        return None;
    }
    let body = j + 1;
    let mut k = body;
    while k < c.len() {
        if c[k] == '"' && (1..=hashes).all(|h| c.get(k + h) == Some(&'#')) {
            return Some((body, k, k + 1 + hashes));
        }
        k += 1;
    }
    Some((body, c.len(), c.len()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn idents(src: &str) -> Vec<String> {
        lex(src).into_iter().filter_map(|t| t.ident().map(str::to_owned)).collect()
    }

    #[test]
    fn comments_and_literals_hide_their_contents() {
        let src =
            "a // crate::x\n/* b /* nested crate */ still */ c \"crate::y\" r#\"crate::\"z\"# 'd' '\\'' b'e' 'life d2";
        assert_eq!(idents(src), ["a", "c", "d2"]);
    }

    #[test]
    fn lines_count_through_comments_and_strings() {
        let toks = lex("a\n/* x\n y */ b \"s\ns\" c\nr#\"\n\"# d");
        let lines: Vec<u32> = toks.iter().filter(|t| t.ident().is_some()).map(|t| t.line).collect();
        assert_eq!(lines, [1, 3, 4, 6]);
    }

    #[test]
    fn path_separators_and_raw_identifiers() {
        let toks = lex("crate::r#type::X");
        assert_eq!(toks[1].tok, Tok::PathSep);
        assert!(toks[2].is_ident("type"));
    }
}
