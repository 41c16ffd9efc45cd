/*
 * glinski.c — Glinski's hexagonal chess as a rules_variant.
 */
#include "glinski_int.h"
#include "report_int.h"

#include <stdio.h>
#include <string.h>

static const char *const english[] = { NOTATION_LETTERS_ENGLISH, NULL };
static const char *const hungarian[] = { NOTATION_LETTERS_HUNGARIAN, NULL };

static enum rules_error position_parse(struct rules_position *pos, const char *text, char *why)
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

static bool explain(const struct rules_position *pos, const struct notation_pattern *pat,
                    char *why)
{
    const struct gl_pos *p = gl_const(pos);
    int ksq = gl_king_cell(p, p->side);
    char to[4];

    if (pat->drop) {
        snprintf(why, RULES_WHY_MAX, "illegal move: glinski has no drops");
        return true;
    }
    /* A king step onto an attacked cell. */
    if (pat->piece == RULES_KING && pat->to >= 0 && ksq != GL_NONE &&
        (gl_king_attacks(ksq) & gl_bit(pat->to) & ~p->occupied[p->side])) {
        gl_cell_name(pat->to, to);
        snprintf(why, RULES_WHY_MAX, "illegal move: the king would be in check on %s", to);
        return true;
    }
    return false;
}

static enum rules_error move_parse(const struct rules_position *pos, const char *text,
                                   int dialect, struct rules_move *out, char *why)
{
    struct notation_pattern pat;
    enum rules_error err;
    err = notation_decode(&gl_geometry, dialect == RULES_DIALECT_HUNGARIAN ? hungarian : english,
                          text, &pat, why);
    if (err != RULES_OK)
        return err;
    return notation_match(&rules_glinski, &gl_geometry, pos, &pat, explain, out, why);
}

static size_t move_format(const struct rules_position *pos, struct rules_move move,
                          enum rules_notation how, char *buf, size_t size)
{
    if (how == RULES_NOTATION_UCI)
        return notation_format_uci(&gl_geometry, move, buf, size);
    return notation_format(&rules_glinski, &gl_geometry, pos, move, &notation_san, buf, size);
}

static void position_apply(struct rules_position *pos, struct rules_move move)
{
    gl_apply(gl_mut(pos), move);
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
    out->insufficient_material = gl_insufficient_material(p);
    /* Stalemate is not a draw: the stalemating side scores 3/4. */
    report_decide(out, (enum rules_color)p->side, false);
}

const struct rules_variant rules_glinski = {
    .name = "glinski",
    .pgn_name = "Glinski",
    .start_text = "b/qbk/n1b1n/r5r/ppppppppp/11/5P5/4P1P4/3P1B1P3/2P2B2P2/1PRNQBKNRP1 w - 0 1",
    .position_parse = position_parse,
    .position_format = position_format,
    .moves_legal = moves_legal,
    .perft = perft,
    .move_parse = move_parse,
    .move_format = move_format,
    .position_apply = position_apply,
    .position_report = position_report,
    .in_check = in_check,
    .side_to_move = side_to_move,
    .halfmove_clock = halfmove_clock,
    .fullmove_number = fullmove_number,
    .repetition_key = repetition_key,
    .can_drop = can_drop,
};
