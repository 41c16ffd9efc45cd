/*
 * games_record.c — what is read from a stored game rather than changed in
 * it: its PGN (written from the moves' stored SAN, without playing them
 * again), a tournament's PGN (every game headed by the tournament, its
 * round and board and the players' ratings when it began), and whether a player may have an engine analyse a position (never one of a
 * game they are playing, unless that game allows engines).
 */
#include "games_int.h"

#include "base.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Active games whose men stand as a position's, read to compare them. */
#define ANALYSIS_CANDIDATES 64
/* How many men in reserve, all types and both sides counted, two positions
 * may differ by and still be the same to engine analysis. */
#define ANALYSIS_RESERVE_SLACK 2

/* PGN's own words for how a game ended (the Termination tag). */
static const char *pgn_termination(const struct db_game *g)
{
    if (g->status == DB_GAME_ABORTED)
        return "abandoned";
    if (g->status == DB_GAME_ACTIVE)
        return "unterminated";
    switch (g->termination) {
    case DB_END_TIMEOUT: return "time forfeit";
    case DB_END_ADJUDICATION: return "adjudication";
    default: return "normal";
    }
}

/* What a record says of a game beyond its row: the event, the site, the
 * round, each side's rating when it began ("" when not known). */
struct record_head {
    const char *event, *site, *round;
    const char *elo[2];
};

/* A game played outside any event. */
static const struct record_head lone_game = { "korp correspondence game", "korp", "-",
                                              { "", "" } };

/* The PGN text rules_pgn_write gives for g over moves, headed as `head`
 * says (malloc'd; NULL: out of memory). */
static char *pgn_write(const struct db_game *g, const struct record_head *head,
                       const struct rules_position *start, const struct rules_move *moves,
                       int count)
{
    char date[16], time_control[32], *pgn;
    const char *tags[32];
    size_t size;
    int n = 0;

    snprintf(date, sizeof date, "%.4s.%.2s.%.2s", g->created_at, g->created_at + 5,
             g->created_at + 8);
    if (g->days_per_move > 0)
        snprintf(time_control, sizeof time_control, "1/%d", g->days_per_move * 86400);
    else
        snprintf(time_control, sizeof time_control, "-");
#define TAG(name, value) (tags[n++] = (name), tags[n++] = (value))
    TAG("Event", head->event);
    TAG("Site", head->site);
    TAG("Date", date);
    TAG("Round", head->round);
    TAG("White", g->white_name);
    TAG("Black", g->black_name);
    if (head->elo[0][0] != '\0')
        TAG("WhiteElo", head->elo[0]);
    if (head->elo[1][0] != '\0')
        TAG("BlackElo", head->elo[1]);
    TAG("Termination", pgn_termination(g));
    TAG("TimeControl", time_control);
    TAG("Engines", g->engines_allowed ? "allowed" : "forbidden");
#undef TAG
    tags[n] = NULL;
    size = rules_pgn_write(g->variant, tags, start, moves, count, g->result, NULL, 0) + 1;
    pgn = malloc(size);
    if (pgn != NULL)
        rules_pgn_write(g->variant, tags, start, moves, count, g->result, pgn, size);
    return pgn;
}

/* Growing movetext: its text and the column of its last line, as
 * rules_pgn_write keeps them. */
struct movetext {
    struct base_text text;
    size_t column;
};

/* A movetext token, after a space or on a new line before column 80, the
 * way rules_pgn_write wraps. */
static void token_put(struct movetext *m, const char *token, size_t len)
{
    if (m->column > 0) {
        bool wrap = m->column + 1 + len >= 80;
        base_text_add(&m->text, wrap ? "\n" : " ", 1);
        m->column = wrap ? 0 : m->column + 1;
    }
    base_text_add(&m->text, token, len);
    m->column += len;
}

/*
 * The PGN text of g from the SAN of its moves, space-separated (count of
 * them), without playing them: the tags rules_pgn_write writes for no
 * move, then the movetext it writes for these moves (each SAN was stored
 * as the rules wrote it when the move was played).  malloc'd; NULL: out of
 * memory.
 */
static char *pgn_write_sans(const struct db_game *g, const struct record_head *head,
                            const struct rules_position *start, const char *sans, int count)
{
    const char *result = rules_result_text(g->result), *p = sans;
    struct movetext m = { { 0 }, 0 };
    /* With no move: the tags, a blank line, and the result's own line. */
    char *tags = pgn_write(g, head, start, NULL, 0);

    if (tags == NULL)
        return NULL;
    base_text_add(&m.text, tags, strlen(tags) - strlen(result) - 1);
    free(tags);
    /* From the start position: White first, from move 1. */
    for (int i = 0; i < count; i++) {
        char number[16];
        size_t len;
        while (*p == ' ')
            p++;
        len = strcspn(p, " ");
        if (i % 2 == 0)
            token_put(&m, number, (size_t)snprintf(number, sizeof number, "%d.", i / 2 + 1));
        token_put(&m, p, len);
        p += len;
    }
    token_put(&m, result, strlen(result));
    base_text_add(&m.text, "\n", 1);
    return base_text_take(&m.text);
}

/* How many space-separated words text has. */
static int words(const char *text)
{
    int n = 0;
    for (const char *p = text; *p; p++)
        n += *p != ' ' && (p == text || p[-1] == ' ');
    return n;
}

/* The PGN of g headed by `head` (see games_pgn). */
static enum db_status pgn_headed(struct db_pool *pool, const struct db_game *g,
                                 const struct record_head *head, char **pgn,
                                 struct base_err *err)
{
    struct db_move *stored = NULL;
    struct base_text sans = { 0 };
    struct rules_position start;
    const struct rules_variant *v = g->variant;
    char *joined = NULL;
    int count = 0;
    enum db_status st;

    *pgn = NULL;
    if (v == NULL || v->position_parse(&start, v->start_text, NULL) != RULES_OK) {
        base_err_set(err, "cannot rebuild the game");
        return DB_HARD_ERROR;
    }
    /* The row's own SAN list, read with it; else the stored moves' SAN. */
    if (g->sans != NULL && words(g->sans) == g->ply) {
        *pgn = pgn_write_sans(g, head, &start, g->sans, g->ply);
        return DB_OK;
    }
    if ((st = db_move_list(pool, g->id, &stored, &count, err)) != DB_OK)
        goto done;
    /* Two reads: a move committed between them is not this game's yet. */
    if (count > g->ply)
        count = g->ply;
    for (int i = 0; i < count; i++)
        base_text_put(&sans, "%s%s", i > 0 ? " " : "", stored[i].san);
    joined = base_text_take(&sans);
    if (joined != NULL || count == 0)
        *pgn = pgn_write_sans(g, head, &start, joined ? joined : "", count);
done:
    free(joined);
    free(stored);
    return st;
}

enum db_status games_pgn(struct db_pool *pool, const struct db_game *g, char **pgn,
                         struct base_err *err)
{
    return pgn_headed(pool, g, &lone_game, pgn, err);
}

/* At most this many games in a tournament (30 players, both cycles). */
#define TOURNAMENT_GAMES_MAX (30 * 29)

enum db_status games_tournament_pgn(struct db_pool *pool, const char *id, const char *site,
                                    char **pgn, struct base_err *err)
{
    struct db_tournament t;
    struct db_tournament_record *games = NULL;
    struct base_text all = { 0 };
    int count = 0;
    bool whole = true;
    enum db_status st;

    *pgn = NULL;
    if ((st = db_tournament_get(pool, id, &t, err)) != DB_OK)
        return st;
    if ((games = calloc(TOURNAMENT_GAMES_MAX, sizeof *games)) == NULL)
        return DB_OK;
    st = db_tournament_records(pool, t.id, games, TOURNAMENT_GAMES_MAX, &count, err);
    for (int i = 0; st == DB_OK && whole && i < count; i++) {
        char round[32], elo[2][16], *one = NULL;
        struct record_head head = { t.name, site != NULL && site[0] ? site : "korp", round,
                                    { elo[0], elo[1] } };
        snprintf(round, sizeof round, "%d.%d", games[i].round, games[i].board);
        for (int side = 0; side < 2; side++) {
            elo[side][0] = '\0';
            if (games[i].has_rating[side])
                snprintf(elo[side], sizeof elo[side], "%.0f", games[i].rating[side]);
        }
        st = pgn_headed(pool, &games[i].game, &head, &one, err);
        whole = one != NULL;   /* else out of memory: *pgn stays NULL */
        if (st == DB_OK && whole)
            base_text_put(&all, "%s%s", i > 0 ? "\n" : "", one);
        free(one);
    }
    if (st == DB_OK && whole)
        *pgn = count == 0 ? strdup("") : base_text_take(&all);
    for (int i = 0; i < count; i++)
        db_game_clear(&games[i].game);
    free(games);
    free(base_text_take(&all));
    return st;
}

/* Whether a and b are one position to engine analysis: the same men on the
 * same cells, the same side to move, and reserves that differ by at most
 * ANALYSIS_RESERVE_SLACK men.  Castling and en passant rights and the move
 * counters are left out: they change little of what an engine would say. */
static bool analysis_same(const struct rules_variant *v, const struct rules_position *a,
                          const struct rules_position *b)
{
    int apart = 0;

    if (v->side_to_move(a) != v->side_to_move(b))
        return false;
    for (int cell = 0; cell < v->cells; cell++)
        if (v->man_at(a, cell) != v->man_at(b, cell))
            return false;
    for (int side = RULES_WHITE; side <= RULES_BLACK; side++)
        for (int type = RULES_PAWN; type < RULES_PIECE_TYPES; type++)
            apart += abs(v->reserve_count(a, (enum rules_color)side, (enum rules_piece)type) -
                         v->reserve_count(b, (enum rules_color)side, (enum rules_piece)type));
    return apart <= ANALYSIS_RESERVE_SLACK;
}

void games_analysis_allowed(struct db_pool *pool, const char *player_id,
                            const struct rules_variant *v, const struct rules_position *pos,
                            const char *game_id, struct games_result *out)
{
    struct db_active_position found[ANALYSIS_CANDIDATES];
    char fen[RULES_TEXT_MAX];
    int count = 0;

    memset(out, 0, sizeof *out);
    if (game_id != NULL) {
        out->db = db_game_get(pool, game_id, &out->game, &out->err);
        if (out->db == DB_NOT_FOUND) {
            games_refuse(out, GAMES_NOT_FOUND, "no game has that 'game_id'");
            return;
        }
        if (out->db != DB_OK) {
            out->outcome = GAMES_DB_ERROR;
            return;
        }
        bool own = out->game.status == DB_GAME_ACTIVE && !out->game.engines_allowed &&
                   (strcmp(out->game.white_id, player_id) == 0 ||
                    strcmp(out->game.black_id, player_id) == 0);
        db_game_clear(&out->game);
        memset(&out->game, 0, sizeof out->game);
        if (own) {
            games_refuse(out, GAMES_OWN_GAME_IN_PLAY, "you are playing game %s: the engine "
                         "analyses it for you once it is over", game_id);
            return;
        }
    }
    /* The player's active games of the variant with the same men on the
     * same cells (one query: a player has few games in play), then compared
     * as analysis_same says. */
    v->position_format(pos, fen, sizeof fen);
    fen[strcspn(fen, " ")] = '\0';
    out->db = db_active_positions(pool, player_id, v, fen, found, ANALYSIS_CANDIDATES, &count,
                                  &out->err);
    if (out->db != DB_OK) {
        out->outcome = GAMES_DB_ERROR;
        return;
    }
    for (int i = 0; i < count; i++) {
        struct rules_position there;
        struct rules_why why;
        if (found[i].variant != v || v->position_parse(&there, found[i].fen, &why) != RULES_OK)
            continue;
        if (analysis_same(v, pos, &there)) {
            games_refuse(out, GAMES_OWN_GAME_IN_PLAY, "this is the position of game %s, which "
                         "you are playing: the engine analyses it for you once it is over",
                         found[i].game_id);
            return;
        }
    }
}
