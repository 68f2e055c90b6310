//! `squat`: the lobby polled every 200 ms, and every free seat of every
//! public room still waiting taken at once by a fresh guest connection,
//! then held: a player's friends find their seats gone. Meanwhile a
//! victim (from the probe address) opens a public room every 10 s and a
//! friend tries seat 1 a second later; then the victim `unseat`s each
//! squatted seat and the friend tries again.

use std::collections::HashSet;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::Context;
use capicua_protocol::ClientMsg;
use serde_json::Value;

use super::abandoned_rooms::room_list;
use super::{Ctx, Tally, hold_until};
use crate::client;
use crate::http::{self, Server};

/// `capicua-hostile squat`.
#[derive(clap::Args, Clone, Debug)]
pub struct Args {
    /// Milliseconds between polls of the lobby.
    #[arg(long, default_value_t = 200)]
    pub poll_ms: u64,
    /// Seconds between the victim's rooms.
    #[arg(long, default_value_t = 10)]
    pub victim_every: u64,
    /// How long the attack lasts.
    #[arg(long, default_value_t = 60)]
    pub seconds: u64,
}

/// What the squatter did, and the seats it is taking or holds.
#[derive(Default)]
struct Squatter {
    tally: Mutex<Tally>,
    taking: Mutex<HashSet<(u64, u64)>>,
}

/// What the victim's rounds met.
#[derive(Default)]
struct Rounds {
    friend_first: Tally,
    unseat: Tally,
    friend_again: Tally,
    failed: Tally,
}

/// Runs the attack.
pub async fn run(ctx: &Ctx, args: &Args) -> anyhow::Result<()> {
    ctx.begin().await;
    let deadline = Instant::now() + Duration::from_secs(args.seconds);
    let squatter = Arc::new(Squatter::default());
    let polling =
        tokio::spawn(squat(ctx.server.clone(), Duration::from_millis(args.poll_ms), deadline, squatter.clone()));
    let mut rounds = Rounds::default();
    while Instant::now() < deadline && !ctx.monitor.server_gone() {
        let next = Instant::now() + Duration::from_secs(args.victim_every.max(2));
        if let Err(e) = round(&ctx.probe, &mut rounds).await {
            rounds.failed.add(format!("{e:#}"));
        }
        ctx.note(format!(
            "friend's first try at seat 1: {}; unseat: {}; friend's second try: {}; squatter: {}",
            rounds.friend_first,
            rounds.unseat,
            rounds.friend_again,
            squatter.tally.lock().expect("squatter lock")
        ));
        hold_until(ctx, next.min(deadline)).await;
    }
    polling.abort();
    ctx.note(format!(
        "friends seated at the first try {} of {} (seat-taken {}); victim rounds failed: {}",
        rounds.friend_first.get("seated"),
        rounds.friend_first.total(),
        rounds.friend_first.get("error:seat-taken"),
        rounds.failed
    ));
    Ok(())
}

/// Polls the lobby every `every` and sends a guest to each free seat of
/// a waiting public room, until `deadline`.
async fn squat(server: Server, every: Duration, deadline: Instant, squatter: Arc<Squatter>) {
    let mut sitters = tokio::task::JoinSet::new();
    while Instant::now() < deadline {
        let listed = match http::get_json(&server, "/api/rooms", Duration::from_secs(5)).await {
            Ok((200, listed)) => room_list(&listed),
            Ok((status, _)) => {
                squatter.tally.lock().expect("squatter lock").add(format!("lobby HTTP {status}"));
                Vec::new()
            }
            Err(e) => {
                squatter.tally.lock().expect("squatter lock").add(format!("lobby {}", client::why(&e)));
                Vec::new()
            }
        };
        for (room, seat) in free_seats(&listed) {
            if squatter.taking.lock().expect("squatter lock").insert((room, seat)) {
                sitters.spawn(sit(server.clone(), room, seat, deadline, squatter.clone()));
            }
        }
        tokio::time::sleep(every).await;
    }
}

/// The free seats of the waiting rooms of a lobby.
fn free_seats(listed: &[Value]) -> Vec<(u64, u64)> {
    let waiting = listed.iter().filter(|r| r["status"].as_str() == Some("waiting") && r["private"] != true);
    let free = waiting.flat_map(|r| {
        let room = r["id"].as_u64().unwrap_or(0);
        let seats = r["seats"].as_array().cloned().unwrap_or_default();
        seats.into_iter().filter(|s| s["occupant"].is_null()).filter_map(move |s| Some((room, s["seat"].as_u64()?)))
    });
    free.collect()
}

/// One guest takes seat `seat` of `room` and holds it until `deadline`
/// or until it is unseated.
async fn sit(server: Server, room: u64, seat: u64, deadline: Instant, squatter: Arc<Squatter>) {
    let what = async {
        let mut conn = client::connect(&server, None).await.map_err(|e| client::why(&e))?;
        let reply = client::request(&mut conn, ClientMsg::join(room, Some(seat as u8))).await;
        let reply = reply.map_err(|e| client::why(&e))?;
        if reply["type"].as_str() != Some("seated") {
            return Err(format!("join {}", client::outcome(&reply)));
        }
        squatter.tally.lock().expect("squatter lock").add("seated");
        loop {
            match tokio::time::timeout_at(deadline.into(), conn.recv_text()).await {
                Err(_) => return Ok("held to the end".to_string()),
                Ok(Err(e)) => return Ok(format!("seat lost: {}", client::why(&e))),
                Ok(Ok(t)) if t.contains(r#""type":"unseated""#) => return Ok("unseated".to_string()),
                Ok(Ok(_)) => {}
            }
        }
    };
    let what = what.await.unwrap_or_else(|refused| refused);
    squatter.tally.lock().expect("squatter lock").add(what);
    squatter.taking.lock().expect("squatter lock").remove(&(room, seat));
}

/// One round of the victim: a public room, seat 0; a friend at seat 1 a
/// second later; each squatted seat unseated; the friend again.
async fn round(probe: &Server, rounds: &mut Rounds) -> anyhow::Result<()> {
    let mut victim = client::register_or_guest(probe, "squatvictim").await.context("victim")?;
    let room = client::create_room(&mut victim, client::four_seats("latin")).await.context("victim: create")?;
    let room = room["id"].as_u64().context("room without id")?;
    client::join(&mut victim, room, 0).await.context("victim: join")?;
    tokio::time::sleep(Duration::from_secs(1)).await;
    let mut friend = client::connect(probe, None).await.context("friend")?;
    let first = client::outcome(&client::request(&mut friend, ClientMsg::join(room, Some(1))).await?);
    rounds.friend_first.add(first.clone());
    let (_, listed) = http::get_json(probe, "/api/rooms", Duration::from_secs(5)).await?;
    let info = room_list(&listed).into_iter().find(|r| r["id"].as_u64() == Some(room)).unwrap_or_default();
    let friend_seat = if first == "seated" { Some(1) } else { None };
    let squatted: Vec<u64> = info["seats"]
        .as_array()
        .map(|seats| seats.iter().filter(|s| !s["occupant"].is_null()).filter_map(|s| s["seat"].as_u64()).collect())
        .unwrap_or_default();
    for seat in squatted.into_iter().filter(|&s| s != 0 && Some(s) != friend_seat) {
        let unseat = ClientMsg::Unseat { room, seat: seat as u8 };
        rounds.unseat.add(client::outcome_of(&mut victim, unseat).await);
    }
    if friend_seat.is_none() {
        rounds.friend_again.add(client::outcome_of(&mut friend, ClientMsg::join(room, Some(1))).await);
    }
    // Both leave: the probe address's seats are few.
    for conn in [&mut victim, &mut friend] {
        let _ = client::request(conn, ClientMsg::Leave { room }).await;
    }
    victim.close().await;
    friend.close().await;
    Ok(())
}
