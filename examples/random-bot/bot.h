/*
 * bot.h — what the random bot knows and does: the games it plays, the
 * challenges it accepts, and how it chooses a move (at random, or with
 * korp's engine in engine mode).
 *
 * Events only update what the bot knows (bot_on_event makes no call);
 * bot_work then does whatever is due: accept, catch up, claim, resign, move.
 */
#ifndef RANDOM_BOT_BOT_H
#define RANDOM_BOT_BOT_H

#include "client.h"

#include <stdbool.h>
#include <stdint.h>

struct bot_settings {
    int max_plies;      /* resign when it is our turn at this ply or later */
    int games;          /* stop once this many of our games have ended; 0: never */
    uint64_t seed;      /* for the choice of moves (main derives it from --seed) */
    bool engine;        /* choose moves with korp's engine, not at random */
    int level;          /* engine mode's strength, 1..BOT_LEVEL_MAX; 0: from the
                           account's name ("korp-engine-3": 3), else BOT_LEVEL_DEFAULT */
};

#define BOT_LEVEL_MAX 10
#define BOT_LEVEL_DEFAULT 7

/* What a level means: a fixed depth (levels 1-4) or a time per move. */
struct bot_level {
    int depth;
    int movetime_ms;
};
struct bot_level bot_level_limits(int level);

/* Whether this build has engine mode (RANDOM_BOT_ENGINE: linked with korp's
 * engine and rules libraries, as the repository's build does). */
bool bot_engine_built(void);

/* The level an account name asks for: its digits after the last '-' when
 * they make 1..BOT_LEVEL_MAX, else 0. */
int bot_level_of_name(const char *name);

enum bot_status {
    BOT_OK,
    BOT_DONE,           /* settings.games games have ended */
    BOT_FATAL,          /* korpd refused the token: nothing more to do */
};

struct bot;

/* A bot that talks to korpd through client (which it does not own).  NULL
 * when out of memory. */
struct bot *bot_new(struct client *client, const struct bot_settings *settings);

/* Frees the bot; NULL is a no-op. */
void bot_free(struct bot *b);

/* Asks korpd who the token belongs to (GET /v1/players/me).  False, with a
 * log line, when it cannot. */
bool bot_login(struct bot *b);

/* The stream callback (an sse_event_fn; arg is the bot): notes what the
 * event says.  Makes no call to korpd. */
void bot_on_event(void *arg, const char *type, const char *data, const char *id);

/* The stream started afresh: before anything else, look up the open
 * challenges and the games in progress. */
void bot_catch_up(struct bot *b);

/* Does what is due now.  Each call to korpd retries on its own; what still
 * fails is tried again on a later call. */
enum bot_status bot_work(struct bot *b);

#endif
