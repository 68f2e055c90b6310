//! Bots named by `--register`: their tokens, from their token files or by
//! registering their names.

use std::path::PathBuf;

use capicua_protocol::{ClientMsg, ErrorCode, ServerMsg};

use super::connection::{Connection, Greeting};
use super::error::{RemoteError, unexpected};
use super::tally::Tally;
use crate::backoff::Backoff;
use crate::token_file;
use crate::transport::ServerAddr;

/// A bot named by `--register`: its player's name and token file.
#[derive(Clone, Debug)]
pub struct Registration {
    /// The player name.
    pub name: String,
    /// Where its token is kept.
    pub token_file: PathBuf,
}

/// The tokens of `players`, in order: read from each token file (and
/// checked with the server: known, and the player's), or, for a missing
/// file, registered and written to it. Transient errors are retried with
/// backoff as the bots' are.
pub async fn tokens_for(server: &str, players: &[Registration], tally: &Tally) -> Result<Vec<String>, RemoteError> {
    ServerAddr::parse(server)?;
    let mut backoff = Backoff::from_os();
    let mut tokens = Vec::with_capacity(players.len());
    for (i, player) in players.iter().enumerate() {
        let token = token_for(server, player, &mut backoff, tally, i as u64).await;
        tally.outage.gone(i as u64);
        tokens.push(token?);
    }
    Ok(tokens)
}

async fn token_for(
    server: &str,
    player: &Registration,
    backoff: &mut Backoff,
    tally: &Tally,
    bot: u64,
) -> Result<String, RemoteError> {
    let path = &player.token_file;
    let known = token_file::read(path)?;
    // Created before registering: a directory that cannot be written fails
    // before the name is taken.
    let mut pending = match known {
        Some(_) => None,
        None => Some(token_file::Pending::create(path)?),
    };
    loop {
        let mut connected = false;
        let attempt = async {
            let mut conn = Connection::connect(server).await?;
            connected = true;
            let got = match &known {
                Some(token) => check_token(&mut conn, server, player, token).await,
                None => register(&mut conn, server, player).await,
            };
            conn.close().await;
            got
        };
        match attempt.await {
            Ok(token) => {
                tally.recovered(bot, server);
                backoff.reset();
                match pending.take() {
                    Some(file) => {
                        file.commit(&token)?;
                        eprintln!("registered {} on {server}; its token is in {}", player.name, path.display());
                    }
                    None => eprintln!("playing as {} (token from {})", player.name, path.display()),
                }
                return Ok(token);
            }
            Err(e) if !e.is_transient() => return Err(e),
            Err(e) => {
                tally.failed(bot, server, &e, connected);
                tokio::time::sleep(backoff.next_delay()).await;
            }
        }
    }
}

/// Checks that the server knows `token` and that it is `player`'s.
async fn check_token(
    conn: &mut Connection,
    server: &str,
    player: &Registration,
    token: &str,
) -> Result<String, RemoteError> {
    match conn.greet(Some(token.to_string()), Greeting::default()).await {
        Ok((info, _)) if info.name == player.name => Ok(token.to_string()),
        Ok((info, _)) => Err(RemoteError::WrongPlayer {
            path: player.token_file.clone(),
            name: player.name.clone(),
            holder: info.name,
        }),
        Err(RemoteError::Server { code: ErrorCode::BadToken, .. }) => {
            Err(RemoteError::TokenRejected { path: player.token_file.clone(), server: server.to_string() })
        }
        Err(e) => Err(e),
    }
}

/// Registers `player`'s name, returning its new token.
async fn register(conn: &mut Connection, server: &str, player: &Registration) -> Result<String, RemoteError> {
    conn.greet(None, Greeting::default()).await?;
    match conn.request(ClientMsg::Register { name: player.name.clone() }, |_| {}).await? {
        ServerMsg::Registered { token, .. } => Ok(token),
        ServerMsg::Error { code: ErrorCode::NameTaken, .. } => Err(RemoteError::NameTaken {
            name: player.name.clone(),
            server: server.to_string(),
            path: player.token_file.clone(),
        }),
        other => Err(unexpected("register", other)),
    }
}
