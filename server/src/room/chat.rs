//! The room's chat bucket: a line costs a frame to every member, so the
//! room bounds how many lines it passes on, however many members talk.

use tokio::time::Instant;

/// Tokens refilled at [`capicua_protocol::ROOM_CHAT_PER_SEC`] up to
/// [`capicua_protocol::ROOM_CHAT_BURST`]; full until first used.
#[derive(Default)]
pub(crate) struct ChatBucket {
    /// Tokens, and when they were counted.
    tokens: Option<(f64, Instant)>,
}

impl ChatBucket {
    /// Takes a token for a line at `now`; false when the room's chat is busy.
    pub(crate) fn take(&mut self, now: Instant) -> bool {
        let per_sec = f64::from(capicua_protocol::ROOM_CHAT_PER_SEC);
        let burst = f64::from(capicua_protocol::ROOM_CHAT_BURST);
        let (tokens, last) = self.tokens.unwrap_or((burst, now));
        let tokens = (tokens + now.saturating_duration_since(last).as_secs_f64() * per_sec).min(burst);
        if tokens < 1.0 {
            self.tokens = Some((tokens, now));
            return false;
        }
        self.tokens = Some((tokens - 1.0, now));
        true
    }
}
