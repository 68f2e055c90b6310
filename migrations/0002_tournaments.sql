-- capicua: tournaments (issue 6).
-- Landed migrations are never edited: add 0003_*.sql instead.
--
-- The source of truth of a tournament is its spec plus its results in
-- `tournament_matches` order: `Tournament::replay(spec, results)` rebuilds
-- everything else. Rounds, tables and standings rows are written for SQL
-- readers and the HTTP API.

CREATE TABLE tournaments (
    id           INTEGER PRIMARY KEY,
    name         TEXT    NOT NULL,
    spec_format  TEXT    NOT NULL,   -- 'toml' or 'json': how `spec` is written
    spec         TEXT    NOT NULL,   -- the organiser's text, as given
    status       TEXT    NOT NULL DEFAULT 'pending',  -- pending, running, finished, failed
    error        TEXT,               -- why it failed
    created_at   INTEGER NOT NULL,
    started_at   INTEGER,
    finished_at  INTEGER
);
CREATE INDEX tournaments_status ON tournaments(status);

-- One row per entrant, in the spec's order (entrant = `EntrantId`).
CREATE TABLE tournament_entrants (
    tournament_id INTEGER NOT NULL REFERENCES tournaments(id),
    entrant       INTEGER NOT NULL,
    name          TEXT    NOT NULL,
    members_json  TEXT    NOT NULL,  -- player names: one, or two for fixed pairs
    kind          TEXT    NOT NULL,  -- 'hosted-bot', 'player' or 'team'
    PRIMARY KEY (tournament_id, entrant)
);

-- The pairings: one row per table of every round started.
CREATE TABLE tournament_tables (
    tournament_id INTEGER NOT NULL REFERENCES tournaments(id),
    round         INTEGER NOT NULL,
    table_no      INTEGER NOT NULL,
    stage         INTEGER NOT NULL,
    variant       TEXT    NOT NULL,
    table_json    TEXT    NOT NULL,  -- sides and seats (capicua_tournament::Table)
    room_id       INTEGER,           -- the room of the latest attempt
    attempts      INTEGER NOT NULL DEFAULT 0,  -- rooms opened (an interrupted match is replayed from its start)
    PRIMARY KEY (tournament_id, round, table_no)
);

-- Finished tournament matches, each inserted in the same transaction as its
-- `games` row: a match is either stored and recorded, or neither.
-- `seq` is the order the tournament recorded them (replay order).
CREATE TABLE tournament_matches (
    seq           INTEGER PRIMARY KEY,
    tournament_id INTEGER NOT NULL REFERENCES tournaments(id),
    round         INTEGER NOT NULL,
    table_no      INTEGER NOT NULL,
    game_id       INTEGER NOT NULL UNIQUE REFERENCES games(id),
    winner        INTEGER,           -- winning side of the table, NULL for a draw
    result_json   TEXT    NOT NULL,  -- capicua_tournament::MatchResult
    UNIQUE (tournament_id, round, table_no)
);

-- The standings after the last recorded result (`Tournament::standings()`),
-- rewritten by the runner after each result and on resume.
CREATE TABLE tournament_standing_rows (
    tournament_id INTEGER NOT NULL REFERENCES tournaments(id),
    rank          INTEGER NOT NULL,
    entrant_id    INTEGER NOT NULL,
    entrant       TEXT    NOT NULL,
    points        INTEGER NOT NULL,
    wins          INTEGER NOT NULL,
    draws         INTEGER NOT NULL,
    losses        INTEGER NOT NULL,
    games         INTEGER NOT NULL,
    byes          INTEGER NOT NULL,
    timeouts      INTEGER NOT NULL,
    score         INTEGER NOT NULL,
    stage         INTEGER NOT NULL,
    eliminated    INTEGER NOT NULL,
    disqualified  INTEGER NOT NULL,
    reprieves     INTEGER NOT NULL,  -- times the lenient judge let it stay in
    tie_breaks    TEXT    NOT NULL,  -- JSON array, in the spec's tie-break order
    PRIMARY KEY (tournament_id, rank)
);

-- sqlite3 capicua.db "select * from tournament_standings where tournament_id = 1"
-- Columns: tournament_id, tournament (name), status, rank (1 = leader),
-- entrant (name), entrant_id, points (tournament points), wins, draws,
-- losses, games (matches played), byes, timeouts, score (sum of match
-- scores), stage (furthest stage reached, from 0), eliminated, disqualified,
-- reprieves (times the lenient judge let it stay in), tie_breaks.
CREATE VIEW tournament_standings AS
SELECT s.tournament_id, t.name AS tournament, t.status, s.rank, s.entrant, s.entrant_id,
       s.points, s.wins, s.draws, s.losses, s.games, s.byes, s.timeouts, s.score,
       s.stage, s.eliminated, s.disqualified, s.reprieves, s.tie_breaks
FROM tournament_standing_rows s
JOIN tournaments t ON t.id = s.tournament_id
ORDER BY s.tournament_id, s.rank;
