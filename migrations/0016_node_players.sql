-- The registered players connected to each node, written at its beat, so
-- any node can say who of a tournament is here, wherever they connected.
ALTER TABLE nodes ADD COLUMN players_json TEXT NOT NULL DEFAULT '[]';  -- their ids, a JSON array
