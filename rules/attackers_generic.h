/*
 * attackers_generic.h — who attacks a cell, where the king stands and
 * whether it is in check, written once for both boards: the tail of a
 * variant's attack-table file (korpalski_attacks.c, glinski_board.c),
 * included after its board header so that the table lookups inline.  It
 * defines the variant's attackers, king_cell and in_check.
 */

BD_BITS BD(attackers)(const BD_POS *p, int cell, int by, BD_BITS occ)
{
    const BD_BITS *pc = p->pieces[by];
    BD_BITS diag = pc[RULES_BISHOP] | pc[RULES_QUEEN];
    BD_BITS orth = pc[RULES_ROOK] | pc[RULES_QUEEN];
    return (BD(pawn_attacks)(by ^ 1, cell) & pc[RULES_PAWN]) |
           (BD(knight_attacks)(cell) & pc[RULES_KNIGHT]) |
           (BD(king_attacks)(cell) & pc[RULES_KING]) |
           (diag ? BD(bishop_attacks)(cell, occ) & diag : 0) |
           (orth ? BD(rook_attacks)(cell, occ) & orth : 0);
}

int BD(king_cell)(const BD_POS *p, int color)
{
    BD_BITS k = p->pieces[color][RULES_KING];
    return k ? BD_LSB(k) : BD_NONE;
}

bool BD(in_check)(const BD_POS *p)
{
    int k = BD(king_cell)(p, p->side);
    if (k == BD_NONE)
        return false;
    return BD(attackers)(p, k, p->side ^ 1, p->occupied[0] | p->occupied[1]) != 0;
}
