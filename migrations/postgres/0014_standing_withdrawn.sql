-- Whether the organiser withdrew the entrant of a standings row: a
-- withdrawn entrant is neither eliminated nor disqualified, and readers of
-- the view tell it apart. Rows written before this column read as not
-- withdrawn until the runner writes the standings again.
ALTER TABLE tournament_standing_rows ADD COLUMN withdrawn BIGINT NOT NULL DEFAULT 0;

-- Columns as in 0002_tournaments.sql, and withdrawn (1 when the organiser
-- withdrew the entrant).
DROP VIEW tournament_standings;
CREATE VIEW tournament_standings AS
SELECT s.tournament_id, t.name AS tournament, t.status, s.rank, s.entrant, s.entrant_id,
       s.points, s.wins, s.draws, s.losses, s.games, s.byes, s.timeouts, s.score,
       s.stage, s.eliminated, s.disqualified, s.reprieves, s.tie_breaks, s.withdrawn
FROM tournament_standing_rows s
JOIN tournaments t ON t.id = s.tournament_id
ORDER BY s.tournament_id, s.rank;
