-- Accounts a person signs in to from any device: a password (argon2id,
-- PHC string; NULL until the player sets one), the browser sessions made
-- by signing in (each a secret held in an HttpOnly cookie, stored as its
-- SHA-256), and the bot tokens the player made (several per account, each
-- named, stored as its SHA-256, revoked by deleting its row). A player's
-- first token (players.token_hash) keeps working as before.
ALTER TABLE players ADD COLUMN password_hash TEXT;

CREATE TABLE sessions (
    token_hash  TEXT     PRIMARY KEY,
    player_id   INTEGER  NOT NULL REFERENCES players (id),
    created_at  INTEGER  NOT NULL
);
CREATE INDEX sessions_by_player ON sessions (player_id);

CREATE TABLE bot_tokens (
    id          INTEGER  PRIMARY KEY,
    player_id   INTEGER  NOT NULL REFERENCES players (id),
    name        TEXT     NOT NULL,
    token_hash  TEXT     NOT NULL UNIQUE,
    created_at  INTEGER  NOT NULL
);
CREATE INDEX bot_tokens_by_player ON bot_tokens (player_id);
