//! What the room's core asks its task to do ([`Effect`]), and the members
//! it addresses: the core decides, the task performs.

use std::sync::Arc;

use capicua_engine::Seat;
use capicua_protocol::{ErrorCode, RoomId, ServerMsg};
use tokio::sync::oneshot;

use crate::bots::HostedStrategy;
use crate::client::Owner;
use crate::record::GameRecord;
use crate::table::Table;
use crate::{Client, ConnId, Identity};

/// A connection as the core sees it: who it acts for and how it wants its
/// prompts. Messages are addressed to its `conn`.
#[derive(Clone, Debug)]
pub(crate) struct Member {
    /// The connection.
    pub conn: ConnId,
    /// Who it acts for.
    pub ident: Arc<Identity>,
    /// Prompts without the view (asked in `hello`).
    pub lean: bool,
    /// No `accepted` for a legal move sent without an id (asked in `hello`).
    pub skip_accepted: bool,
}

impl Member {
    /// The member a command's sender is.
    pub(crate) fn of(client: &Client) -> Member {
        Member {
            conn: client.conn,
            ident: client.ident.clone(),
            lean: client.out.lean_prompts(),
            skip_accepted: client.out.skip_accepted(),
        }
    }
}

/// How a message is pushed to a connection's outbox.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Push {
    /// Sent at once (replies, prompts, match start and end).
    Now,
    /// May wait for the connection's next urgent frame when it batches
    /// events (events, lobby updates).
    Defer,
    /// Queued without waking the sender: a [`Effect::Wake`] follows, so a
    /// reply leaves in one write with the frames queued after it.
    Quiet,
    /// Sent at once, replacing this room's `sync` still queued for the
    /// connection (a `sync` holds the whole state: an older one is moot).
    Sync(RoomId),
}

/// Counters the room task adds to the server's metrics.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Counter {
    /// A move was played.
    Move,
    /// A request was refused.
    Error,
    /// A seat ran out of time.
    Timeout,
}

/// A strategy to run on a copy of the game, off the room task; its answer
/// comes back to [`super::RoomCore::thought`].
pub(crate) struct Think {
    /// The seat it decides for (from that seat's view only).
    pub seat: Seat,
    /// The strategy, handed back with the answer.
    pub strategy: Box<dyn HostedStrategy>,
    /// A copy of the match at the position to decide.
    pub game: Table,
}

/// Hosted bots for a rated room, waiting for their player row (ratings):
/// the task finds or makes it, then hands it to
/// [`super::RoomCore::bots_registered`].
pub(crate) struct BotFill {
    /// Who asked.
    pub who: Member,
    /// The strategy spec (checked).
    pub strategy: String,
    /// Request id.
    pub id: Option<u64>,
}

/// What the core asks the room task to do, in order.
pub(crate) enum Effect {
    /// Push a message to a connection. A message shared by many recipients
    /// is one `Arc`: the task encodes it once.
    Send {
        /// The connection.
        to: ConnId,
        /// The request id it answers.
        id: Option<u64>,
        /// The message.
        msg: Arc<ServerMsg>,
        /// How.
        push: Push,
    },
    /// Wake a connection's sender (after [`Push::Quiet`] frames).
    Wake(ConnId),
    /// Run a strategy off the task.
    Think(Box<Think>),
    /// Analyse a seat's pending decision for a hint ([`crate::hints`]).
    Hint(Box<crate::hints::HintJob>),
    /// Find or make the player row of a rated room's hosted bots, then
    /// answer [`super::RoomCore::bots_registered`].
    RegisterBots(Box<BotFill>),
    /// Store a finished match, then answer [`super::RoomCore::stored`].
    /// Nobody hears the result before it is committed.
    Store(Box<GameRecord>),
    /// The match is over and announced: `Some(game id)` if it was stored.
    MatchDone(Option<i64>),
    /// A player or guest now holds a seat here (for reconnects).
    Seated(Owner),
    /// A player or guest no longer holds a seat here.
    Unseated(Owner),
    /// The seats given back to a reconnecting player, for its reply.
    GaveBack(oneshot::Sender<Vec<u8>>, Vec<u8>),
    /// A metric to count.
    Count(Counter),
    /// The lobby entry changed ([`super::RoomCore::info`]).
    Info,
    /// Hosted bots have played a long stretch: yield, then call
    /// [`super::RoomCore::resume`].
    Yield,
    /// The room is closed; the task ends.
    Closed,
}

/// Sends a message of its own to one member.
pub(crate) fn send(fx: &mut Vec<Effect>, to: &Member, id: Option<u64>, msg: ServerMsg, push: Push) {
    fx.push(Effect::Send { to: to.conn, id, msg: Arc::new(msg), push });
}

/// Sends one message to several members (encoded once).
pub(crate) fn send_all<'a>(
    fx: &mut Vec<Effect>,
    to: impl IntoIterator<Item = &'a Member>,
    msg: &Arc<ServerMsg>,
    push: Push,
) {
    for m in to {
        fx.push(Effect::Send { to: m.conn, id: None, msg: msg.clone(), push });
    }
}

/// Answers a request.
pub(crate) fn reply(fx: &mut Vec<Effect>, to: &Member, id: Option<u64>, msg: ServerMsg) {
    send(fx, to, id, msg, Push::Now);
}

/// Refuses a request, and counts it.
pub(crate) fn refuse(fx: &mut Vec<Effect>, to: &Member, id: Option<u64>, code: ErrorCode, message: impl Into<String>) {
    fx.push(Effect::Count(Counter::Error));
    reply(fx, to, id, ServerMsg::Error { code, message: message.into(), url: None });
}
