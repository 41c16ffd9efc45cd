/*
 * korpalski_search_more.c — the second part of the search helpers
 * (rules.h, "For search"): the captures-and-promotions generator, the
 * one-move legality test, the incremental repetition key, the whole-board
 * view for the evaluation and the attackers of a square for exchanges.
 */
#include "korpalski_int.h"
#include "zobrist_int.h"

int kp_search_noisy(const struct rules_position *pos, struct rules_move *out)
{
    return kp_generate_noisy(kp_const(pos), out);
}

bool kp_search_legal(const struct rules_position *pos, struct rules_move move)
{
    return kp_move_legal_fast(kp_const(pos), move);
}

/* The key's share of one square. */
static uint64_t square_key(const struct kp_pos *p, int sq)
{
    return p->board[sq] == KP_EMPTY ? 0 : zobrist(ZOBRIST_MAN, p->board[sq], sq);
}

uint64_t kp_search_key_after(const struct rules_position *before, uint64_t key,
                             struct rules_move move, const struct rules_position *after)
{
    const struct kp_pos *b = kp_const(before), *a = kp_const(after);
    int us = b->side;

    key ^= zobrist(ZOBRIST_SIDE, 0, 0);
    if (b->ep != KP_NO_SQUARE)
        key ^= zobrist(ZOBRIST_EP, 0, b->ep);
    if (a->ep != KP_NO_SQUARE)
        key ^= zobrist(ZOBRIST_EP, 0, a->ep);
    key ^= square_key(b, move.to) ^ square_key(a, move.to);
    if (move.flags & RULES_MOVE_DROP) {
        int code = us * 8 + move.piece;
        key ^= zobrist(ZOBRIST_RESERVE, code, b->reserve[us][move.piece]) ^
               zobrist(ZOBRIST_RESERVE, code, a->reserve[us][move.piece]);
        return key;
    }
    key ^= square_key(b, move.from) ^ square_key(a, move.from);
    if (move.flags & RULES_MOVE_EN_PASSANT) {
        int victim = us == RULES_WHITE ? move.to - 8 : move.to + 8;
        key ^= square_key(b, victim) ^ square_key(a, victim);
    }
    return key;
}

void kp_search_view(const struct rules_position *pos, struct rules_view *out)
{
    const struct kp_pos *p = kp_const(pos);
    uint64_t occ = p->occupied[0] | p->occupied[1];

    for (int sq = 0; sq < 64; sq++)
        out->man[sq] = p->board[sq] == KP_EMPTY ? RULES_NO_MAN
                                                : RULES_MAN(KP_COLOR(p->board[sq]),
                                                            KP_TYPE(p->board[sq]));
    for (int c = 0; c < 2; c++) {
        out->occupied[c] = (struct rules_cells){ { p->occupied[c], 0 } };
        out->king[c] = -1;
        for (int t = 0; t < RULES_PIECE_TYPES; t++)
            out->reserve[c][t] = p->reserve[c][t];
        if (p->pieces[c][RULES_KING])
            out->king[c] = (int8_t)bb_lsb(p->pieces[c][RULES_KING]);
    }
    out->side = p->side;
    for (uint64_t men = occ; men;) {
        int sq = bb_pop(&men), color = KP_COLOR(p->board[sq]);
        uint64_t a;
        switch (KP_TYPE(p->board[sq])) {
        case RULES_PAWN: a = kp_pawn_attacks(color, sq); break;
        case RULES_KNIGHT: a = kp_knight_attacks(sq); break;
        case RULES_BISHOP: a = kp_bishop_attacks(sq, occ); break;
        case RULES_ROOK: a = kp_rook_attacks(sq, occ); break;
        case RULES_QUEEN: a = kp_bishop_attacks(sq, occ) | kp_rook_attacks(sq, occ); break;
        default: a = kp_king_attacks(sq); break;
        }
        out->attacks[sq] = (struct rules_cells){ { a, 0 } };
    }
}

struct rules_cells kp_search_attackers(const struct rules_position *pos, int cell,
                                       struct rules_cells removed)
{
    const struct kp_pos *p = kp_const(pos);
    uint64_t occ = (p->occupied[0] | p->occupied[1]) & ~removed.w[0];
    struct rules_cells out = { { 0, 0 } };

    if (cell < 0 || cell >= 64)
        return out;
    out.w[0] = (kp_attackers(p, cell, RULES_WHITE, occ) |
                kp_attackers(p, cell, RULES_BLACK, occ)) & occ;
    return out;
}
