/*
 * notify_diagram.c — a position as a plain-text diagram for a mail.
 *
 * The rules library checks the FEN and writes it back in its canonical
 * form; the drawing reads that canonical text (docs/rules/: korpalski.md
 * section 5, glinski.md section 5), so a position the rules refuse never
 * reaches a mail and every accepted spelling draws the same.
 */
#include "notify_mail.h"

#include "i18n.h"
#include "rules.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* ---- Output ------------------------------------------------------------- */

/* The caller's buffer, filled until it would overflow. */
struct sink {
    char *buf;
    size_t size;
    size_t len;
    bool full;
    const char *language;   /* the words'; NULL: English */
};

static void put(struct sink *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Appends a text in the sink's language with {name} replaced by value. */
static void put_words(struct sink *s, const char *msgid, const char *name, const char *value)
{
    const char *text = i18n_text(s->language, msgid);
    const char *at = name ? strstr(text, name) : NULL;
    if (at == NULL) {
        put(s, "%s", text);
        return;
    }
    put(s, "%.*s%s%s", (int)(at - text), text, value, at + strlen(name));
}

static void put(struct sink *s, const char *fmt, ...)
{
    if (s->full)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(s->buf + s->len, s->size - s->len, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= s->size - s->len)
        s->full = true;
    else
        s->len += (size_t)n;
}

static const char *const turn_words[2] = { N_("White to move (move {n})."),
                                           N_("Black to move (move {n}).") };

static void put_turn(struct sink *s, const struct rules_variant *v,
                     const struct rules_position *pos)
{
    char n[16];
    snprintf(n, sizeof n, "%d", v->fullmove_number(pos));
    put_words(s, turn_words[v->side_to_move(pos)], "{n}", n);
    put(s, "\n");
}

/* ---- Korpalski: 8x8 with reserves and prisons --------------------------- */

/* FEN letters in the order of enum rules_piece, and the set of one side
 * (korpalski.md section 1). */
static const char piece_letters[] = "PNBRQK";
static const int set_count[RULES_PIECE_TYPES] = { 8, 2, 2, 2, 1, 1 };
static const char *const piece_names[RULES_PIECE_TYPES][2] = {
    { N_("pawn"), N_("pawns") }, { N_("knight"), N_("knights") }, { N_("bishop"), N_("bishops") },
    { N_("rook"), N_("rooks") }, { N_("queen"), N_("queens") },   { N_("king"), N_("kings") },
};

/* The piece type of a FEN letter of either case, or -1. */
static int piece_of_letter(char c)
{
    char upper = (c >= 'a' && c <= 'z') ? (char)(c - 'a' + 'A') : c;
    const char *hit = c ? strchr(piece_letters, upper) : NULL;
    return hit ? (int)(hit - piece_letters) : -1;
}

/* "king, queen, 2 rooks, 8 pawns" in the FEN reserve's order K Q R B N P,
 * or "empty". */
static void put_men(struct sink *s, const char *label, const int count[RULES_PIECE_TYPES])
{
    put(s, "%s", i18n_text(s->language, label));
    bool any = false;
    for (int t = RULES_KING; t >= RULES_PAWN; t--) {
        if (count[t] == 0)
            continue;
        put(s, "%s", any ? ", " : " ");
        if (count[t] == 1) {
            put(s, "%s", i18n_text(s->language, piece_names[t][0]));
        } else {
            /* "2 rooks"; Polish says "wieże × 2" (no plural to agree with). */
            char n[16];
            snprintf(n, sizeof n, "%d", count[t]);
            const char *form = i18n_text(s->language, N_("{n} {pieces}"));
            const char *at = strstr(form, "{pieces}");
            const char *men = i18n_text(s->language, piece_names[t][1]);
            if (at == NULL) {
                put(s, "%s %s", n, men);
            } else {
                size_t head = (size_t)(at - form);
                char before[64];
                snprintf(before, sizeof before, "%.*s", (int)head, form);
                put_words(s, before, "{n}", n);
                put(s, "%s", men);
                put_words(s, at + strlen("{pieces}"), "{n}", n);
            }
        }
        any = true;
    }
    if (!any) {
        put(s, " ");
        put(s, "%s", i18n_text(s->language, N_("empty")));
    }
    put(s, "\n");
}

static void draw_square(struct sink *s, const char *fen)
{
    char board[64];
    int on_board[2][RULES_PIECE_TYPES] = { { 0 } };
    int reserve[2][RULES_PIECE_TYPES] = { { 0 } };

    /* The canonical board field: 8 ranks from the 8th, digits for runs. */
    const char *p = fen;
    for (int rank = 7; rank >= 0; rank--) {
        for (int file = 0; file < 8; p++) {
            if (*p >= '1' && *p <= '8') {
                for (int k = *p - '0'; k > 0 && file < 8; k--)
                    board[rank * 8 + file++] = '.';
            } else {
                int t = piece_of_letter(*p);
                if (t < 0) {
                    s->full = true;  /* not canonical: cannot happen */
                    return;
                }
                on_board[*p >= 'a'][t]++;
                board[rank * 8 + file++] = *p;
            }
        }
        if (*p == '/')
            p++;
    }
    if (*p == '[')
        for (p++; *p && *p != ']'; p++)
            if (piece_of_letter(*p) >= 0)
                reserve[*p >= 'a'][piece_of_letter(*p)]++;

    put(s, "   a b c d e f g h\n");
    for (int rank = 7; rank >= 0; rank--) {
        put(s, "%d ", rank + 1);
        for (int file = 0; file < 8; file++)
            put(s, " %c", board[rank * 8 + file]);
        put(s, "  %d\n", rank + 1);
    }
    put(s, "   a b c d e f g h\n\n");

    /* The prison holds captured pieces; captured or promoted pawns are
     * gone (korpalski.md section 1): prison = set - board - reserve. */
    int prison[2][RULES_PIECE_TYPES] = { { 0 } };
    for (int c = 0; c < 2; c++)
        for (int t = RULES_KNIGHT; t <= RULES_QUEEN; t++)
            prison[c][t] = set_count[t] - on_board[c][t] - reserve[c][t];

    put_men(s, N_("White's reserve:"), reserve[RULES_WHITE]);
    put_men(s, N_("Black's reserve:"), reserve[RULES_BLACK]);
    put_men(s, N_("White's prison: "), prison[RULES_WHITE]);
    put_men(s, N_("Black's prison: "), prison[RULES_BLACK]);
}

/* ---- Glinski: 91 hexagons ----------------------------------------------- */

/*
 * Files a..l are text columns GLINSKI_COLUMN characters apart; a file's
 * cells are two lines apart and neighbouring files are offset by one line,
 * in glinski.md's coordinate: for file index c (a = -5 ... l = +5) and
 * rank r the cell's height is y = |c| + 2(r - 1), 0..20, drawn as line
 * 20 - y.  Rank numbers stand beside the first and last cell of each rank.
 */
enum {
    GLINSKI_FILES = 11,
    GLINSKI_COLUMN = 4,
    GLINSKI_LEFT = 3,            /* the text column of file a */
    GLINSKI_WIDTH = GLINSKI_LEFT + GLINSKI_COLUMN * (GLINSKI_FILES - 1) + 4,
    GLINSKI_LINES = 21
};

static const char glinski_files[] = "abcdefghikl";

static int file_offset(int file) { return file < 5 ? 5 - file : file - 5; }
static int file_length(int file) { return 11 - file_offset(file); }
static int cell_column(int file) { return GLINSKI_LEFT + GLINSKI_COLUMN * file; }
static int cell_line(int file, int rank)
{
    return 20 - (file_offset(file) + 2 * (rank - 1));
}

/* Writes a rank number ending just left of (side < 0) or starting just
 * right of (side > 0) the cell at column x. */
static void label(char grid[GLINSKI_LINES][GLINSKI_WIDTH], int line, int x, int side,
                  int rank)
{
    char text[4];
    int n = snprintf(text, sizeof text, "%d", rank);
    int at = side < 0 ? x - 1 - n : x + 2;
    memcpy(&grid[line][at], text, (size_t)n);
}

static void draw_hexagon(struct sink *s, const char *fen)
{
    char grid[GLINSKI_LINES][GLINSKI_WIDTH];
    memset(grid, ' ', sizeof grid);

    /* The canonical HFEN board field: ranks 11 down to 1, each over the
     * files long enough to have it, a to l; runs of empty cells as 1..11. */
    const char *p = fen;
    for (int rank = 11; rank >= 1; rank--) {
        int first = -1, last = -1;
        for (int f = 0; f < GLINSKI_FILES; f++)
            if (file_length(f) >= rank) {
                if (first < 0)
                    first = f;
                last = f;
            }
        int f = first;
        while (f <= last) {
            if (*p >= '1' && *p <= '9') {
                int run = *p++ - '0';
                if (run == 1 && *p >= '0' && *p <= '1')
                    run = 10 + (*p++ - '0');
                for (; run > 0 && f <= last; run--, f++)
                    grid[cell_line(f, rank)][cell_column(f)] = '.';
            } else if (piece_of_letter(*p) >= 0) {
                grid[cell_line(f, rank)][cell_column(f)] = *p++;
                f++;
            } else {
                s->full = true;  /* not canonical: cannot happen */
                return;
            }
        }
        if (*p == '/')
            p++;
        label(grid, cell_line(first, rank), cell_column(first), -1, rank);
        label(grid, cell_line(last, rank), cell_column(last), +1, rank);
    }

    for (int line = 0; line < GLINSKI_LINES; line++) {
        int end = GLINSKI_WIDTH;
        while (end > 0 && grid[line][end - 1] == ' ')
            end--;
        put(s, "%.*s\n", end, grid[line]);
    }
    put(s, "%*s", GLINSKI_LEFT, "");
    for (int f = 0; f < GLINSKI_FILES; f++)
        put(s, "%-*c", f + 1 < GLINSKI_FILES ? GLINSKI_COLUMN : 1, glinski_files[f]);
    put(s, "\n\n");
}

/* ---- The variants -------------------------------------------------------- */

/* Each board's drawing, and the key under the turn line. */
static const struct {
    void (*draw)(struct sink *s, const char *canonical_fen);
    const char *legend;
} drawers[] = {
    [RULES_BOARD_SQUARE_8X8] = { draw_square, N_("(upper case: White, lower case: Black)\n") },
    [RULES_BOARD_HEXAGON_91] = { draw_hexagon,
      N_("(upper case: White, lower case: Black; files run up the columns,\n"
         "ranks bend at file f: rank 1 is a1 down to f1 and up to l1)\n") },
};

size_t notify_diagram(const char *variant, const char *fen, char *out, size_t size)
{
    return notify_diagram_in(NULL, variant, fen, out, size);
}

size_t notify_diagram_in(const char *language, const char *variant, const char *fen, char *out,
                         size_t size)
{
    struct sink s = { .buf = out, .size = size, .language = language };
    if (size == 0)
        return 0;
    out[0] = '\0';
    if (variant == NULL || fen == NULL)
        return 0;

    rules_init();
    const struct rules_variant *v = rules_variant_find(variant);
    struct rules_position pos;
    char canonical[RULES_TEXT_MAX];
    if (v == NULL || v->position_parse(&pos, fen, NULL) != RULES_OK)
        return 0;
    v->position_format(&pos, canonical, sizeof canonical);

    if ((size_t)v->board >= sizeof drawers / sizeof *drawers) {
        out[0] = '\0';
        return 0;
    }
    drawers[v->board].draw(&s, canonical);
    put_turn(&s, v, &pos);
    put(&s, "%s", i18n_text(language, drawers[v->board].legend));
    if (s.full) {
        out[0] = '\0';
        return 0;
    }
    return s.len;
}
