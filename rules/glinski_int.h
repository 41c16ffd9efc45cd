/*
 * glinski_int.h — Glinski hexagonal chess internals shared by the files of
 * rules/.
 *
 * Cells use the coordinates of docs/rules/glinski.md: file c = -5 (a) ..
 * +5 (l), height y = |c| + 2(rank - 1), 0..20.  Cells are numbered 0..90 in
 * order of (y, c), so that along any direction the index only grows or
 * only shrinks: the first blocker on a ray is its lowest or highest bit,
 * exactly as on an 8x8 board.  Bitboards are 128-bit.
 */
#ifndef KORP_GLINSKI_INT_H
#define KORP_GLINSKI_INT_H

#include "rules.h"
#include "notation_int.h"

#define GL_CELLS 91
#define GL_NONE 91
#define GL_EMPTY 0xFF
#define GL_FILES 11

typedef unsigned __int128 gl_bits;

#define GL_CODE(color, type) ((uint8_t)(((color) << 3) | (type)))
#define GL_COLOR(code) ((code) >> 3)
#define GL_TYPE(code) ((code) & 7)

struct gl_pos {
    gl_bits pieces[2][RULES_PIECE_TYPES];
    gl_bits occupied[2];
    uint8_t board[GL_CELLS];
    uint8_t side;
    uint8_t ep;        /* cell passed over, only if an ep capture is legal */
    uint16_t halfmove;
    uint16_t fullmove;
};

_Static_assert(sizeof(struct gl_pos) <= sizeof(struct rules_position),
               "gl_pos must fit in rules_position");
_Static_assert(_Alignof(struct gl_pos) <= _Alignof(struct rules_position),
               "rules_position must be aligned for gl_pos");

static inline const struct gl_pos *gl_const(const struct rules_position *p)
{
    return (const struct gl_pos *)(const void *)p->opaque;
}

static inline struct gl_pos *gl_mut(struct rules_position *p)
{
    return (struct gl_pos *)(void *)p->opaque;
}

static inline gl_bits gl_bit(int cell) { return (gl_bits)1 << cell; }

static inline int gl_count(gl_bits b)
{
    return __builtin_popcountll((uint64_t)b) + __builtin_popcountll((uint64_t)(b >> 64));
}

static inline int gl_lsb(gl_bits b)
{
    uint64_t lo = (uint64_t)b;
    return lo ? __builtin_ctzll(lo) : 64 + __builtin_ctzll((uint64_t)(b >> 64));
}

static inline int gl_msb(gl_bits b)
{
    uint64_t hi = (uint64_t)(b >> 64);
    return hi ? 127 - __builtin_clzll(hi) : 63 - __builtin_clzll((uint64_t)b);
}

static inline int gl_pop(gl_bits *b)
{
    int cell = gl_lsb(*b);
    *b &= *b - 1;
    return cell;
}

/* Directions: 0-5 orthogonal, 6-11 diagonal. */
enum { GL_NORTH = 0, GL_SOUTH = 1, GL_DIRS = 12 };

/* glinski_board.c: geometry and attack tables, filled by gl_tables_init(). */
void gl_tables_init(void);
int gl_cell_of(int file, int rank);      /* file 0..10, rank 1..11; GL_NONE */
int gl_file_of(int cell);                /* 0..10 */
int gl_rank_of(int cell);                /* 1..11 */
int gl_step(int dir, int cell);          /* neighbour or GL_NONE */
gl_bits gl_knight_attacks(int cell);
gl_bits gl_king_attacks(int cell);
gl_bits gl_pawn_attacks(int color, int cell);
gl_bits gl_bishop_attacks(int cell, gl_bits occ);
gl_bits gl_rook_attacks(int cell, gl_bits occ);
gl_bits gl_between(int a, int b);
gl_bits gl_line(int a, int b);
gl_bits gl_start_cells(int color);       /* the side's pawn starting cells */
gl_bits gl_last_cells(int color);        /* where the side's pawns promote */

gl_bits gl_attackers(const struct gl_pos *p, int cell, int by, gl_bits occ);
int gl_king_cell(const struct gl_pos *p, int color);
bool gl_in_check(const struct gl_pos *p);

/* glinski_movegen.c */
int gl_generate(const struct gl_pos *p, struct rules_move *out);
uint64_t gl_perft(const struct gl_pos *p, int depth);
/* Board moves ignoring the mover's king safety (for explanations). */
int gl_pseudo_moves(const struct gl_pos *p, struct rules_move *out);
bool gl_ep_capture_legal(const struct gl_pos *p, int ep);

/* glinski_position.c */
void gl_apply(struct gl_pos *p, struct rules_move m);
void gl_put(struct gl_pos *p, int color, int type, int cell);
void gl_remove(struct gl_pos *p, int cell);
bool gl_insufficient_material(const struct gl_pos *p);
/* Whether side c has mating material: a pawn, a rook, a queen or three minors. */
bool gl_can_mate(const struct gl_pos *p, int c);
enum rules_error gl_parse(struct gl_pos *p, const char *text, struct rules_why *why);
size_t gl_format(const struct gl_pos *p, char *buf, size_t size);
uint64_t gl_repetition_key(const struct gl_pos *p);

/* glinski_notation.c */
extern const struct notation_geometry gl_geometry;
void gl_cell_name(int cell, char *buf);

/* glinski_movegen.c: parts of the legal moves, for search. */
int gl_generate_noisy(const struct gl_pos *p, struct rules_move *out);
bool gl_move_legal_fast(const struct gl_pos *p, struct rules_move m);

extern const struct rules_variant rules_glinski;

#endif
