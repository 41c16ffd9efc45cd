/*
 * glinski_position.c — the Glinski position: making moves, HFEN, the
 * repetition key and the material rule.
 */
#include "glinski_board.h"
#include "report_int.h"
#include "zobrist_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char letters[] = "PNBRQK";

/* How many men of each type a side starts with. */
static const int gl_set_count[RULES_PIECE_TYPES] = { 9, 2, 3, 2, 1, 1 };

static int file_length(int file) { return 11 - abs(file - 5); }

#include "position_generic.h"

/* A side can mate with a pawn, a rook, a queen or three minor pieces. */
bool gl_can_mate(const struct gl_pos *p, int c)
{
    const gl_bits *pc = p->pieces[c];
    return pc[RULES_PAWN] || pc[RULES_ROOK] || pc[RULES_QUEEN] ||
           gl_count(pc[RULES_KNIGHT] | pc[RULES_BISHOP]) >= 3;
}

bool gl_insufficient_material(const struct gl_pos *p)
{
    return !gl_can_mate(p, RULES_WHITE) && !gl_can_mate(p, RULES_BLACK);
}

/* ---- HFEN --------------------------------------------------------------- */

/* Ranks 11 down to 1; each lists the files that have it, a to l. */
static enum rules_error parse_board(struct gl_pos *p, const char **text, struct rules_why *why)
{
    const char *s = *text;
    for (int rank = 11; rank >= 1; rank--) {
        int file = 0;
        /* Skip files too short for this rank. */
        while (file < GL_FILES && file_length(file) < rank)
            file++;
        while (*s && *s != '/' && *s != ' ') {
            if (*s >= '0' && *s <= '9') {
                int run = 0;
                while (*s >= '0' && *s <= '9' && run <= GL_FILES)
                    run = run * 10 + (*s++ - '0');
                if (run > GL_FILES)
                    return fail_syntax(why, "bad hfen: rank %d has too many cells", rank);
                if (run == 0)
                    return fail_syntax(why, "bad hfen: empty run of 0 on rank %d", rank);
                file += run;
            } else {
                char c = *s++;
                const char *hit = strchr(letters, c >= 'a' ? c - 'a' + 'A' : c);
                if (hit == NULL || c == '\0')
                    return fail_syntax(why, "bad hfen: unknown piece letter '%c'", c);
                if (file >= GL_FILES || file_length(file) < rank)
                    return fail_syntax(why, "bad hfen: rank %d has too many cells", rank);
                gl_put(p, c >= 'a', (int)(hit - letters), gl_cell_of(file, rank));
                file++;
            }
            if (file > GL_FILES || (file > 0 && file_length(file - 1) < rank))
                return fail_syntax(why, "bad hfen: rank %d has too many cells", rank);
        }
        int last = GL_FILES;
        while (last > 0 && file_length(last - 1) < rank)
            last--;
        if (file != last)
            return fail_syntax(why, "bad hfen: rank %d has %s cells", rank,
                        file < last ? "too few" : "too many");
        if (rank > 1) {
            if (*s != '/')
                return fail_syntax(why, "bad hfen: the board needs 11 ranks separated by '/'");
            s++;
        }
    }
    *text = s;
    return RULES_OK;
}

static enum rules_error validate(const struct gl_pos *p, struct rules_why *why)
{
    static const char *const side[] = { "white", "black" };
    char name[4];
    for (int c = 0; c < 2; c++) {
        int kings = gl_count(p->pieces[c][RULES_KING]);
        int pawns = gl_count(p->pieces[c][RULES_PAWN]);
        if (kings != 1)
            return fail_invalid(why, "invalid position: %s has %d kings, not 1",
                        side[c], kings);
        if (pawns > 9)
            return fail_invalid(why, "invalid position: %s has %d pawns, the set has 9",
                        side[c], pawns);
        /* Men beyond the starting set can only be promoted pawns. */
        int excess = 0;
        for (int t = RULES_KNIGHT; t <= RULES_QUEEN; t++) {
            int extra = gl_count(p->pieces[c][t]) - gl_set_count[t];
            excess += extra > 0 ? extra : 0;
        }
        if (excess > 9 - pawns)
            return fail_invalid(why, "invalid position: %s has %d men beyond its starting set "
                                     "but only %d pawns missing to have promoted",
                                side[c], excess, 9 - pawns);
        if (gl_count(p->occupied[c]) > 18)
            return fail_invalid(why, "invalid position: %s has more than 18 men",
                        side[c]);
        gl_bits stuck = p->pieces[c][RULES_PAWN] & gl_last_cells(c);
        if (stuck) {
            gl_cell_name(gl_lsb(stuck), name);
            return fail_invalid(why,
                        "invalid position: a %s pawn on %s, its promotion cell", side[c], name);
        }
    }
    return check_mover_gives_no_check(p, why);
}

enum rules_error gl_parse(struct gl_pos *p, const char *text, struct rules_why *why)
{
    enum rules_error err;

    text = parse_start(p, text);
    if ((err = parse_board(p, &text, why)) != RULES_OK)
        return err;
    if ((err = text_parse_side(&text, "hfen", &p->side, why)) != RULES_OK)
        return err;
    if ((err = validate(p, why)) != RULES_OK || *text == '\0')
        return err;
    text++;
    if ((err = parse_ep(p, &text, why)) != RULES_OK || *text == '\0')
        return err;
    return text_parse_clocks(text, "hfen", &p->halfmove, &p->fullmove, why);
}

size_t gl_format(const struct gl_pos *p, char *buf, size_t size)
{
    char out[RULES_TEXT_MAX], ep[4] = "-";
    size_t n = 0;

    for (int rank = 11; rank >= 1; rank--) {
        int empty = 0;
        for (int file = 0; file < GL_FILES; file++) {
            if (file_length(file) < rank)
                continue;
            uint8_t code = p->board[gl_cell_of(file, rank)];
            if (code == GL_EMPTY) {
                empty++;
                continue;
            }
            if (empty)
                n += (size_t)snprintf(out + n, sizeof out - n, "%d", empty);
            empty = 0;
            char c = letters[GL_TYPE(code)];
            out[n++] = GL_COLOR(code) ? (char)(c - 'A' + 'a') : c;
        }
        if (empty)
            n += (size_t)snprintf(out + n, sizeof out - n, "%d", empty);
        if (rank > 1)
            out[n++] = '/';
    }
    if (p->ep != GL_NONE)
        gl_cell_name(p->ep, ep);
    n += (size_t)snprintf(out + n, sizeof out - n, " %c %s %u %u", p->side ? 'b' : 'w', ep,
                          p->halfmove, p->fullmove);
    return (size_t)snprintf(buf, size, "%s", out);
}
