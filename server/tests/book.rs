//! The book (`book/src`, served at `/docs/`) and the README stay true:
//! every page is served and every link and anchor in it resolves; the CLI
//! and environment pages are the binaries' own clap definitions; every
//! shell block parses and names real subcommands and flags; blocks marked
//! `sh,runnable` run against a server started for their page; blocks that
//! show a repository file equal it; the protocol reference names every
//! message and field of the JSON Schema.
//!
//! `CAPICUA_BLESS=1 cargo test -p capicua-server --test book` rewrites the
//! generated pages (CLI options, environment variables).

mod common;

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::TestServer;
use serde_json::Value;

const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
const SERVER: &str = env!("CARGO_BIN_EXE_capicua-server");

fn book(rel: &str) -> PathBuf {
    Path::new(ROOT).join("book/src").join(rel)
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The bot binary, built beside the server's by `cargo test --workspace`.
fn bot_binary() -> PathBuf {
    let bot = Path::new(SERVER).with_file_name("capicua-bot");
    assert!(bot.exists(), "{} is missing: build it first (cargo build -p capicua-bot)", bot.display());
    bot
}

/// The pages of SUMMARY.md, in order.
fn pages() -> Vec<String> {
    read(&book("SUMMARY.md"))
        .lines()
        .filter_map(|l| l.split_once("](").and_then(|(_, rest)| rest.split_once(')')).map(|(p, _)| p.to_string()))
        .collect()
}

/// Every Markdown file the tests read: the book's pages and the README.
fn documents() -> Vec<(String, String)> {
    let mut docs: Vec<(String, String)> =
        pages().into_iter().map(|p| (format!("book/src/{p}"), read(&book(&p)))).collect();
    docs.push(("README.md".into(), read(&Path::new(ROOT).join("README.md"))));
    docs
}

/// A fenced code block.
#[derive(Debug)]
struct Block {
    doc: String,
    line: usize,
    info: String,
    text: String,
}

/// The fenced blocks of `markdown` (fences of three or more backticks,
/// indented or not; the block's lines lose the fence's indentation).
fn blocks(doc: &str, markdown: &str) -> Vec<Block> {
    let mut out = Vec::new();
    let mut open: Option<(usize, usize, String, String, String)> = None;
    for (n, line) in markdown.lines().enumerate() {
        let trimmed = line.trim_start();
        let indent = line.len() - trimmed.len();
        match &mut open {
            None => {
                if let Some(rest) = trimmed.strip_prefix("```") {
                    let fence = format!("```{}", rest.chars().take_while(|c| *c == '`').collect::<String>());
                    let info = rest.trim_start_matches('`').trim().to_string();
                    open = Some((n + 1, indent, fence, info, String::new()));
                }
            }
            Some((start, ind, fence, info, text)) => {
                if trimmed.starts_with(fence.as_str()) && trimmed.trim_end().chars().all(|c| c == '`') {
                    out.push(Block { doc: doc.to_string(), line: *start, info: info.clone(), text: text.clone() });
                    open = None;
                } else {
                    let cut = line.char_indices().nth((*ind).min(indent)).map(|(i, _)| i).unwrap_or(line.len());
                    text.push_str(&line[cut.min(line.len())..]);
                    text.push('\n');
                }
            }
        }
    }
    assert!(open.is_none(), "{doc}: a code block is never closed");
    out
}

fn is_shell(info: &str) -> bool {
    matches!(info.split(',').next(), Some("sh" | "bash" | "shell"))
}

fn runnable(info: &str) -> bool {
    info.split(',').any(|w| w.trim() == "runnable")
}

// ---------------------------------------------------------------- links

/// `href="..."`, `src="..."` and `id="..."` values of an HTML page.
fn attrs(html: &str, name: &str) -> Vec<String> {
    let key = format!(" {name}=\"");
    html.match_indices(&key)
        .filter_map(|(at, _)| {
            let rest = &html[at + key.len()..];
            rest.find('"').map(|end| rest[..end].replace("&amp;", "&"))
        })
        .collect()
}

/// `base` (a served path such as `/docs/bots/python.html`) joined with a
/// relative link.
fn join(base: &str, link: &str) -> String {
    if link.starts_with('/') {
        return link.to_string();
    }
    let mut parts: Vec<&str> = base.split('/').collect();
    parts.pop();
    for seg in link.split('/') {
        match seg {
            "." => {}
            ".." => {
                parts.pop();
            }
            s => parts.push(s),
        }
    }
    parts.join("/")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_page_is_served_and_every_link_and_anchor_in_the_book_and_readme_resolves() {
    let server = TestServer::start().await;
    let pages = pages();
    assert!(pages.len() >= 20, "the summary lists the book's pages: {pages:?}");
    // No page outside the summary: a page nobody can reach is a page that drifts.
    let mut on_disk = Vec::new();
    let mut stack = vec![book("")];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "md") && !p.ends_with("SUMMARY.md") {
                on_disk.push(p.strip_prefix(book("")).unwrap().to_string_lossy().into_owned());
            }
        }
    }
    for p in &on_disk {
        assert!(pages.contains(p), "book/src/{p} is not in SUMMARY.md");
    }
    let mut served: HashMap<String, (u16, String)> = HashMap::new();
    let mut get = async |path: &str| -> (u16, String) {
        if let Some(hit) = served.get(path) {
            return hit.clone();
        }
        let got = server.get(path).await;
        served.insert(path.to_string(), got.clone());
        got
    };
    let mut broken = Vec::new();
    for page in &pages {
        let path = format!("/docs/{}", page.replace(".md", ".html"));
        let (status, html) = get(&path).await;
        assert_eq!(status, 200, "{path}");
        let title = read(&book(page)).lines().next().unwrap_or_default().trim_start_matches("# ").to_string();
        assert!(html.contains(&format!("<title>{} · capicua manual</title>", title.replace('&', "&amp;"))), "{path}");
        let ids: BTreeSet<String> = attrs(&html, "id").into_iter().collect();
        let links: Vec<String> = attrs(&html, "href").into_iter().chain(attrs(&html, "src")).collect();
        for link in links {
            if link.contains("://") || link.starts_with("mailto:") {
                continue;
            }
            let (target, anchor) = match link.split_once('#') {
                Some((t, a)) => (t.to_string(), Some(a.to_string())),
                None => (link.clone(), None),
            };
            let (status, body) = if target.is_empty() { (200, html.clone()) } else { get(&join(&path, &target)).await };
            if status != 200 {
                broken.push(format!("{page}: {link} answers {status}"));
                continue;
            }
            if let Some(a) = anchor {
                let found = if target.is_empty() { ids.contains(&a) } else { attrs(&body, "id").contains(&a) };
                if !found {
                    broken.push(format!("{page}: {link}: no heading with that id"));
                }
            }
        }
    }
    // The README's links: into the book (with anchors, as served), or to
    // files of the repository.
    let readme = read(&Path::new(ROOT).join("README.md"));
    for (rest, _) in readme.match_indices("](") {
        let Some(end) = readme[rest + 2..].find(')') else { continue };
        let link = &readme[rest + 2..rest + 2 + end];
        if link.contains("://") || link.starts_with('#') || link.starts_with("mailto:") {
            continue;
        }
        let (file, anchor) = link.split_once('#').map_or((link, None), |(f, a)| (f, Some(a)));
        if !Path::new(ROOT).join(file).exists() {
            broken.push(format!("README.md: {link}: no such file"));
            continue;
        }
        if let (Some(page), Some(a)) = (file.strip_prefix("book/src/"), anchor) {
            let (_, html) = get(&format!("/docs/{}", page.replace(".md", ".html"))).await;
            if !attrs(&html, "id").iter().any(|id| id == a) {
                broken.push(format!("README.md: {link}: no heading with that id"));
            }
        }
    }
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
    // The way in, and the ways out of the book.
    let (status, _) = server.get("/docs").await;
    assert!(status == 308 || status == 301, "/docs redirects to /docs/ ({status})");
    let (status, html) = server.get("/docs/").await;
    assert_eq!(status, 200);
    assert!(html.contains("aria-current=\"page\""), "the first page marks itself in the chapter list");
    for bad in ["/docs/nope.html", "/docs/../Cargo.toml", "/docs/%2e%2e/Cargo.toml", "/docs/SUMMARY.toml"] {
        assert_eq!(server.get(bad).await.0, 404, "{bad}");
    }
}

// ------------------------------------------------------- generated pages

/// Writes `generated` to `page` under `CAPICUA_BLESS=1`, else checks it.
fn generated(page: &str, text: &str) {
    let path = book(page);
    if std::env::var_os("CAPICUA_BLESS").is_some() {
        std::fs::write(&path, text).unwrap();
        return;
    }
    let on_disk = std::fs::read_to_string(&path).unwrap_or_default();
    if on_disk != text {
        let first = on_disk.lines().zip(text.lines()).position(|(a, b)| a != b).unwrap_or(0);
        panic!(
            "book/src/{page} is generated from the binaries' clap definitions and differs at line {}: \
             run CAPICUA_BLESS=1 cargo test -p capicua-server --test book\n  book: {:?}\n  now:  {:?}",
            first + 1,
            on_disk.lines().nth(first),
            text.lines().nth(first)
        );
    }
}

fn output(bin: &Path, args: &[&str]) -> String {
    let out = Command::new(bin)
        .args(args)
        // The help shows an environment variable's value when it is set.
        .env_clear()
        .output()
        .unwrap_or_else(|e| panic!("{}: {e}", bin.display()));
    assert!(out.status.success(), "{} {args:?}: {}", bin.display(), String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

/// Every command path of a clap-markdown page (`capicua-server tournament create`).
fn command_paths(reference: &str) -> Vec<Vec<String>> {
    reference
        .lines()
        .filter_map(|l| l.strip_prefix("## `").and_then(|r| r.strip_suffix('`')))
        .map(|p| p.split(' ').map(str::to_string).collect())
        .collect()
}

/// The environment variables `bin`'s commands read, from their own help:
/// (variable, command, option, its help's first sentence).
fn environment(bin: &Path, reference: &str) -> Vec<(String, String, String, String)> {
    let mut out = Vec::new();
    for path in command_paths(reference) {
        let mut args: Vec<&str> = path[1..].iter().map(String::as_str).collect();
        args.push("--help");
        let help = output(bin, &args);
        // Each option's lines: its `--name` line, then its wrapped help.
        let mut options: Vec<(String, String)> = Vec::new();
        for line in help.lines() {
            let t = line.trim();
            let is_option = line.starts_with("  ") && !line.starts_with("          ") && t.starts_with('-');
            if is_option {
                let name = t.split([' ', ',', '=']).find(|w| w.starts_with("--")).unwrap_or(t).to_string();
                // Short help keeps the text on the option's line, after two spaces.
                let text = t.split_once("  ").map(|(_, text)| text.trim().to_string()).unwrap_or_default();
                options.push((name, text));
            } else if let Some((_, text)) = options.last_mut()
                && !t.is_empty()
            {
                text.push(' ');
                text.push_str(t);
            }
        }
        for (option, text) in options {
            let Some(at) = text.find("[env:") else { continue };
            let name: String = text[at + 5..].trim_start().chars().take_while(|c| *c != '=' && *c != ']').collect();
            let meaning = text[..at].trim();
            let meaning = match meaning.find(". ") {
                Some(end) => &meaning[..=end],
                None => meaning,
            };
            out.push((name, path.join(" "), option, meaning.trim().to_string()));
        }
    }
    out
}

#[test]
fn the_cli_and_environment_pages_are_the_binaries_own_definitions() {
    let bot = bot_binary();
    let server_ref = output(Path::new(SERVER), &["markdown-help"]);
    let bot_ref = output(&bot, &["markdown-help"]);
    for (page, text, needles) in [
        ("running/cli-server.md", &server_ref, ["capicua-server serve", "--listen"]),
        ("running/cli-bot.md", &bot_ref, ["capicua-bot play", "--register"]),
    ] {
        for n in needles {
            assert!(text.contains(n), "{page} names {n}");
        }
        generated(page, text);
    }
    // One row per variable: its option, the commands that read it, and
    // what it means.
    type Row = (BTreeMap<String, BTreeSet<String>>, String);
    let mut vars: BTreeMap<String, Row> = BTreeMap::new();
    for (bin, reference) in [(Path::new(SERVER), &server_ref), (bot.as_path(), &bot_ref)] {
        for (name, command, option, meaning) in environment(bin, reference) {
            let e = vars.entry(name).or_insert_with(|| (BTreeMap::new(), meaning.clone()));
            e.0.entry(option).or_default().insert(command);
        }
    }
    for want in ["CAPICUA_LISTEN", "CAPICUA_DATABASE", "CAPICUA_PUBLIC_URL", "CAPICUA_ADMIN_TOKEN", "CAPICUA_TOKEN"] {
        assert!(vars.contains_key(want), "{want} is read: {:?}", vars.keys());
    }
    let mut page = String::from(
        "# Environment variables\n\n\
         Every option below can be set by its environment variable instead of on the command line \
         (the command line wins when both are given). This page is generated from the binaries' own \
         option definitions; [capicua-server options](cli-server.md) and \
         [capicua-bot options](cli-bot.md) give each option in full.\n\n\
         | Variable | Option | Read by | Meaning |\n|---|---|---|---|\n",
    );
    for (name, (options, meaning)) in &vars {
        for (option, commands) in options {
            // By binary: "every command" for a global option, else its
            // subcommands.
            let mut by_bin: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
            for c in commands {
                let (bin, sub) = c.split_once(' ').unwrap_or((c.as_str(), ""));
                by_bin.entry(bin).or_default().push(sub);
            }
            let read_by: Vec<String> = by_bin
                .iter()
                .map(|(bin, subs)| {
                    if subs.contains(&"") {
                        format!("every `{bin}` command")
                    } else {
                        let subs: Vec<String> = subs.iter().map(|s| format!("`{s}`")).collect();
                        format!("`{bin}` {}", subs.join(", "))
                    }
                })
                .collect();
            page.push_str(&format!(
                "| `{name}` | `{option}` | {} | {} |\n",
                read_by.join("; "),
                meaning.replace('|', "\\|")
            ));
        }
    }
    generated("running/environment.md", &page);
}

// ---------------------------------------------------------- shell blocks

/// Words of a shell line, quotes honoured (enough for the book's commands).
fn words(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    let mut quote: Option<char> = None;
    let mut any = false;
    for c in line.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => word.push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                any = true;
            }
            (None, c) if c.is_whitespace() => {
                if any || !word.is_empty() {
                    out.push(std::mem::take(&mut word));
                }
                any = false;
            }
            (None, c) => word.push(c),
        }
    }
    if any || !word.is_empty() {
        out.push(word);
    }
    out
}

/// Commands and their options, from a clap-markdown page.
fn options_by_command(reference: &str) -> BTreeMap<String, BTreeSet<String>> {
    let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut current = String::new();
    for line in reference.lines() {
        if let Some(p) = line.strip_prefix("## `").and_then(|r| r.strip_suffix('`')) {
            current = p.to_string();
            out.entry(current.clone()).or_default();
        } else if line.starts_with("* `-") {
            // `* `-c`, `--count <COUNT>` — ...`: every flag named in backticks.
            let flags = line
                .split(" — ")
                .next()
                .unwrap_or_default()
                .split('`')
                .skip(1)
                .step_by(2)
                .filter_map(|t| t.split(' ').next())
                .filter(|f| f.starts_with('-'));
            out.get_mut(&current).unwrap().extend(flags.map(str::to_string));
        }
    }
    out
}

/// What is wrong with the capicua command lines of a shell block.
fn check_commands(text: &str, refs: &[(&str, BTreeMap<String, BTreeSet<String>>)]) -> Vec<String> {
    let mut problems = Vec::new();
    let joined = text.replace("\\\n", " ");
    for line in joined.lines() {
        let line = line.split(" #").next().unwrap_or(line);
        if line.trim_start().starts_with('#') {
            continue;
        }
        // Each simple command of the line.
        for part in line.split(['|', ';', '&', '(', ')', '`']) {
            let mut w = words(part);
            // `NAME=value command ...`: the command.
            while w.first().is_some_and(|t| t.contains('=') && !t.starts_with('-')) {
                w.remove(0);
            }
            // Cargo builds, tests and runs examples by package name: only
            // `cargo run [--release] -p BIN -- ARGS` hands ARGS to a binary.
            if w.first().is_some_and(|t| t == "cargo") {
                let runs_binary = w.get(1).is_some_and(|t| t == "run")
                    && !w.iter().take_while(|t| *t != "--").any(|t| t == "--example" || t == "--bin");
                if runs_binary
                    && let Some(p) = w.iter().position(|t| t == "-p")
                    && let Some(bin) = w.get(p + 1)
                    && let Some((name, r)) = refs.iter().find(|(b, _)| b == bin)
                {
                    let args = w.iter().position(|t| t == "--").map_or(&[][..], |dash| &w[dash + 1..]);
                    problems.extend(check_args(name, r, args, line));
                }
                continue;
            }
            let named = |t: &String, b: &str| t == b || t.ends_with(&format!("/{b}"));
            let Some(at) = w.iter().position(|t| refs.iter().any(|(b, _)| named(t, b))) else { continue };
            let (bin, reference) = refs.iter().find(|(b, _)| named(&w[at], b)).unwrap();
            problems.extend(check_args(bin, reference, &w[at + 1..], line));
        }
    }
    problems
}

fn check_args(bin: &str, reference: &BTreeMap<String, BTreeSet<String>>, args: &[String], line: &str) -> Vec<String> {
    let mut path = bin.to_string();
    let mut allowed: BTreeSet<String> = ["--help", "-h", "--version", "-V"].into_iter().map(String::from).collect();
    allowed.extend(reference.get(&path).cloned().unwrap_or_default());
    let mut problems = Vec::new();
    for a in args {
        if a.starts_with('>') || a.starts_with('<') || a == "2>&1" {
            break;
        }
        if a == "--" {
            continue;
        }
        if let Some(flag) = a.strip_prefix("--").map(|f| format!("--{}", f.split('=').next().unwrap())) {
            if !allowed.contains(&flag) {
                problems.push(format!("`{path}` has no option {flag}: {line}"));
            }
        } else if !a.starts_with('-') && reference.contains_key(&format!("{path} {a}")) {
            path = format!("{path} {a}");
            allowed.extend(reference[&path].iter().cloned());
        }
    }
    problems
}

#[test]
fn every_shell_block_parses_and_names_real_subcommands_and_options() {
    let refs = [
        ("capicua-server", options_by_command(&output(Path::new(SERVER), &["markdown-help"]))),
        ("capicua-bot", options_by_command(&output(&bot_binary(), &["markdown-help"]))),
    ];
    assert!(refs[0].1["capicua-server serve"].contains("--listen"), "{:?}", refs[0].1.get("capicua-server serve"));
    let mut problems = Vec::new();
    let mut n = 0;
    for (doc, text) in documents() {
        for b in blocks(&doc, &text).into_iter().filter(|b| is_shell(&b.info)) {
            n += 1;
            let mut child =
                Command::new("bash").arg("-n").stdin(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("bash");
            use std::io::Write;
            child.stdin.take().unwrap().write_all(b.text.as_bytes()).unwrap();
            let out = child.wait_with_output().unwrap();
            if !out.status.success() {
                problems.push(format!("{}:{}: bash -n: {}", b.doc, b.line, String::from_utf8_lossy(&out.stderr)));
            }
            for p in check_commands(&b.text, &refs) {
                problems.push(format!("{}:{}: {p}", b.doc, b.line));
            }
        }
    }
    assert!(n >= 20, "the book shows shell commands ({n})");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_checker_catches_a_renamed_flag_and_an_unknown_subcommand_flag() {
    let reference = options_by_command(
        "## `capicua-server`\n\n* `--allow-foreign-tables`\n\n## `capicua-server serve`\n\n* `--listen <LISTEN>` — x\n",
    );
    let refs = [("capicua-server", reference)];
    assert!(check_commands("capicua-server serve --listen 0.0.0.0:80\n", &refs).is_empty());
    assert!(
        check_commands("cargo run -p capicua-server -- serve --listen=x --allow-foreign-tables\n", &refs).is_empty()
    );
    assert_eq!(check_commands("capicua-server serve --port 80\n", &refs).len(), 1);
    assert_eq!(check_commands("echo hi && target/debug/capicua-server serve \\\n  --prot x\n", &refs).len(), 1);
    assert!(
        check_commands("cargo build -p capicua-server --features x && cargo test -p capicua-server --test y\n", &refs)
            .is_empty()
    );
    assert_eq!(check_commands("FOO=1 cargo run --release -p capicua-server -- serve --prot 1\n", &refs).len(), 1);
}

// ------------------------------------------------------- runnable blocks

/// A port no one listens on now.
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// Runs `page`'s runnable blocks in order against a server of its own.
fn run_page(doc: &str, runnable: &[&Block], bins: &Path) -> Vec<String> {
    let dir = std::env::temp_dir().join(format!("capicua-book-{}-{}", std::process::id(), doc.replace('/', "_")));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let port = free_port();
    let token = "book-admin-token-0123456789";
    let path = format!("{}:{}", bins.display(), std::env::var("PATH").unwrap_or_default());
    let mut server = Command::new(SERVER)
        .args(["serve", "--database", "capicua.db", "--listen", &format!("127.0.0.1:{port}")])
        .current_dir(&dir)
        .env("CAPICUA_ADMIN_TOKEN", token)
        .env("RUST_LOG", "warn")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("the server");
    let up = Instant::now();
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(up.elapsed() < Duration::from_secs(30), "{doc}: the server never listened");
        std::thread::sleep(Duration::from_millis(50));
    }
    let mut problems = Vec::new();
    for b in runnable {
        let mut script = b.text.clone();
        for bin in ["capicua-server", "capicua-bot"] {
            for form in [format!("cargo run --release -p {bin} --"), format!("cargo run -p {bin} --")] {
                script = script.replace(&form, bin);
            }
        }
        let script = script.replace("8080", &port.to_string());
        // `curl` and `python3` (its standard library) are all a block may
        // use besides the two binaries; a machine with Rust alone may lack
        // them, and then the block is left out, said on stderr (CI, which
        // requires Python, has both).
        let missing: Vec<&str> =
            ["curl", "python3"].into_iter().filter(|tool| script.contains(tool) && !on_path(tool)).collect();
        if !missing.is_empty() {
            assert!(
                std::env::var_os("CAPICUA_REQUIRE_PYTHON").is_none(),
                "{}:{}: needs {missing:?}, not installed",
                b.doc,
                b.line
            );
            eprintln!("{}:{}: left out, {missing:?} not installed", b.doc, b.line);
            continue;
        }
        let started = Instant::now();
        let out = Command::new("timeout")
            .args(["120", "bash", "-euo", "pipefail", "-c", &script])
            .current_dir(&dir)
            .env("PATH", &path)
            .env("CAPICUA_ADMIN_TOKEN", token)
            .env("CAPICUA_SERVER", format!("http://127.0.0.1:{port}"))
            .env("CAPICUA_BOT_SERVER", format!("ws://127.0.0.1:{port}/ws"))
            .output()
            .expect("bash");
        eprintln!("{}:{}: ran in {:.1} s", b.doc, b.line, started.elapsed().as_secs_f64());
        if !out.status.success() {
            problems.push(format!(
                "{}:{}: exit {:?}\n--- script\n{script}--- stdout\n{}--- stderr\n{}",
                b.doc,
                b.line,
                out.status.code(),
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            ));
            break;
        }
    }
    let _ = server.kill();
    let _ = server.wait();
    let _ = std::fs::remove_dir_all(&dir);
    problems
}

#[test]
fn runnable_blocks_run_against_a_server_started_for_their_page() {
    let bins = tempdir_with_binaries();
    let docs = documents();
    let all: Vec<Block> = docs.iter().flat_map(|(doc, text)| blocks(doc, text)).collect();
    let runnable_blocks: Vec<&Block> = all.iter().filter(|b| is_shell(&b.info) && runnable(&b.info)).collect();
    assert!(runnable_blocks.len() >= 10, "the book marks its commands runnable ({})", runnable_blocks.len());
    let mut problems = Vec::new();
    for (doc, _) in &docs {
        let mine: Vec<&Block> = runnable_blocks.iter().copied().filter(|b| &b.doc == doc).collect();
        if !mine.is_empty() {
            problems.extend(run_page(doc, &mine, &bins));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
}

/// Whether `tool` is a program on PATH.
fn on_path(tool: &str) -> bool {
    std::env::var_os("PATH").is_some_and(|path| std::env::split_paths(&path).any(|dir| dir.join(tool).is_file()))
}

/// A folder holding `capicua-server` and `capicua-bot`, for PATH.
fn tempdir_with_binaries() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("capicua-book-bin-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (name, from) in [("capicua-server", PathBuf::from(SERVER)), ("capicua-bot", bot_binary())] {
        let to = dir.join(name);
        let _ = std::fs::remove_file(&to);
        std::os::unix::fs::symlink(&from, &to).unwrap();
    }
    dir
}

// ------------------------------------------------------------ file blocks

#[test]
fn blocks_that_show_a_repository_file_equal_it() {
    let mut n = 0;
    let mut problems = Vec::new();
    for (doc, text) in documents() {
        for b in blocks(&doc, &text) {
            let first = b.text.lines().next().unwrap_or_default();
            let Some(file) = first.strip_prefix("// File: ").or_else(|| first.strip_prefix("# File: ")) else {
                continue;
            };
            n += 1;
            let shown = &b.text[first.len() + 1..];
            let real = std::fs::read_to_string(Path::new(ROOT).join(file.trim())).unwrap_or_default();
            if shown.trim_end() != real.trim_end() {
                problems.push(format!("{}:{}: differs from {file}", b.doc, b.line));
            }
        }
    }
    assert!(n >= 1, "the book shows example files");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

// ------------------------------------------------------ protocol tables

/// The message kinds of one side of the schema: type name → (properties,
/// required ones).
fn messages(schema: &Value, side: &str) -> BTreeMap<String, (BTreeSet<String>, BTreeSet<String>)> {
    let root = &schema[side];
    let defs = root.get("$defs").or_else(|| root.get("definitions")).cloned().unwrap_or(Value::Null);
    let mut out = BTreeMap::new();
    for v in root.get("oneOf").or_else(|| root.get("anyOf")).and_then(Value::as_array).into_iter().flatten() {
        let (mut props, mut required) = (BTreeSet::new(), BTreeSet::new());
        collect(v, &defs, true, &mut props, &mut required);
        let name = v["properties"]["type"]["const"].as_str().or_else(|| v["properties"]["type"]["enum"][0].as_str());
        props.remove("type");
        props.remove("id");
        if let Some(name) = name {
            out.insert(name.to_string(), (props, required));
        }
    }
    out
}

/// The properties of a schema node, through `$ref`, `allOf` (whose
/// required ones stay required) and `oneOf`/`anyOf` (whose never are).
fn collect(v: &Value, defs: &Value, binding: bool, props: &mut BTreeSet<String>, required: &mut BTreeSet<String>) {
    if let Some(r) = v.get("$ref").and_then(Value::as_str) {
        collect(&defs[r.rsplit('/').next().unwrap()], defs, binding, props, required);
    }
    if let Some(p) = v.get("properties").and_then(Value::as_object) {
        props.extend(p.keys().cloned());
    }
    if binding {
        for r in v.get("required").and_then(Value::as_array).into_iter().flatten() {
            required.insert(r.as_str().unwrap_or_default().to_string());
        }
    }
    for part in v.get("allOf").and_then(Value::as_array).into_iter().flatten() {
        collect(part, defs, binding, props, required);
    }
    for key in ["oneOf", "anyOf"] {
        for part in v.get(key).and_then(Value::as_array).into_iter().flatten() {
            collect(part, defs, false, props, required);
        }
    }
}

/// The rows of the first table after `heading` in `page`: cells per row.
fn table_after(page: &str, heading: &str) -> Vec<Vec<String>> {
    let at = page.find(heading).unwrap_or_else(|| panic!("the protocol page has a heading {heading}"));
    page[at..]
        .lines()
        .skip_while(|l| !l.starts_with('|'))
        .take_while(|l| l.starts_with('|'))
        .skip(2)
        .map(|l| l.trim().trim_matches('|').split(" | ").map(|c| c.trim().to_string()).collect())
        .collect()
}

/// The backticked words of a cell.
fn ticked(cell: &str) -> Vec<String> {
    cell.split('`').skip(1).step_by(2).map(str::to_string).collect()
}

#[test]
fn the_protocol_reference_names_every_message_and_field_of_the_schema() {
    let schema: Value = serde_json::from_str(&output(Path::new(SERVER), &["schema"])).unwrap();
    let page = read(&book("bots/protocol.md"));
    let reference: String = pages()
        .iter()
        .filter(|p| p.starts_with("bots/protocol"))
        .map(|p| read(&book(p)))
        .collect::<Vec<_>>()
        .join("\n");
    let client = messages(&schema, "client");
    let server = messages(&schema, "server");
    assert!(client.len() >= 15 && server.len() >= 15, "the schema's messages: {client:?} {server:?}");
    let mut problems = Vec::new();
    // Client messages: one row each, every field, optional ones as `name?`.
    let rows = table_after(&page, "## Client messages");
    let mut seen = BTreeSet::new();
    for row in &rows {
        let Some(kind) = ticked(&row[0]).into_iter().next() else { continue };
        seen.insert(kind.clone());
        let Some((props, required)) = client.get(&kind) else {
            problems.push(format!("client message `{kind}` is in the book, not in the schema"));
            continue;
        };
        let cell = row.get(1).cloned().unwrap_or_default();
        let named: BTreeSet<String> = ticked(&cell).into_iter().collect();
        // Every field is listed; `name?` marks an optional one, and a
        // required one is never marked so. (An optional field may stand
        // without `?` where the row says it is one of several.)
        for p in props {
            let required = required.contains(p);
            if !named.contains(p) && !named.contains(&format!("{p}?")) {
                problems.push(format!("client message `{kind}`: the book does not list `{p}`"));
            } else if required && named.contains(&format!("{p}?")) {
                problems.push(format!("client message `{kind}`: `{p}` is required, the book writes `{p}?`"));
            }
        }
        for w in &named {
            if let Some(f) = w.strip_suffix('?')
                && !props.contains(f)
            {
                problems.push(format!("client message `{kind}`: the book lists `{w}`, not in the schema"));
            }
        }
    }
    for kind in client.keys() {
        if !seen.contains(kind) {
            problems.push(format!("client message `{kind}` has no row in the book's Client messages"));
        }
    }
    // Server messages: every kind in a row, every field named somewhere in
    // the reference.
    let rows = table_after(&page, "## Server messages");
    let mut seen = BTreeSet::new();
    for row in &rows {
        for kind in ticked(&row[0]) {
            if !server.contains_key(&kind) {
                problems.push(format!("server message `{kind}` is in the book, not in the schema"));
            }
            seen.insert(kind);
        }
    }
    for (kind, (props, _)) in &server {
        if !seen.contains(kind) {
            problems.push(format!("server message `{kind}` has no row in the book's Server messages"));
        }
        for p in props {
            if !reference.contains(&format!("`{p}`"))
                && !reference.contains(&format!("`{p}?`"))
                && !reference.contains(&format!("\"{p}\""))
            {
                problems
                    .push(format!("server message `{kind}`: field `{p}` is named nowhere in the protocol reference"));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
