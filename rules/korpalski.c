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
                                       const char *text, char *why)
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
                                   struct rules_move *out, char *why)
{
    struct notation_pattern pat;
    enum rules_error err;

    (void)dialect;
    err = notation_decode(&kp_geometry, letter_sets, text, &pat, why);
    if (err != RULES_OK)
        return err;
    return notation_match(&rules_korpalski, &kp_geometry, pos, &pat,
                          kp_explain_illegal, out, why);
}

static size_t move_format(const struct rules_position *pos,
                          struct rules_move move, enum rules_notation how,
                          char *buf, size_t size)
{
    const struct notation_style *style = &notation_san;
    if (how == RULES_NOTATION_UCI)
        return notation_format_uci(&kp_geometry, move, buf, size);
    if (how == RULES_NOTATION_POLISH_SHORT)
        style = &notation_polish_short;
    else if (how == RULES_NOTATION_POLISH_FULL)
        style = &notation_polish_full;
    return notation_format(&rules_korpalski, &kp_geometry, pos, move, style,
                           buf, size);
}

static void position_apply(struct rules_position *pos, struct rules_move move)
{
    kp_apply(kp_mut(pos), move);
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
    report_decide(out, (enum rules_color)p->side, true);
}

const struct rules_variant rules_korpalski = {
    .name = "korpalski",
    .pgn_name = "Korpalski",
    .start_text = "8/8/8/8/8/8/8/8[KQRRBBNNPPPPPPPPkqrrbbnnpppppppp] w - - 0 1",
    .position_parse = position_parse,
    .position_format = position_format,
    .moves_legal = moves_legal,
    .perft = perft,
    .move_parse = move_parse,
    .move_format = move_format,
    .position_apply = position_apply,
    .position_report = position_report,
    .in_check = in_check,
    .side_to_move = side_to_move,
    .halfmove_clock = halfmove_clock,
    .fullmove_number = fullmove_number,
    .repetition_key = repetition_key,
    .can_drop = can_drop,
};
