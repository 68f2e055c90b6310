//! `bot-rows`: one player fills its rated rooms with hosted bots of a new
//! spec each time (`random:seed=N`, every N a different name), unseats
//! them and fills again, as fast as the server answers: a hosted bot in a
//! rated room is a rated player, and each distinct spec may cost the
//! database a row for ever.

use std::time::{Duration, Instant};

use capicua_protocol::{ClientMsg, RoomSpec};

use super::{Ctx, Tally};
use crate::client::{self, Conn};

/// `capicua-hostile bot-rows`.
#[derive(clap::Args, Clone, Debug)]
pub struct Args {
    /// Rated rooms opened (fewer if the server refuses more).
    #[arg(long, default_value_t = 4)]
    pub rooms: usize,
    /// How long the attack lasts.
    #[arg(long, default_value_t = 40)]
    pub seconds: u64,
}

/// Runs the attack.
pub async fn run(ctx: &Ctx, args: &Args) -> anyhow::Result<()> {
    // Rated rooms need a registered player.
    let mut conn = match client::register(&ctx.server, "botrows").await {
        Ok((conn, _)) => conn,
        Err(e) => {
            ctx.note(format!("register refused ({}): a guest instead", client::why(&e)));
            client::connect(&ctx.server, None).await?
        }
    };
    ctx.begin().await;
    let t0 = Instant::now();
    let deadline = t0 + Duration::from_secs(args.seconds);
    let mut tally = Tally::default();
    let rooms = rated_rooms(&mut conn, args.rooms, &mut tally).await;
    ctx.note(format!("rated rooms, each with our player at seat 0: {} ({tally})", rooms.len()));
    if rooms.is_empty() {
        conn.close().await;
        return Ok(());
    }
    let (mut n, mut next_note) = (0u64, t0 + Duration::from_secs(10));
    'fill: while Instant::now() < deadline && !ctx.monitor.server_gone() {
        for &room in &rooms {
            n += 1;
            let fill = ClientMsg::FillBots { room, strategy: format!("random:seed={n}") };
            let filled = client::outcome_of(&mut conn, fill).await;
            let ok = filled == "ok";
            tally.add(format!("fill-bots {filled}"));
            if filled == "error:rate-limited" {
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            // Free the seats for the next spec.
            if ok {
                for seat in 1..4u8 {
                    tally.add(format!(
                        "unseat {}",
                        client::outcome_of(&mut conn, ClientMsg::Unseat { room, seat }).await
                    ));
                }
            }
            if Instant::now() >= next_note {
                next_note += Duration::from_secs(10);
                ctx.note(format!("{:.0} s: {n} specs tried; {tally}", t0.elapsed().as_secs_f64()));
            }
            if Instant::now() >= deadline || filled.starts_with("closed") || filled.starts_with("cut") {
                break 'fill;
            }
        }
    }
    let secs = t0.elapsed().as_secs_f64();
    ctx.note(format!(
        "{n} distinct specs tried in {secs:.0} s, {} seated ({:.0}/s); {tally}",
        tally.get("fill-bots ok"),
        tally.get("fill-bots ok") as f64 / secs
    ));
    conn.close().await;
    Ok(())
}

/// Opens up to `n` rated rooms and sits at seat 0 of each: their ids.
async fn rated_rooms(conn: &mut Conn, n: usize, tally: &mut Tally) -> Vec<u64> {
    let mut rooms = Vec::new();
    for _ in 0..n {
        let spec = RoomSpec { rated: true, ..client::four_seats("latin") };
        let created = match client::request(conn, ClientMsg::CreateRoom(Box::new(spec))).await {
            Ok(r) if r["type"].as_str() == Some("room") => r["room"]["id"].as_u64(),
            Ok(r) => {
                tally.add(format!("create {}", client::outcome(&r)));
                None
            }
            Err(e) => {
                tally.add(format!("create {}", client::why(&e)));
                None
            }
        };
        let Some(room) = created else { break };
        let joined = client::outcome_of(conn, ClientMsg::join(room, Some(0))).await;
        tally.add(format!("join {joined}"));
        if joined == "seated" {
            rooms.push(room);
        }
    }
    rooms
}
