/*
 * api_lichess_streams.c — the streams bots written for lichess read, as
 * newline-delimited JSON over korp's event streams (api_events_open):
 *
 *   GET /api/stream/event   the player's challenges and games: on connect
 *                           the open challenges and the active games, then
 *                           each challenge, its end, each game's start and
 *                           end as they happen
 *   GET /api/bot/game/stream/{id}, /api/board/game/stream/{id}
 *                           one game of the player's: gameFull, then its
 *                           state after each move or offer, and its chat
 *   GET /api/bot/online     the bot accounts with one of these streams open,
 *                           on any korpd of the database
 *
 * Each line is made from the events table when the event is read, so what
 * korpd process made the change does not matter; an empty line is the
 * keep-alive.  A bot's open stream is known to every korpd by a stamp in
 * the database (players.bot_seen_at), not by any process's memory.
 */
#include "api_lichess.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define STREAM_CHALLENGES 50
#define STREAM_GAMES 50
/* GET /api/bot/online: how many bots it lists by default and at most, and
 * how many bot accounts it looks through. */
#define ONLINE_DEFAULT 50
#define ONLINE_MAX 300
/* A stream rewrites its bot's stamp at most this often (it reads the
 * events table at every event and at least every KORP_EVENTS_BACKSTOP_MS). */
#define SEEN_EVERY_MS 10000
/* How late past those two a stamp may still be, for a slow write. */
#define SEEN_SLACK_MS 5000
/* What lichess's API reports as the time of a side without a clock. */
#define NO_CLOCK_MS 2147483647.0
#define DAY_MS 86400000.0

static const struct api_stream_format event_format;
static const struct api_stream_format game_format;

/* text (one JSON value) as one line of ndjson (malloc'd); NULL for NULL. */
static char *text_line(const char *text)
{
    size_t n = text != NULL ? strlen(text) : 0;
    char *line = text != NULL ? malloc(n + 2) : NULL;
    if (line != NULL) {
        memcpy(line, text, n);
        line[n] = '\n';
        line[n + 1] = '\0';
    }
    return line;
}

/* json as one line of ndjson (malloc'd); json is freed.  NULL for NULL. */
static char *ndjson_line(cJSON *json)
{
    char *text = json != NULL ? cJSON_PrintUnformatted(json) : NULL;
    char *line = text_line(text);
    cJSON_Delete(json);
    cJSON_free(text);
    return line;
}

/* {"type": type, key: item}. */
static cJSON *typed(const char *type, const char *key, cJSON *item)
{
    cJSON *json = cJSON_CreateObject();
    cJSON_AddStringToObject(json, "type", type);
    cJSON_AddItemToObject(json, key, item);
    return json;
}

/* korp's time ("2026-01-02T03:04:05Z") in milliseconds since 1970. */
static double time_ms(const char *text)
{
    struct tm tm;
    memset(&tm, 0, sizeof tm);
    if (sscanf(text, "%d-%d-%dT%d:%d:%d", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour,
               &tm.tm_min, &tm.tm_sec) != 6)
        return 0;
    tm.tm_year -= 1900;
    tm.tm_mon -= 1;
    return (double)timegm(&tm) * 1000.0;
}

/* A game's status in lichess's words. */
static const char *status_word(const struct db_game *g)
{
    if (g->status == DB_GAME_ACTIVE)
        return "started";
    if (g->status == DB_GAME_ABORTED)
        return "aborted";
    switch (g->termination) {
    case DB_END_CHECKMATE:
        return "mate";
    case DB_END_STALEMATE:
        return "stalemate";
    case DB_END_RESIGNATION:
        return "resign";
    case DB_END_TIMEOUT:
        return "outoftime";
    case DB_END_FORFEIT:
        return "timeout";
    case DB_END_INSUFFICIENT_MATERIAL:
    case DB_END_THREEFOLD:
    case DB_END_FIFTY_MOVE:
    case DB_END_AGREEMENT:
        return "draw";
    case DB_END_ADJUDICATION:
    case DB_END_NONE:
        break;
    }
    return "unknownFinish";
}

/* "white" or "black" for a won game; NULL for a draw or none. */
static const char *winner(const struct db_game *g)
{
    if (g->result == RULES_RESULT_WHITE_WINS || g->result == RULES_RESULT_WHITE_3_4)
        return "white";
    if (g->result == RULES_RESULT_BLACK_WINS || g->result == RULES_RESULT_BLACK_3_4)
        return "black";
    return NULL;
}

/* A side's time in ms: its clock's, a day count per move, or none. */
static double side_ms(const struct db_game *g, bool white)
{
    if (g->clock.type == DB_CLOCK_FISCHER)
        return (double)(white ? g->remaining_white : g->remaining_black) * 1000.0;
    if (g->days_per_move > 0)
        return g->days_per_move * DAY_MS;
    return NO_CLOCK_MS;
}

/* The game's gameState now; NULL with *st set on a database failure. */
static cJSON *game_state(struct db_pool *pool, const struct db_game *g, enum db_status *st,
                         struct base_err *err)
{
    struct db_move *moves = NULL;
    struct base_text text = { 0 };
    int plies = 0;
    double inc = g->clock.type == DB_CLOCK_FISCHER ? g->clock.increment_days * DAY_MS : 0;
    cJSON *json;
    char *joined;

    *st = db_move_list(pool, g->id, &moves, &plies, err);
    if (*st != DB_OK)
        return NULL;
    for (int i = 0; i < plies; i++)
        base_text_put(&text, "%s%s", i > 0 ? " " : "", moves[i].uci);
    free(moves);
    joined = base_text_take(&text);
    json = cJSON_CreateObject();
    cJSON_AddStringToObject(json, "type", "gameState");
    cJSON_AddStringToObject(json, "moves", joined != NULL ? joined : "");
    free(joined);
    cJSON_AddNumberToObject(json, "wtime", side_ms(g, true));
    cJSON_AddNumberToObject(json, "btime", side_ms(g, false));
    cJSON_AddNumberToObject(json, "winc", inc);
    cJSON_AddNumberToObject(json, "binc", inc);
    cJSON_AddStringToObject(json, "status", status_word(g));
    if (winner(g) != NULL)
        cJSON_AddStringToObject(json, "winner", winner(g));
    cJSON_AddBoolToObject(json, "wdraw", g->draw_offer == DB_COLOR_WHITE);
    cJSON_AddBoolToObject(json, "bdraw", g->draw_offer == DB_COLOR_BLACK);
    return json;
}

static void add_player(struct db_pool *pool, cJSON *json, const char *key, const char *id,
                       const char *name)
{
    cJSON *p = cJSON_AddObjectToObject(json, key);
    struct base_err err = { "" };
    bool bot = false;

    cJSON_AddStringToObject(p, "id", id);
    cJSON_AddStringToObject(p, "name", name);
    if (db_bot_get(pool, id, &bot, &err) == DB_OK && bot)
        cJSON_AddStringToObject(p, "title", "BOT");
    else
        cJSON_AddNullToObject(p, "title");
}

/* The game's gameFull; NULL with *st set on a database failure. */
static cJSON *game_full(struct db_pool *pool, const struct db_game *g, enum db_status *st,
                        struct base_err *err)
{
    cJSON *state = game_state(pool, g, st, err), *json, *variant, *perf;

    if (state == NULL)
        return NULL;
    json = cJSON_CreateObject();
    cJSON_AddStringToObject(json, "type", "gameFull");
    cJSON_AddStringToObject(json, "id", g->id);
    variant = cJSON_AddObjectToObject(json, "variant");
    cJSON_AddStringToObject(variant, "key", g->variant->name);
    cJSON_AddStringToObject(variant, "name", g->variant->pgn_name);
    cJSON_AddStringToObject(json, "speed", "correspondence");
    perf = cJSON_AddObjectToObject(json, "perf");
    cJSON_AddStringToObject(perf, "name", g->variant->pgn_name);
    cJSON_AddBoolToObject(json, "rated", g->rated);
    cJSON_AddNumberToObject(json, "createdAt", time_ms(g->created_at));
    add_player(pool, json, "white", g->white_id, g->white_name);
    add_player(pool, json, "black", g->black_id, g->black_name);
    cJSON_AddStringToObject(json, "initialFen", g->variant->start_text);
    if (g->clock.type == DB_CLOCK_FISCHER) {
        cJSON *clock = cJSON_AddObjectToObject(json, "clock");
        cJSON_AddNumberToObject(clock, "initial", g->clock.initial_days * DAY_MS);
        cJSON_AddNumberToObject(clock, "increment", g->clock.increment_days * DAY_MS);
    } else if (g->days_per_move > 0) {
        cJSON_AddNumberToObject(json, "daysPerTurn", g->days_per_move);
    }
    cJSON_AddItemToObject(json, "state", state);
    return json;
}

/* ---- A bot's presence, kept by each of its streams. */

/* The stamp a stream last wrote, rewritten at most every SEEN_EVERY_MS
 * while the stream reads the events table, and cleared when it closes
 * (unless a stream of the same bot wrote after it): the first member of
 * each stream's context. */
struct presence {
    struct db_pool *pool;
    char player_id[BASE_ID_SIZE];
    char stamp[DB_STAMP_SIZE];   /* "" before the first write, and for a person */
    bool bot;
    int64_t written_ms;
};

int api_lichess_online_ms(const struct api_config *config)
{
    return config->events_backstop_ms + SEEN_EVERY_MS + SEEN_SLACK_MS;
}

/* Writes the stamp if the player is a bot and it is due. */
static void presence_reading(void *ctx, struct db_pool *pool)
{
    struct presence *p = ctx;
    struct base_err err = { "" };
    int64_t now = base_monotonic_ms();
    char stamp[DB_STAMP_SIZE];

    if (!p->bot || (p->stamp[0] != '\0' && now - p->written_ms < SEEN_EVERY_MS))
        return;
    if (db_bot_seen(pool, p->player_id, stamp, &err) == DB_OK) {
        memcpy(p->stamp, stamp, sizeof stamp);
        p->written_ms = now;
    }
}

/* The presence of the caller (zeroed), its stamp written if a bot. */
static void presence_open(struct presence *p, struct api_request *req)
{
    struct base_err err = { "" };
    p->pool = req->config->pool;
    snprintf(p->player_id, sizeof p->player_id, "%s", req->caller.player_id);
    if (db_bot_get(p->pool, p->player_id, &p->bot, &err) != DB_OK)
        p->bot = false;
    presence_reading(p, p->pool);
}

static void presence_free(void *ctx)
{
    struct presence *p = ctx;
    struct base_err err = { "" };
    if (p != NULL && p->stamp[0] != '\0')
        db_bot_gone(p->pool, p->player_id, p->stamp, &err);
    free(p);
}

/* ---- The player's stream. */

/* A player's stream: its presence, and the challenges and games its opening
 * told.  The opening is read after the last event's id, so an event
 * committed in between is in both: its line is not sent twice. */
struct event_ctx {
    struct presence presence;    /* first: presence_reading and presence_free take it */
    char told_challenges[2 * STREAM_CHALLENGES][BASE_ID_SIZE];
    char told_games[STREAM_GAMES][BASE_ID_SIZE];
};

/* Whether id is among n told ids; it is then struck off (told once). */
static bool told_before(char (*told)[BASE_ID_SIZE], int n, const cJSON *id)
{
    for (int i = 0; cJSON_IsString(id) && i < n; i++)
        if (strcmp(told[i], id->valuestring) == 0) {
            told[i][0] = '\0';
            return true;
        }
    return false;
}

/* Each reason to decline, as its key and as a sentence (ours). */
static const char *const reason_texts[][2] = {
    { "generic", "The challenge was declined." },
    { "later", "Not now; perhaps later." },
    { "tooFast", "This time control is too fast." },
    { "tooSlow", "This time control is too slow." },
    { "timeControl", "Not this time control." },
    { "rated", "Rated games only." },
    { "casual", "Casual games only." },
    { "standard", "Not this kind of game." },
    { "variant", "Not this variant." },
    { "noBot", "No games against bots." },
    { "onlyBot", "Games against bots only." },
};

/* Adds why c was declined: the kept reason, else the generic one. */
static void add_decline_reason(struct db_pool *pool, const struct db_challenge *c,
                               cJSON *json)
{
    char kept[DB_REASON_SIZE] = "";
    struct base_err err = { "" };
    size_t k = 0;

    if (db_challenge_decline_reason(pool, c->id, kept, &err) == DB_OK)
        for (size_t i = 0; i < sizeof reason_texts / sizeof *reason_texts; i++)
            if (strcmp(reason_texts[i][0], kept) == 0)
                k = i;
    cJSON_AddStringToObject(json, "declineReason", reason_texts[k][1]);
    cJSON_AddStringToObject(json, "declineReasonKey", reason_texts[k][0]);
}

/* The challenge of an event, as the line lichess sends for it (*line NULL
 * when it is gone). */
static enum db_status challenge_line(struct db_pool *pool, const char *type,
                                     const cJSON *payload, cJSON **line, struct base_err *err)
{
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(payload, "challenge_id");
    struct db_challenge c;
    enum db_status st;
    cJSON *json;

    if (!cJSON_IsString(id))
        return DB_OK;
    if ((st = db_challenge_get(pool, id->valuestring, &c, err)) != DB_OK)
        return st;
    json = api_lichess_challenge_json(&c);
    if (strcmp(type, "challengeDeclined") == 0)
        add_decline_reason(pool, &c, json);
    *line = typed(type, "challenge", json);
    return DB_OK;
}

/* A game's start or end, as the player of ctx sees it (*line NULL when the
 * game is gone). */
static enum db_status game_line(struct db_pool *pool, const char *player_id, bool end,
                                const cJSON *payload, cJSON **line, struct base_err *err)
{
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(payload, "game_id");
    struct db_game g;
    enum db_status st;
    cJSON *item = NULL;

    if (!cJSON_IsString(id))
        return DB_OK;
    memset(&g, 0, sizeof g);
    if ((st = db_game_get(pool, id->valuestring, &g, err)) == DB_OK)
        item = api_lichess_game_item(pool, player_id, &g, &st, err);
    if (item != NULL) {
        bool white = strcmp(g.white_id, player_id) == 0;
        cJSON_AddStringToObject(item, "id", g.id);
        cJSON_AddStringToObject(cJSON_AddObjectToObject(item, "status"), "name",
                                status_word(&g));
        if (end && winner(&g) != NULL)
            cJSON_AddStringToObject(item, "winner", winner(&g));
        if (end && g.has_rating_diff)
            cJSON_AddNumberToObject(item, "ratingDiff",
                                    (double)(long)(g.rating_diff[white ? 0 : 1] +
                                                   (g.rating_diff[white ? 0 : 1] < 0 ? -0.5
                                                                                     : 0.5)));
        *line = typed(end ? "gameFinish" : "gameStart", "game", item);
    }
    db_game_clear(&g);
    return st;
}

/* An event's ndjson line, once made: a row whose challenge or game is gone
 * has none, nor one the server refuses to read (said in the log: read
 * again, it would hold the stream up for good); on another failure (busy,
 * unreachable) the stream reads the row again later. */
static enum db_status made(enum db_status st, cJSON *json, char **line,
                           const struct base_err *err)
{
    if (st == DB_HARD_ERROR)
        base_log(BASE_LOG_WARN, "bot stream: an event left out: %s", err->text);
    if (st != DB_OK) {
        cJSON_Delete(json);
        return st == DB_NOT_FOUND || st == DB_HARD_ERROR ? DB_OK : st;
    }
    *line = ndjson_line(json);
    return DB_OK;
}

static enum db_status event_line(void *ctx, struct db_pool *pool,
                                 const struct db_event_row *row, char **line,
                                 struct base_err *err)
{
    struct event_ctx *told = ctx;
    cJSON *payload = cJSON_Parse(row->payload), *json = NULL;
    enum db_status st = DB_OK;

    /* A challenge or game start the opening told: no line. */
    if ((strcmp(row->type, "challenge") == 0 &&
         told_before(told->told_challenges, 2 * STREAM_CHALLENGES,
                     cJSON_GetObjectItemCaseSensitive(payload, "challenge_id"))) ||
        (strcmp(row->type, "game_start") == 0 &&
         told_before(told->told_games, STREAM_GAMES,
                     cJSON_GetObjectItemCaseSensitive(payload, "game_id")))) {
        cJSON_Delete(payload);
        return DB_OK;
    }
    if (strcmp(row->type, "challenge") == 0)
        st = challenge_line(pool, "challenge", payload, &json, err);
    else if (strcmp(row->type, "challenge_declined") == 0)
        st = challenge_line(pool, "challengeDeclined", payload, &json, err);
    else if (strcmp(row->type, "challenge_cancelled") == 0)
        st = challenge_line(pool, "challengeCanceled", payload, &json, err);
    else if (strcmp(row->type, "game_start") == 0 || strcmp(row->type, "game_end") == 0)
        st = game_line(pool, told->presence.player_id,
                       strcmp(row->type, "game_end") == 0, payload, &json, err);
    cJSON_Delete(payload);
    return made(st, json, line, err);
}

/* What the stream opens with: the open challenges, the active games (their
 * ids kept in told). */
static char *event_opening(struct db_pool *pool, const char *player_id, struct event_ctx *told,
                           enum db_status *st, struct base_err *err)
{
    static const enum db_game_status active = DB_GAME_ACTIVE;
    struct db_game_filter f = { .player_id = player_id, .status = &active, .limit = STREAM_GAMES };
    struct db_challenge *c = calloc(2 * STREAM_CHALLENGES, sizeof *c);
    struct db_game *games = calloc(STREAM_GAMES, sizeof *games);
    struct base_text text = { 0 };
    int in = 0, out = 0, count = 0;
    bool more = false;

    *st = DB_OK;
    if (c == NULL || games == NULL) {
        free(c);
        free(games);
        return NULL;
    }
    *st = db_challenge_list(pool, player_id, c, STREAM_CHALLENGES, &in,
                                c + STREAM_CHALLENGES, STREAM_CHALLENGES, &out, err);
    for (int i = 0; *st == DB_OK && i < in + out; i++) {
        const struct db_challenge *one = &c[i < in ? i : STREAM_CHALLENGES + i - in];
        char *line = ndjson_line(typed("challenge", "challenge", api_lichess_challenge_json(one)));
        snprintf(told->told_challenges[i], BASE_ID_SIZE, "%s", one->id);
        base_text_put(&text, "%s", line != NULL ? line : "");
        free(line);
    }
    if (*st == DB_OK)
        *st = db_game_list(pool, &f, games, STREAM_GAMES, &count, &more, err);
    for (int i = 0; *st == DB_OK && i < count; i++) {
        cJSON *item = api_lichess_game_item(pool, player_id, &games[i], st, err);
        char *line;
        if (item != NULL)
            cJSON_AddStringToObject(item, "id", games[i].id);
        snprintf(told->told_games[i], BASE_ID_SIZE, "%s", games[i].id);
        line = ndjson_line(item != NULL ? typed("gameStart", "game", item) : NULL);
        base_text_put(&text, "%s", line != NULL ? line : "");
        free(line);
    }
    for (int i = 0; i < count; i++)
        db_game_clear(&games[i]);
    free(games);
    free(c);
    if (*st != DB_OK) {
        free(base_text_take(&text));
        return NULL;
    }
    /* An empty opening still tells the client the stream is up. */
    base_text_put(&text, "%s", text.len == 0 ? "\n" : "");
    return base_text_take(&text);
}

enum MHD_Result api_lichess_event_stream(struct api_request *req)
{
    struct base_err err = { "" };
    enum MHD_Result replied;
    enum db_status st;
    long long last_id = 0;
    struct event_ctx *who;
    char *opening = NULL;

    if (!api_lichess_caller(req, &replied))
        return replied;
    if ((who = calloc(1, sizeof *who)) == NULL)
        return api_fail_oom(req);
    /* The events after this one follow the opening: none is missed. */
    st = db_events_last(req->config->pool, req->caller.player_id, NULL, &last_id, &err);
    if (st == DB_OK)
        opening = event_opening(req->config->pool, req->caller.player_id, who, &st, &err);
    if (st != DB_OK || opening == NULL) {
        free(who);
        free(opening);
        return st != DB_OK ? api_fail_db(req, st, err.text) : api_fail_oom(req);
    }
    presence_open(&who->presence, req);
    struct api_stream_spec spec = { req->caller.player_id, "", last_id, &event_format, who,
                                    opening };
    return api_events_open(req, &spec);
}

/* ---- One game's stream. */

struct game_ctx {
    struct presence presence;    /* first: presence_reading and presence_free take it */
    char game_id[API_PARAM_MAX + 1];
    /* The last gameState sent (the gameFull's first): each line is the game
     * as it stands when its event is read, so events read together, or one
     * the opening already showed, would repeat it.  lichess sends a state
     * when it changes. */
    char *told_state;
};

static void game_ctx_free(void *ctx)
{
    struct game_ctx *gc = ctx;
    if (gc != NULL)
        free(gc->told_state);
    presence_free(ctx);
}

/* The game's state as a line, unless it is the one told last (*line NULL). */
static void state_line(struct game_ctx *gc, cJSON *state, char **line)
{
    char *text = cJSON_PrintUnformatted(state);
    cJSON_Delete(state);
    if (text == NULL || (gc->told_state != NULL && strcmp(text, gc->told_state) == 0)) {
        free(text);
        return;
    }
    free(gc->told_state);
    gc->told_state = text;
    *line = text_line(text);
}

static enum db_status game_line_of(void *ctx, struct db_pool *pool,
                                   const struct db_event_row *row, char **line,
                                   struct base_err *err)
{
    struct game_ctx *gc = ctx;
    struct db_game g;
    enum db_status st = DB_OK;
    cJSON *json = NULL;

    /* A game's start is its gameFull; reminders are not lichess's. */
    if (strcmp(row->type, "game_start") == 0 || strcmp(row->type, "deadline_near") == 0)
        return DB_OK;
    memset(&g, 0, sizeof g);
    if (strcmp(row->type, "message") == 0) {
        cJSON *payload = cJSON_Parse(row->payload);
        const cJSON *m = cJSON_GetObjectItemCaseSensitive(payload, "message");
        const cJSON *from = cJSON_GetObjectItemCaseSensitive(m, "from");
        const cJSON *text = cJSON_GetObjectItemCaseSensitive(m, "text");
        if (cJSON_IsString(from) && cJSON_IsString(text) &&
            (st = db_game_get(pool, gc->game_id, &g, err)) == DB_OK) {
            json = cJSON_CreateObject();
            cJSON_AddStringToObject(json, "type", "chatLine");
            cJSON_AddStringToObject(json, "room", "player");
            cJSON_AddStringToObject(json, "username", strcmp(from->valuestring, "white") == 0
                                                          ? g.white_name
                                                          : g.black_name);
            cJSON_AddStringToObject(json, "text", text->valuestring);
        }
        cJSON_Delete(payload);
    } else if ((st = db_game_get(pool, gc->game_id, &g, err)) == DB_OK &&
               (json = game_state(pool, &g, &st, err)) != NULL) {
        db_game_clear(&g);
        state_line(gc, json, line);
        return DB_OK;
    }
    db_game_clear(&g);
    return made(st, json, line, err);
}

enum MHD_Result api_lichess_game_stream(struct api_request *req)
{
    struct base_err err = { "" };
    enum MHD_Result replied;
    enum db_status st;
    long long last_id = 0;
    struct db_game g;
    struct game_ctx *gc;
    cJSON *full;
    char *opening, *told;

    if (!api_lichess_caller(req, &replied))
        return replied;
    if (!api_id_valid(req->params[0]))
        return api_lichess_error(req, MHD_HTTP_NOT_FOUND, "No such game");
    st = db_events_last(req->config->pool, req->caller.player_id, req->params[0], &last_id,
                        &err);
    if (st != DB_OK)
        return api_fail_db(req, st, err.text);
    memset(&g, 0, sizeof g);
    if (!api_lichess_game(req, &g, &replied))
        return replied;
    if (strcmp(g.white_id, req->caller.player_id) != 0 &&
        strcmp(g.black_id, req->caller.player_id) != 0) {
        db_game_clear(&g);
        return api_lichess_error(req, MHD_HTTP_NOT_FOUND, "No such game");
    }
    full = game_full(req->config->pool, &g, &st, &err);
    db_game_clear(&g);
    if (st != DB_OK) {
        cJSON_Delete(full);
        return api_fail_db(req, st, err.text);
    }
    told = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(full, "state"));
    opening = ndjson_line(full);
    if (opening == NULL || told == NULL || (gc = calloc(1, sizeof *gc)) == NULL) {
        free(opening);
        free(told);
        return api_fail_oom(req);
    }
    gc->told_state = told;
    snprintf(gc->game_id, sizeof gc->game_id, "%s", req->params[0]);
    presence_open(&gc->presence, req);
    struct api_stream_spec spec = { req->caller.player_id, req->params[0], last_id,
                                    &game_format, gc, opening };
    return api_events_open(req, &spec);
}

/* ---- The bots online. */

enum MHD_Result api_lichess_bots_online(struct api_request *req)
{
    const char *nb = api_query(req, "nb");
    struct base_text text = { 0 };
    struct base_err err = { "" };
    struct db_bot *bots;
    enum db_status st;
    long want = ONLINE_DEFAULT;
    int count = 0;
    char *end = NULL, *body;

    if (nb != NULL) {
        want = strtol(nb, &end, 10);
        if (nb[0] < '0' || nb[0] > '9' || *end != '\0' || want < 1 || want > ONLINE_MAX)
            return api_lichess_error(req, MHD_HTTP_BAD_REQUEST, "nb is a number from 1 to %d",
                                     ONLINE_MAX);
    }
    if ((bots = calloc((size_t)want, sizeof *bots)) == NULL)
        return api_fail_oom(req);
    st = db_bot_list(req->config->pool, api_lichess_online_ms(req->config), bots, (int)want,
                     &count, &err);
    for (int i = 0; st == DB_OK && i < count; i++) {
        cJSON *user = cJSON_CreateObject();
        char *line;
        cJSON_AddStringToObject(user, "id", bots[i].id);
        cJSON_AddStringToObject(user, "username", bots[i].name);
        cJSON_AddStringToObject(user, "title", "BOT");
        line = ndjson_line(user);
        base_text_put(&text, "%s", line != NULL ? line : "");
        free(line);
    }
    free(bots);
    if (st != DB_OK) {
        free(base_text_take(&text));
        return api_fail_db(req, st, err.text);
    }
    body = base_text_take(&text);
    if (body == NULL && (body = strdup("")) == NULL)
        return api_fail_oom(req);
    return api_lichess_text(req, body, "application/x-ndjson");
}

static const struct api_stream_format event_format = {
    "application/x-ndjson", "\n", event_line, presence_free, presence_reading,
};

static const struct api_stream_format game_format = {
    "application/x-ndjson", "\n", game_line_of, game_ctx_free, presence_reading,
};
