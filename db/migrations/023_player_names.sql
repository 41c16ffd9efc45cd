-- Player names in the Latin letters of the players' languages (Łucja, Győző,
-- Ödön), stored in NFC, unique ignoring case and diacritics: "lucja" is taken
-- once "Łucja" is.  korpd checks the letters and composes the name
-- (db_player_name_normalize); the database holds the same rule.

-- The key two names must not share: the letters without their diacritics
-- (NFD, combining marks dropped), the letters without a decomposition
-- written as their base letters, in lower case.
CREATE FUNCTION korp_name_key(name text) RETURNS text
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
AS $$
    SELECT lower(replace(replace(replace(replace(replace(replace(replace(
        translate(regexp_replace(normalize(name, NFD), '[\u0300-\u036f]', '', 'g'),
                  'ŁłØøĐđÐðĦħŦŧı', 'LlOoDdDdHhTti'),
        'Æ', 'AE'), 'æ', 'ae'), 'Œ', 'OE'), 'œ', 'oe'), 'ß', 'ss'), 'Þ', 'TH'), 'þ', 'th'))
$$;

ALTER TABLE players DROP CONSTRAINT players_name_check;
ALTER TABLE players ADD CONSTRAINT players_name_check CHECK (
    length(name) BETWEEN 2 AND 30
    AND name ~ '^[-A-Za-z0-9_\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u017f]+$'
    AND name IS NFC NORMALIZED);

-- Existing names (ASCII letters, digits, '_', '-') keep their lower case as key.
ALTER TABLE players ADD COLUMN name_key text GENERATED ALWAYS AS (korp_name_key(name)) STORED;
CREATE UNIQUE INDEX players_name_key_unique ON players (name_key);
