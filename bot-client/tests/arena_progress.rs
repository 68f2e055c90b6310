//! The arena's progress bar: rate and ETA on a terminal, nothing on a pipe.

use std::io;
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use capicua_bot::progress::arena_bar;
use indicatif::{ProgressDrawTarget, TermLike};

/// A terminal that keeps everything written to it.
#[derive(Debug, Clone, Default)]
struct Screen(Arc<Mutex<String>>);

impl Screen {
    fn text(&self) -> String {
        self.0.lock().unwrap().clone()
    }
    fn push(&self, s: &str) -> io::Result<()> {
        self.0.lock().unwrap().push_str(s);
        Ok(())
    }
}

impl TermLike for Screen {
    fn width(&self) -> u16 {
        120
    }
    fn move_cursor_up(&self, _: usize) -> io::Result<()> {
        Ok(())
    }
    fn move_cursor_down(&self, _: usize) -> io::Result<()> {
        Ok(())
    }
    fn move_cursor_right(&self, _: usize) -> io::Result<()> {
        Ok(())
    }
    fn move_cursor_left(&self, _: usize) -> io::Result<()> {
        Ok(())
    }
    fn write_line(&self, s: &str) -> io::Result<()> {
        self.push(s)?;
        self.push("\n")
    }
    fn write_str(&self, s: &str) -> io::Result<()> {
        self.push(s)
    }
    fn clear_line(&self) -> io::Result<()> {
        Ok(())
    }
    fn flush(&self) -> io::Result<()> {
        Ok(())
    }
}

#[test]
fn the_bar_shows_games_done_games_per_second_and_an_eta() {
    let screen = Screen::default();
    let bar = arena_bar(1000, ProgressDrawTarget::term_like(Box::new(screen.clone())));
    bar.set_position(250);
    bar.tick();
    // The draw target may defer a draw by its refresh rate: wait for it.
    let deadline = Instant::now() + Duration::from_secs(10);
    while !screen.text().contains("250/1000") && Instant::now() < deadline {
        bar.tick();
        std::thread::yield_now();
    }
    let text = screen.text();
    assert!(text.contains("250/1000"), "{text:?}");
    assert!(text.contains("games/s"), "{text:?}");
    assert!(text.contains("ETA"), "{text:?}");
}

#[test]
fn an_arena_piped_to_another_program_prints_no_bar() {
    let out = Command::new(env!("CARGO_BIN_EXE_capicua-bot"))
        .args(["arena", "--variant", "latin", "--seats", "random,random,random,random", "--games", "20000"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .output()
        .expect("run capicua-bot");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(out.stderr.is_empty(), "stderr on a pipe: {:?}", String::from_utf8_lossy(&out.stderr));
    let stdout = String::from_utf8(out.stdout).expect("utf-8 report");
    assert!(stdout.contains("20000 games"), "{stdout}");
    for bar_sign in ['\r', '\u{1b}', '='] {
        assert!(!stdout.contains(bar_sign), "{bar_sign:?} in the report: {stdout:?}");
    }
}
