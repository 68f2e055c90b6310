//! The send side of a connection: the send task that drains its
//! [`Outbox`], and the refusal of a connection over the cap.

use axum::extract::ws::{CloseFrame, Message};
use capicua_protocol::{ErrorCode, ServerMsg, close};
use futures_util::{Sink, SinkExt};

use crate::Outbox;

/// Refuses a connection at the cap: an error frame, then close code 1013
/// (try again later).
pub(crate) async fn refuse<S>(mut sink: S)
where
    S: Sink<Message> + Unpin,
{
    let frame = crate::encode(
        None,
        ServerMsg::Error {
            code: ErrorCode::TooManyConnections,
            message: "the server is at its connection cap".into(),
            url: None,
        },
    );
    let _ = sink.send(Message::Text(frame)).await;
    let _ = sink
        .send(Message::Close(Some(CloseFrame { code: close::TRY_AGAIN_LATER, reason: "connection cap".into() })))
        .await;
}

/// The send task: writes what is queued, one flush (one `write`) for every
/// batch; once the outbox closes, the last frames, then the close frame if
/// one was asked for.
pub(super) async fn send_loop<S>(mut sink: S, out: Outbox, ping_every: std::time::Duration)
where
    S: Sink<Message> + Unpin,
{
    let mut spare = Vec::new();
    let ping_every = ping_every.max(std::time::Duration::from_millis(100));
    let mut ping = tokio::time::interval_at(tokio::time::Instant::now() + ping_every, ping_every);
    ping.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        let next = out.next_batch(spare);
        let mut next = std::pin::pin!(next);
        let batch = loop {
            tokio::select! {
                batch = &mut next => break batch,
                _ = ping.tick() => {
                    if sink.send(Message::Ping(Default::default())).await.is_err() {
                        return;
                    }
                }
            }
        };
        let mut frames = batch.frames;
        for text in frames.drain(..) {
            if sink.feed(Message::Text(text)).await.is_err() {
                return;
            }
        }
        spare = frames;
        if sink.flush().await.is_err() {
            return;
        }
        match batch.close {
            None => {}
            Some(Some((code, reason))) => {
                let _ = sink.send(Message::Close(Some(CloseFrame { code, reason: reason.into() }))).await;
                return;
            }
            Some(None) => break,
        }
    }
    let _ = sink.close().await;
}
