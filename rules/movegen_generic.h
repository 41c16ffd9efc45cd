/*
 * movegen_generic.h — legal move generation and perft, written once for
 * both boards.
 *
 * Moves are generated legal from the start: pins and checks are computed
 * once per position, king steps are tested against the enemy's attacks with
 * the king lifted off the board, and en passant is tested by playing it on
 * the occupancy.  With out == NULL the generator only counts, using
 * popcounts, which is what makes the last ply of perft cheap.  For search
 * the same code also generates a part of the legal moves: the captures and
 * promotions alone (`noisy`), or the moves from given cells to given cells
 * (`from_ok`, `to_ok`, `drop_types`), which is how one move is tested for
 * legality without generating the others.
 *
 * This is the body of a generator, not a header: a variant's movegen file
 * includes it once, after its board header (korpalski_board.h,
 * glinski_board.h, which describes the board in the BD_ names listed
 * there), and gets its own static copy, specialised by the compiler for its
 * bitboard type.  The generator is the hot loop of search and perft, so the
 * board's primitives are resolved at compile time rather than through
 * pointers.  Where BD_DROPS is 1 the file defines gen_drops() and
 * gen_placement() as well.  It defines the variant's generate,
 * generate_noisy, move_legal_fast, ep_capture_legal, perft and pseudo_moves
 * (kp_generate, gl_generate, ...).
 */

struct gen {
    struct rules_move *out;   /* NULL: count only */
    int n;
    bool noisy;               /* captures and promotions only, no drops */
    BD_BITS from_ok;          /* board moves only from these cells */
    BD_BITS to_ok;            /* moves and drops only to these cells */
    unsigned drop_types;      /* drops only of these types (1 << type) */
};

#define GEN_ALL(out) { (out), 0, false, ~(BD_BITS)0, ~(BD_BITS)0, ~0u }

static inline void add(struct gen *g, int from, int to, int piece, int flags)
{
    if (g->out)
        g->out[g->n] = (struct rules_move){ (uint8_t)from, (uint8_t)to,
                                            (uint8_t)piece, (uint8_t)flags };
    g->n++;
}

static inline void add_targets(struct gen *g, const BD_POS *p, int from, BD_BITS targets)
{
    if (!g->out) {
        g->n += BD_COUNT(targets);
        return;
    }
    BD_BITS enemy = p->occupied[p->side ^ 1];
    while (targets) {
        int to = BD_POP(&targets);
        add(g, from, to, RULES_NO_PIECE, (BD_BIT(to) & enemy) ? RULES_MOVE_CAPTURE : 0);
    }
}

/* A pawn move to `to`: one move, or one per type it may become on `last`. */
static inline void add_pawn(struct gen *g, int from, int to, int flags, BD_BITS last,
                            unsigned promotions)
{
    static const uint8_t order[] = BD_PROMOTION_ORDER;

    if (!(BD_BIT(to) & last)) {
        add(g, from, to, RULES_NO_PIECE, flags);
        return;
    }
    for (size_t i = 0; i < sizeof order; i++)
        if (promotions & (1u << order[i]))
            add(g, from, to, order[i], flags | RULES_MOVE_PROMOTION);
}

/* Whether the pawn on `from` may take en passant on `ep` without leaving
 * its king attacked. */
static bool ep_legal(const BD_POS *p, int from, int ep)
{
    int us = p->side, them = us ^ 1;
    int ksq = BD(king_cell)(p, us);
    int captured = BD_AHEAD(them, ep);
    const BD_BITS *pc = p->pieces[them];
    BD_BITS occ = (p->occupied[0] | p->occupied[1]) ^ BD_BIT(from) ^ BD_BIT(captured) ^
                  BD_BIT(ep);

    if (ksq == BD_NONE)
        return false;
    return ((BD(pawn_attacks)(us, ksq) & pc[RULES_PAWN] & ~BD_BIT(captured)) |
            (BD(knight_attacks)(ksq) & pc[RULES_KNIGHT]) |
            (BD(king_attacks)(ksq) & pc[RULES_KING]) |
            (BD(bishop_attacks)(ksq, occ) & (pc[RULES_BISHOP] | pc[RULES_QUEEN])) |
            (BD(rook_attacks)(ksq, occ) & (pc[RULES_ROOK] | pc[RULES_QUEEN]))) == 0;
}

bool BD(ep_capture_legal)(const BD_POS *p, int ep)
{
    BD_BITS capturers = BD(pawn_attacks)(p->side ^ 1, ep) & p->pieces[p->side][RULES_PAWN];
    while (capturers)
        if (ep_legal(p, BD_POP(&capturers), ep))
            return true;
    return false;
}

static BD_BITS pinned_men(const BD_POS *p, int ksq, BD_BITS occ)
{
    const BD_BITS *pc = p->pieces[p->side ^ 1];
    BD_BITS pinned = 0;
    BD_BITS snipers = (BD(rook_attacks)(ksq, 0) & (pc[RULES_ROOK] | pc[RULES_QUEEN])) |
                      (BD(bishop_attacks)(ksq, 0) & (pc[RULES_BISHOP] | pc[RULES_QUEEN]));
    while (snipers) {
        BD_BITS between = BD(between)(ksq, BD_POP(&snipers)) & occ;
        if (between && !(between & (between - 1)) && (between & p->occupied[p->side]))
            pinned |= between;
    }
    return pinned;
}

/* The pushes of the pawn on `from` (those allowed by `allowed`). */
static inline void gen_pushes(struct gen *g, int us, int from, BD_BITS occ, BD_BITS allowed,
                              BD_BITS start, BD_BITS last, unsigned promotions)
{
    int one = BD_AHEAD(us, from);
    if (!BD_ON_BOARD(one) || (occ & BD_BIT(one)))
        return;
    if (allowed & BD_BIT(one))
        add_pawn(g, from, one, 0, last, promotions);
    if (start & BD_BIT(from)) {
        int two = BD_AHEAD(us, one);
        if (BD_ON_BOARD(two) && !(occ & BD_BIT(two)) && (allowed & BD_BIT(two)))
            add(g, from, two, RULES_NO_PIECE, RULES_MOVE_DOUBLE_STEP);
    }
}

static void gen_pawns(struct gen *g, const BD_POS *p, int ksq, BD_BITS pinned, BD_BITS mask)
{
    int us = p->side;
    BD_BITS occ = p->occupied[0] | p->occupied[1];
    BD_BITS start = BD_START(us), last = BD_LAST(us);
    unsigned promotions = BD_PROMOTIONS(p, us);
    BD_BITS pawns = p->pieces[us][RULES_PAWN] & g->from_ok;
    /* Pushes: every one, or for the noisy moves only those that promote. */
    BD_BITS push_ok = g->noisy ? last : ~(BD_BITS)0;

    /* With nothing to promote to a pawn cannot enter the last rank at all. */
    if (!promotions)
        mask &= ~last;
    while (pawns) {
        int from = BD_POP(&pawns);
        BD_BITS allowed = mask;
        if (pinned & BD_BIT(from))
            allowed &= BD(line)(ksq, from);
        gen_pushes(g, us, from, occ, allowed & push_ok, start, last, promotions);
        BD_BITS caps = BD(pawn_attacks)(us, from) & p->occupied[us ^ 1] & allowed;
        while (caps)
            add_pawn(g, from, BD_POP(&caps), RULES_MOVE_CAPTURE, last, promotions);
    }
    if (p->ep != BD_NONE && (g->to_ok & BD_BIT(p->ep))) {
        BD_BITS capturers = BD(pawn_attacks)(us ^ 1, p->ep) & p->pieces[us][RULES_PAWN] & g->from_ok;
        while (capturers) {
            int from = BD_POP(&capturers);
            if (ep_legal(p, from, p->ep))
                add(g, from, p->ep, RULES_NO_PIECE, RULES_MOVE_CAPTURE | RULES_MOVE_EN_PASSANT);
        }
    }
}

/* The moves of the sliders `men` along diagonals or orthogonals; a pinned
 * one stays on the line through its king. */
static inline void gen_sliders(struct gen *g, const BD_POS *p, BD_BITS men, bool diagonal,
                               int ksq, BD_BITS pinned, BD_BITS targets)
{
    BD_BITS occ = p->occupied[0] | p->occupied[1];
    while (men) {
        int from = BD_POP(&men);
        BD_BITS t = (diagonal ? BD(bishop_attacks)(from, occ) : BD(rook_attacks)(from, occ)) &
                    targets;
        if (pinned & BD_BIT(from))
            t &= BD(line)(ksq, from);
        add_targets(g, p, from, t);
    }
}

static int generate_part(struct gen *gp, const BD_POS *p)
{
    struct gen g = *gp;
    int us = p->side, them = us ^ 1;
    int ksq = BD(king_cell)(p, us);
    BD_BITS occ = p->occupied[0] | p->occupied[1];
    BD_BITS own = p->occupied[us];

    if (BD_KINGS_MISSING(p, ksq)) {
#if BD_DROPS
        if (ksq == BD_NONE)
            gen_placement(&g, p);
#endif
        return g.n;
    }

    BD_BITS checkers = BD(attackers)(p, ksq, them, occ);
    BD_BITS steps = BD(king_attacks)(ksq) & ~own & g.to_ok;
    if (!(g.from_ok & BD_BIT(ksq)))
        steps = 0;
    if (g.noisy)
        steps &= p->occupied[them];
    BD_BITS lifted = occ ^ BD_BIT(ksq);
    while (steps) {
        int to = BD_POP(&steps);
        if (!BD(attackers)(p, to, them, lifted))
            add(&g, ksq, to, RULES_NO_PIECE,
                (BD_BIT(to) & p->occupied[them]) ? RULES_MOVE_CAPTURE : 0);
    }
    if (checkers & (checkers - 1))
        return g.n;

    BD_BITS mask = ~own;
#if BD_DROPS
    BD_BITS drop_where = ~occ;
#endif
    if (checkers) {
        BD_BITS block = BD(between)(ksq, BD_LSB(checkers));
        mask = block | checkers;
#if BD_DROPS
        drop_where = block;
#endif
    }
    BD_BITS pinned = pinned_men(p, ksq, occ);
    mask &= g.to_ok;
    /* The pieces' targets; the pawns' pushes are sorted out by gen_pawns. */
    BD_BITS piece_mask = g.noisy ? mask & p->occupied[them] : mask;

    BD_BITS knights = p->pieces[us][RULES_KNIGHT] & ~pinned & g.from_ok;
    while (knights) {
        int from = BD_POP(&knights);
        add_targets(&g, p, from, BD(knight_attacks)(from) & piece_mask);
    }
    BD_BITS queens = p->pieces[us][RULES_QUEEN];
    gen_sliders(&g, p, (p->pieces[us][RULES_BISHOP] | queens) & g.from_ok, true, ksq, pinned,
                piece_mask);
    gen_sliders(&g, p, (p->pieces[us][RULES_ROOK] | queens) & g.from_ok, false, ksq, pinned,
                piece_mask);
    gen_pawns(&g, p, ksq, pinned, mask);
#if BD_DROPS
    gen_drops(&g, p, drop_where & g.to_ok);
#endif
    return g.n;
}

static int generate(const BD_POS *p, struct rules_move *out)
{
    struct gen g = GEN_ALL(out);
    return generate_part(&g, p);
}

int BD(generate_noisy)(const BD_POS *p, struct rules_move *out)
{
    struct gen g = GEN_ALL(out);
    g.noisy = true;
    return generate_part(&g, p);
}

/* Whether `m` is legal, generating only the moves between its cells. */
bool BD(move_legal_fast)(const BD_POS *p, struct rules_move m)
{
    struct rules_move found[8];
    struct gen g = GEN_ALL(found);

    if (m.to >= BD_CELLS || m.piece > RULES_NO_PIECE)
        return false;
    g.to_ok = BD_BIT(m.to);
    if (m.flags & RULES_MOVE_DROP) {
        if (!BD_DROPS || m.piece >= RULES_PIECE_TYPES)
            return false;
        g.from_ok = 0;
        g.drop_types = 1u << m.piece;
    } else {
        if (m.from >= BD_CELLS)
            return false;
        g.from_ok = BD_BIT(m.from);
        g.drop_types = 0;
    }
    int n = generate_part(&g, p);
    for (int i = 0; i < n; i++)
        if (rules_move_equal(found[i], m))
            return true;
    return false;
}

static uint64_t perft(const BD_POS *p, int depth)
{
    struct rules_move moves[RULES_MAX_MOVES];
    uint64_t total = 0;

    if (depth <= 0)
        return 1;
    if (depth == 1)
        return (uint64_t)generate(p, NULL);
    int n = generate(p, moves);
    for (int i = 0; i < n; i++) {
        BD_POS next = *p;
        BD(apply)(&next, moves[i]);
        total += perft(&next, depth - 1);
    }
    return total;
}

/* Board moves ignoring the mover's king safety (for explanations). */
int BD(pseudo_moves)(const BD_POS *p, struct rules_move *out)
{
    struct gen g = GEN_ALL(out);
    int us = p->side;
    BD_BITS occ = p->occupied[0] | p->occupied[1], own = p->occupied[us];
    BD_BITS start = BD_START(us), last = BD_LAST(us);
    unsigned promotions = BD_PROMOTIONS(p, us);

    if (BD_KINGS_MISSING(p, BD(king_cell)(p, us)))
        return 0;
    for (BD_BITS men = own; men;) {
        int from = BD_POP(&men);
        int type = BD_TYPE(p->board[from]);
        if (type != RULES_PAWN) {
            add_targets(&g, p, from, man_attacks(type, us, from, occ) & ~own);
            continue;
        }
        gen_pushes(&g, us, from, occ, ~(BD_BITS)0, start, last, promotions);
        BD_BITS caps = BD(pawn_attacks)(us, from) & p->occupied[us ^ 1];
        while (caps)
            add_pawn(&g, from, BD_POP(&caps), RULES_MOVE_CAPTURE, last, promotions);
        if (p->ep != BD_NONE && (BD(pawn_attacks)(us, from) & BD_BIT(p->ep)))
            add(&g, from, p->ep, RULES_NO_PIECE, RULES_MOVE_CAPTURE | RULES_MOVE_EN_PASSANT);
    }
    return g.n;
}

int BD(generate)(const BD_POS *p, struct rules_move *out) { return generate(p, out); }

uint64_t BD(perft)(const BD_POS *p, int depth) { return perft(p, depth); }
