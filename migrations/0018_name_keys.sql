-- A player's name key: the name folded for case, compatibility forms and
-- look-alike letters (capicua_protocol::name_key), so that `Ana`, `ANA`
-- and a Cyrillic `Аna` are one name. Filled by the server for rows made
-- before keys existed; where two such old names share a key the first
-- keeps it and the other none (both still sign in, no new name takes it).
ALTER TABLE players ADD COLUMN name_key TEXT;
CREATE UNIQUE INDEX players_by_name_key ON players (name_key);
