/*
 * db_games.c — games and their moves: the row a state change locks and
 * saves, the reads the API serves, and the overdue games for the sweeper.
 */
#include "db_int.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void db_game_clear(struct db_game *g)
{
    free(g->keys);
    free(g->sans);
    free(g->pauses);
    g->keys = NULL;
    g->sans = NULL;
    g->pauses = NULL;
    g->key_count = 0;
    g->pause_count = 0;
}

/* "{1,-2,3}" (bigint[] as text) into a malloc'd array of keys. */
static bool keys_parse(const char *text, uint64_t **keys, int *count)
{
    size_t cap = 1;
    int n = 0;
    uint64_t *out;
    for (const char *p = text; *p; p++)
        cap += *p == ',';
    out = malloc(cap * sizeof *out);
    if (out == NULL)
        return false;
    for (const char *p = text; *p != '\0';) {
        char *end;
        if (*p == '{' || *p == ',' || *p == '}') {
            p++;
            continue;
        }
        long long v = strtoll(p, &end, 10);
        if (end == p || (size_t)n >= cap)
            break;
        out[n++] = (uint64_t)v;
        p = end;
    }
    *keys = out;
    *count = n;
    return true;
}

/* Keys as bigint[] text; malloc'd. */
static char *keys_format(const uint64_t *keys, int count)
{
    size_t size = 3 + (size_t)count * 22;
    char *text = malloc(size), *p = text;
    if (text == NULL)
        return NULL;
    *p++ = '{';
    for (int i = 0; i < count; i++)
        p += snprintf(p, size - (size_t)(p - text), "%s%" PRId64, i ? "," : "",
                      (int64_t)keys[i]);
    *p++ = '}';
    *p = '\0';
    return text;
}

void db_clock_read(const struct db_row *r, int days_per_move, struct db_clock *c)
{
    memset(c, 0, sizeof *c);
    c->leave_allowed = db_row_bool(r, "leave_allowed");
    if (!db_row_is_null(r, "clock_initial_days")) {
        c->type = DB_CLOCK_FISCHER;
        c->initial_days = db_row_int(r, "clock_initial_days");
        c->increment_days = db_row_int(r, "clock_increment_days");
        c->max_days = db_row_int(r, "clock_max_days");
    } else if (days_per_move > 0) {
        c->type = DB_CLOCK_PER_MOVE;
        c->days = days_per_move;
    }
}

/* The clock as stored and the time of the read (GAME_CLOCK_STORED's
 * columns), then each side's time now.  False when out of memory. */
static bool clock_stored_read(const struct db_row *r, struct db_game *g)
{
    g->clocked = !db_row_is_null(r, "white_seconds");
    g->white_seconds = db_row_long(r, "white_seconds");
    g->black_seconds = db_row_long(r, "black_seconds");
    g->turn_started = db_row_long(r, "turn_started");
    g->now = db_row_long(r, "now");
    g->version = db_row_long(r, "version");
    free(g->pauses);
    if (!db_pauses_parse(db_row_value(r, "pauses"), &g->pauses, &g->pause_count))
        return false;
    db_game_clock_now(g);
    return true;
}

#define G(kind, member) DB_##kind(struct db_game, member, #member)
static const struct db_col game_cols[] = {
    G(TEXT, id), G(TEXT, white_id), G(TEXT, white_name), G(TEXT, black_id), G(TEXT, black_name),
    G(TEXT, fen), G(INT, ply), G(TEXT, adjudication_reason), G(INT, days_per_move),
    G(TEXT, deadline), G(BOOL, fifty_move_rule), G(INT, key_version), G(TEXT, created_at),
    G(TEXT, updated_at), G(BOOL, overdue), G(BOOL, rated), G(TEXT, tournament_id), G(BOOL, engines_allowed),
    DB_COLS_END
};

void db_game_read(void *out, const struct db_row *row)
{
    struct db_game *g = out;
    const struct db_row r = *row;
    const char *keys = db_row_value(&r, "repetition_keys");
    const char *sans = db_row_value(&r, "sans");

    db_row_read(&r, game_cols, g, sizeof *g);
    /* The schema's CHECKs hold these to our words; an unknown one reads as
     * NULL (variant) or the first value, and rules/ refuses the game. */
    g->variant = db_variant_parse(db_row_value(&r, "variant"));
    db_game_status_parse(db_row_value(&r, "status"), &g->status);
    rules_result_parse(db_row_value(&r, "result"), &g->result);
    db_termination_parse(db_row_value(&r, "termination"), &g->termination);
    db_color_parse(db_row_value(&r, "draw_offer"), &g->draw_offer);
    if (!keys_parse(keys != NULL ? keys : "", &g->keys, &g->key_count))
        g->key_count = 0;
    g->sans = strdup(sans != NULL ? sans : "");
    db_clock_read(&r, g->days_per_move, &g->clock);
    g->pauses = NULL;
    g->was_active = g->status == DB_GAME_ACTIVE;
    clock_stored_read(&r, g);
    g->has_rating_diff = !db_row_is_null(&r, "rating_diff_white");
    g->rating_diff[0] = db_row_double(&r, "rating_diff_white");
    g->rating_diff[1] = db_row_double(&r, "rating_diff_black");
}

enum db_status db_game_insert(struct db_tx *tx, struct db_game *g, const char *challenge_id)
{
    char days[16], version[16], fifty[8], initial[16], increment[16], most[16];
    char *keys = keys_format(g->keys, g->key_count);
    bool fischer = g->clock.type == DB_CLOCK_FISCHER;
    char round[16];
    const char *params[18] = { g->id, g->variant->name, g->white_id, g->black_id, g->fen, fifty,
                               g->days_per_move > 0 ? days : NULL, keys, version,
                               challenge_id ? challenge_id : "",
                               fischer ? initial : NULL, fischer ? increment : NULL,
                               fischer ? most : NULL,
                               g->clock.leave_allowed ? "true" : "false",
                               g->rated ? "true" : "false",
                               g->tournament_id, g->tournament_round > 0 ? round : NULL,
                               g->engines_allowed ? "true" : "false" };
    PGresult *res = NULL;
    enum db_status rc;

    if (keys == NULL || (g->id[0] == '\0' && !db_new_id(g->id))) {
        free(keys);
        base_err_set(tx->err, "out of memory, or the random generator failed");
        return DB_HARD_ERROR;
    }
    snprintf(days, sizeof days, "%d", g->days_per_move);
    snprintf(round, sizeof round, "%d", g->tournament_round);
    snprintf(version, sizeof version, "%d", g->key_version);
    snprintf(fifty, sizeof fifty, "%s", g->fifty_move_rule ? "true" : "false");
    snprintf(initial, sizeof initial, "%d", g->clock.initial_days);
    snprintf(increment, sizeof increment, "%d", g->clock.increment_days);
    snprintf(most, sizeof most, "%d", g->clock.max_days);
    rc = db_exec(tx, DB_STMT_GAME_INSERT, params, &res);
    if (rc == DB_OK) {
        const struct db_row r = { res, 0 };
        db_row_text(&r, "created_at", g->created_at, sizeof g->created_at);
        db_row_text(&r, "updated_at", g->updated_at, sizeof g->updated_at);
        db_row_text(&r, "deadline", g->deadline, sizeof g->deadline);
        g->was_active = true;
        if (!clock_stored_read(&r, g)) {
            base_err_set(tx->err, "out of memory");
            rc = DB_HARD_ERROR;
        }
    }
    PQclear(res);
    free(keys);
    return rc;
}

enum db_status db_game_lock(struct db_tx *tx, const char *id, bool with_keys,
                            struct db_game *out)
{
    const char *params[1] = { id };
    return db_exec_row(tx, with_keys ? DB_STMT_GAME_LOCK_KEYS : DB_STMT_GAME_LOCK, params,
                       db_game_read, out);
}

enum db_status db_game_save(struct db_tx *tx, struct db_game *g)
{
    char ply[16], key[24], version[16], white[24], black[24], started[24], deadline[24];
    bool moved = g->move_san[0] != '\0';
    long long deadline_unix = 0;
    bool charged = db_game_clock_charge(g, moved, &deadline_unix);
    const char *params[18] = { g->id, g->fen, ply, db_game_status_text(g->status),
                               rules_result_text(g->result), db_termination_text(g->termination),
                               g->adjudication_reason, db_color_text(g->draw_offer),
                               moved ? key : NULL,
                               g->reset_keys ? "true" : "false", version,
                               moved ? g->move_san : NULL, charged ? "true" : "false",
                               white, black, started, deadline_unix > 0 ? deadline : NULL,
                               moved ? g->move_uci : NULL };
    PGresult *res = NULL;
    enum db_status rc;

    snprintf(ply, sizeof ply, "%d", g->ply);
    snprintf(key, sizeof key, "%" PRId64, (int64_t)g->move_key);
    snprintf(version, sizeof version, "%d", g->key_version);
    snprintf(white, sizeof white, "%lld", g->white_seconds);
    snprintf(black, sizeof black, "%lld", g->black_seconds);
    snprintf(started, sizeof started, "%lld", g->turn_started);
    snprintf(deadline, sizeof deadline, "%lld", deadline_unix);
    rc = db_exec(tx, DB_STMT_GAME_SAVE, params, &res);
    if (rc == DB_OK) {
        const struct db_row r = { res, 0 };
        char *sans = strdup(db_row_value(&r, "sans") ? db_row_value(&r, "sans") : "");
        db_row_text(&r, "updated_at", g->updated_at, sizeof g->updated_at);
        db_row_text(&r, "deadline", g->deadline, sizeof g->deadline);
        g->version = db_row_long(&r, "version");
        g->was_active = g->status == DB_GAME_ACTIVE;
        db_game_clock_now(g);
        if (sans == NULL)
            rc = DB_HARD_ERROR;
        else {
            free(g->sans);
            g->sans = sans;
        }
        g->move_san[0] = '\0';
    }
    PQclear(res);
    return rc;
}

enum db_status db_game_event(struct db_tx *tx, const char *game_id, enum db_event event,
                             const char *detail)
{
    const char *params[3] = { game_id, db_event_name(event), detail };
    return db_exec_events(tx, DB_STMT_GAME_EVENT, params);
}

enum db_status db_game_get(struct db_pool *pool, const char *id, struct db_game *out,
                           struct base_err *err)
{
    const char *params[1] = { id };
    return db_get_row(pool, DB_STMT_GAME_GET, params, db_game_read, out, err);
}

enum db_status db_game_get_keys(struct db_pool *pool, const char *id, struct db_game *out,
                                struct base_err *err)
{
    const char *params[1] = { id };
    return db_get_row(pool, DB_STMT_GAME_GET_KEYS, params, db_game_read, out, err);
}

struct game_list {
    const struct db_game_filter *f;
    struct db_game *out;
    int max, *count;
    bool *more;
};

static enum db_status game_list(struct db_tx *tx, void *arg)
{
    struct game_list *l = arg;
    char limit[16];
    const char *params[6] = { l->f->player_id,
                              l->f->status ? db_game_status_text(*l->f->status) : NULL,
                              l->f->variant ? l->f->variant->name : NULL, l->f->after_us,
                              l->f->after_id, limit };
    const char *queue[3] = { l->f->to_move, params[2], limit };
    PGresult *res = NULL;
    enum db_status rc;

    /* One more than asked: whether another page follows. */
    snprintf(limit, sizeof limit, "%d", l->f->limit + 1);
    rc = l->f->to_move != NULL ? db_exec(tx, DB_STMT_GAME_QUEUE, queue, &res)
                               : db_exec(tx, DB_STMT_GAME_LIST, params, &res);
    if (rc == DB_OK) {
        int n = PQntuples(res);
        *l->more = n > l->f->limit;
        *l->count = n > l->f->limit ? l->f->limit : n;
        if (*l->count > l->max)
            *l->count = l->max;
        for (int i = 0; i < *l->count; i++) {
            db_game_read(&l->out[i], &(struct db_row){ res, i });
            const struct db_row r = { res, i };
            db_row_text(&r, "created_us", l->out[i].created_us, sizeof l->out[i].created_us);
        }
    }
    PQclear(res);
    return rc;
}

enum db_status db_game_list(struct db_pool *pool, const struct db_game_filter *f,
                            struct db_game *out, int max, int *count, bool *more,
                            struct base_err *err)
{
    struct game_list l = { f, out, max, count, more };
    *count = 0;
    *more = false;
    return db_run_once(pool, game_list, &l, err);
}

struct move_list {
    const char *game_id;
    struct db_move **moves;
    int *count;
};

static enum db_status move_list(struct db_tx *tx, void *arg)
{
    struct move_list *l = arg;
    const char *params[1] = { l->game_id };
    PGresult *res = NULL;
    enum db_status rc = db_exec(tx, DB_STMT_MOVE_LIST, params, &res);
    int n;

    if (rc == DB_OK && PQntuples(res) == 0)
        rc = DB_NOT_FOUND;
    if (rc == DB_OK) {
        /* A game without moves comes back as one row of NULLs. */
        n = db_row_is_null(&(struct db_row){ res, 0 }, "ply") ? 0 : PQntuples(res);
        *l->moves = calloc((size_t)(n > 0 ? n : 1), sizeof **l->moves);
        if (*l->moves == NULL) {
            PQclear(res);
            base_err_set(tx->err, "out of memory");
            return DB_HARD_ERROR;
        }
        for (int i = 0; i < n; i++) {
            struct db_move *m = &(*l->moves)[i];
            const struct db_row r = { res, i };
            m->ply = db_row_int(&r, "ply");
            db_row_text(&r, "san", m->san, sizeof m->san);
            db_row_text(&r, "uci", m->uci, sizeof m->uci);
            db_row_text(&r, "fen", m->fen, sizeof m->fen);
            db_row_text(&r, "at", m->at, sizeof m->at);
            m->conditional = db_row_bool(&r, "conditional");
        }
        *l->count = n;
    }
    PQclear(res);
    return rc;
}

enum db_status db_move_list(struct db_pool *pool, const char *game_id, struct db_move **moves,
                            int *count, struct base_err *err)
{
    struct move_list l = { game_id, moves, count };
    *moves = NULL;
    *count = 0;
    return db_run_once(pool, move_list, &l, err);
}

struct overdue {
    db_game_fn end;
    void *arg;
    bool found;
};

static enum db_status end_one(struct db_tx *tx, void *arg)
{
    struct overdue *o = arg;
    PGresult *res = NULL;
    struct db_game g;
    enum db_status rc = db_exec(tx, DB_STMT_GAME_OVERDUE, NULL, &res);

    o->found = false;
    if (rc == DB_OK && PQntuples(res) == 1) {
        db_game_read(&g, &(struct db_row){ res, 0 });
        o->found = true;
        rc = o->end(tx, &g, o->arg);
        db_game_clear(&g);
    }
    PQclear(res);
    return rc;
}

enum db_status db_games_overdue(struct db_pool *pool, int max, db_game_fn end, void *arg,
                                int *ended, struct base_err *err)
{
    struct overdue o = { end, arg, false };
    *ended = 0;
    while (*ended < max) {
        enum db_status rc = db_run_tx(pool, end_one, &o, err);
        if (rc != DB_OK)
            return rc;
        if (!o.found)
            break;
        (*ended)++;
    }
    return DB_OK;
}

enum db_status db_game_clear_deadline(struct db_tx *tx, const char *game_id)
{
    const char *params[1] = { game_id };
    return db_exec(tx, DB_STMT_GAME_CLEAR_DEADLINE, params, NULL);
}

enum db_status db_game_give_time(struct db_tx *tx, struct db_game *g, long long seconds)
{
    char white[24], black[24], deadline[24];
    const char *params[4] = { g->id, white, black, deadline };
    long long *side = g->ply % 2 == 0 ? &g->white_seconds : &g->black_seconds;
    PGresult *res = NULL;
    enum db_status rc;

    if (!g->clocked || g->status != DB_GAME_ACTIVE)
        return DB_OK;
    *side += seconds;
    snprintf(white, sizeof white, "%lld", g->white_seconds);
    snprintf(black, sizeof black, "%lld", g->black_seconds);
    snprintf(deadline, sizeof deadline, "%lld",
             db_clock_run_out(g->pauses, g->pause_count, g->turn_started, *side));
    rc = db_exec(tx, DB_STMT_GAME_GIVE_TIME, params, &res);
    if (rc == DB_OK && PQntuples(res) == 1) {
        const struct db_row r = { res, 0 };
        db_row_text(&r, "updated_at", g->updated_at, sizeof g->updated_at);
        db_row_text(&r, "deadline", g->deadline, sizeof g->deadline);
        g->version = db_row_long(&r, "version");
        db_game_clock_now(g);
    }
    PQclear(res);
    return rc;
}
