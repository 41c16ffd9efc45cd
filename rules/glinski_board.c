/*
 * glinski_board.c — the 91-cell board: cell numbering, neighbour steps,
 * rays and attack tables.  Filled once by gl_tables_init(); read-only after.
 */
#include "glinski_board.h"

#include <stdlib.h>

/* The 6 orthogonal then the 6 diagonal steps, as (dc, dy); see the rules.
 * Opposite directions are neighbours: d and d ^ 1. */
static const int dir_c[GL_DIRS] = { 0, 0, 1, -1, 1, -1, 2, -2, 1, -1, 1, -1 };
static const int dir_y[GL_DIRS] = { 2, -2, 1, -1, -1, 1, 0, 0, 3, -3, -3, 3 };
static const int knight_c[12] = { 1, 1, -1, -1, 2, 2, -2, -2, 3, 3, -3, -3 };
static const int knight_y[12] = { 5, -5, 5, -5, 4, -4, 4, -4, 1, -1, 1, -1 };

static uint8_t cell_at[GL_FILES][12];      /* [file][rank] */
static int8_t cell_c[GL_CELLS], cell_y[GL_CELLS];
static uint8_t step_table[GL_DIRS][GL_CELLS];
static gl_bits ray_table[GL_DIRS][GL_CELLS];
static bool ray_grows[GL_DIRS];
static gl_bits knight_table[GL_CELLS], king_table[GL_CELLS];
static gl_bits pawn_table[2][GL_CELLS];
static gl_bits between_table[GL_CELLS][GL_CELLS];
static gl_bits line_table[GL_CELLS][GL_CELLS];
static gl_bits start_cells[2], last_cells[2];

/* The cell at (c, y), or GL_NONE off the board. */
static int cell_xy(int c, int y)
{
    int rank2 = y - abs(c);
    if (c < -5 || c > 5 || rank2 < 0 || rank2 % 2 != 0)
        return GL_NONE;
    return gl_cell_of(c + 5, rank2 / 2 + 1);
}

int gl_cell_of(int file, int rank)
{
    if (file < 0 || file >= GL_FILES || rank < 1 || rank > 11)
        return GL_NONE;
    return cell_at[file][rank];
}

int gl_file_of(int cell) { return cell_c[cell] + 5; }
int gl_rank_of(int cell) { return (cell_y[cell] - abs(cell_c[cell])) / 2 + 1; }
int gl_step(int dir, int cell) { return step_table[dir][cell]; }

void gl_tables_init(void)
{
    static const char *const starts[2] = { "b1 c2 d3 e4 f5 g4 h3 i2 k1",
                                           "b7 c7 d7 e7 f7 g7 h7 i7 k7" };
    int n = 0;

    for (int f = 0; f < GL_FILES; f++)
        for (int r = 0; r < 12; r++)
            cell_at[f][r] = GL_NONE;
    for (int y = 0; y <= 20; y++)
        for (int c = -5; c <= 5; c++)
            if (y >= abs(c) && y <= 20 - abs(c) && (y - abs(c)) % 2 == 0) {
                cell_at[c + 5][(y - abs(c)) / 2 + 1] = (uint8_t)n;
                cell_c[n] = (int8_t)c;
                cell_y[n] = (int8_t)y;
                n++;
            }

    for (int d = 0; d < GL_DIRS; d++)
        ray_grows[d] = dir_y[d] > 0 || (dir_y[d] == 0 && dir_c[d] > 0);
    for (int cell = 0; cell < GL_CELLS; cell++) {
        int c = cell_c[cell], y = cell_y[cell];
        for (int d = 0; d < GL_DIRS; d++) {
            gl_bits ray = 0;
            step_table[d][cell] = (uint8_t)cell_xy(c + dir_c[d], y + dir_y[d]);
            for (int k = 1;; k++) {
                int to = cell_xy(c + k * dir_c[d], y + k * dir_y[d]);
                if (to == GL_NONE)
                    break;
                ray |= gl_bit(to);
                between_table[cell][to] = ray & ~gl_bit(to);
            }
            ray_table[d][cell] = ray;
            if (step_table[d][cell] != GL_NONE)
                king_table[cell] |= gl_bit(step_table[d][cell]);
        }
        for (int k = 0; k < 12; k++) {
            int to = cell_xy(c + knight_c[k], y + knight_y[k]);
            if (to != GL_NONE)
                knight_table[cell] |= gl_bit(to);
        }
        for (int s = -1; s <= 1; s += 2) {
            int w = cell_xy(c + s, y + 1), b = cell_xy(c + s, y - 1);
            if (w != GL_NONE)
                pawn_table[RULES_WHITE][cell] |= gl_bit(w);
            if (b != GL_NONE)
                pawn_table[RULES_BLACK][cell] |= gl_bit(b);
        }
        if (cell_xy(c, y + 2) == GL_NONE)
            last_cells[RULES_WHITE] |= gl_bit(cell);
        if (cell_xy(c, y - 2) == GL_NONE)
            last_cells[RULES_BLACK] |= gl_bit(cell);
    }
    /* Lines through two aligned cells: the ray both ways plus the cell. */
    for (int a = 0; a < GL_CELLS; a++)
        for (int d = 0; d < GL_DIRS; d++) {
            int back = d ^ 1;   /* directions come in opposite pairs */
            for (gl_bits ray = ray_table[d][a]; ray != 0;) {
                int b = gl_pop(&ray);
                line_table[a][b] = ray_table[d][a] | ray_table[back][a] | gl_bit(a);
            }
        }
    for (int side = 0; side < 2; side++)
        for (const char *s = starts[side]; *s; s += *s == ' ') {
            int len = 0, cell = gl_geometry.cell_parse(s, &len);
            start_cells[side] |= gl_bit(cell);
            s += len;
        }
}

gl_bits gl_knight_attacks(int cell) { return knight_table[cell]; }
gl_bits gl_king_attacks(int cell) { return king_table[cell]; }
gl_bits gl_pawn_attacks(int color, int cell) { return pawn_table[color][cell]; }
gl_bits gl_between(int a, int b) { return between_table[a][b]; }
gl_bits gl_line(int a, int b) { return line_table[a][b]; }
gl_bits gl_start_cells(int color) { return start_cells[color]; }
gl_bits gl_last_cells(int color) { return last_cells[color]; }

static inline gl_bits slide(int d, int cell, gl_bits occ)
{
    gl_bits ray = ray_table[d][cell];
    gl_bits blockers = ray & occ;
    if (blockers == 0)
        return ray;
    return ray ^ ray_table[d][ray_grows[d] ? gl_lsb(blockers) : gl_msb(blockers)];
}

gl_bits gl_rook_attacks(int cell, gl_bits occ)
{
    gl_bits a = 0;
    for (int d = 0; d < 6; d++)
        a |= slide(d, cell, occ);
    return a;
}

gl_bits gl_bishop_attacks(int cell, gl_bits occ)
{
    gl_bits a = 0;
    for (int d = 6; d < GL_DIRS; d++)
        a |= slide(d, cell, occ);
    return a;
}

#include "attackers_generic.h"
