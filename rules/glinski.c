/*
 * glinski.c — Glinski's hexagonal chess as a rules_variant: the entries
 * shared with every board (variant_generic.h) and Glinski's own: moves read
 * with English or Hungarian letters, draws agreed at any time, stalemate
 * scored 3/4.
 */
#include "glinski_board.h"
#include "report_int.h"
#include "zobrist_int.h"

#include <string.h>

/* Both dialects read both sets of letters, so that a record may mix them
 * move by move and a move in Hungarian letters is read whatever the
 * dialect: they differ only where a letter is in both, B (a bishop in
 * English, a rook in Hungarian: bástya). */
static const char *const english[] = { NOTATION_LETTERS_ENGLISH, NOTATION_LETTERS_HUNGARIAN,
                                       NULL };
static const char *const hungarian[] = { NOTATION_LETTERS_HUNGARIAN, NOTATION_LETTERS_ENGLISH,
                                         NULL };

#define BD_LETTER_SETS(dialect) ((dialect) == RULES_DIALECT_HUNGARIAN ? hungarian : english)
#define BD_STYLE(how) (&notation_san)
#include "variant_generic.h"

/* Glinski: a draw may be agreed at any time. */
static bool draw_agreement_allowed(const struct rules_position *pos, struct rules_why *why)
{
    (void)pos;
    (void)why;
    return true;
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
    report_common(pos, out);
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
    VARIANT_GENERIC_ENTRIES,
};
