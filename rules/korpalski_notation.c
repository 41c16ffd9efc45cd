/*
 * korpalski_notation.c — the 8x8 board's cell names for the shared notation
 * code, and the reasons a Korpalski move is illegal, in words.
 */
#include "korpalski_int.h"

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

static int piece_at(const struct rules_position *pos, int cell)
{
    uint8_t code = kp_const(pos)->board[cell];
    return code == KP_EMPTY ? -1 : KP_TYPE(code);
}

const struct notation_geometry kp_geometry = {
    cell_parse, cell_name, file_parse, cell_file, cell_rank, piece_at
};

static const char *side(int c) { return c ? "black" : "white"; }

static bool explain_drop(const struct kp_pos *p, const struct notation_pattern *pat,
                         char *why)
{
    int us = p->side;
    int ksq = kp_king_square(p, us), eksq = kp_king_square(p, us ^ 1);
    const char *name = notation_piece_names[pat->piece];
    char to[4];

    cell_name(pat->to, to);
    if (ksq == KP_NO_SQUARE && pat->piece != RULES_KING)
        snprintf(why, RULES_WHY_MAX, "illegal drop: %s must place its king first", side(us));
    else if (p->reserve[us][pat->piece] == 0)
        snprintf(why, RULES_WHY_MAX, "illegal drop: %s has no %s in reserve", side(us), name);
    else if (p->board[pat->to] != KP_EMPTY)
        snprintf(why, RULES_WHY_MAX, "illegal drop: %s is occupied; drops never capture", to);
    else if (pat->piece == RULES_PAWN && (bb_of(pat->to) & (KP_RANK_1 | KP_RANK_8)))
        snprintf(why, RULES_WHY_MAX, "illegal drop: pawns may be dropped on ranks 2-7 only");
    else if (eksq != KP_NO_SQUARE &&
             (kp_checking_squares(p, pat->piece, us, eksq) & bb_of(pat->to)))
        snprintf(why, RULES_WHY_MAX,
                 pat->piece == RULES_KING ? "illegal drop: the kings may not stand next to each other"
                                          : "illegal drop: a %s on %s would give check",
                 name, to);
    else if (kp_in_check(p))
        snprintf(why, RULES_WHY_MAX,
                 "illegal drop: %s is in check and a %s on %s does not block it",
                 side(us), name, to);
    else
        return false;
    return true;
}

static bool explain_promotion(const struct kp_pos *p, const struct notation_pattern *pat,
                              char *why)
{
    static const char *const names[] = { "", "knight", "bishop", "rook", "queen" };
    int us = p->side;
    unsigned prison = kp_prison_types(p, us);
    char held[64] = "";
    size_t n = 0;

    if (pat->to < 0 || !(bb_of(pat->to) & (us ? KP_RANK_1 : KP_RANK_8)) ||
        p->pieces[us][RULES_PAWN] == 0)
        return false;
    if (pat->piece != RULES_PAWN && pat->promo < 0)
        return false;
    if (!prison) {
        snprintf(why, RULES_WHY_MAX,
                 "illegal move: a pawn may reach the last rank only by promoting to a "
                 "captured piece, and %s's prison is empty", side(us));
        return true;
    }
    if (pat->promo < 0 || (prison & (1u << pat->promo)))
        return false;
    for (int t = RULES_QUEEN; t >= RULES_KNIGHT; t--)
        if (prison & (1u << t))
            n += (size_t)snprintf(held + n, sizeof held - n, "%s%s", n ? ", " : "", names[t]);
    snprintf(why, RULES_WHY_MAX, "illegal move: cannot promote to a %s; %s's prison holds: %s",
             names[pat->promo], side(us), held);
    return true;
}

bool kp_explain_illegal(const struct rules_position *pos,
                        const struct notation_pattern *pat, char *why)
{
    const struct kp_pos *p = kp_const(pos);
    if (pat->drop)
        return explain_drop(p, pat, why);
    if (kp_king_square(p, p->side) == KP_NO_SQUARE) {
        snprintf(why, RULES_WHY_MAX, "illegal move: %s must first place its king (K@square)",
                 side(p->side));
        return true;
    }
    int ksq = kp_king_square(p, p->side);
    if (pat->piece == RULES_KING && pat->to >= 0 &&
        (kp_king_attacks(ksq) & bb_of(pat->to) & ~p->occupied[p->side])) {
        char to[4];
        cell_name(pat->to, to);
        snprintf(why, RULES_WHY_MAX, "illegal move: the king would be in check on %s", to);
        return true;
    }
    return explain_promotion(p, pat, why);
}
