-- capicua: drawn games on the ratings board, so that every row shows wins,
-- draws and losses (losses = games - wins - draws).
-- Landed migrations are never edited: add 0006_*.sql instead.
--
-- A game is drawn for its players when it has no winning side (`games.winner`
-- is NULL). Ratings stored before this migration hold NULL here: the server
-- counts their draws from the stored games when it opens the database, before
-- it stores any game (SQL alone cannot tell which board a custom variant's
-- game counts on: the board carries a SHA-256 fingerprint of its rules).
ALTER TABLE ratings ADD COLUMN draws INTEGER;
