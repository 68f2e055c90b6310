-- Games of tiles with 3, 4 or 6 faces: `variant_json` holds a poly variant
-- and `moves_json` the engine's poly moves (JSON), `seating_json` the seats.
ALTER TABLE games ADD COLUMN poly INTEGER NOT NULL DEFAULT 0;
