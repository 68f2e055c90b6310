-- A tournament's incidents on a cluster of servers join its audit trail
-- (`tournament_controls`, served at GET /api/tournaments/{id}/audit): a
-- node seen dead with tables of it (`node-crashed`), a placement lost with
-- its node (`placement-lost`), a table played again (`table-replayed`),
-- another node's scheduler taking the tournament over from one that died
-- (`scheduler-failover`). Such a row has `action` the incident, `by_name`
-- the node that saw it (`node 3`), no `control_json` (it is no entry of
-- the log), and `detail_json` what happened: node ids, round, table, why,
-- the attempt, times in unix ms.
-- PostgreSQL: mirrors ../0015_tournament_incidents.sql (SQLite).
ALTER TABLE tournament_controls ADD COLUMN detail_json TEXT;
-- The node whose scheduler last started running the tournament: a runner
-- starting on another node is a failover, recorded as one.
ALTER TABLE tournaments ADD COLUMN runner_node BIGINT;
