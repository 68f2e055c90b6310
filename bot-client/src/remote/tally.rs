//! What the bots of one process count and report together.

use std::collections::HashSet;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use capicua_protocol::{GameId, RoomId};

use super::error::RemoteError;
use crate::backoff::{self, Outage, Recovery, Told};
use crate::transport::ServerAddr;

/// Counters and reports shared by the bots of one process.
#[derive(Debug, Default)]
pub struct Tally {
    /// Moves accepted.
    pub moves: AtomicU64,
    /// Matches finished, each once however many bots of this process sat
    /// at it.
    pub games: AtomicU64,
    /// Error frames received.
    pub errors: AtomicU64,
    /// Connections got back: a bot that had been connected failed, then
    /// connected again (however many attempts that took).
    pub reconnects: AtomicU64,
    /// The bots that have been connected at least once.
    connected: Mutex<HashSet<u64>>,
    /// The bots that cannot reach the server right now.
    pub outage: Outage,
    /// Matches already reported: by stored game id, or by room and sequence
    /// number when the server could not store one.
    reported: Mutex<HashSet<(Option<GameId>, RoomId, u64)>>,
    /// The server's `site` (its public URL), once a welcome said it: game
    /// links start there rather than at the address the bots dialled,
    /// which may be a name only their network knows.
    site: Mutex<Option<String>>,
}

impl Tally {
    /// The line telling that a match ended (`game 17 stored:
    /// http://HOST:PORT/api/games/17`), the first time a bot of this
    /// process reports it; `None` when another bot at the same table
    /// already did.
    pub fn match_over(&self, server: &ServerAddr, room: RoomId, seq: u64, game: Option<GameId>) -> Option<String> {
        // Every bot at a table hears the same `game-over`: the stored id
        // (or, unstored, the room's sequence number) tells them apart.
        let key = match game {
            Some(id) => (Some(id), 0, 0),
            None => (None, room, seq),
        };
        if !self.reported.lock().expect("report lock").insert(key) {
            return None;
        }
        let site = self.site.lock().expect("site lock").clone();
        let url = |id: GameId| match site {
            Some(site) => Some(format!("{site}/api/games/{id}")),
            None => server.game_url(id),
        };
        Some(match (game, game.and_then(url)) {
            (Some(id), Some(url)) => format!("game {id} stored: {url}"),
            (Some(id), None) => format!("game {id} stored"),
            (None, _) => format!("match in room {room} over; the server could not store it"),
        })
    }

    /// Records the site a server's welcome gave (an `http://` or `https://`
    /// URL; anything else is ignored).
    pub fn learn_site(&self, site: Option<&str>) {
        if let Some(site) = site.filter(|s| s.starts_with("http://") || s.starts_with("https://")) {
            *self.site.lock().expect("site lock") = Some(site.trim_end_matches('/').to_string());
        }
    }

    /// A bot saw a match end: the match counts, and its line is printed,
    /// once however many bots of this process sat at it.
    pub fn ended(&self, server: &ServerAddr, room: RoomId, seq: u64, game: Option<GameId>) {
        if let Some(line) = self.match_over(server, room, seq, game) {
            self.games.fetch_add(1, Ordering::Relaxed);
            println!("{line}");
        }
    }

    /// Bot `bot` failed an attempt with a transient error (`connected`: it
    /// had a connection and lost it): tells the outage when it starts or
    /// shows a new cause.
    pub(crate) fn failed(&self, bot: u64, server: &str, e: &RemoteError, connected: bool) {
        let cause = e.cause();
        match self.outage.failed(bot, &cause, connected, Instant::now()) {
            Told::Start => eprintln!("{}", backoff::down_line(server, &cause, connected)),
            Told::NewCause => eprintln!("{}", backoff::still_line(server, &cause)),
            Told::Quiet => {}
        }
    }

    /// Bot `bot` is connected: counts a reconnect if it had been connected
    /// before and failed since, and tells the end of the outage if it was
    /// the last bot retrying.
    pub(crate) fn recovered(&self, bot: u64, server: &str) {
        let first = self.connected.lock().expect("connected lock").insert(bot);
        let recovery = self.outage.recovered(bot, Instant::now());
        if !first && recovery != Recovery::Up {
            self.reconnects.fetch_add(1, Ordering::Relaxed);
        }
        if let Recovery::Over(end) = recovery {
            eprintln!("{}", backoff::up_line(server, &end));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_match_is_reported_once_per_process_with_its_address() {
        let tally = Tally::default();
        let ws = ServerAddr::parse("ws://127.0.0.1:8080/ws").unwrap();
        let line = tally.match_over(&ws, 3, 90, Some(17));
        assert_eq!(line.as_deref(), Some("game 17 stored: http://127.0.0.1:8080/api/games/17"));
        assert_eq!(tally.match_over(&ws, 3, 90, Some(17)), None, "the other bots at the table say nothing");
        assert!(tally.match_over(&ws, 3, 150, Some(18)).is_some(), "the next match is told");
        let unix = ServerAddr::parse("unix:/tmp/c.sock").unwrap();
        assert_eq!(tally.match_over(&unix, 4, 5, Some(19)).as_deref(), Some("game 19 stored"));
        let lost = tally.match_over(&unix, 4, 9, None).unwrap();
        assert!(lost.contains("could not store"), "{lost}");
        assert_eq!(tally.match_over(&unix, 4, 9, None), None);
    }

    #[test]
    fn game_links_start_at_the_site_the_server_gave_not_the_address_dialled() {
        let tally = Tally::default();
        let inside = ServerAddr::parse("ws://server:8080/ws").unwrap();
        tally.learn_site(Some("unix:/run/c.sock"));
        tally.learn_site(None);
        let line = tally.match_over(&inside, 1, 1, Some(1)).unwrap();
        assert_eq!(line, "game 1 stored: http://server:8080/api/games/1", "no site yet: the address dialled");
        tally.learn_site(Some("http://127.0.0.1:8080/"));
        let line = tally.match_over(&inside, 1, 2, Some(2)).unwrap();
        assert_eq!(line, "game 2 stored: http://127.0.0.1:8080/api/games/2");
    }

    #[test]
    fn a_reconnect_is_a_connection_got_back_not_an_attempt() {
        let tally = Tally::default();
        let refused = RemoteError::Ws(tokio_tungstenite::tungstenite::Error::Io(std::io::Error::from(
            std::io::ErrorKind::ConnectionRefused,
        )));
        let reconnects = || tally.reconnects.load(Ordering::Relaxed);
        // A server not up yet: attempts fail, then the first connection is
        // no reconnect.
        tally.failed(0, "ws://h/ws", &refused, false);
        tally.failed(0, "ws://h/ws", &refused, false);
        tally.recovered(0, "ws://h/ws");
        assert_eq!(reconnects(), 0);
        // One outage of six failed attempts: one reconnect.
        tally.failed(0, "ws://h/ws", &RemoteError::Closed, true);
        for _ in 0..5 {
            tally.failed(0, "ws://h/ws", &refused, false);
        }
        assert_eq!(reconnects(), 0, "attempts are not reconnects");
        tally.recovered(0, "ws://h/ws");
        assert_eq!(reconnects(), 1);
        // A session that starts again without failing (a room closed).
        tally.recovered(0, "ws://h/ws");
        assert_eq!(reconnects(), 1);
        // Two bots back from one outage: two reconnects.
        tally.recovered(1, "ws://h/ws");
        tally.failed(0, "ws://h/ws", &RemoteError::Closed, true);
        tally.failed(1, "ws://h/ws", &RemoteError::Closed, true);
        tally.failed(1, "ws://h/ws", &refused, false);
        tally.recovered(1, "ws://h/ws");
        tally.recovered(0, "ws://h/ws");
        assert_eq!(reconnects(), 3);
    }
}
