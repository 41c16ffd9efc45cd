/*
 * notation.c — reading and writing moves, for every variant.
 *
 * Reading turns a text into a pattern (what the text says about the move),
 * then picks the one legal move that fits.  Writing uses the legal moves to
 * decide disambiguation and plays the move on a copy for check marks.
 */
#include "notation_int.h"
#include "report_int.h"

#include <stdio.h>
#include <string.h>

const char *const notation_piece_names[RULES_PIECE_TYPES] = {
    "pawn", "knight", "bishop", "rook", "queen", "king"
};

const struct notation_style notation_san = {
    NOTATION_LETTERS_ENGLISH, false, false, 'x', 0, '@', '#'
};
const struct notation_style notation_polish_short = {
    NOTATION_LETTERS_POLISH, true, false, ':', 0, '/', 'X'
};
const struct notation_style notation_polish_full = {
    NOTATION_LETTERS_POLISH, true, true, ':', '-', '/', 'X'
};

#define TEXT_LIMIT 32

/*
 * The legal moves of the last position a move was read or written in, one
 * per thread: moves are mostly read and written many from one position
 * (every legal move with its SAN, a move read then written in three
 * notations), and each SAN needs all of them for its disambiguation, which
 * made writing n moves cost n move generations (and so did checking each
 * move against the legal ones: move_is_legal).  Positions are compared
 * whole, so a hit is the same position; threads share nothing.
 */
static _Thread_local struct {
    const struct rules_variant *variant;
    struct rules_position pos;
    int n;
    struct rules_move moves[RULES_MAX_MOVES];
} legal_memo;

const struct rules_move *notation_legal(const struct rules_variant *v,
                                       const struct rules_position *pos, int *n)
{
    if (legal_memo.variant != v || memcmp(&legal_memo.pos, pos, sizeof *pos) != 0) {
        legal_memo.n = v->moves_legal(pos, legal_memo.moves);
        legal_memo.pos = *pos;
        legal_memo.variant = v;
    }
    *n = legal_memo.n;
    return legal_memo.moves;
}

/* Type of letter c in any of the sets, or -1.  *set_index tells which. */
static int letter_type(const char *const *sets, char c, int *set_index)
{
    if (c == ' ' || c == '\0')
        return -1;
    for (int s = 0; sets[s] != NULL; s++) {
        const char *hit = strchr(sets[s], c);
        if (hit != NULL) {
            if (set_index != NULL)
                *set_index = s;
            return (int)(hit - sets[s]);
        }
    }
    return -1;
}

/* Promotion letters are read in either case. */
static int promo_type(const char *const *sets, char c)
{
    int t = letter_type(sets, c, NULL);
    if (t < 0 && c >= 'a' && c <= 'z')
        t = letter_type(sets, (char)(c - 'a' + 'A'), NULL);
    if (t == RULES_PAWN || t == RULES_KING)
        return -1;
    return t;
}

static enum rules_error syntax(struct rules_why *why, const char *what)
{
    return text_fail(why, RULES_ERR_SYNTAX, RULES_REASON_SYNTAX,
                     "not a move in any accepted notation: %s", what);
}

/* Parses the cell that spans exactly s[0..n). */
static int cell_exact(const struct notation_geometry *g, const char *s,
                      size_t n)
{
    int len = 0;
    int cell = g->cell_parse(s, &len);
    return (cell >= 0 && (size_t)len == n) ? cell : -1;
}

static void set_from_cell(const struct notation_geometry *g,
                          struct notation_pattern *pat, int cell)
{
    pat->from_file = g->cell_file(cell);
    pat->from_rank = g->cell_rank(cell);
}

/* The part between piece letter and destination: from-cell, file, rank,
 * separator, captured man's letter. */
static enum rules_error decode_middle(const struct notation_geometry *g,
                                      const char *const *sets, const char *m,
                                      size_t n, bool loose,
                                      struct notation_pattern *pat, struct rules_why *why)
{
    size_t i = 0;
    int len = 0;
    int cell = n > 0 ? g->cell_parse(m, &len) : -1;

    if (cell >= 0 && (size_t)len <= n) {
        /* The long form names both cells, as the coordinate form does, so
         * it need not mark captures (Nf7i5); a mark it writes must be true. */
        set_from_cell(g, pat, cell);
        i = (size_t)len;
        loose = true;
    } else {
        if (i < n && g->file_parse(m[i]) >= 0)
            pat->from_file = g->file_parse(m[i++]);
        if (i < n && m[i] >= '1' && m[i] <= '9') {
            int rank = m[i++] - '0';
            if (i < n && m[i] >= '0' && m[i] <= '9')
                rank = rank * 10 + (m[i++] - '0');
            pat->from_rank = rank;
        }
    }
    pat->capture = loose ? -1 : 0;
    if (i < n && (m[i] == 'x' || m[i] == ':')) {
        pat->capture = 1;
        i++;
        /* Long form names the captured man: Qc3xBf9. */
        if (i < n && m[i] >= 'A' && m[i] <= 'Z' &&
            letter_type(sets, m[i], NULL) >= 0)
            i++;
    } else if (i < n && m[i] == '-') {
        pat->capture = 0;
        i++;
    }
    if (i != n)
        return syntax(why, "unexpected characters before the destination");
    return RULES_OK;
}

static enum rules_error decode(const struct notation_geometry *g,
                               const char *const *letter_sets, char *buf, size_t n,
                               struct notation_pattern *pat, struct rules_why *why);

enum rules_error notation_decode(const struct notation_geometry *g,
                                 const char *const *letter_sets,
                                 const char *text,
                                 struct notation_pattern *pat, struct rules_why *why)
{
    char buf[TEXT_LIMIT + 1];
    size_t n;
    bool captured_named = false;
    enum rules_error err;

    *pat = (struct notation_pattern){ -1, false, -1, -1, -1, -1, -1, -1 };
    while (*text == ' ' || *text == '\t')
        text++;
    n = strlen(text);
    if (n > TEXT_LIMIT)
        return syntax(why, "too long");
    memcpy(buf, text, n + 1);
    while (n > 0 && strchr("+#X!? \t\r\n", buf[n - 1]) != NULL)
        buf[--n] = '\0';
    /* Long form naming the captured man after the destination (f7g6xP),
     * and en passant marked "ep." or "e.p." (e5ep.): both say capture. */
    if (n >= 4 && buf[n - 2] == 'x' && buf[n - 1] >= 'A' && buf[n - 1] <= 'Z' &&
        buf[n - 3] >= '0' && buf[n - 3] <= '9') {
        n -= 2;
        captured_named = true;
    } else {
        static const char *const ep_marks[] = { "e.p.", "ep.", "e.p", "ep", NULL };
        for (int i = 0; ep_marks[i] != NULL && !captured_named; i++) {
            size_t k = strlen(ep_marks[i]);
            if (n > k + 1 && strcmp(buf + n - k, ep_marks[i]) == 0 &&
                buf[n - k - 1] >= '0' && buf[n - k - 1] <= '9') {
                n -= k;
                captured_named = true;
            }
        }
    }
    buf[n] = '\0';
    if (n == 0)
        return syntax(why, "empty");
    err = decode(g, letter_sets, buf, n, pat, why);
    if (err == RULES_OK && captured_named) {
        if (pat->drop || strchr(buf, '-') != NULL)
            return syntax(why, "a capture mark on a move written as no capture");
        pat->capture = 1;
    }
    return err;
}

static enum rules_error decode(const struct notation_geometry *g,
                               const char *const *letter_sets, char *buf, size_t n,
                               struct notation_pattern *pat, struct rules_why *why)
{
    const char *s = buf;

    /* Drops: N@e5, @e4, S/e5, /e4. */
    if (s[0] == '@' || s[0] == '/' || (n > 1 && (s[1] == '@' || s[1] == '/'))) {
        size_t at = (s[0] == '@' || s[0] == '/') ? 0 : 1;
        pat->drop = true;
        pat->piece = RULES_PAWN;
        if (at == 1) {
            pat->piece = letter_type(letter_sets, s[0], NULL);
            if (pat->piece < 0)
                return syntax(why, "unknown piece letter before the drop mark");
        }
        pat->to = cell_exact(g, s + at + 1, n - at - 1);
        if (pat->to < 0)
            return syntax(why, "a drop needs a cell after the drop mark");
        return RULES_OK;
    }

    /* Coordinate form: e2e4, e7e8q, e9d9=q. */
    {
        int l1 = 0, l2 = 0;
        int c1 = g->cell_parse(s, &l1);
        int c2 = c1 >= 0 ? g->cell_parse(s + l1, &l2) : -1;
        if (c2 >= 0) {
            const char *rest = s + l1 + l2;
            if (*rest == '=')
                rest++;
            if (*rest == '\0' || (rest[1] == '\0' &&
                                  (pat->promo = promo_type(letter_sets, *rest)) >= 0)) {
                set_from_cell(g, pat, c1);
                pat->to = c2;
                return RULES_OK;
            }
            pat->promo = -1;
        }
    }

    /* Board moves: [letter][from][sep]to[=promo]. */
    {
        int set = 0;
        bool loose;
        size_t end = n, i;

        pat->piece = letter_type(letter_sets, s[0], &set);
        if (pat->piece >= 0 && !(s[0] >= 'a' && s[0] <= 'z' &&
                                 g->file_parse(s[0]) >= 0)) {
            s++;
            end--;
        } else {
            pat->piece = RULES_PAWN;
            set = 0;
        }
        /* Capture marks are required, but in the Polish short form ("a
         * move without - : / is a board move"). */
        loose = strcmp(letter_sets[set], NOTATION_LETTERS_POLISH) == 0;

        if (end >= 2 && s[end - 2] == '=') {
            pat->promo = promo_type(letter_sets, s[end - 1]);
            if (pat->promo < 0)
                return syntax(why, "unknown promotion piece");
            end -= 2;
        } else if (end >= 3 && s[end - 2] >= '0' && s[end - 2] <= '9' &&
                   promo_type(letter_sets, s[end - 1]) >= 0 &&
                   g->file_parse(s[end - 1]) < 0) {
            pat->promo = promo_type(letter_sets, s[end - 1]);
            end -= 1;
        }
        /* A pawn capture named by files alone: fxe. */
        if (pat->piece == RULES_PAWN && end == 3 && (s[1] == 'x' || s[1] == ':') &&
            g->file_parse(s[0]) >= 0 && g->file_parse(s[2]) >= 0) {
            pat->from_file = g->file_parse(s[0]);
            pat->to_file = g->file_parse(s[2]);
            pat->capture = 1;
            return RULES_OK;
        }
        for (i = end >= 3 ? end - 3 : 0; i + 2 <= end; i++) {
            pat->to = cell_exact(g, s + i, end - i);
            if (pat->to >= 0)
                break;
        }
        if (pat->to < 0)
            return syntax(why, "no destination cell");
        return decode_middle(g, letter_sets, s, i, loose, pat, why);
    }
}

static const char *side_name(enum rules_color c)
{
    return c == RULES_WHITE ? "white" : "black";
}

static bool fits(const struct notation_geometry *g,
                 const struct rules_position *pos,
                 const struct notation_pattern *pat, struct rules_move m,
                 bool check_from, bool check_capture, bool check_promo)
{
    if (pat->drop != ((m.flags & RULES_MOVE_DROP) != 0))
        return false;
    if (pat->to >= 0 ? m.to != pat->to : g->cell_file(m.to) != pat->to_file)
        return false;
    if (pat->drop)
        return m.piece == pat->piece;
    if (pat->piece >= 0 && g->piece_at(pos, m.from) != pat->piece)
        return false;
    if (check_from && ((pat->from_file >= 0 && g->cell_file(m.from) != pat->from_file) ||
                       (pat->from_rank >= 0 && g->cell_rank(m.from) != pat->from_rank)))
        return false;
    if (check_capture && pat->capture >= 0 &&
        pat->capture != ((m.flags & RULES_MOVE_CAPTURE) != 0))
        return false;
    if (check_promo) {
        bool promo = (m.flags & RULES_MOVE_PROMOTION) != 0;
        if (promo ? m.piece != pat->promo : pat->promo >= 0)
            return false;
    }
    return true;
}

static const char *man_name(int type)
{
    return type >= 0 && type < RULES_PIECE_TYPES ? notation_piece_names[type] : "man";
}

/* The cell that the pattern's from-file and from-rank name, or -1. */
static int pattern_from_cell(const struct notation_geometry *g,
                             const struct notation_pattern *pat)
{
    if (pat->from_file < 0 || pat->from_rank < 0)
        return -1;
    for (int cell = 0; cell < g->cells; cell++)
        if (g->cell_file(cell) == pat->from_file && g->cell_rank(cell) == pat->from_rank)
            return cell;
    return -1;
}

static bool side_has(const struct notation_geometry *g,
                     const struct rules_position *pos, int color, int type)
{
    for (int cell = 0; cell < g->cells; cell++)
        if (g->color_at(pos, cell) == color && g->piece_at(pos, cell) == type)
            return true;
    return false;
}

/* What a move from the named from-cell (or file, or rank) is called. */
static void describe_origin(const struct notation_geometry *g,
                            const struct notation_pattern *pat, int from_cell,
                            char *buf, size_t size)
{
    char name[8];
    if (from_cell >= 0) {
        g->cell_name(from_cell, name);
        snprintf(buf, size, "on %s", name);
    } else if (pat->from_file >= 0 && pat->from_rank >= 0) {
        snprintf(buf, size, "from %c%d", g->file_letter(pat->from_file), pat->from_rank);
    } else if (pat->from_file >= 0) {
        snprintf(buf, size, "on file %c", g->file_letter(pat->from_file));
    } else {
        snprintf(buf, size, "on rank %d", pat->from_rank);
    }
}

/* A pseudo-legal move fits but no legal one does: the mover's king would
 * stand attacked after it. */
static void explain_king_safety(const struct rules_variant *v,
                                const struct notation_geometry *g,
                                const struct rules_position *pos,
                                struct rules_move m, struct rules_why *why)
{
    const char *side = side_name(v->side_to_move(pos));
    char from[8], to[8];
    int type = g->piece_at(pos, m.from);

    g->cell_name(m.from, from);
    g->cell_name(m.to, to);
    if (type == RULES_KING)
        why_set(why, RULES_REASON_KING_IN_CHECK,
                "illegal move: the king would be in check on %s", to);
    else if (v->in_check(pos))
        why_set(why, RULES_REASON_KING_IN_CHECK,
                "illegal move: %s is in check and moving the %s on %s does not end it",
                side, man_name(type), from);
    else
        why_set(why, RULES_REASON_KING_IN_CHECK,
                "illegal move: moving the %s on %s would leave the %s king in check",
                man_name(type), from, side);
}

/*
 * Says why nothing fits.  Each reason is tested only when the ones before
 * it do not hold, so the first true one is given.
 */
static void explain_generic(const struct rules_variant *v,
                            const struct notation_geometry *g,
                            const struct rules_position *pos,
                            const struct notation_pattern *pat, struct rules_why *why)
{
    struct rules_move pseudo[RULES_MAX_MOVES];
    int us = v->side_to_move(pos);
    const char *side = side_name((enum rules_color)us);
    const char *piece = man_name(pat->piece);
    char to[16], origin[24];
    int from_cell = pattern_from_cell(g, pat);
    int reach = 0, reach_from = 0, reach_capture = 0, full = -1, promotes = 0;
    int n;

    if (pat->to >= 0)
        g->cell_name(pat->to, to);
    else
        snprintf(to, sizeof to, "file %c", g->file_letter(pat->to_file));
    if (pat->drop) {
        why_set(why, RULES_REASON_NOT_LEGAL, "illegal drop: no %s can be dropped on %s",
                piece, to);
        return;
    }
    if (from_cell >= 0) {
        int color = g->color_at(pos, from_cell), type = g->piece_at(pos, from_cell);
        char from[8];
        g->cell_name(from_cell, from);
        if (color < 0) {
            why_set(why, RULES_REASON_NO_PIECE_ON_SQUARE,
                    "illegal move: there is no man on %s", from);
            return;
        }
        if (color != us) {
            why_set(why, RULES_REASON_NO_PIECE_ON_SQUARE,
                    "illegal move: the %s on %s is %s's, and it is %s's move",
                    man_name(type), from, side_name((enum rules_color)color), side);
            return;
        }
        if (pat->piece >= 0 && type != pat->piece) {
            why_set(why, RULES_REASON_NO_PIECE_ON_SQUARE,
                    "illegal move: %s holds a %s, not a %s", from, man_name(type), piece);
            return;
        }
        if (pat->piece < 0)
            piece = man_name(type);
    }
    if (pat->piece >= 0 && !side_has(g, pos, us, pat->piece)) {
        why_set(why, RULES_REASON_NO_SUCH_PIECE, "illegal move: %s has no %s on the board",
                side, piece);
        return;
    }
    if (pat->to >= 0 && g->color_at(pos, pat->to) == us) {
        why_set(why, RULES_REASON_OWN_MAN_ON_SQUARE,
                "illegal move: %s is occupied by %s's own %s", to, side,
                man_name(g->piece_at(pos, pat->to)));
        return;
    }
    n = g->pseudo_moves(pos, pseudo);
    if (pat->capture == 1 && pat->to >= 0 && g->color_at(pos, pat->to) < 0) {
        bool en_passant = false;
        for (int i = 0; i < n; i++)
            en_passant |= (pseudo[i].flags & RULES_MOVE_EN_PASSANT) && pseudo[i].to == pat->to;
        if (!en_passant) {
            why_set(why, RULES_REASON_CAPTURE_OF_EMPTY_SQUARE,
                    "illegal move: the move is written as a capture but %s is empty", to);
            return;
        }
    }
    for (int i = 0; i < n; i++) {
        reach += fits(g, pos, pat, pseudo[i], false, false, false);
        reach_from += fits(g, pos, pat, pseudo[i], true, false, false);
        if (fits(g, pos, pat, pseudo[i], true, true, false)) {
            reach_capture++;
            promotes += (pseudo[i].flags & RULES_MOVE_PROMOTION) != 0;
        }
        if (full < 0 && fits(g, pos, pat, pseudo[i], true, true, true))
            full = i;
    }
    if (full >= 0) {
        explain_king_safety(v, g, pos, pseudo[full], why);
    } else if (reach == 0 || (reach_from == 0 && from_cell >= 0)) {
        if (from_cell >= 0) {
            describe_origin(g, pat, from_cell, origin, sizeof origin);
            why_set(why, RULES_REASON_CANNOT_REACH, "illegal move: the %s %s cannot move to %s",
                    piece, origin, to);
        } else {
            why_set(why, RULES_REASON_CANNOT_REACH, "illegal move: no %s of %s can move to %s",
                    piece, side, to);
        }
    } else if (reach_from == 0) {
        describe_origin(g, pat, from_cell, origin, sizeof origin);
        why_set(why, RULES_REASON_CANNOT_REACH, "illegal move: no %s %s can move to %s",
                piece, origin, to);
    } else if (reach_capture == 0) {
        if (pat->capture == 1)
            why_set(why, RULES_REASON_CAPTURE_OF_EMPTY_SQUARE,
                    "illegal move: the move to %s captures nothing", to);
        else
            why_set(why, RULES_REASON_CAPTURE_NOT_MARKED,
                    "illegal move: the move to %s is a capture; mark it", to);
    } else if (pat->promo < 0) {
        why_set(why, RULES_REASON_PROMOTION_NOT_NAMED,
                "illegal move: a move to %s promotes; name the new piece", to);
    } else if (promotes == 0) {
        why_set(why, RULES_REASON_NOT_A_PROMOTION,
                "illegal move: the move to %s is not a promotion", to);
    } else {
        why_set(why, RULES_REASON_NOT_LEGAL, "illegal move: a pawn cannot promote to a %s here",
                man_name(pat->promo));
    }
}

enum rules_error notation_match(
    const struct rules_variant *v, const struct notation_geometry *g,
    const struct rules_position *pos, const struct notation_pattern *pat,
    struct rules_move *out, struct rules_why *why)
{
    int n;
    const struct rules_move *moves = notation_legal(v, pos, &n);
    int found = 0, first = -1, second = -1;

    for (int i = 0; i < n; i++) {
        if (!fits(g, pos, pat, moves[i], true, true, true))
            continue;
        if (found == 0)
            first = i;
        else if (found == 1)
            second = i;
        found++;
    }
    if (found == 1) {
        *out = moves[first];
        return RULES_OK;
    }
    if (found > 1) {
        char a[RULES_MOVE_TEXT_MAX], b[RULES_MOVE_TEXT_MAX];
        notation_format(v, g, pos, moves[first], &notation_san, a, sizeof a);
        notation_format(v, g, pos, moves[second], &notation_san, b, sizeof b);
        return text_fail(why, RULES_ERR_AMBIGUOUS, RULES_REASON_AMBIGUOUS,
                         "ambiguous move: could be %s or %s%s", a, b,
                         found > 2 ? " or others" : "");
    }
    if (n == 0)
        why_set(why, RULES_REASON_GAME_OVER, "illegal move: the game is over: %s is %s",
                side_name(v->side_to_move(pos)),
                v->in_check(pos) ? "checkmated" : "stalemated");
    else if (g->explain == NULL || !g->explain(pos, pat, why))
        explain_generic(v, g, pos, pat, why);
    return RULES_ERR_ILLEGAL;
}

/* Appends to buf (bounded), keeping it NUL-terminated. */
struct writer {
    char *buf;
    size_t size;
    size_t len;
};

static void put_char(struct writer *w, char c)
{
    if (w->len + 1 < w->size)
        w->buf[w->len] = c;
    w->len++;
    if (w->size > 0)
        w->buf[w->len < w->size ? w->len : w->size - 1] = '\0';
}

static void put_text(struct writer *w, const char *s)
{
    while (*s)
        put_char(w, *s++);
}

static void put_cell(struct writer *w, const struct notation_geometry *g,
                     int cell)
{
    char name[8];
    g->cell_name(cell, name);
    put_text(w, name);
}

static void put_rank(struct writer *w, int rank)
{
    char digits[4];
    snprintf(digits, sizeof digits, "%d", rank);
    put_text(w, digits);
}

size_t notation_format_uci(const struct notation_geometry *g,
                           struct rules_move m, char *buf, size_t size)
{
    struct writer w = { buf, size, 0 };
    if (size > 0)
        buf[0] = '\0';
    if (m.flags & RULES_MOVE_DROP) {
        put_char(&w, NOTATION_LETTERS_ENGLISH[m.piece]);
        put_char(&w, '@');
        put_cell(&w, g, m.to);
        return w.len;
    }
    put_cell(&w, g, m.from);
    put_cell(&w, g, m.to);
    if (m.flags & RULES_MOVE_PROMOTION)
        put_char(&w, (char)(NOTATION_LETTERS_ENGLISH[m.piece] - 'A' + 'a'));
    return w.len;
}

/* SAN disambiguation: file if it tells the movers apart, else rank, else both. */
static void put_disambiguation(struct writer *w,
                               const struct notation_geometry *g,
                               const struct rules_position *pos,
                               const struct rules_move *moves, int n,
                               struct rules_move m, int type)
{
    bool others = false, same_file = false, same_rank = false;
    for (int i = 0; i < n; i++) {
        const struct rules_move o = moves[i];
        if ((o.flags & RULES_MOVE_DROP) || o.to != m.to || o.from == m.from ||
            o.piece != m.piece || g->piece_at(pos, o.from) != type)
            continue;
        others = true;
        same_file |= g->cell_file(o.from) == g->cell_file(m.from);
        same_rank |= g->cell_rank(o.from) == g->cell_rank(m.from);
    }
    if (!others)
        return;
    if (!same_file) {
        char name[8];
        g->cell_name(m.from, name);
        name[1] = '\0';
        put_text(w, name);
    } else if (!same_rank) {
        put_rank(w, g->cell_rank(m.from));
    } else {
        put_cell(w, g, m.from);
    }
}

size_t notation_format(const struct rules_variant *v,
                       const struct notation_geometry *g,
                       const struct rules_position *pos, struct rules_move m,
                       const struct notation_style *style, char *buf,
                       size_t size)
{
    struct writer w = { buf, size, 0 };
    struct rules_position after = *pos;
    bool capture = (m.flags & RULES_MOVE_CAPTURE) != 0;

    if (size > 0)
        buf[0] = '\0';
    if (m.flags & RULES_MOVE_DROP) {
        put_char(&w, style->letters[m.piece]);
        put_char(&w, style->drop);
        put_cell(&w, g, m.to);
    } else {
        int type = g->piece_at(pos, m.from);
        int n;
        const struct rules_move *moves = notation_legal(v, pos, &n);
        if (type != RULES_PAWN || style->pawn_letter)
            put_char(&w, style->letters[type]);
        if (style->full_from) {
            put_cell(&w, g, m.from);
            if (capture || style->move_sep)
                put_char(&w, capture ? style->capture : style->move_sep);
        } else {
            if (type == RULES_PAWN && !style->pawn_letter) {
                if (capture) {
                    char name[8];
                    g->cell_name(m.from, name);
                    name[1] = '\0';
                    put_text(&w, name);
                }
            } else {
                put_disambiguation(&w, g, pos, moves, n, m, type);
            }
            if (capture)
                put_char(&w, style->capture);
        }
        put_cell(&w, g, m.to);
        if (m.flags & RULES_MOVE_PROMOTION) {
            put_char(&w, '=');
            put_char(&w, style->letters[m.piece]);
        }
    }
    g->apply(&after, m);
    if (v->in_check(&after)) {
        struct rules_move replies[RULES_MAX_MOVES];
        put_char(&w, v->moves_legal(&after, replies) == 0 ? style->mate : '+');
    }
    return w.len;
}
