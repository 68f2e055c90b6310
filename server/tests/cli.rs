//! The `capicua-server` command line, run as a process against a temp database.

mod common;

use std::io::Read;
use std::process::{Command, Stdio};

use common::temp_db;

fn capicua_server() -> Command {
    Command::new(env!("CARGO_BIN_EXE_capicua-server"))
}

/// Runs `args` with stdout a pipe that is closed after `keep` bytes
/// (`| head -c keep`): (exit success, stderr).
fn with_stdout_closed_after(args: &[&str], keep: usize) -> (bool, String) {
    let mut child = capicua_server()
        .args(args)
        .env("RUST_LOG", "warn")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    let mut stdout = child.stdout.take().unwrap();
    let mut head = vec![0; keep];
    stdout.read_exact(&mut head).unwrap();
    drop(stdout);
    let out = child.wait_with_output().unwrap();
    (out.status.success(), String::from_utf8_lossy(&out.stderr).into_owned())
}

#[test]
fn output_to_a_closed_pipe_ends_quietly() {
    // The schema is larger than a pipe's buffer, so writing it must meet the
    // closed pipe.
    let (ok, stderr) = with_stdout_closed_after(&["schema"], 16);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(ok, "{stderr}");
    let db = temp_db();
    let (ok, stderr) = with_stdout_closed_after(&["standings", "--database", db.to_str().unwrap()], 1);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(ok, "{stderr}");
}
