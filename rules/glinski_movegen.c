/*
 * glinski_movegen.c — legal move generation and perft on the hexagonal
 * board, on the same plan as Korpalski's: checks and pins once per
 * position, king steps tested with the king lifted, en passant played on
 * the occupancy; with out == NULL it only counts, by popcount.  As there,
 * the same code generates the captures and promotions alone (`noisy`) or
 * the moves between given cells (`from_ok`, `to_ok`), for search.
 */
#include "glinski_int.h"

struct gen {
    struct rules_move *out;
    int n;
    bool noisy;               /* captures and promotions only */
    gl_bits from_ok;          /* moves only from these cells */
    gl_bits to_ok;            /* moves only to these cells */
};

#define GEN_ALL(out) { (out), 0, false, ~(gl_bits)0, ~(gl_bits)0 }

static inline void add(struct gen *g, int from, int to, int piece, int flags)
{
    if (g->out)
        g->out[g->n] = (struct rules_move){ (uint8_t)from, (uint8_t)to,
                                            (uint8_t)piece, (uint8_t)flags };
    g->n++;
}

static inline void add_targets(struct gen *g, const struct gl_pos *p, int from,
                               gl_bits targets)
{
    if (!g->out) {
        g->n += gl_count(targets);
        return;
    }
    gl_bits enemy = p->occupied[p->side ^ 1];
    while (targets) {
        int to = gl_pop(&targets);
        add(g, from, to, RULES_NO_PIECE, (gl_bit(to) & enemy) ? RULES_MOVE_CAPTURE : 0);
    }
}

static inline void add_pawn(struct gen *g, int from, int to, int flags, gl_bits last)
{
    if (!(gl_bit(to) & last)) {
        add(g, from, to, RULES_NO_PIECE, flags);
        return;
    }
    for (int t = RULES_QUEEN; t >= RULES_KNIGHT; t--)
        add(g, from, to, t, flags | RULES_MOVE_PROMOTION);
}

static bool ep_legal(const struct gl_pos *p, int from, int ep)
{
    int us = p->side, them = us ^ 1;
    int ksq = gl_king_cell(p, us);
    int captured = gl_step(us == RULES_WHITE ? GL_SOUTH : GL_NORTH, ep);
    const gl_bits *pc = p->pieces[them];
    gl_bits occ = (p->occupied[0] | p->occupied[1]) ^ gl_bit(from) ^ gl_bit(captured) ^
                  gl_bit(ep);

    if (ksq == GL_NONE)
        return false;
    return ((gl_pawn_attacks(us, ksq) & pc[RULES_PAWN] & ~gl_bit(captured)) |
            (gl_knight_attacks(ksq) & pc[RULES_KNIGHT]) |
            (gl_king_attacks(ksq) & pc[RULES_KING]) |
            (gl_bishop_attacks(ksq, occ) & (pc[RULES_BISHOP] | pc[RULES_QUEEN])) |
            (gl_rook_attacks(ksq, occ) & (pc[RULES_ROOK] | pc[RULES_QUEEN]))) == 0;
}

bool gl_ep_capture_legal(const struct gl_pos *p, int ep)
{
    gl_bits capturers = gl_pawn_attacks(p->side ^ 1, ep) & p->pieces[p->side][RULES_PAWN];
    while (capturers)
        if (ep_legal(p, gl_pop(&capturers), ep))
            return true;
    return false;
}

static gl_bits pinned_men(const struct gl_pos *p, int ksq, gl_bits occ)
{
    const gl_bits *pc = p->pieces[p->side ^ 1];
    gl_bits pinned = 0;
    gl_bits snipers = (gl_rook_attacks(ksq, 0) & (pc[RULES_ROOK] | pc[RULES_QUEEN])) |
                      (gl_bishop_attacks(ksq, 0) & (pc[RULES_BISHOP] | pc[RULES_QUEEN]));
    while (snipers) {
        gl_bits between = gl_between(ksq, gl_pop(&snipers)) & occ;
        if (between && !(between & (between - 1)) && (between & p->occupied[p->side]))
            pinned |= between;
    }
    return pinned;
}

static void gen_pawns(struct gen *g, const struct gl_pos *p, int ksq, gl_bits pinned,
                      gl_bits mask)
{
    int us = p->side;
    int fwd = us == RULES_WHITE ? GL_NORTH : GL_SOUTH;
    gl_bits occ = p->occupied[0] | p->occupied[1];
    gl_bits start = gl_start_cells(us), last = gl_last_cells(us);
    gl_bits pawns = p->pieces[us][RULES_PAWN] & g->from_ok;
    /* Pushes: every one, or for the noisy moves only those that promote. */
    gl_bits push_ok = g->noisy ? last : ~(gl_bits)0;

    while (pawns) {
        int from = gl_pop(&pawns);
        gl_bits allowed = mask;
        if (pinned & gl_bit(from))
            allowed &= gl_line(ksq, from);
        int one = gl_step(fwd, from);
        if (one != GL_NONE && !(occ & gl_bit(one))) {
            if (allowed & push_ok & gl_bit(one))
                add_pawn(g, from, one, 0, last);
            if (start & gl_bit(from)) {
                int two = gl_step(fwd, one);
                if (two != GL_NONE && !(occ & gl_bit(two)) &&
                    (allowed & push_ok & gl_bit(two)))
                    add(g, from, two, RULES_NO_PIECE, RULES_MOVE_DOUBLE_STEP);
            }
        }
        gl_bits caps = gl_pawn_attacks(us, from) & p->occupied[us ^ 1] & allowed;
        while (caps)
            add_pawn(g, from, gl_pop(&caps), RULES_MOVE_CAPTURE, last);
    }
    if (p->ep != GL_NONE && (g->to_ok & gl_bit(p->ep))) {
        gl_bits capturers = gl_pawn_attacks(us ^ 1, p->ep) & p->pieces[us][RULES_PAWN] &
                            g->from_ok;
        while (capturers) {
            int from = gl_pop(&capturers);
            if (ep_legal(p, from, p->ep))
                add(g, from, p->ep, RULES_NO_PIECE, RULES_MOVE_CAPTURE | RULES_MOVE_EN_PASSANT);
        }
    }
}

static int generate_part(struct gen *gp, const struct gl_pos *p)
{
    struct gen g = *gp;
    int us = p->side, them = us ^ 1;
    int ksq = gl_king_cell(p, us);
    gl_bits occ = p->occupied[0] | p->occupied[1];
    gl_bits own = p->occupied[us];

    if (ksq == GL_NONE)
        return 0;
    gl_bits checkers = gl_attackers(p, ksq, them, occ);
    gl_bits steps = gl_king_attacks(ksq) & ~own & g.to_ok;
    if (!(g.from_ok & gl_bit(ksq)))
        steps = 0;
    if (g.noisy)
        steps &= p->occupied[them];
    gl_bits lifted = occ ^ gl_bit(ksq);
    while (steps) {
        int to = gl_pop(&steps);
        if (!gl_attackers(p, to, them, lifted))
            add(&g, ksq, to, RULES_NO_PIECE,
                (gl_bit(to) & p->occupied[them]) ? RULES_MOVE_CAPTURE : 0);
    }
    if (checkers & (checkers - 1))
        return g.n;

    gl_bits mask = ~own;
    if (checkers)
        mask = gl_between(ksq, gl_lsb(checkers)) | checkers;
    gl_bits pinned = pinned_men(p, ksq, occ);
    mask &= g.to_ok;
    /* The pieces' targets; the pawns' pushes are sorted out by gen_pawns. */
    gl_bits piece_mask = g.noisy ? mask & p->occupied[them] : mask;

    gl_bits knights = p->pieces[us][RULES_KNIGHT] & ~pinned & g.from_ok;
    while (knights) {
        int from = gl_pop(&knights);
        add_targets(&g, p, from, gl_knight_attacks(from) & piece_mask);
    }
    gl_bits diag = (p->pieces[us][RULES_BISHOP] | p->pieces[us][RULES_QUEEN]) & g.from_ok;
    while (diag) {
        int from = gl_pop(&diag);
        gl_bits t = gl_bishop_attacks(from, occ) & piece_mask;
        if (pinned & gl_bit(from))
            t &= gl_line(ksq, from);
        add_targets(&g, p, from, t);
    }
    gl_bits orth = (p->pieces[us][RULES_ROOK] | p->pieces[us][RULES_QUEEN]) & g.from_ok;
    while (orth) {
        int from = gl_pop(&orth);
        gl_bits t = gl_rook_attacks(from, occ) & piece_mask;
        if (pinned & gl_bit(from))
            t &= gl_line(ksq, from);
        add_targets(&g, p, from, t);
    }
    gen_pawns(&g, p, ksq, pinned, mask);
    return g.n;
}

static int generate(const struct gl_pos *p, struct rules_move *out)
{
    struct gen g = GEN_ALL(out);
    return generate_part(&g, p);
}

int gl_generate(const struct gl_pos *p, struct rules_move *out)
{
    return generate(p, out);
}

int gl_generate_noisy(const struct gl_pos *p, struct rules_move *out)
{
    struct gen g = GEN_ALL(out);
    g.noisy = true;
    return generate_part(&g, p);
}

bool gl_move_legal_fast(const struct gl_pos *p, struct rules_move m)
{
    struct rules_move found[8];
    struct gen g = GEN_ALL(found);

    if ((m.flags & RULES_MOVE_DROP) || m.from >= GL_CELLS || m.to >= GL_CELLS)
        return false;
    g.from_ok = gl_bit(m.from);
    g.to_ok = gl_bit(m.to);
    int n = generate_part(&g, p);
    for (int i = 0; i < n; i++)
        if (rules_move_equal(found[i], m))
            return true;
    return false;
}

uint64_t gl_perft(const struct gl_pos *p, int depth)
{
    struct rules_move moves[RULES_MAX_MOVES];
    uint64_t total = 0;

    if (depth <= 0)
        return 1;
    if (depth == 1)
        return (uint64_t)generate(p, NULL);
    int n = generate(p, moves);
    for (int i = 0; i < n; i++) {
        struct gl_pos next = *p;
        gl_apply(&next, moves[i]);
        total += gl_perft(&next, depth - 1);
    }
    return total;
}

int gl_pseudo_moves(const struct gl_pos *p, struct rules_move *out)
{
    struct gen g = GEN_ALL(out);
    int us = p->side, fwd = us == RULES_WHITE ? GL_NORTH : GL_SOUTH;
    gl_bits occ = p->occupied[0] | p->occupied[1], own = p->occupied[us];
    gl_bits start = gl_start_cells(us), last = gl_last_cells(us);

    if (gl_king_cell(p, us) == GL_NONE)
        return 0;
    for (gl_bits men = own; men;) {
        int from = gl_pop(&men);
        int type = GL_TYPE(p->board[from]);
        gl_bits t = 0;
        switch (type) {
        case RULES_KNIGHT: t = gl_knight_attacks(from); break;
        case RULES_BISHOP: t = gl_bishop_attacks(from, occ); break;
        case RULES_ROOK: t = gl_rook_attacks(from, occ); break;
        case RULES_QUEEN: t = gl_bishop_attacks(from, occ) | gl_rook_attacks(from, occ); break;
        case RULES_KING: t = gl_king_attacks(from); break;
        default: {
            int one = gl_step(fwd, from);
            if (one != GL_NONE && !(occ & gl_bit(one))) {
                add_pawn(&g, from, one, 0, last);
                int two = gl_step(fwd, one);
                if ((start & gl_bit(from)) && two != GL_NONE && !(occ & gl_bit(two)))
                    add(&g, from, two, RULES_NO_PIECE, RULES_MOVE_DOUBLE_STEP);
            }
            gl_bits caps = gl_pawn_attacks(us, from) & p->occupied[us ^ 1];
            while (caps)
                add_pawn(&g, from, gl_pop(&caps), RULES_MOVE_CAPTURE, last);
            if (p->ep != GL_NONE && (gl_pawn_attacks(us, from) & gl_bit(p->ep)))
                add(&g, from, p->ep, RULES_NO_PIECE, RULES_MOVE_CAPTURE | RULES_MOVE_EN_PASSANT);
            continue;
        }
        }
        add_targets(&g, p, from, t & ~own);
    }
    return g.n;
}
