/*
 * glinski_notation.c — the hexagonal board's cell names (files a-l without
 * j, ranks 1-11) for the shared notation code.
 */
#include "glinski_int.h"

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

static int piece_at(const struct rules_position *pos, int cell)
{
    uint8_t code = gl_const(pos)->board[cell];
    return code == GL_EMPTY ? -1 : GL_TYPE(code);
}

const struct notation_geometry gl_geometry = {
    cell_parse, gl_cell_name, file_parse, gl_file_of, gl_rank_of, piece_at
};
