/*
 * bot.c — the random bot's knowledge and its moves.
 *
 * For every game it keeps the ply, the side to move and whether the game is
 * over, from the freshest source it has seen: an event, the answer to its
 * own move, or a read of the game.  A fact about an older ply never
 * overwrites a newer one, so replayed or late events do no harm.  When the
 * bot is unsure (a 409, a gap), it reads the game again: korpd is the truth.
 *
 * Its turn in a game is: read /analysis and claim a draw if one is
 * claimable; resign at the move cap; else read /legal-moves and play one at
 * random, sending the ply it saw and an Idempotency-Key.
 *
 * In engine mode the choice is korp's engine's instead: the bot reads the
 * game (its moves since the start, for the repetitions, and its FEN),
 * replays it with the rules library, searches at its level, and plays the
 * answer if korpd lists it among the legal moves (else a random one, with
 * a log line: korpd is the truth).
 */
#include "bot.h"

#ifdef RANDOM_BOT_ENGINE
#include "engine.h"     /* engine mode: korp's engine and rules libraries */
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define ID_SIZE 32              /* korp ids are 10 characters; room to spare */
#define RETRY_SECONDS 2.0       /* after a call that failed for good, wait this long */

enum side { SIDE_UNKNOWN = -1, SIDE_WHITE = 0, SIDE_BLACK = 1 };

static const char *const side_names[] = { "white", "black" };

struct game {
    char id[ID_SIZE];
    int me;                     /* our side, SIDE_UNKNOWN until we read the game */
    int ply;                    /* plies played, as far as we know; -1 before any news */
    int to_move;
    bool over;
    double not_before;          /* client_now() time: no call about it before then */
};

struct challenge {
    char id[ID_SIZE];
    bool done;                  /* accepted, or no longer open */
    double not_before;
};

struct bot {
    struct client *client;
    struct bot_settings set;
    uint64_t rng;
    char me[ID_SIZE];
    char name[64];
    struct game *games;
    int game_count, game_cap;
    struct challenge *challenges;
    int challenge_count, challenge_cap;
    int ended;                  /* our games that ended while we watched */
    bool catch_up;              /* the open challenges and active games must be listed */
    double catch_up_not_before;
    bool fatal;
#ifdef RANDOM_BOT_ENGINE
    struct engine *engine;      /* engine mode only */
#endif
};

/* ---- small helpers */

/* xorshift64*: a fine source of random moves, not of secrets. */
static uint64_t next_random(struct bot *b)
{
    b->rng ^= b->rng >> 12;
    b->rng ^= b->rng << 25;
    b->rng ^= b->rng >> 27;
    return b->rng * 0x2545F4914F6CDD1DULL;
}

/* An id we may put in a path: letters and digits only. */
static bool id_ok(const char *id)
{
    size_t n = strlen(id);
    if (n == 0 || n >= ID_SIZE)
        return false;
    for (size_t i = 0; i < n; i++) {
        char c = id[i];
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')))
            return false;
    }
    return true;
}

/* Percent-encodes text into out (RFC 3986: unreserved characters stay);
 * false when it does not fit. */
static bool url_escape(const char *text, char *out, size_t size)
{
    static const char hex[] = "0123456789ABCDEF";
    size_t n = 0;

    for (const unsigned char *p = (const unsigned char *)text; *p != '\0'; p++) {
        bool plain = (*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'z') ||
                     (*p >= 'A' && *p <= 'Z') || strchr("-._~", *p) != NULL;
        if (n + (plain ? 1 : 3) >= size)
            return false;
        if (plain) {
            out[n++] = (char)*p;
        } else {
            out[n++] = '%';
            out[n++] = hex[*p >> 4];
            out[n++] = hex[*p & 15];
        }
    }
    out[n] = '\0';
    return true;
}

static int json_int(const cJSON *json, const char *name, int otherwise)
{
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(json, name);
    return cJSON_IsNumber(item) ? item->valueint : otherwise;
}

static bool json_true(const cJSON *json, const char *name)
{
    return cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(json, name));
}

/* The player id in json.name.id ("white", "black"), or "". */
static const char *player_of(const cJSON *json, const char *name)
{
    return client_json_string(cJSON_GetObjectItemCaseSensitive(json, name), "id");
}

/*
 * One call to korpd, with client_call's retries.  A 401 means our token was
 * revoked: the bot stops.  True when korpd answered.
 */
static bool call(struct bot *b, const char *method, const char *path, const cJSON *body,
                 const char *key, struct client_reply *reply)
{
    if (!client_call(b->client, method, path, body, key, reply))
        return false;
    if (reply->status == 401) {
        client_log("%s %s: the token was refused (revoked?); stopping", method, path);
        b->fatal = true;
        return false;
    }
    return true;
}

/*
 * A call about one game or challenge: method on /v1/<what>/<id><tail>.
 * False when no answer came, and then no call about it before
 * RETRY_SECONDS (*not_before).
 */
static bool call_about(struct bot *b, const char *method, const char *what, const char *id,
                       const char *tail, const cJSON *body, const char *key,
                       double *not_before, struct client_reply *reply)
{
    char path[96];
    snprintf(path, sizeof path, "/v1/%s/%s%s", what, id, tail);
    if (call(b, method, path, body, key, reply))
        return true;
    *not_before = client_now() + RETRY_SECONDS;
    return false;
}

/* The problem's detail of a failed call, for the log. */
static const char *detail(const struct client_reply *reply)
{
    const char *d = client_json_string(reply->json, "detail");
    return d[0] != '\0' ? d : "no detail";
}

/* ---- what the bot knows */

static struct game *game_find(struct bot *b, const char *id, bool add)
{
    for (int i = 0; i < b->game_count; i++)
        if (strcmp(b->games[i].id, id) == 0)
            return &b->games[i];
    if (!add || !id_ok(id))
        return NULL;
    if (b->game_count == b->game_cap) {
        int cap = b->game_cap ? b->game_cap * 2 : 16;
        struct game *bigger = realloc(b->games, (size_t)cap * sizeof *bigger);
        if (bigger == NULL)
            return NULL;
        b->games = bigger;
        b->game_cap = cap;
    }
    struct game *g = &b->games[b->game_count++];
    memset(g, 0, sizeof *g);
    snprintf(g->id, sizeof g->id, "%s", id);
    g->me = SIDE_UNKNOWN;
    g->ply = -1;
    return g;
}

/*
 * Learns from json, a game (from the API) or a game event's data: our side,
 * and the ply, side to move and status unless we know of a later ply.
 */
static void game_learn(struct bot *b, struct game *g, const cJSON *json)
{
    const char *status = client_json_string(json, "status");
    int ply = json_int(json, "ply", -1);

    if (g->me == SIDE_UNKNOWN) {
        if (strcmp(player_of(json, "white"), b->me) == 0)
            g->me = SIDE_WHITE;
        else if (strcmp(player_of(json, "black"), b->me) == 0)
            g->me = SIDE_BLACK;
    }
    if (g->over || ply < 0 || ply < g->ply || status[0] == '\0')
        return;
    g->ply = ply;
    g->to_move = strcmp(client_json_string(json, "to_move"), "black") == 0 ? SIDE_BLACK
                                                                           : SIDE_WHITE;
    if (strcmp(status, "active") != 0) {
        const char *termination = client_json_string(json, "termination");
        g->over = true;
        b->ended++;
        client_log("game %s over at ply %d: %s %s %s", g->id, ply, status,
                   client_json_string(json, "result"),
                   termination[0] != '\0' ? termination : "-");
    }
}

static void challenge_note(struct bot *b, const char *id)
{
    if (!id_ok(id))
        return;
    for (int i = 0; i < b->challenge_count; i++)
        if (strcmp(b->challenges[i].id, id) == 0)
            return;
    if (b->challenge_count == b->challenge_cap) {
        int cap = b->challenge_cap ? b->challenge_cap * 2 : 8;
        struct challenge *bigger = realloc(b->challenges, (size_t)cap * sizeof *bigger);
        if (bigger == NULL)
            return;
        b->challenges = bigger;
        b->challenge_cap = cap;
    }
    struct challenge *c = &b->challenges[b->challenge_count++];
    memset(c, 0, sizeof *c);
    snprintf(c->id, sizeof c->id, "%s", id);
}

struct bot *bot_new(struct client *client, const struct bot_settings *settings)
{
    struct bot *b = calloc(1, sizeof *b);
    if (b == NULL)
        return NULL;
    b->client = client;
    b->set = *settings;
    b->rng = settings->seed != 0 ? settings->seed : 1;     /* xorshift never leaves 0 */
#ifdef RANDOM_BOT_ENGINE
    if (settings->engine && (b->engine = engine_new(ENGINE_HASH_DEFAULT_MB)) == NULL) {
        free(b);
        return NULL;
    }
#endif
    return b;
}

void bot_free(struct bot *b)
{
    if (b == NULL)
        return;
#ifdef RANDOM_BOT_ENGINE
    engine_free(b->engine);
#endif
    free(b->games);
    free(b->challenges);
    free(b);
}

bool bot_login(struct bot *b)
{
    struct client_reply r = { 0, NULL };
    bool ok = false;

    if (!call(b, "GET", "/v1/players/me", NULL, NULL, &r)) {
        if (!b->fatal)
            client_log("cannot reach korpd at %s", client_base(b->client));
    } else if (r.status != 200 || !id_ok(client_json_string(r.json, "id"))) {
        client_log("GET /v1/players/me: HTTP %ld: %s", r.status, detail(&r));
    } else {
        snprintf(b->me, sizeof b->me, "%s", client_json_string(r.json, "id"));
        snprintf(b->name, sizeof b->name, "%s", client_json_string(r.json, "name"));
        client_log("playing as %s (%s) on %s", b->name, b->me, client_base(b->client));
        if (b->set.engine) {
            if (b->set.level == 0)
                b->set.level = bot_level_of_name(b->name);
            if (b->set.level == 0)
                b->set.level = BOT_LEVEL_DEFAULT;
            struct bot_level l = bot_level_limits(b->set.level);
            client_log("engine mode, level %d: %s %d%s", b->set.level,
                       l.depth ? "depth" : "time per move", l.depth ? l.depth : l.movetime_ms,
                       l.depth ? "" : " ms");
        }
        ok = true;
    }
    client_reply_clear(&r);
    return ok;
}

void bot_on_event(void *arg, const char *type, const char *data, const char *id)
{
    struct bot *b = arg;
    cJSON *json = cJSON_Parse(data);
    const char *game_id;

    if (!cJSON_IsObject(json)) {
        client_log("event %s (id %s): the data is not a JSON object; ignored", type, id);
        cJSON_Delete(json);
        return;
    }
    if (strcmp(type, "challenge") == 0) {
        /* We hear of our own challenges too: accept only those made to us. */
        if (strcmp(client_json_string(json, "status"), "open") == 0 &&
            strcmp(client_json_string(json, "opponent"), b->me) == 0) {
            client_log("event %s: challenge %s to %s", id,
                       client_json_string(json, "challenge_id"),
                       client_json_string(json, "variant"));
            challenge_note(b, client_json_string(json, "challenge_id"));
        }
    } else if ((game_id = client_json_string(json, "game_id"))[0] != '\0' &&
               strncmp(type, "challenge", 9) != 0) {
        struct game *g = game_find(b, game_id, true);
        if (g != NULL)
            game_learn(b, g, json);
    }
    cJSON_Delete(json);
}

void bot_catch_up(struct bot *b)
{
    b->catch_up = true;
    b->catch_up_not_before = 0;
}

/* ---- what the bot does */

/* Reads the game again (after a surprise).  False when korpd did not answer. */
static bool refresh(struct bot *b, struct game *g)
{
    struct client_reply r = { 0, NULL };
    char path[96];
    bool ok = false;

    snprintf(path, sizeof path, "/v1/games/%s", g->id);
    if (call(b, "GET", path, NULL, NULL, &r)) {
        if (r.status == 200) {
            game_learn(b, g, r.json);
            ok = true;
        } else {
            client_log("GET %s: HTTP %ld: %s", path, r.status, detail(&r));
        }
    }
    if (!ok)
        g->not_before = client_now() + RETRY_SECONDS;
    client_reply_clear(&r);
    return ok;
}

/* The open challenges and the active games: what a fresh stream will not
 * tell.  False when korpd did not answer (we try again later). */
static bool catch_up(struct bot *b)
{
    struct client_reply r = { 0, NULL };
    char path[512], cursor[384] = "";
    const cJSON *item;
    bool ok = false;

    if (!call(b, "GET", "/v1/challenges", NULL, NULL, &r) || r.status != 200)
        goto done;
    cJSON_ArrayForEach(item, cJSON_GetObjectItemCaseSensitive(r.json, "incoming"))
        if (strcmp(client_json_string(item, "status"), "open") == 0)
            challenge_note(b, client_json_string(item, "id"));
    /* Games a page at a time, following "next" until it is null. */
    do {
        snprintf(path, sizeof path, "/v1/games?player=%s&status=active&limit=100%s%s", b->me,
                 cursor[0] ? "&cursor=" : "", cursor);
        client_reply_clear(&r);
        if (!call(b, "GET", path, NULL, NULL, &r) || r.status != 200)
            goto done;
        cJSON_ArrayForEach(item, cJSON_GetObjectItemCaseSensitive(r.json, "games")) {
            struct game *g = game_find(b, client_json_string(item, "id"), true);
            if (g != NULL)
                game_learn(b, g, item);
        }
        /* Cursors are opaque: pass them back percent-encoded, whatever they hold. */
        if (!url_escape(client_json_string(r.json, "next"), cursor, sizeof cursor))
            goto done;
    } while (cursor[0] != '\0');
    ok = true;
    client_log("caught up: %d challenge(s) seen, %d game(s) known", b->challenge_count,
               b->game_count);
done:
    if (!ok && r.status != 0 && !b->fatal)
        client_log("catching up: HTTP %ld: %s", r.status, detail(&r));
    client_reply_clear(&r);
    return ok;
}

static void accept_challenge(struct bot *b, struct challenge *c)
{
    struct client_reply r = { 0, NULL };

    if (!call_about(b, "POST", "challenges", c->id, "/accept", NULL, NULL, &c->not_before,
                    &r)) {
        /* no answer: tried again after RETRY_SECONDS */
    } else if (r.status == 201) {
        const cJSON *game = cJSON_GetObjectItemCaseSensitive(r.json, "game");
        struct game *g = game_find(b, client_json_string(r.json, "game_id"), true);
        if (g != NULL)
            game_learn(b, g, game);
        client_log("accept challenge %s: game %s, %s, we play %s", c->id,
                   client_json_string(r.json, "game_id"), client_json_string(game, "variant"),
                   g != NULL && g->me != SIDE_UNKNOWN ? side_names[g->me] : "?");
        c->done = true;
    } else {
        /* 409: taken back, or accepted by our own earlier try whose answer
         * was lost; then its game_start event brings the game. */
        client_log("accept challenge %s: HTTP %ld: %s", c->id, r.status, detail(&r));
        c->done = true;
    }
    client_reply_clear(&r);
}

/* Claims a draw of the given kind; true when the game ended by it. */
static bool claim(struct bot *b, struct game *g, const char *kind)
{
    struct client_reply r = { 0, NULL };
    cJSON *body = cJSON_CreateObject();
    bool ended = false;

    cJSON_AddStringToObject(body, "kind", kind);
    if (!call_about(b, "POST", "games", g->id, "/claims", body, NULL, &g->not_before, &r)) {
        ended = true;           /* nothing more this time */
    } else if (r.status == 200) {
        bool accepted = json_true(r.json, "accepted");
        client_log("claim %s %s at ply %d: %s (%s)", g->id, kind, g->ply,
                   accepted ? "accepted" : "rejected", client_json_string(r.json, "reason"));
        game_learn(b, g, cJSON_GetObjectItemCaseSensitive(r.json, "game"));
        ended = g->over;
    } else {
        /* Not our turn after all, or the game is over: read it again. */
        client_log("claim %s %s: HTTP %ld: %s", g->id, kind, r.status, detail(&r));
        refresh(b, g);
        ended = true;
    }
    cJSON_Delete(body);
    client_reply_clear(&r);
    return ended;
}

static void resign(struct bot *b, struct game *g)
{
    struct client_reply r = { 0, NULL };

    client_log("resign %s at ply %d (the cap is %d)", g->id, g->ply, b->set.max_plies);
    if (!call_about(b, "POST", "games", g->id, "/resign", NULL, NULL, &g->not_before, &r)) {
        /* no answer: tried again after RETRY_SECONDS */
    } else if (r.status == 200) {
        game_learn(b, g, r.json);
    } else {
        client_log("resign %s: HTTP %ld: %s", g->id, r.status, detail(&r));
        refresh(b, g);
    }
    client_reply_clear(&r);
}

/* A fresh Idempotency-Key: 32 hex digits from the system's random source
 * (not from the move generator: a key must never come back). */
static void new_key(struct bot *b, char key[33])
{
    unsigned char bytes[16];
    if (getentropy(bytes, sizeof bytes) != 0) {
        for (size_t i = 0; i < sizeof bytes; i++)
            bytes[i] = (unsigned char)(next_random(b) >> 56);
    }
    for (size_t i = 0; i < sizeof bytes; i++)
        snprintf(key + 2 * i, 3, "%02x", bytes[i]);
}

/* ---- engine mode */

bool bot_engine_built(void)
{
#ifdef RANDOM_BOT_ENGINE
    return true;
#else
    return false;
#endif
}

struct bot_level bot_level_limits(int level)
{
    /* Levels 1-4 search to a depth (quick, and weaker the lower); from 5 on
     * the time per move doubles: 250 ms ... 8 s. */
    struct bot_level l = { 0, 0 };
    if (level < 1)
        level = 1;
    if (level > BOT_LEVEL_MAX)
        level = BOT_LEVEL_MAX;
    if (level <= 4)
        l.depth = level;
    else
        l.movetime_ms = 250 << (level - 5);
    return l;
}

int bot_level_of_name(const char *name)
{
    const char *dash = strrchr(name, '-');
    int level = 0;
    if (dash == NULL || dash[1] == '\0' || strlen(dash + 1) > 2)
        return 0;
    for (const char *p = dash + 1; *p != '\0'; p++) {
        if (*p < '0' || *p > '9')
            return 0;
        level = level * 10 + (*p - '0');
    }
    return level >= 1 && level <= BOT_LEVEL_MAX ? level : 0;
}

#ifdef RANDOM_BOT_ENGINE
/*
 * The engine's move in game g as UCI text (into uci), from the game as korpd
 * gives it: the moves since the start are replayed with the rules library,
 * for the repetition keys the search needs; when they do not lead to korpd's
 * FEN, the FEN alone is searched.  False when the game could not be read or
 * has moved on (the caller then reads it again).
 */
static bool engine_choice(struct bot *b, struct game *g, char *uci, size_t size)
{
    struct client_reply r = { 0, NULL };
    const struct rules_variant *v;
    struct rules_position pos, fen_pos;
    struct rules_why why;
    struct engine_result res;
    struct engine_limits limits = { 0 };
    struct bot_level level = bot_level_limits(b->set.level);
    const cJSON *moves, *san;
    uint64_t *keys = NULL;
    int count = 0;
    bool ok = false, replayed = true;
    char path[96];

    snprintf(path, sizeof path, "/v1/games/%s", g->id);
    if (!call(b, "GET", path, NULL, NULL, &r) || r.status != 200)
        goto done;
    game_learn(b, g, r.json);
    if (g->over || g->me != g->to_move || json_int(r.json, "ply", -1) != g->ply)
        goto done;
    v = rules_variant_find(client_json_string(r.json, "variant"));
    if (v == NULL ||
        v->position_parse(&fen_pos, client_json_string(r.json, "fen"), &why) != RULES_OK) {
        client_log("game %s: cannot read its position", g->id);
        goto done;
    }
    moves = cJSON_GetObjectItemCaseSensitive(r.json, "moves");
    keys = malloc(((size_t)cJSON_GetArraySize(moves) + 1) * sizeof *keys);
    if (keys == NULL)
        goto done;
    if (v->position_parse(&pos, v->start_text, &why) != RULES_OK)
        replayed = false;
    else
        keys[count++] = v->repetition_key(&pos);
    cJSON_ArrayForEach(san, moves) {
        struct rules_move m;
        if (!replayed)
            break;
        if (!cJSON_IsString(san) ||
            v->move_parse(&pos, san->valuestring, 0, &m, &why) != RULES_OK) {
            replayed = false;
            break;
        }
        if (v->move_is_irreversible(&pos, m))
            count = 0;
        if (v->position_apply(&pos, m) != RULES_OK) {
            replayed = false;
            break;
        }
        keys[count++] = v->repetition_key(&pos);
    }
    if (!replayed || v->repetition_key(&pos) != v->repetition_key(&fen_pos)) {
        pos = fen_pos;          /* the position without its history */
        keys[0] = v->repetition_key(&pos);
        count = 1;
    }
    limits.depth = level.depth;
    limits.movetime_ms = level.movetime_ms;
    engine_stop_reset(b->engine);
    if (engine_search(b->engine, v, &pos, keys, count, &limits, NULL, NULL, &res) != 0 ||
        !res.has_move)
        goto done;
    v->move_format(&pos, res.best, RULES_NOTATION_UCI, uci, size);
    client_log("engine %s ply %d: %s, score %d (side to move), depth %d, %llu nodes, "
               "%lld ms", g->id, g->ply + 1, uci, res.score, res.depth,
               (unsigned long long)res.nodes, (long long)res.time_ms);
    ok = true;
done:
    free(keys);
    client_reply_clear(&r);
    return ok;
}
#else
static bool engine_choice(struct bot *b, struct game *g, char *uci, size_t size)
{
    (void)b, (void)g, (void)uci, (void)size;
    return false;
}
#endif

/* Whether the bot chooses with the engine. */
static bool engine_mode(const struct bot *b)
{
#ifdef RANDOM_BOT_ENGINE
    return b->engine != NULL;
#else
    (void)b;
    return false;
#endif
}

/* Plays a legal move: the engine's in engine mode, else one at random. */
static void move(struct bot *b, struct game *g)
{
    struct client_reply r = { 0, NULL };
    cJSON *body = NULL;
    const cJSON *moves, *chosen;
    char key[33], uci[40], san[40], wanted[40] = "";
    int count;

    if (engine_mode(b) && !engine_choice(b, g, wanted, sizeof wanted)) {
        /* It read the game: wait only if that failed and it is still our turn. */
        if (!g->over && g->me == g->to_move)
            g->not_before = client_now() + RETRY_SECONDS;
        goto done;
    }
    if (!call_about(b, "GET", "games", g->id, "/legal-moves", NULL, NULL, &g->not_before, &r))
        goto done;
    moves = cJSON_GetObjectItemCaseSensitive(r.json, "moves");
    count = cJSON_GetArraySize(moves);
    if (r.status != 200 || count == 0) {
        /* No move: the game must have ended.  Read it to be sure. */
        refresh(b, g);
        g->not_before = client_now() + RETRY_SECONDS;
        goto done;
    }
    /* The choice.  A real bot puts its thinking here (engine mode does). */
    chosen = NULL;
    if (engine_mode(b)) {
        const cJSON *item;
        cJSON_ArrayForEach(item, moves)
            if (strcmp(client_json_string(item, "uci"), wanted) == 0)
                chosen = item;
        if (chosen == NULL)
            client_log("game %s: the engine's move %s is not among korpd's legal moves; "
                       "playing a random one", g->id, wanted);
    }
    if (chosen == NULL)
        chosen = cJSON_GetArrayItem(moves, (int)(next_random(b) % (uint64_t)count));
    snprintf(uci, sizeof uci, "%s", client_json_string(chosen, "uci"));
    snprintf(san, sizeof san, "%s", client_json_string(chosen, "san"));
    client_reply_clear(&r);

    body = cJSON_CreateObject();
    cJSON_AddStringToObject(body, "move", uci);
    cJSON_AddNumberToObject(body, "ply", g->ply);   /* 409, not a blunder, if we are behind */
    new_key(b, key);
    if (!call_about(b, "POST", "games", g->id, "/moves", body, key, &g->not_before, &r)) {
        /* no answer: tried again after RETRY_SECONDS */
    } else if (r.status == 201) {
        client_log("move %s ply %d: %s (%s)", g->id, g->ply + 1, san, uci);
        game_learn(b, g, r.json);
    } else {
        /* 409: the game moved on without us (or ended); 422 should not
         * happen with a move from /legal-moves.  Read the game again. */
        client_log("move %s %s: HTTP %ld %s: %s", g->id, uci, r.status,
                   client_json_string(r.json, "type"), detail(&r));
        refresh(b, g);
        if (r.status != 409)
            g->not_before = client_now() + RETRY_SECONDS;
    }
done:
    cJSON_Delete(body);
    client_reply_clear(&r);
}

/* Our turn in game g: claim a draw if we may, resign at the cap, else move. */
static void play(struct bot *b, struct game *g)
{
    struct client_reply r = { 0, NULL };
    const char *kind = NULL;

    if (!call_about(b, "GET", "games", g->id, "/analysis", NULL, NULL, &g->not_before, &r))
        goto done;
    if (r.status != 200 || json_int(r.json, "ply", -1) != g->ply ||
        strcmp(client_json_string(r.json, "game_status"), "active") != 0) {
        refresh(b, g);          /* we are behind: catch up first */
        goto done;
    }
    if (json_true(r.json, "threefold_claimable"))
        kind = "threefold";
    else if (json_true(r.json, "fifty_move_claimable"))
        kind = "fifty-move";
    if (kind != NULL && claim(b, g, kind))
        goto done;
    if (g->ply >= b->set.max_plies)
        resign(b, g);
    else
        move(b, g);
done:
    client_reply_clear(&r);
}

enum bot_status bot_work(struct bot *b)
{
    double now = client_now();

    if (b->catch_up && now >= b->catch_up_not_before) {
        if (catch_up(b))
            b->catch_up = false;
        else
            b->catch_up_not_before = client_now() + RETRY_SECONDS;
    }
    for (int i = 0; i < b->challenge_count && !b->fatal; i++) {
        struct challenge *c = &b->challenges[i];
        if (!c->done && client_now() >= c->not_before)
            accept_challenge(b, c);
    }
    /* Index, not pointer: accepting above may have moved the array. */
    for (int i = 0; i < b->game_count && !b->fatal; i++) {
        struct game *g = &b->games[i];
        if (g->over || client_now() < g->not_before)
            continue;
        if (g->me == SIDE_UNKNOWN && refresh(b, g) && g->me == SIDE_UNKNOWN) {
            /* Heard of it from an event, yet we play neither side. */
            client_log("game %s: we do not play in it; ignored", g->id);
            g->over = true;
        }
        if (!g->over && g->me == g->to_move && g->ply >= 0 && client_now() >= g->not_before)
            play(b, g);
    }
    if (b->fatal)
        return BOT_FATAL;
    if (b->set.games > 0 && b->ended >= b->set.games)
        return BOT_DONE;
    return BOT_OK;
}
