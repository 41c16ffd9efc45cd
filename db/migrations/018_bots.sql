-- Bot accounts: a player who plays through the Bot API of bots written
-- for lichess.  An account becomes one only before it has played a game.
ALTER TABLE players ADD COLUMN bot boolean NOT NULL DEFAULT false;
