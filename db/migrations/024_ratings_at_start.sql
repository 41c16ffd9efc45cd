-- Each side's rating when a game began, for the record (PGN's WhiteElo and
-- BlackElo), and a tournament game's board in its round (the FIDE Berger
-- tables' order).  Written when a tournament's games are made.  Games made
-- before have the ratings where they can be worked out (a rated game that
-- is over: the rating after it, from rating_history, less its change) and
-- no board (the record numbers their boards by the players' lower number).
ALTER TABLE games ADD COLUMN white_rating_start double precision,
    ADD COLUMN black_rating_start double precision,
    ADD COLUMN tournament_board integer;

UPDATE games g SET white_rating_start = h.rating - g.rating_diff_white
    FROM rating_history h
    WHERE h.game_id = g.id AND h.player_id = g.white_id AND g.rating_diff_white IS NOT NULL;
UPDATE games g SET black_rating_start = h.rating - g.rating_diff_black
    FROM rating_history h
    WHERE h.game_id = g.id AND h.player_id = g.black_id AND g.rating_diff_black IS NOT NULL;
