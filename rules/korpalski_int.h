/*
 * korpalski_int.h — Korpalski internals shared by the files of rules/.
 *
 * Squares are 0..63, a1 = 0, b1 = 1, ..., h8 = 63.  The position keeps
 * bitboards for speed and a mailbox for piece lookup; reserves are counts.
 * The prison is never stored: prison = full set - board - reserve.
 */
#ifndef KORP_KORPALSKI_INT_H
#define KORP_KORPALSKI_INT_H

#include "rules.h"
#include "notation_int.h"

#define KP_NO_SQUARE 64
#define KP_EMPTY 0xFF

/* A mailbox entry: (color << 3) | type, or KP_EMPTY. */
#define KP_CODE(color, type) ((uint8_t)(((color) << 3) | (type)))
#define KP_COLOR(code) ((code) >> 3)
#define KP_TYPE(code) ((code) & 7)

struct kp_pos {
    uint64_t pieces[2][RULES_PIECE_TYPES];
    uint64_t occupied[2];
    uint8_t board[64];
    uint8_t reserve[2][RULES_PIECE_TYPES];
    uint8_t side;      /* enum rules_color */
    uint8_t ep;        /* square passed over, only if ep capture is legal */
    uint16_t halfmove;
    uint16_t fullmove;
};

_Static_assert(sizeof(struct kp_pos) <= sizeof(struct rules_position),
               "kp_pos must fit in rules_position");

/* How many men of each type a side owns. */
extern const uint8_t kp_set_count[RULES_PIECE_TYPES];

static inline const struct kp_pos *kp_const(const struct rules_position *p)
{
    return (const struct kp_pos *)(const void *)p->opaque;
}

static inline struct kp_pos *kp_mut(struct rules_position *p)
{
    return (struct kp_pos *)(void *)p->opaque;
}

static inline uint64_t bb_of(int sq) { return 1ULL << sq; }
static inline int bb_lsb(uint64_t b) { return __builtin_ctzll(b); }
static inline int bb_msb(uint64_t b) { return 63 - __builtin_clzll(b); }
static inline int bb_count(uint64_t b) { return __builtin_popcountll(b); }
static inline int bb_pop(uint64_t *b)
{
    int sq = __builtin_ctzll(*b);
    *b &= *b - 1;
    return sq;
}

#define KP_RANK_1 0x00000000000000FFULL
#define KP_RANK_2 0x000000000000FF00ULL
#define KP_RANK_7 0x00FF000000000000ULL
#define KP_RANK_8 0xFF00000000000000ULL
#define KP_LIGHT_SQUARES 0x55AA55AA55AA55AAULL

/* korpalski_attacks.c: tables filled by kp_attacks_init(). */
void kp_attacks_init(void);
uint64_t kp_knight_attacks(int sq);
uint64_t kp_king_attacks(int sq);
uint64_t kp_pawn_attacks(int color, int sq);
uint64_t kp_bishop_attacks(int sq, uint64_t occ);
uint64_t kp_rook_attacks(int sq, uint64_t occ);
uint64_t kp_between(int a, int b);   /* squares strictly between, if aligned */
uint64_t kp_line(int a, int b);      /* the whole line through both, if aligned */

/* Men of `by` that attack `sq` given occupancy `occ`. */
uint64_t kp_attackers(const struct kp_pos *p, int sq, int by, uint64_t occ);
int kp_king_cell(const struct kp_pos *p, int color); /* KP_NO_SQUARE if none */
bool kp_in_check(const struct kp_pos *p);

/* korpalski_movegen.c */
int kp_generate(const struct kp_pos *p, struct rules_move *out);
uint64_t kp_perft(const struct kp_pos *p, int depth);
/* Board moves ignoring the mover's king safety (for explanations). */
int kp_pseudo_moves(const struct kp_pos *p, struct rules_move *out);
bool kp_ep_capture_legal(const struct kp_pos *p, int ep);
/* Bitmask of types (1 << type) the side may promote to: its prison. */
unsigned kp_prison_types(const struct kp_pos *p, int color);
/* Squares from which a man of `type` and `color` would attack square `sq`. */
uint64_t kp_checking_squares(const struct kp_pos *p, int type, int color, int sq);

/* korpalski_position.c */
void kp_apply(struct kp_pos *p, struct rules_move m);
void kp_put(struct kp_pos *p, int color, int type, int sq);
void kp_remove(struct kp_pos *p, int sq);
bool kp_insufficient_material(const struct kp_pos *p);
enum rules_error kp_parse(struct kp_pos *p, const char *text, struct rules_why *why);
size_t kp_format(const struct kp_pos *p, char *buf, size_t size);
uint64_t kp_repetition_key(const struct kp_pos *p);

/* korpalski_notation.c */
extern const struct notation_geometry kp_geometry;
bool kp_explain_illegal(const struct rules_position *pos,
                        const struct notation_pattern *pat, struct rules_why *why);

/* korpalski_movegen.c: parts of the legal moves, for search. */
int kp_generate_noisy(const struct kp_pos *p, struct rules_move *out);
bool kp_move_legal_fast(const struct kp_pos *p, struct rules_move m);

/* The variant table (korpalski.c). */
extern const struct rules_variant rules_korpalski;

#endif
