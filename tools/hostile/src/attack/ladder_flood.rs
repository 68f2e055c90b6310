//! `ladder-flood`: fresh names fill a ladder's pool and never play (they
//! answer no `ladder-match`, never say ready), while one real player, a
//! random bot that plays properly, joins the same ladder. Reports how
//! long the real player waits for its first match, and how that match
//! goes.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use anyhow::Context;
use capicua_protocol::ClientMsg;
use futures_util::StreamExt;
use serde_json::Value;

use super::{Ctx, Tally};
use crate::client::{self, Conn, EVENTS_PREFIX, Rng};

/// `capicua-hostile ladder-flood`.
#[derive(clap::Args, Clone, Debug)]
pub struct Args {
    /// Fresh names that join the ladder and never play.
    #[arg(long, default_value_t = 1000)]
    pub names: usize,
    /// The ladder (a preset).
    #[arg(long, default_value = "latin")]
    pub variant: String,
    /// How long the real player tries (to join, be paired, and play its
    /// first match).
    #[arg(long, default_value_t = 120)]
    pub seconds: u64,
    /// Registrations and joins in flight at once.
    #[arg(long, default_value_t = 50)]
    pub concurrency: usize,
}

/// Runs the attack.
pub async fn run(ctx: &Ctx, args: &Args) -> anyhow::Result<()> {
    let t0 = Instant::now();
    let registered: Vec<anyhow::Result<Conn>> = futures_util::stream::iter(0..args.names)
        .map(|_| {
            let server = ctx.server.clone();
            async move { Ok(client::register(&server, "flood").await?.0) }
        })
        .buffer_unordered(args.concurrency.max(1))
        .collect()
        .await;
    let mut failures = Tally::default();
    let flood: Vec<Conn> =
        registered.into_iter().filter_map(|r| r.map_err(|e| failures.add(format!("{e:#}"))).ok()).collect();
    ctx.note(format!(
        "registered {} of {} names in {:.1} s; failed: {failures}",
        flood.len(),
        args.names,
        t0.elapsed().as_secs_f64()
    ));
    let (mut real, _) = client::register(&ctx.server, "real").await?;

    ctx.begin().await;
    let deadline = Instant::now() + Duration::from_secs(args.seconds);
    let t0 = Instant::now();
    let variant = args.variant.clone();
    let joined: Vec<(Conn, String)> = futures_util::stream::iter(flood)
        .map(|mut conn| {
            let join = ClientMsg::JoinLadder { variant: variant.clone() };
            async move {
                let what = match client::request(&mut conn, join).await {
                    Ok(r) => client::outcome(&r),
                    Err(e) => format!("failed: {e:#}"),
                };
                (conn, what)
            }
        })
        .buffer_unordered(args.concurrency.max(1))
        .collect()
        .await;
    let mut outcomes = Tally::default();
    let matched = Arc::new(AtomicU64::new(0));
    let mut idle = tokio::task::JoinSet::new();
    for (conn, what) in joined {
        outcomes.add(what);
        idle.spawn(sit_idle(conn, matched.clone()));
    }
    ctx.note(format!("flood join-ladder {}: {outcomes} in {:.1} s", args.variant, t0.elapsed().as_secs_f64()));

    let t0 = Instant::now();
    let mut refusals = Tally::default();
    let waiting = loop {
        let reply = client::request(&mut real, ClientMsg::JoinLadder { variant: args.variant.clone() }).await?;
        if reply["type"].as_str() == Some("ladder") {
            break Some(reply["waiting"].as_u64().unwrap_or(0));
        }
        refusals.add(client::outcome(&reply));
        if Instant::now() + Duration::from_secs(1) >= deadline {
            break None;
        }
        tokio::time::sleep(Duration::from_secs(1)).await;
    };
    let Some(waiting) = waiting else {
        ctx.note(format!("the real player never got on the ladder in {} s: {refusals}", args.seconds));
        return Ok(());
    };
    ctx.note(format!(
        "the real player joined the ladder after {:.1} s ({} players waiting; refused first: {refusals})",
        t0.elapsed().as_secs_f64(),
        waiting
    ));
    if let Err(e) = play_first_match(ctx, &mut real, t0, deadline).await {
        ctx.note(format!("the real player failed: {e:#}"));
    }
    ctx.note(format!("ladder-match frames the flood names received: {}", matched.load(Ordering::Relaxed)));
    Ok(())
}

/// A flood name: reads its frames (counting `ladder-match`), answers none.
async fn sit_idle(mut conn: Conn, matched: Arc<AtomicU64>) {
    while let Ok(text) = conn.recv_text().await {
        if text.contains(r#""type":"ladder-match""#) {
            matched.fetch_add(1, Ordering::Relaxed);
        }
    }
}

/// The real player's first ladder match: waits for `ladder-match`, joins,
/// says ready, plays at random to `game-over`, noting each step.
async fn play_first_match(ctx: &Ctx, real: &mut Conn, t0: Instant, deadline: Instant) -> anyhow::Result<()> {
    let mut rng = Rng::new(0x1add);
    let mut room = None;
    loop {
        let Ok(text) = tokio::time::timeout_at(deadline.into(), real.recv_text()).await else {
            ctx.note(match room {
                None => format!("the real player got no ladder match in {:.0} s", t0.elapsed().as_secs_f64()),
                Some(r) => format!("the real player's match in room {r} was not over at the deadline"),
            });
            return Ok(());
        };
        let text = text?;
        if text.starts_with(EVENTS_PREFIX) {
            continue;
        }
        let v: Value = serde_json::from_str(&text)?;
        match v["type"].as_str().unwrap_or("") {
            "ladder-match" if room.is_none() => {
                let r = v["room"].as_u64().context("ladder-match without room")?;
                let seat = v["seat"].as_u64().context("ladder-match without seat")?;
                ctx.note(format!(
                    "the real player's first match: room {r}, seat {seat}, after {:.1} s",
                    t0.elapsed().as_secs_f64()
                ));
                room = Some(r);
                client::join(real, r, seat as u8).await?;
                real.send(ClientMsg::Ready { room: r, read_hand_ends: false }).await?;
            }
            "game-started" if v["room"].as_u64() == room => {
                ctx.note(format!("its match started after {:.1} s", t0.elapsed().as_secs_f64()));
            }
            "prompt" if v["room"].as_u64() == room => {
                let prompt = v["prompt"].as_u64().context("prompt without id")?;
                let legal = v["legal-moves"].as_array().context("prompt without moves")?;
                if !legal.is_empty() {
                    let r = room.expect("guarded");
                    real.send_text(client::move_frame(r, prompt, &legal[rng.below(legal.len())])).await?;
                }
            }
            "game-over" if v["room"].as_u64() == room => {
                ctx.note(format!("its match was over after {:.1} s: {}", t0.elapsed().as_secs_f64(), v["result"]));
                return Ok(());
            }
            _ => {}
        }
    }
}
