/*
 * db_fairplay.c — the fair-play queue and figures: a game queued when it
 * ends, taken by one worker at a time under a row lock held for the whole
 * analysis, its figures stored and the row deleted in that transaction.
 */
#include "db_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A move of the game analysed, as FAIRPLAY_MOVES answers it. */
static const struct db_col move_cols[] = {
    DB_INT(struct db_fairplay_move, ply, "ply"),
    DB_TEXT(struct db_fairplay_move, uci, "uci"),
    DB_TEXT(struct db_fairplay_move, fen, "fen"),
    DB_DOUBLE(struct db_fairplay_move, seconds, "seconds"),
    DB_COLS_END,
};

enum db_status db_fairplay_enqueue(struct db_tx *tx, const char *game_id)
{
    const char *params[1] = { game_id };
    return db_exec(tx, DB_STMT_FAIRPLAY_ENQUEUE, params, NULL);
}

struct next {
    db_fairplay_fn fn;
    db_fairplay_stored_fn stored;
    void *arg;
    char *game_id;
};

enum db_status db_fairplay_reviews_due(struct db_tx *tx, const char *game_id,
                                       const struct db_fairplay_review *review,
                                       struct db_fairplay_due due[2], int *count)
{
    char games[DB_NUMBER_SIZE], top1[32], acpl[32];
    const char *params[4] = { game_id, db_number(games, review->games), top1, acpl };
    PGresult *res = NULL;
    enum db_status rc;

    *count = 0;
    snprintf(top1, sizeof top1, "%.6f", review->top1);
    snprintf(acpl, sizeof acpl, "%.6f", review->acpl);
    if ((rc = db_exec(tx, DB_STMT_FAIRPLAY_REVIEW_DUE, params, &res)) != DB_OK)
        return rc;
    for (int i = 0; i < PQntuples(res) && i < 2; i++) {
        const struct db_row row = { res, i };
        db_row_text(&row, "player_id", due[i].player_id, sizeof due[i].player_id);
        db_row_text(&row, "details", due[i].details, sizeof due[i].details);
        (*count)++;
    }
    PQclear(res);
    return DB_OK;
}

/* Stores the moves judged of game_id, as PostgreSQL arrays (the moves are
 * UCI: letters, digits and '@', nothing to escape). */
static enum db_status store_moves(struct db_tx *tx, const char *game_id,
                                  const struct db_fairplay *f)
{
    struct base_text a[6] = { { 0 } };
    char *text[6] = { NULL };
    const char *params[7] = { game_id };
    enum db_status rc = DB_OK;

    for (int k = 0; k < 6; k++)
        base_text_str(&a[k], "{");
    for (int i = 0; i < f->judged_count; i++) {
        const struct db_fairplay_judged *m = &f->judged[i];
        const char *comma = i > 0 ? "," : "";
        base_text_put(&a[0], "%s%d", comma, m->ply);
        base_text_put(&a[1], "%s%s", comma, m->black ? "black" : "white");
        base_text_put(&a[2], "%s\"%s\"", comma, m->played);
        base_text_put(&a[3], "%s\"%s\"", comma, m->engine);
        base_text_put(&a[4], "%s%s", comma, m->top3 ? "t" : "f");
        base_text_put(&a[5], "%s%d", comma, m->loss);
    }
    for (int k = 0; k < 6; k++) {
        base_text_str(&a[k], "}");
        if ((text[k] = base_text_take(&a[k])) == NULL)
            rc = DB_HARD_ERROR;
        params[1 + k] = text[k];
    }
    if (rc != DB_OK)
        base_err_set(tx->err, "out of memory");
    else
        rc = db_exec(tx, DB_STMT_FAIRPLAY_MOVES_STORE, params, NULL);
    for (int k = 0; k < 6; k++)
        free(text[k]);
    return rc;
}

/* Stores the figures of game_id and takes it off the queue. */
static enum db_status store(struct db_tx *tx, const char *game_id, const struct db_fairplay *f)
{
    enum { FIGURES = 7 };
    char n[DB_NUMBER_SIZE], v[2 * FIGURES][32];
    const char *params[2 + 2 * FIGURES] = { game_id, db_number(n, f->nodes) };
    for (int s = 0; s < 2; s++) {
        const struct db_fairplay_side *d = &f->side[s];
        const double figures[FIGURES] = { d->moves, d->top1, d->top3, d->acpl,
                                          d->median_seconds, d->spread_seconds,
                                          d->under_minute };
        for (int i = 0; i < FIGURES; i++) {
            snprintf(v[s * FIGURES + i], sizeof v[0], i == 0 ? "%.0f" : "%.6f", figures[i]);
            params[2 + s * FIGURES + i] = v[s * FIGURES + i];
        }
    }
    enum db_status rc = db_exec(tx, DB_STMT_FAIRPLAY_STORE, params, NULL);
    return rc == DB_OK ? store_moves(tx, game_id, f) : rc;
}

static enum db_status next_tx(struct db_tx *tx, void *arg)
{
    struct next *x = arg;
    PGresult *res = NULL;
    struct db_fairplay_move *moves = NULL;
    struct db_fairplay f;
    const struct rules_variant *v;
    const char *params[1];
    enum db_status rc;
    int count;

    x->game_id[0] = '\0';
    if ((rc = db_exec(tx, DB_STMT_FAIRPLAY_CLAIM, NULL, &res)) != DB_OK || PQntuples(res) == 0) {
        PQclear(res);
        return rc;
    }
    const struct db_row claimed = { res, 0 };
    db_row_text(&claimed, "game_id", x->game_id, BASE_ID_SIZE);
    v = db_variant_parse(db_row_value(&claimed, "variant"));
    PQclear(res);
    res = NULL;
    if (v == NULL)
        return db_tx_fail(tx, "game %s: an unknown variant", x->game_id);
    params[0] = x->game_id;
    if ((rc = db_exec(tx, DB_STMT_FAIRPLAY_MOVES, params, &res)) != DB_OK)
        goto done;
    count = PQntuples(res);
    if ((moves = db_rows_new(tx, res, sizeof *moves)) == NULL) {
        rc = DB_HARD_ERROR;
        goto done;
    }
    for (int i = 0; i < count; i++)
        db_row_read(&(struct db_row){ res, i }, move_cols, &moves[i], sizeof *moves);
    memset(&f, 0, sizeof f);
    if ((rc = x->fn(tx, x->game_id, v, moves, count, &f, x->arg)) == DB_OK &&
        (rc = store(tx, x->game_id, &f)) == DB_OK && x->stored != NULL)
        rc = x->stored(tx, x->game_id, x->arg);
    free(f.judged);
done:
    free(moves);
    PQclear(res);
    return rc;
}

enum db_status db_fairplay_analyse_next(struct db_pool *pool, db_fairplay_fn fn,
                                        db_fairplay_stored_fn stored, void *arg,
                                        char game_id[BASE_ID_SIZE], struct base_err *err)
{
    struct next x = { fn, stored, arg, game_id };
    game_id[0] = '\0';
    return db_run_tx(pool, next_tx, &x, err);
}

enum db_status db_fairplay_fail(struct db_pool *pool, const char *game_id, const char *why,
                                struct base_err *err)
{
    const char *params[2] = { game_id, why };
    long long none;
    return db_get_number(pool, DB_STMT_FAIRPLAY_FAIL, params, "none", true, &none, err);
}

static void fairplay_read(void *out, const struct db_row *row)
{
    static const char *const colour[2] = { "white", "black" };
    struct db_fairplay *f = out;
    char name[32];

    memset(f, 0, sizeof *f);
    f->queued = db_row_bool(row, "queued");
    f->done = db_row_bool(row, "done");
    f->failed = db_row_bool(row, "failed");
    f->nodes = db_row_long(row, "nodes");
    f->judged_json = strdup(db_row_value(row, "judged") ? db_row_value(row, "judged") : "[]");
    for (int s = 0; s < 2; s++) {
        struct db_fairplay_side *d = &f->side[s];
        const struct { const char *name; double *into; } figures[] = {
            { "top1", &d->top1 }, { "top3", &d->top3 }, { "acpl", &d->acpl },
            { "median_seconds", &d->median_seconds },
            { "spread_seconds", &d->spread_seconds }, { "under_minute", &d->under_minute },
        };
        snprintf(name, sizeof name, "%s_moves", colour[s]);
        d->moves = db_row_int(row, name);
        for (size_t i = 0; i < sizeof figures / sizeof *figures; i++) {
            snprintf(name, sizeof name, "%s_%s", colour[s], figures[i].name);
            *figures[i].into = db_row_double(row, name);
        }
    }
}

void db_fairplay_clear(struct db_fairplay *f)
{
    if (f == NULL)
        return;
    free(f->judged_json);
    f->judged_json = NULL;
}

enum db_status db_fairplay_get(struct db_pool *pool, const char *game_id,
                               struct db_fairplay *out, struct base_err *err)
{
    const char *params[1] = { game_id };
    memset(out, 0, sizeof *out);
    return db_get_row(pool, DB_STMT_FAIRPLAY_GET, params, fairplay_read, out, err);
}

#define P(kind, member) DB_##kind(struct db_fairplay_player, member, #member)
static const struct db_col player_cols[] = {
    DB_TEXT(struct db_fairplay_player, id, "player_id"), P(TEXT, name), P(INT, games),
    P(LONG, moves), P(DOUBLE, top1), P(DOUBLE, top3), P(DOUBLE, acpl),
    P(DOUBLE, top1_percentile), P(DOUBLE, acpl_percentile), P(DOUBLE, rating),
    P(INT, similar_players), P(DOUBLE, top1_similar), P(DOUBLE, acpl_similar), DB_COLS_END,
};
#undef P

static void player_read(void *out, const struct db_row *row)
{
    struct db_fairplay_player *p = out;
    const char *recent = db_row_value(row, "recent");
    const char *windows = db_row_value(row, "windows");
    db_row_read(row, player_cols, p, sizeof *p);
    p->recent = strdup(recent != NULL ? recent : "[]");
    p->windows = strdup(windows != NULL ? windows : "{}");
}

enum db_status db_fairplay_players(struct db_pool *pool, const struct rules_variant *variant,
                                   int min_games, struct db_fairplay_player *out, int max,
                                   int *count, struct base_err *err)
{
    char least[DB_NUMBER_SIZE], most[DB_NUMBER_SIZE];
    const char *params[3] = { variant->name, db_number(least, min_games), db_number(most, max) };
    return db_get_rows(pool, DB_STMT_FAIRPLAY_PLAYERS, params, player_read, out, sizeof *out,
                       max, count, err);
}

static void nothing_read(void *out, const struct db_row *row)
{
    (void)out;
    (void)row;
}

enum db_status db_fairplay_warn(struct db_tx *tx, const char *item_id, const char *arbiter_id,
                                const char *reason, const char *message,
                                char log_id[BASE_ID_SIZE])
{
    const char *params[5] = { log_id, item_id, reason, arbiter_id, message };
    if (!db_new_id(log_id)) {
        base_err_set(tx->err, "the random generator failed");
        return DB_HARD_ERROR;
    }
    return db_exec_row(tx, DB_STMT_FAIRPLAY_WARN, params, nothing_read, NULL);
}

static void list_read(void *out, const struct db_row *row)
{
    const char *list = db_row_value(row, "list");
    *(char **)out = strdup(list != NULL ? list : "[]");
}

enum db_status db_arbiter_log(struct db_pool *pool, const char *player_id, bool warnings,
                              char **json, struct base_err *err)
{
    const char *params[1] = { player_id };
    *json = NULL;
    return db_get_row(pool, warnings ? DB_STMT_PLAYER_WARNINGS : DB_STMT_ARBITER_LOG, params,
                      list_read, json, err);
}
