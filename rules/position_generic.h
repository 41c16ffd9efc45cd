/*
 * position_generic.h — making a move on a position and its repetition key,
 * written once for both boards: the body of a variant's position file,
 * included once after its board header (board_generic.h lists what that
 * describes).  It defines the variant's put, remove, apply and
 * repetition_key (kp_apply, gl_apply, ...), and parse_start(),
 * check_mover_gives_no_check() and parse_ep() for its parser.
 */

/* Before a position text is read: the empty board, white to move.  Returns
 * the text past its leading spaces. */
static const char *parse_start(BD_POS *p, const char *text)
{
    memset(p, 0, sizeof *p);
    memset(p->board, BD_EMPTY, sizeof p->board);
    p->ep = BD_NONE;
    p->fullmove = 1;
    while (*text == ' ')
        text++;
    return text;
}

/* The side not to move may not be in check. */
static enum rules_error check_mover_gives_no_check(const BD_POS *p, struct rules_why *why)
{
    BD_POS flipped = *p;
    flipped.side ^= 1;
    if (BD(in_check)(&flipped))
        return fail_invalid(why, "invalid position: %s is in check but it is not its move",
                            p->side ? "white" : "black");
    return RULES_OK;
}

void BD(put)(BD_POS *p, int color, int type, int cell)
{
    p->pieces[color][type] |= BD_BIT(cell);
    p->occupied[color] |= BD_BIT(cell);
    p->board[cell] = (uint8_t)((color << 3) | type);
}

void BD(remove)(BD_POS *p, int cell)
{
    uint8_t code = p->board[cell];
    p->pieces[BD_COLOR(code)][BD_TYPE(code)] &= ~BD_BIT(cell);
    p->occupied[BD_COLOR(code)] &= ~BD_BIT(cell);
    p->board[cell] = BD_EMPTY;
}

/* Plays a move known to be legal.  The en passant cell is kept only where
 * a capture there is legal, so that equal positions have equal keys. */
void BD(apply)(BD_POS *p, struct rules_move m)
{
    int us = p->side;

    p->ep = BD_NONE;
    counter_step(&p->halfmove);
#if BD_DROPS
    if (m.flags & RULES_MOVE_DROP) {
        BD(put)(p, us, m.piece, m.to);
        p->reserve[us][m.piece]--;
        p->halfmove = 0;
    } else
#endif
    {
        int type = BD_TYPE(p->board[m.from]);
        if (m.flags & RULES_MOVE_EN_PASSANT)
            BD(remove)(p, BD_AHEAD(us ^ 1, m.to));
        else if (p->board[m.to] != BD_EMPTY)
            BD(remove)(p, m.to);
        BD(remove)(p, m.from);
        BD(put)(p, us, (m.flags & RULES_MOVE_PROMOTION) ? m.piece : type, m.to);
        if (type == RULES_PAWN || (m.flags & RULES_MOVE_CAPTURE))
            p->halfmove = 0;
    }
    p->side ^= 1;
    if (us == RULES_BLACK)
        counter_step(&p->fullmove);
    if (m.flags & RULES_MOVE_DOUBLE_STEP) {
        int ep = BD_AHEAD(us, m.from);
        if (BD(ep_capture_legal)(p, ep))
            p->ep = (uint8_t)ep;
    }
}

uint64_t BD(repetition_key)(const BD_POS *p)
{
    uint64_t key = p->side ? zobrist(ZOBRIST_SIDE, BD_KEY_SET, 0) : 0;
    for (int cell = 0; cell < BD_CELLS; cell++)
        if (p->board[cell] != BD_EMPTY)
            key ^= zobrist(ZOBRIST_MAN, BD_MAN_KEY(p->board[cell]), cell);
#if BD_DROPS
    for (int c = 0; c < 2; c++)
        for (int t = 0; t < RULES_PIECE_TYPES; t++)
            key ^= zobrist(ZOBRIST_RESERVE, c * 8 + t, p->reserve[c][t]);
#endif
    if (p->ep != BD_NONE)
        key ^= zobrist(ZOBRIST_EP, BD_KEY_SET, p->ep);
    return key;
}

/* The en passant field names the cell a pawn of the side that just moved
 * passed over, advancing two cells from its start; it is kept only if a
 * capture there is legal. */
static enum rules_error parse_ep(BD_POS *p, const char **text, struct rules_why *why)
{
    int len = 0, ep, them = p->side ^ 1;
    char name[4];

    p->ep = BD_NONE;
    if (**text == '-') {
        (*text)++;
        return RULES_OK;
    }
    ep = BD_GEOMETRY.cell_parse(*text, &len);
    if (ep < 0)
        return fail_syntax(why, "bad " BD_TEXT_NAME ": en passant field must be a "
                                BD_CELL_WORD " or '-'");
    BD_GEOMETRY.cell_name(ep, name);
    /* The pawn stands one step past the cell, its start one step before. */
    int pawn = BD_AHEAD(them, ep), start = BD_AHEAD(p->side, ep);
    if (p->board[ep] != BD_EMPTY || !BD_VALID(pawn) || !BD_VALID(start) ||
        p->board[pawn] != ((them << 3) | RULES_PAWN) || p->board[start] != BD_EMPTY ||
        !(BD_START(them) & BD_BIT(start)))
        return fail_invalid(why, "invalid position: bad en passant " BD_CELL_WORD
                                 " %s: no pawn has just passed over it", name);
    if (BD(ep_capture_legal)(p, ep))
        p->ep = (uint8_t)ep;
    *text += len;
    return RULES_OK;
}
