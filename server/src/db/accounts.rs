//! Accounts as stored (`migrations/0020_accounts.sql`): passwords, the
//! browser sessions signing in makes, and the bot tokens a player makes,
//! names and revokes. Every secret is stored as its SHA-256, never itself.

use serde::Serialize;
use sqlx::Row;

use super::columns::Text;
use super::players::Player;
use super::{Db, DbError, hash_token, new_token, now_secs};
use capicua_protocol::OccupantKind;

/// What a secret a client shows is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Credential {
    /// The token a name was registered with: the whole account.
    Account,
    /// A browser session made by signing in.
    Session,
    /// One of the player's bot tokens (its id): it plays, nothing more.
    Bot(i64),
}

/// A bot token as the account page lists it (never the token itself).
#[derive(Clone, Debug, Serialize, PartialEq, Eq, sqlx::FromRow)]
#[serde(rename_all = "kebab-case")]
pub struct BotToken {
    /// Its id, to revoke it by.
    pub id: i64,
    /// The name its player gave it.
    pub name: String,
    /// Made at (Unix seconds).
    pub created_at: i64,
}

/// Most bot tokens one player may hold.
pub const MAX_BOT_TOKENS: i64 = 20;

impl Db {
    /// The player a secret belongs to, and what kind of secret it is.
    pub async fn credential(&self, token: &str) -> Result<Option<(Player, Credential)>, DbError> {
        let hash = hash_token(token);
        let row = sqlx::query(
            "SELECT id, name, 0 AS via, 0 AS bot FROM players WHERE token_hash = $1
             UNION ALL
             SELECT p.id, p.name, 1, 0 FROM sessions s JOIN players p ON p.id = s.player_id WHERE s.token_hash = $1
             UNION ALL
             SELECT p.id, p.name, 2, b.id FROM bot_tokens b JOIN players p ON p.id = b.player_id WHERE b.token_hash = $1",
        )
        .bind(&hash)
        .fetch_optional(&self.pool)
        .await?;
        let Some(r) = row else { return Ok(None) };
        let player = Player { id: r.try_get("id")?, name: r.try_get("name")? };
        let via = match r.try_get::<i64, _>("via")? {
            0 => Credential::Account,
            1 => Credential::Session,
            _ => Credential::Bot(r.try_get("bot")?),
        };
        Ok(Some((player, via)))
    }

    /// The player of `name` (its exact spelling, or the name its canonical
    /// key belongs to) with its password hash, if it has one.
    pub async fn password_of(&self, name: &str) -> Result<Option<(Player, Option<String>)>, DbError> {
        let row = sqlx::query(
            "SELECT id, name, password_hash FROM players WHERE (name = $1 OR name_key = $2) AND kind = $3
             ORDER BY CASE WHEN name = $1 THEN 0 ELSE 1 END LIMIT 1",
        )
        .bind(name)
        .bind(capicua_protocol::name_key(name))
        .bind(Text(OccupantKind::Player))
        .fetch_optional(&self.pool)
        .await?;
        let Some(r) = row else { return Ok(None) };
        Ok(Some((Player { id: r.try_get("id")?, name: r.try_get("name")? }, r.try_get("password_hash")?)))
    }

    /// Whether the player has a password.
    pub async fn has_password(&self, player: i64) -> Result<bool, DbError> {
        let n: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM players WHERE id = $1 AND password_hash IS NOT NULL")
            .bind(player)
            .fetch_one(&self.pool)
            .await?;
        Ok(n > 0)
    }

    /// Sets (or changes) a player's password, given as its PHC hash.
    pub async fn set_password(&self, player: i64, phc: &str) -> Result<(), DbError> {
        sqlx::query("UPDATE players SET password_hash = $1 WHERE id = $2")
            .bind(phc)
            .bind(player)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// A new session for the player: its secret (a fresh one at every
    /// sign-in, so no session id chosen before signing in survives it).
    pub async fn new_session(&self, player: i64) -> Result<String, DbError> {
        let token = new_token()?;
        sqlx::query("INSERT INTO sessions (token_hash, player_id, created_at) VALUES ($1, $2, $3)")
            .bind(hash_token(&token))
            .bind(player)
            .bind(now_secs())
            .execute(&self.pool)
            .await?;
        Ok(token)
    }

    /// Ends one session (signing out); true if it existed.
    pub async fn end_session(&self, token: &str) -> Result<bool, DbError> {
        let done = sqlx::query("DELETE FROM sessions WHERE token_hash = $1")
            .bind(hash_token(token))
            .execute(&self.pool)
            .await?;
        Ok(done.rows_affected() > 0)
    }

    /// Ends every session of a player (signing out everywhere); how many.
    pub async fn end_sessions(&self, player: i64) -> Result<u64, DbError> {
        let done = sqlx::query("DELETE FROM sessions WHERE player_id = $1").bind(player).execute(&self.pool).await?;
        Ok(done.rows_affected())
    }

    /// The player's sessions open now.
    pub async fn sessions(&self, player: i64) -> Result<i64, DbError> {
        Ok(sqlx::query_scalar("SELECT COUNT(*) FROM sessions WHERE player_id = $1")
            .bind(player)
            .fetch_one(&self.pool)
            .await?)
    }

    /// Makes a named bot token for the player: the listing and the token,
    /// which is never shown again. `None` when the player holds
    /// [`MAX_BOT_TOKENS`] already.
    pub async fn new_bot_token(&self, player: i64, name: &str) -> Result<Option<(BotToken, String)>, DbError> {
        let held: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM bot_tokens WHERE player_id = $1")
            .bind(player)
            .fetch_one(&self.pool)
            .await?;
        if held >= MAX_BOT_TOKENS {
            return Ok(None);
        }
        let token = new_token()?;
        let created_at = now_secs();
        let id: i64 = sqlx::query_scalar(
            "INSERT INTO bot_tokens (player_id, name, token_hash, created_at) VALUES ($1, $2, $3, $4) RETURNING id",
        )
        .bind(player)
        .bind(name)
        .bind(hash_token(&token))
        .bind(created_at)
        .fetch_one(&self.pool)
        .await?;
        Ok(Some((BotToken { id, name: name.to_string(), created_at }, token)))
    }

    /// The player's bot tokens, oldest first.
    pub async fn bot_tokens(&self, player: i64) -> Result<Vec<BotToken>, DbError> {
        Ok(sqlx::query_as("SELECT id, name, created_at FROM bot_tokens WHERE player_id = $1 ORDER BY id")
            .bind(player)
            .fetch_all(&self.pool)
            .await?)
    }

    /// Revokes one of the player's bot tokens; false if it has none of that id.
    pub async fn revoke_bot_token(&self, player: i64, id: i64) -> Result<bool, DbError> {
        let done = sqlx::query("DELETE FROM bot_tokens WHERE id = $1 AND player_id = $2")
            .bind(id)
            .bind(player)
            .execute(&self.pool)
            .await?;
        Ok(done.rows_affected() > 0)
    }
}
