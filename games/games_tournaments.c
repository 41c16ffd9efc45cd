/*
 * games_tournaments.c — round-robin tournaments: joining (with
 * the entry conditions), withdrawing (after the start: every unfinished game
 * of the player is lost by forfeit, unrated), the start (players numbered by
 * lot, every game created at once from the FIDE Berger tables), the end when
 * the last game ends, and the sweeper's work at starts_at and ends_at.
 */
#include "games_int.h"

#include "base.h"
#include "ratings.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PLAYERS_MAX 30

/* ---- FIDE Berger tables (Handbook C.05, Annex 1) ---------------------- */

/*
 * The pairings of round `round` (1..n-1) for an even n, by number: player
 * n meets the i with 2i - 2 = round - 1 (mod n - 1), White in even rounds;
 * any other two i, j meet when i + j - 2 = round - 1 (mod n - 1), the lower
 * number White when i + j is odd, the higher when it is even.  Writes
 * white[k], black[k] for the n/2 games; returns how many.
 */
static int berger_round(int n, int round, int *white, int *black)
{
    int m = n - 1, count = 0;
    for (int i = 1; i <= m; i++) {
        if ((2 * i - 2) % m == (round - 1) % m) {
            bool n_white = round % 2 == 0;
            white[count] = n_white ? n : i;
            black[count++] = n_white ? i : n;
        }
        for (int j = i + 1; j <= m; j++) {
            if ((i + j - 2) % m != (round - 1) % m)
                continue;
            bool low_white = (i + j) % 2 == 1;
            white[count] = low_white ? i : j;
            black[count++] = low_white ? j : i;
        }
    }
    return count;
}

/*
 * The board of the game of white and black (numbers) in a round of n
 * (even) whose player n meets `facing`: in the FIDE tables player n plays
 * on board 1, and board k + 1 pairs facing + k with facing - k (mod n - 1).
 */
static int berger_board(int n, int facing, int white, int black)
{
    int m = n - 1;
    if (white == n || black == n)
        return 1;
    int k = ((white - facing) % m + m) % m, other = ((black - facing) % m + m) % m;
    return 1 + (k < other ? k : other);
}

/* ---- helpers ------------------------------------------------------------ */

/* A random whole number from 0 to bound - 1, without bias. */
static bool random_below(int bound, int *out)
{
    const char *alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
    int limit = 62 - 62 % bound;
    for (int tries = 0; tries < 1000; tries++) {
        char c[2];
        if (!base_random_text(c, 1))
            return false;
        int v = (int)(strchr(alphabet, c[0]) - alphabet);
        if (v >= 0 && v < limit) {
            *out = v % bound;
            return true;
        }
    }
    return false;
}

/* A tournament game at its variant's start position. */
static enum db_status new_game(struct db_tx *tx, const struct db_tournament *t,
                               const struct db_tournament_player *white,
                               const struct db_tournament_player *black, int round, int board)
{
    const struct rules_variant *v = t->variant;
    struct db_game g;
    struct rules_position pos;
    uint64_t key;
    enum db_status rc;

    if (v == NULL || v->position_parse(&pos, v->start_text, NULL) != RULES_OK)
        return db_tx_fail(tx, "tournament %s: no start position for its variant", t->id);
    memset(&g, 0, sizeof g);
    g.variant = v;
    snprintf(g.white_id, sizeof g.white_id, "%s", white->id);
    snprintf(g.white_name, sizeof g.white_name, "%s", white->name);
    snprintf(g.black_id, sizeof g.black_id, "%s", black->id);
    snprintf(g.black_name, sizeof g.black_name, "%s", black->name);
    snprintf(g.fen, sizeof g.fen, "%s", v->start_text);
    g.status = DB_GAME_ACTIVE;
    g.result = RULES_RESULT_NONE;
    g.days_per_move = t->days_per_move;
    g.clock = t->game_clock;      /* Fischer or per move, and leave_allowed */
    g.fifty_move_rule = true;
    g.key_version = RULES_KEY_VERSION;
    key = v->repetition_key(&pos);
    g.keys = &key;
    g.key_count = 1;
    g.rated = t->rated;
    g.engines_allowed = t->engines_allowed;
    snprintf(g.tournament_id, sizeof g.tournament_id, "%s", t->id);
    g.tournament_round = round;
    rc = db_game_insert(tx, &g, NULL);
    /* Its board, and the ratings it begins with, for its record. */
    if (rc == DB_OK)
        rc = db_tournament_game_start(tx, g.id, board, RATINGS_START_RATING);
    if (rc == DB_OK)
        rc = db_game_event(tx, g.id, DB_EVENT_GAME_START, NULL);
    return rc;
}

/*
 * Starts a locked open tournament: fewer than 3 players, or more than
 * PLAYERS_MAX (joining keeps to max_players, at most PLAYERS_MAX: never
 * expected), cancel it when `cancel_if_few` (the sweeper at starts_at),
 * else refuse; no player is left out of the pairings.  Numbers by lot,
 * every game of the Berger tables (both cycles when double).
 */
static enum db_status start_locked(struct db_tx *tx, struct db_tournament *t,
                                   bool cancel_if_few, struct games_result *r)
{
    struct db_tournament_player players[PLAYERS_MAX + 1], *by_number[PLAYERS_MAX + 2] = { 0 };
    int count = 0, order[PLAYERS_MAX];
    enum db_status rc;

    if ((rc = db_tournament_players_tx(tx, t->id, players, PLAYERS_MAX + 1, &count)) != DB_OK)
        return rc;
    if (count < 3 || count > PLAYERS_MAX) {
        if (!cancel_if_few) {
            r->code = count < 3 ? "too-few-players" : "too-many-players";
            return count < 3 ? games_refuse(r, GAMES_CONFLICT, "a round robin needs at least "
                                            "3 players; %d joined", count)
                             : games_refuse(r, GAMES_CONFLICT, "a round robin is for at most "
                                            "%d players; more joined", PLAYERS_MAX);
        }
        t->status = DB_TOURNAMENT_CANCELED;
        return db_tournament_set_status(tx, t->id, DB_TOURNAMENT_CANCELED);
    }
    /* Numbers by lot: a Fisher-Yates shuffle of the players. */
    for (int i = 0; i < count; i++)
        order[i] = i;
    for (int i = count - 1; i > 0; i--) {
        int j, swap;
        if (!random_below(i + 1, &j))
            return db_tx_fail(tx, "the random generator failed");
        swap = order[i];
        order[i] = order[j];
        order[j] = swap;
    }
    for (int k = 0; k < count; k++) {
        by_number[k + 1] = &players[order[k]];
        if ((rc = db_tournament_number(tx, t->id, players[order[k]].id, k + 1)) != DB_OK)
            return rc;
    }
    /* An odd field plays with a bye: number n + 1, whose games are not made
     * (and whose board, the first, is left out of the numbering). */
    int n = count % 2 == 0 ? count : count + 1;
    for (int cycle = 0; cycle < (t->double_round ? 2 : 1); cycle++)
        for (int round = 1; round < n; round++) {
            int white[PLAYERS_MAX], black[PLAYERS_MAX], facing = 0;
            int games = berger_round(n, round, white, black);
            for (int k = 0; k < games; k++)
                if (white[k] == n || black[k] == n)
                    facing = white[k] == n ? black[k] : white[k];
            for (int k = 0; k < games; k++) {
                if (white[k] > count || black[k] > count)
                    continue;
                /* The second cycle swaps the colours. */
                const struct db_tournament_player *w = by_number[cycle ? black[k] : white[k]];
                const struct db_tournament_player *b = by_number[cycle ? white[k] : black[k]];
                int board = berger_board(n, facing, white[k], black[k]) - (n > count);
                if ((rc = new_game(tx, t, w, b, cycle * (n - 1) + round, board)) != DB_OK)
                    return rc;
            }
        }
    t->status = DB_TOURNAMENT_ACTIVE;
    if ((rc = db_tournament_set_status(tx, t->id, DB_TOURNAMENT_ACTIVE)) != DB_OK)
        return rc;
    return db_tournament_event(tx, t->id, DB_EVENT_TOURNAMENT_START);
}

/* A player's change of a tournament (start, join, withdraw): who asks,
 * which tournament, and the tournament as it stands after it. */
struct change_args {
    const char *player_id, *id;
    bool arbiter;
    struct db_tournament *t;
};

/* Locks the tournament of a change, or refuses one that does not exist
 * (false: the body returns rc). */
static bool lock_tournament(struct db_tx *tx, struct change_args *a, struct games_result *r,
                            enum db_status *rc)
{
    *rc = db_tournament_lock(tx, a->id, a->t);
    if (*rc == DB_NOT_FOUND)
        *rc = games_refuse(r, GAMES_NOT_FOUND, "no tournament has the id '%s'", a->id);
    return *rc == DB_OK && r->outcome == GAMES_OK;
}

/* ---- start -------------------------------------------------------------- */

static enum db_status start_tx(struct db_tx *tx, struct games_result *r, void *arg)
{
    struct change_args *a = arg;
    enum db_status rc;

    if (!lock_tournament(tx, a, r, &rc))
        return rc;
    if (!a->arbiter && strcmp(a->t->director_id, a->player_id) != 0)
        return games_refuse(r, GAMES_FORBIDDEN,
                            "only the tournament's director (or an arbiter) may start it");
    if (a->t->status != DB_TOURNAMENT_OPEN) {
        r->code = "tournament-not-open";
        return games_refuse(r, GAMES_CONFLICT, "the tournament is %s, not open",
                            db_tournament_status_text(a->t->status));
    }
    return start_locked(tx, a->t, false, r);
}

void games_tournament_start(struct db_pool *pool, const char *caller_id, bool arbiter,
                            const char *id, struct db_tournament *t, struct games_result *out)
{
    struct change_args a = { caller_id, id, arbiter, t };
    games_run(pool, start_tx, &a, out);
}

/* ---- create ------------------------------------------------------------- */

/* The tournament as asked for (a run may be the second: it starts from
 * it again), the daily cap, and the tournament made. */
struct create_args {
    struct db_tournament asked, *made;
    int per_day;
};

/* At most per_day tournaments a director in 24 hours: counted under a lock
 * on the director's new tournaments, so that two at once cannot both pass. */
static enum db_status create_tx(struct db_tx *tx, struct games_result *r, void *arg)
{
    struct create_args *a = arg;
    struct db_tournament_guard guard = { 0, 0 };
    enum db_status rc = DB_OK;

    *a->made = a->asked;
    if (a->per_day > 0)
        rc = db_tournament_guard(tx, a->asked.director_id, &guard);
    if (rc != DB_OK)
        return rc;
    if (a->per_day > 0 && guard.last_day >= a->per_day) {
        r->retry_after = guard.wait > 0 ? guard.wait : 1;
        return games_refuse(r, GAMES_DAILY_LIMIT, "you have created %d tournaments in the last "
                            "24 hours, the most allowed; try again in %d s", a->per_day,
                            r->retry_after);
    }
    return db_tournament_insert(tx, a->made);
}

void games_tournament_create_limited(struct db_pool *pool, struct db_tournament *t, int per_day,
                                     struct games_result *out)
{
    struct create_args a = { *t, t, per_day };
    games_run(pool, create_tx, &a, out);
}

void games_tournament_create(struct db_pool *pool, struct db_tournament *t,
                             struct games_result *out)
{
    games_tournament_create_limited(pool, t, 0, out);
}

/* ---- join --------------------------------------------------------------- */

/* The entry conditions against the player's rating and time-out share;
 * false with the reason in r. */
static bool may_enter(struct db_pool *pool, const struct db_tournament *t,
                      const char *player_id, struct games_result *r)
{
    struct db_rating ratings[8];
    struct db_player_stats stats;
    double rating = RATINGS_START_RATING;
    int count = 0;

    r->db = db_player_ratings(pool, player_id, ratings, 8, &count, &r->err);
    if (r->db == DB_OK)
        r->db = db_player_stats_get(pool, player_id, &stats, &r->err);
    if (r->db != DB_OK) {
        r->outcome = GAMES_DB_ERROR;
        return false;
    }
    for (int i = 0; i < count; i++)
        if (ratings[i].variant == t->variant)
            rating = ratings[i].rating;
    if (t->has_min_rating && rating < t->min_rating) {
        games_refuse(r, GAMES_ENTRY_REFUSED, "your %s rating, %.0f, is below the tournament's "
                     "minimum, %.0f", t->variant->name, rating, t->min_rating);
        return false;
    }
    if (t->has_max_rating && rating > t->max_rating) {
        games_refuse(r, GAMES_ENTRY_REFUSED, "your %s rating, %.0f, is above the tournament's "
                     "maximum, %.0f", t->variant->name, rating, t->max_rating);
        return false;
    }
    if (t->has_max_timeout && stats.finished_90d > 0 &&
        stats.timeouts_90d * 100 > t->max_timeout_percent * stats.finished_90d) {
        games_refuse(r, GAMES_ENTRY_REFUSED, "you lost %d of your %d games of the last 90 days on "
                     "time, more than the tournament's %d%%", stats.timeouts_90d,
                     stats.finished_90d, t->max_timeout_percent);
        return false;
    }
    return true;
}

static enum db_status join_tx(struct db_tx *tx, struct games_result *r, void *arg)
{
    struct change_args *a = arg;
    const char *ids[1] = { a->player_id };
    enum db_status rc;

    /* The player's row before the tournament's, as a closure takes them. */
    if (a->t->rated && ((rc = games_rated_play_check(tx, ids, 1, r)) != DB_OK ||
                        r->outcome != GAMES_OK))
        return rc;
    if (!lock_tournament(tx, a, r, &rc))
        return rc;
    if (a->t->status != DB_TOURNAMENT_OPEN) {
        r->code = "tournament-not-open";
        return games_refuse(r, GAMES_CONFLICT, "the tournament is %s: it can be joined only "
                            "before it starts", db_tournament_status_text(a->t->status));
    }
    if (a->t->player_count >= a->t->max_players) {
        r->code = "tournament-full";
        return games_refuse(r, GAMES_CONFLICT, "the tournament is full (%d players)",
                            a->t->max_players);
    }
    rc = db_tournament_join(tx, a->id, a->player_id);
    if (rc == DB_CONFLICT) {
        r->code = "already-entered";
        return games_refuse(r, GAMES_CONFLICT, "you are in this tournament already");
    }
    if (rc == DB_OK)
        a->t->player_count++;
    return rc;
}

void games_tournament_join(struct db_pool *pool, const char *player_id, const char *id,
                           struct db_tournament *t, struct games_result *out)
{
    struct change_args a = { player_id, id, false, t };
    struct base_err err = { "" };
    enum db_status rc;

    memset(out, 0, sizeof *out);
    /* The conditions first, on the tournament as it stands (a rating does
     * not change while the player waits to join). */
    rc = db_tournament_get(pool, id, t, &err);
    if (rc == DB_NOT_FOUND) {
        games_refuse(out, GAMES_NOT_FOUND, "no tournament has the id '%s'", id);
        return;
    }
    if (rc != DB_OK) {
        out->outcome = GAMES_DB_ERROR;
        out->db = rc;
        out->err = err;
        return;
    }
    if (t->status == DB_TOURNAMENT_OPEN && !may_enter(pool, t, player_id, out))
        return;
    games_run(pool, join_tx, &a, out);
}

/* ---- withdraw ----------------------------------------------------------- */

/* Ends one of the player's games as their loss by forfeit, unrated. */
static enum db_status forfeit(struct db_tx *tx, const char *game_id, const char *player_id)
{
    struct db_game g;
    enum db_status rc;

    memset(&g, 0, sizeof g);
    rc = db_game_lock(tx, game_id, false, &g);
    if (rc == DB_OK && g.status == DB_GAME_ACTIVE) {
        bool white = strcmp(g.white_id, player_id) == 0;
        games_finish(&g, white ? RULES_RESULT_BLACK_WINS : RULES_RESULT_WHITE_WINS,
                     DB_END_FORFEIT);
        g.rated = false;
        if ((rc = db_game_unrate(tx, g.id)) == DB_OK)
            rc = games_save_end(tx, &g);
    }
    db_game_clear(&g);
    return rc;
}

static enum db_status withdraw_tx(struct db_tx *tx, struct games_result *r, void *arg)
{
    struct change_args *a = arg;
    char games[2 * PLAYERS_MAX][BASE_ID_SIZE];
    int count = 0;
    enum db_status rc;

    /* Games before the tournament, as a game's end takes them. */
    if ((rc = db_tournament_open_games(tx, a->id, a->player_id, games, 2 * PLAYERS_MAX,
                                       &count)) != DB_OK)
        return rc;
    for (int i = 0; i < count; i++)
        if ((rc = forfeit(tx, games[i], a->player_id)) != DB_OK)
            return rc;
    if (!lock_tournament(tx, a, r, &rc))
        return rc;
    if (a->t->status == DB_TOURNAMENT_FINISHED || a->t->status == DB_TOURNAMENT_CANCELED) {
        r->code = "tournament-over";
        return games_refuse(r, GAMES_CONFLICT, "the tournament is %s",
                            db_tournament_status_text(a->t->status));
    }
    rc = db_tournament_leave(tx, a->id, a->player_id, a->t->status == DB_TOURNAMENT_ACTIVE);
    if (rc == DB_NOT_FOUND) {
        r->code = "not-entered";
        return games_refuse(r, GAMES_CONFLICT, "you are not playing in this tournament");
    }
    if (rc == DB_OK && a->t->status == DB_TOURNAMENT_OPEN)
        a->t->player_count--;
    return rc;
}

void games_tournament_withdraw(struct db_pool *pool, const char *player_id, const char *id,
                               struct db_tournament *t, struct games_result *out)
{
    struct change_args a = { player_id, id, false, t };
    games_run(pool, withdraw_tx, &a, out);
}

/* ---- a game's end, and the sweeper -------------------------------------- */

enum db_status games_tournament_game_over(struct db_tx *tx, struct db_game *g)
{
    struct db_tournament t;
    char left[1][BASE_ID_SIZE];
    int count = 0;
    enum db_status rc;

    if (g->tournament_id[0] == '\0')
        return DB_OK;
    if ((rc = db_tournament_lock(tx, g->tournament_id, &t)) != DB_OK)
        return rc;
    if (t.status != DB_TOURNAMENT_ACTIVE)
        return DB_OK;
    if ((rc = db_tournament_open_games(tx, t.id, NULL, left, 1, &count)) != DB_OK || count > 0)
        return rc;
    if ((rc = db_tournament_set_status(tx, t.id, DB_TOURNAMENT_FINISHED)) != DB_OK)
        return rc;
    return db_tournament_event(tx, t.id, DB_EVENT_TOURNAMENT_END);
}

struct sweep_args {
    int *done;
};

static enum db_status sweep_tx(struct db_tx *tx, void *arg)
{
    struct sweep_args *a = arg;
    struct db_tournament t;
    struct games_result r;
    enum db_status rc;

    *a->done = 0;
    memset(&r, 0, sizeof r);
    rc = db_tournament_due_start(tx, &t);
    if (rc == DB_OK) {
        *a->done = 1;
        return start_locked(tx, &t, true, &r);
    }
    if (rc != DB_NOT_FOUND)
        return rc;
    rc = db_tournament_due_end(tx, &t);
    if (rc == DB_OK) {
        *a->done = 1;
        return db_tournament_end_queue(tx, t.id);
    }
    return rc == DB_NOT_FOUND ? DB_OK : rc;
}

int games_tournaments_sweep(struct db_pool *pool, struct base_err *err)
{
    int total = 0;
    /* Bounded: at most 100 tournaments a sweep. */
    for (int i = 0; i < 100; i++) {
        int done = 0;
        struct sweep_args a = { &done };
        if (db_run_tx(pool, sweep_tx, &a, err) != DB_OK)
            return -1;
        if (!done)
            break;
        total++;
    }
    return total;
}
