//! What the bots of `capicua-bot play` are asked to do: the server, the
//! strategies, which rooms to find or create, and who plays.

use std::fmt;
use std::sync::Arc;

use capicua_engine::Variant;
use capicua_protocol::RoomId;
use capicua_strategy::Strategy;
use capicua_strategy::poly::PolyStrategy;

/// What `capicua-bot play` was asked.
#[derive(Clone, Debug)]
pub struct PlayConfig {
    /// `ws://HOST:PORT/ws`.
    pub server: String,
    /// A registered player's token (guests play casual rooms only).
    pub token: Option<String>,
    /// The strategy spec.
    pub strategy: String,
    /// The poly strategy spec (rooms of tiles with 3, 4 or 6 faces; see
    /// [`capicua_strategy::poly::build_poly`]).
    pub poly_strategy: String,
    /// The room to join, or find one.
    pub room: Option<RoomId>,
    /// The preset for a room this bot creates when it finds none (a poly
    /// preset such as `triominoes` finds and creates poly rooms).
    pub preset: String,
    /// Bots in this process.
    pub count: usize,
    /// Stop after this many finished matches per bot (`None`: until stopped).
    pub matches: Option<u64>,
}

/// Who the bots of [`play_as`](super::play_as) are and which rooms they look for, beyond
/// [`PlayConfig`]; the default is what [`play`](super::play) does.
#[derive(Clone, Debug, Default)]
pub struct PlayOptions {
    /// One token per bot, bot `i` playing with `tokens[i]` (registered
    /// players, from [`tokens_for`](super::tokens_for)); bots past the end use
    /// [`PlayConfig::token`].
    pub tokens: Vec<String>,
    /// Find or create rated rooms only (every bot needs a token). Without
    /// it, casual rooms only.
    pub rated: bool,
    /// The full variant of the rooms to find or create, instead of
    /// [`PlayConfig::preset`].
    pub variant: Option<PlayVariant>,
    /// Strategies of the caller's own, instead of those
    /// [`PlayConfig::strategy`] and [`PlayConfig::poly_strategy`] name.
    pub strategies: Option<Strategies>,
}

/// Builds a bot's strategy for each tile family from the bot's seed (once
/// per connection): strategies that no spec names, such as the Python
/// package's functions.
#[derive(Clone)]
pub struct Strategies(pub Arc<BuildStrategies>);

/// What [`Strategies`] calls: a bot's seed in, its two strategies out.
pub type BuildStrategies = dyn Fn(u64) -> (Box<dyn Strategy>, Box<dyn PolyStrategy>) + Send + Sync;

impl fmt::Debug for Strategies {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Strategies(..)")
    }
}

/// The rules of the rooms a bot finds or creates, from a variant file.
#[derive(Clone, Debug, PartialEq)]
pub enum PlayVariant {
    /// Dominoes: the variant, sent whole in `create-room`.
    Tiles(Box<Variant>),
    /// Tiles with 3, 4 or 6 faces: the variant's name, and the file's
    /// text, sent as `variant-file` (the server parses it as it would any
    /// client's).
    Poly {
        /// The variant's name (rooms are found by it).
        name: String,
        /// The variant file's text.
        file: String,
    },
}
