//! The ladder at work: `join-ladder` and `leave-ladder` from a connection,
//! and the pairing task that opens a rated one-match room per table of the
//! [`Ladder`](crate::ladder::Ladder)'s pools, tells each player its seat
//! and brings the players back to their pool once the match is stored.
//!
//! The ladder itself (who is on which, the pools, the pure matchmaker) is
//! `crate::ladder`, which `AppState` holds; this module reads the state.

use std::sync::Arc;

use capicua_protocol::{ErrorCode, ServerMsg};

use crate::ladder::matchmaker::{Pool, PoolError};
use crate::ladder::{Member, ladder_seats, no_ladder, remove};
use crate::{AppState, Client};

/// A player's rating on a preset's board (mean skill; a new player's
/// starting one before its first rated game there).
async fn rating_of(state: &AppState, variant: &str, player: i64) -> Result<f64, crate::db::DbError> {
    let start = skillratings::weng_lin::WengLinRating::new().rating;
    Ok(state.db.rating(variant, player).await?.map_or(start, |(mu, _)| mu))
}

/// `join-ladder`: puts the connection's player in the preset's pool.
pub(crate) async fn join(state: &Arc<AppState>, client: &Client, variant: String, id: Option<u64>) {
    let Some(player) = client.ident.player_id else {
        client.out.send(
            id,
            ServerMsg::Error {
                code: ErrorCode::Unauthorized,
                message: "only registered players (hello with a token) play on the ladder".into(),
                url: None,
            },
        );
        return;
    };
    if ladder_seats(&variant).is_none() {
        client.out.send(id, ServerMsg::Error { code: ErrorCode::BadVariant, message: no_ladder(&variant), url: None });
        return;
    }
    if state.is_shutting_down() {
        let message = "the server is shutting down".into();
        client.out.send(id, ServerMsg::Error { code: ErrorCode::ShuttingDown, message, url: None });
        return;
    }
    let rating = match rating_of(state, &variant, player).await {
        Ok(r) => r,
        Err(e) => {
            tracing::error!(error = %e, "reading a rating for the ladder");
            let message = "could not read the rating".into();
            client.out.send(id, ServerMsg::Error { code: ErrorCode::Internal, message, url: None });
            return;
        }
    };
    let now = state.ladder.now_ms();
    let cap = state.config.ladder.pool_cap;
    let mut inner = state.ladder.lock();
    // A player given a seat it never took cost its opponents a match: it
    // sits out a while, or names that never show would fill the pools.
    if let Some(secs) = crate::ladder::benched_secs(&mut inner.benched, &player, now) {
        drop(inner);
        let message = format!("you missed your last ladder match; join again in {secs} s");
        client.out.send(id, ServerMsg::Error { code: ErrorCode::RateLimited, message, url: None });
        return;
    }
    let playing = match inner.members.get(&player) {
        Some(m) if m.variant != variant => {
            let playing = m.playing;
            remove(&mut inner, player);
            playing
        }
        Some(m) => m.playing,
        None => false,
    };
    inner.members.insert(player, Member { variant: variant.clone(), client: client.clone(), playing });
    let pool = inner.pools.entry(variant.clone()).or_insert_with(|| Pool::new(cap));
    if !playing && let Err(e @ PoolError::Full(_)) = pool.join(player, rating, now) {
        inner.members.remove(&player);
        drop(inner);
        client.out.send(id, ServerMsg::Error { code: ErrorCode::Busy, message: e.to_string(), url: None });
        return;
    }
    let waiting = pool.len() as u32;
    drop(inner);
    client.out.send(id, ServerMsg::Ladder { variant: Some(variant), waiting });
}

/// `leave-ladder`: takes the connection's player off the ladder (a match
/// in play goes on).
pub(crate) fn leave(state: &AppState, client: &Client, id: Option<u64>) {
    let Some(player) = client.ident.player_id else {
        let message = "only registered players play on the ladder".into();
        client.out.send(id, ServerMsg::Error { code: ErrorCode::Unauthorized, message, url: None });
        return;
    };
    remove(&mut state.ladder.lock(), player);
    client.out.send(id, ServerMsg::Ladder { variant: None, waiting: 0 });
}

/// Starts the pairing task: every [`LadderConfig::every`](crate::ladder::LadderConfig::every) it pairs the
/// waiting players and opens a room per table, until shutdown.
pub(crate) fn spawn(state: Arc<AppState>) {
    tokio::spawn(async move {
        let mut shutdown = state.shutdown();
        let mut tick = tokio::time::interval(state.config.ladder.every);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                _ = tick.tick() => {}
                _ = crate::shutdown_signalled(&mut shutdown) => return,
            }
            if state.is_shutting_down() {
                return;
            }
            for (variant, players) in state.ladder.pair(state.config.ladder.gap) {
                open(&state, variant, players).await;
            }
            crate::play_now::pair_and_open(&state, state.config.ladder.gap).await;
        }
    });
}

/// Opens the rated room of one table, tells each player its seat, and
/// brings them back to the pool once the match is stored (or the room
/// ended without one).
async fn open(state: &Arc<AppState>, variant: String, mut players: Vec<i64>) {
    let cfg = &state.config.ladder;
    let owner = |&p: &i64| crate::client::Owner::Player(p);
    let opened = crate::room::open_reserved(
        state,
        crate::room::Reserved {
            preset: &variant,
            rated: true,
            move_ms: cfg.move_ms,
            no_show: cfg.no_show,
            one_match: true,
        },
        &mut players,
        owner,
    )
    .await;
    let (info, ended) = match opened {
        Ok(opened) => opened,
        Err(e) => {
            tracing::warn!(error = %e, variant, "opening a ladder room");
            back_to_pool(state, &players).await;
            return;
        }
    };
    tracing::debug!(room = info.id, variant, players = ?players, "ladder match");
    {
        let inner = state.ladder.lock();
        for (seat, p) in players.iter().enumerate() {
            if let Some(m) = inner.members.get(p) {
                m.client
                    .out
                    .send(None, ServerMsg::LadderMatch { room: info.id, seat: seat as u8, variant: variant.clone() });
            }
        }
    }
    let state = state.clone();
    tokio::spawn(async move {
        let absent: Vec<i64> = ended.await.into_iter().map(|i| players[i]).collect();
        state.ladder.bench(&absent, state.config.ladder.no_show_cooldown);
        back_to_pool(&state, &players).await;
    });
}

/// Players whose ladder match is over wait again, each on the ladder it is
/// on now, if the connection that joined is still open.
async fn back_to_pool(state: &AppState, players: &[i64]) {
    for &p in players {
        let variant = match state.ladder.lock().members.get(&p) {
            Some(m) if m.playing && m.client.out.is_open() => m.variant.clone(),
            _ => continue,
        };
        // Read after the match was stored: its result counts.
        let rating = match rating_of(state, &variant, p).await {
            Ok(r) => r,
            Err(e) => {
                tracing::error!(error = %e, "reading a rating for the ladder");
                continue;
            }
        };
        let now = state.ladder.now_ms();
        let cap = state.config.ladder.pool_cap;
        let mut inner = state.ladder.lock();
        let Some(m) = inner.members.get_mut(&p).filter(|m| m.playing && m.variant == variant) else { continue };
        m.playing = false;
        let client = m.client.clone();
        let pool = inner.pools.entry(variant).or_insert_with(|| Pool::new(cap));
        if let Err(e) = pool.join(p, rating, now) {
            inner.members.remove(&p);
            drop(inner);
            client.out.send(None, ServerMsg::Error { code: ErrorCode::Busy, message: e.to_string(), url: None });
        }
    }
}
