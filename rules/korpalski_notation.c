/*
 * korpalski_notation.c — the 8x8 board's cell names for the shared notation
 * code, and the reasons a Korpalski move is illegal, in words.
 */
#include "korpalski_board.h"
#include "report_int.h"

#include <stdio.h>

static int cell_parse(const char *s, int *len)
{
    if (s[0] < 'a' || s[0] > 'h' || s[1] < '1' || s[1] > '8')
        return -1;
    *len = 2;
    return (s[1] - '1') * 8 + (s[0] - 'a');
}

static void cell_name(int cell, char *buf)
{
    buf[0] = (char)('a' + cell % 8);
    buf[1] = (char)('1' + cell / 8);
    buf[2] = '\0';
}

static int file_parse(char c) { return c >= 'a' && c <= 'h' ? c - 'a' : -1; }
static int cell_file(int cell) { return cell % 8; }
static int cell_rank(int cell) { return cell / 8 + 1; }

static char file_letter(int file) { return (char)('a' + file); }

const struct notation_geometry kp_geometry = {
    .cells = 64,
    .cell_parse = cell_parse,
    .cell_name = cell_name,
    .file_parse = file_parse,
    .file_letter = file_letter,
    .cell_file = cell_file,
    .cell_rank = cell_rank,
    .piece_at = board_piece_at,
    .color_at = board_color_at,
    .apply = board_apply,
    .pseudo_moves = board_pseudo_moves,
    .explain = kp_explain_illegal,
};

static const char *side(int c) { return c ? "black" : "white"; }

static bool explain_drop(const struct kp_pos *p, const struct notation_pattern *pat,
                         struct rules_why *why)
{
    int us = p->side;
    int ksq = kp_king_cell(p, us), eksq = kp_king_cell(p, us ^ 1);
    const char *name = notation_piece_names[pat->piece];
    char to[4];

    cell_name(pat->to, to);
    if (ksq == KP_NO_SQUARE && pat->piece != RULES_KING)
        why_set(why, RULES_REASON_KING_NOT_PLACED,
                "illegal drop: %s must place its king first", side(us));
    else if (p->reserve[us][pat->piece] == 0)
        why_set(why, RULES_REASON_NOT_IN_RESERVE, "illegal drop: %s has no %s in reserve",
                side(us), name);
    else if (p->board[pat->to] != KP_EMPTY)
        why_set(why, RULES_REASON_DROP_ON_OCCUPIED_SQUARE,
                "illegal drop: %s is occupied; drops never capture", to);
    else if (pat->piece == RULES_PAWN && (bb_of(pat->to) & (KP_RANK_1 | KP_RANK_8)))
        why_set(why, RULES_REASON_PAWN_DROP_RANK,
                "illegal drop: pawns may be dropped on ranks 2-7 only");
    else if (pat->piece == RULES_KING && eksq != KP_NO_SQUARE &&
             (kp_king_attacks(eksq) & bb_of(pat->to)))
        why_set(why, RULES_REASON_KINGS_ADJACENT,
                "illegal drop: the kings may not stand next to each other");
    else if (pat->piece != RULES_KING && eksq != KP_NO_SQUARE &&
             (kp_checking_squares(p, pat->piece, us, eksq) & bb_of(pat->to)))
        why_set(why, RULES_REASON_DROP_GIVES_CHECK,
                "illegal drop: a %s on %s would give check", name, to);
    else if (kp_in_check(p))
        why_set(why, RULES_REASON_KING_IN_CHECK,
                "illegal drop: %s is in check and a %s on %s does not block it",
                side(us), name, to);
    else
        return false;
    return true;
}

/* Whether a pawn of the side to move could step or capture onto `to`,
 * promotion aside. */
static bool pawn_reaches(const struct kp_pos *p, int to)
{
    int us = p->side;
    uint64_t pawns = p->pieces[us][RULES_PAWN];
    int behind = us == RULES_WHITE ? to - 8 : to + 8;
    if (p->board[to] == KP_EMPTY)
        return behind >= 0 && behind < 64 && (pawns & bb_of(behind));
    if (KP_COLOR(p->board[to]) == us)
        return false;
    return (kp_pawn_attacks(us ^ 1, to) & pawns) != 0;
}

static bool explain_promotion(const struct kp_pos *p, const struct notation_pattern *pat,
                              struct rules_why *why)
{
    static const char *const names[] = { "", "knight", "bishop", "rook", "queen" };
    int us = p->side;
    unsigned prison = kp_prison_types(p, us);
    char held[64] = "";
    size_t n = 0;

    if (pat->to < 0 || !(bb_of(pat->to) & (us ? KP_RANK_1 : KP_RANK_8)) ||
        !pawn_reaches(p, pat->to))
        return false;
    if (pat->piece != RULES_PAWN && pat->promo < 0)
        return false;
    if (!prison) {
        why_set(why, RULES_REASON_PRISON_EMPTY,
                "illegal move: a pawn may reach the last rank only by promoting to a "
                "captured piece, and %s's prison is empty", side(us));
        return true;
    }
    if (pat->promo < 0 || (prison & (1u << pat->promo)))
        return false;
    for (int t = RULES_QUEEN; t >= RULES_KNIGHT; t--)
        if (prison & (1u << t))
            n += (size_t)snprintf(held + n, sizeof held - n, "%s%s", n ? ", " : "", names[t]);
    why_set(why, RULES_REASON_PROMOTION_PIECE_NOT_CAPTURED,
            "illegal move: cannot promote to a %s; %s's prison holds: %s",
            names[pat->promo], side(us), held);
    return true;
}

bool kp_explain_illegal(const struct rules_position *pos,
                        const struct notation_pattern *pat, struct rules_why *why)
{
    const struct kp_pos *p = kp_const(pos);
    if (pat->drop)
        return explain_drop(p, pat, why);
    if (kp_king_cell(p, p->side) == KP_NO_SQUARE) {
        why_set(why, RULES_REASON_KING_NOT_PLACED,
                "illegal move: %s must first place its king (K@square)", side(p->side));
        return true;
    }
    return explain_promotion(p, pat, why);
}
