/*
 * variant_generic.h — the entries of a variant's table (rules.h, struct
 * rules_variant) that are the same on every board: reading and writing a
 * position, the checked moves, the figures of a position and the helpers
 * for search.  The body of a variant's table file (korpalski.c,
 * glinski.c), included once after its board header; that file adds what
 * really differs (its position_report, draw_agreement_allowed and can_drop)
 * and writes its table with VARIANT_GENERIC_ENTRIES, which names those too.
 * Before including it, the file defines the letter sets moves are read with,
 * BD_LETTER_SETS(dialect), and the notation style for each way of writing,
 * BD_STYLE(how).
 */

static enum rules_error position_parse(struct rules_position *pos, const char *text,
                                       struct rules_why *why)
{
    memset(pos, 0, sizeof *pos);
    return BD(parse)(BD_MUT(pos), text, why);
}

static size_t position_format(const struct rules_position *pos, char *buf, size_t size)
{
    return BD(format)(BD_CONST(pos), buf, size);
}

static int moves_legal(const struct rules_position *pos, struct rules_move *out)
{
    return BD(generate)(BD_CONST(pos), out);
}

static uint64_t perft(const struct rules_position *pos, int depth)
{
    return BD(perft)(BD_CONST(pos), depth);
}

static enum rules_error move_parse(const struct rules_position *pos, const char *text,
                                   int dialect, struct rules_move *out, struct rules_why *why)
{
    struct notation_pattern pat;
    enum rules_error err;

    (void)dialect;
    err = notation_decode(&BD_GEOMETRY, BD_LETTER_SETS(dialect), text, &pat, why);
    if (err != RULES_OK)
        return err;
    return notation_match(&BD_VARIANT, &BD_GEOMETRY, pos, &pat, out, why);
}

static bool move_is_legal(const struct rules_position *pos, struct rules_move move)
{
    int n;
    const struct rules_move *moves = notation_legal(&BD_VARIANT, pos, &n);
    return moves_contain(moves, n, move);
}

static size_t move_format(const struct rules_position *pos, struct rules_move move,
                          enum rules_notation how, char *buf, size_t size)
{
    if (!move_is_legal(pos, move)) {
        if (size > 0)
            buf[0] = '\0';
        return 0;
    }
    if (how == RULES_NOTATION_UCI)
        return notation_format_uci(&BD_GEOMETRY, move, buf, size);
    return notation_format(&BD_VARIANT, &BD_GEOMETRY, pos, move, BD_STYLE(how), buf, size);
}

static enum rules_error position_apply(struct rules_position *pos, struct rules_move move)
{
    if (!move_is_legal(pos, move))
        return RULES_ERR_ILLEGAL;
    BD(apply)(BD_MUT(pos), move);
    return RULES_OK;
}

/* Captures, pawn moves and drops (king placements too): the halfmove
 * clock's resets. */
static bool move_is_irreversible(const struct rules_position *pos, struct rules_move move)
{
    const BD_POS *p = BD_CONST(pos);
    if (!move_is_legal(pos, move))
        return false;
    return (move.flags & (RULES_MOVE_DROP | RULES_MOVE_CAPTURE)) ||
           BD_TYPE(p->board[move.from]) == RULES_PAWN;
}

static bool in_check(const struct rules_position *pos) { return BD(in_check)(BD_CONST(pos)); }

static enum rules_color side_to_move(const struct rules_position *pos)
{
    return (enum rules_color)BD_CONST(pos)->side;
}

static int halfmove_clock(const struct rules_position *pos) { return BD_CONST(pos)->halfmove; }
static int fullmove_number(const struct rules_position *pos) { return BD_CONST(pos)->fullmove; }

static uint64_t repetition_key(const struct rules_position *pos)
{
    return BD(repetition_key)(BD_CONST(pos));
}

/* The figures every report has; the variant adds its own rules. */
static void report_common(const struct rules_position *pos, struct rules_report *out)
{
    const BD_POS *p = BD_CONST(pos);
    memset(out, 0, sizeof *out);
    out->in_check = BD(in_check)(p);
    out->legal_moves = BD(generate)(p, NULL);
    out->halfmove_clock = p->halfmove;
    out->fifty_move_claimable = p->halfmove >= 100;
}

/* ---- For search: unchecked and cheap ------------------------------------ */

static void search_play(struct rules_position *pos, struct rules_move move)
{
    BD(apply)(BD_MUT(pos), move);
}

static void search_null(struct rules_position *pos)
{
    BD_POS *p = BD_MUT(pos);
    p->ep = BD_NONE;
    counter_step(&p->halfmove);
    if (p->side == RULES_BLACK)
        counter_step(&p->fullmove);
    p->side ^= 1;
}

static int search_man_at(const struct rules_position *pos, int cell)
{
    const BD_POS *p = BD_CONST(pos);
    if (cell < 0 || cell >= BD_CELLS || p->board[cell] == BD_EMPTY)
        return RULES_NO_MAN;
    return RULES_MAN(BD_COLOR(p->board[cell]), BD_TYPE(p->board[cell]));
}

static int search_reserve(const struct rules_position *pos, enum rules_color side,
                          enum rules_piece type)
{
    (void)pos;   /* where there are no reserves */
    if ((unsigned)side > 1 || (unsigned)type >= RULES_PIECE_TYPES)
        return 0;
    return BD_RESERVE(BD_CONST(pos), side, type);
}

static struct rules_cells search_attacks(const struct rules_position *pos, int cell)
{
    const BD_POS *p = BD_CONST(pos);
    uint8_t code;

    if (cell < 0 || cell >= BD_CELLS || (code = p->board[cell]) == BD_EMPTY)
        return BD_CELLS_OF((BD_BITS)0);
    return BD_CELLS_OF(man_attacks(BD_TYPE(code), BD_COLOR(code), cell,
                                   p->occupied[0] | p->occupied[1]));
}

static bool search_insufficient(const struct rules_position *pos)
{
    return BD(insufficient_material)(BD_CONST(pos));
}

static int search_noisy(const struct rules_position *pos, struct rules_move *out)
{
    return BD(generate_noisy)(BD_CONST(pos), out);
}

static bool search_legal(const struct rules_position *pos, struct rules_move move)
{
    return BD(move_legal_fast)(BD_CONST(pos), move);
}

/* The repetition key's share of one cell. */
static uint64_t cell_key(const BD_POS *p, int cell)
{
    return p->board[cell] == BD_EMPTY ? 0
                                      : zobrist(ZOBRIST_MAN, BD_MAN_KEY(p->board[cell]), cell);
}

static uint64_t search_key_after(const struct rules_position *before, uint64_t key,
                                 struct rules_move move, const struct rules_position *after)
{
    const BD_POS *b = BD_CONST(before), *a = BD_CONST(after);
    int us = b->side;

    key ^= zobrist(ZOBRIST_SIDE, BD_KEY_SET, 0);
    if (b->ep != BD_NONE)
        key ^= zobrist(ZOBRIST_EP, BD_KEY_SET, b->ep);
    if (a->ep != BD_NONE)
        key ^= zobrist(ZOBRIST_EP, BD_KEY_SET, a->ep);
    key ^= cell_key(b, move.to) ^ cell_key(a, move.to);
#if BD_DROPS
    if (move.flags & RULES_MOVE_DROP) {
        int code = us * 8 + move.piece;
        key ^= zobrist(ZOBRIST_RESERVE, code, b->reserve[us][move.piece]) ^
               zobrist(ZOBRIST_RESERVE, code, a->reserve[us][move.piece]);
        return key;
    }
#endif
    key ^= cell_key(b, move.from) ^ cell_key(a, move.from);
    if (move.flags & RULES_MOVE_EN_PASSANT) {
        int victim = BD_AHEAD(us ^ 1, move.to);
        key ^= cell_key(b, victim) ^ cell_key(a, victim);
    }
    return key;
}

static void search_view(const struct rules_position *pos, struct rules_view *out)
{
    const BD_POS *p = BD_CONST(pos);
    BD_BITS occ = p->occupied[0] | p->occupied[1];

    for (int cell = 0; cell < BD_CELLS; cell++)
        out->man[cell] = p->board[cell] == BD_EMPTY ? RULES_NO_MAN
                                                    : RULES_MAN(BD_COLOR(p->board[cell]),
                                                                BD_TYPE(p->board[cell]));
    for (int c = 0; c < 2; c++) {
        out->occupied[c] = BD_CELLS_OF(p->occupied[c]);
        out->king[c] = -1;
        for (int t = 0; t < RULES_PIECE_TYPES; t++)
            out->reserve[c][t] = BD_RESERVE(p, c, t);
        if (p->pieces[c][RULES_KING])
            out->king[c] = (int8_t)BD_LSB(p->pieces[c][RULES_KING]);
    }
    out->side = p->side;
    for (BD_BITS men = occ; men;) {
        int cell = BD_POP(&men);
        uint8_t code = p->board[cell];
        out->attacks[cell] = BD_CELLS_OF(man_attacks(BD_TYPE(code), BD_COLOR(code), cell, occ));
    }
}

static struct rules_cells search_attackers(const struct rules_position *pos, int cell,
                                           struct rules_cells removed)
{
    const BD_POS *p = BD_CONST(pos);
    BD_BITS occ = (p->occupied[0] | p->occupied[1]) & ~BD_BITS_OF(removed);

    if (cell < 0 || cell >= BD_CELLS)
        return BD_CELLS_OF((BD_BITS)0);
    return BD_CELLS_OF((BD(attackers)(p, cell, RULES_WHITE, occ) |
                        BD(attackers)(p, cell, RULES_BLACK, occ)) & occ);
}

/* The table entries above, for the variant's `struct rules_variant`. */
#define VARIANT_GENERIC_ENTRIES                                                        \
    .position_parse = position_parse, .position_format = position_format,             \
    .move_parse = move_parse,                                                          \
    .moves_legal = moves_legal, .perft = perft, .move_is_legal = move_is_legal,        \
    .move_format = move_format, .position_apply = position_apply,                      \
    .move_is_irreversible = move_is_irreversible, .in_check = in_check,                \
    .side_to_move = side_to_move, .halfmove_clock = halfmove_clock,                    \
    .fullmove_number = fullmove_number, .repetition_key = repetition_key,              \
    .cells = BD_CELLS, .move_play = search_play, .null_play = search_null,             \
    .man_at = search_man_at, .reserve_count = search_reserve,                          \
    .attacks_from = search_attacks, .insufficient_material = search_insufficient,      \
    .moves_noisy = search_noisy, .move_is_legal_fast = search_legal,                   \
    .key_after = search_key_after, .view = search_view, .attackers_to = search_attackers, \
    .position_report = position_report, .draw_agreement_allowed = draw_agreement_allowed, \
    .can_drop = can_drop
