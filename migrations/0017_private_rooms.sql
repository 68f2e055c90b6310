-- A private room's invite, hashed (SHA-256, hex): its stored games are
-- listed to nobody and replayed only by who shows the invite (the key of
-- the replay link its members get), a seated player's token or the
-- admin's. NULL for a public room.
ALTER TABLE rooms ADD COLUMN invite_hash TEXT;
