//! `fill-bots`: a stranger fills other people's rooms with hosted bots. A
//! victim (another client) opens a public and a private room and sits in
//! each; a guest lists the rooms, then sends `fill-bots` to every room
//! number from 1 to N, sitting in none of them.

use std::time::{Duration, Instant};

use anyhow::Context;
use capicua_protocol::{ClientMsg, RoomSpec};
use serde_json::Value;

use super::{Ctx, Tally, hold_until};
use crate::client;

/// `capicua-hostile fill-bots`.
#[derive(clap::Args, Clone, Debug)]
pub struct Args {
    /// Room numbers tried: 1 to this.
    #[arg(long, default_value_t = 50)]
    pub guess: u64,
    /// The hosted strategy the stranger asks for.
    #[arg(long, default_value = "random")]
    pub strategy: String,
    /// How long the attack phase lasts after the requests.
    #[arg(long, default_value_t = 10)]
    pub seconds: u64,
}

/// Runs the attack.
pub async fn run(ctx: &Ctx, args: &Args) -> anyhow::Result<()> {
    // The victim: a registered player (or a guest) with a public and a
    // private room, seated in both, waiting for friends.
    let mut victim = client::register_or_guest(&ctx.server, "victim").await?;
    let public = client::create_room(&mut victim, client::four_seats("latin")).await?;
    let public = public["id"].as_u64().context("room without id")?;
    client::join(&mut victim, public, 0).await?;
    let private = client::create_room(&mut victim, RoomSpec { private: true, ..client::four_seats("latin") }).await?;
    let private_id = private["id"].as_u64().context("room without id")?;
    let invite = private["invite"].as_str().context("a private room without invite")?.to_string();
    let join = ClientMsg::Join { room: None, seat: Some(0), invite: Some(invite) };
    client::expect(client::request(&mut victim, join).await?, "seated").context("joining the private room")?;
    ctx.note(format!("victim's rooms: public {public}, private {private_id}, victim seated in both"));

    ctx.begin().await;
    let deadline = Instant::now() + Duration::from_secs(args.seconds);
    let mut stranger = client::connect(&ctx.server, None).await?;
    let listed = client::request(&mut stranger, ClientMsg::ListRooms).await?;
    let rooms: Vec<u64> =
        listed["rooms"].as_array().map_or(vec![], |r| r.iter().filter_map(|r| r["id"].as_u64()).collect());
    ctx.note(format!(
        "the stranger lists {} rooms: public victim listed {}, private victim listed {}",
        rooms.len(),
        rooms.contains(&public),
        rooms.contains(&private_id)
    ));
    let mut others = Tally::default();
    let mut victims = Vec::new();
    for room in 1..=args.guess {
        let fill = ClientMsg::FillBots { room, strategy: args.strategy.clone() };
        let reply = match client::request(&mut stranger, fill).await {
            Ok(r) => r,
            Err(e) => Value::String(format!("{e:#}")),
        };
        let what = match &reply {
            Value::String(failed) => format!("failed: {failed}"),
            r => client::outcome(r),
        };
        if room == public || room == private_id {
            let kind = if room == public { "public" } else { "private" };
            victims.push(format!("{kind} room {room}: {}", verdict(&what)));
        } else {
            others.add(what);
        }
    }
    for v in victims {
        ctx.note(format!("stranger's fill-bots {} in the victim's {v}", args.strategy));
    }
    ctx.note(format!("stranger's fill-bots in the other room numbers up to {}: {others}", args.guess));
    // What the victim's public room looks like now.
    if let Ok(listed) = client::request(&mut stranger, ClientMsg::ListRooms).await
        && let Some(info) = listed["rooms"].as_array().and_then(|r| r.iter().find(|r| r["id"].as_u64() == Some(public)))
    {
        let bots = info["seats"]
            .as_array()
            .map_or(0, |s| s.iter().filter(|s| s["occupant"]["kind"].as_str() == Some("hosted-bot")).count());
        ctx.note(format!("the victim's public room now has {bots} hosted bots, status {}", info["status"]));
    }
    hold_until(ctx, deadline).await;
    stranger.close().await;
    victim.close().await;
    Ok(())
}

/// `ACCEPTED` or `refused (reason)`, from a reply's outcome.
fn verdict(outcome: &str) -> String {
    if outcome == "ok" { "ACCEPTED".into() } else { format!("refused ({outcome})") }
}
