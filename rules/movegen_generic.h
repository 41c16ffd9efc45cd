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
 * includes it once, after defining the primitives of its board below, and
 * gets its own static copy, specialised by the compiler for its bitboard
 * type.  The generator is the hot loop of search and perft, so the board's
 * primitives are resolved at compile time rather than through pointers.
 *
 *   MG_POS             the position struct (pieces, occupied, board, side, ep)
 *   MG_BITS            the bitboard type
 *   MG_CELLS, MG_NONE  how many cells; the value for "no cell"
 *   MG_BIT, MG_POP, MG_COUNT, MG_LSB   bitboard basics
 *   MG_KNIGHT(c) MG_KING(c) MG_PAWN(color, c) MG_BISHOP(c, occ) MG_ROOK(c, occ)
 *   MG_BETWEEN(a, b) MG_LINE(a, b)     attack and line tables
 *   MG_ATTACKERS(p, c, by, occ)  MG_KING_CELL(p, color)  MG_APPLY(p, m)
 *   MG_AHEAD(color, c)  the cell one pawn step ahead of c for color (or MG_NONE)
 *   MG_ON_BOARD(c)      whether such a step stayed on the board
 *   MG_START(color) MG_LAST(color)     the pawns' start and promotion cells
 *   MG_PROMOTIONS(p, color)            the types (1 << type) a pawn may become
 *   MG_PROMOTION_ORDER                 the order promotions are listed in
 *   MG_KINGS_MISSING(p, ksq)           no board moves: a king is not on the board
 *   MG_DROPS                           1 where men are dropped from a reserve;
 *                                      then gen_drops() and gen_placement()
 *                                      are defined before this file
 */

struct gen {
    struct rules_move *out;   /* NULL: count only */
    int n;
    bool noisy;               /* captures and promotions only, no drops */
    MG_BITS from_ok;          /* board moves only from these cells */
    MG_BITS to_ok;            /* moves and drops only to these cells */
    unsigned drop_types;      /* drops only of these types (1 << type) */
};

#define GEN_ALL(out) { (out), 0, false, ~(MG_BITS)0, ~(MG_BITS)0, ~0u }

static inline void add(struct gen *g, int from, int to, int piece, int flags)
{
    if (g->out)
        g->out[g->n] = (struct rules_move){ (uint8_t)from, (uint8_t)to,
                                            (uint8_t)piece, (uint8_t)flags };
    g->n++;
}

static inline void add_targets(struct gen *g, const MG_POS *p, int from, MG_BITS targets)
{
    if (!g->out) {
        g->n += MG_COUNT(targets);
        return;
    }
    MG_BITS enemy = p->occupied[p->side ^ 1];
    while (targets) {
        int to = MG_POP(&targets);
        add(g, from, to, RULES_NO_PIECE, (MG_BIT(to) & enemy) ? RULES_MOVE_CAPTURE : 0);
    }
}

/* A pawn move to `to`: one move, or one per type it may become on `last`. */
static inline void add_pawn(struct gen *g, int from, int to, int flags, MG_BITS last,
                            unsigned promotions)
{
    static const uint8_t order[] = MG_PROMOTION_ORDER;

    if (!(MG_BIT(to) & last)) {
        add(g, from, to, RULES_NO_PIECE, flags);
        return;
    }
    for (size_t i = 0; i < sizeof order; i++)
        if (promotions & (1u << order[i]))
            add(g, from, to, order[i], flags | RULES_MOVE_PROMOTION);
}

/* Whether the pawn on `from` may take en passant on `ep` without leaving
 * its king attacked. */
static bool ep_legal(const MG_POS *p, int from, int ep)
{
    int us = p->side, them = us ^ 1;
    int ksq = MG_KING_CELL(p, us);
    int captured = MG_AHEAD(them, ep);
    const MG_BITS *pc = p->pieces[them];
    MG_BITS occ = (p->occupied[0] | p->occupied[1]) ^ MG_BIT(from) ^ MG_BIT(captured) ^
                  MG_BIT(ep);

    if (ksq == MG_NONE)
        return false;
    return ((MG_PAWN(us, ksq) & pc[RULES_PAWN] & ~MG_BIT(captured)) |
            (MG_KNIGHT(ksq) & pc[RULES_KNIGHT]) |
            (MG_KING(ksq) & pc[RULES_KING]) |
            (MG_BISHOP(ksq, occ) & (pc[RULES_BISHOP] | pc[RULES_QUEEN])) |
            (MG_ROOK(ksq, occ) & (pc[RULES_ROOK] | pc[RULES_QUEEN]))) == 0;
}

static bool ep_capture_legal(const MG_POS *p, int ep)
{
    MG_BITS capturers = MG_PAWN(p->side ^ 1, ep) & p->pieces[p->side][RULES_PAWN];
    while (capturers)
        if (ep_legal(p, MG_POP(&capturers), ep))
            return true;
    return false;
}

static MG_BITS pinned_men(const MG_POS *p, int ksq, MG_BITS occ)
{
    const MG_BITS *pc = p->pieces[p->side ^ 1];
    MG_BITS pinned = 0;
    MG_BITS snipers = (MG_ROOK(ksq, 0) & (pc[RULES_ROOK] | pc[RULES_QUEEN])) |
                      (MG_BISHOP(ksq, 0) & (pc[RULES_BISHOP] | pc[RULES_QUEEN]));
    while (snipers) {
        MG_BITS between = MG_BETWEEN(ksq, MG_POP(&snipers)) & occ;
        if (between && !(between & (between - 1)) && (between & p->occupied[p->side]))
            pinned |= between;
    }
    return pinned;
}

/* The pushes of the pawn on `from` (those allowed by `allowed`). */
static inline void gen_pushes(struct gen *g, int us, int from, MG_BITS occ, MG_BITS allowed,
                              MG_BITS start, MG_BITS last, unsigned promotions)
{
    int one = MG_AHEAD(us, from);
    if (!MG_ON_BOARD(one) || (occ & MG_BIT(one)))
        return;
    if (allowed & MG_BIT(one))
        add_pawn(g, from, one, 0, last, promotions);
    if (start & MG_BIT(from)) {
        int two = MG_AHEAD(us, one);
        if (MG_ON_BOARD(two) && !(occ & MG_BIT(two)) && (allowed & MG_BIT(two)))
            add(g, from, two, RULES_NO_PIECE, RULES_MOVE_DOUBLE_STEP);
    }
}

static void gen_pawns(struct gen *g, const MG_POS *p, int ksq, MG_BITS pinned, MG_BITS mask)
{
    int us = p->side;
    MG_BITS occ = p->occupied[0] | p->occupied[1];
    MG_BITS start = MG_START(us), last = MG_LAST(us);
    unsigned promotions = MG_PROMOTIONS(p, us);
    MG_BITS pawns = p->pieces[us][RULES_PAWN] & g->from_ok;
    /* Pushes: every one, or for the noisy moves only those that promote. */
    MG_BITS push_ok = g->noisy ? last : ~(MG_BITS)0;

    /* With nothing to promote to a pawn cannot enter the last rank at all. */
    if (!promotions)
        mask &= ~last;
    while (pawns) {
        int from = MG_POP(&pawns);
        MG_BITS allowed = mask;
        if (pinned & MG_BIT(from))
            allowed &= MG_LINE(ksq, from);
        gen_pushes(g, us, from, occ, allowed & push_ok, start, last, promotions);
        MG_BITS caps = MG_PAWN(us, from) & p->occupied[us ^ 1] & allowed;
        while (caps)
            add_pawn(g, from, MG_POP(&caps), RULES_MOVE_CAPTURE, last, promotions);
    }
    if (p->ep != MG_NONE && (g->to_ok & MG_BIT(p->ep))) {
        MG_BITS capturers = MG_PAWN(us ^ 1, p->ep) & p->pieces[us][RULES_PAWN] & g->from_ok;
        while (capturers) {
            int from = MG_POP(&capturers);
            if (ep_legal(p, from, p->ep))
                add(g, from, p->ep, RULES_NO_PIECE, RULES_MOVE_CAPTURE | RULES_MOVE_EN_PASSANT);
        }
    }
}

static int generate_part(struct gen *gp, const MG_POS *p)
{
    struct gen g = *gp;
    int us = p->side, them = us ^ 1;
    int ksq = MG_KING_CELL(p, us);
    MG_BITS occ = p->occupied[0] | p->occupied[1];
    MG_BITS own = p->occupied[us];

    if (MG_KINGS_MISSING(p, ksq)) {
#if MG_DROPS
        if (ksq == MG_NONE)
            gen_placement(&g, p);
#endif
        return g.n;
    }

    MG_BITS checkers = MG_ATTACKERS(p, ksq, them, occ);
    MG_BITS steps = MG_KING(ksq) & ~own & g.to_ok;
    if (!(g.from_ok & MG_BIT(ksq)))
        steps = 0;
    if (g.noisy)
        steps &= p->occupied[them];
    MG_BITS lifted = occ ^ MG_BIT(ksq);
    while (steps) {
        int to = MG_POP(&steps);
        if (!MG_ATTACKERS(p, to, them, lifted))
            add(&g, ksq, to, RULES_NO_PIECE,
                (MG_BIT(to) & p->occupied[them]) ? RULES_MOVE_CAPTURE : 0);
    }
    if (checkers & (checkers - 1))
        return g.n;

    MG_BITS mask = ~own;
#if MG_DROPS
    MG_BITS drop_where = ~occ;
#endif
    if (checkers) {
        MG_BITS block = MG_BETWEEN(ksq, MG_LSB(checkers));
        mask = block | checkers;
#if MG_DROPS
        drop_where = block;
#endif
    }
    MG_BITS pinned = pinned_men(p, ksq, occ);
    mask &= g.to_ok;
    /* The pieces' targets; the pawns' pushes are sorted out by gen_pawns. */
    MG_BITS piece_mask = g.noisy ? mask & p->occupied[them] : mask;

    MG_BITS knights = p->pieces[us][RULES_KNIGHT] & ~pinned & g.from_ok;
    while (knights) {
        int from = MG_POP(&knights);
        add_targets(&g, p, from, MG_KNIGHT(from) & piece_mask);
    }
    MG_BITS diag = (p->pieces[us][RULES_BISHOP] | p->pieces[us][RULES_QUEEN]) & g.from_ok;
    while (diag) {
        int from = MG_POP(&diag);
        MG_BITS t = MG_BISHOP(from, occ) & piece_mask;
        if (pinned & MG_BIT(from))
            t &= MG_LINE(ksq, from);
        add_targets(&g, p, from, t);
    }
    MG_BITS orth = (p->pieces[us][RULES_ROOK] | p->pieces[us][RULES_QUEEN]) & g.from_ok;
    while (orth) {
        int from = MG_POP(&orth);
        MG_BITS t = MG_ROOK(from, occ) & piece_mask;
        if (pinned & MG_BIT(from))
            t &= MG_LINE(ksq, from);
        add_targets(&g, p, from, t);
    }
    gen_pawns(&g, p, ksq, pinned, mask);
#if MG_DROPS
    gen_drops(&g, p, drop_where & g.to_ok);
#endif
    return g.n;
}

static int generate(const MG_POS *p, struct rules_move *out)
{
    struct gen g = GEN_ALL(out);
    return generate_part(&g, p);
}

static int generate_noisy(const MG_POS *p, struct rules_move *out)
{
    struct gen g = GEN_ALL(out);
    g.noisy = true;
    return generate_part(&g, p);
}

/* Whether `m` is legal, generating only the moves between its cells. */
static bool move_legal_fast(const MG_POS *p, struct rules_move m)
{
    struct rules_move found[8];
    struct gen g = GEN_ALL(found);

    if (m.to >= MG_CELLS || m.piece > RULES_NO_PIECE)
        return false;
    g.to_ok = MG_BIT(m.to);
    if (m.flags & RULES_MOVE_DROP) {
        if (!MG_DROPS || m.piece >= RULES_PIECE_TYPES)
            return false;
        g.from_ok = 0;
        g.drop_types = 1u << m.piece;
    } else {
        if (m.from >= MG_CELLS)
            return false;
        g.from_ok = MG_BIT(m.from);
        g.drop_types = 0;
    }
    int n = generate_part(&g, p);
    for (int i = 0; i < n; i++)
        if (rules_move_equal(found[i], m))
            return true;
    return false;
}

static uint64_t perft(const MG_POS *p, int depth)
{
    struct rules_move moves[RULES_MAX_MOVES];
    uint64_t total = 0;

    if (depth <= 0)
        return 1;
    if (depth == 1)
        return (uint64_t)generate(p, NULL);
    int n = generate(p, moves);
    for (int i = 0; i < n; i++) {
        MG_POS next = *p;
        MG_APPLY(&next, moves[i]);
        total += perft(&next, depth - 1);
    }
    return total;
}

/* Board moves ignoring the mover's king safety (for explanations). */
static int pseudo_moves(const MG_POS *p, struct rules_move *out)
{
    struct gen g = GEN_ALL(out);
    int us = p->side;
    MG_BITS occ = p->occupied[0] | p->occupied[1], own = p->occupied[us];
    MG_BITS start = MG_START(us), last = MG_LAST(us);
    unsigned promotions = MG_PROMOTIONS(p, us);

    if (MG_KINGS_MISSING(p, MG_KING_CELL(p, us)))
        return 0;
    for (MG_BITS men = own; men;) {
        int from = MG_POP(&men);
        MG_BITS t = 0;
        switch (p->board[from] & 7) {
        case RULES_KNIGHT: t = MG_KNIGHT(from); break;
        case RULES_BISHOP: t = MG_BISHOP(from, occ); break;
        case RULES_ROOK: t = MG_ROOK(from, occ); break;
        case RULES_QUEEN: t = MG_BISHOP(from, occ) | MG_ROOK(from, occ); break;
        case RULES_KING: t = MG_KING(from); break;
        default: {
            gen_pushes(&g, us, from, occ, ~(MG_BITS)0, start, last, promotions);
            MG_BITS caps = MG_PAWN(us, from) & p->occupied[us ^ 1];
            while (caps)
                add_pawn(&g, from, MG_POP(&caps), RULES_MOVE_CAPTURE, last, promotions);
            if (p->ep != MG_NONE && (MG_PAWN(us, from) & MG_BIT(p->ep)))
                add(&g, from, p->ep, RULES_NO_PIECE, RULES_MOVE_CAPTURE | RULES_MOVE_EN_PASSANT);
            continue;
        }
        }
        add_targets(&g, p, from, t & ~own);
    }
    return g.n;
}
