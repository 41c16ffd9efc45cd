/*
 * notation_int.h — move notation shared by the variants: reading any
 * accepted form into a pattern, matching it against the legal moves, and
 * writing SAN-like forms.  The variant supplies its geometry.
 */
#ifndef KORP_NOTATION_INT_H
#define KORP_NOTATION_INT_H

#include "rules.h"

/* What a move text says; -1 where it says nothing. */
struct notation_pattern {
    int piece;
    bool drop;
    int from_file;
    int from_rank;
    int to;          /* -1 with to_file set: "fxe", a pawn capture by files */
    int to_file;
    int capture;     /* 1: says capture, 0: says non-capture, -1: silent */
    int promo;
};

/* How a variant names its cells, and the internals notation needs. */
struct notation_geometry {
    int cells;               /* number of cells: 64, 91 */
    /* Parses a cell name at s; returns the cell and sets *len, or -1. */
    int (*cell_parse)(const char *s, int *len);
    /* Writes the cell name (at most 3 chars + NUL). */
    void (*cell_name)(int cell, char *buf);
    /* File index of a file letter, or -1; and back. */
    int (*file_parse)(char c);
    char (*file_letter)(int file);
    int (*cell_file)(int cell);
    int (*cell_rank)(int cell);
    /* Type of the man on the cell, or -1 if it is empty. */
    int (*piece_at)(const struct rules_position *pos, int cell);
    /* Colour of the man on the cell, or -1 if it is empty. */
    int (*color_at)(const struct rules_position *pos, int cell);
    /* Plays a move known to be legal, without checking it. */
    void (*apply)(struct rules_position *pos, struct rules_move m);
    /* Board moves as the men move, ignoring whether the mover's king is
     * left attacked (drops left out); for explanations only. */
    int (*pseudo_moves)(const struct rules_position *pos, struct rules_move *out);
    /* May fill `why` with a variant-specific reason when nothing matches
     * and return true; NULL or false: the generic reasons decide. */
    bool (*explain)(const struct rules_position *pos,
                    const struct notation_pattern *pat, struct rules_why *why);
};

/* How to write a move. */
struct notation_style {
    const char *letters;   /* indexed by type: "PNBRQK" */
    bool pawn_letter;      /* write the pawn's letter (Polish "p") */
    bool full_from;        /* always write the from-cell (Polish full) */
    char capture;          /* 'x' or ':' */
    char move_sep;         /* 0 or '-' (written only with full_from) */
    char drop;             /* '@' or '/' */
    char mate;             /* '#' or 'X' */
};

extern const struct notation_style notation_san;
extern const struct notation_style notation_polish_short;
extern const struct notation_style notation_polish_full;

/* Letter sets by type, for reading: index = type, ' ' where none. */
#define NOTATION_LETTERS_ENGLISH "PNBRQK"
#define NOTATION_LETTERS_POLISH "pSGWHK"
#define NOTATION_LETTERS_HUNGARIAN " HFBVK"

extern const char *const notation_piece_names[RULES_PIECE_TYPES];

/*
 * Reads `text` into *pat using the NULL-terminated list of letter sets.
 * Check and mate marks (+ # X) and annotation marks (! ?) at the end are
 * ignored.  On failure fills `why`.
 */
enum rules_error notation_decode(const struct notation_geometry *g,
                                 const char *const *letter_sets,
                                 const char *text,
                                 struct notation_pattern *pat, struct rules_why *why);

/*
 * The legal moves of pos (v->moves_legal), kept per thread for the last
 * position asked about: valid until this thread asks about another.
 */
const struct rules_move *notation_legal(const struct rules_variant *v,
                                       const struct rules_position *pos, int *n);

/*
 * Finds the one legal move matching *pat.  When nothing matches, says why:
 * the game is over, then g->explain, then the generic reasons in order
 * (the from-cell, the piece, the destination, the capture mark, what the
 * man can reach, the king's safety, the promotion).
 */
enum rules_error notation_match(
    const struct rules_variant *v, const struct notation_geometry *g,
    const struct rules_position *pos, const struct notation_pattern *pat,
    struct rules_move *out, struct rules_why *why);

/* Writes `m` (legal in pos: not checked) in the given style, with check/mate marks. */
size_t notation_format(const struct rules_variant *v,
                       const struct notation_geometry *g,
                       const struct rules_position *pos, struct rules_move m,
                       const struct notation_style *style, char *buf,
                       size_t size);

/* Writes `m` as <from><to>[promo] or <P>@<to>. */
size_t notation_format_uci(const struct notation_geometry *g,
                           struct rules_move m, char *buf, size_t size);

#endif
