/*
 * notation_int.h — move notation shared by the variants: reading any
 * accepted form into a pattern, matching it against the legal moves, and
 * writing SAN-like forms.  The variant supplies its geometry.
 */
#ifndef KORP_NOTATION_INT_H
#define KORP_NOTATION_INT_H

#include "rules.h"

/* How a variant names its cells. */
struct notation_geometry {
    /* Parses a cell name at s; returns the cell and sets *len, or -1. */
    int (*cell_parse)(const char *s, int *len);
    /* Writes the cell name (at most 3 chars + NUL). */
    void (*cell_name)(int cell, char *buf);
    /* File index of a file letter, or -1. */
    int (*file_parse)(char c);
    int (*cell_file)(int cell);
    int (*cell_rank)(int cell);
    /* Type of the man on the cell, or -1 if it is empty. */
    int (*piece_at)(const struct rules_position *pos, int cell);
};

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
                                 struct notation_pattern *pat, char *why);

/*
 * Finds the one legal move matching *pat.  `explain`, if not NULL, may
 * fill `why` with a variant-specific reason when nothing matches and return
 * true; otherwise a generic reason is written.
 */
enum rules_error notation_match(
    const struct rules_variant *v, const struct notation_geometry *g,
    const struct rules_position *pos, const struct notation_pattern *pat,
    bool (*explain)(const struct rules_position *,
                    const struct notation_pattern *, char *),
    struct rules_move *out, char *why);

/* Writes `m` (legal in pos) in the given style, with check/mate marks. */
size_t notation_format(const struct rules_variant *v,
                       const struct notation_geometry *g,
                       const struct rules_position *pos, struct rules_move m,
                       const struct notation_style *style, char *buf,
                       size_t size);

/* Writes `m` as <from><to>[promo] or <P>@<to>. */
size_t notation_format_uci(const struct notation_geometry *g,
                           struct rules_move m, char *buf, size_t size);

#endif
