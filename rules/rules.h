/*
 * rules.h — the chess rules of korp's variants, behind one variant table.
 *
 * Pure C, libc only: no allocation, no I/O.  Call rules_init() once before
 * any other function (and before threads start); after that every table is
 * read-only and all functions are thread-safe on distinct positions.
 */
#ifndef KORP_RULES_H
#define KORP_RULES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Upper bound of legal moves in any position of any variant. */
#define RULES_MAX_MOVES 1024
/* Enough for any position text (FEN/HFEN) a variant writes, with its NUL. */
#define RULES_TEXT_MAX 192
/* Enough for any move text (SAN, UCI, Polish), with its NUL. */
#define RULES_MOVE_TEXT_MAX 24
/* Enough for any error explanation, with its NUL. */
#define RULES_WHY_MAX 160

enum rules_color { RULES_WHITE = 0, RULES_BLACK = 1 };

/* Piece types, shared by every variant. */
enum rules_piece {
    RULES_PAWN = 0,
    RULES_KNIGHT,
    RULES_BISHOP,
    RULES_ROOK,
    RULES_QUEEN,
    RULES_KING,
    RULES_PIECE_TYPES,
    RULES_NO_PIECE = 7
};

/* Move flags. */
enum {
    RULES_MOVE_DROP = 1 << 0,
    RULES_MOVE_CAPTURE = 1 << 1,
    RULES_MOVE_EN_PASSANT = 1 << 2,
    RULES_MOVE_DOUBLE_STEP = 1 << 3,
    RULES_MOVE_PROMOTION = 1 << 4
};

/*
 * A move is a plain value.  `from` is meaningless for drops; `piece` is the
 * dropped type for drops and the new type for promotions (RULES_NO_PIECE
 * otherwise).  Cells are variant-specific indices (0..63, 0..90).
 */
struct rules_move {
    uint8_t from;
    uint8_t to;
    uint8_t piece;
    uint8_t flags;
};

/*
 * A position: opaque, fixed size, no pointers inside, safe to copy with
 * assignment or memcpy.  Only the variant that made it may read it.
 */
struct rules_position {
    _Alignas(16) unsigned char opaque[384];
};

/* Status of a position, decided by the rules alone. */
enum rules_status {
    RULES_ONGOING = 0,
    RULES_CHECKMATE,
    RULES_STALEMATE,
    RULES_INSUFFICIENT_MATERIAL
};

/* Result of a game, in the words of PGN. */
enum rules_result {
    RULES_RESULT_NONE = 0,     /* "*" */
    RULES_RESULT_WHITE_WINS,   /* "1-0" */
    RULES_RESULT_BLACK_WINS,   /* "0-1" */
    RULES_RESULT_DRAW,         /* "1/2-1/2" */
    RULES_RESULT_WHITE_3_4,    /* "3/4-1/4", Glinski stalemate by White */
    RULES_RESULT_BLACK_3_4     /* "1/4-3/4", Glinski stalemate by Black */
};

/* Error codes.  0 is success. */
enum rules_error {
    RULES_OK = 0,
    RULES_ERR_SYNTAX,       /* text is not of any accepted form */
    RULES_ERR_INVALID,      /* well-formed but not a valid position */
    RULES_ERR_ILLEGAL,      /* move is not legal here */
    RULES_ERR_AMBIGUOUS     /* move text matches several legal moves */
};

/* Move notations a variant can write. */
enum rules_notation {
    RULES_NOTATION_SAN = 0,
    RULES_NOTATION_UCI,
    RULES_NOTATION_POLISH_SHORT,  /* Korpalski only; SAN elsewhere */
    RULES_NOTATION_POLISH_FULL    /* Korpalski only; SAN elsewhere */
};

/* Everything a status query tells about a position. */
struct rules_report {
    enum rules_status status;
    enum rules_result result;
    bool in_check;
    int legal_moves;
    int halfmove_clock;
    bool fifty_move_claimable;
    bool insufficient_material;
    bool can_drop[2];
};

/*
 * One variant: a table of functions.  Text functions write at most `size`
 * bytes including the NUL and return the length written.  Functions taking a
 * `why` buffer fill it (RULES_WHY_MAX bytes) with a message on failure.
 */
struct rules_variant {
    const char *name;        /* "korpalski", "glinski" */
    const char *pgn_name;    /* value of the PGN Variant tag */
    const char *start_text;  /* start position as FEN/HFEN */

    enum rules_error (*position_parse)(struct rules_position *pos,
                                       const char *text, char *why);
    size_t (*position_format)(const struct rules_position *pos, char *buf,
                              size_t size);

    /* Legal moves into out[RULES_MAX_MOVES]; returns their number. */
    int (*moves_legal)(const struct rules_position *pos,
                       struct rules_move *out);
    /* Leaf count of the legal move tree of the given depth. */
    uint64_t (*perft)(const struct rules_position *pos, int depth);

    /* Reads a move in any accepted notation; `dialect` is 0 for the
     * variant's default letters, or a letter set name ("hu"). */
    enum rules_error (*move_parse)(const struct rules_position *pos,
                                   const char *text, int dialect,
                                   struct rules_move *out, char *why);
    size_t (*move_format)(const struct rules_position *pos,
                          struct rules_move move, enum rules_notation how,
                          char *buf, size_t size);
    /* Plays a legal move; the move must come from moves_legal/move_parse. */
    void (*position_apply)(struct rules_position *pos, struct rules_move move);

    void (*position_report)(const struct rules_position *pos,
                            struct rules_report *out);
    bool (*in_check)(const struct rules_position *pos);
    enum rules_color (*side_to_move)(const struct rules_position *pos);
    int (*halfmove_clock)(const struct rules_position *pos);
    int (*fullmove_number)(const struct rules_position *pos);
    /* 64-bit key equal for positions that threefold repetition equates. */
    uint64_t (*repetition_key)(const struct rules_position *pos);
    /* Whether `side` still has anything in reserve to drop. */
    bool (*can_drop)(const struct rules_position *pos, enum rules_color side);
};

/* Letter dialects for move_parse. */
enum { RULES_DIALECT_DEFAULT = 0, RULES_DIALECT_HUNGARIAN = 1 };

/* Fills the attack and hash tables.  Idempotent; not thread-safe. */
void rules_init(void);

/* The variant of that name, or NULL.  Names are case-insensitive. */
const struct rules_variant *rules_variant_find(const char *name);

/* The variant whose PGN Variant tag value is `tag`, or NULL. */
const struct rules_variant *rules_variant_find_pgn(const char *tag);

/* NULL-terminated list of all variants. */
const struct rules_variant *const *rules_variant_list(void);

/* "1-0", "0-1", "1/2-1/2", "3/4-1/4", "1/4-3/4" or "*". */
const char *rules_result_text(enum rules_result result);

/* "ongoing", "checkmate", "stalemate", "insufficient-material". */
const char *rules_status_text(enum rules_status status);

/* Short English name of an error code. */
const char *rules_error_text(enum rules_error err);

/*
 * A game record reader (PGN or bare movetext).  Splits `text` into move
 * tokens, skipping tags, comments, variations, move numbers, NAGs, results
 * and annotation marks.  Calls `on_tag` for each tag pair and `on_move` for
 * each move token (NUL-terminated, without !/? marks); a non-zero return
 * from a callback stops the reading and is returned.  Returns 0 at the end.
 */
struct rules_pgn_reader {
    int (*on_tag)(void *arg, const char *name, const char *value);
    int (*on_move)(void *arg, const char *token);
    /* Called at the start of each new game after the first; may be NULL. */
    int (*on_game_end)(void *arg);
    void *arg;
};
int rules_pgn_read(const char *text, size_t len,
                   const struct rules_pgn_reader *reader);

/*
 * Writes a game as PGN into buf (at most `size` bytes with the NUL) and
 * returns the length the whole text needs, as snprintf does.  `tags` is a
 * NULL-terminated list of name, value pairs; the Seven Tag Roster is always
 * written (a missing tag as "?"), then the Variant tag, SetUp and FEN when
 * `start` is not the variant's start position, then the other tags.  The
 * movetext is SAN from `start`, wrapped before 80 columns, ending in the
 * result (which also fills the Result tag).
 */
size_t rules_pgn_write(const struct rules_variant *v, const char *const *tags,
                       const struct rules_position *start,
                       const struct rules_move *moves, int count,
                       enum rules_result result, char *buf, size_t size);

/*
 * Counts the games in a record and, for each of the first `max`, which
 * letter dialect its moves use: RULES_DIALECT_HUNGARIAN where a move names
 * a piece with V, F or H (vezer, futo, huszar), else RULES_DIALECT_DEFAULT.
 * `out` may be NULL to count only.  Returns the number of games.
 */
int rules_pgn_dialects(const char *text, size_t len, unsigned char *out, int max);

#endif
