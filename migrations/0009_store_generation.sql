-- How many transactions have stored games. Each store transaction starts
-- by adding one, which takes the row's lock: writers on one database (the
-- nodes of a PostgreSQL deployment) store one after another, and a writer
-- that finds the count moved by more than its own last store knows another
-- writer committed meanwhile and reloads what it keeps in memory.
CREATE TABLE counters (
    name  TEXT    PRIMARY KEY,
    value INTEGER NOT NULL
);
INSERT INTO counters (name, value) VALUES ('game-stores', 0);
