/*
 * glinski_search_more.c — the second part of the search helpers (rules.h,
 * "For search") on the hexagonal board: the captures-and-promotions
 * generator, the one-move legality test, the incremental repetition key,
 * the whole-board view and the attackers of a cell.
 */
#include "glinski_int.h"
#include "zobrist_int.h"

static struct rules_cells cells_of(gl_bits b)
{
    return (struct rules_cells){ { (uint64_t)b, (uint64_t)(b >> 64) } };
}

int gl_search_noisy(const struct rules_position *pos, struct rules_move *out)
{
    return gl_generate_noisy(gl_const(pos), out);
}

bool gl_search_legal(const struct rules_position *pos, struct rules_move move)
{
    return gl_move_legal_fast(gl_const(pos), move);
}

/* The key's share of one cell. */
static uint64_t cell_key(const struct gl_pos *p, int cell)
{
    return p->board[cell] == GL_EMPTY ? 0 : zobrist(ZOBRIST_MAN, 16 + p->board[cell], cell);
}

uint64_t gl_search_key_after(const struct rules_position *before, uint64_t key,
                             struct rules_move move, const struct rules_position *after)
{
    const struct gl_pos *b = gl_const(before), *a = gl_const(after);

    key ^= zobrist(ZOBRIST_SIDE, 1, 0);
    if (b->ep != GL_NONE)
        key ^= zobrist(ZOBRIST_EP, 1, b->ep);
    if (a->ep != GL_NONE)
        key ^= zobrist(ZOBRIST_EP, 1, a->ep);
    key ^= cell_key(b, move.from) ^ cell_key(a, move.from);
    key ^= cell_key(b, move.to) ^ cell_key(a, move.to);
    if (move.flags & RULES_MOVE_EN_PASSANT) {
        int victim = gl_step(b->side == RULES_WHITE ? GL_SOUTH : GL_NORTH, move.to);
        key ^= cell_key(b, victim) ^ cell_key(a, victim);
    }
    return key;
}

void gl_search_view(const struct rules_position *pos, struct rules_view *out)
{
    const struct gl_pos *p = gl_const(pos);
    gl_bits occ = p->occupied[0] | p->occupied[1];

    for (int cell = 0; cell < GL_CELLS; cell++)
        out->man[cell] = p->board[cell] == GL_EMPTY ? RULES_NO_MAN
                                                    : RULES_MAN(GL_COLOR(p->board[cell]),
                                                                GL_TYPE(p->board[cell]));
    for (int c = 0; c < 2; c++) {
        out->occupied[c] = cells_of(p->occupied[c]);
        out->king[c] = -1;
        for (int t = 0; t < RULES_PIECE_TYPES; t++)
            out->reserve[c][t] = 0;
        if (p->pieces[c][RULES_KING])
            out->king[c] = (int8_t)gl_lsb(p->pieces[c][RULES_KING]);
    }
    out->side = p->side;
    for (gl_bits men = occ; men;) {
        int cell = gl_pop(&men), color = GL_COLOR(p->board[cell]);
        gl_bits a;
        switch (GL_TYPE(p->board[cell])) {
        case RULES_PAWN: a = gl_pawn_attacks(color, cell); break;
        case RULES_KNIGHT: a = gl_knight_attacks(cell); break;
        case RULES_BISHOP: a = gl_bishop_attacks(cell, occ); break;
        case RULES_ROOK: a = gl_rook_attacks(cell, occ); break;
        case RULES_QUEEN: a = gl_bishop_attacks(cell, occ) | gl_rook_attacks(cell, occ); break;
        default: a = gl_king_attacks(cell); break;
        }
        out->attacks[cell] = cells_of(a);
    }
}

struct rules_cells gl_search_attackers(const struct rules_position *pos, int cell,
                                       struct rules_cells removed)
{
    const struct gl_pos *p = gl_const(pos);
    gl_bits occ = (p->occupied[0] | p->occupied[1]) &
                  ~((gl_bits)removed.w[0] | (gl_bits)removed.w[1] << 64);

    if (cell < 0 || cell >= GL_CELLS)
        return cells_of(0);
    return cells_of((gl_attackers(p, cell, RULES_WHITE, occ) |
                     gl_attackers(p, cell, RULES_BLACK, occ)) & occ);
}
