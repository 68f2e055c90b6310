//! Play now at work: `seek` and `cancel-seek` from a connection, and the
//! pairing that opens a one-match room per table formed and tells each
//! seeker its seat (`paired`).
//!
//! Who seeks what is [`Seeks`](crate::ladder::seeks::Seeks), which
//! `AppState` holds; this module reads the state.

use std::sync::Arc;

use capicua_protocol::{ErrorCode, ServerMsg};

use crate::client::Owner;
use crate::ladder::matchmaker::{Gap, Pool, PoolError};
use crate::ladder::seeks::{Seeker, Wanted, not_seeking, seat_range};
use crate::{AppState, Client};

fn refuse(client: &Client, id: Option<u64>, code: ErrorCode, message: String) {
    client.out.send(id, ServerMsg::Error { code, message, url: None });
}

/// `seek`: puts the connection's owner in the pool of what it seeks.
pub(crate) async fn seek(
    state: &Arc<AppState>,
    client: &Client,
    preset: String,
    seats: Option<u8>,
    rated: bool,
    id: Option<u64>,
) {
    let Some((min, max)) = seat_range(&preset) else {
        return refuse(client, id, ErrorCode::BadVariant, crate::ladder::no_ladder(&preset));
    };
    let seats = seats.unwrap_or(min);
    if !(min..=max).contains(&seats) {
        let message = format!("{preset} is played by {min} to {max}; asked for {seats}");
        return refuse(client, id, ErrorCode::BadVariant, message);
    }
    let player = client.ident.player_id;
    if rated && player.is_none() {
        let message = "rated play is for registered players; seek casual play, or register".into();
        return refuse(client, id, ErrorCode::Unauthorized, message);
    }
    if state.is_shutting_down() {
        return refuse(client, id, ErrorCode::ShuttingDown, "the server is shutting down".into());
    }
    // Casual seekers meet whoever waits longest; rated ones meet their
    // nearest rating first.
    let rating = match player {
        Some(p) if rated => {
            let start = skillratings::weng_lin::WengLinRating::new().rating;
            match state.db.rating(&preset, p).await {
                Ok(r) => r.map_or(start, |(mu, _)| mu),
                Err(e) => {
                    tracing::error!(error = %e, "reading a rating for Play now");
                    return refuse(client, id, ErrorCode::Internal, "could not read the rating".into());
                }
            }
        }
        _ => 0.0,
    };
    let owner = client.ident.owner(client.conn);
    let wanted = Wanted { preset, seats, rated };
    let now = state.seeks.now_ms();
    let mut inner = state.seeks.lock();
    if let Some(secs) = crate::ladder::benched_secs(&mut inner.benched, &owner, now) {
        drop(inner);
        let message = format!("you did not take your last Play now seat; seek again in {secs} s");
        return refuse(client, id, ErrorCode::RateLimited, message);
    }
    // One seek per owner: a second (from any of its connections) replaces
    // the first, whose connection is told.
    if let Some(old) = inner.remove(owner)
        && old.client.conn != client.conn
    {
        old.client.out.send(None, not_seeking());
    }
    let pool = inner.pools.entry(wanted.clone()).or_insert_with(|| Pool::new(state.config.seeks.pool_cap));
    if let Err(e @ PoolError::Full(_)) = pool.join(owner, rating, now) {
        drop(inner);
        return refuse(client, id, ErrorCode::Busy, e.to_string());
    }
    let waiting = pool.len() as u32;
    inner.seekers.insert(owner, Seeker { wanted: wanted.clone(), client: client.clone() });
    drop(inner);
    tracing::debug!(?owner, preset = wanted.preset, seats, rated, "seeking");
    client.out.send(id, ServerMsg::Seeking { preset: Some(wanted.preset), seats, rated, waiting });
}

/// `cancel-seek`: ends the connection's owner's seek, if any.
pub(crate) fn cancel(state: &AppState, client: &Client, id: Option<u64>) {
    let owner = client.ident.owner(client.conn);
    state.seeks.lock().remove(owner);
    client.out.send(id, not_seeking());
}

/// Pairs the seekers and opens a room per table formed.
pub(crate) async fn pair_and_open(state: &Arc<AppState>, gap: Gap) {
    for (wanted, seated) in state.seeks.pair(gap) {
        open(state, wanted, seated).await;
    }
}

/// Opens the room of one table and tells each seeker its seat.
async fn open(state: &Arc<AppState>, wanted: Wanted, mut seated: Vec<(Owner, Client)>) {
    let cfg = &state.config.seeks;
    let owner = |(o, _): &(Owner, Client)| *o;
    // The room stays after the match: its players play again when all of
    // them say ready (a rematch), and it closes once they have all left.
    let table = crate::room::Reserved {
        preset: &wanted.preset,
        rated: wanted.rated,
        move_ms: cfg.move_ms,
        no_show: cfg.no_show,
        one_match: false,
    };
    let opened = crate::room::open_reserved(state, table, &mut seated, owner).await;
    let (info, ended) = match opened {
        Ok(opened) => opened,
        Err(e) => {
            tracing::warn!(error = %e, preset = wanted.preset, "opening a Play now room");
            for (_, c) in &seated {
                let message = format!("could not open the room: {e}; seek again");
                c.out.send(None, ServerMsg::Error { code: ErrorCode::Internal, message, url: None });
                c.out.send(None, not_seeking());
            }
            return;
        }
    };
    tracing::info!(
        room = info.id,
        preset = wanted.preset,
        seats = wanted.seats,
        rated = wanted.rated,
        "Play now pairing"
    );
    for (seat, (_, c)) in seated.iter().enumerate() {
        let msg =
            ServerMsg::Paired { room: info.id, seat: seat as u8, preset: wanted.preset.clone(), rated: wanted.rated };
        c.out.send(None, msg);
    }
    let owners: Vec<Owner> = seated.into_iter().map(|(o, _)| o).collect();
    let state = state.clone();
    tokio::spawn(async move {
        let absent: Vec<Owner> = ended.await.into_iter().map(|i| owners[i]).collect();
        state.seeks.bench(&absent, state.config.seeks.no_show_cooldown);
    });
}
