-- capicua: arenas, tournaments that pair entrants as they come free until a deadline.
-- Landed migrations are never edited: add a later number instead.
-- PostgreSQL: mirrors ../0006_arena.sql (SQLite).
--
-- `tournaments.ends_at_ms`: an arena's deadline (unix milliseconds), stored
-- when it starts, so that an arena resumed after a restart ends when it was
-- meant to. NULL for other formats and arenas not yet started.
--
-- `tournament_tables.after_seq`: for an arena's table (a round of one
-- table, numbered in creation order), the last result
-- (`tournament_matches.seq`) recorded when it was paired. Its entrants'
-- earlier games all have a result at or before it, so SQL can check that
-- nobody played two games at once. NULL for other formats.
ALTER TABLE tournaments ADD COLUMN ends_at_ms BIGINT;
ALTER TABLE tournament_tables ADD COLUMN after_seq BIGINT;
