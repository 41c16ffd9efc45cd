-- The language a player reads korp in (pages and emails): 'en',
-- 'pl' or 'hu'.  A new account takes it from its browser's Accept-Language
-- at sign-up; players made before this migration read English.
ALTER TABLE players ADD COLUMN language text NOT NULL DEFAULT 'en'
    CHECK (language IN ('en', 'pl', 'hu'));
