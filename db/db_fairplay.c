/*
 * db_fairplay.c — the fair-play queue and figures: a game queued when it
 * ends, leased by one worker at a time for its analysis (no transaction
 * open meanwhile), its figures stored and the row deleted in one
 * transaction while the lease is still the worker's.
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

/* The game a worker analyses, as it took it. */
struct db_fairplay_lease {
    struct db_pool *pool;
    char game_id[BASE_ID_SIZE];
    char token[40];                 /* taken_by */
    const struct rules_variant *variant;
    struct db_fairplay_move *moves;
    int count;
    int64_t held_ms;                /* when the lease was last taken or renewed */
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

/* Takes the oldest queued game nobody holds, with its moves. */
static enum db_status claim_tx(struct db_tx *tx, void *arg)
{
    struct db_fairplay_lease *l = arg;
    char seconds[DB_NUMBER_SIZE];
    const char *params[1] = { db_number(seconds, DB_FAIRPLAY_LEASE_SECONDS) };
    PGresult *res = NULL;
    enum db_status rc;

    l->game_id[0] = '\0';
    free(l->moves);
    l->moves = NULL;
    l->count = 0;
    if ((rc = db_exec(tx, DB_STMT_FAIRPLAY_CLAIM, params, &res)) != DB_OK ||
        PQntuples(res) == 0) {
        PQclear(res);
        return rc;
    }
    const struct db_row claimed = { res, 0 };
    db_row_text(&claimed, "game_id", l->game_id, sizeof l->game_id);
    db_row_text(&claimed, "lease", l->token, sizeof l->token);
    l->variant = db_variant_parse(db_row_value(&claimed, "variant"));
    PQclear(res);
    if (l->variant == NULL)
        return DB_OK;   /* set aside by the caller */
    params[0] = l->game_id;
    if ((rc = db_exec(tx, DB_STMT_FAIRPLAY_MOVES, params, &res)) != DB_OK)
        return rc;
    if ((l->moves = db_rows_new(tx, res, sizeof *l->moves)) == NULL) {
        PQclear(res);
        return DB_HARD_ERROR;
    }
    l->count = PQntuples(res);
    for (int i = 0; i < l->count; i++)
        db_row_read(&(struct db_row){ res, i }, move_cols, &l->moves[i], sizeof *l->moves);
    PQclear(res);
    return DB_OK;
}

struct store_args {
    struct db_fairplay_lease *lease;
    const struct db_fairplay *figures;
    db_fairplay_stored_fn stored;
    void *arg;
};

/* Stores the figures of the leased game and takes it off the queue. */
static enum db_status store_tx(struct db_tx *tx, void *arg)
{
    struct store_args *a = arg;
    const struct db_fairplay *f = a->figures;
    const char *game_id = a->lease->game_id;
    enum { FIGURES = 7 };
    char n[DB_NUMBER_SIZE], v[2 * FIGURES][32];
    const char *params[3 + 2 * FIGURES] = { game_id, db_number(n, f->nodes) };
    PGresult *res = NULL;
    enum db_status rc;

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
    params[2 + 2 * FIGURES] = a->lease->token;
    if ((rc = db_exec(tx, DB_STMT_FAIRPLAY_STORE, params, &res)) != DB_OK)
        return rc;
    rc = PQntuples(res) == 0 ? DB_CONFLICT : DB_OK;
    PQclear(res);
    if (rc != DB_OK) {
        (void)db_tx_fail(tx, "game %s: the lease ran out and another worker took it", game_id);
        return DB_CONFLICT;
    }
    if ((rc = store_moves(tx, game_id, f)) == DB_OK && a->stored != NULL)
        rc = a->stored(tx, game_id, a->arg);
    return rc;
}

/* Renews the lease (seconds > 0) or gives it back (0). */
static enum db_status lease_set(struct db_fairplay_lease *l, int seconds, struct base_err *err)
{
    char s[DB_NUMBER_SIZE];
    const char *params[3] = { l->game_id, l->token, seconds > 0 ? db_number(s, seconds) : NULL };
    long long held;
    enum db_status rc = db_get_number(l->pool, DB_STMT_FAIRPLAY_HOLD, params, "held", true,
                                      &held, err);
    if (rc == DB_OK && held == 0) {
        base_err_set(err, "game %s: the lease ran out and another worker took it", l->game_id);
        return DB_CONFLICT;
    }
    return rc;
}

enum db_status db_fairplay_hold(struct db_fairplay_lease *lease, struct base_err *err)
{
    int64_t now = base_monotonic_ms();
    enum db_status rc;
    if (now - lease->held_ms < DB_FAIRPLAY_LEASE_SECONDS * 1000 / 3)
        return DB_OK;
    rc = lease_set(lease, DB_FAIRPLAY_LEASE_SECONDS, err);
    if (rc == DB_OK)
        lease->held_ms = now;
    else if (rc != DB_CONFLICT)
        base_log(BASE_LOG_WARN, "fair play: game %s: the lease not renewed (tried again "
                 "at the next position): %s", lease->game_id, err->text);
    return rc == DB_CONFLICT ? DB_CONFLICT : DB_OK;
}

/* Sets the leased game aside: why it cannot be analysed. */
static void set_aside(struct db_fairplay_lease *l, const char *why)
{
    const char *params[3] = { l->game_id, why, l->token };
    struct base_err err = { "" };
    long long failed;
    base_log(BASE_LOG_WARN, "fair play: game %s set aside: %s", l->game_id, why);
    if (db_get_number(l->pool, DB_STMT_FAIRPLAY_FAIL, params, "failed", true, &failed,
                      &err) != DB_OK)
        base_log(BASE_LOG_WARN, "fair play: game %s: %s", l->game_id, err.text);
}

enum db_status db_fairplay_analyse_next(struct db_pool *pool, db_fairplay_fn fn,
                                        db_fairplay_stored_fn stored, void *arg,
                                        char game_id[BASE_ID_SIZE], struct base_err *err)
{
    struct db_fairplay_lease lease = { .pool = pool };
    struct db_fairplay f;
    struct base_err ignored;
    enum db_status rc;

    game_id[0] = '\0';
    lease.held_ms = base_monotonic_ms();
    if ((rc = db_run_tx(pool, claim_tx, &lease, err)) != DB_OK || lease.game_id[0] == '\0') {
        free(lease.moves);
        return rc;
    }
    memcpy(game_id, lease.game_id, BASE_ID_SIZE);
    memset(&f, 0, sizeof f);
    if (lease.variant == NULL) {
        snprintf(f.failure, sizeof f.failure, "an unknown variant");
        base_err_set(err, "%s", f.failure);
        rc = DB_HARD_ERROR;
    }
    else
        rc = fn(&lease, game_id, lease.variant, lease.moves, lease.count, &f, arg, err);
    if (rc == DB_OK) {
        struct store_args a = { &lease, &f, stored, arg };
        rc = db_run_tx(pool, store_tx, &a, err);
    }
    /* Not stored: the game goes back to the queue at once, for whoever
     * takes it next (this worker again, or another korpd), unless it
     * cannot be analysed at all. */
    if (rc != DB_OK && f.failure[0] != '\0')
        set_aside(&lease, f.failure);
    else if (rc != DB_OK && rc != DB_CONFLICT)
        (void)lease_set(&lease, 0, &ignored);
    free(f.judged);
    free(lease.moves);
    return rc;
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
