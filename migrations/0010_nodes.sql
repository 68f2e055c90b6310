-- The servers that serve this database (several on PostgreSQL). Each
-- records itself at start with the base URL its clients reach it at, beats
-- every few seconds with its load and its listed rooms, and stamps
-- `stopped_at` when it shuts down cleanly; one whose beat is old is dead.
CREATE TABLE nodes (
    id           INTEGER PRIMARY KEY,
    url          TEXT    NOT NULL,
    started_at   INTEGER NOT NULL,   -- unix ms
    heartbeat_at INTEGER NOT NULL,   -- unix ms
    rooms        INTEGER NOT NULL DEFAULT 0,
    connections  INTEGER NOT NULL DEFAULT 0,
    rooms_json   TEXT    NOT NULL DEFAULT '[]',  -- its lobby: the listed rooms, as `list-rooms` sends them
    scheduler    INTEGER NOT NULL DEFAULT 0,    -- 1 while it runs the tournaments
    stopped_at   INTEGER
);
-- The server that opened the room.
ALTER TABLE rooms ADD COLUMN node_id INTEGER REFERENCES nodes(id);
