/* test_util.h — small helpers for the rules tests (cmocka), and
 * test_file.h's data files. */
#ifndef KORP_TEST_UTIL_H
#define KORP_TEST_UTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "rules.h"
#include "test_file.h"

static inline const struct rules_variant *korpalski(void)
{
    return rules_variant_find("korpalski");
}

/* Parses a position that must be valid. */
static inline struct rules_position pos_of(const struct rules_variant *v, const char *fen)
{
    struct rules_position pos;
    struct rules_why why = { 0 };
    enum rules_error err = v->position_parse(&pos, fen, &why);
    if (err != RULES_OK)
        fail_msg("position %s: %s", fen, why.text);
    return pos;
}

/* Parses a move text; returns the error, fills why. */
static inline enum rules_error try_move(const struct rules_variant *v,
                                        const struct rules_position *pos,
                                        const char *text, struct rules_move *out,
                                        struct rules_why *why)
{
    return v->move_parse(pos, text, RULES_DIALECT_DEFAULT, out, why);
}

/* Plays a move that must be legal. */
static inline void play(const struct rules_variant *v, struct rules_position *pos,
                        const char *text)
{
    struct rules_move m;
    struct rules_why why = { 0 };
    if (try_move(v, pos, text, &m, &why) != RULES_OK)
        fail_msg("move %s: %s", text, why.text);
    if (v->position_apply(pos, m) != RULES_OK)
        fail_msg("move %s: parsed but not applied", text);
}

/* Whether the UCI text is among the legal moves. */
static inline bool has_uci(const struct rules_variant *v, const struct rules_position *pos,
                           const char *uci)
{
    struct rules_move moves[RULES_MAX_MOVES];
    char text[RULES_MOVE_TEXT_MAX];
    int n = v->moves_legal(pos, moves);
    for (int i = 0; i < n; i++) {
        v->move_format(pos, moves[i], RULES_NOTATION_UCI, text, sizeof text);
        if (strcmp(text, uci) == 0)
            return true;
    }
    return false;
}

/* Plays the moves of a space-separated list, each of which must be legal. */
static inline void play_line(const struct rules_variant *v, struct rules_position *pos,
                             const char *moves)
{
    char move[RULES_MOVE_TEXT_MAX];
    for (const char *s = moves; *s != '\0';) {
        size_t n = strcspn(s, " ");
        if (n > 0 && n < sizeof move) {
            memcpy(move, s, n);
            move[n] = '\0';
            play(v, pos, move);
        } else if (n > 0) {
            fail_msg("move too long in '%s'", moves);
        }
        s += n + (s[n] == ' ');
    }
}

/* Plays the moves of `moves` (play_line), then the position must read `fen`. */
static inline void play_expect(const struct rules_variant *v, struct rules_position *pos,
                               const char *moves, const char *fen)
{
    char text[RULES_TEXT_MAX];
    play_line(v, pos, moves);
    v->position_format(pos, text, sizeof text);
    if (strcmp(text, fen) != 0)
        fail_msg("after %s: %s, expected %s", moves, text, fen);
}

/* For each UCI text of a space-separated list: legal in pos, or with a
 * leading '!' not legal. */
static inline void assert_ucis(const struct rules_variant *v, const struct rules_position *pos,
                               const char *list)
{
    char uci[RULES_MOVE_TEXT_MAX];
    for (const char *s = list; *s != '\0';) {
        size_t n = strcspn(s, " ");
        bool want = *s != '!';
        size_t skip = want ? 0 : 1;
        if (n > skip && n - skip < sizeof uci) {
            memcpy(uci, s + skip, n - skip);
            uci[n - skip] = '\0';
            if (has_uci(v, pos, uci) != want)
                fail_msg("%s: %s, expected %s", uci, want ? "not legal" : "legal",
                         want ? "legal" : "not legal");
        } else if (n > 0) {
            fail_msg("bad move in '%s'", list);
        }
        s += n + (s[n] == ' ');
    }
}

static inline void assert_illegal(const struct rules_variant *v,
                                  const struct rules_position *pos, const char *text,
                                  const char *reason_part)
{
    struct rules_move m;
    struct rules_why why = { 0 };
    enum rules_error err = try_move(v, pos, text, &m, &why);
    if (err != RULES_ERR_ILLEGAL)
        fail_msg("%s: expected illegal, got %s (%s)", text, rules_error_text(err), why.text);
    if (reason_part != NULL && strstr(why.text, reason_part) == NULL)
        fail_msg("%s: reason '%s' does not mention '%s'", text, why.text, reason_part);
}

/* A refusal with exactly this error, reason code and text. */
static inline void assert_refusal(const struct rules_variant *v,
                                  const struct rules_position *pos, const char *text,
                                  enum rules_error want_err, const char *want_slug,
                                  const char *want_text)
{
    struct rules_move m;
    struct rules_why why = { 0 };
    enum rules_error err = try_move(v, pos, text, &m, &why);
    if (err != want_err || strcmp(rules_reason_slug(why.reason), want_slug) != 0 ||
        strcmp(why.text, want_text) != 0)
        fail_msg("%s: got %s [%s] '%s', want %s [%s] '%s'", text, rules_error_text(err),
                 rules_reason_slug(why.reason), why.text, rules_error_text(want_err),
                 want_slug, want_text);
}

/* One refused move: from the position `fen` (NULL: where the case before
 * left off), after playing `play` (NULL: nothing), the text `move` is
 * refused with error `err`, reason code `slug` and exactly the words
 * `text`. */
struct refusal_case {
    const char *fen;
    const char *play;
    const char *move;
    enum rules_error err;
    const char *slug;
    const char *text;
};

/* Checks the cases in order, up to one whose move is NULL. */
static inline void assert_refusals(const struct rules_variant *v,
                                   const struct refusal_case *cases)
{
    struct rules_position pos = pos_of(v, v->start_text);
    for (const struct refusal_case *c = cases; c->move != NULL; c++) {
        if (c->fen != NULL)
            pos = pos_of(v, c->fen);
        if (c->play != NULL)
            play(v, &pos, c->play);
        assert_refusal(v, &pos, c->move, c->err, c->slug, c->text);
    }
}

static inline void assert_fen(const struct rules_variant *v, const struct rules_position *pos,
                              const char *expected)
{
    char fen[RULES_TEXT_MAX];
    v->position_format(pos, fen, sizeof fen);
    assert_string_equal(fen, expected);
}

#endif
