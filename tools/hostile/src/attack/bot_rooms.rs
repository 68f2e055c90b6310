//! `bot-rooms`: registered players open rooms, fill them with searching
//! hosted bots (`pimc`) and leave. Each of N fresh names creates its
//! rooms and asks `fill-bots` without sitting (falling back to sitting
//! first, then saying ready, where the server refuses that), then closes
//! its connection: the rooms play on, on the server's CPU.

use std::sync::Arc;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use capicua_protocol::ClientMsg;

use super::{Ctx, Tally, hold_until};
use crate::client;

/// `capicua-hostile bot-rooms`.
#[derive(clap::Args, Clone, Debug)]
pub struct Args {
    /// Fresh names registered.
    #[arg(long, default_value_t = 25)]
    pub names: usize,
    /// Rooms each name opens.
    #[arg(long, default_value_t = 4)]
    pub rooms: usize,
    /// The hosted strategy filling them.
    #[arg(long, default_value = "pimc")]
    pub strategy: String,
    /// How long the attack phase lasts.
    #[arg(long, default_value_t = 60)]
    pub seconds: u64,
}

/// Runs the attack.
pub async fn run(ctx: &Ctx, args: &Args) -> anyhow::Result<()> {
    ctx.begin().await;
    let deadline = Instant::now() + Duration::from_secs(args.seconds);
    let tally = Arc::new(Mutex::new(Tally::default()));
    let mut names = tokio::task::JoinSet::new();
    for _ in 0..args.names {
        let (server, rooms, strategy, tally) = (ctx.server.clone(), args.rooms, args.strategy.clone(), tally.clone());
        names.spawn(async move {
            if let Err(e) = open_rooms(&server, rooms, &strategy, &tally).await {
                tally.lock().expect("tally lock").add(format!("failed: {e:#}"));
            }
        });
    }
    while names.join_next().await.is_some() {}
    let tally = tally.lock().expect("tally lock").clone();
    ctx.note(format!("{} names x {} rooms of {}: {tally}", args.names, args.rooms, args.strategy));
    // The lobby, every 10 s: how many of those rooms play.
    let mut watcher = client::connect(&ctx.server, None).await?;
    while Instant::now() < deadline && !ctx.monitor.server_gone() {
        let listed = client::request(&mut watcher, ClientMsg::ListRooms).await;
        let rooms = listed.as_ref().ok().and_then(|l| l["rooms"].as_array().cloned()).unwrap_or_default();
        let bots_only = rooms.iter().filter(|r| {
            r["seats"]
                .as_array()
                .is_some_and(|s| s.iter().all(|s| s["occupant"]["kind"].as_str() == Some("hosted-bot")))
        });
        let playing = bots_only.clone().filter(|r| r["status"].as_str() == Some("playing")).count();
        ctx.note(format!(
            "lobby: {} rooms, {} of them all hosted bots, {playing} of those playing",
            rooms.len(),
            bots_only.count()
        ));
        hold_until(ctx, (Instant::now() + Duration::from_secs(10)).min(deadline)).await;
    }
    watcher.close().await;
    Ok(())
}

/// One name: register, open `rooms` rooms, fill each, leave.
async fn open_rooms(
    server: &crate::http::Server,
    rooms: usize,
    strategy: &str,
    tally: &Mutex<Tally>,
) -> anyhow::Result<()> {
    let (mut conn, _) = client::register(server, "botrooms").await?;
    for _ in 0..rooms {
        let room = match client::request(&mut conn, ClientMsg::CreateRoom(Box::new(client::four_seats("latin")))).await
        {
            Ok(r) if r["type"].as_str() == Some("room") => r["room"]["id"].as_u64(),
            Ok(r) => {
                tally.lock().expect("tally lock").add(format!("create {}", client::outcome(&r)));
                None
            }
            Err(e) => {
                tally.lock().expect("tally lock").add(format!("create failed: {e:#}"));
                None
            }
        };
        let Some(room) = room else { continue };
        let fill = ClientMsg::FillBots { room, strategy: strategy.into() };
        let reply = client::outcome(&client::request(&mut conn, fill.clone()).await?);
        let what = if reply == "ok" {
            "filled without sitting".to_string()
        } else {
            // Refused to one who does not sit there: sit, fill the
            // other seats, say ready (the match starts), then leave.
            client::join(&mut conn, room, 0).await?;
            let again = client::outcome(&client::request(&mut conn, fill).await?);
            if again == "ok" {
                let ready = client::outcome(
                    &client::request(&mut conn, ClientMsg::Ready { room, read_hand_ends: false }).await?,
                );
                format!("filled after sitting (ready: {ready}; refused first: {reply})")
            } else {
                format!("fill refused ({reply}, seated: {again})")
            }
        };
        tally.lock().expect("tally lock").add(what);
    }
    conn.close().await;
    Ok(())
}
