/*
 * db_names.h — the words of stored state and the sizes of stored text; in
 * db_names.c.  db.h includes it.
 */
#ifndef KORP_DB_NAMES_H
#define KORP_DB_NAMES_H

#include "base.h"
#include "rules.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- The vocabulary of stored state (db_names.c) ---------------------------
 * Each kind of state is an enum here and text only where rows are read and
 * written and where JSON is written: each converts through one {enum, text}
 * table, so a misspelt state is a compile error, not a silent mismatch.
 * Results are enum rules_result (rules_result_text / rules_result_parse);
 * variants are const struct rules_variant * (db_variant_parse). */

enum db_game_status { DB_GAME_ACTIVE = 0, DB_GAME_FINISHED, DB_GAME_ABORTED };

/* How a finished game ended; DB_END_NONE while it has not. */
enum db_termination {
    DB_END_NONE = 0,
    DB_END_CHECKMATE,
    DB_END_STALEMATE,
    DB_END_INSUFFICIENT_MATERIAL,
    DB_END_THREEFOLD,
    DB_END_FIFTY_MOVE,
    DB_END_AGREEMENT,
    DB_END_RESIGNATION,
    DB_END_TIMEOUT,
    DB_END_ADJUDICATION,
    DB_END_FORFEIT                /* a withdrawal from a tournament */
};

/* A side: whose draw offer stands (NONE: nobody's), which colour a
 * challenger asked for (RANDOM: drawn when accepted), a recipient's colour. */
enum db_color { DB_COLOR_NONE = 0, DB_COLOR_WHITE, DB_COLOR_BLACK, DB_COLOR_RANDOM };

enum db_challenge_status {
    DB_CHALLENGE_OPEN = 0,
    DB_CHALLENGE_ACCEPTED,
    DB_CHALLENGE_DECLINED,
    DB_CHALLENGE_CANCELLED
};

/* How a notification reaches a player. */
enum db_channel { DB_CHANNEL_EMAIL = 0, DB_CHANNEL_WEBHOOK, DB_CHANNEL_PUSH, DB_CHANNEL_COUNT };

/* Text of each ("" for DB_END_NONE and DB_COLOR_NONE: stored as NULL, shown as null). */
const char *db_game_status_text(enum db_game_status status);
const char *db_termination_text(enum db_termination termination);
const char *db_color_text(enum db_color color);
const char *db_challenge_status_text(enum db_challenge_status status);
const char *db_channel_text(enum db_channel channel);

/* Each reads its own words exactly (NULL or "" reads as DB_END_NONE and
 * DB_COLOR_NONE where those exist); false for any other text. */
bool db_game_status_parse(const char *text, enum db_game_status *out);
bool db_termination_parse(const char *text, enum db_termination *out);
bool db_color_parse(const char *text, enum db_color *out);
bool db_challenge_status_parse(const char *text, enum db_challenge_status *out);
bool db_channel_parse(const char *text, enum db_channel *out);

/* The variant of exactly that name (lower case, as stored), or NULL. */
const struct rules_variant *db_variant_parse(const char *text);

/* A colour of the rules as a db_color, and back (WHITE for anything but BLACK). */
enum db_color db_color_of(enum rules_color color);
enum rules_color db_color_rules(enum db_color color);

/* How the rules' verdict on a position ends a game (DB_END_NONE: ongoing). */
enum db_termination db_termination_of(enum rules_status status);

#define DB_NAME_SIZE 64    /* names are 2-30 characters of up to 2 bytes (UTF-8) */
#define DB_TIME_SIZE 24    /* "2026-11-22T13:45:00Z" */
#define DB_FEN_SIZE 256

#endif
