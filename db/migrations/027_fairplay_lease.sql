-- A worker holds a queued game by a lease rather than a transaction: it
-- takes the game (taken_by, a token of its own, until taken_until) in a
-- short transaction, analyses it with no transaction open and no
-- connection held, renews the lease as it goes, and stores the figures only
-- while the lease is still its own.  A korpd that dies leaves the lease to
-- run out; another worker then takes the game.
ALTER TABLE fairplay_queue ADD COLUMN taken_by uuid, ADD COLUMN taken_until timestamptz;
