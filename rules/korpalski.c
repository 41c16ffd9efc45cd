/*
 * korpalski.c — Korpalski Chess as a rules_variant: the glue between the
 * variant table and the files that do the work.
 */
#include "korpalski_int.h"
#include "report_int.h"

#include <string.h>

static const char *const letter_sets[] = { NOTATION_LETTERS_ENGLISH,
                                           NOTATION_LETTERS_POLISH, NULL };

static enum rules_error position_parse(struct rules_position *pos,
                                       const char *text, struct rules_why *why)
{
    memset(pos, 0, sizeof *pos);
    return kp_parse_fen(kp_mut(pos), text, why);
}

static size_t position_format(const struct rules_position *pos, char *buf,
                              size_t size)
{
    return kp_format_fen(kp_const(pos), buf, size);
}

static int moves_legal(const struct rules_position *pos, struct rules_move *out)
{
    return kp_generate(kp_const(pos), out);
}

static uint64_t perft(const struct rules_position *pos, int depth)
{
    return kp_perft(kp_const(pos), depth);
}

static enum rules_error move_parse(const struct rules_position *pos,
                                   const char *text, int dialect,
                                   struct rules_move *out, struct rules_why *why)
{
    struct notation_pattern pat;
    enum rules_error err;

    (void)dialect;
    err = notation_decode(&kp_geometry, letter_sets, text, &pat, why);
    if (err != RULES_OK)
        return err;
    return notation_match(&rules_korpalski, &kp_geometry, pos, &pat, out, why);
}

static bool move_is_legal(const struct rules_position *pos, struct rules_move move)
{
    int n;
    const struct rules_move *moves = notation_legal(&rules_korpalski, pos, &n);
    return moves_contain(moves, n, move);
}

static size_t move_format(const struct rules_position *pos,
                          struct rules_move move, enum rules_notation how,
                          char *buf, size_t size)
{
    const struct notation_style *style = &notation_san;
    if (!move_is_legal(pos, move)) {
        if (size > 0)
            buf[0] = '\0';
        return 0;
    }
    if (how == RULES_NOTATION_UCI)
        return notation_format_uci(&kp_geometry, move, buf, size);
    if (how == RULES_NOTATION_POLISH_SHORT)
        style = &notation_polish_short;
    else if (how == RULES_NOTATION_POLISH_FULL)
        style = &notation_polish_full;
    return notation_format(&rules_korpalski, &kp_geometry, pos, move, style,
                           buf, size);
}

static enum rules_error position_apply(struct rules_position *pos, struct rules_move move)
{
    if (!move_is_legal(pos, move))
        return RULES_ERR_ILLEGAL;
    kp_apply(kp_mut(pos), move);
    return RULES_OK;
}

/* Captures, pawn moves and drops (king placements too): the halfmove
 * clock's resets. */
static bool move_is_irreversible(const struct rules_position *pos, struct rules_move move)
{
    const struct kp_pos *p = kp_const(pos);
    if (!move_is_legal(pos, move))
        return false;
    return (move.flags & (RULES_MOVE_DROP | RULES_MOVE_CAPTURE)) ||
           KP_TYPE(p->board[move.from]) == RULES_PAWN;
}

static bool in_check(const struct rules_position *pos)
{
    return kp_in_check(kp_const(pos));
}

static enum rules_color side_to_move(const struct rules_position *pos)
{
    return (enum rules_color)kp_const(pos)->side;
}

static int halfmove_clock(const struct rules_position *pos)
{
    return kp_const(pos)->halfmove;
}

static int fullmove_number(const struct rules_position *pos)
{
    return kp_const(pos)->fullmove;
}

static uint64_t repetition_key(const struct rules_position *pos)
{
    return kp_repetition_key(kp_const(pos));
}

static bool can_drop(const struct rules_position *pos, enum rules_color side)
{
    const struct kp_pos *p = kp_const(pos);
    for (int t = 0; t < RULES_PIECE_TYPES; t++)
        if (p->reserve[side][t])
            return true;
    return false;
}

static bool reserves_empty(const struct rules_position *pos)
{
    return !can_drop(pos, RULES_WHITE) && !can_drop(pos, RULES_BLACK);
}

/* §4.4: only when neither side has anything left to drop. */
static bool draw_agreement_allowed(const struct rules_position *pos, struct rules_why *why)
{
    if (reserves_empty(pos))
        return true;
    why_set(why, RULES_REASON_AGREEMENT_NOT_ALLOWED,
            "draw by agreement refused: a draw may be agreed only when both reserves "
            "are empty");
    return false;
}

/* Whether side c owns anything besides its king, on the board or in
 * reserve. */
static bool has_more_than_king(const struct kp_pos *p, int c)
{
    for (int t = RULES_PAWN; t < RULES_KING; t++)
        if (p->pieces[c][t] || p->reserve[c][t])
            return true;
    return false;
}

static void position_report(const struct rules_position *pos,
                            struct rules_report *out)
{
    const struct kp_pos *p = kp_const(pos);
    memset(out, 0, sizeof *out);
    out->in_check = kp_in_check(p);
    out->legal_moves = kp_generate(p, NULL);
    out->halfmove_clock = p->halfmove;
    out->fifty_move_claimable = p->halfmove >= 100;
    out->insufficient_material = kp_insufficient_material(p);
    out->can_drop[0] = can_drop(pos, RULES_WHITE);
    out->can_drop[1] = can_drop(pos, RULES_BLACK);
    /* §4.1 and the timeout decision: where the material test draws the
     * game, neither side can mate; elsewhere a side can unless it has
     * nothing but its king (reserve included). */
    for (int c = 0; c < 2; c++)
        out->can_mate[c] = !out->insufficient_material && has_more_than_king(p, c);
    out->draw_agreement_allowed = reserves_empty(pos);
    report_decide(out, (enum rules_color)p->side, true);
}

const struct rules_variant rules_korpalski = {
    .name = "korpalski",
    .pgn_name = "Korpalski",
    .start_text = "8/8/8/8/8/8/8/8[KQRRBBNNPPPPPPPPkqrrbbnnpppppppp] w - - 0 1",
    .board = RULES_BOARD_SQUARE_8X8,
    .hungarian_letters = false,
    .polish_notation = true,
    .position_parse = position_parse,
    .position_format = position_format,
    .moves_legal = moves_legal,
    .perft = perft,
    .move_parse = move_parse,
    .move_is_legal = move_is_legal,
    .move_format = move_format,
    .position_apply = position_apply,
    .move_is_irreversible = move_is_irreversible,
    .draw_agreement_allowed = draw_agreement_allowed,
    .position_report = position_report,
    .in_check = in_check,
    .side_to_move = side_to_move,
    .halfmove_clock = halfmove_clock,
    .fullmove_number = fullmove_number,
    .repetition_key = repetition_key,
    .can_drop = can_drop,
    .cells = 64,
    .move_play = kp_search_play,
    .null_play = kp_search_null,
    .man_at = kp_search_man_at,
    .reserve_count = kp_search_reserve,
    .attacks_from = kp_search_attacks,
    .insufficient_material = kp_search_insufficient,
    .moves_noisy = kp_search_noisy,
    .move_is_legal_fast = kp_search_legal,
    .key_after = kp_search_key_after,
    .view = kp_search_view,
    .attackers_to = kp_search_attackers,
};
