-- Games of tiles with 3, 4 or 6 faces: `variant_json` holds a poly variant
-- and `moves_json` the engine's poly moves (JSON), `seating_json` the seats.
-- PostgreSQL: mirrors ../0008_poly_games.sql (SQLite).
ALTER TABLE games ADD COLUMN poly BIGINT NOT NULL DEFAULT 0;
