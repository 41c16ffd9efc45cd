/*
 * rules.h — the chess rules of korp's variants, behind one variant table.
 *
 * Pure C, libc only (and pthread_once): no allocation, no I/O.  Call
 * rules_init() before any other function; it may be called any number of
 * times from any threads.  After it every table is read-only and all
 * functions are thread-safe on distinct positions.
 *
 * Trust: the public table functions that take a move (move_format,
 * position_apply, move_is_irreversible, rules_pgn_write, rules_claim_check)
 * check it against the legal moves, so a move read back from storage or
 * sent by someone else can never corrupt a position.  A position, however,
 * must come from position_parse (or from applying moves to one).
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
/*
 * The halfmove clock and the fullmove number saturate at this value instead
 * of wrapping: a game longer than that keeps writing this number.  Position
 * readers accept every value up to it, so every text korp writes reads back.
 */
#define RULES_COUNTER_MAX 65535
/*
 * Version of the repetition keys.  Keys are stored in the database; this
 * number changes whenever the hashing changes, so stored keys of another
 * version must be recomputed (from the stored FENs) before they are compared.
 */
#define RULES_KEY_VERSION 1

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
 * A set of cells of any variant: cell i is bit (i % 64) of w[i / 64].
 */
struct rules_cells {
    uint64_t w[2];
};

/* A man on a cell as search sees it: (colour << 3) | type, or RULES_NO_MAN. */
#define RULES_MAN(color, type) (((color) << 3) | (type))
#define RULES_MAN_COLOR(man) ((man) >> 3)
#define RULES_MAN_TYPE(man) ((man) & 7)
#define RULES_NO_MAN (-1)

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

/* The shape of a variant's board, for those who draw it. */
enum rules_board {
    RULES_BOARD_SQUARE_8X8 = 0,  /* 64 squares, files a-h, ranks 1-8 */
    RULES_BOARD_HEXAGON_91       /* Glinski's 91 cells, files a-l (no j), ranks 1-11 */
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

/*
 * Why something was refused, in words for people and as a stable code for
 * programs (rules_reason_slug gives the code's kebab-case name).  Every
 * refusal fills both.
 */
enum rules_reason {
    RULES_REASON_NONE = 0,                  /* "none" */
    RULES_REASON_SYNTAX,                    /* "syntax": no accepted notation */
    RULES_REASON_INVALID_POSITION,          /* "invalid-position" */
    RULES_REASON_AMBIGUOUS,                 /* "ambiguous": several moves fit */
    RULES_REASON_GAME_OVER,                 /* "game-over": mate or stalemate */
    RULES_REASON_NOT_LEGAL,                 /* "not-legal": a move value that
                                               is not among the legal moves */
    RULES_REASON_NO_PIECE_ON_SQUARE,        /* "no-piece-on-square": the named
                                               from-cell lacks that man */
    RULES_REASON_NO_SUCH_PIECE,             /* "no-such-piece": no man of that
                                               type on the board */
    RULES_REASON_OWN_MAN_ON_SQUARE,         /* "own-man-on-square" */
    RULES_REASON_CAPTURE_OF_EMPTY_SQUARE,   /* "capture-of-empty-square" */
    RULES_REASON_CAPTURE_NOT_MARKED,        /* "capture-not-marked" */
    RULES_REASON_CANNOT_REACH,              /* "cannot-reach": no such man
                                               moves that way */
    RULES_REASON_KING_IN_CHECK,             /* "king-in-check": the move would
                                               leave the mover's king attacked */
    RULES_REASON_PROMOTION_NOT_NAMED,       /* "promotion-not-named" */
    RULES_REASON_NOT_A_PROMOTION,           /* "not-a-promotion" */
    RULES_REASON_PROMOTION_PIECE_NOT_CAPTURED, /* "promotion-piece-not-captured" */
    RULES_REASON_PRISON_EMPTY,              /* "prison-empty" */
    RULES_REASON_KING_NOT_PLACED,           /* "king-not-placed" */
    RULES_REASON_KINGS_ADJACENT,            /* "kings-adjacent" */
    RULES_REASON_NOT_IN_RESERVE,            /* "not-in-reserve" */
    RULES_REASON_DROP_ON_OCCUPIED_SQUARE,   /* "drop-on-occupied-square" */
    RULES_REASON_PAWN_DROP_RANK,            /* "pawn-drop-rank" */
    RULES_REASON_DROP_GIVES_CHECK,          /* "drop-gives-check" */
    RULES_REASON_NO_DROPS,                  /* "no-drops": variant has none */
    RULES_REASON_AGREEMENT_NOT_ALLOWED,     /* "agreement-not-allowed" */
    RULES_REASON_COUNT
};

/* A refusal: the code and an English message (lower case, no period). */
struct rules_why {
    enum rules_reason reason;
    char text[RULES_WHY_MAX];
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
    /* Whether each side (by colour) could ever mate with its material, by
     * the variant's material rule; a side that runs out of time against an
     * opponent that cannot mate draws (see rules_result_on_time). */
    bool can_mate[2];
    /* Whether a draw may be agreed now (Korpalski: only with both reserves
     * empty; Glinski: always). */
    bool draw_agreement_allowed;
};

/*
 * One variant: a table of functions.  Text functions write at most `size`
 * bytes including the NUL and return the length written.  Functions taking a
 * `why` fill it on failure with the reason and a message; `why` may be NULL.
 */
struct rules_variant {
    const char *name;        /* "korpalski", "glinski" */
    const char *pgn_name;    /* value of the PGN Variant tag */
    const char *start_text;  /* start position as FEN/HFEN */
    /* What callers need to know of a variant, so that none compares names: */
    enum rules_board board;
    bool hungarian_letters;  /* move_parse also reads RULES_DIALECT_HUNGARIAN
                                (where B is a rook, bastya) */
    bool polish_notation;    /* move_format writes the inventor's Polish
                                notation (RULES_NOTATION_POLISH_SHORT) */

    /* Reads a FEN/HFEN.  Counters up to RULES_COUNTER_MAX are accepted. */
    enum rules_error (*position_parse)(struct rules_position *pos,
                                       const char *text, struct rules_why *why);
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
                                   struct rules_move *out, struct rules_why *why);
    /* Whether `move` is legal in pos: equal, all four bytes, to one of
     * moves_legal's moves (`from` is 0 for drops, `piece` RULES_NO_PIECE
     * for board moves that do not promote). */
    bool (*move_is_legal)(const struct rules_position *pos,
                          struct rules_move move);
    /* Writes a legal move; for a move that is not legal it writes "" and
     * returns 0. */
    size_t (*move_format)(const struct rules_position *pos,
                          struct rules_move move, enum rules_notation how,
                          char *buf, size_t size);
    /* Plays `move` if it is legal and returns RULES_OK; otherwise leaves
     * pos unchanged and returns RULES_ERR_ILLEGAL. */
    enum rules_error (*position_apply)(struct rules_position *pos,
                                       struct rules_move move);
    /* Whether the legal `move` is irreversible, so that no position before
     * it can occur again: a capture, a pawn move, a drop.  These are
     * exactly the moves that reset the halfmove clock to 0; the stored list
     * of repetition keys restarts after them.  False for an illegal move. */
    bool (*move_is_irreversible)(const struct rules_position *pos,
                                 struct rules_move move);
    /* Whether a draw may be agreed in pos; if not, fills why (reason
     * RULES_REASON_AGREEMENT_NOT_ALLOWED). */
    bool (*draw_agreement_allowed)(const struct rules_position *pos,
                                   struct rules_why *why);

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

    /*
     * For search (engine/): fast helpers that trust their caller.  They do
     * not check moves, so they are meant for moves that came out of
     * moves_legal on the same position; everything else uses the checked
     * functions above.
     */
    int cells;               /* cells of the board: 64, 91 */
    /* Plays a move of moves_legal(pos), unchecked (copy-make: copy the
     * position first to keep the old one). */
    void (*move_play)(struct rules_position *pos, struct rules_move move);
    /* Hands the move to the other side with nothing played (no en passant
     * afterwards): the "null move" of search, never a legal move.  Only
     * for positions with both kings on the board and no check. */
    void (*null_play)(struct rules_position *pos);
    /* The man on `cell` (RULES_MAN) or RULES_NO_MAN. */
    int (*man_at)(const struct rules_position *pos, int cell);
    /* How many men of `type` `side` holds in reserve (0 without drops). */
    int (*reserve_count)(const struct rules_position *pos, enum rules_color side,
                         enum rules_piece type);
    /* Cells the man on `cell` attacks with the current occupancy, own men's
     * cells included (a pawn: its capture cells); empty for an empty cell. */
    struct rules_cells (*attacks_from)(const struct rules_position *pos, int cell);
    /* The variant's material rule alone (rules_report.insufficient_material
     * without generating moves). */
    bool (*insufficient_material)(const struct rules_position *pos);
};

/* Letter dialects for move_parse. */
enum { RULES_DIALECT_DEFAULT = 0, RULES_DIALECT_HUNGARIAN = 1 };

/* Fills the attack tables, once: safe to call again and from several
 * threads at the same time (every call returns after the tables are ready). */
void rules_init(void);

/* The variant of that name, or NULL.  Names are case-insensitive. */
const struct rules_variant *rules_variant_find(const char *name);

/* The variant whose PGN Variant tag value is `tag`, or NULL. */
const struct rules_variant *rules_variant_find_pgn(const char *tag);

/* NULL-terminated list of all variants. */
const struct rules_variant *const *rules_variant_list(void);

/* "1-0", "0-1", "1/2-1/2", "3/4-1/4", "1/4-3/4" or "*". */
const char *rules_result_text(enum rules_result result);

/* The result written as rules_result_text writes it, into *out; false
 * (and *out untouched) for any other text. */
bool rules_result_parse(const char *text, enum rules_result *out);

/* Whether two moves are the same move (all four bytes). */
bool rules_move_equal(struct rules_move a, struct rules_move b);

/* "ongoing", "checkmate", "stalemate", "insufficient-material". */
const char *rules_status_text(enum rules_status status);

/* Short English name of an error code. */
const char *rules_error_text(enum rules_error err);

/* Stable kebab-case name of a reason code ("drop-gives-check", ...), for
 * programs and APIs; "unknown" for a value out of range. */
const char *rules_reason_slug(enum rules_reason reason);

/*
 * A result's value in quarter points, by colour: 1-0 gives 4 and 0,
 * 1/2-1/2 gives 2 and 2, 3/4-1/4 gives 3 and 1.  Returns false (and 0, 0)
 * for RULES_RESULT_NONE or an unknown value.
 */
bool rules_result_quarters(enum rules_result result, int quarters[2]);

/* The result when `flagged` runs out of time in the position of report r:
 * the opponent wins if it could mate (r->can_mate), else a draw. */
enum rules_result rules_result_on_time(const struct rules_report *r,
                                       enum rules_color flagged);

/*
 * Repetition counting over stored keys.  `keys` holds the repetition keys
 * of the positions since the last irreversible move, oldest first: the
 * position right after that move first, the current position last.
 * Counts the entries equal to `key`, writes the first `max_at` of their
 * indexes (ascending) into `at` (may be NULL) and returns the count.
 */
int rules_repetition_count(const uint64_t *keys, int count, uint64_t key,
                           int *at, int max_at);

#define RULES_CLAIM_AT_MAX 16

/* What a draw claim finds (see rules_claim_check). */
struct rules_claim {
    uint64_t key;        /* repetition key of the position claimed about */
    int occurrences;     /* how often it occurred, itself included */
    int at[RULES_CLAIM_AT_MAX]; /* where, oldest first: an index into keys,
                                   or `count` for the claimed position when
                                   the list does not hold it */
    int at_count;        /* entries of `at` filled */
    bool irreversible;   /* the claim's move was irreversible: the keys
                            before it no longer count */
    int halfmove_clock;  /* of the position claimed about */
    bool threefold;      /* occurrences >= 3: a repetition claim is valid */
    bool fifty_move;     /* halfmove_clock >= 100: a fifty-move claim is valid */
};

/*
 * Judges a draw claim in pos, as the chess convention has it: with
 * move == NULL about the current position, or with a move, about the
 * position after it (the move is then not played; pos is not changed).
 * `keys`/`count` are as for rules_repetition_count: the current position
 * should be the list's last entry; if it is not, it is counted as if it
 * were (index `count`).  Returns RULES_ERR_ILLEGAL (why filled) if move is
 * not legal, else RULES_OK with *out filled.
 */
enum rules_error rules_claim_check(const struct rules_variant *v,
                                   const struct rules_position *pos,
                                   const uint64_t *keys, int count,
                                   const struct rules_move *move,
                                   struct rules_claim *out,
                                   struct rules_why *why);

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
 * One game record (PGN or bare movetext; of several games, the first)
 * replayed from `fen` (NULL: the record's FEN tag, else the variant's
 * start), every move read in any notation the variant reads (Hungarian
 * letters where the record uses them) and checked.  on_ply is called after
 * each move.  Returns RULES_OK with the final position in *end, or the
 * first failure: the ply it happened at (0: the start position), the move
 * as written and the rules' reason.  A move after the game has ended, and
 * a record longer than max_plies, fail too.
 */
struct rules_replay_step {
    int ply;                              /* plies played, this one included */
    struct rules_move move;
    struct rules_position before;         /* the position the move was played in */
    const struct rules_position *after;
    const char *token;                    /* the move as the record has it */
};
struct rules_replay_failure {
    int ply;
    char move[64];
    struct rules_why why;
};
typedef void (*rules_replay_fn)(void *arg, const struct rules_replay_step *step);
enum rules_error rules_replay(const struct rules_variant *v, const char *text, size_t len,
                              const char *fen, int max_plies, rules_replay_fn on_ply, void *arg,
                              struct rules_position *end, struct rules_replay_failure *failed);

/*
 * Writes a game as PGN into buf (at most `size` bytes with the NUL) and
 * returns the length the whole text needs, as snprintf does.  Every move is
 * checked: if moves[i] is not legal where it is played, nothing is written
 * (buf holds "") and the function returns 0.  `tags` is a
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
