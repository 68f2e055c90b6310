//! A long stored game, for the attacks on replays and reviews: a custom
//! variant (a double-18 set, all but a few tiles dealt, a fixed number of
//! hands) played by the tool at seat 0 against three hosted `random` bots,
//! as any guest could.

use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use capicua_protocol::{ClientMsg, RoomSpec, TimeControl};
use serde_json::Value;

use super::Ctx;
use crate::client::{self, EVENTS_PREFIX, Rng};

/// Which game to attack.
#[derive(clap::Args, Clone, Debug)]
pub struct LongGameArgs {
    /// A stored game to use instead of building one.
    #[arg(long)]
    pub game: Option<i64>,
    /// The built game's shape.
    #[command(flatten)]
    pub shape: LongShape,
}

/// The long variant's shape (also what the attacks that play it, rather
/// than replay it, are sized by).
#[derive(clap::Args, Clone, Debug)]
pub struct LongShape {
    /// The set: double-N.
    #[arg(long, default_value_t = 18)]
    pub max_pip: u8,
    /// Tiles dealt to each of the four seats.
    #[arg(long, default_value_t = 47)]
    pub hand_size: u8,
    /// Hands in the match.
    #[arg(long, default_value_t = 100)]
    pub hands: u32,
}

impl LongShape {
    /// The variant file.
    pub fn variant_file(&self) -> String {
        format!(
            "base = \"latin\"\nname = \"hostile-long\"\ntiles = {{ max-pip = {} }}\n\
             deal = {{ hand-size = {}, rest = \"out-of-play\" }}\ntarget = {{ hands = {} }}\n",
            self.max_pip, self.hand_size, self.hands
        )
    }

    /// A 4-seat room of the variant with a minute per move.
    pub fn room_spec(&self) -> RoomSpec {
        RoomSpec {
            variant_file: Some(self.variant_file()),
            seats: Some(4),
            time: Some(TimeControl { move_ms: 60_000, bank_ms: 0 }),
            ..Default::default()
        }
    }
}

/// The game to attack: the one given, or a new one, built and stored.
pub async fn game(ctx: &Ctx, args: &LongGameArgs) -> anyhow::Result<i64> {
    if let Some(id) = args.game {
        ctx.note(format!("game {id} as given"));
        return Ok(id);
    }
    let t0 = Instant::now();
    let (id, moves) = build(ctx, args).await.context("building the long game")?;
    ctx.note(format!(
        "built game {id} ({} hands of double-{}, {} tiles a hand each, {moves} moves by our seat) in {:.1} s",
        args.shape.hands,
        args.shape.max_pip,
        args.shape.hand_size,
        t0.elapsed().as_secs_f64()
    ));
    Ok(id)
}

async fn build(ctx: &Ctx, args: &LongGameArgs) -> anyhow::Result<(i64, u64)> {
    let mut conn = client::register_or_guest(&ctx.server, "longgame").await?;
    let room = client::create_room(&mut conn, args.shape.room_spec()).await?;
    let room = room["id"].as_u64().context("room without id")?;
    client::join(&mut conn, room, 0).await?;
    let fill = ClientMsg::FillBots { room, strategy: "random".into() };
    client::expect(client::request(&mut conn, fill).await?, "ok").context("fill-bots")?;
    conn.send(ClientMsg::Ready { room, read_hand_ends: false }).await?;
    let mut rng = Rng::new(room);
    let mut moves = 0;
    let mut last: Option<String> = None;
    let play = async {
        loop {
            let text = conn.recv_text().await?;
            if text.starts_with(EVENTS_PREFIX) {
                continue;
            }
            let v: Value = serde_json::from_str(&text)?;
            match v["type"].as_str().unwrap_or("") {
                "prompt" => {
                    let prompt = v["prompt"].as_u64().context("prompt without id")?;
                    let legal = v["legal-moves"].as_array().context("prompt without moves")?;
                    if legal.is_empty() {
                        bail!("prompt {prompt} offers no move");
                    }
                    let frame = client::move_frame(room, prompt, &legal[rng.below(legal.len())]);
                    last = Some(frame.clone());
                    conn.send_text(frame).await?;
                    moves += 1;
                }
                "game-over" => match v["game"].as_i64() {
                    Some(id) => return Ok(id),
                    None => bail!("the match was not stored"),
                },
                // Our seat answers faster than the frame rate allows: the
                // move was dropped unread, so it is sent again a little later.
                "error" if v["code"].as_str() == Some("rate-limited") => {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    if let Some(frame) = last.clone() {
                        conn.send_text(frame).await?;
                    }
                }
                "error" => bail!("{}: {}", client::outcome(&v), v["message"].as_str().unwrap_or("")),
                _ => {}
            }
        }
    };
    let id = tokio::time::timeout(Duration::from_secs(900), play).await.context("not over within 900 s")??;
    conn.close().await;
    Ok((id, moves))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_variant_file_names_the_shape() {
        let args = LongShape { max_pip: 12, hand_size: 20, hands: 7 };
        let file = args.variant_file();
        assert!(file.starts_with("base = \"latin\"\n"), "{file}");
        assert!(file.contains("tiles = { max-pip = 12 }"), "{file}");
        assert!(file.contains("deal = { hand-size = 20, rest = \"out-of-play\" }"), "{file}");
        assert!(file.contains("target = { hands = 7 }"), "{file}");
    }
}
