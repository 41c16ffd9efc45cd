-- Bot accounts: a player who plays through the Bot API of bots written
-- for lichess.  An account becomes one only before it has played a game.
ALTER TABLE players ADD COLUMN bot boolean NOT NULL DEFAULT false;
-- Why a challenge was declined, in the words of lichess's clients
-- ("generic", "later", ...); NULL when not declined, or declined without one.
ALTER TABLE challenges ADD COLUMN decline_reason text;
CREATE INDEX players_bots ON players (lower(name), id) WHERE bot;
