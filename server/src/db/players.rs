//! Players: registered names (a token each, stored hashed) and the rows of
//! hosted strategies (`bot:NAME`, no token), which ratings point at.

use capicua_protocol::OccupantKind;
use sqlx::Row;

use super::columns::Text;
use super::{Db, DbError, hash_token, new_token, now_secs};

/// A player as stored.
#[derive(Clone, Debug, PartialEq, Eq, sqlx::FromRow)]
pub struct Player {
    /// Row id.
    pub id: i64,
    /// Unique name.
    pub name: String,
}

/// Who a name belongs to, as a profile shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Profile {
    /// Row id.
    pub id: i64,
    /// The name as registered.
    pub name: String,
    /// A person's name or a hosted strategy's (`bot:NAME`).
    pub kind: OccupantKind,
    /// Registered at (Unix seconds).
    pub since: i64,
}

impl Db {
    /// The player a name belongs to: the name as written, else the name
    /// its canonical key belongs to (`ANA` finds `ana`).
    pub async fn profile(&self, name: &str) -> Result<Option<Profile>, DbError> {
        let row = sqlx::query(
            "SELECT id, name, kind, created_at FROM players WHERE name = $1 OR name_key = $2
             ORDER BY CASE WHEN name = $1 THEN 0 ELSE 1 END LIMIT 1",
        )
        .bind(name)
        .bind(capicua_protocol::name_key(name))
        .fetch_optional(&self.pool)
        .await?;
        let Some(r) = row else { return Ok(None) };
        Ok(Some(Profile {
            id: r.try_get("id")?,
            name: r.try_get("name")?,
            kind: r.try_get::<Text<OccupantKind>, _>("kind")?.0,
            since: r.try_get("created_at")?,
        }))
    }

    /// Registers a name, returning the player and a fresh token (stored hashed).
    pub async fn register(&self, name: &str) -> Result<(Player, String), DbError> {
        self.insert_player(name, None).await
    }

    /// Registers a name with a password (its PHC hash) in one statement,
    /// as [`Db::register`] does.
    pub async fn register_with_password(&self, name: &str, phc: &str) -> Result<(Player, String), DbError> {
        self.insert_player(name, Some(phc)).await
    }

    async fn insert_player(&self, name: &str, phc: Option<&str>) -> Result<(Player, String), DbError> {
        let token = new_token()?;
        let res = sqlx::query_scalar(
            "INSERT INTO players (name, name_key, token_hash, kind, created_at, password_hash) \
             VALUES ($1, $2, $3, $4, $5, $6) RETURNING id",
        )
        .bind(name)
        .bind(capicua_protocol::name_key(name))
        .bind(hash_token(&token))
        .bind(Text(OccupantKind::Player))
        .bind(now_secs())
        .bind(phc)
        .fetch_one(&self.pool)
        .await;
        match res {
            Ok(id) => Ok((Player { id, name: name.to_string() }, token)),
            Err(sqlx::Error::Database(e)) if e.is_unique_violation() => Err(DbError::NameTaken(name.to_string())),
            Err(e) => Err(e.into()),
        }
    }

    /// Gives every player row without a name key its key: rows made
    /// before keys existed. Where two old names share one (`Ana` and `ana`,
    /// both registered before), the first keeps it and the later none: both
    /// still sign in, and no new name can take the key.
    pub(super) async fn key_names(&self) -> Result<(), DbError> {
        let rows = sqlx::query("SELECT id, name FROM players WHERE name_key IS NULL ORDER BY id")
            .fetch_all(&self.pool)
            .await?;
        for row in rows {
            let (id, name): (i64, String) = (row.try_get("id")?, row.try_get("name")?);
            let keyed = sqlx::query("UPDATE players SET name_key = $1 WHERE id = $2")
                .bind(capicua_protocol::name_key(&name))
                .bind(id)
                .execute(&self.pool)
                .await;
            match keyed {
                Err(sqlx::Error::Database(e)) if e.is_unique_violation() => {}
                other => {
                    other?;
                }
            }
        }
        Ok(())
    }

    /// The player holding a token.
    /// Any of its secrets counts: the token it registered with, a session
    /// of its signing in, or one of its bot tokens ([`Db::credential`]).
    pub async fn player_by_token(&self, token: &str) -> Result<Option<Player>, DbError> {
        Ok(self.credential(token).await?.map(|(p, _)| p))
    }

    /// The id of a registered (token-holding) player.
    pub async fn player_id(&self, name: &str) -> Result<Option<i64>, DbError> {
        let row = sqlx::query("SELECT id FROM players WHERE name = $1 AND token_hash IS NOT NULL")
            .bind(name)
            .fetch_optional(&self.pool)
            .await?;
        Ok(row.map(|r| r.try_get("id")).transpose()?)
    }

    /// The player row of a hosted strategy (`bot:NAME`), if it has one.
    pub async fn hosted_bot_id(&self, strategy: &str) -> Result<Option<i64>, DbError> {
        let row = sqlx::query("SELECT id FROM players WHERE name = $1")
            .bind(format!("bot:{strategy}"))
            .fetch_optional(&self.pool)
            .await?;
        Ok(row.map(|r| r.try_get("id")).transpose()?)
    }

    /// The player row of a hosted strategy (`bot:NAME`), created on first use.
    pub async fn hosted_bot(&self, strategy: &str) -> Result<Player, DbError> {
        let name = format!("bot:{strategy}");
        sqlx::query(
            "INSERT INTO players (name, name_key, token_hash, kind, created_at) VALUES ($1, $2, NULL, $3, $4) \
             ON CONFLICT DO NOTHING",
        )
        .bind(&name)
        .bind(capicua_protocol::name_key(&name))
        .bind(Text(OccupantKind::HostedBot))
        .bind(now_secs())
        .execute(&self.pool)
        .await?;
        let id: i64 = sqlx::query("SELECT id FROM players WHERE name = $1")
            .bind(&name)
            .fetch_one(&self.pool)
            .await?
            .try_get("id")?;
        Ok(Player { id, name })
    }
}
