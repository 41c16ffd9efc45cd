/*
 * api_tournaments.c — round-robin tournaments over HTTP: create,
 * join, withdraw, start, one tournament with its games and standings
 * (score, then Sonneborn-Berger, then wins; equal ranks by start number),
 * the list, and the record of its games.
 */
#include "api_int.h"

#include "games.h"
#include "notify.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PLAYERS_MAX 30
#define GAMES_MAX (PLAYERS_MAX * (PLAYERS_MAX - 1))

static void add_text_or_null(cJSON *json, const char *name, const char *text)
{
    if (text != NULL && text[0] != '\0')
        cJSON_AddStringToObject(json, name, text);
    else
        cJSON_AddNullToObject(json, name);
}

/* The tournament as every answer shows it; players when given. */
static cJSON *tournament_json(const struct db_tournament *t,
                              const struct db_tournament_player *players, int count)
{
    cJSON *json = cJSON_CreateObject(), *d, *list, *clock;

    cJSON_AddStringToObject(json, "id", t->id);
    cJSON_AddStringToObject(json, "name", t->name);
    cJSON_AddStringToObject(json, "variant", t->variant ? t->variant->name : "");
    cJSON_AddStringToObject(json, "status", db_tournament_status_text(t->status));
    d = cJSON_AddObjectToObject(json, "director");
    cJSON_AddStringToObject(d, "id", t->director_id);
    cJSON_AddStringToObject(d, "name", t->director_name);
    list = cJSON_AddArrayToObject(json, "players");
    for (int i = 0; i < count; i++) {
        cJSON *p = cJSON_CreateObject();
        cJSON_AddStringToObject(p, "id", players[i].id);
        cJSON_AddStringToObject(p, "name", players[i].name);
        if (players[i].number > 0)
            cJSON_AddNumberToObject(p, "number", players[i].number);
        else
            cJSON_AddNullToObject(p, "number");
        cJSON_AddBoolToObject(p, "withdrawn", players[i].withdrawn);
        cJSON_AddItemToArray(list, p);
    }
    cJSON_AddNumberToObject(json, "player_count", t->player_count);
    cJSON_AddBoolToObject(json, "double", t->double_round);
    cJSON_AddNumberToObject(json, "max_players", t->max_players);
    cJSON_AddBoolToObject(json, "rated", t->rated);
    cJSON_AddStringToObject(json, "engines", api_engines_text(t->engines_allowed));
    clock = t->clock[0] ? cJSON_Parse(t->clock) : NULL;
    cJSON_AddItemToObject(json, "clock", clock ? clock : cJSON_CreateNull());
    if (t->days_per_move > 0)
        cJSON_AddNumberToObject(json, "days_per_move", t->days_per_move);
    else
        cJSON_AddNullToObject(json, "days_per_move");
    cJSON_AddBoolToObject(json, "leave_allowed", t->leave_allowed);
    if (t->has_min_rating)
        cJSON_AddNumberToObject(json, "min_rating", t->min_rating);
    else
        cJSON_AddNullToObject(json, "min_rating");
    if (t->has_max_rating)
        cJSON_AddNumberToObject(json, "max_rating", t->max_rating);
    else
        cJSON_AddNullToObject(json, "max_rating");
    if (t->has_max_timeout)
        cJSON_AddNumberToObject(json, "max_timeout_percent", t->max_timeout_percent);
    else
        cJSON_AddNullToObject(json, "max_timeout_percent");
    add_text_or_null(json, "starts_at", t->starts_at);
    add_text_or_null(json, "ends_at", t->ends_at);
    cJSON_AddStringToObject(json, "created_at", t->created_at);
    return json;
}

/* ---- standings ------------------------------------------------------------ */

struct standing {
    const struct db_tournament_player *p;
    int quarters;         /* score × 4 */
    int played, wins;
    long sb16;            /* Sonneborn-Berger × 16 */
};

static int index_of(const struct db_tournament_player *players, int count, const char *id)
{
    for (int i = 0; i < count; i++)
        if (strcmp(players[i].id, id) == 0)
            return i;
    return -1;
}

/* Score, then Sonneborn-Berger, then wins: higher first. */
static int compare(const struct standing *a, const struct standing *b)
{
    if (a->quarters != b->quarters)
        return a->quarters > b->quarters ? -1 : 1;
    if (a->sb16 != b->sb16)
        return a->sb16 > b->sb16 ? -1 : 1;
    if (a->wins != b->wins)
        return a->wins > b->wins ? -1 : 1;
    return 0;
}

/* The rows' order: by rank, equal ranks by start number (numbered players
 * first: before the start no one is), then by id. */
static int compare_qsort(const void *a, const void *b)
{
    const struct db_tournament_player *pa = ((const struct standing *)a)->p,
                                      *pb = ((const struct standing *)b)->p;
    int c = compare(a, b);
    if (c != 0)
        return c;
    if (pa->number != pb->number)
        return pa->number <= 0 ? 1 : pb->number <= 0 ? -1 : pa->number < pb->number ? -1 : 1;
    return strcmp(pa->id, pb->id);
}

static cJSON *standings_json(const struct db_tournament_player *players, int count,
                             const struct db_tournament_game *games, int game_count)
{
    struct standing s[PLAYERS_MAX];
    cJSON *list = cJSON_CreateArray();

    for (int i = 0; i < count; i++)
        s[i] = (struct standing){ &players[i], 0, 0, 0, 0 };
    /* Scores first; Sonneborn-Berger needs every opponent's final score. */
    for (int pass = 0; pass < 2; pass++)
        for (int k = 0; k < game_count; k++) {
            int q[2], w = index_of(players, count, games[k].white_id),
                      b = index_of(players, count, games[k].black_id);
            if (games[k].status != DB_GAME_FINISHED || w < 0 || b < 0 ||
                !rules_result_quarters(games[k].result, q))
                continue;
            if (pass == 0) {
                s[w].quarters += q[0];
                s[b].quarters += q[1];
                s[w].played++;
                s[b].played++;
                s[w].wins += q[0] > 2;
                s[b].wins += q[1] > 2;
            } else {
                s[w].sb16 += (long)q[0] * s[b].quarters;
                s[b].sb16 += (long)q[1] * s[w].quarters;
            }
        }
    qsort(s, (size_t)count, sizeof *s, compare_qsort);
    for (int i = 0; i < count; i++) {
        cJSON *row = cJSON_CreateObject();
        int rank = i;
        while (rank > 0 && compare(&s[rank - 1], &s[i]) == 0)
            rank--;
        cJSON_AddNumberToObject(row, "rank", rank + 1);
        cJSON_AddStringToObject(row, "player", s[i].p->id);
        cJSON_AddStringToObject(row, "name", s[i].p->name);
        cJSON_AddNumberToObject(row, "score", s[i].quarters / 4.0);
        cJSON_AddNumberToObject(row, "played", s[i].played);
        cJSON_AddNumberToObject(row, "sonneborn_berger", s[i].sb16 / 16.0);
        cJSON_AddNumberToObject(row, "wins", s[i].wins);
        cJSON_AddItemToArray(list, row);
    }
    return list;
}

/* ---- handlers --------------------------------------------------------------- */

static enum MHD_Result reply_outcome(struct api_request *req, struct games_result *r,
                                     const struct db_tournament *t, unsigned ok_status)
{
    enum MHD_Result rc;
    if (r->outcome != GAMES_OK) {
        rc = api_reply_refused(req, r);
    } else {
        struct db_tournament_player players[PLAYERS_MAX];
        struct base_err err = { "" };
        int count = 0;
        enum db_status st = db_tournament_players(req->config->pool, t->id, players,
                                                  PLAYERS_MAX, &count, &err);
        rc = st == DB_OK ? api_reply_json(req, ok_status, tournament_json(t, players, count))
                         : api_fail_db(req, st, err.text);
    }
    games_result_clear(r);
    return rc;
}

/* How far ahead a tournament may start or end: about a year. */
#define AHEAD_DAYS_MAX 366

/* Days from 1970-01-01 to a date of the proleptic Gregorian calendar. */
static long long days_from_civil(int y, int m, int d)
{
    y -= m <= 2;
    long long era = (y >= 0 ? y : y - 399) / 400;
    long long yoe = y - era * 400;
    long long doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    long long doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

/* "YYYY-MM-DDTHH:MM:SSZ", as korpd writes times, of a day that exists
 * (years 1 to 9999): its seconds since 1970 into *at. */
static bool time_read(const char *t, long long *at)
{
    static const char shape[] = "dddd-dd-ddTdd:dd:ddZ";
    static const int month_days[12] = { 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
    int y, mo, d, h, mi, sec;

    if (strlen(t) != sizeof shape - 1)
        return false;
    for (size_t i = 0; i < sizeof shape - 1; i++)
        if (shape[i] == 'd' ? (t[i] < '0' || t[i] > '9') : t[i] != shape[i])
            return false;
    if (sscanf(t, "%4d-%2d-%2dT%2d:%2d:%2dZ", &y, &mo, &d, &h, &mi, &sec) != 6 || y < 1 ||
        mo < 1 || mo > 12 || d < 1 || d > month_days[mo - 1] || h > 23 || mi > 59 || sec > 59)
        return false;
    if (mo == 2 && d == 29 && !(y % 4 == 0 && (y % 100 != 0 || y % 400 == 0)))
        return false;
    *at = days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + sec;
    return true;
}

/*
 * starts_at and ends_at (each may be NULL) against korpd's clock: a start
 * not in the past, an end after the start and after now, neither more
 * than AHEAD_DAYS_MAX days ahead.  Replies itself and returns false
 * otherwise.
 */
static bool times_check(struct api_request *req, const char *starts, const char *ends,
                        enum MHD_Result *replied)
{
    struct base_err err = { "" };
    long long start = 0, end = 0, now = 0, last;
    enum db_status st;

    if ((starts && !time_read(starts, &start)) || (ends && !time_read(ends, &end))) {
        *replied = api_fail_reason(req, API_PROBLEM_BAD_REQUEST, "time-unreadable",
                                   "'starts_at' and 'ends_at' are UTC "
                                   "times of days that exist, like 2026-12-01T12:00:00Z");
        return false;
    }
    if (starts && ends && end <= start) {
        *replied = api_fail_reason(req, API_PROBLEM_INVALID_VALUE, "ends-before-start",
                                   "'ends_at' must come after 'starts_at'");
        return false;
    }
    if (!starts && !ends)
        return true;
    if ((st = db_clock_now(req->config->pool, &now, &err)) != DB_OK) {
        *replied = api_fail_db(req, st, err.text);
        return false;
    }
    last = now + AHEAD_DAYS_MAX * 86400LL;
    if (starts && start < now)
        *replied = api_fail_reason(req, API_PROBLEM_INVALID_VALUE, "starts-in-the-past",
                                   "'starts_at' is in the past");
    else if (ends && end <= now)
        *replied = api_fail_reason(req, API_PROBLEM_INVALID_VALUE, "ends-in-the-past",
                                   "'ends_at' must come after now");
    else if ((starts && start > last) || (ends && end > last))
        *replied = api_fail_reason(req, API_PROBLEM_INVALID_VALUE, "too-far-ahead",
                                   "'starts_at' and 'ends_at' may be "
                                   "at most %d days ahead", AHEAD_DAYS_MAX);
    else
        return true;
    return false;
}

static const struct api_field tournament_fields[] = {
    { "name", API_TEXT, true, false, 1, 100 },
    { "variant", API_STRING, true, false, 1, 32 },
    { "clock", API_OBJECT, false, true, 0, 0 },
    { "days_per_move", API_INTEGER, false, true, 1, 60 },
    { "rated", API_BOOLEAN, false, false, 0, 0 },
    { "engines", API_STRING, false, false, 1, 16 },
    { "double", API_BOOLEAN, false, false, 0, 0 },
    { "max_players", API_INTEGER, true, false, 3, 30 },
    { "leave_allowed", API_BOOLEAN, false, false, 0, 0 },
    { "min_rating", API_INTEGER, false, true, 0, 4000 },
    { "max_rating", API_INTEGER, false, true, 0, 4000 },
    { "max_timeout_percent", API_INTEGER, false, true, 0, 100 },
    { "starts_at", API_STRING, false, true, 1, 32 },
    { "ends_at", API_STRING, false, true, 1, 32 },
    { NULL, API_STRING, false, false, 0, 0 },
};

enum MHD_Result api_tournament_create(struct api_request *req)
{
    enum MHD_Result replied;
    struct db_tournament t;
    struct games_result r;
    const char *variant, *starts, *ends;
    const cJSON *clock;
    char why[256];
    bool is_null = false;

    if (!api_body_check(req, tournament_fields, &replied))
        return replied;
    memset(&t, 0, sizeof t);
    variant = api_body_string(req, "variant");
    if ((t.variant = db_variant_parse(variant)) == NULL)
        return api_fail(req, API_PROBLEM_BAD_REQUEST,
                        "'variant' must be \"korpalski\" or \"glinski\", not \"%.32s\"", variant);
    snprintf(t.name, sizeof t.name, "%s", api_body_string(req, "name"));
    snprintf(t.director_id, sizeof t.director_id, "%s", req->caller.player_id);
    /* The clock its games get, checked as a challenge's is. */
    if (!api_clock_read(req, &t.game_clock, &t.days_per_move, why, sizeof why))
        return api_fail(req, API_PROBLEM_BAD_REQUEST, "%s", why);
    clock = cJSON_GetObjectItemCaseSensitive(req->json, "clock");
    if (cJSON_IsObject(clock)) {
        char *text = cJSON_PrintUnformatted(clock);
        if (text == NULL || strlen(text) >= sizeof t.clock) {
            free(text);
            return api_fail(req, API_PROBLEM_BAD_REQUEST, "'clock' is too long");
        }
        snprintf(t.clock, sizeof t.clock, "%s", text);
        free(text);
    }
    t.rated = api_body_boolean(req, "rated", true);
    if (!api_engines_read(req, t.rated, &t.engines_allowed, &replied))
        return replied;
    t.double_round = api_body_boolean(req, "double", false);
    t.max_players = (int)api_body_integer(req, "max_players", 0, NULL);
    t.leave_allowed = t.game_clock.leave_allowed;
    t.min_rating = (double)api_body_integer(req, "min_rating", 0, &is_null);
    t.has_min_rating = cJSON_GetObjectItemCaseSensitive(req->json, "min_rating") && !is_null;
    t.max_rating = (double)api_body_integer(req, "max_rating", 0, &is_null);
    t.has_max_rating = cJSON_GetObjectItemCaseSensitive(req->json, "max_rating") && !is_null;
    t.max_timeout_percent = (int)api_body_integer(req, "max_timeout_percent", 0, &is_null);
    t.has_max_timeout =
        cJSON_GetObjectItemCaseSensitive(req->json, "max_timeout_percent") && !is_null;
    if (t.has_min_rating && t.has_max_rating && t.min_rating > t.max_rating)
        return api_fail_reason(req, API_PROBLEM_INVALID_VALUE, "rating-range-empty",
                               "'min_rating' is above 'max_rating': no one could join");
    starts = api_body_string(req, "starts_at");
    ends = api_body_string(req, "ends_at");
    if (!times_check(req, starts, ends, &replied))
        return replied;
    snprintf(t.starts_at, sizeof t.starts_at, "%s", starts ? starts : "");
    snprintf(t.ends_at, sizeof t.ends_at, "%s", ends ? ends : "");
    games_tournament_create_limited(req->config->pool, &t, req->config->tournaments_per_day, &r);
    if (r.outcome == GAMES_DAILY_LIMIT)
        req->retry_after = r.retry_after;
    if (r.outcome != GAMES_OK)
        return api_reply_refusal(req, r.outcome, r.detail, r.db, r.err.text);
    return api_reply_json(req, MHD_HTTP_CREATED, tournament_json(&t, NULL, 0));
}

enum MHD_Result api_tournament_join(struct api_request *req)
{
    struct games_result r;
    struct db_tournament t;
    games_tournament_join(req->config->pool, req->caller.player_id, req->params[0], &t, &r);
    return reply_outcome(req, &r, &t, MHD_HTTP_OK);
}

enum MHD_Result api_tournament_withdraw(struct api_request *req)
{
    struct games_result r;
    struct db_tournament t;
    games_tournament_withdraw(req->config->pool, req->caller.player_id, req->params[0], &t, &r);
    return reply_outcome(req, &r, &t, MHD_HTTP_OK);
}

enum MHD_Result api_tournament_start(struct api_request *req)
{
    struct games_result r;
    struct db_tournament t;
    games_tournament_start(req->config->pool, req->caller.player_id, req->caller.arbiter,
                           req->params[0], &t, &r);
    return reply_outcome(req, &r, &t, MHD_HTTP_OK);
}

/*
 * The tournament the path names, its players (when players is not NULL)
 * and its games (*games malloc'd, GAMES_MAX at most); replies itself (404,
 * or the failure) and returns false otherwise.
 */
static bool tournament_read(struct api_request *req, struct db_tournament *t,
                            struct db_tournament_player *players, int *player_count,
                            struct db_tournament_game **games, int *game_count,
                            enum MHD_Result *replied)
{
    struct base_err err = { "" };
    enum db_status st = db_tournament_get(req->config->pool, req->params[0], t, &err);

    *games = NULL;
    if (st == DB_NOT_FOUND) {
        *replied = api_fail(req, API_PROBLEM_NOT_FOUND, "no tournament has the id '%s'",
                            req->params[0]);
        return false;
    }
    if (st == DB_OK && players != NULL)
        st = db_tournament_players(req->config->pool, t->id, players, PLAYERS_MAX,
                                   player_count, &err);
    if (st == DB_OK && (*games = calloc(GAMES_MAX, sizeof **games)) == NULL) {
        *replied = api_fail_oom(req);
        return false;
    }
    if (st == DB_OK)
        st = db_tournament_games(req->config->pool, t->id, *games, GAMES_MAX, game_count, &err);
    if (st != DB_OK) {
        free(*games);
        *games = NULL;
        *replied = api_fail_db(req, st, err.text);
        return false;
    }
    return true;
}

enum MHD_Result api_tournament_get(struct api_request *req)
{
    struct db_tournament t;
    struct db_tournament_player players[PLAYERS_MAX];
    struct db_tournament_game *games = NULL;
    int count = 0, game_count = 0;
    enum MHD_Result replied;
    cJSON *json, *list;

    if (!tournament_read(req, &t, players, &count, &games, &game_count, &replied))
        return replied;
    json = tournament_json(&t, players, count);
    list = cJSON_AddArrayToObject(json, "games");
    for (int i = 0; i < game_count; i++) {
        cJSON *g = cJSON_CreateObject();
        cJSON_AddStringToObject(g, "id", games[i].id);
        cJSON_AddStringToObject(g, "white", games[i].white_id);
        cJSON_AddStringToObject(g, "black", games[i].black_id);
        cJSON_AddStringToObject(g, "result", rules_result_text(games[i].result));
        cJSON_AddNumberToObject(g, "round", games[i].round);
        cJSON_AddItemToArray(list, g);
    }
    cJSON_AddItemToObject(json, "standings", standings_json(players, count, games, game_count));
    free(games);
    return api_reply_json(req, MHD_HTTP_OK, json);
}

enum MHD_Result api_tournament_list(struct api_request *req)
{
    const char *status = api_query(req, "status");
    enum db_tournament_status wanted = DB_TOURNAMENT_OPEN;
    struct api_page page;
    enum MHD_Result replied;
    struct db_tournament *list = NULL;
    struct base_err err = { "" };
    int count = 0;
    bool more = false;
    enum db_status st;
    cJSON *json, *items;

    if (status != NULL && !db_tournament_status_parse(status, &wanted))
        return api_fail(req, API_PROBLEM_BAD_REQUEST,
                        "'status' must be open, active, finished or cancelled");
    if (!api_page_read(req, &page, &replied) || !api_page_cursor(req, &page, &replied))
        return replied;
    if ((list = calloc((size_t)page.limit, sizeof *list)) == NULL)
        return api_fail_oom(req);
    st = db_tournament_list(req->config->pool, status ? &wanted : NULL, page.after_us,
                            page.after_id, list, page.limit, &count, &more, &err);
    if (st != DB_OK) {
        free(list);
        return api_fail_db(req, st, err.text);
    }
    json = cJSON_CreateObject();
    items = cJSON_AddArrayToObject(json, "tournaments");
    for (int i = 0; i < count; i++)
        cJSON_AddItemToArray(items, tournament_json(&list[i], NULL, 0));
    api_page_next(json, more, count > 0 ? list[count - 1].created_us : NULL,
                  count > 0 ? list[count - 1].id : NULL);
    free(list);
    return api_reply_json(req, MHD_HTTP_OK, json);
}

/*
 * Every game's record, one after another, by round, written from the
 * moves' SAN each game row keeps.  Tagged by a digest of what it is written
 * from, read first: an unchanged record is answered 304 without being
 * written.
 */
enum MHD_Result api_tournament_pgn(struct api_request *req)
{
    const struct notify_config *n = req->config->notify;
    const char *site = n != NULL && n->public_url != NULL ? n->public_url : "";
    struct base_err err = { "" };
    char version[64], key[64 + 512], tag[API_ETAG_SIZE], *text = NULL;
    enum db_status st;

    st = db_tournament_pgn_version(req->config->pool, req->params[0], version, sizeof version,
                                   &err);
    if (st == DB_OK) {
        /* The site is written in every game's head too. */
        snprintf(key, sizeof key, "%s %s", version, site);
        api_etag_text("tournament-pgn", key, tag);
        if (api_etag_matches(req, tag))
            return api_reply_not_modified(req, tag, NULL);
        st = games_tournament_pgn(req->config->pool, req->params[0], site, &text, &err);
    }
    if (st == DB_NOT_FOUND)
        return api_fail(req, API_PROBLEM_NOT_FOUND, "no tournament has the id '%s'",
                        req->params[0]);
    if (st != DB_OK)
        return api_fail_db(req, st, err.text);
    if (text == NULL)
        return api_fail_oom(req);
    return api_reply_tagged(req, text, "application/x-chess-pgn", tag, NULL);
}
