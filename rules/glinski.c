/*
 * glinski.c — Glinski's hexagonal chess as a rules_variant.
 */
#include "glinski_int.h"
#include "report_int.h"

#include <stdio.h>
#include <string.h>

static const char *const english[] = { NOTATION_LETTERS_ENGLISH, NULL };
static const char *const hungarian[] = { NOTATION_LETTERS_HUNGARIAN, NULL };

static enum rules_error position_parse(struct rules_position *pos, const char *text,
                                       struct rules_why *why)
{
    memset(pos, 0, sizeof *pos);
    return gl_parse_hfen(gl_mut(pos), text, why);
}

static size_t position_format(const struct rules_position *pos, char *buf, size_t size)
{
    return gl_format_hfen(gl_const(pos), buf, size);
}

static int moves_legal(const struct rules_position *pos, struct rules_move *out)
{
    return gl_generate(gl_const(pos), out);
}

static uint64_t perft(const struct rules_position *pos, int depth)
{
    return gl_perft(gl_const(pos), depth);
}

static enum rules_error move_parse(const struct rules_position *pos, const char *text,
                                   int dialect, struct rules_move *out, struct rules_why *why)
{
    struct notation_pattern pat;
    enum rules_error err;
    err = notation_decode(&gl_geometry, dialect == RULES_DIALECT_HUNGARIAN ? hungarian : english,
                          text, &pat, why);
    if (err != RULES_OK)
        return err;
    return notation_match(&rules_glinski, &gl_geometry, pos, &pat, out, why);
}

static bool move_is_legal(const struct rules_position *pos, struct rules_move move)
{
    int n;
    const struct rules_move *moves = notation_legal(&rules_glinski, pos, &n);
    return moves_contain(moves, n, move);
}

static size_t move_format(const struct rules_position *pos, struct rules_move move,
                          enum rules_notation how, char *buf, size_t size)
{
    if (!move_is_legal(pos, move)) {
        if (size > 0)
            buf[0] = '\0';
        return 0;
    }
    if (how == RULES_NOTATION_UCI)
        return notation_format_uci(&gl_geometry, move, buf, size);
    return notation_format(&rules_glinski, &gl_geometry, pos, move, &notation_san, buf, size);
}

static enum rules_error position_apply(struct rules_position *pos, struct rules_move move)
{
    if (!move_is_legal(pos, move))
        return RULES_ERR_ILLEGAL;
    gl_apply(gl_mut(pos), move);
    return RULES_OK;
}

static bool move_is_irreversible(const struct rules_position *pos, struct rules_move move)
{
    const struct gl_pos *p = gl_const(pos);
    return move_is_legal(pos, move) &&
           ((move.flags & RULES_MOVE_CAPTURE) || GL_TYPE(p->board[move.from]) == RULES_PAWN);
}

/* Glinski: a draw may be agreed at any time. */
static bool draw_agreement_allowed(const struct rules_position *pos, struct rules_why *why)
{
    (void)pos;
    (void)why;
    return true;
}

static bool in_check(const struct rules_position *pos) { return gl_in_check(gl_const(pos)); }

static enum rules_color side_to_move(const struct rules_position *pos)
{
    return (enum rules_color)gl_const(pos)->side;
}

static int halfmove_clock(const struct rules_position *pos) { return gl_const(pos)->halfmove; }
static int fullmove_number(const struct rules_position *pos) { return gl_const(pos)->fullmove; }

static uint64_t repetition_key(const struct rules_position *pos)
{
    return gl_repetition_key(gl_const(pos));
}

static bool can_drop(const struct rules_position *pos, enum rules_color side)
{
    (void)pos;
    (void)side;
    return false;
}

static void position_report(const struct rules_position *pos, struct rules_report *out)
{
    const struct gl_pos *p = gl_const(pos);
    memset(out, 0, sizeof *out);
    out->in_check = gl_in_check(p);
    out->legal_moves = gl_generate(p, NULL);
    out->halfmove_clock = p->halfmove;
    out->fifty_move_claimable = p->halfmove >= 100;
    out->can_mate[RULES_WHITE] = gl_can_mate(p, RULES_WHITE);
    out->can_mate[RULES_BLACK] = gl_can_mate(p, RULES_BLACK);
    out->insufficient_material = !out->can_mate[0] && !out->can_mate[1];
    out->draw_agreement_allowed = true;
    /* Stalemate is not a draw: the stalemating side scores 3/4. */
    report_decide(out, (enum rules_color)p->side, false);
}

const struct rules_variant rules_glinski = {
    .name = "glinski",
    .pgn_name = "Glinski",
    .start_text = "b/qbk/n1b1n/r5r/ppppppppp/11/5P5/4P1P4/3P1B1P3/2P2B2P2/1PRNQBKNRP1 w - 0 1",
    .board = RULES_BOARD_HEXAGON_91,
    .hungarian_letters = true,
    .polish_notation = false,
    .position_parse = position_parse,
    .position_format = position_format,
    .moves_legal = moves_legal,
    .perft = perft,
    .move_parse = move_parse,
    .move_is_legal = move_is_legal,
    .move_format = move_format,
    .position_apply = position_apply,
    .move_is_irreversible = move_is_irreversible,
    .draw_agreement_allowed = draw_agreement_allowed,
    .position_report = position_report,
    .in_check = in_check,
    .side_to_move = side_to_move,
    .halfmove_clock = halfmove_clock,
    .fullmove_number = fullmove_number,
    .repetition_key = repetition_key,
    .can_drop = can_drop,
    .cells = GL_CELLS,
    .move_play = gl_search_play,
    .null_play = gl_search_null,
    .man_at = gl_search_man_at,
    .reserve_count = gl_search_reserve,
    .attacks_from = gl_search_attacks,
    .insufficient_material = gl_search_insufficient,
    .moves_noisy = gl_search_noisy,
    .move_is_legal_fast = gl_search_legal,
    .key_after = gl_search_key_after,
    .view = gl_search_view,
    .attackers_to = gl_search_attackers,
};
