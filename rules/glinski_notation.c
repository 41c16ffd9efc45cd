/*
 * glinski_notation.c — the hexagonal board's cell names (files a-l without
 * j, ranks 1-11) for the shared notation code.
 */
#include "glinski_board.h"
#include "report_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char files[] = "abcdefghikl";

static int file_parse(char c)
{
    const char *hit = c ? strchr(files, c) : NULL;
    return hit ? (int)(hit - files) : -1;
}

/* Reads a file letter and a rank; two-digit ranks win when valid (f10). */
static int cell_parse(const char *s, int *len)
{
    int file = file_parse(s[0]), cell;
    if (file < 0 || s[1] < '1' || s[1] > '9')
        return -1;
    if (s[1] == '1' && (s[2] == '0' || s[2] == '1')) {
        cell = gl_cell_of(file, 10 + (s[2] - '0'));
        if (cell != GL_NONE) {
            *len = 3;
            return cell;
        }
    }
    cell = gl_cell_of(file, s[1] - '0');
    if (cell == GL_NONE)
        return -1;
    *len = 2;
    return cell;
}

void gl_cell_name(int cell, char *buf)
{
    snprintf(buf, 4, "%c%d", files[gl_file_of(cell)], gl_rank_of(cell));
}

static char file_letter(int file)
{
    return file >= 0 && file < GL_FILES ? files[file] : '?';
}

/* Glinski's only variant-specific refusal: there are no drops. */
static bool explain(const struct rules_position *pos, const struct notation_pattern *pat,
                    struct rules_why *why)
{
    (void)pos;
    if (!pat->drop)
        return false;
    why_set(why, RULES_REASON_NO_DROPS, "illegal move: glinski has no drops");
    return true;
}

const struct notation_geometry gl_geometry = {
    .cells = GL_CELLS,
    .cell_parse = cell_parse,
    .cell_name = gl_cell_name,
    .file_parse = file_parse,
    .file_letter = file_letter,
    .cell_file = gl_file_of,
    .cell_rank = gl_rank_of,
    .piece_at = board_piece_at,
    .color_at = board_color_at,
    .apply = board_apply,
    .pseudo_moves = board_pseudo_moves,
    .explain = explain,
};
