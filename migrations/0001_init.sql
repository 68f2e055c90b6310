-- capicua: players, rooms, finished games (hands, seats) and ratings.
-- Landed migrations are never edited: add 0002_*.sql instead.

CREATE TABLE players (
    id          INTEGER PRIMARY KEY,
    name        TEXT    NOT NULL UNIQUE,
    -- SHA-256 of the secret token, hex; NULL for hosted bots (no login).
    token_hash  TEXT    UNIQUE,
    kind        TEXT    NOT NULL DEFAULT 'player',  -- 'player' or 'hosted-bot'
    created_at  INTEGER NOT NULL
);

CREATE TABLE rooms (
    id           INTEGER PRIMARY KEY,
    variant      TEXT    NOT NULL,
    variant_json TEXT    NOT NULL,
    seats        INTEGER NOT NULL,
    rated        INTEGER NOT NULL,
    created_at   INTEGER NOT NULL
);

CREATE TABLE games (
    id           INTEGER PRIMARY KEY,
    room_id      INTEGER REFERENCES rooms(id),
    variant      TEXT    NOT NULL,
    variant_json TEXT    NOT NULL,
    seed         INTEGER NOT NULL,
    seating_json TEXT    NOT NULL,
    moves_json   TEXT    NOT NULL,   -- the engine's move log: seed + log replay the match
    scores_json  TEXT    NOT NULL,   -- match scores by side
    winner       INTEGER,            -- winning side, NULL for a draw
    forfeit      INTEGER,            -- seat whose side forfeited on time
    hands        INTEGER NOT NULL,
    rated        INTEGER NOT NULL,
    finished_at  INTEGER NOT NULL
);
CREATE INDEX games_variant ON games(variant, id);

CREATE TABLE game_seats (
    game_id   INTEGER NOT NULL REFERENCES games(id),
    seat      INTEGER NOT NULL,
    side      INTEGER NOT NULL,
    player_id INTEGER REFERENCES players(id),  -- NULL for guests
    name      TEXT    NOT NULL,
    kind      TEXT    NOT NULL,
    score     INTEGER NOT NULL,
    PRIMARY KEY (game_id, seat)
);
CREATE INDEX game_seats_player ON game_seats(player_id);

CREATE TABLE hands (
    game_id     INTEGER NOT NULL REFERENCES games(id),
    hand        INTEGER NOT NULL,
    result_json TEXT    NOT NULL,
    PRIMARY KEY (game_id, hand)
);

-- Weng-Lin (OpenSkill) ratings per variant; ordinal = mu - 3 sigma orders the board.
CREATE TABLE ratings (
    variant   TEXT    NOT NULL,
    player_id INTEGER NOT NULL REFERENCES players(id),
    mu        REAL    NOT NULL,
    sigma     REAL    NOT NULL,
    ordinal   REAL    NOT NULL,
    games     INTEGER NOT NULL,
    wins      INTEGER NOT NULL,
    PRIMARY KEY (variant, player_id)
);
CREATE INDEX ratings_board ON ratings(variant, ordinal DESC);
