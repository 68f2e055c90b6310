//! `review`: reviews of a long game that nobody waits for. A few
//! `GET /api/games/{id}/review?seat=0` are sent and hung up after a few
//! seconds; then a seated player asks for a `hint` every few seconds in an
//! unrated room (are the analysis slots still taken by the abandoned
//! reviews?), while one more review waits for its answer.

use std::time::{Duration, Instant};

use anyhow::Context;
use capicua_protocol::ClientMsg;
use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use super::long_game::{self, LongGameArgs};
use super::{Ctx, Tally};
use crate::client::{self, Conn, EVENTS_PREFIX, Rng};
use crate::http;
use crate::stats::Summary;

/// `capicua-hostile review`.
#[derive(clap::Args, Clone, Debug)]
pub struct Args {
    /// The game reviewed.
    #[command(flatten)]
    pub game: LongGameArgs,
    /// Reviews sent and hung up.
    #[arg(long, default_value_t = 2)]
    pub reviews: usize,
    /// Seconds before hanging up.
    #[arg(long, default_value_t = 3)]
    pub hang_up_secs: u64,
    /// A hint every this many milliseconds.
    #[arg(long, default_value_t = 2000)]
    pub hint_every_ms: u64,
    /// How long the hints go on (and the last review may take).
    #[arg(long, default_value_t = 60)]
    pub seconds: u64,
}

/// Runs the attack.
pub async fn run(ctx: &Ctx, args: &Args) -> anyhow::Result<()> {
    let id = long_game::game(ctx, &args.game).await?;
    // The player who asks for hints, seated against hosted bots.
    let mut conn = client::register_or_guest(&ctx.server, "hinter").await?;
    let room = client::create_room(&mut conn, client::four_seats("latin")).await?;
    let room = room["id"].as_u64().context("room without id")?;
    client::join(&mut conn, room, 0).await?;
    let fill = ClientMsg::FillBots { room, strategy: "random".into() };
    client::expect(client::request(&mut conn, fill).await?, "ok").context("fill-bots in our own room")?;

    ctx.begin().await;
    let path = format!("/api/games/{id}/review?seat=0");
    let outcomes = abandon_reviews(ctx, &path, args.reviews, Duration::from_secs(args.hang_up_secs)).await;
    ctx.note(format!("{} x GET {path}, hung up after {} s: {outcomes}", args.reviews, args.hang_up_secs));

    let window = Duration::from_secs(args.seconds);
    let third = {
        let (server, path) = (ctx.server.clone(), path.clone());
        tokio::spawn(async move {
            let t0 = Instant::now();
            (http::get(&server, &path, window).await, t0.elapsed())
        })
    };
    let hints = ask_hints(&mut conn, room, Duration::from_millis(args.hint_every_ms), Instant::now() + window).await;
    match hints {
        Ok(h) => ctx.note(format!(
            "hints over {} s: {} asked; answered {} ({}), busy {}, other {}",
            args.seconds,
            h.asked,
            h.answered.len(),
            Summary::of(h.answered.iter().copied()),
            h.outcomes.get("error:busy"),
            h.other()
        )),
        Err(e) => ctx.note(format!("the hint player failed: {e:#}")),
    }
    let third = if third.is_finished() {
        third.await.ok()
    } else {
        // Its window is over: the hints above took as long.
        tokio::time::timeout(Duration::from_secs(2), third).await.ok().and_then(Result::ok)
    };
    ctx.note(match third {
        Some((Ok(r), t)) => format!(
            "another review: HTTP {} after {:.1} s ({} bytes){}",
            r.status,
            t.as_secs_f64(),
            r.bytes,
            if r.status == 200 { String::new() } else { format!(": {}", r.head) }
        ),
        Some((Err(e), _)) => format!("another review: {e:#}"),
        None => format!("another review: no answer within {} s", args.seconds),
    });
    conn.close().await;
    Ok(())
}

/// Asks for `reviews` reviews at `path` at once and hangs each up after
/// `hang_up` (reading an answer that came sooner): what each one met.
async fn abandon_reviews(ctx: &Ctx, path: &str, reviews: usize, hang_up: Duration) -> Tally {
    let mut abandoned = tokio::task::JoinSet::new();
    for _ in 0..reviews {
        let server = ctx.server.clone();
        let path = path.to_string();
        abandoned.spawn(async move {
            let mut tcp = server.tcp().await?;
            tcp.write_all(server.get_request(&path).as_bytes()).await?;
            let mut buf = [0u8; 512];
            // An answer within the wait (a cached review) is read; then the
            // socket is dropped either way.
            match tokio::time::timeout(hang_up, tcp.read(&mut buf)).await {
                Ok(Ok(n)) if n > 0 => {
                    let line = String::from_utf8_lossy(&buf[..n]);
                    Ok(format!("answered: {}", line.lines().next().unwrap_or("")))
                }
                Ok(_) => Ok("closed by the server".to_string()),
                Err(_) => Ok("hung up".to_string()),
            }
        });
    }
    let mut outcomes = Tally::default();
    while let Some(done) = abandoned.join_next().await {
        outcomes.add(match done {
            Ok(Ok(what)) => what,
            Ok(Err::<_, std::io::Error>(e)) => format!("failed: {e}"),
            Err(e) => format!("task: {e}"),
        });
    }
    outcomes
}

/// What the hints got.
#[derive(Default)]
pub(super) struct Hints {
    /// Hints asked.
    pub(super) asked: u64,
    /// The answered ones' latencies.
    pub(super) answered: Vec<Duration>,
    /// Replies by outcome.
    pub(super) outcomes: Tally,
}

impl Hints {
    pub(super) fn other(&self) -> String {
        let mut rest = self.outcomes.clone();
        rest.0.remove("hint");
        rest.0.remove("error:busy");
        rest.to_string()
    }
}

/// Plays seat 0, asking for a hint at a prompt at most every `every`
/// (then moving at random), until `until`.
pub(super) async fn ask_hints(conn: &mut Conn, room: u64, every: Duration, until: Instant) -> anyhow::Result<Hints> {
    let mut hints = Hints::default();
    let mut rng = Rng::new(room ^ 0x417);
    let mut next_hint = Instant::now();
    conn.send(ClientMsg::Ready { room, read_hand_ends: false }).await?;
    while Instant::now() < until {
        let Ok(text) = tokio::time::timeout_at(until.into(), conn.recv_text()).await else { break };
        let text = text?;
        if text.starts_with(EVENTS_PREFIX) {
            continue;
        }
        let v: Value = serde_json::from_str(&text)?;
        match v["type"].as_str().unwrap_or("") {
            "prompt" => {
                let prompt = v["prompt"].as_u64().context("prompt without id")?;
                let legal = v["legal-moves"].as_array().context("prompt without moves")?.clone();
                tokio::time::sleep_until(next_hint.min(until).into()).await;
                if Instant::now() >= until {
                    break;
                }
                let asked = Instant::now();
                next_hint = asked + every;
                hints.asked += 1;
                let id = conn.send(ClientMsg::Hint { room }).await?;
                let reply = loop {
                    let left = until.saturating_duration_since(Instant::now()).max(Duration::from_secs(5));
                    let Ok(text) = tokio::time::timeout(left, conn.recv_text()).await else {
                        break None;
                    };
                    let text = text?;
                    if text.starts_with(EVENTS_PREFIX) {
                        continue;
                    }
                    let r: Value = serde_json::from_str(&text)?;
                    if r["id"].as_u64() == Some(id) {
                        break Some(r);
                    }
                };
                match reply {
                    Some(r) => {
                        let what = client::outcome(&r);
                        if what == "hint" {
                            hints.answered.push(asked.elapsed());
                        }
                        hints.outcomes.add(what);
                    }
                    None => hints.outcomes.add("no answer"),
                }
                if !legal.is_empty() {
                    conn.send_text(client::move_frame(room, prompt, &legal[rng.below(legal.len())])).await?;
                }
            }
            "game-over" => {
                conn.send(ClientMsg::Ready { room, read_hand_ends: false }).await?;
            }
            _ => {}
        }
    }
    Ok(hints)
}
