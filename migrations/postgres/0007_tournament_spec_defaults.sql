-- The defaults a tournament's spec takes where it leaves a field out: 0 as
-- first released; 1 pairs two-entrant Swiss stages by the Dutch system. A
-- tournament keeps the defaults it was created under, so a new default never
-- changes the pairings of an event already stored (its replay must give the
-- tables it played).
-- PostgreSQL: mirrors ../0007_tournament_spec_defaults.sql (SQLite).
ALTER TABLE tournaments ADD COLUMN spec_defaults BIGINT NOT NULL DEFAULT 0;
