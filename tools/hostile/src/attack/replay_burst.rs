//! `replay-burst`: pages of a long game's replay asked as fast as they
//! come, over several kept-alive connections, every answer read to its
//! end: the reader `replay` is not, as greedy as a client can be. What
//! the server answers each second: pages (`200`) or `429`.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::long_game::{self, LongGameArgs};
use super::{Ctx, Tally, hold_noting};
use crate::client;
use crate::http::{KeepAlive, Server};

/// `capicua-hostile replay-burst`.
#[derive(clap::Args, Clone, Debug)]
pub struct Args {
    /// The game replayed.
    #[command(flatten)]
    pub game: LongGameArgs,
    /// Connections asking at once, each kept alive.
    #[arg(long, default_value_t = 16)]
    pub parallel: usize,
    /// Steps a page asks for (`limit`).
    #[arg(long, default_value_t = 1000)]
    pub limit: u32,
    /// How long the attack lasts.
    #[arg(long, default_value_t = 30)]
    pub seconds: u64,
}

/// Answers by the second they ended in: pages, `429`s, anything else.
#[derive(Default)]
struct Seconds {
    counts: Vec<[u64; 3]>,
    bytes: u64,
    other: Tally,
}

impl Seconds {
    fn count(&mut self, second: usize, kind: usize) {
        if self.counts.len() <= second {
            self.counts.resize(second + 1, [0; 3]);
        }
        self.counts[second][kind] += 1;
    }

    /// `200/429` of each second from `from`, and the others.
    fn line(&self, from: usize) -> String {
        let each: Vec<String> =
            self.counts.iter().skip(from).map(|[ok, limited, _]| format!("{ok}/{limited}")).collect();
        let (ok, limited, other) = self.counts.iter().fold((0, 0, 0), |(a, b, c), s| (a + s[0], b + s[1], c + s[2]));
        format!(
            "200/429 per second from {from} s: {}; in all 200 {ok}, 429 {limited}, other {other} ({}), {:.1} MiB read",
            each.join(" "),
            self.other,
            self.bytes as f64 / 1048576.0
        )
    }
}

/// Runs the attack.
pub async fn run(ctx: &Ctx, args: &Args) -> anyhow::Result<()> {
    let id = long_game::game(ctx, &args.game).await?;
    ctx.begin().await;
    let t0 = Instant::now();
    let deadline = t0 + Duration::from_secs(args.seconds);
    let path = format!("/api/games/{id}?from=0&limit={}", args.limit);
    let seconds = Arc::new(Mutex::new(Seconds::default()));
    let mut askers = tokio::task::JoinSet::new();
    for _ in 0..args.parallel {
        let (server, path, seconds) = (ctx.server.clone(), path.clone(), seconds.clone());
        askers.spawn(async move { ask(server, &path, t0, deadline, &seconds).await });
    }
    let mut noted = 0;
    hold_noting(ctx, deadline, Duration::from_secs(5), || {
        let line = seconds.lock().expect("seconds lock").line(noted);
        noted = t0.elapsed().as_secs() as usize;
        line
    })
    .await;
    // Each ends at the deadline; one still reading then is dropped.
    let ended = async {
        let mut opened = 0;
        while let Some(done) = askers.join_next().await {
            opened += done.unwrap_or(0);
        }
        opened
    };
    let opened = tokio::time::timeout(Duration::from_secs(5), ended).await.unwrap_or(0);
    ctx.note(format!(
        "GET {path} over {} connections: {}",
        args.parallel,
        seconds.lock().expect("seconds lock").line(0)
    ));
    if opened > 0 {
        ctx.note(format!("connections opened: {opened}"));
    }
    Ok(())
}

/// One kept-alive connection asking for `path` again and again until
/// `deadline`; returns the connections it opened.
async fn ask(server: Server, path: &str, t0: Instant, deadline: Instant, seconds: &Mutex<Seconds>) -> u64 {
    let mut conn = KeepAlive::new(server);
    while Instant::now() < deadline {
        let answer = tokio::time::timeout_at(deadline.into(), conn.get(path, 256)).await;
        let Ok(answer) = answer else { break };
        let second = t0.elapsed().as_secs() as usize;
        let failed = {
            let mut s = seconds.lock().expect("seconds lock");
            match answer {
                Ok(r) => {
                    s.bytes += r.bytes as u64;
                    let kind = match r.status {
                        200 => 0,
                        429 => 1,
                        status => {
                            s.other.add(format!("HTTP {status}"));
                            2
                        }
                    };
                    s.count(second, kind);
                    false
                }
                Err(e) => {
                    s.count(second, 2);
                    s.other.add(client::why(&e));
                    true
                }
            }
        };
        // A refused connection: not a spin.
        if failed {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
    conn.opened
}
