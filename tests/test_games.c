/*
 * test_games.c — every public function of games.h called directly (no
 * HTTP) against a real PostgreSQL: making, accepting, declining and
 * cancelling challenges, moves (with an Idempotency-Key and a message),
 * draw claims and offers, resignation, abort, adjudication, time-outs,
 * conditional moves, messages and notes, give-time, leave, perpetual
 * claims and the arbiter's queue, tournaments and their sweeper, the PGN of
 * a stored game and the analysis rules; each success with what it leaves
 * and the events it writes, each refusal with its outcome and nothing
 * written.
 *
 * Expected values come from the rules files (shared/rules/korpalski.md and
 * glinski.md), from hand analysis written next to each case, and from the
 * inventor's game (data/inventor-sample.pgn and its ply-by-ply FEN record).
 * Other tests share the database: every player is new (names carry the pid
 * and a counter), no game has a deadline unless a test gives it one, and
 * the shared test clock is never moved.
 * usage: test_games DATA_DIR
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "db.h"
#include "games.h"
#include "rules.h"
#include "test_env.h"
#include "test_file.h"

/* The start positions as the rules files write them. */
static const char korpalski_start[] =
    "8/8/8/8/8/8/8/8[KQRRBBNNPPPPPPPPkqrrbbnnpppppppp] w - - 0 1";
static const char glinski_start[] =
    "b/qbk/n1b1n/r5r/ppppppppp/11/5P5/4P1P4/3P1B1P3/2P2B2P2/1PRNQBKNRP1 w - 0 1";

static const char *url;
static const char *data_dir;
static struct db_pool *pool;
static PGconn *conn;
static int players_made;

/* ---- SQL of our own, to look at what games/ wrote ------------------------ */

static PGresult *sql(const char *text, int n, const char *const *params)
{
    PGresult *res = PQexecParams(conn, text, n, NULL, params, NULL, NULL, 0);
    if (PQresultStatus(res) != PGRES_TUPLES_OK && PQresultStatus(res) != PGRES_COMMAND_OK)
        fail_msg("%s: %s", text, PQresultErrorMessage(res));
    return res;
}

/* The first column of the first row as text (out), "" when none. */
static void sql_text(char *out, size_t size, const char *text, int n,
                     const char *const *params)
{
    PGresult *res = sql(text, n, params);
    snprintf(out, size, "%s", PQntuples(res) > 0 ? PQgetvalue(res, 0, 0) : "");
    PQclear(res);
}

static long long sql_count(const char *text, int n, const char *const *params)
{
    char v[32];
    sql_text(v, sizeof v, text, n, params);
    return atoll(v);
}

/* Everything a state change may write about a game, as one text: a refusal
 * must leave it as it was. */
#define SNAPSHOT_SIZE 1024

static void snapshot(const char *game_id, char *out, size_t size)
{
    const char *p[1] = { game_id };
    sql_text(out, size,
             "SELECT concat_ws('|', ply, status, result, termination, draw_offer, deadline,"
             " updated_at, (SELECT count(*) FROM moves m WHERE m.game_id = g.id),"
             " (SELECT count(*) FROM events e WHERE e.game_id = g.id), fen,"
             " md5(sans), md5(repetition_keys::text), key_version)"
             " FROM games g WHERE id = $1", 1, p);
    assert_true(out[0] != '\0');
    assert_true(strlen(out) < size - 1);   /* whole, not cut short */
}

static void assert_unchanged(const char *game_id, const char *before)
{
    char now[SNAPSHOT_SIZE];
    snapshot(game_id, now, sizeof now);
    assert_string_equal(now, before);
}

/* A player's events of a game, oldest first: "game_start move ...". */
static void events_of(const char *game_id, const char *player_id, char *out, size_t size)
{
    const char *p[2] = { game_id, player_id };
    sql_text(out, size,
             "SELECT coalesce(string_agg(type, ' ' ORDER BY id), '') FROM events"
             " WHERE game_id = $1 AND player_id = $2", 2, p);
}

struct pair {
    struct db_player white, black;
    char game[BASE_ID_SIZE];
};

/* Both players got exactly these events of the game, in this order. */
static void assert_events(const struct pair *g, const char *expected)
{
    char mine[4096];
    events_of(g->game, g->white.id, mine, sizeof mine);
    assert_string_equal(mine, expected);
    events_of(g->game, g->black.id, mine, sizeof mine);
    assert_string_equal(mine, expected);
}

/* A field of the newest event of that type (White's copy); "null" for JSON null. */
static void event_field(const struct pair *g, const char *type, const char *field, char *out,
                        size_t size)
{
    const char *p[4] = { g->game, g->white.id, type, field };
    sql_text(out, size,
             "SELECT coalesce(payload->>$4, 'null') FROM events WHERE game_id = $1"
             " AND player_id = $2 AND type = $3 ORDER BY id DESC LIMIT 1", 4, p);
}

static void assert_event_field(const struct pair *g, const char *type, const char *field,
                               const char *expected)
{
    char v[256];
    event_field(g, type, field, v, sizeof v);
    assert_string_equal(v, expected);
}

/* Sets a game's column by SQL: a deadline already passed, or a position. */
static void make_overdue(const char *game_id)
{
    const char *p[1] = { game_id };
    PQclear(sql("UPDATE games SET deadline = korp_now() - interval '1 minute' WHERE id = $1",
                1, p));
}

static void set_position(const char *game_id, const char *fen)
{
    const char *p[2] = { game_id, fen };
    PQclear(sql("UPDATE games SET fen = $2 WHERE id = $1", 2, p));
}

/* ---- Players, challenges and games ---------------------------------------- */

/* A new player, with a name no other run or test uses; its token into
 * token (may be NULL). */
static void new_player(struct db_player *p, char *token, size_t token_size)
{
    char name[DB_NAME_SIZE], tok[96];
    struct base_err err = { "" };
    /* At most 2 + 7 + 1 + 5 + 1 + 5 = 21 characters: a valid name (2-30). */
    ++players_made;
    snprintf(name, sizeof name, "gt%ld_%ld_%d", (long)getpid() % 10000000,
             (long)(time(NULL) % 100000), players_made % 100000);
    snprintf(tok, sizeof tok, "test-games-token-%s", name);
    if (db_player_create(pool, name, NULL, false, NULL, false, tok, p, &err) != DB_OK)
        fail_msg("player %s: %s", name, err.text);
    if (token != NULL)
        snprintf(token, token_size, "%s", tok);
}

/* A challenge from challenger to opponent (NULL: open to anyone). */
static void new_challenge(const struct db_player *challenger, const struct db_player *opponent,
                          const char *variant, enum db_color color, int days, bool fifty,
                          struct db_challenge *c)
{
    struct games_result r;
    memset(c, 0, sizeof *c);
    c->variant = db_variant_parse(variant);
    assert_non_null(c->variant);
    snprintf(c->challenger_id, sizeof c->challenger_id, "%s", challenger->id);
    snprintf(c->opponent_id, sizeof c->opponent_id, "%s", opponent ? opponent->id : "");
    c->color = color;
    c->days_per_move = days;
    c->fifty_move_rule = fifty;
    games_challenge_create(pool, c, 0, &r);
    if (r.outcome != GAMES_OK)
        fail_msg("challenge: %d %s %s", r.outcome, r.detail, r.err.text);
    games_result_clear(&r);
    assert_int_equal(c->status, DB_CHALLENGE_OPEN);
}

/* A game between g's two players (White challenged Black), no deadline
 * unless days > 0. */
static void open_game(const char *variant, int days, bool fifty, struct pair *g)
{
    struct db_challenge c;
    struct games_result r;
    new_challenge(&g->white, &g->black, variant, DB_COLOR_WHITE, days, fifty, &c);
    games_challenge_accept(pool, g->black.id, c.id, &r);
    if (r.outcome != GAMES_OK)
        fail_msg("accept: %d %s %s", r.outcome, r.detail, r.err.text);
    snprintf(g->game, sizeof g->game, "%s", r.game.id);
    games_result_clear(&r);
}

/* Two new players and a game between them, as open_game. */
static void new_game(const char *variant, int days, bool fifty, struct pair *g)
{
    new_player(&g->white, NULL, 0);
    new_player(&g->black, NULL, 0);
    open_game(variant, days, fifty, g);
}

/* The player to move at a ply: White first in both variants. */
static const struct db_player *to_move(const struct pair *g, int ply)
{
    return ply % 2 == 0 ? &g->white : &g->black;
}

static struct db_player read_player(const char *player_id)
{
    struct db_player p;
    struct base_err err = { "" };
    if (db_player_get(pool, player_id, &p, &err) != DB_OK)
        fail_msg("player %s: %s", player_id, err.text);
    return p;
}

static struct db_game read_game(const char *game_id)
{
    struct db_game game;
    struct base_err err = { "" };
    memset(&game, 0, sizeof game);
    if (db_game_get_keys(pool, game_id, &game, &err) != DB_OK)
        fail_msg("game %s: %s", game_id, err.text);
    return game;
}

/* Plays a move that must be accepted at that ply. */
static void play(const struct pair *g, int ply, const char *move)
{
    struct games_result r;
    games_move(pool, to_move(g, ply)->id, g->game, move, ply, NULL, NULL, &r);
    if (r.outcome != GAMES_OK)
        fail_msg("ply %d %s: outcome %d: %s %s", ply + 1, move, r.outcome, r.detail, r.err.text);
    assert_int_equal(r.game.ply, ply + 1);
    games_result_clear(&r);
}

/*
 * The knight shuffle of the README's tour: both kings and one knight each
 * dropped (plies 1-4: K@e1 K@e8 N@f3 N@f6), then the knights go out and
 * back, Ng1 Ng8 Nf3 Nf6, so that the position after ply 4 recurs after
 * plies 8, 12, 16 ...  The move played as ply n (from 1):
 */
static const char *shuffle_move(int n)
{
    static const char *const drops[4] = { "K@e1", "K@e8", "N@f3", "N@f6" };
    static const char *const white[2] = { "Ng1", "Nf3" };
    static const char *const black[2] = { "Ng8", "Nf6" };
    if (n <= 4)
        return drops[n - 1];
    return n % 2 == 1 ? white[((n - 5) / 2) % 2] : black[((n - 6) / 2) % 2];
}

static void shuffle_to(const struct pair *g, int from_ply, int to_ply)
{
    for (int ply = from_ply; ply < to_ply; ply++)
        play(g, ply, shuffle_move(ply + 1));
}

/* A refusal: that outcome, words for a person, the game as it was. */
static void assert_refused(const struct games_result *r, enum games_outcome outcome)
{
    if (r->outcome != outcome)
        fail_msg("expected outcome %d, got %d: %s %s", outcome, r->outcome, r->detail, r->err.text);
    assert_true(r->detail[0] != '\0' || outcome == GAMES_ANSWERED_BEFORE);
}

/* A success (its result cleared), and a refusal as assert_refused (its
 * result cleared). */
static void assert_ok_clear(struct games_result *r)
{
    if (r->outcome != GAMES_OK)
        fail_msg("expected success, got %d: %s %s", r->outcome, r->detail, r->err.text);
    games_result_clear(r);
}

static void assert_refused_clear(struct games_result *r, enum games_outcome outcome)
{
    assert_refused(r, outcome);
    games_result_clear(r);
}

/* A game that has ended at that ply with that result and termination. */
static void assert_finished(const struct db_game *game, enum rules_result result,
                            enum db_termination how, int ply)
{
    assert_int_equal(game->status, DB_GAME_FINISHED);
    assert_int_equal(game->result, result);
    assert_int_equal(game->termination, how);
    assert_int_equal(game->ply, ply);
}

/* A player's action on a game: games_resign, games_abort. */
typedef void player_action(struct db_pool *pool, const char *player_id, const char *game_id,
                           struct games_result *r);

/* The action on no such game is not found; by a stranger to g's game,
 * forbidden, and nothing written. */
static void assert_outsiders_refused(player_action *act, const struct pair *g,
                                     const struct db_player *stranger)
{
    char before[SNAPSHOT_SIZE];
    struct games_result r;
    act(pool, g->white.id, "nosuchgame", &r);
    assert_refused(&r, GAMES_NOT_FOUND);
    games_result_clear(&r);
    snapshot(g->game, before, sizeof before);
    act(pool, stranger->id, g->game, &r);
    assert_refused(&r, GAMES_FORBIDDEN);
    games_result_clear(&r);
    assert_unchanged(g->game, before);
}

/* g's game is over: the action again by who, and White's first move, are
 * refused, and nothing written. */
static void assert_over(player_action *act, const struct pair *g, const struct db_player *who)
{
    char before[SNAPSHOT_SIZE];
    struct games_result r;
    snapshot(g->game, before, sizeof before);
    act(pool, who->id, g->game, &r);
    assert_refused(&r, GAMES_GAME_OVER);
    games_result_clear(&r);
    games_move(pool, g->white.id, g->game, "K@e1", 0, NULL, NULL, &r);
    assert_refused(&r, GAMES_GAME_OVER);
    games_result_clear(&r);
    assert_unchanged(g->game, before);
}

/* ---- Challenges ------------------------------------------------------------ */

static void assert_new_game(const struct db_game *game, const char *white_id,
                            const char *black_id, const char *fen)
{
    assert_string_equal(game->white_id, white_id);
    assert_string_equal(game->black_id, black_id);
    assert_int_equal(game->status, DB_GAME_ACTIVE);
    assert_int_equal(game->result, RULES_RESULT_NONE);
    assert_int_equal(game->termination, DB_END_NONE);
    assert_int_equal(game->ply, 0);
    assert_int_equal(game->draw_offer, DB_COLOR_NONE);
    assert_string_equal(game->fen, fen);
}

static void test_games_challenge_accept(void **state)
{
    struct db_player a, b, c;
    struct db_challenge ch, got;
    struct games_result r;
    struct base_err err = { "" };
    (void)state;
    new_player(&a, NULL, 0);
    new_player(&b, NULL, 0);
    new_player(&c, NULL, 0);

    /* A asks B, A playing White. */
    new_challenge(&a, &b, "korpalski", DB_COLOR_WHITE, 0, true, &ch);
    games_challenge_accept(pool, b.id, "nosuchchal", &r);
    assert_refused(&r, GAMES_NOT_FOUND);
    games_challenge_accept(pool, c.id, ch.id, &r);
    assert_refused(&r, GAMES_FORBIDDEN);      /* not the one challenged */
    games_challenge_accept(pool, a.id, ch.id, &r);
    assert_refused(&r, GAMES_FORBIDDEN);      /* the challenger */
    assert_int_equal(db_challenge_get(pool, ch.id, &got, &err), DB_OK);
    assert_int_equal(got.status, DB_CHALLENGE_OPEN);
    assert_string_equal(got.game_id, "");

    games_challenge_accept(pool, b.id, ch.id, &r);
    assert_int_equal(r.outcome, GAMES_OK);
    assert_new_game(&r.game, a.id, b.id, korpalski_start);
    assert_string_equal(r.game.deadline, "");
    assert_true(r.game.fifty_move_rule);
    struct pair g = { a, b, "" };
    snprintf(g.game, sizeof g.game, "%s", r.game.id);
    games_result_clear(&r);
    assert_events(&g, "game_start");
    assert_event_field(&g, "game_start", "fen", korpalski_start);
    assert_int_equal(db_challenge_get(pool, ch.id, &got, &err), DB_OK);
    assert_int_equal(got.status, DB_CHALLENGE_ACCEPTED);
    assert_string_equal(got.game_id, g.game);
    /* Accepted once: a second accept makes no second game. */
    games_challenge_accept(pool, b.id, ch.id, &r);
    assert_refused(&r, GAMES_CONFLICT);
    const char *p[1] = { ch.id };
    assert_int_equal(sql_count("SELECT count(*) FROM games WHERE challenge_id = $1", 1, p), 1);

    /* A plays Black: B is White. */
    new_challenge(&a, &b, "korpalski", DB_COLOR_BLACK, 0, false, &ch);
    games_challenge_accept(pool, b.id, ch.id, &r);
    assert_int_equal(r.outcome, GAMES_OK);
    assert_new_game(&r.game, b.id, a.id, korpalski_start);
    assert_false(r.game.fifty_move_rule);
    games_result_clear(&r);

    /* Random: one of them White, the other Black. */
    new_challenge(&a, &b, "korpalski", DB_COLOR_RANDOM, 0, true, &ch);
    games_challenge_accept(pool, b.id, ch.id, &r);
    assert_int_equal(r.outcome, GAMES_OK);
    bool a_white = strcmp(r.game.white_id, a.id) == 0;
    assert_new_game(&r.game, a_white ? a.id : b.id, a_white ? b.id : a.id, korpalski_start);
    games_result_clear(&r);

    /* Open to anyone: not to its challenger; the first to accept plays. */
    new_challenge(&a, NULL, "glinski", DB_COLOR_WHITE, 60, true, &ch);
    games_challenge_accept(pool, a.id, ch.id, &r);
    assert_refused(&r, GAMES_FORBIDDEN);
    games_challenge_accept(pool, c.id, ch.id, &r);
    assert_int_equal(r.outcome, GAMES_OK);
    assert_new_game(&r.game, a.id, c.id, glinski_start);
    assert_int_equal(r.game.days_per_move, 60);
    assert_true(r.game.deadline[0] != '\0');
    games_result_clear(&r);
    assert_int_equal(db_challenge_get(pool, ch.id, &got, &err), DB_OK);
    assert_string_equal(got.opponent_id, c.id);
    games_challenge_accept(pool, b.id, ch.id, &r);
    assert_refused(&r, GAMES_CONFLICT);

    /* A declined challenge cannot be accepted. */
    new_challenge(&a, &b, "korpalski", DB_COLOR_WHITE, 0, true, &ch);
    games_challenge_close(pool, b.id, ch.id, true, &got, &r);
    assert_int_equal(r.outcome, GAMES_OK);
    games_challenge_accept(pool, b.id, ch.id, &r);
    assert_refused(&r, GAMES_CONFLICT);
    p[0] = ch.id;
    assert_int_equal(sql_count("SELECT count(*) FROM games WHERE challenge_id = $1", 1, p), 0);
}

/* A player's events about a challenge (they carry no game id). */
static void challenge_events(const char *challenge_id, const char *player_id, char *out,
                             size_t size)
{
    const char *p[2] = { challenge_id, player_id };
    sql_text(out, size,
             "SELECT coalesce(string_agg(type, ' ' ORDER BY id), '') FROM events"
             " WHERE payload->>'challenge_id' = $1 AND player_id = $2", 2, p);
}

static void test_games_challenge_close(void **state)
{
    struct db_player a, b, c;
    struct db_challenge ch, got;
    struct games_result r;
    char events[256];
    struct base_err err = { "" };
    (void)state;
    new_player(&a, NULL, 0);
    new_player(&b, NULL, 0);
    new_player(&c, NULL, 0);

    /* Declined by its opponent only. */
    new_challenge(&a, &b, "korpalski", DB_COLOR_WHITE, 0, true, &ch);
    games_challenge_close(pool, b.id, "nosuchchal", true, &got, &r);
    assert_refused(&r, GAMES_NOT_FOUND);
    games_challenge_close(pool, a.id, ch.id, true, &got, &r);
    assert_refused(&r, GAMES_FORBIDDEN);      /* the challenger declines */
    games_challenge_close(pool, c.id, ch.id, true, &got, &r);
    assert_refused(&r, GAMES_FORBIDDEN);      /* a stranger declines */
    games_challenge_close(pool, b.id, ch.id, false, &got, &r);
    assert_refused(&r, GAMES_FORBIDDEN);      /* the opponent cancels */
    challenge_events(ch.id, a.id, events, sizeof events);
    assert_string_equal(events, "challenge");
    games_challenge_close(pool, b.id, ch.id, true, &got, &r);
    assert_int_equal(r.outcome, GAMES_OK);
    assert_string_equal(r.detail, "");
    assert_int_equal(got.status, DB_CHALLENGE_DECLINED);
    assert_int_equal(db_challenge_get(pool, ch.id, &got, &err), DB_OK);
    assert_int_equal(got.status, DB_CHALLENGE_DECLINED);
    challenge_events(ch.id, a.id, events, sizeof events);
    assert_string_equal(events, "challenge challenge_declined");
    challenge_events(ch.id, b.id, events, sizeof events);
    assert_string_equal(events, "challenge challenge_declined");
    games_challenge_close(pool, b.id, ch.id, true, &got, &r);
    assert_refused(&r, GAMES_CONFLICT);
    games_challenge_close(pool, a.id, ch.id, false, &got, &r);
    assert_refused(&r, GAMES_CONFLICT);
    challenge_events(ch.id, a.id, events, sizeof events);
    assert_string_equal(events, "challenge challenge_declined");

    /* Cancelled by its challenger only. */
    new_challenge(&a, &b, "glinski", DB_COLOR_BLACK, 0, true, &ch);
    games_challenge_close(pool, c.id, ch.id, false, &got, &r);
    assert_refused(&r, GAMES_FORBIDDEN);
    games_challenge_close(pool, a.id, ch.id, false, &got, &r);
    assert_int_equal(r.outcome, GAMES_OK);
    assert_int_equal(got.status, DB_CHALLENGE_CANCELLED);
    challenge_events(ch.id, b.id, events, sizeof events);
    assert_string_equal(events, "challenge challenge_cancelled");
    games_challenge_close(pool, a.id, ch.id, false, &got, &r);
    assert_refused(&r, GAMES_CONFLICT);

    /* An accepted challenge is closed for both. */
    new_challenge(&a, &b, "korpalski", DB_COLOR_WHITE, 0, true, &ch);
    games_challenge_accept(pool, b.id, ch.id, &r);
    assert_int_equal(r.outcome, GAMES_OK);
    games_result_clear(&r);
    games_challenge_close(pool, a.id, ch.id, false, &got, &r);
    assert_refused(&r, GAMES_CONFLICT);
    games_challenge_close(pool, b.id, ch.id, true, &got, &r);
    assert_refused(&r, GAMES_CONFLICT);

    /* An open challenge concerns its challenger alone. */
    new_challenge(&a, NULL, "korpalski", DB_COLOR_RANDOM, 0, true, &ch);
    games_challenge_close(pool, a.id, ch.id, false, &got, &r);
    assert_int_equal(r.outcome, GAMES_OK);
    const char *p[1] = { ch.id };
    assert_int_equal(sql_count("SELECT count(*) FROM events WHERE type = 'challenge_cancelled'"
                               " AND payload->>'challenge_id' = $1", 1, p), 1);
}

/* ---- Moves ------------------------------------------------------------------ */

/* An illegal move: refused with the rule's reason, nothing written. */
static void assert_illegal(const struct pair *g, int ply, const char *move,
                           enum rules_reason reason)
{
    char before[SNAPSHOT_SIZE];
    struct games_result r;
    snapshot(g->game, before, sizeof before);
    games_move(pool, to_move(g, ply)->id, g->game, move, ply, NULL, NULL, &r);
    assert_refused(&r, GAMES_ILLEGAL);
    if (r.reason != reason)
        fail_msg("%s: reason %s, expected %s (%s)", move, rules_reason_slug(r.reason),
                 rules_reason_slug(reason), r.detail);
    assert_int_equal(r.ply, ply);
    games_result_clear(&r);
    assert_unchanged(g->game, before);
}

static void test_games_move(void **state)
{
    struct pair g, other;
    struct db_player stranger;
    struct games_result r;
    char before[SNAPSHOT_SIZE];
    (void)state;
    new_game("korpalski", 0, true, &g);
    new_game("korpalski", 0, true, &other);
    new_player(&stranger, NULL, 0);
    snapshot(g.game, before, sizeof before);

    games_move(pool, g.white.id, "nosuchgame", "K@e1", 0, NULL, NULL, &r);
    assert_refused(&r, GAMES_NOT_FOUND);
    games_move(pool, stranger.id, g.game, "K@e1", 0, NULL, NULL, &r);
    assert_refused(&r, GAMES_FORBIDDEN);
    games_result_clear(&r);
    /* A player of another game is a stranger here. */
    games_move(pool, other.white.id, g.game, "K@e1", 0, NULL, NULL, &r);
    assert_refused(&r, GAMES_FORBIDDEN);
    games_result_clear(&r);
    games_move(pool, g.black.id, g.game, "K@e8", -1, NULL, NULL, &r);
    assert_refused(&r, GAMES_NOT_YOUR_TURN);
    games_result_clear(&r);
    games_move(pool, g.white.id, g.game, "K@e1", 1, NULL, NULL, &r);
    assert_refused(&r, GAMES_PLY_MISMATCH);
    assert_int_equal(r.ply, 0);
    games_result_clear(&r);
    assert_unchanged(g.game, before);
    /* §2.1: the first move of each side places its king. */
    assert_illegal(&g, 0, "Q@d4", RULES_REASON_KING_NOT_PLACED);
    assert_illegal(&g, 0, "zz99", RULES_REASON_SYNTAX);

    games_move(pool, g.white.id, g.game, "K@e1", 0, NULL, NULL, &r);
    assert_int_equal(r.outcome, GAMES_OK);
    assert_int_equal(r.ply, 0);
    assert_int_equal(r.game.ply, 1);
    assert_int_equal(r.game.status, DB_GAME_ACTIVE);
    assert_int_equal(r.game.result, RULES_RESULT_NONE);
    assert_int_equal(r.game.termination, DB_END_NONE);
    assert_string_equal(r.game.fen,
                        "8/8/8/8/8/8/8/4K3[QRRBBNNPPPPPPPPkqrrbbnnpppppppp] b - - 0 1");
    assert_string_equal(r.game.sans, "K@e1");
    games_result_clear(&r);
    assert_events(&g, "game_start move");
    assert_event_field(&g, "move", "san", "K@e1");
    assert_event_field(&g, "move", "uci", "K@e1");
    assert_event_field(&g, "move", "polish", "K/e1");   /* §5 Polish: drop '/' */
    assert_event_field(&g, "move", "ply", "1");
    const char *p[1] = { g.game };
    assert_int_equal(sql_count("SELECT count(*) FROM moves WHERE game_id = $1 AND ply = 1"
                               " AND san = 'K@e1'", 1, p), 1);
    /* The same move again, now out of turn and at a stale ply. */
    games_move(pool, g.white.id, g.game, "K@e1", 0, NULL, NULL, &r);
    assert_refused(&r, GAMES_NOT_YOUR_TURN);
    games_result_clear(&r);
    snapshot(g.game, before, sizeof before);
    games_move(pool, g.black.id, g.game, "K@e8", 0, NULL, NULL, &r);
    assert_refused(&r, GAMES_PLY_MISMATCH);
    games_result_clear(&r);
    assert_unchanged(g.game, before);

    /* §2.1: kings never touch. */
    assert_illegal(&g, 1, "K@d2", RULES_REASON_KINGS_ADJACENT);
    assert_illegal(&g, 1, "K@e1", RULES_REASON_DROP_ON_OCCUPIED_SQUARE);
    play(&g, 1, "K@e8");
    /* §2.3 Drops: a knight on f6 or d6 would attack e8; a queen on e5 too
     * (the e-file); pawns never on rank 8; a man not in reserve. */
    assert_illegal(&g, 2, "N@f6", RULES_REASON_DROP_GIVES_CHECK);
    assert_illegal(&g, 2, "N@d6", RULES_REASON_DROP_GIVES_CHECK);
    assert_illegal(&g, 2, "Q@e5", RULES_REASON_DROP_GIVES_CHECK);
    assert_illegal(&g, 2, "P@a8", RULES_REASON_PAWN_DROP_RANK);
    assert_illegal(&g, 2, "K@a1", RULES_REASON_NOT_IN_RESERVE);

    games_move(pool, g.white.id, g.game, "N@f3", 2, NULL, NULL, &r);
    assert_int_equal(r.outcome, GAMES_OK);
    assert_string_equal(r.game.fen,
                        "4k3/8/8/8/8/5N2/8/4K3[QRRBBNPPPPPPPPqrrbbnnpppppppp] b - - 0 2");
    assert_string_equal(r.game.sans, "K@e1 K@e8 N@f3");
    assert_int_equal(r.game.draw_offer, DB_COLOR_NONE);
    games_result_clear(&r);
    assert_events(&g, "game_start move move move");
    /* A knight on c6 attacks neither e1 nor anything near it. */
    play(&g, 3, "N@c6");
    /* The knight on f3 reaches g1, h2, h4, g5, e5, d4, d2, but not g2. */
    assert_illegal(&g, 4, "Ng2", RULES_REASON_CANNOT_REACH);
    assert_int_equal(sql_count("SELECT count(*) FROM moves WHERE game_id = $1", 1, p), 4);
}

/* ---- The inventor's game ----------------------------------------------------- */

#define INVENTOR_PLIES 56

struct inventor {
    const struct pair *g;
    char fens[INVENTOR_PLIES][RULES_TEXT_MAX];
    int ply;
    char result[16], termination[32];
};

/* inventor-sample.fens.tsv: "ply \t san \t uci \t fen" for each ply. */
static void read_fens(struct inventor *inv)
{
    size_t len;
    char *text = test_file_read(data_dir, "inventor-sample.fens.tsv", &len);
    char *save = NULL;
    int rows = 0;
    for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        int ply;
        char san[RULES_MOVE_TEXT_MAX], uci[RULES_MOVE_TEXT_MAX], fen[RULES_TEXT_MAX];
        if (sscanf(line, "%d\t%23[^\t]\t%23[^\t]\t%191[^\n]", &ply, san, uci, fen) != 4)
            continue;   /* the header */
        assert_true(ply >= 1 && ply <= INVENTOR_PLIES);
        memcpy(inv->fens[ply - 1], fen, sizeof fen);
        rows++;
    }
    free(text);
    assert_int_equal(rows, INVENTOR_PLIES);
}

static int on_tag(void *arg, const char *name, const char *value)
{
    struct inventor *inv = arg;
    if (strcmp(name, "Result") == 0)
        snprintf(inv->result, sizeof inv->result, "%s", value);
    else if (strcmp(name, "Termination") == 0)
        snprintf(inv->termination, sizeof inv->termination, "%s", value);
    return 0;
}

/* Each move of the record through games_move, by the side to move, at the
 * ply it is; the stored position must be the record's. */
static int on_move(void *arg, const char *token)
{
    struct inventor *inv = arg;
    struct games_result r;
    assert_true(inv->ply < INVENTOR_PLIES);
    games_move(pool, to_move(inv->g, inv->ply)->id, inv->g->game, token, inv->ply, NULL, NULL, &r);
    if (r.outcome != GAMES_OK)
        fail_msg("ply %d %s: outcome %d: %s", inv->ply + 1, token, r.outcome, r.detail);
    assert_int_equal(r.game.ply, inv->ply + 1);
    assert_string_equal(r.game.fen, inv->fens[inv->ply]);
    if (inv->ply + 1 < INVENTOR_PLIES)
        assert_int_equal(r.game.status, DB_GAME_ACTIVE);
    games_result_clear(&r);
    inv->ply++;
    return 0;
}

static void test_games_inventor_game_to_mate(void **state)
{
    static struct inventor inv;
    struct pair g;
    size_t len;
    struct games_result r;
    struct games_analysis a;
    enum rules_result expected;
    enum db_termination how;
    char events[4096], expected_events[4096] = "game_start", before[SNAPSHOT_SIZE];
    (void)state;
    memset(&inv, 0, sizeof inv);
    new_game("korpalski", 0, true, &g);
    inv.g = &g;
    read_fens(&inv);
    char *text = test_file_read(data_dir, "inventor-sample.pgn", &len);
    struct rules_pgn_reader reader = { on_tag, on_move, NULL, &inv };
    assert_int_equal(rules_pgn_read(text, len, &reader), 0);
    free(text);
    assert_int_equal(inv.ply, INVENTOR_PLIES);

    /* The record's own words: Result "0-1", Termination "checkmate". */
    assert_true(rules_result_parse(inv.result, &expected));
    assert_int_equal(expected, RULES_RESULT_BLACK_WINS);
    assert_true(db_termination_parse(inv.termination, &how));
    struct db_game game = read_game(g.game);
    assert_finished(&game, expected, how, INVENTOR_PLIES);
    assert_string_equal(game.fen, inv.fens[INVENTOR_PLIES - 1]);
    assert_string_equal(game.deadline, "");
    assert_true(games_analyse(&game, &a));
    assert_int_equal(a.report.status, RULES_CHECKMATE);
    assert_int_equal(a.to_move, RULES_WHITE);
    assert_false(a.threefold_claimable);
    games_analysis_clear(&a);
    db_game_clear(&game);
    for (int i = 0; i < INVENTOR_PLIES; i++)
        strcat(expected_events, " move");
    strcat(expected_events, " game_end");
    events_of(g.game, g.white.id, events, sizeof events);
    assert_string_equal(events, expected_events);
    assert_event_field(&g, "game_end", "result", "0-1");
    assert_event_field(&g, "game_end", "termination", "checkmate");
    assert_event_field(&g, "move", "san", "Qxb2#");

    /* Over: every change is refused, nothing written. */
    snapshot(g.game, before, sizeof before);
    games_move(pool, g.white.id, g.game, "Kxb2", -1, NULL, NULL, &r);
    assert_refused(&r, GAMES_GAME_OVER);
    assert_int_equal(r.game.result, RULES_RESULT_BLACK_WINS);
    games_result_clear(&r);
    games_resign(pool, g.white.id, g.game, &r);
    assert_refused(&r, GAMES_GAME_OVER);
    games_result_clear(&r);
    games_draw(pool, g.black.id, g.game, GAMES_DRAW_OFFER, &r);
    assert_refused(&r, GAMES_GAME_OVER);
    games_result_clear(&r);
    games_claim(pool, g.white.id, g.game, GAMES_CLAIM_THREEFOLD, NULL, &r);
    assert_refused(&r, GAMES_GAME_OVER);
    games_result_clear(&r);
    games_adjudicate(pool, g.game, RULES_RESULT_DRAW, "no", &r);
    assert_refused(&r, GAMES_GAME_OVER);
    games_result_clear(&r);
    assert_unchanged(g.game, before);

    struct db_player w = read_player(g.white.id), b = read_player(g.black.id);
    assert_int_equal(w.lost, 1);
    assert_int_equal(b.won, 1);
    assert_int_equal(b.quarter_points, 4);
}

/* ---- Claims ------------------------------------------------------------------ */

/* A claim that does not hold: answered, not accepted, nothing written. */
static void assert_claim_rejected(const struct pair *g, int ply, enum games_claim kind,
                                  const char *move)
{
    char before[SNAPSHOT_SIZE];
    struct games_result r;
    snapshot(g->game, before, sizeof before);
    games_claim(pool, to_move(g, ply)->id, g->game, kind, move, &r);
    if (r.outcome != GAMES_OK)
        fail_msg("claim: outcome %d: %s %s", r.outcome, r.detail, r.err.text);
    assert_false(r.claim_accepted);
    assert_true(r.detail[0] != '\0');
    assert_int_equal(r.game.status, DB_GAME_ACTIVE);
    games_result_clear(&r);
    assert_unchanged(g->game, before);
}

/* A claim that holds: drawn at that ply (a move sent with it not played). */
static void assert_claim_accepted(const struct pair *g, int ply, enum games_claim kind,
                                  const char *move, const char *events)
{
    char fen[DB_FEN_SIZE];
    struct games_result r;
    struct db_game game = read_game(g->game);
    snprintf(fen, sizeof fen, "%s", game.fen);
    db_game_clear(&game);
    games_claim(pool, to_move(g, ply)->id, g->game, kind, move, &r);
    if (r.outcome != GAMES_OK)
        fail_msg("claim: outcome %d: %s %s", r.outcome, r.detail, r.err.text);
    assert_true(r.claim_accepted);
    assert_int_equal(r.game.status, DB_GAME_FINISHED);
    assert_int_equal(r.game.result, RULES_RESULT_DRAW);
    assert_int_equal(r.game.termination,
                     kind == GAMES_CLAIM_THREEFOLD ? DB_END_THREEFOLD : DB_END_FIFTY_MOVE);
    assert_int_equal(r.game.ply, ply);
    assert_string_equal(r.game.fen, fen);
    games_result_clear(&r);
    game = read_game(g->game);
    assert_int_equal(game.ply, ply);
    assert_int_equal(game.status, DB_GAME_FINISHED);
    assert_string_equal(game.fen, fen);
    db_game_clear(&game);
    const char *p[1] = { g->game };
    assert_int_equal(sql_count("SELECT count(*) FROM moves WHERE game_id = $1", 1, p), ply);
    char mine[8192];
    events_of(g->game, g->white.id, mine, sizeof mine);
    size_t n = strlen(mine), e = strlen(events);
    assert_true(n >= e);
    assert_string_equal(mine + n - e, events);
    assert_event_field(g, "claim", "claim",
                       kind == GAMES_CLAIM_THREEFOLD ? "threefold" : "fifty-move");
    assert_event_field(g, "game_end", "result", "1/2-1/2");
}

static void analyse(const struct pair *g, struct games_analysis *a)
{
    struct db_game game = read_game(g->game);
    assert_true(games_analyse(&game, a));
    db_game_clear(&game);
}

static void test_games_claim_threefold(void **state)
{
    struct pair g, h;
    struct db_player stranger;
    struct games_result r;
    struct games_analysis a;
    char before[SNAPSHOT_SIZE];
    (void)state;
    new_game("korpalski", 0, true, &g);
    new_player(&stranger, NULL, 0);
    shuffle_to(&g, 0, 8);

    /* After ply 8 the position of ply 4 stands for the second time: the
     * drops reset the list of positions, so ply 4 is its only earlier one. */
    analyse(&g, &a);
    assert_int_equal(a.earlier_count, 1);
    assert_int_equal(a.earlier[0], 4);
    assert_false(a.threefold_claimable);
    assert_false(a.fifty_move_claimable);
    assert_int_equal(a.to_move, RULES_WHITE);
    assert_int_equal(a.report.status, RULES_ONGOING);
    games_analysis_clear(&a);
    assert_claim_rejected(&g, 8, GAMES_CLAIM_THREEFOLD, NULL);
    /* Ng1 would make the position of ply 5 a second time, not a third. */
    assert_claim_rejected(&g, 8, GAMES_CLAIM_THREEFOLD, "Ng1");
    assert_claim_rejected(&g, 8, GAMES_CLAIM_FIFTY_MOVE, NULL);

    snapshot(g.game, before, sizeof before);
    games_claim(pool, g.white.id, "nosuchgame", GAMES_CLAIM_THREEFOLD, NULL, &r);
    assert_refused(&r, GAMES_NOT_FOUND);
    games_claim(pool, stranger.id, g.game, GAMES_CLAIM_THREEFOLD, NULL, &r);
    assert_refused(&r, GAMES_FORBIDDEN);
    games_result_clear(&r);
    games_claim(pool, g.black.id, g.game, GAMES_CLAIM_THREEFOLD, NULL, &r);
    assert_refused(&r, GAMES_NOT_YOUR_TURN);
    games_result_clear(&r);
    /* The knight on f3 cannot reach h5. */
    games_claim(pool, g.white.id, g.game, GAMES_CLAIM_THREEFOLD, "Nh5", &r);
    assert_refused(&r, GAMES_ILLEGAL);
    assert_int_equal(r.reason, RULES_REASON_CANNOT_REACH);
    games_result_clear(&r);
    games_claim(pool, g.white.id, g.game, GAMES_CLAIM_THREEFOLD, "N@d6", &r);
    assert_refused(&r, GAMES_ILLEGAL);
    assert_int_equal(r.reason, RULES_REASON_DROP_GIVES_CHECK);
    games_result_clear(&r);
    assert_unchanged(g.game, before);

    /* Ng1 Ng8 Nf3: now Nf6 would make the position of plies 4 and 8 a
     * third time.  Black claims with it; the move is not played. */
    shuffle_to(&g, 8, 11);
    assert_claim_rejected(&g, 11, GAMES_CLAIM_THREEFOLD, NULL);
    assert_claim_rejected(&g, 11, GAMES_CLAIM_THREEFOLD, "Nh6");
    assert_claim_accepted(&g, 11, GAMES_CLAIM_THREEFOLD, "Nf6", "move claim game_end");
    games_claim(pool, g.black.id, g.game, GAMES_CLAIM_THREEFOLD, "Nf6", &r);
    assert_refused(&r, GAMES_GAME_OVER);
    games_result_clear(&r);

    /* Played instead: after ply 12 White claims without a move. */
    new_game("korpalski", 0, true, &h);
    shuffle_to(&h, 0, 12);
    analyse(&h, &a);
    assert_int_equal(a.earlier_count, 2);
    assert_int_equal(a.earlier[0], 4);
    assert_int_equal(a.earlier[1], 8);
    assert_true(a.threefold_claimable);
    assert_false(a.fifty_move_claimable);
    games_analysis_clear(&a);
    assert_claim_accepted(&h, 12, GAMES_CLAIM_THREEFOLD, NULL, "move claim game_end");
}

static void test_games_claim_fifty_move(void **state)
{
    struct pair g, h, off;
    struct games_analysis a;
    (void)state;
    /* §4.2: the last drop is ply 4 (N@f6); only knight moves follow, so
     * after ply 103 the clock stands at 99, after ply 104 at 100. */
    new_game("korpalski", 0, true, &g);
    shuffle_to(&g, 0, 103);
    analyse(&g, &a);
    assert_int_equal(a.report.halfmove_clock, 99);
    assert_false(a.fifty_move_claimable);
    games_analysis_clear(&a);
    assert_claim_rejected(&g, 103, GAMES_CLAIM_FIFTY_MOVE, NULL);
    /* A drop with the claim would reset the clock. */
    assert_claim_rejected(&g, 103, GAMES_CLAIM_FIFTY_MOVE, "R@a8");
    assert_claim_accepted(&g, 103, GAMES_CLAIM_FIFTY_MOVE, shuffle_move(104),
                          "move claim game_end");

    new_game("korpalski", 0, true, &h);
    shuffle_to(&h, 0, 104);
    analyse(&h, &a);
    assert_int_equal(a.report.halfmove_clock, 100);
    assert_true(a.fifty_move_claimable);
    games_analysis_clear(&a);
    assert_claim_accepted(&h, 104, GAMES_CLAIM_FIFTY_MOVE, NULL, "move claim game_end");

    /* A game played without the rule: 100 plies give no claim (the
     * repetitions still do). */
    new_game("korpalski", 0, false, &off);
    shuffle_to(&off, 0, 104);
    analyse(&off, &a);
    assert_false(a.fifty_move_claimable);
    assert_true(a.threefold_claimable);
    games_analysis_clear(&a);
    assert_claim_rejected(&off, 104, GAMES_CLAIM_FIFTY_MOVE, NULL);
    assert_claim_rejected(&off, 104, GAMES_CLAIM_FIFTY_MOVE, shuffle_move(105));
    assert_claim_accepted(&off, 104, GAMES_CLAIM_THREEFOLD, NULL, "move claim game_end");
}

/* ---- Draw offers ------------------------------------------------------------- */

static void draw(const struct pair *g, const struct db_player *who,
                 enum games_draw_action action, enum db_color offer_after)
{
    struct games_result r;
    games_draw(pool, who->id, g->game, action, &r);
    if (r.outcome != GAMES_OK)
        fail_msg("draw %d: outcome %d: %s %s", action, r.outcome, r.detail, r.err.text);
    assert_int_equal(r.game.draw_offer, offer_after);
    games_result_clear(&r);
    struct db_game game = read_game(g->game);
    assert_int_equal(game.draw_offer, offer_after);
    db_game_clear(&game);
}

static void draw_refused(const struct pair *g, const struct db_player *who,
                         enum games_draw_action action, enum games_outcome outcome)
{
    char before[SNAPSHOT_SIZE];
    struct games_result r;
    snapshot(g->game, before, sizeof before);
    games_draw(pool, who->id, g->game, action, &r);
    assert_refused(&r, outcome);
    games_result_clear(&r);
    assert_unchanged(g->game, before);
}

static void test_games_draw(void **state)
{
    struct pair k, g, h;
    struct db_player stranger;
    struct games_result r;
    char before[SNAPSHOT_SIZE];
    (void)state;
    new_player(&stranger, NULL, 0);

    /* Korpalski §4.4: no agreement while anything is left to drop. */
    new_game("korpalski", 0, true, &k);
    draw_refused(&k, &k.white, GAMES_DRAW_OFFER, GAMES_DRAW_NOT_ALLOWED);
    draw_refused(&k, &k.black, GAMES_DRAW_ACCEPT, GAMES_DRAW_NOT_ALLOWED);
    draw_refused(&k, &k.black, GAMES_DRAW_DECLINE, GAMES_CONFLICT);   /* nothing offered */
    play(&k, 0, "K@e1");
    play(&k, 1, "K@e8");
    draw_refused(&k, &k.black, GAMES_DRAW_OFFER, GAMES_DRAW_NOT_ALLOWED);

    /* Glinski §4: agreement any time. */
    new_game("glinski", 0, true, &g);
    games_draw(pool, g.white.id, "nosuchgame", GAMES_DRAW_OFFER, &r);
    assert_refused(&r, GAMES_NOT_FOUND);
    draw_refused(&g, &stranger, GAMES_DRAW_OFFER, GAMES_FORBIDDEN);
    draw_refused(&g, &g.black, GAMES_DRAW_ACCEPT, GAMES_CONFLICT);
    draw_refused(&g, &g.black, GAMES_DRAW_DECLINE, GAMES_CONFLICT);
    draw(&g, &g.white, GAMES_DRAW_OFFER, DB_COLOR_WHITE);
    assert_events(&g, "game_start draw_offer");
    assert_event_field(&g, "draw_offer", "draw_offer", "white");
    /* Offered again: nothing new. */
    snapshot(g.game, before, sizeof before);
    draw(&g, &g.white, GAMES_DRAW_OFFER, DB_COLOR_WHITE);
    assert_unchanged(g.game, before);
    /* One's own offer is not there to accept or decline. */
    draw_refused(&g, &g.white, GAMES_DRAW_ACCEPT, GAMES_CONFLICT);
    draw_refused(&g, &g.white, GAMES_DRAW_DECLINE, GAMES_CONFLICT);
    draw(&g, &g.black, GAMES_DRAW_DECLINE, DB_COLOR_NONE);
    assert_events(&g, "game_start draw_offer draw_offer");
    assert_event_field(&g, "draw_offer", "draw_offer", "null");

    /* An offer stands through the offerer's own move and lapses when the
     * opponent moves instead of answering. */
    draw(&g, &g.white, GAMES_DRAW_OFFER, DB_COLOR_WHITE);
    play(&g, 0, "e5");
    struct db_game game = read_game(g.game);
    assert_int_equal(game.draw_offer, DB_COLOR_WHITE);
    db_game_clear(&game);
    play(&g, 1, "e6");
    game = read_game(g.game);
    assert_int_equal(game.draw_offer, DB_COLOR_NONE);
    db_game_clear(&game);
    draw_refused(&g, &g.black, GAMES_DRAW_ACCEPT, GAMES_CONFLICT);

    /* Black offers (not on its move), White accepts. */
    draw(&g, &g.black, GAMES_DRAW_OFFER, DB_COLOR_BLACK);
    games_draw(pool, g.white.id, g.game, GAMES_DRAW_ACCEPT, &r);
    assert_int_equal(r.outcome, GAMES_OK);
    assert_finished(&r.game, RULES_RESULT_DRAW, DB_END_AGREEMENT, 2);
    assert_int_equal(r.game.draw_offer, DB_COLOR_NONE);
    games_result_clear(&r);
    assert_events(&g, "game_start draw_offer draw_offer draw_offer move move draw_offer "
                      "game_end");
    assert_event_field(&g, "game_end", "termination", "agreement");
    draw_refused(&g, &g.black, GAMES_DRAW_OFFER, GAMES_GAME_OVER);

    /* Offering back against a standing offer agrees. */
    new_game("glinski", 0, true, &h);
    draw(&h, &h.black, GAMES_DRAW_OFFER, DB_COLOR_BLACK);
    games_draw(pool, h.white.id, h.game, GAMES_DRAW_OFFER, &r);
    assert_int_equal(r.outcome, GAMES_OK);
    assert_int_equal(r.game.status, DB_GAME_FINISHED);
    assert_int_equal(r.game.termination, DB_END_AGREEMENT);
    games_result_clear(&r);
    assert_events(&h, "game_start draw_offer game_end");
}

/* ---- Resignation, abort, adjudication ------------------------------------------ */

static void test_games_resign(void **state)
{
    struct pair g, h;
    struct db_player stranger;
    struct games_result r;
    (void)state;
    new_player(&stranger, NULL, 0);
    new_game("korpalski", 0, true, &g);
    assert_outsiders_refused(games_resign, &g, &stranger);

    /* White resigns before any move. */
    games_resign(pool, g.white.id, g.game, &r);
    assert_int_equal(r.outcome, GAMES_OK);
    assert_finished(&r.game, RULES_RESULT_BLACK_WINS, DB_END_RESIGNATION, 0);
    games_result_clear(&r);
    assert_events(&g, "game_start game_end");
    assert_event_field(&g, "game_end", "result", "0-1");
    assert_event_field(&g, "game_end", "termination", "resignation");
    assert_over(games_resign, &g, &g.black);

    /* Black resigns while White is to move: resigning needs no turn. */
    new_game("glinski", 0, true, &h);
    play(&h, 0, "e5");
    play(&h, 1, "e6");
    games_resign(pool, h.black.id, h.game, &r);
    assert_int_equal(r.outcome, GAMES_OK);
    assert_finished(&r.game, RULES_RESULT_WHITE_WINS, DB_END_RESIGNATION, 2);
    games_result_clear(&r);
    assert_events(&h, "game_start move move game_end");
    struct db_player w = read_player(h.white.id), b = read_player(h.black.id);
    assert_int_equal(w.won, 1);
    assert_int_equal(w.quarter_points, 4);
    assert_int_equal(b.lost, 1);
    assert_int_equal(b.quarter_points, 0);
}

static void test_games_abort(void **state)
{
    struct pair g, h, late;
    struct db_player stranger;
    struct games_result r;
    char before[SNAPSHOT_SIZE];
    (void)state;
    new_player(&stranger, NULL, 0);

    /* Before any move, by the side not to move. */
    new_game("korpalski", 0, true, &g);
    assert_outsiders_refused(games_abort, &g, &stranger);
    games_abort(pool, g.black.id, g.game, &r);
    assert_int_equal(r.outcome, GAMES_OK);
    assert_int_equal(r.game.status, DB_GAME_ABORTED);
    assert_int_equal(r.game.result, RULES_RESULT_NONE);
    assert_int_equal(r.game.termination, DB_END_NONE);
    games_result_clear(&r);
    assert_events(&g, "game_start game_end");
    assert_event_field(&g, "game_end", "status", "aborted");
    assert_over(games_abort, &g, &g.white);
    /* An aborted game counts for nobody. */
    assert_int_equal(read_player(g.white.id).played, 0);

    /* After White's first move, by White. */
    new_game("korpalski", 0, true, &h);
    play(&h, 0, "K@e1");
    games_abort(pool, h.white.id, h.game, &r);
    assert_int_equal(r.outcome, GAMES_OK);
    assert_int_equal(r.game.status, DB_GAME_ABORTED);
    assert_int_equal(r.game.ply, 1);
    games_result_clear(&r);

    /* Once each side has moved, no more. */
    new_game("korpalski", 0, true, &late);
    play(&late, 0, "K@e1");
    play(&late, 1, "K@e8");
    snapshot(late.game, before, sizeof before);
    games_abort(pool, late.black.id, late.game, &r);
    assert_refused(&r, GAMES_CONFLICT);
    games_result_clear(&r);
    games_abort(pool, late.white.id, late.game, &r);
    assert_refused(&r, GAMES_CONFLICT);
    games_result_clear(&r);
    assert_unchanged(late.game, before);
}

static void test_games_adjudicate(void **state)
{
    static const char why[] = "perpetual check shown to the arbiter (rules 4.5)";
    struct pair g, h;
    struct games_result r;
    char before[SNAPSHOT_SIZE];
    (void)state;
    games_adjudicate(pool, "nosuchgame", RULES_RESULT_DRAW, why, &r);
    assert_refused(&r, GAMES_NOT_FOUND);

    new_game("korpalski", 0, true, &g);
    play(&g, 0, "K@e1");
    games_adjudicate(pool, g.game, RULES_RESULT_DRAW, why, &r);
    assert_int_equal(r.outcome, GAMES_OK);
    assert_finished(&r.game, RULES_RESULT_DRAW, DB_END_ADJUDICATION, 1);
    assert_string_equal(r.game.adjudication_reason, why);
    games_result_clear(&r);
    struct db_game game = read_game(g.game);
    assert_string_equal(game.adjudication_reason, why);
    assert_int_equal(game.termination, DB_END_ADJUDICATION);
    db_game_clear(&game);
    assert_events(&g, "game_start move game_end");
    assert_event_field(&g, "game_end", "termination", "adjudication");
    snapshot(g.game, before, sizeof before);
    games_adjudicate(pool, g.game, RULES_RESULT_WHITE_WINS, "again", &r);
    assert_refused(&r, GAMES_GAME_OVER);
    games_result_clear(&r);
    assert_unchanged(g.game, before);

    new_game("glinski", 0, true, &h);
    games_adjudicate(pool, h.game, RULES_RESULT_WHITE_WINS, "black abandoned the game", &r);
    assert_int_equal(r.outcome, GAMES_OK);
    assert_int_equal(r.game.result, RULES_RESULT_WHITE_WINS);
    games_result_clear(&r);
    assert_event_field(&h, "game_end", "result", "1-0");
}

/* ---- Time ------------------------------------------------------------------------ */

/* The sweeper ends an overdue game (ours, or another process's sweeper got
 * there first: the game ends the same way either way). */
static void sweep_and_expect(const struct pair *g, enum rules_result result)
{
    struct base_err err = { "" };
    int ended = games_sweep(pool, &err);
    if (ended < 0)
        fail_msg("sweep: %s", err.text);
    struct db_game game = read_game(g->game);
    assert_int_equal(game.status, DB_GAME_FINISHED);
    assert_int_equal(game.result, result);
    assert_int_equal(game.termination, DB_END_TIMEOUT);
    assert_string_equal(game.deadline, "");
    assert_false(game.overdue);
    db_game_clear(&game);
    assert_event_field(g, "game_end", "termination", "timeout");
}

static void test_games_time_out(void **state)
{
    struct pair start, w_flag, b_flag, late;
    struct games_result r;
    char events[512];
    (void)state;

    /* White to move at the start; Black, with every man in reserve, could
     * mate: 0-1. */
    new_game("korpalski", 0, true, &start);
    make_overdue(start.game);
    sweep_and_expect(&start, RULES_RESULT_BLACK_WINS);
    assert_events(&start, "game_start game_end");
    /* Swept once: the game does not end again. */
    struct base_err err = { "" };
    assert_true(games_sweep(pool, &err) >= 0);
    assert_events(&start, "game_start game_end");

    /* K+Q against a bare king, both reserves empty (§4.1: the bare king
     * can never mate).  White flags: a draw.  Black flags: 1-0. */
    new_game("korpalski", 0, true, &w_flag);
    set_position(w_flag.game, "4k3/8/8/8/8/8/8/3QK3[] w - - 0 40");
    make_overdue(w_flag.game);
    sweep_and_expect(&w_flag, RULES_RESULT_DRAW);
    new_game("korpalski", 0, true, &b_flag);
    set_position(b_flag.game, "4k3/8/8/8/8/8/8/3QK3[] b - - 0 40");
    make_overdue(b_flag.game);
    sweep_and_expect(&b_flag, RULES_RESULT_WHITE_WINS);

    /* A move on an overdue game: the game ends on time first (Black was
     * to move; White's full reserve could mate: 1-0), the move is refused. */
    new_game("korpalski", 0, true, &late);
    play(&late, 0, "K@e1");
    make_overdue(late.game);
    games_move(pool, late.black.id, late.game, "K@e8", 1, NULL, NULL, &r);
    assert_refused(&r, GAMES_GAME_OVER);
    assert_finished(&r.game, RULES_RESULT_WHITE_WINS, DB_END_TIMEOUT, 1);
    games_result_clear(&r);
    struct db_game game = read_game(late.game);
    assert_finished(&game, RULES_RESULT_WHITE_WINS, DB_END_TIMEOUT, 1);
    db_game_clear(&game);
    events_of(late.game, late.white.id, events, sizeof events);
    assert_string_equal(events, "game_start move game_end");
    assert_event_field(&late, "game_end", "result", "1-0");
}

/* ---- Glinski stalemate --------------------------------------------------------- */

static void test_games_glinski_stalemate(void **state)
{
    struct pair g;
    struct games_result r;
    (void)state;
    /*
     * White K f8, pawn b1; Black K f11.  Kf9 (an orthogonal step up the
     * file) leaves Black to move with every neighbour of f11 (f10, e10,
     * g10, e9, g9) next to the king on f9, and f9 itself two steps from
     * f11: not check, no move.  §4: White scores 3/4.  The king move
     * counts toward the halfmove clock: "b - 1 1".
     */
    new_game("glinski", 0, true, &g);
    set_position(g.game, "k/3/5/3K3/9/11/11/11/11/11/1P9 w - 0 1");
    games_move(pool, g.white.id, g.game, "Kf9", 0, NULL, NULL, &r);
    if (r.outcome != GAMES_OK)
        fail_msg("Kf9: %d %s", r.outcome, r.detail);
    assert_finished(&r.game, RULES_RESULT_WHITE_3_4, DB_END_STALEMATE, 1);
    assert_string_equal(r.game.fen, "k/3/2K2/7/9/11/11/11/11/11/1P9 b - 1 1");
    games_result_clear(&r);
    assert_events(&g, "game_start move game_end");
    assert_event_field(&g, "game_end", "result", "3/4-1/4");
    assert_event_field(&g, "game_end", "termination", "stalemate");
    assert_int_equal(read_player(g.white.id).quarter_points, 3);
    assert_int_equal(read_player(g.black.id).quarter_points, 1);
}

/* ---- Hooks ------------------------------------------------------------------------ */

/* The answer a move keeps under its Idempotency-Key, as a test writes it:
 * "ply N", 201 for a move played and 409 for a refusal; `fail` makes it
 * run out of memory instead. */
struct answer_calls {
    bool fail;
    int runs;
    enum games_outcome seen;
};

static char *render_answer(const struct games_result *r, const void *arg, int *status)
{
    struct answer_calls *c = (struct answer_calls *)arg;
    char body[64];
    c->runs++;
    c->seen = r->outcome;
    if (c->fail)
        return NULL;
    *status = r->outcome == GAMES_OK ? 201 : 409;
    snprintf(body, sizeof body, "ply %d", r->game.ply);
    return strdup(body);
}

static struct games_key test_key(const char *token_id, const char *key, const char *path,
                                 struct answer_calls *calls)
{
    struct games_key k = { key, token_id, "POST", path, render_answer, calls, 0, NULL };
    return k;
}

/* The stored answer of a key: "status|body", "" when there is none. */
static void stored_answer(const char *token_id, const char *key, char *out, size_t size)
{
    const char *p[2] = { token_id, key };
    sql_text(out, size,
             "SELECT status || '|' || body FROM idempotency_keys"
             " WHERE token_id = $1 AND key = $2", 2, p);
}

static void test_games_move_key(void **state)
{
    struct pair g;
    struct db_caller caller;
    struct games_result r;
    char token[96], answer[128], before[SNAPSHOT_SIZE], key[3][64], text[600];
    struct base_err err = { "" };
    (void)state;
    new_player(&g.white, token, sizeof token);   /* White's token keys the answers */
    new_player(&g.black, NULL, 0);
    open_game("korpalski", 0, true, &g);
    assert_int_equal(db_caller_find(pool, token, &caller, &err), DB_OK);
    for (int i = 0; i < 3; i++)
        snprintf(key[i], sizeof key[i], "%s-%d", g.game, i);

    /* First use: the move and the stored answer commit together. */
    struct answer_calls first = { false, 0, GAMES_DB_ERROR };
    struct games_key k = test_key(caller.token_id, key[0], "/test/moves", &first);
    games_move(pool, g.white.id, g.game, "K@e1", 0, NULL, &k, &r);
    assert_int_equal(r.outcome, GAMES_OK);
    assert_int_equal(r.game.ply, 1);
    games_result_clear(&r);
    assert_true(first.runs >= 1);
    assert_int_equal(first.seen, GAMES_OK);
    assert_int_equal(k.status, 201);
    assert_string_equal(k.body, "ply 1");
    free(k.body);
    stored_answer(caller.token_id, key[0], answer, sizeof answer);
    assert_string_equal(answer, "201|ply 1");

    /* The same key again: answered before with the stored answer, the
     * game untouched, nothing rendered. */
    snapshot(g.game, before, sizeof before);
    first.runs = 0;
    k = test_key(caller.token_id, key[0], "/test/moves", &first);
    games_move(pool, g.black.id, g.game, "K@e8", 1, NULL, &k, &r);
    assert_refused(&r, GAMES_ANSWERED_BEFORE);
    games_result_clear(&r);
    assert_int_equal(first.runs, 0);
    assert_int_equal(k.status, 201);
    assert_string_equal(k.body, "ply 1");
    free(k.body);
    assert_unchanged(g.game, before);

    /* The same key for another request (another path): refused, no answer. */
    k = test_key(caller.token_id, key[0], "/test/other", &first);
    games_move(pool, g.black.id, g.game, "K@e8", 1, NULL, &k, &r);
    assert_refused(&r, GAMES_KEY_REUSED);
    games_result_clear(&r);
    assert_null(k.body);
    assert_int_equal(first.runs, 0);
    assert_unchanged(g.game, before);

    /* A refusal is an answer too, and it is kept with the key. */
    struct answer_calls refused = { false, 0, GAMES_OK };
    k = test_key(caller.token_id, key[1], "/test/moves", &refused);
    games_move(pool, g.white.id, g.game, "K@a1", 1, NULL, &k, &r);
    assert_refused(&r, GAMES_NOT_YOUR_TURN);
    games_result_clear(&r);
    assert_int_equal(refused.seen, GAMES_NOT_YOUR_TURN);
    assert_int_equal(k.status, 409);
    free(k.body);
    assert_unchanged(g.game, before);
    stored_answer(caller.token_id, key[1], answer, sizeof answer);
    assert_string_equal(answer, "409|ply 1");

    /* An answer that cannot be written undoes the move and the key's claim. */
    struct answer_calls failing = { true, 0, GAMES_DB_ERROR };
    k = test_key(caller.token_id, key[2], "/test/moves", &failing);
    games_move(pool, g.black.id, g.game, "K@e8", 1, "ignored", &k, &r);
    assert_int_equal(r.outcome, GAMES_DB_ERROR);
    assert_int_equal(r.db, DB_HARD_ERROR);
    assert_non_null(strstr(r.err.text, "out of memory"));
    games_result_clear(&r);
    assert_null(k.body);
    assert_int_equal(failing.seen, GAMES_OK);   /* the move itself was fine */
    assert_unchanged(g.game, before);
    stored_answer(caller.token_id, key[2], answer, sizeof answer);
    assert_string_equal(answer, "");
    const char *id[1] = { g.game };
    sql_text(text, sizeof text, "SELECT count(*) FROM game_messages WHERE game_id = $1", 1, id);
    assert_string_equal(text, "0");

    /* Without a key, a message sent with the move is kept at the move's
     * ply (the plies played once it is made), in its transaction. */
    games_move(pool, g.black.id, g.game, "K@e8", 1, "good luck", NULL, &r);
    assert_int_equal(r.outcome, GAMES_OK);
    assert_int_equal(r.game.ply, 2);
    games_result_clear(&r);
    sql_text(text, sizeof text, "SELECT string_agg(ply || '|' || text, ',') FROM game_messages"
             " WHERE game_id = $1", 1, id);
    assert_string_equal(text, "2|good luck");
    /* A message with a refused move is not sent. */
    games_move(pool, g.black.id, g.game, "K@e8", 2, "not mine to send", NULL, &r);
    assert_refused(&r, GAMES_NOT_YOUR_TURN);
    games_result_clear(&r);
    sql_text(text, sizeof text, "SELECT count(*) FROM game_messages WHERE game_id = $1", 1, id);
    assert_string_equal(text, "1");
}

/* ---- The analysis of an unreadable row --------------------------------------------- */

static void test_games_analyse_bad_position(void **state)
{
    struct db_game game;
    struct games_analysis a;
    (void)state;
    memset(&game, 0, sizeof game);
    game.variant = db_variant_parse("korpalski");
    snprintf(game.fen, sizeof game.fen, "garbage");
    assert_false(games_analyse(&game, &a));
    games_analysis_clear(&a);
    game.variant = NULL;
    snprintf(game.fen, sizeof game.fen, "%s", korpalski_start);
    assert_false(games_analyse(&game, &a));
    games_analysis_clear(&a);
}

static int setup(void **state)
{
    struct base_err err = { "" };
    struct db_pool_config config = { url, 2, 0, false };
    (void)state;
    rules_init();
    games_ratings_set_period(7);   /* the default, set as korpd sets it */
    pool = db_pool_new(&config, &err);
    if (pool == NULL) {
        fprintf(stderr, "db_pool_new: %s\n", err.text);
        return -1;
    }
    if (db_migrate(pool, &err) != DB_OK) {
        fprintf(stderr, "db_migrate: %s\n", err.text);
        return -1;
    }
    conn = PQconnectdb(url);
    if (PQstatus(conn) != CONNECTION_OK) {
        fprintf(stderr, "connect: %s\n", PQerrorMessage(conn));
        return -1;
    }
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    PQfinish(conn);
    db_pool_free(pool);
    return 0;
}

/* A challenge as api/ fills one: korpalski, White for the challenger. */
static void challenge_of(const struct db_player *challenger, const char *opponent_id,
                         struct db_challenge *c)
{
    memset(c, 0, sizeof *c);
    c->variant = db_variant_parse("korpalski");
    snprintf(c->challenger_id, sizeof c->challenger_id, "%s", challenger->id);
    snprintf(c->opponent_id, sizeof c->opponent_id, "%s", opponent_id);
    c->color = DB_COLOR_WHITE;
    c->fifty_move_rule = true;
    c->rated = true;
}

static void test_games_challenge_create(void **state)
{
    struct db_player a, b, busy;
    struct db_challenge c, first;
    struct games_result r;
    (void)state;
    new_player(&a, NULL, 0);
    new_player(&b, NULL, 0);
    new_player(&busy, NULL, 0);

    /* Made: read back as stored, names and all, and told to both. */
    challenge_of(&a, b.id, &first);
    games_challenge_create(pool, &first, 0, &r);
    assert_ok_clear(&r);
    assert_true(first.id[0] != '\0');
    assert_int_equal(first.status, DB_CHALLENGE_OPEN);
    assert_string_equal(first.challenger_name, a.name);
    assert_string_equal(first.opponent_name, b.name);
    assert_true(first.created_at[0] != '\0');
    const char *p[1] = { first.id };
    assert_int_equal(sql_count("SELECT count(*) FROM events WHERE payload->>'challenge_id' = $1"
                               " AND type = 'challenge'", 1, p), 2);

    /* One at a time to each opponent; the refusal names the open one. */
    challenge_of(&a, b.id, &c);
    games_challenge_create(pool, &c, 0, &r);
    assert_refused(&r, GAMES_CONFLICT);
    assert_non_null(strstr(r.detail, first.id));
    games_result_clear(&r);
    /* No such opponent. */
    challenge_of(&a, "nosuchplayer", &c);
    games_challenge_create(pool, &c, 0, &r);
    assert_refused_clear(&r, GAMES_NOT_FOUND);
    /* One a day: the next waits until the first is 24 hours old. */
    challenge_of(&a, "", &c);
    games_challenge_create(pool, &c, 1, &r);
    assert_refused(&r, GAMES_DAILY_LIMIT);
    assert_true(r.retry_after > 0 && r.retry_after <= 86400);
    games_result_clear(&r);

    /* Ten open to anyone at most. */
    for (int i = 0; i < GAMES_OPEN_CHALLENGES_MAX; i++) {
        challenge_of(&busy, "", &c);
        games_challenge_create(pool, &c, 0, &r);
        assert_ok_clear(&r);
    }
    challenge_of(&busy, "", &c);
    games_challenge_create(pool, &c, 0, &r);
    assert_refused(&r, GAMES_CONFLICT);
    assert_non_null(strstr(r.detail, "10 open challenges"));
    games_result_clear(&r);
    /* ... which leaves challenges to one player free. */
    challenge_of(&busy, a.id, &c);
    games_challenge_create(pool, &c, 0, &r);
    assert_ok_clear(&r);
}

/* ---- Conditional moves ------------------------------------------------------ */

/* Lines given as "move move ...|move move ..." (a '|' between lines). */
static void set_lines(struct games_lines *l, const char *text, int expect_ply)
{
    char copy[512], *save_line = NULL;
    memset(l, 0, sizeof *l);
    l->expect_ply = expect_ply;
    snprintf(copy, sizeof copy, "%s", text);
    for (char *line = strtok_r(copy, "|", &save_line); line != NULL;
         line = strtok_r(NULL, "|", &save_line)) {
        char *save = NULL;
        for (char *m = strtok_r(line, " ", &save); m != NULL; m = strtok_r(NULL, " ", &save))
            snprintf(l->move[l->count][l->length[l->count]++], RULES_MOVE_TEXT_MAX, "%s", m);
        l->count++;
    }
}

/* The lines as "move move ...|...", as games/ answers them (SAN). */
static void lines_text(const struct games_lines *l, char *out, size_t size)
{
    size_t used = 0;
    out[0] = '\0';
    for (int i = 0; i < l->count; i++)
        for (int k = 0; k < l->length[i]; k++)
            used += (size_t)snprintf(out + used, size - used, "%s%s",
                                     k > 0 ? " " : i > 0 ? "|" : "", l->move[i][k]);
    assert_true(used < size);
}

static void test_games_conditional(void **state)
{
    struct pair g;
    struct db_player stranger;
    struct games_result r;
    struct games_lines *l = calloc(1, sizeof *l);
    char text[256], before[SNAPSHOT_SIZE];
    (void)state;
    assert_non_null(l);
    new_game("korpalski", 0, true, &g);
    new_player(&stranger, NULL, 0);

    /* Black, while White is to move: if White drops the king on e1, the
     * black king goes to e8 (not next to it: legal, korpalski.md). */
    set_lines(l, "K@e1 K@e8", 0);
    games_conditional_put(pool, g.black.id, g.game, l, &r);
    assert_ok_clear(&r);
    assert_int_equal(l->ply, 0);
    lines_text(l, text, sizeof text);
    assert_string_equal(text, "K@e1 K@e8");

    /* Refusals, none of which touches the stored lines or the game. */
    snapshot(g.game, before, sizeof before);
    set_lines(l, "N@f3 N@f6", 0);   /* White is to move: not while it is one's turn */
    games_conditional_put(pool, g.white.id, g.game, l, &r);
    assert_refused_clear(&r, GAMES_CONFLICT);
    set_lines(l, "K@e1 K@e8", 3);   /* three plies believed played, none was */
    games_conditional_put(pool, g.black.id, g.game, l, &r);
    assert_refused_clear(&r, GAMES_PLY_MISMATCH);
    /* A drop onto the square of the white king: illegal (drops go onto
     * empty squares only), line 0, move 1. */
    set_lines(l, "K@e1 K@e1", 0);
    games_conditional_put(pool, g.black.id, g.game, l, &r);
    assert_refused_clear(&r, GAMES_ILLEGAL);
    assert_int_equal(l->bad_line, 0);
    assert_int_equal(l->bad_index, 1);
    /* Two lines that answer K@e1 differently. */
    set_lines(l, "K@e1 K@e8|K@e1 K@d8", 0);
    games_conditional_put(pool, g.black.id, g.game, l, &r);
    assert_refused_clear(&r, GAMES_LINES_DISAGREE);
    assert_true(l->conflict);
    assert_int_equal(l->bad_line, 1);
    assert_int_equal(l->bad_index, 1);
    /* One who does not play the game, or no such game: not told which. */
    set_lines(l, "K@e1 K@e8", 0);
    games_conditional_put(pool, stranger.id, g.game, l, &r);
    assert_refused_clear(&r, GAMES_NOT_YOURS);
    games_conditional_put(pool, g.black.id, "nosuchgame", l, &r);
    assert_refused_clear(&r, GAMES_NOT_YOURS);
    games_conditional_get(pool, stranger.id, g.game, l, &r);
    assert_refused_clear(&r, GAMES_NOT_YOURS);
    games_conditional_delete(pool, stranger.id, g.game, &r);
    assert_refused_clear(&r, GAMES_NOT_YOURS);
    assert_unchanged(g.game, before);

    /* The lines are the first ones still, and Black's alone. */
    games_conditional_get(pool, g.black.id, g.game, l, &r);
    assert_ok_clear(&r);
    lines_text(l, text, sizeof text);
    assert_string_equal(text, "K@e1 K@e8");
    games_conditional_get(pool, g.white.id, g.game, l, &r);
    assert_ok_clear(&r);
    assert_int_equal(l->count, 0);

    /* White plays K@e1: Black's reply is played in the same transaction,
     * and the line is used up. */
    games_move(pool, g.white.id, g.game, "K@e1", 0, NULL, NULL, &r);
    assert_int_equal(r.outcome, GAMES_OK);
    assert_int_equal(r.game.ply, 2);
    games_result_clear(&r);
    assert_events(&g, "game_start move move");
    games_conditional_get(pool, g.black.id, g.game, l, &r);
    assert_ok_clear(&r);
    assert_int_equal(l->count, 0);
    assert_int_equal(l->ply, 2);

    /* Set, then removed. */
    set_lines(l, "N@f3 N@f6", 2);
    games_conditional_put(pool, g.black.id, g.game, l, &r);
    assert_ok_clear(&r);
    games_conditional_delete(pool, g.black.id, g.game, &r);
    assert_ok_clear(&r);
    games_conditional_get(pool, g.black.id, g.game, l, &r);
    assert_ok_clear(&r);
    assert_int_equal(l->count, 0);
    free(l);
}

/* ---- Messages ------------------------------------------------------------------ */

static void test_games_message_valid(void **state)
{
    char why[160], text[2 * GAMES_MESSAGE_CHARS + 2];
    (void)state;
    assert_true(games_message_valid("good game", why, sizeof why));
    assert_true(games_message_valid("two\nlines", why, sizeof why));
    assert_false(games_message_valid("", why, sizeof why));
    assert_non_null(strstr(why, "1 to 500 characters"));
    assert_false(games_message_valid("tab\there", why, sizeof why));
    assert_non_null(strstr(why, "control character"));
    assert_false(games_message_valid("del\x7f", why, sizeof why));
    assert_false(games_message_valid("next line \xc2\x85", why, sizeof why));   /* C1 NEL */
    assert_false(games_message_valid("cut \xc3", why, sizeof why));
    assert_non_null(strstr(why, "not valid UTF-8"));
    /* 500 characters of two bytes each are 500 characters, not 1000. */
    for (int i = 0; i < GAMES_MESSAGE_CHARS; i++)
        memcpy(text + 2 * i, "\xc3\xa9", 2);
    text[2 * GAMES_MESSAGE_CHARS] = '\0';
    assert_true(games_message_valid(text, why, sizeof why));
    memset(text, 'a', GAMES_MESSAGE_CHARS + 1);
    text[GAMES_MESSAGE_CHARS + 1] = '\0';
    assert_false(games_message_valid(text, why, sizeof why));
    assert_non_null(strstr(why, "not 501"));
}

static void test_games_message_send(void **state)
{
    struct pair g;
    struct db_player stranger;
    struct games_result r;
    char *json = NULL, count[16];
    (void)state;
    new_game("korpalski", 0, true, &g);
    new_player(&stranger, NULL, 0);

    games_message_send(pool, g.black.id, g.game, "good luck", &json, &r);
    assert_ok_clear(&r);
    assert_non_null(json);
    assert_non_null(strstr(json, "\"good luck\""));
    free(json);

    games_message_send(pool, stranger.id, g.game, "hello", &json, &r);
    assert_refused(&r, GAMES_FORBIDDEN);
    assert_null(json);
    games_result_clear(&r);
    games_message_send(pool, g.white.id, "nosuchgame", "hello", &json, &r);
    assert_refused(&r, GAMES_NOT_FOUND);
    assert_null(json);
    games_result_clear(&r);

    /* GAMES_MESSAGES_PER_DAY a day each: Black's 20th passes, the 21st not. */
    for (int i = 2; i <= GAMES_MESSAGES_PER_DAY; i++) {
        games_message_send(pool, g.black.id, g.game, "again", &json, &r);
        assert_ok_clear(&r);
        free(json);
    }
    games_message_send(pool, g.black.id, g.game, "one too many", &json, &r);
    assert_refused(&r, GAMES_DAILY_LIMIT);
    assert_null(json);
    games_result_clear(&r);
    const char *p[2] = { g.game, g.black.id };
    sql_text(count, sizeof count,
             "SELECT count(*) FROM game_messages WHERE game_id = $1 AND player_id = $2", 2, p);
    assert_int_equal(atoi(count), GAMES_MESSAGES_PER_DAY);
    /* White's own count is apart. */
    games_message_send(pool, g.white.id, g.game, "thanks", &json, &r);
    assert_ok_clear(&r);
    free(json);
}

static void test_games_note_put(void **state)
{
    struct pair g;
    struct db_player stranger;
    struct games_result r;
    char updated_at[DB_TIME_SIZE] = "", text[64];
    (void)state;
    new_game("korpalski", 0, true, &g);
    new_player(&stranger, NULL, 0);

    games_note_put(pool, g.white.id, g.game, "watch the f-file", updated_at, &r);
    assert_ok_clear(&r);
    assert_true(updated_at[0] != '\0');
    const char *p[2] = { g.game, g.white.id };
    sql_text(text, sizeof text, "SELECT text FROM game_notes WHERE game_id = $1"
             " AND player_id = $2", 2, p);
    assert_string_equal(text, "watch the f-file");
    /* A note is its author's: one who does not play the game is not told it exists. */
    games_note_put(pool, stranger.id, g.game, "mine", updated_at, &r);
    assert_refused_clear(&r, GAMES_NOT_YOURS);
    games_note_put(pool, g.white.id, "nosuchgame", "mine", updated_at, &r);
    assert_refused_clear(&r, GAMES_NOT_YOURS);
}

/* ---- Give-time and leave ---------------------------------------------------- */

static long long deadline_epoch(const char *game_id)
{
    const char *p[1] = { game_id };
    return sql_count("SELECT extract(epoch FROM deadline)::bigint FROM games WHERE id = $1", 1,
                     p);
}

static void test_games_give_time(void **state)
{
    struct pair g, untimed;
    struct db_player stranger;
    struct games_result r;
    char before[SNAPSHOT_SIZE];
    (void)state;
    new_game("korpalski", 3, true, &g);
    new_game("korpalski", 0, true, &untimed);
    new_player(&stranger, NULL, 0);

    long long deadline = deadline_epoch(g.game);
    snapshot(g.game, before, sizeof before);
    games_give_time(pool, g.white.id, g.game, 2, &r);   /* White is to move */
    assert_refused_clear(&r, GAMES_CONFLICT);
    games_give_time(pool, stranger.id, g.game, 2, &r);
    assert_refused_clear(&r, GAMES_FORBIDDEN);
    games_give_time(pool, g.black.id, "nosuchgame", 2, &r);
    assert_refused_clear(&r, GAMES_NOT_FOUND);
    assert_unchanged(g.game, before);
    games_give_time(pool, untimed.black.id, untimed.game, 2, &r);
    assert_refused_clear(&r, GAMES_CONFLICT);

    /* Black gives White, to move, two days: the deadline moves by 2 * 86400 s. */
    games_give_time(pool, g.black.id, g.game, 2, &r);
    assert_ok_clear(&r);
    assert_int_equal(deadline_epoch(g.game) - deadline, 2 * 86400);

    games_resign(pool, g.white.id, g.game, &r);
    assert_ok_clear(&r);
    games_give_time(pool, g.black.id, g.game, 2, &r);
    assert_refused_clear(&r, GAMES_GAME_OVER);
}

/* A day n days from today (UTC, by korpd's clock), "YYYY-MM-DD". */
static void day_ahead(int n, char *out, size_t size)
{
    char ahead[16];
    const char *p[1] = { ahead };
    snprintf(ahead, sizeof ahead, "%d", n);
    sql_text(out, size, "SELECT to_char((korp_now() AT TIME ZONE 'UTC')::date + $1::int,"
             " 'YYYY-MM-DD')", 1, p);
}

static void test_games_leave(void **state)
{
    struct db_player p, other;
    struct games_leave l, booked;
    struct games_result r;
    char start[16], later[16], far[16], past[16];
    (void)state;
    new_player(&p, NULL, 0);
    new_player(&other, NULL, 0);
    day_ahead(10, start, sizeof start);
    day_ahead(11, later, sizeof later);
    day_ahead(366, far, sizeof far);
    day_ahead(-1, past, sizeof past);

    games_leave_book(pool, p.id, start, 3, 30, &booked, &r);
    assert_ok_clear(&r);
    assert_true(booked.booking.id[0] != '\0');
    assert_int_equal(booked.booking.days, 3);

    /* Day 11 lies inside days 10-12. */
    games_leave_book(pool, p.id, later, 1, 30, &l, &r);
    assert_refused(&r, GAMES_CONFLICT);
    assert_non_null(strstr(r.detail, "overlap"));
    games_result_clear(&r);
    /* Today up to 365 days ahead, no more, no less. */
    games_leave_book(pool, p.id, far, 1, 30, &l, &r);
    assert_refused_clear(&r, GAMES_DAY_OUT_OF_RANGE);
    games_leave_book(pool, p.id, past, 1, 30, &l, &r);
    assert_refused_clear(&r, GAMES_DAY_OUT_OF_RANGE);
    /* With no allowance, any day is over it: the year of the day, 0 left. */
    games_leave_book(pool, other.id, start, 1, 0, &l, &r);
    assert_refused_clear(&r, GAMES_LEAVE_EXCEEDED);
    assert_int_equal(l.year, atoi(start));
    assert_int_equal(l.left, 0);

    /* Only its owner cancels a booking; one not started goes away. */
    games_leave_cancel(pool, other.id, booked.booking.id, &r);
    assert_refused_clear(&r, GAMES_NOT_FOUND);
    games_leave_cancel(pool, p.id, booked.booking.id, &r);
    assert_ok_clear(&r);
    games_leave_cancel(pool, p.id, booked.booking.id, &r);
    assert_refused_clear(&r, GAMES_NOT_FOUND);
    /* Its days are free again. */
    games_leave_book(pool, p.id, later, 1, 30, &l, &r);
    assert_ok_clear(&r);
}

/* ---- The arbiter's queue -------------------------------------------------------- */

/* White: king e1, queen a1; Black: king e8; White to move, every other man
 * in hand.  The queen checks from a4 (a4-e8), b3 (b3-f7) and b4 (b4-f8),
 * and the black king walks e8-f7-f8-e8 between: a perpetual check. */
static const char perpetual_fen[] =
    "4k3/8/8/8/8/8/8/Q3K3[RRBBNNPPPPPPPPqrrbbnnpppppppp] w - - 0 3";
static const char perpetual_cycle[] = "Qa4+ Kf7 Qb3+ Kf8 Qb4+ Ke8 ";

static void queue_status(const char *item_id, char *out, size_t size)
{
    const char *p[1] = { item_id };
    sql_text(out, size, "SELECT status || '|' || kind FROM arbiter_queue WHERE id = $1", 1, p);
}

static void test_games_perpetual_claim(void **state)
{
    struct pair g;
    struct games_result r;
    char claim_id[BASE_ID_SIZE] = "", status[64], line[512] = "";
    bool not_check = true;
    (void)state;
    new_game("korpalski", 0, true, &g);
    set_position(g.game, perpetual_fen);

    games_perpetual_claim(pool, g.white.id, g.game, "Qa4+ Kf7 Qb3+", &not_check, claim_id, &r);
    assert_int_equal(r.outcome, GAMES_OK);
    assert_int_equal(r.game.ply, 0);   /* the game goes on: nothing played */
    games_result_clear(&r);
    assert_false(not_check);
    queue_status(claim_id, status, sizeof status);
    assert_string_equal(status, "open|perpetual");

    /* Refused lines: queued nowhere. */
    games_perpetual_claim(pool, g.white.id, g.game, "Qa2 Kf7", &not_check, claim_id, &r);
    assert_refused(&r, GAMES_CLAIM_LINE_REFUSED);
    assert_true(not_check);
    assert_non_null(strstr(r.detail, "move 1"));
    games_result_clear(&r);
    games_perpetual_claim(pool, g.white.id, g.game, "Qa4+ Ke1", &not_check, claim_id, &r);
    assert_refused(&r, GAMES_CLAIM_LINE_REFUSED);
    assert_false(not_check);
    assert_non_null(strstr(r.detail, "move 2"));
    games_result_clear(&r);
    games_perpetual_claim(pool, g.white.id, g.game, "  ", &not_check, claim_id, &r);
    assert_refused_clear(&r, GAMES_CLAIM_LINE_REFUSED);
    /* 66 legal moves, all checks: over the 64 a line may have. */
    for (int i = 0; i < 11; i++)
        strcat(line, perpetual_cycle);
    games_perpetual_claim(pool, g.white.id, g.game, line, &not_check, claim_id, &r);
    assert_refused(&r, GAMES_CLAIM_LINE_REFUSED);
    assert_non_null(strstr(r.detail, "longer than 64"));
    games_result_clear(&r);
    /* Only on one's turn. */
    games_perpetual_claim(pool, g.black.id, g.game, "Kf7", &not_check, claim_id, &r);
    assert_refused_clear(&r, GAMES_NOT_YOUR_TURN);
}

static void test_games_arbiter_request(void **state)
{
    struct pair g;
    struct db_player stranger;
    struct games_result r;
    char request_id[BASE_ID_SIZE] = "", other_id[BASE_ID_SIZE] = "", status[64];
    (void)state;
    new_game("korpalski", 0, true, &g);
    new_player(&stranger, NULL, 0);

    games_arbiter_request(pool, g.black.id, g.game, "please look at the clock", request_id, &r);
    assert_ok_clear(&r);
    queue_status(request_id, status, sizeof status);
    assert_string_equal(status, "open|request");
    games_arbiter_request(pool, stranger.id, g.game, "me too", other_id, &r);
    assert_refused_clear(&r, GAMES_FORBIDDEN);
    games_arbiter_request(pool, g.black.id, "nosuchgame", "here", other_id, &r);
    assert_refused_clear(&r, GAMES_NOT_FOUND);

    games_arbiter_dismiss(pool, request_id, "nothing to rule on", &r);
    assert_ok_clear(&r);
    queue_status(request_id, status, sizeof status);
    assert_string_equal(status, "dismissed|request");
    games_arbiter_dismiss(pool, request_id, "again", &r);
    assert_refused_clear(&r, GAMES_CONFLICT);
    games_arbiter_dismiss(pool, "nosuchitem", "none", &r);
    assert_refused_clear(&r, GAMES_NOT_FOUND);
}

/* ---- Tournaments -------------------------------------------------------------------- */

static void new_tournament(const struct db_player *director, int max_players, bool min_2000,
                           const char *starts_at, struct db_tournament *t)
{
    struct games_result r;
    memset(t, 0, sizeof *t);
    snprintf(t->name, sizeof t->name, "test %s", director->name);
    t->variant = db_variant_parse("korpalski");
    snprintf(t->director_id, sizeof t->director_id, "%s", director->id);
    t->max_players = max_players;
    t->has_min_rating = min_2000;
    t->min_rating = 2000;
    snprintf(t->starts_at, sizeof t->starts_at, "%s", starts_at ? starts_at : "");
    games_tournament_create(pool, t, &r);
    if (r.outcome != GAMES_OK)
        fail_msg("tournament: %s", r.err.text);
    assert_true(t->id[0] != '\0');
    assert_int_equal(t->status, DB_TOURNAMENT_OPEN);
}

static long long tournament_games(const char *id, const char *where)
{
    char text[256];
    const char *p[1] = { id };
    snprintf(text, sizeof text, "SELECT count(*) FROM games WHERE tournament_id = $1%s", where);
    return sql_count(text, 1, p);
}

static void join(const struct db_player *p, const char *id, enum games_outcome expected)
{
    struct db_tournament t;
    struct games_result r;
    games_tournament_join(pool, p->id, id, &t, &r);
    if (expected == GAMES_OK)
        assert_int_equal(r.outcome, GAMES_OK);
    else
        assert_refused_clear(&r, expected);
}

static void test_games_tournament(void **state)
{
    struct db_player director, p[4];
    struct db_tournament t, high, got;
    struct games_result r;
    (void)state;
    new_player(&director, NULL, 0);
    for (int i = 0; i < 4; i++)
        new_player(&p[i], NULL, 0);
    new_tournament(&director, 3, false, NULL, &t);
    new_tournament(&director, 8, true, NULL, &high);

    /* A new player's rating is the starting 1500: under a minimum of 2000. */
    join(&p[0], high.id, GAMES_ENTRY_REFUSED);
    join(&p[0], "nosuchtournament", GAMES_NOT_FOUND);
    join(&p[0], t.id, GAMES_OK);
    join(&p[0], t.id, GAMES_CONFLICT);   /* in it already */
    join(&p[1], t.id, GAMES_OK);

    /* A round robin needs three; only its director (or an arbiter) starts it. */
    games_tournament_start(pool, director.id, false, t.id, &got, &r);
    assert_refused_clear(&r, GAMES_CONFLICT);
    join(&p[2], t.id, GAMES_OK);
    join(&p[3], t.id, GAMES_CONFLICT);   /* full: three of three */
    games_tournament_start(pool, p[0].id, false, t.id, &got, &r);
    assert_refused_clear(&r, GAMES_FORBIDDEN);
    games_tournament_start(pool, director.id, false, "nosuchtournament", &got, &r);
    assert_refused_clear(&r, GAMES_NOT_FOUND);
    games_tournament_start(pool, director.id, false, t.id, &got, &r);
    assert_ok_clear(&r);
    assert_int_equal(got.status, DB_TOURNAMENT_ACTIVE);
    /* Three players, one cycle: 3 * 2 / 2 games, all at once. */
    assert_int_equal(tournament_games(t.id, ""), 3);
    assert_int_equal(tournament_games(t.id, " AND status = 'active'"), 3);
    games_tournament_start(pool, director.id, false, t.id, &got, &r);
    assert_refused_clear(&r, GAMES_CONFLICT);
    join(&p[3], t.id, GAMES_CONFLICT);   /* started */

    /* A withdrawal after the start loses the player's two games. */
    games_tournament_withdraw(pool, p[0].id, t.id, &got, &r);
    assert_ok_clear(&r);
    assert_int_equal(tournament_games(t.id, " AND status = 'finished'"), 2);
    assert_int_equal(tournament_games(t.id, " AND status = 'active'"), 1);
    games_tournament_withdraw(pool, p[0].id, t.id, &got, &r);
    assert_refused_clear(&r, GAMES_CONFLICT);
    games_tournament_withdraw(pool, p[3].id, t.id, &got, &r);
    assert_refused(&r, GAMES_CONFLICT);   /* never in it */
    games_result_clear(&r);
    /* Before the start, leaving takes the player off the list. */
    struct db_tournament open;
    new_tournament(&director, 8, false, NULL, &open);
    join(&p[3], open.id, GAMES_OK);
    games_tournament_withdraw(pool, p[3].id, open.id, &got, &r);
    assert_ok_clear(&r);
    assert_int_equal(got.player_count, 0);
    games_tournament_withdraw(pool, p[3].id, open.id, &got, &r);
    assert_refused_clear(&r, GAMES_CONFLICT);
}

static void test_games_tournaments_sweep(void **state)
{
    struct db_player director, p[3];
    struct db_tournament t, got;
    struct base_err err = { "" };
    (void)state;
    new_player(&director, NULL, 0);
    for (int i = 0; i < 3; i++)
        new_player(&p[i], NULL, 0);
    new_tournament(&director, 3, false, "2000-01-01T00:00:00Z", &t);
    for (int i = 0; i < 3; i++)
        join(&p[i], t.id, GAMES_OK);
    /* Its start has passed: the sweeper starts it (it, or any korpd
     * sweeping the same database at once). */
    assert_true(games_tournaments_sweep(pool, &err) >= 0);
    assert_int_equal(db_tournament_get(pool, t.id, &got, &err), DB_OK);
    assert_int_equal(got.status, DB_TOURNAMENT_ACTIVE);
    assert_int_equal(tournament_games(t.id, ""), 3);
}

/* ---- What is read from a stored game --------------------------------------------- */

static void test_games_pgn(void **state)
{
    struct pair g;
    struct db_game game;
    struct base_err err = { "" };
    char *pgn = NULL, tag[128];
    (void)state;
    new_game("korpalski", 0, true, &g);
    shuffle_to(&g, 0, 4);
    game = read_game(g.game);
    assert_int_equal(games_pgn(pool, &game, &pgn, &err), DB_OK);
    assert_non_null(pgn);
    snprintf(tag, sizeof tag, "[White \"%s\"]", g.white.name);
    assert_non_null(strstr(pgn, tag));
    assert_non_null(strstr(pgn, "[Termination \"unterminated\"]"));
    assert_non_null(strstr(pgn, "1. K@e1 K@e8 2. N@f3 N@f6"));
    free(pgn);
    db_game_clear(&game);
}

/* Three players: a bye every round (the Berger table of 4 without player 4),
 * so each round's one game is on board 1; new players begin at 1500. */
static void test_games_tournament_pgn(void **state)
{
    struct db_player director, p[3];
    struct db_tournament t, got;
    struct games_result r;
    struct base_err err = { "" };
    char *pgn = NULL, tag[160];
    (void)state;
    new_player(&director, NULL, 0);
    for (int i = 0; i < 3; i++)
        new_player(&p[i], NULL, 0);
    new_tournament(&director, 3, false, NULL, &t);
    assert_int_equal(games_tournament_pgn(pool, t.id, NULL, &pgn, &err), DB_OK);
    assert_string_equal(pgn, "");   /* not started: no game */
    free(pgn);
    for (int i = 0; i < 3; i++)
        join(&p[i], t.id, GAMES_OK);
    games_tournament_start(pool, director.id, false, t.id, &got, &r);
    assert_ok_clear(&r);
    assert_int_equal(games_tournament_pgn(pool, t.id, "https://korp.example", &pgn, &err), DB_OK);
    assert_non_null(pgn);
    snprintf(tag, sizeof tag, "[Event \"test %s\"]", director.name);
    assert_non_null(strstr(pgn, tag));
    assert_non_null(strstr(pgn, "[Site \"https://korp.example\"]"));
    for (int round = 1; round <= 3; round++) {
        snprintf(tag, sizeof tag, "[Round \"%d.1\"]", round);
        assert_non_null(strstr(pgn, tag));
    }
    assert_null(strstr(pgn, ".2\"]"));
    assert_non_null(strstr(pgn, "[WhiteElo \"1500\"]\n[BlackElo \"1500\"]"));
    free(pgn);
    assert_int_equal(games_tournament_pgn(pool, "nosuchtournament", NULL, &pgn, &err),
                     DB_NOT_FOUND);
    assert_null(pgn);
}

static void test_games_analysis_allowed(void **state)
{
    struct pair g;
    struct db_player stranger;
    struct db_game game;
    struct games_result r;
    struct rules_position pos;
    (void)state;
    new_game("korpalski", 0, true, &g);
    new_player(&stranger, NULL, 0);
    shuffle_to(&g, 0, 2);
    game = read_game(g.game);
    assert_int_equal(game.variant->position_parse(&pos, game.fen, NULL), RULES_OK);

    /* The game itself, or its position, while White plays it: no engine. */
    games_analysis_allowed(pool, g.white.id, game.variant, &pos, g.game, &r);
    assert_refused_clear(&r, GAMES_OWN_GAME_IN_PLAY);
    games_analysis_allowed(pool, g.white.id, game.variant, &pos, NULL, &r);
    assert_refused(&r, GAMES_OWN_GAME_IN_PLAY);
    assert_non_null(strstr(r.detail, g.game));
    games_result_clear(&r);
    /* Anyone else may. */
    games_analysis_allowed(pool, stranger.id, game.variant, &pos, g.game, &r);
    assert_ok_clear(&r);
    games_analysis_allowed(pool, stranger.id, game.variant, &pos, "nosuchgame", &r);
    assert_refused_clear(&r, GAMES_NOT_FOUND);
    /* Once it is over, its players too. */
    games_resign(pool, g.black.id, g.game, &r);
    games_result_clear(&r);
    games_analysis_allowed(pool, g.white.id, game.variant, &pos, g.game, &r);
    assert_ok_clear(&r);
    db_game_clear(&game);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_games_challenge_accept),
        cmocka_unit_test(test_games_challenge_close),
        cmocka_unit_test(test_games_move),
        cmocka_unit_test(test_games_inventor_game_to_mate),
        cmocka_unit_test(test_games_claim_threefold),
        cmocka_unit_test(test_games_claim_fifty_move),
        cmocka_unit_test(test_games_draw),
        cmocka_unit_test(test_games_resign),
        cmocka_unit_test(test_games_abort),
        cmocka_unit_test(test_games_adjudicate),
        cmocka_unit_test(test_games_time_out),
        cmocka_unit_test(test_games_glinski_stalemate),
        cmocka_unit_test(test_games_move_key),
        cmocka_unit_test(test_games_analyse_bad_position),
        cmocka_unit_test(test_games_challenge_create),
        cmocka_unit_test(test_games_conditional),
        cmocka_unit_test(test_games_message_valid),
        cmocka_unit_test(test_games_message_send),
        cmocka_unit_test(test_games_note_put),
        cmocka_unit_test(test_games_give_time),
        cmocka_unit_test(test_games_leave),
        cmocka_unit_test(test_games_perpetual_claim),
        cmocka_unit_test(test_games_arbiter_request),
        cmocka_unit_test(test_games_tournament),
        cmocka_unit_test(test_games_tournaments_sweep),
        cmocka_unit_test(test_games_pgn),
        cmocka_unit_test(test_games_tournament_pgn),
        cmocka_unit_test(test_games_analysis_allowed),
    };
    if (argc != 2) {
        fprintf(stderr, "usage: test_games DATA_DIR\n");
        return 2;
    }
    data_dir = argv[1];
    url = test_database_url();
    return cmocka_run_group_tests(tests, setup, teardown);
}
