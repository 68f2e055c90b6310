-- Finished reviews (`GET /api/games/{id}/review?seat=N`): each seat of a
-- stored game is analysed once, by whichever server is asked first, and
-- served from here afterwards by every server on the database. `body` is
-- the review's JSON exactly as it is served.
-- PostgreSQL: mirrors ../0013_reviews.sql (SQLite).
CREATE TABLE reviews (
    game_id    BIGINT  NOT NULL REFERENCES games(id),
    seat       BIGINT  NOT NULL,
    body       TEXT    NOT NULL,
    created_at BIGINT  NOT NULL,   -- unix ms
    PRIMARY KEY (game_id, seat)
);
