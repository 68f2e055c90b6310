-- capicua: the organiser's controls of a tournament, their audit trail, and
-- a scheduled start.
-- Landed migrations are never edited: add 0005_*.sql instead.
--
-- One row per control taken (cancel, pause, resume, withdraw, correct), in
-- the order taken (`id`). The controls that change pairings or standings
-- (withdraw, correct) hold their `capicua_tournament::Control` in
-- `control_json`: they are entries of the tournament's log, replayed in
-- order with its results. A control sorts after every result whose `seq`
-- is at most its `after_seq` (the last result's `seq` when it was
-- committed) and before the others; controls with the same `after_seq`
-- go by `id`. The others (`control_json` NULL) are the audit trail only.
CREATE TABLE tournament_controls (
    id            INTEGER PRIMARY KEY,
    tournament_id INTEGER NOT NULL REFERENCES tournaments(id),
    after_seq     INTEGER NOT NULL,
    action        TEXT    NOT NULL,  -- 'cancel', 'pause', 'resume', 'withdraw' or 'correct'
    control_json  TEXT,              -- capicua_tournament::Control, for withdraw and correct
    old_json      TEXT,              -- the result a correction replaced (capicua_tournament::MatchResult)
    by_name       TEXT    NOT NULL,  -- who: the name given with the control, or 'admin'
    at            INTEGER NOT NULL   -- unix seconds
);
CREATE INDEX tournament_controls_of ON tournament_controls(tournament_id, id);

-- When a pending tournament may start (unix seconds; NULL: at once). The
-- scheduler runs a pending tournament only once this time has come.
ALTER TABLE tournaments ADD COLUMN starts_at INTEGER;
