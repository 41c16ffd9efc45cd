/*
 * korpalski_position.c — the Korpalski position: making moves, FEN with
 * reserves, validation, the repetition key and the material rules.
 */
#include "korpalski_board.h"
#include "report_int.h"
#include "zobrist_int.h"

#include <stdio.h>
#include <string.h>

const uint8_t kp_set_count[RULES_PIECE_TYPES] = { 8, 2, 2, 2, 1, 1 };

static const char fen_letters[] = "PNBRQK";

#include "position_generic.h"

static int men(const struct kp_pos *p, int color, int type)
{
    return bb_count(p->pieces[color][type]) + p->reserve[color][type];
}

bool kp_insufficient_material(const struct kp_pos *p)
{
    int minors[2], others[2];
    for (int c = 0; c < 2; c++) {
        minors[c] = men(p, c, RULES_KNIGHT) + men(p, c, RULES_BISHOP);
        others[c] = men(p, c, RULES_PAWN) + men(p, c, RULES_ROOK) +
                    men(p, c, RULES_QUEEN);
    }
    if (others[0] || others[1])
        return false;
    if (minors[0] == 0 && minors[1] <= 1)
        return true;
    if (minors[1] == 0 && minors[0] <= 1)
        return true;
    /* K+B against K+B: both on the board, same colour, nothing in reserve. */
    uint64_t wb = p->pieces[RULES_WHITE][RULES_BISHOP];
    uint64_t bb = p->pieces[RULES_BLACK][RULES_BISHOP];
    if (minors[0] == 1 && minors[1] == 1 && wb && bb &&
        !p->reserve[0][RULES_BISHOP] && !p->reserve[1][RULES_BISHOP])
        return ((wb & KP_LIGHT_SQUARES) != 0) == ((bb & KP_LIGHT_SQUARES) != 0);
    return false;
}

/* ---- FEN ---------------------------------------------------------------- */

static void square_name(int sq, char *buf)
{
    buf[0] = (char)('a' + sq % 8);
    buf[1] = (char)('1' + sq / 8);
    buf[2] = '\0';
}

static const char *color_name(int c) { return c ? "black" : "white"; }

/* Reads the placement field up to (not including) '[' or ' '. */
static enum rules_error parse_board(struct kp_pos *p, const char **text, struct rules_why *why)
{
    const char *s = *text;
    int rank = 7, file = 0;
    for (; *s && *s != ' ' && *s != '['; s++) {
        char c = *s;
        if (c == '/') {
            if (file != 8)
                return fail_syntax(why,
                            "bad fen: rank %d does not have 8 squares", rank + 1);
            if (--rank < 0)
                return fail_syntax(why, "bad fen: more than 8 ranks");
            file = 0;
        } else if (c >= '1' && c <= '8') {
            file += c - '0';
            if (file > 8)
                return fail_syntax(why,
                            "bad fen: rank %d has more than 8 squares", rank + 1);
        } else {
            const char *hit = strchr(fen_letters, c >= 'a' ? c - 'a' + 'A' : c);
            if (hit == NULL || c == '\0')
                return fail_syntax(why, "bad fen: unknown piece letter '%c'", c);
            if (file >= 8)
                return fail_syntax(why,
                            "bad fen: rank %d has more than 8 squares", rank + 1);
            kp_put(p, c >= 'a', (int)(hit - fen_letters), rank * 8 + file);
            file++;
        }
    }
    if (rank != 0 || file != 8)
        return fail_syntax(why, "bad fen: the board needs 8 ranks of 8 squares");
    *text = s;
    return RULES_OK;
}

static enum rules_error parse_reserve(struct kp_pos *p, const char **text, struct rules_why *why)
{
    const char *s = *text;
    if (*s != '[')
        return fail_syntax(why,
                    "bad fen: reserves in brackets must follow the board, e.g. [QRqr]");
    for (s++; *s && *s != ']'; s++) {
        if (*s == '-')
            continue;
        char c = *s;
        const char *hit = strchr(fen_letters, c >= 'a' ? c - 'a' + 'A' : c);
        if (hit == NULL)
            return fail_syntax(why, "bad fen: unknown reserve letter '%c'", c);
        if (p->reserve[c >= 'a'][hit - fen_letters] < 16)
            p->reserve[c >= 'a'][hit - fen_letters]++;
    }
    if (*s != ']')
        return fail_syntax(why, "bad fen: reserve bracket not closed");
    *text = s + 1;
    return RULES_OK;
}

static enum rules_error check_material(const struct kp_pos *p, struct rules_why *why)
{
    static const char *const plural[] = { "pawns", "knights", "bishops", "rooks",
                                          "queens", "kings" };
    for (int c = 0; c < 2; c++)
        for (int t = 0; t < RULES_PIECE_TYPES; t++)
            if (men(p, c, t) > kp_set_count[t])
                return fail_invalid(why,
                                 "invalid position: %d %s %s on the board and in reserve, the set has %d",
                                 men(p, c, t), color_name(c), plural[t], kp_set_count[t]);
    uint64_t pawns = p->pieces[0][RULES_PAWN] | p->pieces[1][RULES_PAWN];
    if (pawns & (KP_RANK_1 | KP_RANK_8)) {
        char sq[3];
        square_name(bb_lsb(pawns & (KP_RANK_1 | KP_RANK_8)), sq);
        return fail_invalid(why,
                    "invalid position: a pawn on %s; pawns never stand on the first or last rank", sq);
    }
    return RULES_OK;
}

static enum rules_error check_kings(const struct kp_pos *p, struct rules_why *why)
{
    bool placed[2] = { p->pieces[0][RULES_KING] != 0, p->pieces[1][RULES_KING] != 0 };
    int others = bb_count(p->occupied[0] | p->occupied[1]) - placed[0] - placed[1];

    for (int c = 0; c < 2; c++)
        if (men(p, c, RULES_KING) != 1)
            return fail_invalid(why,
                        "invalid position: the %s king is neither on the board nor in reserve",
                        color_name(c));
    if (!placed[0] && !placed[1]) {
        if (p->side != RULES_WHITE)
            return fail_invalid(why,
                        "invalid position: white places its king first, so it must be white's move");
    } else if (!placed[1]) {
        if (p->side != RULES_BLACK)
            return fail_invalid(why,
                        "invalid position: the black king is missing from the board after the placement phase");
    } else if (!placed[0]) {
        return fail_invalid(why,
                    "invalid position: the white king is missing from the board but the black king stands");
    }
    if ((!placed[0] || !placed[1]) && others > 0)
        return fail_invalid(why,
                    "invalid position: men stand on the board before both kings are placed");
    if (placed[0] && placed[1] &&
        (kp_king_attacks(kp_king_cell(p, 0)) & p->pieces[1][RULES_KING]))
        return fail_invalid(why, "invalid position: the kings stand next to each other");
    if (placed[0] && placed[1])
        return check_mover_gives_no_check(p, why);
    return RULES_OK;
}

enum rules_error kp_parse(struct kp_pos *p, const char *text, struct rules_why *why)
{
    enum rules_error err;

    text = parse_start(p, text);
    if ((err = parse_board(p, &text, why)) != RULES_OK ||
        (err = parse_reserve(p, &text, why)) != RULES_OK)
        return err;
    if ((err = text_parse_side(&text, "fen", &p->side, why)) != RULES_OK)
        return err;
    if ((err = check_material(p, why)) != RULES_OK ||
        (err = check_kings(p, why)) != RULES_OK)
        return err;
    if (*text == '\0')
        return RULES_OK;
    text++;
    if (*text != '-')
        return fail_syntax(why,
                    "bad fen: castling field must be '-': korpalski has no castling");
    text++;
    if (*text == '\0')
        return RULES_OK;
    if (*text++ != ' ')
        return fail_syntax(why, "bad fen: expected a space after the castling field");
    if ((err = parse_ep(p, &text, why)) != RULES_OK)
        return err;
    if (*text == '\0')
        return RULES_OK;
    return text_parse_clocks(text, "fen", &p->halfmove, &p->fullmove, why);
}

size_t kp_format(const struct kp_pos *p, char *buf, size_t size)
{
    char out[RULES_TEXT_MAX];
    size_t n = 0;

    for (int rank = 7; rank >= 0; rank--) {
        int empty = 0;
        for (int file = 0; file < 8; file++) {
            uint8_t code = p->board[rank * 8 + file];
            if (code == KP_EMPTY) {
                empty++;
                continue;
            }
            if (empty)
                out[n++] = (char)('0' + empty);
            empty = 0;
            char c = fen_letters[KP_TYPE(code)];
            out[n++] = KP_COLOR(code) ? (char)(c - 'A' + 'a') : c;
        }
        if (empty)
            out[n++] = (char)('0' + empty);
        if (rank)
            out[n++] = '/';
    }
    out[n++] = '[';
    for (int c = 0; c < 2; c++)
        for (int t = RULES_KING; t >= RULES_PAWN; t--)
            for (int k = 0; k < p->reserve[c][t]; k++)
                out[n++] = c ? (char)(fen_letters[t] - 'A' + 'a') : fen_letters[t];
    out[n++] = ']';
    char ep[3] = "-";
    if (p->ep != KP_NO_SQUARE)
        square_name(p->ep, ep);
    n += (size_t)snprintf(out + n, sizeof out - n, " %c - %s %u %u",
                          p->side ? 'b' : 'w', ep, p->halfmove, p->fullmove);
    return (size_t)snprintf(buf, size, "%s", out);
}
