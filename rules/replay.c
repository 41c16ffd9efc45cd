/*
 * replay.c — one game record replayed move by move, every move checked:
 * the reading that `POST /v1/replay` serves (korp replay reads records
 * with the same parts: rules_pgn_read, the letter dialect, move_parse).
 */
#include "rules.h"

#include <stdio.h>
#include <string.h>

struct replay_state {
    const struct rules_variant *v;
    const char *fen;                 /* the caller's, or NULL */
    char fen_tag[RULES_TEXT_MAX];
    int dialect;
    bool started;
    struct rules_position pos;
    struct rules_replay_step step;
    rules_replay_fn on_ply;
    void *arg;
    int max_plies;
    struct rules_replay_failure *failed;
    enum rules_error error;
};

static int fail(struct replay_state *s, enum rules_error error, int ply, const char *token,
                const struct rules_why *why, const char *text)
{
    s->error = error;
    s->failed->ply = ply;
    snprintf(s->failed->move, sizeof s->failed->move, "%s", token ? token : "");
    if (why != NULL)
        s->failed->why = *why;
    else
        snprintf(s->failed->why.text, sizeof s->failed->why.text, "%s", text);
    return 1;
}

static int on_tag(void *arg, const char *name, const char *value)
{
    struct replay_state *s = arg;
    if (strcmp(name, "FEN") == 0)
        snprintf(s->fen_tag, sizeof s->fen_tag, "%s", value);
    return 0;
}

/* The start: the caller's FEN, else the record's FEN tag, else the
 * variant's start position. */
static int start(struct replay_state *s)
{
    struct rules_why why;
    const char *fen = s->fen ? s->fen : s->fen_tag[0] ? s->fen_tag : s->v->start_text;
    enum rules_error e;
    s->started = true;
    if ((e = s->v->position_parse(&s->pos, fen, &why)) != RULES_OK)
        return fail(s, e, 0, NULL, &why, NULL);
    return 0;
}

/*
 * A move of the record: in the record's letter dialect, else (a record may
 * mix notations move by move) in the other one.  Of two refusals, one that
 * read the move and found it illegal says more than "cannot read".
 */
static enum rules_error read_move(const struct replay_state *s, const char *token,
                                  struct rules_move *m, struct rules_why *why)
{
    struct rules_why other = { 0 };
    int dialect = s->dialect == RULES_DIALECT_HUNGARIAN ? RULES_DIALECT_DEFAULT
                                                        : RULES_DIALECT_HUNGARIAN;
    enum rules_error e = s->v->move_parse(&s->pos, token, s->dialect, m, why), e2;

    if (e == RULES_OK || !s->v->hungarian_letters)
        return e;
    e2 = s->v->move_parse(&s->pos, token, dialect, m, &other);
    if (e2 == RULES_OK || (e == RULES_ERR_SYNTAX && e2 != RULES_ERR_SYNTAX)) {
        *why = other;
        return e2;
    }
    return e;
}

static int on_move(void *arg, const char *token)
{
    struct replay_state *s = arg;
    struct rules_replay_step *st = &s->step;
    struct rules_report before;
    struct rules_why why;
    enum rules_error e;

    if (!s->started && start(s) != 0)
        return 1;
    s->v->position_report(&s->pos, &before);
    if (before.status != RULES_ONGOING) {
        char text[RULES_WHY_MAX];
        snprintf(text, sizeof text, "the game ended at ply %d by %s", st->ply,
                 rules_status_text(before.status));
        return fail(s, RULES_ERR_ILLEGAL, st->ply + 1, token, NULL, text);
    }
    if (st->ply >= s->max_plies) {
        char text[RULES_WHY_MAX];
        snprintf(text, sizeof text, "the record is longer than %d plies", s->max_plies);
        return fail(s, RULES_ERR_INVALID, st->ply + 1, token, NULL, text);
    }
    if ((e = read_move(s, token, &st->move, &why)) != RULES_OK)
        return fail(s, e, st->ply + 1, token, &why, NULL);
    st->before = s->pos;
    st->token = token;
    if (s->v->position_apply(&s->pos, st->move) != RULES_OK)
        return fail(s, RULES_ERR_ILLEGAL, st->ply + 1, token, NULL, "not legal here");
    st->ply++;
    st->after = &s->pos;
    s->on_ply(s->arg, st);
    return 0;
}

/* A second game in the record: the first is the one replayed. */
static int on_game_end(void *arg)
{
    (void)arg;
    return 2;
}

enum rules_error rules_replay(const struct rules_variant *v, const char *text, size_t len,
                              const char *fen, int max_plies, rules_replay_fn on_ply, void *arg,
                              struct rules_position *end, struct rules_replay_failure *failed)
{
    struct replay_state s = { .v = v, .fen = fen, .on_ply = on_ply, .arg = arg,
                              .max_plies = max_plies, .failed = failed, .error = RULES_OK };
    struct rules_pgn_reader reader = { on_tag, on_move, on_game_end, &s };
    unsigned char dialect = RULES_DIALECT_DEFAULT;
    int rc;

    memset(failed, 0, sizeof *failed);
    if (v->hungarian_letters)
        rules_pgn_dialects(text, len, &dialect, 1);
    s.dialect = dialect;
    rc = rules_pgn_read(text, len, &reader);
    if (rc == 1)
        return s.error;
    if (!s.started && start(&s) != 0)        /* no move at all */
        return s.error;
    *end = s.pos;
    return RULES_OK;
}
