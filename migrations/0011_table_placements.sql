-- Where the tournament scheduler placed each table it opened: the node
-- chosen by load, and the table's room as that node opened it. On
-- PostgreSQL, where several servers serve one database, the scheduler
-- inserts a placement and the chosen node opens the room; every node reads
-- the open placements to send `assignment`s to its own connections. On
-- SQLite there is one node and it opens its tables itself.
CREATE TABLE table_placements (
    id            INTEGER PRIMARY KEY,
    tournament_id INTEGER NOT NULL REFERENCES tournaments(id),
    round         INTEGER NOT NULL,
    table_no      INTEGER NOT NULL,
    node_id       INTEGER NOT NULL REFERENCES nodes(id),
    -- placed (for its node to open), open (its room plays), done (the match
    -- is stored), ended (the room ended without a stored match), cancel
    -- (the tournament was cancelled: its node closes the room), lost (its
    -- node died or stopped first)
    state         TEXT    NOT NULL,
    table_json    TEXT    NOT NULL,  -- what the node needs to open the room (the server's TablePlan)
    room_id       INTEGER,
    placed_at     INTEGER NOT NULL,  -- unix ms
    opened_at     INTEGER,           -- unix ms
    ended_at      INTEGER            -- unix ms
);
CREATE INDEX table_placements_node ON table_placements(node_id, state);
CREATE INDEX table_placements_tournament ON table_placements(tournament_id, round, state);
