/*
 * korpalski_movegen.c — legal move generation and perft.
 *
 * Moves are generated legal from the start: pins and checks are computed
 * once per position, king steps are tested against the enemy's attacks with
 * the king lifted off the board, and en passant is tested by playing it on
 * the occupancy.  Drops are target sets: empty squares (or the squares that
 * block a single sliding check) minus the squares from which the dropped man
 * would attack the enemy king.  With out == NULL the generator only counts,
 * using popcounts, which is what makes the last ply of perft cheap.
 *
 * For search the same code also generates a part of the legal moves: the
 * captures and promotions alone (`noisy`), or the moves from given cells to
 * given cells (`from_ok`, `to_ok`, `drop_types`), which is how one move is
 * tested for legality without generating the others.
 */
#include "korpalski_int.h"

struct gen {
    struct rules_move *out;   /* NULL: count only */
    int n;
    bool noisy;               /* captures and promotions only, no drops */
    uint64_t from_ok;         /* board moves only from these squares */
    uint64_t to_ok;           /* moves and drops only to these squares */
    unsigned drop_types;      /* drops only of these types (1 << type) */
};

#define GEN_ALL(out) { (out), 0, false, ~0ULL, ~0ULL, ~0u }

static inline void add(struct gen *g, int from, int to, int piece, int flags)
{
    if (g->out)
        g->out[g->n] = (struct rules_move){ (uint8_t)from, (uint8_t)to,
                                            (uint8_t)piece, (uint8_t)flags };
    g->n++;
}

static inline void add_targets(struct gen *g, const struct kp_pos *p, int from,
                               uint64_t targets)
{
    if (!g->out) {
        g->n += bb_count(targets);
        return;
    }
    uint64_t enemy = p->occupied[p->side ^ 1];
    while (targets) {
        int to = bb_pop(&targets);
        add(g, from, to, RULES_NO_PIECE,
            (bb_of(to) & enemy) ? RULES_MOVE_CAPTURE : 0);
    }
}

static inline void add_drops(struct gen *g, int type, uint64_t targets)
{
    if (!g->out) {
        g->n += bb_count(targets);
        return;
    }
    while (targets)
        add(g, 0, bb_pop(&targets), type, RULES_MOVE_DROP);
}

/* A pawn move to `to`: one move, or one per imprisoned type on the last rank. */
static inline void add_pawn(struct gen *g, int from, int to, int flags,
                            unsigned prison)
{
    if (!(bb_of(to) & (KP_RANK_1 | KP_RANK_8))) {
        add(g, from, to, RULES_NO_PIECE, flags);
        return;
    }
    for (int t = RULES_KNIGHT; t <= RULES_QUEEN; t++)
        if (prison & (1u << t))
            add(g, from, to, t, flags | RULES_MOVE_PROMOTION);
}

unsigned kp_prison_types(const struct kp_pos *p, int color)
{
    unsigned types = 0;
    for (int t = RULES_KNIGHT; t <= RULES_QUEEN; t++)
        if (kp_set_count[t] > bb_count(p->pieces[color][t]) + p->reserve[color][t])
            types |= 1u << t;
    return types;
}

uint64_t kp_checking_squares(const struct kp_pos *p, int type, int color, int sq)
{
    uint64_t occ = p->occupied[0] | p->occupied[1];
    switch (type) {
    case RULES_PAWN: return kp_pawn_attacks(color ^ 1, sq);
    case RULES_KNIGHT: return kp_knight_attacks(sq);
    case RULES_BISHOP: return kp_bishop_attacks(sq, occ);
    case RULES_ROOK: return kp_rook_attacks(sq, occ);
    case RULES_QUEEN: return kp_bishop_attacks(sq, occ) | kp_rook_attacks(sq, occ);
    default: return kp_king_attacks(sq);
    }
}

/* Whether the pawn on `from` may take en passant on `ep` without leaving
 * its king attacked. */
static bool ep_legal(const struct kp_pos *p, int from, int ep)
{
    int us = p->side, them = us ^ 1;
    int ksq = kp_king_square(p, us);
    int captured = us == RULES_WHITE ? ep - 8 : ep + 8;
    const uint64_t *pc = p->pieces[them];
    uint64_t occ = (p->occupied[0] | p->occupied[1]) ^ bb_of(from) ^
                   bb_of(captured) ^ bb_of(ep);

    if (ksq == KP_NO_SQUARE)
        return false;
    return ((kp_pawn_attacks(us, ksq) & pc[RULES_PAWN] & ~bb_of(captured)) |
            (kp_knight_attacks(ksq) & pc[RULES_KNIGHT]) |
            (kp_bishop_attacks(ksq, occ) & (pc[RULES_BISHOP] | pc[RULES_QUEEN])) |
            (kp_rook_attacks(ksq, occ) & (pc[RULES_ROOK] | pc[RULES_QUEEN]))) == 0;
}

bool kp_ep_capture_legal(const struct kp_pos *p, int ep)
{
    uint64_t capturers = kp_pawn_attacks(p->side ^ 1, ep) &
                         p->pieces[p->side][RULES_PAWN];
    while (capturers)
        if (ep_legal(p, bb_pop(&capturers), ep))
            return true;
    return false;
}

static uint64_t pinned_men(const struct kp_pos *p, int ksq, uint64_t occ)
{
    int them = p->side ^ 1;
    const uint64_t *pc = p->pieces[them];
    uint64_t pinned = 0;
    uint64_t snipers = (kp_rook_attacks(ksq, 0) & (pc[RULES_ROOK] | pc[RULES_QUEEN])) |
                       (kp_bishop_attacks(ksq, 0) & (pc[RULES_BISHOP] | pc[RULES_QUEEN]));
    while (snipers) {
        uint64_t between = kp_between(ksq, bb_pop(&snipers)) & occ;
        if (between && !(between & (between - 1)) && (between & p->occupied[p->side]))
            pinned |= between;
    }
    return pinned;
}

static void gen_pawns(struct gen *g, const struct kp_pos *p, int ksq,
                      uint64_t pinned, uint64_t mask)
{
    int us = p->side;
    int dir = us == RULES_WHITE ? 8 : -8;
    uint64_t start = us == RULES_WHITE ? KP_RANK_2 : KP_RANK_7;
    uint64_t occ = p->occupied[0] | p->occupied[1];
    uint64_t last = us == RULES_WHITE ? KP_RANK_8 : KP_RANK_1;
    unsigned prison = kp_prison_types(p, us);
    uint64_t pawns = p->pieces[us][RULES_PAWN] & g->from_ok;
    /* Pushes: every one, or for the noisy moves only those that promote. */
    uint64_t push_ok = g->noisy ? last : ~0ULL;

    /* With an empty prison a pawn cannot enter the last rank at all. */
    if (!prison)
        mask &= ~last;
    while (pawns) {
        int from = bb_pop(&pawns);
        uint64_t allowed = mask;
        if (pinned & bb_of(from))
            allowed &= kp_line(ksq, from);
        int one = from + dir;
        if (!(occ & bb_of(one))) {
            if (allowed & push_ok & bb_of(one))
                add_pawn(g, from, one, 0, prison);
            int two = one + dir;
            if ((start & bb_of(from)) && !(occ & bb_of(two)) &&
                (allowed & push_ok & bb_of(two)))
                add(g, from, two, RULES_NO_PIECE, RULES_MOVE_DOUBLE_STEP);
        }
        uint64_t caps = kp_pawn_attacks(us, from) & p->occupied[us ^ 1] & allowed;
        while (caps)
            add_pawn(g, from, bb_pop(&caps), RULES_MOVE_CAPTURE, prison);
    }
    if (p->ep != KP_NO_SQUARE && (g->to_ok & bb_of(p->ep))) {
        uint64_t capturers = kp_pawn_attacks(us ^ 1, p->ep) & p->pieces[us][RULES_PAWN] &
                             g->from_ok;
        while (capturers) {
            int from = bb_pop(&capturers);
            if (ep_legal(p, from, p->ep))
                add(g, from, p->ep, RULES_NO_PIECE,
                    RULES_MOVE_CAPTURE | RULES_MOVE_EN_PASSANT);
        }
    }
}

static void gen_drops(struct gen *g, const struct kp_pos *p, uint64_t where)
{
    int us = p->side;
    int eksq = kp_king_square(p, us ^ 1);
    if (g->noisy)
        return;
    for (int t = RULES_PAWN; t <= RULES_QUEEN; t++) {
        if (!p->reserve[us][t] || !(g->drop_types & (1u << t)))
            continue;
        uint64_t targets = where & ~kp_checking_squares(p, t, us, eksq);
        if (t == RULES_PAWN)
            targets &= ~(KP_RANK_1 | KP_RANK_8);
        add_drops(g, t, targets);
    }
}

/* The king placement phase: the side's king is still in reserve. */
static void gen_placement(struct gen *g, const struct kp_pos *p)
{
    int eksq = kp_king_square(p, p->side ^ 1);
    uint64_t where = ~(p->occupied[0] | p->occupied[1]) & g->to_ok;
    if (!p->reserve[p->side][RULES_KING] || g->noisy ||
        !(g->drop_types & (1u << RULES_KING)))
        return;
    if (eksq != KP_NO_SQUARE)
        where &= ~kp_king_attacks(eksq);
    add_drops(g, RULES_KING, where);
}

static int generate_part(struct gen *gp, const struct kp_pos *p)
{
    struct gen g = *gp;
    int us = p->side, them = us ^ 1;
    int ksq = kp_king_square(p, us);
    uint64_t occ = p->occupied[0] | p->occupied[1];
    uint64_t own = p->occupied[us];

    if (ksq == KP_NO_SQUARE || kp_king_square(p, them) == KP_NO_SQUARE) {
        if (ksq == KP_NO_SQUARE)
            gen_placement(&g, p);
        return g.n;
    }

    uint64_t checkers = kp_attackers(p, ksq, them, occ);
    uint64_t steps = kp_king_attacks(ksq) & ~own & g.to_ok;
    if (!(g.from_ok & bb_of(ksq)))
        steps = 0;
    if (g.noisy)
        steps &= p->occupied[them];
    uint64_t lifted = occ ^ bb_of(ksq);
    while (steps) {
        int to = bb_pop(&steps);
        if (!kp_attackers(p, to, them, lifted))
            add(&g, ksq, to, RULES_NO_PIECE,
                (bb_of(to) & p->occupied[them]) ? RULES_MOVE_CAPTURE : 0);
    }
    if (checkers & (checkers - 1))
        return g.n;

    uint64_t mask = ~own, drop_where = ~occ;
    if (checkers) {
        uint64_t block = kp_between(ksq, bb_lsb(checkers));
        mask = block | checkers;
        drop_where = block;
    }
    uint64_t pinned = pinned_men(p, ksq, occ);
    mask &= g.to_ok;
    drop_where &= g.to_ok;
    /* The pieces' targets; the pawns' pushes are sorted out by gen_pawns. */
    uint64_t piece_mask = g.noisy ? mask & p->occupied[them] : mask;

    uint64_t knights = p->pieces[us][RULES_KNIGHT] & ~pinned & g.from_ok;
    while (knights) {
        int from = bb_pop(&knights);
        add_targets(&g, p, from, kp_knight_attacks(from) & piece_mask);
    }
    uint64_t diag = (p->pieces[us][RULES_BISHOP] | p->pieces[us][RULES_QUEEN]) & g.from_ok;
    while (diag) {
        int from = bb_pop(&diag);
        uint64_t t = kp_bishop_attacks(from, occ) & piece_mask;
        if (pinned & bb_of(from))
            t &= kp_line(ksq, from);
        add_targets(&g, p, from, t);
    }
    uint64_t orth = (p->pieces[us][RULES_ROOK] | p->pieces[us][RULES_QUEEN]) & g.from_ok;
    while (orth) {
        int from = bb_pop(&orth);
        uint64_t t = kp_rook_attacks(from, occ) & piece_mask;
        if (pinned & bb_of(from))
            t &= kp_line(ksq, from);
        add_targets(&g, p, from, t);
    }
    gen_pawns(&g, p, ksq, pinned, mask);
    gen_drops(&g, p, drop_where);
    return g.n;
}

static int generate(const struct kp_pos *p, struct rules_move *out)
{
    struct gen g = GEN_ALL(out);
    return generate_part(&g, p);
}

int kp_generate(const struct kp_pos *p, struct rules_move *out)
{
    return generate(p, out);
}

int kp_generate_noisy(const struct kp_pos *p, struct rules_move *out)
{
    struct gen g = GEN_ALL(out);
    g.noisy = true;
    return generate_part(&g, p);
}

bool kp_move_legal_fast(const struct kp_pos *p, struct rules_move m)
{
    struct rules_move found[8];
    struct gen g = GEN_ALL(found);

    if (m.to >= 64 || m.piece > RULES_NO_PIECE)
        return false;
    g.to_ok = bb_of(m.to);
    if (m.flags & RULES_MOVE_DROP) {
        if (m.piece >= RULES_PIECE_TYPES)
            return false;
        g.from_ok = 0;
        g.drop_types = 1u << m.piece;
    } else {
        if (m.from >= 64)
            return false;
        g.from_ok = bb_of(m.from);
        g.drop_types = 0;
    }
    int n = generate_part(&g, p);
    for (int i = 0; i < n; i++)
        if (rules_move_equal(found[i], m))
            return true;
    return false;
}

uint64_t kp_perft(const struct kp_pos *p, int depth)
{
    struct rules_move moves[RULES_MAX_MOVES];
    uint64_t total = 0;

    if (depth <= 0)
        return 1;
    if (depth == 1)
        return (uint64_t)generate(p, NULL);
    int n = generate(p, moves);
    for (int i = 0; i < n; i++) {
        struct kp_pos next = *p;
        kp_apply(&next, moves[i]);
        total += kp_perft(&next, depth - 1);
    }
    return total;
}

int kp_pseudo_moves(const struct kp_pos *p, struct rules_move *out)
{
    struct gen g = GEN_ALL(out);
    int us = p->side, dir = us == RULES_WHITE ? 8 : -8;
    uint64_t occ = p->occupied[0] | p->occupied[1], own = p->occupied[us];
    uint64_t start = us == RULES_WHITE ? KP_RANK_2 : KP_RANK_7;
    unsigned prison = kp_prison_types(p, us);

    if (kp_king_square(p, 0) == KP_NO_SQUARE || kp_king_square(p, 1) == KP_NO_SQUARE)
        return 0;
    for (uint64_t men = own; men;) {
        int from = bb_pop(&men);
        int type = KP_TYPE(p->board[from]);
        uint64_t t = 0;
        switch (type) {
        case RULES_KNIGHT: t = kp_knight_attacks(from); break;
        case RULES_BISHOP: t = kp_bishop_attacks(from, occ); break;
        case RULES_ROOK: t = kp_rook_attacks(from, occ); break;
        case RULES_QUEEN: t = kp_bishop_attacks(from, occ) | kp_rook_attacks(from, occ); break;
        case RULES_KING: t = kp_king_attacks(from); break;
        default: {
            int one = from + dir;
            if (!(occ & bb_of(one))) {
                add_pawn(&g, from, one, 0, prison);
                if ((start & bb_of(from)) && !(occ & bb_of(one + dir)))
                    add(&g, from, one + dir, RULES_NO_PIECE, RULES_MOVE_DOUBLE_STEP);
            }
            uint64_t caps = kp_pawn_attacks(us, from) & p->occupied[us ^ 1];
            while (caps)
                add_pawn(&g, from, bb_pop(&caps), RULES_MOVE_CAPTURE, prison);
            if (p->ep != KP_NO_SQUARE && (kp_pawn_attacks(us, from) & bb_of(p->ep)))
                add(&g, from, p->ep, RULES_NO_PIECE, RULES_MOVE_CAPTURE | RULES_MOVE_EN_PASSANT);
            continue;
        }
        }
        add_targets(&g, p, from, t & ~own);
    }
    return g.n;
}
