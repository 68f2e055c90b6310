-- Each tournament's deal secret: 32 random bytes (hex) drawn when it is
-- created and never shown. A table's deals and hosted bots' choices are
-- seeded from it, the round and the table, so a table played again after
-- a crash, on whichever server, is dealt as before, and the tournament
-- scores as one uninterrupted server would. NULL (tournaments created
-- before): each room draws its own entropy.
-- PostgreSQL: mirrors ../0012_tournament_deal_secrets.sql (SQLite).
ALTER TABLE tournaments ADD COLUMN deal_secret TEXT;
