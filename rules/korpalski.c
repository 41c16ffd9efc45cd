/*
 * korpalski.c — Korpalski Chess as a rules_variant: the entries shared with
 * every board (variant_generic.h) and Korpalski's own: moves read and
 * written in English or Polish, reserves and drops, draws agreed only when
 * both reserves are empty.
 */
#include "korpalski_board.h"
#include "report_int.h"
#include "zobrist_int.h"

#include <string.h>

static const char *const letter_sets[] = { NOTATION_LETTERS_ENGLISH,
                                           NOTATION_LETTERS_POLISH, NULL };

static const struct notation_style *style_of(enum rules_notation how)
{
    if (how == RULES_NOTATION_POLISH_SHORT)
        return &notation_polish_short;
    if (how == RULES_NOTATION_POLISH_FULL)
        return &notation_polish_full;
    return &notation_san;
}

#define BD_LETTER_SETS(dialect) letter_sets
#define BD_STYLE style_of
#include "variant_generic.h"

static bool can_drop(const struct rules_position *pos, enum rules_color side)
{
    const struct kp_pos *p = kp_const(pos);
    for (int t = 0; t < RULES_PIECE_TYPES; t++)
        if (p->reserve[side][t])
            return true;
    return false;
}

static bool reserves_empty(const struct rules_position *pos)
{
    return !can_drop(pos, RULES_WHITE) && !can_drop(pos, RULES_BLACK);
}

/* §4.4: only when neither side has anything left to drop. */
static bool draw_agreement_allowed(const struct rules_position *pos, struct rules_why *why)
{
    if (reserves_empty(pos))
        return true;
    why_set(why, RULES_REASON_AGREEMENT_NOT_ALLOWED,
            "draw by agreement refused: a draw may be agreed only when both reserves "
            "are empty");
    return false;
}

/* Whether side c owns anything besides its king, on the board or in
 * reserve. */
static bool has_more_than_king(const struct kp_pos *p, int c)
{
    for (int t = RULES_PAWN; t < RULES_KING; t++)
        if (p->pieces[c][t] || p->reserve[c][t])
            return true;
    return false;
}

static void position_report(const struct rules_position *pos,
                            struct rules_report *out)
{
    const struct kp_pos *p = kp_const(pos);
    report_common(pos, out);
    out->insufficient_material = kp_insufficient_material(p);
    out->can_drop[0] = can_drop(pos, RULES_WHITE);
    out->can_drop[1] = can_drop(pos, RULES_BLACK);
    /* §4.1 and the timeout decision: where the material test draws the
     * game, neither side can mate; elsewhere a side can unless it has
     * nothing but its king (reserve included). */
    for (int c = 0; c < 2; c++)
        out->can_mate[c] = !out->insufficient_material && has_more_than_king(p, c);
    out->draw_agreement_allowed = reserves_empty(pos);
    report_decide(out, (enum rules_color)p->side, true);
}

const struct rules_variant rules_korpalski = {
    .name = "korpalski",
    .pgn_name = "Korpalski",
    .start_text = "8/8/8/8/8/8/8/8[KQRRBBNNPPPPPPPPkqrrbbnnpppppppp] w - - 0 1",
    .board = RULES_BOARD_SQUARE_8X8,
    .hungarian_letters = false,
    .polish_notation = true,
    VARIANT_GENERIC_ENTRIES,
};
