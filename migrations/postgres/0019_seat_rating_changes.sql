-- What a rated game did to each seated player's rating on its board:
-- Weng-Lin mean skill and uncertainty before and after the game. NULL
-- for a seat the game did not rate (an unrated game, a guest's seat, or
-- a player holding several seats, whose rating the game uses unmoved).
ALTER TABLE game_seats ADD COLUMN mu_before DOUBLE PRECISION;
ALTER TABLE game_seats ADD COLUMN sigma_before DOUBLE PRECISION;
ALTER TABLE game_seats ADD COLUMN mu_after DOUBLE PRECISION;
ALTER TABLE game_seats ADD COLUMN sigma_after DOUBLE PRECISION;
