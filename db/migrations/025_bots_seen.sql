-- When a bot account last had a stream of the API of bots written for
-- lichess open, written by the korpd that serves the stream (at most every
-- few seconds while it is open, cleared when it closes): the bots online are
-- those seen lately, whichever korpd of the database they are connected to.
-- Real time (now()), not korp's clock: it says whether a connection is open.
ALTER TABLE players ADD COLUMN bot_seen_at timestamptz;
