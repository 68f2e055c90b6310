//! The manual at `/docs/`: the book's Markdown sources (`book/src/`),
//! embedded like the web client and rendered to HTML by the server itself,
//! so every capicua server carries the manual of its own version.
//!
//! `book/src/SUMMARY.md` orders the pages (mdBook's layout: the same
//! sources build a static site with `mdbook build book`). A page
//! `book/src/bots/python.md` is served at `/docs/bots/python.html`; links
//! between pages are written to `.md` files and served as `.html`, and
//! headings carry mdBook's ids, so an anchor works in both renderings.
//! Links that leave the book (to a file of the repository) are kept as text.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use axum::Router;
use axum::extract::Path;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::get;
use pulldown_cmark::{CowStr, Event, HeadingLevel, Options, Parser, Tag, TagEnd};
use rust_embed::RustEmbed;

/// The book's sources.
#[derive(RustEmbed)]
#[folder = "../book/src/"]
struct Book;

/// Pages: no scripts at all, styles from the site's own sheet.
const CSP: &str =
    "default-src 'none'; img-src 'self'; style-src 'self'; base-uri 'none'; frame-ancestors 'none'; form-action 'none'";

/// `/docs` and everything under it.
pub(crate) fn router<S: Clone + Send + Sync + 'static>() -> Router<S> {
    Router::new()
        .route("/docs", get(|| async { Redirect::permanent("/docs/") }))
        .route("/docs/", get(|headers: HeaderMap| async move { page("introduction.html", &headers) }))
        .route(
            "/docs/{*path}",
            get(|Path(path): Path<String>, headers: HeaderMap| async move { page(&path, &headers) }),
        )
}

/// The response for `path` (below `/docs/`).
fn page(path: &str, headers: &HeaderMap) -> Response {
    let clean = !path.split('/').any(|seg| seg.is_empty() || seg == ".." || seg == ".") && !path.contains('\\');
    if !clean {
        return not_found(path);
    }
    let (body, kind, hash) = if let Some(stem) = path.strip_suffix(".html") {
        let source = format!("{stem}.md");
        let Some(file) = Book::get(&source) else { return not_found(path) };
        // A page shows the chapter list too: its version is its source's
        // and the summary's, so an edited summary is never served stale
        // (the render cache and a browser's ETag both key on it).
        let mut hash = file.metadata.sha256_hash();
        if let Some(summary) = Book::get("SUMMARY.md") {
            for (h, s) in hash.iter_mut().zip(summary.metadata.sha256_hash()) {
                *h ^= s;
            }
        }
        (rendered(&source, &file.data, hash), "text/html; charset=utf-8", hash)
    } else {
        let kind = match path.rsplit_once('.').map(|(_, ext)| ext) {
            Some("png") => "image/png",
            Some("svg") => "image/svg+xml",
            // The Markdown sources themselves, for whoever wants them.
            Some("md") => "text/markdown; charset=utf-8",
            _ => return not_found(path),
        };
        let Some(file) = Book::get(path) else { return not_found(path) };
        let hash = file.metadata.sha256_hash();
        (Arc::from(file.data.into_owned()), kind, hash)
    };
    let etag = format!("\"{}\"", hash.iter().map(|b| format!("{b:02x}")).collect::<String>());
    let mut response = if headers.get(header::IF_NONE_MATCH).is_some_and(|v| v.as_bytes() == etag.as_bytes()) {
        StatusCode::NOT_MODIFIED.into_response()
    } else {
        let mut r = body.to_vec().into_response();
        r.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static(kind));
        r
    };
    let h = response.headers_mut();
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    if let Ok(v) = HeaderValue::from_str(&etag) {
        h.insert(header::ETAG, v);
    }
    h.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    h.insert(header::CONTENT_SECURITY_POLICY, HeaderValue::from_static(CSP));
    response
}

fn not_found(path: &str) -> Response {
    let body = format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Not in the manual</title>\
         <link rel=\"stylesheet\" href=\"/docs.css\"></head><body class=\"book\"><main class=\"book-page\">\
         <h1>Not in the manual</h1><p>There is no page <code>{}</code>. <a href=\"/docs/\">The manual's first page</a>.</p>\
         </main></body></html>",
        escape(path)
    );
    crate::web::html_not_found(body.into_bytes(), CSP)
}

/// A page rendered once per version of its source and the summary:
/// rendering is pure, so the cache is keyed by their hash (debug builds read the files
/// from disk, and an edited page renders again).
fn rendered(source: &str, markdown: &[u8], hash: [u8; 32]) -> Arc<[u8]> {
    type Cache = Mutex<HashMap<String, ([u8; 32], Arc<[u8]>)>>;
    static CACHE: OnceLock<Cache> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    if let Some((h, html)) = cache.lock().expect("docs cache").get(source)
        && *h == hash
    {
        return html.clone();
    }
    let summary = Book::get("SUMMARY.md").map(|f| String::from_utf8_lossy(&f.data).into_owned()).unwrap_or_default();
    let html: Arc<[u8]> = Arc::from(render_page(source, &String::from_utf8_lossy(markdown), &summary).into_bytes());
    cache.lock().expect("docs cache").insert(source.to_string(), (hash, html.clone()));
    html
}

/// mdBook's id for a heading's text: lowercase letters, digits, `-` and
/// `_`, a `-` for each space, everything else dropped.
pub(crate) fn slug(text: &str) -> String {
    text.chars()
        .filter_map(|c| {
            if c.is_alphanumeric() || c == '_' || c == '-' {
                Some(c.to_ascii_lowercase())
            } else if c.is_whitespace() {
                Some('-')
            } else {
                None
            }
        })
        .collect()
}

/// One entry of the summary: a part's title or a page.
#[derive(Debug, PartialEq)]
enum Entry {
    Part(String),
    Page { title: String, source: String, depth: usize },
}

/// The summary's entries in order (`# Part` lines, `[Title](file.md)` and
/// `- [Title](file.md)` lines, nested by two spaces).
fn summary_entries(summary: &str) -> Vec<Entry> {
    let mut out = Vec::new();
    for line in summary.lines() {
        let trimmed = line.trim_start();
        if let Some(title) = trimmed.strip_prefix("# ") {
            if title.trim() != "Summary" {
                out.push(Entry::Part(title.trim().to_string()));
            }
            continue;
        }
        let depth = (line.len() - trimmed.len()) / 2;
        let item = trimmed.strip_prefix("- ").unwrap_or(trimmed);
        if let Some(rest) = item.strip_prefix('[')
            && let Some((title, rest)) = rest.split_once("](")
            && let Some((source, _)) = rest.split_once(')')
        {
            out.push(Entry::Page { title: title.to_string(), source: source.to_string(), depth });
        }
    }
    out
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// `../` once per folder of `source`: the way back to `/docs/`.
fn to_root(source: &str) -> String {
    "../".repeat(source.matches('/').count())
}

/// A link of a page, as served: `.md` pages become `.html`, links that
/// leave the book become `None` (kept as text), others are kept.
fn served_link(source: &str, dest: &str) -> Option<String> {
    if dest.starts_with('#') || dest.contains("://") || dest.starts_with("mailto:") || dest.starts_with('/') {
        return Some(dest.to_string());
    }
    let (path, anchor) = match dest.split_once('#') {
        Some((p, a)) => (p, Some(a)),
        None => (dest, None),
    };
    // Resolve against the page's folder: a link climbing out of the book
    // names a repository file the server does not serve.
    let mut parts: Vec<&str> = source.split('/').collect();
    parts.pop();
    for seg in path.split('/') {
        match seg {
            "." | "" => {}
            ".." => {
                parts.pop()?;
            }
            s => parts.push(s),
        }
    }
    let target = parts.join("/");
    Book::get(&target)?;
    let path = match path.strip_suffix(".md") {
        Some(stem) => format!("{stem}.html"),
        None => path.to_string(),
    };
    Some(match anchor {
        Some(a) => format!("{path}#{a}"),
        None => path,
    })
}

/// The whole HTML page for `source`.
fn render_page(source: &str, markdown: &str, summary: &str) -> String {
    let root = to_root(source);
    let (body, title) = render_markdown(source, markdown);
    let entries = summary_entries(summary);
    let mut nav = String::from("<ol class=\"book-toc\">");
    let pages: Vec<(&str, &str)> = entries
        .iter()
        .filter_map(|e| match e {
            Entry::Page { title, source, .. } => Some((title.as_str(), source.as_str())),
            Entry::Part(_) => None,
        })
        .collect();
    for e in &entries {
        match e {
            Entry::Part(t) => nav.push_str(&format!("<li class=\"part\">{}</li>", escape(t))),
            Entry::Page { title, source: s, depth } => {
                let href = format!("{root}{}", s.replace(".md", ".html"));
                let current = if s == source { " aria-current=\"page\"" } else { "" };
                nav.push_str(&format!(
                    "<li class=\"depth-{depth}\"><a href=\"{}\"{current}>{}</a></li>",
                    escape(&href),
                    escape(title)
                ));
            }
        }
    }
    nav.push_str("</ol>");
    let at = pages.iter().position(|(_, s)| *s == source);
    let link = |i: Option<usize>, rel: &str, label: &str| match i.and_then(|i| pages.get(i)) {
        Some((t, s)) => format!(
            "<a rel=\"{rel}\" href=\"{}{}\">{label} {}</a>",
            root,
            escape(&s.replace(".md", ".html")),
            escape(t)
        ),
        None => String::new(),
    };
    let prev = link(at.and_then(|i| i.checked_sub(1)), "prev", "←");
    let next = link(at.map(|i| i + 1), "next", "→");
    format!(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>{title} · capicua manual</title><link rel=\"stylesheet\" href=\"{root}../docs.css\"></head>\
         <body class=\"book\"><header class=\"book-head\"><a href=\"{root}../\">capicua</a> · \
         <a href=\"{root}introduction.html\">Manual</a><a class=\"to-chapters\" href=\"#chapters\">Chapters</a></header><div class=\"book-layout\">\
         <nav class=\"book-nav\" id=\"chapters\" aria-label=\"Chapters\">{nav}</nav>\
         <main class=\"book-page\">{body}<footer class=\"book-pager\">{prev}{next}</footer></main></div></body></html>\n",
        title = escape(&title)
    )
}

/// The page's HTML and its title (its first heading).
fn render_markdown(source: &str, markdown: &str) -> (String, String) {
    let options = Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_FOOTNOTES;
    let events: Vec<Event> = Parser::new_ext(markdown, options).collect();
    let mut out: Vec<Event> = Vec::with_capacity(events.len());
    let mut title = None;
    let mut used: HashMap<String, usize> = HashMap::new();
    let mut skip_link_end = 0usize;
    let mut i = 0;
    while i < events.len() {
        match &events[i] {
            Event::Start(Tag::Heading { level, id: None, classes, attrs }) => {
                // The heading's text, as mdBook reads it for its id.
                let mut text = String::new();
                let mut j = i + 1;
                while j < events.len() && !matches!(events[j], Event::End(TagEnd::Heading(_))) {
                    if let Event::Text(t) | Event::Code(t) = &events[j] {
                        text.push_str(t);
                    }
                    j += 1;
                }
                if title.is_none() && *level == HeadingLevel::H1 {
                    title = Some(text.clone());
                }
                let base = slug(&text);
                let n = used.entry(base.clone()).or_insert(0);
                let id = if *n == 0 { base.clone() } else { format!("{base}-{n}") };
                *n += 1;
                out.push(Event::Start(Tag::Heading {
                    level: *level,
                    id: Some(CowStr::from(id)),
                    classes: classes.clone(),
                    attrs: attrs.clone(),
                }));
            }
            Event::Start(Tag::Link { link_type, dest_url, title: t, id }) => match served_link(source, dest_url) {
                Some(dest) => out.push(Event::Start(Tag::Link {
                    link_type: *link_type,
                    dest_url: CowStr::from(dest),
                    title: t.clone(),
                    id: id.clone(),
                })),
                None => skip_link_end += 1,
            },
            Event::End(TagEnd::Link) if skip_link_end > 0 => skip_link_end -= 1,
            Event::Start(Tag::Image { link_type, dest_url, title: t, id }) => {
                let dest = served_link(source, dest_url).unwrap_or_else(|| dest_url.to_string());
                out.push(Event::Start(Tag::Image {
                    link_type: *link_type,
                    dest_url: CowStr::from(dest),
                    title: t.clone(),
                    id: id.clone(),
                }));
            }
            e => out.push(e.clone()),
        }
        i += 1;
    }
    let mut html = String::with_capacity(markdown.len() * 3 / 2);
    pulldown_cmark::html::push_html(&mut html, out.into_iter());
    (html, title.unwrap_or_else(|| "capicua".to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugs_are_mdbooks() {
        assert_eq!(slug("TLS, behind a proxy"), "tls-behind-a-proxy");
        assert_eq!(slug("`buchholz-cut-1`"), "buchholz-cut-1");
        assert_eq!(slug("Tiles with 3, 4 or 6 faces"), "tiles-with-3-4-or-6-faces");
    }

    #[test]
    fn the_summary_lists_parts_and_nested_pages() {
        let e = summary_entries(
            "# Summary\n\n[Intro](introduction.md)\n\n# Bots\n\n- [A](bots/a.md)\n  - [B](bots/b.md)\n",
        );
        assert_eq!(
            e,
            vec![
                Entry::Page { title: "Intro".into(), source: "introduction.md".into(), depth: 0 },
                Entry::Part("Bots".into()),
                Entry::Page { title: "A".into(), source: "bots/a.md".into(), depth: 0 },
                Entry::Page { title: "B".into(), source: "bots/b.md".into(), depth: 1 },
            ]
        );
    }

    #[test]
    fn links_to_pages_become_html_and_links_out_of_the_book_become_text() {
        let (html, title) = render_markdown(
            "running/index.md",
            "# Serving\n\n## A b\n\n## A b\n\nSee [limits](limits.md#x), [intro](../introduction.md), \
             [code](../../server/src/main.rs) and [web](https://example.org).\n",
        );
        assert_eq!(title, "Serving");
        assert!(html.contains("<h2 id=\"a-b\">") && html.contains("<h2 id=\"a-b-1\">"), "{html}");
        assert!(html.contains("href=\"../introduction.html\""), "{html}");
        assert!(!html.contains("main.rs\""), "a link out of the book is text: {html}");
        assert!(html.contains(">code<") || html.contains("code and"), "{html}");
        assert!(html.contains("href=\"https://example.org\""), "{html}");
    }
}
