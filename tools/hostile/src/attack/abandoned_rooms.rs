//! `abandoned-rooms`: names open rooms, sit, fill the other seats with
//! searching hosted bots (`pimc`), say ready and `leave` at once (and,
//! unless `--stay-connected`, hang up): a match of bots nobody plays in,
//! on the server's search slots. Every 10 s, how many of those rooms the
//! lobby lists as playing, and the server's search gauges.

use std::time::{Duration, Instant};

use capicua_protocol::{ClientMsg, RoomSpec};
use serde_json::Value;

use super::{Ctx, Tally, hold_until};
use crate::client::{self, Conn};
use crate::http::{self, Server};

/// `capicua-hostile abandoned-rooms`.
#[derive(clap::Args, Clone, Debug)]
pub struct Args {
    /// Who opens the rooms.
    #[command(flatten)]
    pub owners: super::Owners,
    /// The hosted strategy filling them.
    #[arg(long, default_value = "pimc")]
    pub strategy: String,
    /// Keep each name's connection open after leaving its rooms.
    #[arg(long)]
    pub stay_connected: bool,
    /// How long the attack lasts.
    #[arg(long, default_value_t = 60)]
    pub seconds: u64,
}

/// Runs the attack.
pub async fn run(ctx: &Ctx, args: &Args) -> anyhow::Result<()> {
    ctx.begin().await;
    let deadline = Instant::now() + Duration::from_secs(args.seconds);
    let how = Abandon { rooms: args.owners.rooms, spec: client::four_seats("latin"), strategy: args.strategy.clone() };
    let (opened, _held) = open_names(&ctx.server, args.owners.names, "abandon", &how, args.stay_connected).await;
    ctx.note(format!(
        "{} names x {} rooms of {}: {} rooms left to their bots; {}",
        args.owners.names,
        args.owners.rooms,
        args.strategy,
        opened.rooms.len(),
        opened.tally
    ));
    while Instant::now() < deadline && !ctx.monitor.server_gone() {
        ctx.note(lobby_and_searches(&ctx.server, &opened.rooms).await);
        hold_until(ctx, (Instant::now() + Duration::from_secs(10)).min(deadline)).await;
    }
    Ok(())
}

/// What each name does: `rooms` rooms of `spec`, each filled with
/// `strategy` bots, readied and left.
pub(super) struct Abandon {
    pub(super) rooms: usize,
    pub(super) spec: RoomSpec,
    pub(super) strategy: String,
}

/// The rooms names opened and left, and what each step met.
#[derive(Default)]
pub(super) struct Opened {
    pub(super) rooms: Vec<u64>,
    pub(super) tally: Tally,
}

impl Opened {
    pub(super) fn merge(&mut self, other: Opened) {
        self.rooms.extend(other.rooms);
        self.tally.merge(&other.tally);
    }
}

/// `names` names at once, each doing `how`; returns what they opened and
/// (with `stay`) their connections.
pub(super) async fn open_names(
    server: &Server,
    names: usize,
    prefix: &str,
    how: &Abandon,
    stay: bool,
) -> (Opened, Vec<Conn>) {
    let each = (0..names).map(|_| async {
        let mut opened = Opened::default();
        let conn = match client::register(server, prefix).await {
            Ok((conn, _)) => Some(conn),
            Err(e) => {
                opened.tally.add(format!("register refused ({}), a guest instead", client::why(&e)));
                client::connect(server, None).await.map_err(|e| opened.tally.add(client::why(&e))).ok()
            }
        };
        let Some(mut conn) = conn else { return (opened, None) };
        abandon_rooms(&mut conn, how, &mut opened).await;
        if stay {
            (opened, Some(conn))
        } else {
            conn.close().await;
            (opened, None)
        }
    });
    let mut all = Opened::default();
    let mut held = Vec::new();
    for (opened, conn) in futures_util::future::join_all(each).await {
        all.merge(opened);
        held.extend(conn);
    }
    (all, held)
}

/// One name's rooms: create, sit, fill, ready, leave; each room's fate
/// counted (the first step refused, or all done).
pub(super) async fn abandon_rooms(conn: &mut Conn, how: &Abandon, opened: &mut Opened) {
    for _ in 0..how.rooms {
        let created = client::request(conn, ClientMsg::CreateRoom(Box::new(how.spec.clone()))).await;
        let room = match created {
            Ok(r) if r["type"].as_str() == Some("room") => r["room"]["id"].as_u64().unwrap_or(0),
            Ok(r) => {
                // A refused room (a limit on open rooms): so are the rest.
                opened.tally.add(format!("create {}", client::outcome(&r)));
                return;
            }
            Err(e) => {
                opened.tally.add(format!("create failed: {}", client::why(&e)));
                return;
            }
        };
        let steps = [
            ("join", ClientMsg::join(room, Some(0))),
            ("fill-bots", ClientMsg::FillBots { room, strategy: how.strategy.clone() }),
            ("ready", ClientMsg::Ready { room, read_hand_ends: false }),
            ("leave", ClientMsg::Leave { room }),
        ];
        let mut fate = "sat, filled, ready, left".to_string();
        for (what, msg) in steps {
            let reply = client::request(conn, msg).await;
            let got = reply.as_ref().map_or_else(client::why, client::outcome);
            if !matches!(got.as_str(), "seated" | "ok" | "left") {
                fate = format!("{what} {got}");
                break;
            }
        }
        if fate.ends_with("left") {
            opened.rooms.push(room);
        }
        opened.tally.add(fate);
    }
}

/// A line on `rooms`: how many the lobby lists and by status, and the
/// server's search gauges.
pub(super) async fn lobby_and_searches(server: &Server, rooms: &[u64]) -> String {
    let lobby = match http::get_json(server, "/api/rooms", Duration::from_secs(10)).await {
        Ok((200, listed)) => {
            let listed = room_list(&listed);
            let mut status = Tally::default();
            for r in listed.iter().filter(|r| r["id"].as_u64().is_some_and(|id| rooms.contains(&id))) {
                status.add(r["status"].as_str().unwrap_or("?"));
            }
            format!("the lobby lists {} of the {} rooms left ({status})", status.total(), rooms.len())
        }
        Ok((status, _)) => format!("the lobby: HTTP {status}"),
        Err(e) => format!("the lobby: {e:#}"),
    };
    let gauges = match http::metrics(server, Duration::from_secs(10)).await {
        Ok(text) => {
            let of = |name| http::metric(&text, name).map_or("-".into(), |v| format!("{v}"));
            format!(
                "capicua_searches {}, capicua_cpu_slots_waiting {}",
                of("capicua_searches"),
                of("capicua_cpu_slots_waiting")
            )
        }
        Err(e) => format!("/metrics: {e:#}"),
    };
    format!("{lobby}; {gauges}")
}

/// The rooms of a lobby answer (a list of them, or an object with `rooms`).
pub(super) fn room_list(listed: &Value) -> Vec<Value> {
    listed.as_array().or_else(|| listed["rooms"].as_array()).cloned().unwrap_or_default()
}
