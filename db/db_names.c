/*
 * db_names.c — the words of stored state: one {enum, text} table per kind,
 * read both ways.  These words are the schema's CHECK constraints and the
 * API's enums (openapi.yaml); nothing else in korpd spells them.
 */
#include "db.h"

#include <stdio.h>
#include <string.h>

struct name {
    int value;
    const char *text;
};

#define COUNT(table) (sizeof table / sizeof *table)

static const struct name game_statuses[] = {
    { DB_GAME_ACTIVE, "active" },
    { DB_GAME_FINISHED, "finished" },
    { DB_GAME_ABORTED, "aborted" },
};

static const struct name terminations[] = {
    { DB_END_NONE, "" },
    { DB_END_CHECKMATE, "checkmate" },
    { DB_END_STALEMATE, "stalemate" },
    { DB_END_INSUFFICIENT_MATERIAL, "insufficient-material" },
    { DB_END_THREEFOLD, "threefold" },
    { DB_END_FIFTY_MOVE, "fifty-move" },
    { DB_END_AGREEMENT, "agreement" },
    { DB_END_RESIGNATION, "resignation" },
    { DB_END_TIMEOUT, "timeout" },
    { DB_END_ADJUDICATION, "adjudication" },
    { DB_END_FORFEIT, "forfeit" },
};

static const struct name colors[] = {
    { DB_COLOR_NONE, "" },
    { DB_COLOR_WHITE, "white" },
    { DB_COLOR_BLACK, "black" },
    { DB_COLOR_RANDOM, "random" },
};

static const struct name challenge_statuses[] = {
    { DB_CHALLENGE_OPEN, "open" },
    { DB_CHALLENGE_ACCEPTED, "accepted" },
    { DB_CHALLENGE_DECLINED, "declined" },
    { DB_CHALLENGE_CANCELLED, "cancelled" },
};

static const struct name channels[] = {
    { DB_CHANNEL_EMAIL, "email" },
    { DB_CHANNEL_WEBHOOK, "webhook" },
    { DB_CHANNEL_PUSH, "push" },
};

static const struct name queue_kinds[] = {
    { DB_QUEUE_PERPETUAL, "perpetual" },
    { DB_QUEUE_REQUEST, "request" },
    { DB_QUEUE_TOURNAMENT_END, "tournament-end" },
    { DB_QUEUE_FAIRPLAY_REVIEW, "fairplay-review" },
};

static const struct name tournament_statuses[] = {
    { DB_TOURNAMENT_OPEN, "open" },
    { DB_TOURNAMENT_ACTIVE, "active" },
    { DB_TOURNAMENT_FINISHED, "finished" },
    { DB_TOURNAMENT_CANCELLED, "cancelled" },
    { DB_TOURNAMENT_CANCELLED, "canceled" },   /* the older spelling, read only */
};

static const char *text_of(const struct name *table, size_t n, int value)
{
    for (size_t i = 0; i < n; i++)
        if (table[i].value == value)
            return table[i].text;
    return "";
}

static bool value_of(const struct name *table, size_t n, const char *text, int *out)
{
    if (text == NULL)
        text = "";
    for (size_t i = 0; i < n; i++)
        if (strcmp(table[i].text, text) == 0) {
            *out = table[i].value;
            return true;
        }
    return false;
}

#define NAMES(kind, type, table)                                                      \
    const char *db_##kind##_text(type v)                                              \
    {                                                                                 \
        return text_of(table, COUNT(table), (int)v);                                  \
    }                                                                                 \
    bool db_##kind##_parse(const char *text, type *out)                               \
    {                                                                                 \
        int v;                                                                        \
        if (!value_of(table, COUNT(table), text, &v))                                 \
            return false;                                                             \
        *out = (type)v;                                                               \
        return true;                                                                  \
    }

NAMES(game_status, enum db_game_status, game_statuses)
NAMES(termination, enum db_termination, terminations)
NAMES(color, enum db_color, colors)
NAMES(challenge_status, enum db_challenge_status, challenge_statuses)
NAMES(channel, enum db_channel, channels)
NAMES(queue_kind, enum db_queue_kind, queue_kinds)
NAMES(tournament_status, enum db_tournament_status, tournament_statuses)

/* Clocks. */
static const struct name clock_types[] = {
    { DB_CLOCK_NONE, "" },
    { DB_CLOCK_PER_MOVE, "per_move" },
    { DB_CLOCK_FISCHER, "fischer" },
};

NAMES(clock_type, enum db_clock_type, clock_types)

const struct rules_variant *db_variant_parse(const char *text)
{
    for (const struct rules_variant *const *v = rules_variant_list(); text && *v; v++)
        if (strcmp((*v)->name, text) == 0)
            return *v;
    return NULL;
}

enum db_color db_color_of(enum rules_color color)
{
    return color == RULES_BLACK ? DB_COLOR_BLACK : DB_COLOR_WHITE;
}

enum rules_color db_color_rules(enum db_color color)
{
    return color == DB_COLOR_BLACK ? RULES_BLACK : RULES_WHITE;
}

enum db_termination db_termination_of(enum rules_status status)
{
    switch (status) {
    case RULES_CHECKMATE: return DB_END_CHECKMATE;
    case RULES_STALEMATE: return DB_END_STALEMATE;
    case RULES_INSUFFICIENT_MATERIAL: return DB_END_INSUFFICIENT_MATERIAL;
    case RULES_ONGOING: break;
    }
    return DB_END_NONE;
}
