//! `hint-starve`: guests each play their own room of the long double-18
//! game against hosted `random` bots and ask a `hint` at every prompt
//! (then move, once it is answered or refused): every hint is a search of
//! a big hand, on the slots the hosted bots of everyone's rooms need. A
//! victim from the probe address plays a casual latin room against `pimc`
//! bots, moving at once and asking a hint at each of its turns: how long
//! its bots take between moves, and how its hints fare.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use capicua_protocol::ClientMsg;
use serde_json::Value;

use super::long_game::LongShape;
use super::review::{self, Hints};
use super::{Ctx, Tally, hold_noting};
use crate::client::{self, Rng};
use crate::http::Server;
use crate::stats::Summary;

/// `capicua-hostile hint-starve`.
#[derive(clap::Args, Clone, Debug)]
pub struct Args {
    /// Guests asking hints in rooms of the long game.
    #[arg(long, default_value_t = 4)]
    pub attackers: usize,
    /// The long game the attackers play.
    #[command(flatten)]
    pub shape: LongShape,
    /// The hosted strategy of the victim's three opponents.
    #[arg(long, default_value = "pimc")]
    pub victim_strategy: String,
    /// How long the attack lasts.
    #[arg(long, default_value_t = 60)]
    pub seconds: u64,
}

/// What the victim saw.
#[derive(Default)]
struct Victim {
    /// Each hosted bot's move: when, and the time since the move before.
    gaps: Vec<(Instant, Duration)>,
    /// Each hint: when it was asked, how long its reply took, the reply.
    hints: Vec<(Instant, Duration, String)>,
    matches: u64,
    failure: Option<String>,
}

impl Victim {
    /// Its figures from `from` to `to`.
    fn between(&self, from: Instant, to: Instant) -> String {
        let within = |at: &Instant| *at >= from && *at < to;
        let gaps = Summary::of(self.gaps.iter().filter(|(at, _)| within(at)).map(|&(_, d)| d));
        let hints: Vec<_> = self.hints.iter().filter(|(at, _, _)| within(at)).collect();
        let answered = Summary::of(hints.iter().filter(|(_, _, what)| what == "hint").map(|&&(_, d, _)| d));
        let mut replies = Tally::default();
        hints.iter().for_each(|(_, _, what)| replies.add(what.clone()));
        format!(
            "bot move gaps {gaps}; hints answered {answered}; hints asked {}, busy {}; replies: {replies}",
            hints.len(),
            replies.get("error:busy")
        )
    }
}

/// Runs the attack.
pub async fn run(ctx: &Ctx, args: &Args) -> anyhow::Result<()> {
    let victim = Arc::new(Mutex::new(Victim::default()));
    let playing = tokio::spawn({
        let (server, strategy, victim) = (ctx.probe.clone(), args.victim_strategy.clone(), victim.clone());
        async move {
            if let Err(e) = play_victim(&server, &strategy, &victim).await {
                victim.lock().expect("victim lock").failure = Some(format!("{e:#}"));
            }
        }
    });
    let t0 = Instant::now();
    ctx.begin().await;
    let start = Instant::now();
    let until = start + Duration::from_secs(args.seconds);
    let mut attackers = tokio::task::JoinSet::new();
    for _ in 0..args.attackers {
        let (server, shape) = (ctx.server.clone(), args.shape.clone());
        attackers.spawn(async move { attack(&server, &shape, until).await });
    }
    hold_noting(ctx, until, Duration::from_secs(10), || {
        let v = victim.lock().expect("victim lock");
        format!("victim so far: {} matches; {}", v.matches, v.between(start, Instant::now()))
    })
    .await;
    let (mut asked, mut answered, mut outcomes, mut failed) = (0, Vec::new(), Tally::default(), Tally::default());
    while let Some(done) = attackers.join_next().await {
        match done {
            Ok(Ok(h)) => {
                asked += h.asked;
                answered.extend(h.answered);
                outcomes.merge(&h.outcomes);
            }
            Ok(Err(e)) => failed.add(format!("{e:#}")),
            Err(e) => failed.add(format!("task: {e}")),
        }
    }
    playing.abort();
    ctx.note(format!(
        "{} attackers: {asked} hints asked, answered {}; replies: {outcomes}; attackers failed: {failed}",
        args.attackers,
        Summary::of(answered)
    ));
    let v = victim.lock().expect("victim lock");
    ctx.note(format!("victim before the attack: {}", v.between(t0, start)));
    ctx.note(format!("victim during the attack: {}", v.between(start, until)));
    ctx.note(format!("victim: {} matches over; failed: {}", v.matches, v.failure.as_deref().unwrap_or("no")));
    Ok(())
}

/// One attacker: its room of the long game, hints at every prompt.
async fn attack(server: &Server, shape: &LongShape, until: Instant) -> anyhow::Result<Hints> {
    let mut conn = client::connect(server, None).await?;
    let room = client::create_room(&mut conn, shape.room_spec()).await.context("create")?;
    let room = room["id"].as_u64().context("room without id")?;
    client::join(&mut conn, room, 0).await.context("join")?;
    let fill = ClientMsg::FillBots { room, strategy: "random".into() };
    client::expect(client::request(&mut conn, fill).await?, "ok").context("fill-bots")?;
    review::ask_hints(&mut conn, room, Duration::ZERO, until).await
}

/// The victim: seat 0 of a latin room against hosted bots, a move at
/// once at each prompt and a hint asked beside it, until aborted.
async fn play_victim(server: &Server, strategy: &str, victim: &Mutex<Victim>) -> anyhow::Result<()> {
    // Events as they happen (not batched): their times are the bots' moves.
    let mut conn = client::connect_with(server, None, false).await?;
    let room = client::create_room(&mut conn, client::four_seats("latin")).await.context("victim: create")?;
    let room = room["id"].as_u64().context("room without id")?;
    client::join(&mut conn, room, 0).await.context("victim: join")?;
    let fill = ClientMsg::FillBots { room, strategy: strategy.into() };
    client::expect(client::request(&mut conn, fill).await?, "ok").context("victim: fill-bots")?;
    conn.send(ClientMsg::Ready { room, read_hand_ends: false }).await?;
    let mut rng = Rng::new(room ^ 0x51c7);
    let (mut last_move, mut last_frame) = (Instant::now(), None::<String>);
    let mut asked: Vec<(u64, Instant)> = Vec::new();
    loop {
        let text = conn.recv_text().await?;
        let v: Value = serde_json::from_str(&text)?;
        if let Some(i) = v["id"].as_u64().and_then(|id| asked.iter().position(|&(a, _)| a == id)) {
            let (_, at) = asked.remove(i);
            victim.lock().expect("victim lock").hints.push((at, at.elapsed(), client::outcome(&v)));
            continue;
        }
        match v["type"].as_str().unwrap_or("") {
            "prompt" if v["room"].as_u64() == Some(room) => {
                let prompt = v["prompt"].as_u64().context("prompt without id")?;
                let legal = v["legal-moves"].as_array().context("prompt without moves")?;
                if legal.is_empty() {
                    continue;
                }
                asked.push((conn.send(ClientMsg::Hint { room }).await?, Instant::now()));
                let frame = client::move_frame(room, prompt, &legal[rng.below(legal.len())]);
                last_frame = Some(frame.clone());
                conn.send_text(frame).await?;
            }
            "events" => {
                let now = Instant::now();
                if v["events"][0]["seat"].as_u64().is_some_and(|seat| seat != 0) {
                    victim.lock().expect("victim lock").gaps.push((now, now - last_move));
                }
                last_move = now;
            }
            "game-started" => last_move = Instant::now(),
            "game-over" => {
                victim.lock().expect("victim lock").matches += 1;
                conn.send(ClientMsg::Ready { room, read_hand_ends: false }).await?;
            }
            "error" if v["code"].as_str() == Some("rate-limited") => {
                tokio::time::sleep(Duration::from_millis(20)).await;
                if let Some(frame) = last_frame.clone() {
                    conn.send_text(frame).await?;
                }
            }
            "room-closed" => bail!("victim's room {room} closed: {}", v["reason"].as_str().unwrap_or("")),
            _ => {}
        }
    }
}
