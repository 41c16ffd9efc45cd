/*
 * api_games.c — reading games: one game, a page of games, its moves, its
 * legal moves, its PGN and what an arbiter needs to rule on a claim.
 * All public: no token needed.
 */
#include "api_int.h"

#include "base.h"
#include "games.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LIST_MAX 100
#define LIST_DEFAULT 20

/* Reads the game of the path (with its repetition keys when asked), or
 * replies 404/503 and returns false. */
static bool load_game(struct api_request *req, struct db_game *g, bool with_keys,
                      enum MHD_Result *replied)
{
    struct base_err err = { "" };
    enum db_status st;
    memset(g, 0, sizeof *g);
    st = with_keys ? db_game_get_keys(req->config->pool, req->params[0], g, &err)
                   : db_game_get(req->config->pool, req->params[0], g, &err);
    if (st == DB_OK)
        return true;
    *replied = st == DB_NOT_FOUND
                   ? api_fail(req, API_PROBLEM_NOT_FOUND, "no game has the id '%s'",
                              req->params[0])
                   : api_fail_db(req, st, err.text);
    return false;
}


enum MHD_Result api_game_get(struct api_request *req)
{
    struct db_game g;
    enum MHD_Result rc;
    char tag[API_ETAG_SIZE];
    cJSON *json;
    if (!load_game(req, &g, false, &rc))
        return rc;
    api_etag_game(&g, tag);
    if (api_etag_matches(req, tag)) {
        db_game_clear(&g);
        return api_reply_not_modified(req, tag, NULL);
    }
    json = api_game_json(&g);
    db_game_clear(&g);
    return api_reply_json_tagged(req, json, tag);
}

/* A cursor is "<microseconds>.<id>" of the last item of a page. */
static bool cursor_read(const char *text, char *us, size_t us_size, char *id, size_t id_size)
{
    const char *dot = text ? strchr(text, '.') : NULL;
    size_t n;
    /* Ids are 10 characters (db_new_id); microseconds since 1970 fit in
     * 16 digits until the year 2286. */
    if (dot == NULL || dot == text || (size_t)(dot - text) >= us_size || dot - text > 16 ||
        strlen(dot + 1) != BASE_ID_LEN || strlen(dot + 1) >= id_size)
        return false;
    for (const char *p = text; p < dot; p++)
        if (*p < '0' || *p > '9')
            return false;
    n = (size_t)(dot - text);
    memcpy(us, text, n);
    us[n] = '\0';
    snprintf(id, id_size, "%s", dot + 1);
    for (const char *p = id; *p; p++)
        if (!((*p >= '0' && *p <= '9') || (*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z')))
            return false;
    return true;
}

bool api_query_limit(struct api_request *req, int fallback, int most, int *limit,
                     enum MHD_Result *replied)
{
    const char *text = api_query(req, "limit");
    char *end = NULL;
    long n;

    *limit = fallback;
    if (text == NULL)
        return true;
    n = strtol(text, &end, 10);
    if (text[0] < '0' || text[0] > '9' || *end != '\0' || n < 1 || n > most) {
        *replied = api_fail(req, API_PROBLEM_BAD_REQUEST,
                            "'limit' must be a whole number from 1 to %d", most);
        return false;
    }
    *limit = (int)n;
    return true;
}

bool api_page_read(struct api_request *req, struct api_page *page, enum MHD_Result *replied)
{
    page->after_us = page->after_id = NULL;
    return api_query_limit(req, LIST_DEFAULT, LIST_MAX, &page->limit, replied);
}

bool api_page_cursor(struct api_request *req, struct api_page *page, enum MHD_Result *replied)
{
    const char *cursor = api_query(req, "cursor");
    if (cursor == NULL)
        return true;
    if (!cursor_read(cursor, page->us, sizeof page->us, page->id, sizeof page->id)) {
        *replied = api_fail(req, API_PROBLEM_BAD_REQUEST,
                            "'cursor' is not one korpd gave; use the 'next' of a page");
        return false;
    }
    page->after_us = page->us;
    page->after_id = page->id;
    return true;
}

void api_page_next(cJSON *json, bool more, const char *created_us, const char *id)
{
    char next[64];
    if (more && created_us != NULL) {
        snprintf(next, sizeof next, "%s.%s", created_us, id);
        cJSON_AddStringToObject(json, "next", next);
    } else {
        cJSON_AddNullToObject(json, "next");
    }
}

enum MHD_Result api_game_list(struct api_request *req)
{
    struct db_game_filter f = { 0 };
    const char *status, *variant;
    enum db_game_status wanted = DB_GAME_ACTIVE;
    struct api_page page;
    enum MHD_Result replied;
    struct base_err err = { "" };
    struct db_game *games;
    int count = 0;
    bool more = false;
    enum db_status st;
    cJSON *json, *list;

    f.player_id = api_query(req, "player");
    f.to_move = api_query(req, "to_move");
    status = api_query(req, "status");
    variant = api_query(req, "variant");
    if (!api_page_read(req, &page, &replied))
        return replied;
    f.limit = page.limit;
    if (status != NULL && !db_game_status_parse(status, &wanted))
        return api_fail(req, API_PROBLEM_BAD_REQUEST,
                        "'status' must be active, finished or aborted");
    f.status = status != NULL ? &wanted : NULL;
    if (variant != NULL && (f.variant = db_variant_parse(variant)) == NULL)
        return api_fail(req, API_PROBLEM_BAD_REQUEST, "'variant' must be korpalski or glinski");
    if (f.player_id != NULL && !api_id_valid(f.player_id))
        return api_fail(req, API_PROBLEM_BAD_REQUEST,
                        "'player' is a player id: letters and digits, like aZ3kP9qwX2");
    if (f.to_move != NULL && (!api_id_valid(f.to_move) || f.player_id != NULL ||
                              (status != NULL && wanted != DB_GAME_ACTIVE) ||
                              api_query(req, "cursor") != NULL))
        return api_fail(req, API_PROBLEM_BAD_REQUEST,
                        "'to_move' is a player id (the queue of their active games, one page: "
                        "without 'player', 'cursor' or another 'status')");
    if (!api_page_cursor(req, &page, &replied))
        return replied;
    f.after_us = page.after_us;
    f.after_id = page.after_id;
    /* Room for the page asked for, not for the largest one: a game is over a
     * kilobyte, and 100 of them at every request went to mmap and back. */
    games = calloc((size_t)f.limit, sizeof *games);
    if (games == NULL)
        return api_fail_oom(req);
    st = db_game_list(req->config->pool, &f, games, f.limit, &count, &more, &err);
    if (st != DB_OK) {
        free(games);
        return api_fail_db(req, st, err.text);
    }
    json = cJSON_CreateObject();
    list = cJSON_AddArrayToObject(json, "games");
    for (int i = 0; i < count; i++)
        cJSON_AddItemToArray(list, api_game_json(&games[i]));
    /* The queue is one page, in its own order: no cursor continues it. */
    api_page_next(json, more && f.to_move == NULL,
                  count > 0 ? games[count - 1].created_us : NULL,
                  count > 0 ? games[count - 1].id : NULL);
    for (int i = 0; i < count; i++)
        db_game_clear(&games[i]);
    free(games);
    return api_reply_json(req, MHD_HTTP_OK, json);
}

enum MHD_Result api_game_moves(struct api_request *req)
{
    struct db_move *moves = NULL;
    int count = 0;
    struct base_err err = { "" };
    enum db_status st = db_move_list(req->config->pool, req->params[0], &moves, &count, &err);
    cJSON *json, *list;
    char tag[API_ETAG_SIZE], *text;

    if (st == DB_NOT_FOUND)
        return api_fail(req, API_PROBLEM_NOT_FOUND, "no game has the id '%s'", req->params[0]);
    if (st != DB_OK)
        return api_fail_db(req, st, err.text);
    json = cJSON_CreateObject();
    list = cJSON_AddArrayToObject(json, "moves");
    for (int i = 0; i < count; i++) {
        cJSON *m = cJSON_CreateObject();
        cJSON_AddNumberToObject(m, "ply", moves[i].ply);
        cJSON_AddStringToObject(m, "san", moves[i].san);
        cJSON_AddStringToObject(m, "uci", moves[i].uci);
        cJSON_AddStringToObject(m, "fen", moves[i].fen);
        cJSON_AddStringToObject(m, "at", moves[i].at);
        cJSON_AddBoolToObject(m, "conditional", moves[i].conditional);
        cJSON_AddItemToArray(list, m);
    }
    free(moves);
    /* Moves are only ever added: the list's own text is its tag. */
    text = cJSON_PrintUnformatted(json);
    cJSON_Delete(json);
    if (text == NULL)
        return api_fail_oom(req);
    api_etag_text("moves", text, tag);
    if (api_etag_matches(req, tag)) {
        free(text);
        return api_reply_not_modified(req, tag, NULL);
    }
    return api_reply_tagged(req, text, "application/json", tag, NULL);
}

enum MHD_Result api_game_legal_moves(struct api_request *req)
{
    struct db_game g;
    struct rules_position pos;
    struct rules_move moves[RULES_MAX_MOVES];
    const struct rules_variant *v;
    enum MHD_Result rc;
    cJSON *json, *list;
    char tag[API_ETAG_SIZE];
    int n = 0;

    if (!load_game(req, &g, false, &rc))
        return rc;
    v = g.variant;
    if (v == NULL || v->position_parse(&pos, g.fen, NULL) != RULES_OK) {
        db_game_clear(&g);
        return api_fail_db(req, DB_HARD_ERROR, "stored position unreadable");
    }
    /* ?after=: the position a player plans from (api_conditional.c). */
    if (!api_legal_after(req, v, &pos, &rc)) {
        db_game_clear(&g);
        return rc;
    }
    /* The moves follow from the game's position and status (and ?after=). */
    api_etag_game(&g, tag);
    api_etag_derived("legal-moves", tag, api_query(req, "after"), tag);
    if (api_etag_matches(req, tag)) {
        db_game_clear(&g);
        return api_reply_not_modified(req, tag, NULL);
    }
    if (g.status == DB_GAME_ACTIVE)
        n = v->moves_legal(&pos, moves);
    json = cJSON_CreateObject();
    if (api_query(req, "after") != NULL) {
        char fen[DB_FEN_SIZE];
        v->position_format(&pos, fen, sizeof fen);
        cJSON_AddStringToObject(json, "fen", fen);
    }
    list = cJSON_AddArrayToObject(json, "moves");
    api_moves_add(list, v, &pos, moves, n);
    db_game_clear(&g);
    return api_reply_json_tagged(req, json, tag);
}

char *api_game_pgn_text(struct api_request *req, const struct db_game *g,
                        enum MHD_Result *failed)
{
    struct base_err err = { "" };
    char *pgn = NULL;
    enum db_status st = games_pgn(req->config->pool, g, &pgn, &err);

    *failed = MHD_NO;
    if (st != DB_OK)
        *failed = api_fail_db(req, st, err.text);
    else if (pgn == NULL)
        *failed = api_fail_oom(req);
    return pgn;
}

enum MHD_Result api_game_pgn(struct api_request *req)
{
    struct db_game g;
    enum MHD_Result rc;
    const char *notes = api_query(req, "notes");
    /* With the caller's notes the record is theirs: tagged by its text. */
    bool own = notes != NULL && strcmp(notes, "false") != 0;
    const char *cache = own ? "private, no-cache" : NULL;
    char tag[API_ETAG_SIZE], *pgn;

    if (!load_game(req, &g, false, &rc))
        return rc;
    if (!own) {
        /* The record follows from what the game object shows: its moves,
         * names, result and termination. */
        api_etag_game(&g, tag);
        api_etag_derived("pgn", tag, NULL, tag);
        if (api_etag_matches(req, tag)) {
            db_game_clear(&g);
            return api_reply_not_modified(req, tag, NULL);
        }
    }
    pgn = api_game_pgn_text(req, &g, &rc);
    /* ?notes=true: the caller's private notes as a comment. */
    if (pgn != NULL && !api_pgn_notes(req, g.id, &pgn, &rc)) {
        free(pgn);
        pgn = NULL;
    }
    db_game_clear(&g);
    if (pgn == NULL)
        return rc;
    if (own) {
        api_etag_text("pgn-notes", pgn, tag);
        if (api_etag_matches(req, tag)) {
            free(pgn);
            return api_reply_not_modified(req, tag, cache);
        }
    }
    return api_reply_tagged(req, pgn, "application/x-chess-pgn", tag, cache);
}

static cJSON *sides(cJSON *json, const char *name, bool white, bool black)
{
    cJSON *o = cJSON_AddObjectToObject(json, name);
    cJSON_AddBoolToObject(o, "white", white);
    cJSON_AddBoolToObject(o, "black", black);
    return o;
}

enum MHD_Result api_game_analysis(struct api_request *req)
{
    struct db_game g;
    struct games_analysis a;
    enum MHD_Result rc;
    cJSON *json, *earlier;
    char tag[API_ETAG_SIZE];

    if (!load_game(req, &g, true, &rc))
        return rc;
    /* The analysis follows from the game's moves and status. */
    api_etag_game(&g, tag);
    api_etag_derived("analysis", tag, NULL, tag);
    if (api_etag_matches(req, tag)) {
        db_game_clear(&g);
        return api_reply_not_modified(req, tag, NULL);
    }
    if (!games_analyse(&g, &a)) {
        games_analysis_clear(&a);
        db_game_clear(&g);
        return api_fail_db(req, DB_HARD_ERROR, "stored position unreadable");
    }
    json = cJSON_CreateObject();
    cJSON_AddNumberToObject(json, "ply", g.ply);
    cJSON_AddStringToObject(json, "status", rules_status_text(a.report.status));
    cJSON_AddStringToObject(json, "to_move", db_color_text(db_color_of(a.to_move)));
    cJSON_AddNumberToObject(json, "halfmove_clock", a.report.halfmove_clock);
    cJSON_AddBoolToObject(json, "fifty_move_rule", g.fifty_move_rule);
    cJSON_AddBoolToObject(json, "fifty_move_claimable", a.fifty_move_claimable);
    earlier = cJSON_AddArrayToObject(json, "earlier_occurrences");
    for (int i = 0; i < a.earlier_count; i++)
        cJSON_AddItemToArray(earlier, cJSON_CreateNumber(a.earlier[i]));
    cJSON_AddBoolToObject(json, "threefold_claimable", a.threefold_claimable);
    sides(json, "insufficient_material", !a.report.can_mate[RULES_WHITE],
          !a.report.can_mate[RULES_BLACK]);
    sides(json, "can_mate", a.report.can_mate[RULES_WHITE], a.report.can_mate[RULES_BLACK]);
    sides(json, "can_drop", a.report.can_drop[RULES_WHITE], a.report.can_drop[RULES_BLACK]);
    cJSON_AddBoolToObject(json, "draw_by_agreement_allowed", a.report.draw_agreement_allowed);
    cJSON_AddStringToObject(json, "game_status", db_game_status_text(g.status));
    games_analysis_clear(&a);
    db_game_clear(&g);
    return api_reply_json_tagged(req, json, tag);
}
