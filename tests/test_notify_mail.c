/*
 * test_notify_mail — notification mails: diagrams, subjects and bodies,
 * digests, and the RFC 5322 message with its encodings and its refusal of
 * header injection.
 *
 * Expected diagrams are written by hand from docs/rules/ (korpalski.md
 * sections 1 and 5, glinski.md sections 1, 2 and 5) and the layout the
 * header promises; messages are read back with a small parser and
 * decoders written here, independent of notify_mail_message.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "notify_test.h"

/* ---- Reading our output back --------------------------------------------- */

/* The body of a message: what follows the first empty line. */
static const char *message_body(const char *msg)
{
    const char *end = strstr(msg, "\r\n\r\n");
    assert_non_null(end);
    return end + 4;
}

/* The value of header `name` with folding undone and the space after the
 * colon dropped (malloc'd), or NULL when absent.  Fails if it occurs twice. */
static char *header_value(const char *msg, const char *name)
{
    const char *end = strstr(msg, "\r\n\r\n");
    size_t name_len = strlen(name);
    char *found = NULL;
    assert_non_null(end);
    for (const char *line = msg; line < end + 2;) {
        const char *eol = strstr(line, "\r\n");
        if (strncasecmp(line, name, name_len) == 0 && line[name_len] == ':') {
            assert_null(found);
            /* Gather the field and its continuation lines. */
            const char *stop = eol;
            while (stop[2] == ' ' || stop[2] == '\t')
                stop = strstr(stop + 2, "\r\n");
            const char *v = line + name_len + 1;
            while (*v == ' ')
                v++;
            found = calloc(1, (size_t)(stop - v) + 1);
            size_t n = 0;
            for (const char *p = v; p < stop; p++) {
                if (p[0] == '\r' && p[1] == '\n') {
                    p++;
                    continue;
                }
                found[n++] = *p;
            }
            line = stop + 2;
        } else {
            line = eol + 2;
        }
    }
    return found;
}

/* Lines end in CRLF, nothing else: no bare CR or LF; header lines are at
 * most 78 characters, body lines at most 76 and ASCII. */
static void assert_wire_format(const char *msg)
{
    const char *body = message_body(msg);
    size_t column = 0;
    for (const char *p = msg; *p; p++) {
        if (*p == '\r') {
            assert_int_equal(p[1], '\n');
            p++;
            column = 0;
            continue;
        }
        assert_int_not_equal(*p, '\n');
        column++;
        assert_true(column <= (p < body ? 78u : 76u));
        if (p >= body)
            assert_true((unsigned char)*p < 0x80);
    }
    assert_int_equal(column, 0);  /* ends with CRLF */
}

static int hex_value(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;  /* RFC 2045 asks for upper case */
}

/* Quoted-printable to text with '\n' line ends (malloc'd). */
static char *qp_decode(const char *in)
{
    char *out = calloc(1, strlen(in) + 1);
    size_t n = 0;
    for (const char *p = in; *p; p++) {
        if (p[0] == '=' && p[1] == '\r' && p[2] == '\n') {
            p += 2;
        } else if (p[0] == '=') {
            int hi = hex_value(p[1]), lo = hi < 0 ? -1 : hex_value(p[2]);
            assert_true(hi >= 0 && lo >= 0);
            out[n++] = (char)(hi * 16 + lo);
            p += 2;
        } else if (p[0] == '\r' && p[1] == '\n') {
            out[n++] = '\n';
            p++;
        } else {
            out[n++] = *p;
        }
    }
    return out;
}

static int base64_value(char c)
{
    const char *digits = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    const char *hit = c ? strchr(digits, c) : NULL;
    return hit ? (int)(hit - digits) : -1;
}

/* Appends the base64 text in[0..n) decoded to out. */
static size_t base64_decode(const char *in, size_t n, char *out)
{
    size_t o = 0;
    assert_int_equal(n % 4, 0);
    for (size_t i = 0; i < n; i += 4) {
        int v[4];
        for (int k = 0; k < 4; k++)
            v[k] = in[i + k] == '=' ? 0 : base64_value(in[i + k]);
        assert_true(v[0] >= 0 && v[1] >= 0 && v[2] >= 0 && v[3] >= 0);
        uint32_t bits = (uint32_t)v[0] << 18 | (uint32_t)v[1] << 12 | (uint32_t)v[2] << 6 |
                        (uint32_t)v[3];
        out[o++] = (char)(bits >> 16);
        if (in[i + 2] != '=')
            out[o++] = (char)(bits >> 8 & 0xFF);
        if (in[i + 3] != '=')
            out[o++] = (char)(bits & 0xFF);
    }
    return o;
}

/* An unfolded header value with RFC 2047 B words decoded; the white space
 * between two adjacent encoded words is dropped (malloc'd). */
static char *words_decode(const char *value)
{
    char *out = calloc(1, strlen(value) + 1);
    size_t n = 0;
    bool after_word = false;
    const char *p = value;
    while (*p) {
        const char *space = p;
        while (*p == ' ')
            p++;
        const char *token = p;
        while (*p && *p != ' ')
            p++;
        size_t len = (size_t)(p - token);
        bool encoded = len > 12 && strncasecmp(token, "=?UTF-8?B?", 10) == 0 &&
                       token[len - 2] == '?' && token[len - 1] == '=';
        if (!(encoded && after_word)) {
            memcpy(out + n, space, (size_t)(token - space));
            n += (size_t)(token - space);
        }
        if (encoded) {
            n += base64_decode(token + 10, len - 12, out + n);
        } else {
            memcpy(out + n, token, len);
            n += len;
        }
        after_word = encoded;
    }
    out[n] = '\0';
    return out;
}

/* ---- Diagrams ----------------------------------------------------------------- */

/* The diagram of a position is exactly expected, and its length is returned. */
static void assert_diagram(const char *variant, const char *fen, const char *expected)
{
    char out[NOTIFY_DIAGRAM_MAX];
    size_t n = notify_diagram(variant, fen, out, sizeof out);
    assert_string_equal(out, expected);
    assert_int_equal(n, strlen(expected));
}

/* A Korpalski diagram's frame: the files above and below, a rank with no man. */
#define FILES "   a b c d e f g h\n"
#define EMPTY_RANK(n) #n "  . . . . . . . .  " #n "\n"

/* korpalski.md section 5: the start, empty board, every man in reserve. */
static void test_notify_mail_diagram_korpalski_start(void **state)
{
    (void)state;
    static const char expected[] =
        FILES
        EMPTY_RANK(8) EMPTY_RANK(7) EMPTY_RANK(6) EMPTY_RANK(5)
        EMPTY_RANK(4) EMPTY_RANK(3) EMPTY_RANK(2) EMPTY_RANK(1)
        FILES
        "\n"
        "White's reserve: king, queen, 2 rooks, 2 bishops, 2 knights, 8 pawns\n"
        "Black's reserve: king, queen, 2 rooks, 2 bishops, 2 knights, 8 pawns\n"
        "White's prison:  empty\n"
        "Black's prison:  empty\n"
        "White to move (move 1).\n"
        "(upper case: White, lower case: Black)\n";
    assert_diagram("korpalski", "8/8/8/8/8/8/8/8[KQRRBBNNPPPPPPPPkqrrbbnnpppppppp] w - - 0 1",
                   expected);
}

/*
 * White: K e1, R a1, P e2 on the board, Q B N and 3 pawns in reserve, so
 * (section 1: prison = set - board - reserve) a rook, a bishop and a
 * knight in prison and 4 pawns gone.  Black: k e8, q d8, p d7, reserve
 * 2 r, 2 b, n, 2 p: a knight in prison.  The reserve is given out of
 * order; the diagram lists K Q R B N P.
 */
static void test_notify_mail_diagram_korpalski_prison(void **state)
{
    (void)state;
    static const char expected[] =
        FILES
        "8  . . . q k . . .  8\n"
        "7  . . . p . . . .  7\n"
        EMPTY_RANK(6) EMPTY_RANK(5) EMPTY_RANK(4) EMPTY_RANK(3)
        "2  . . . . P . . .  2\n"
        "1  R . . . K . . .  1\n"
        FILES
        "\n"
        "White's reserve: queen, bishop, knight, 3 pawns\n"
        "Black's reserve: 2 rooks, 2 bishops, knight, 2 pawns\n"
        "White's prison:  rook, bishop, knight\n"
        "Black's prison:  knight\n"
        "Black to move (move 20).\n"
        "(upper case: White, lower case: Black)\n";
    assert_diagram("korpalski", "3qk3/3p4/8/8/8/8/4P3/R3K3[PrQpBbNrnPbPp] b - - 0 20",
                   expected);
}

/* Seven spaces: the gap between two cells of one line (columns 4 apart,
 * a file's neighbours one line up or down). */
#define G "       "

/* glinski.md section 2, drawn by hand: file a at column 3, files 4
 * columns apart, cell (c, r) on line 20 - (|c| + 2(r - 1)). */
static const char glinski_start_diagram[] =
    "                    11 b 11\n"
    "                10 q" G "k 10\n"
    "             9 n" G "b" G "n 9\n"
    "         8 r" G "." G "." G "r 8\n"
    "     7 p" G "." G "b" G "." G "p 7\n"
    " 6 ." G "p" G "." G "." G "p" G ". 6\n"
    "       ." G "p" G "." G "p" G ".\n"
    " 5 ." G "." G "p" G "p" G "." G ". 5\n"
    "       ." G "." G "p" G "." G ".\n"
    " 4 ." G "." G "." G "." G "." G ". 4\n"
    "       ." G "." G "." G "." G ".\n"
    " 3 ." G "." G "." G "." G "." G ". 3\n"
    "       ." G "." G "P" G "." G ".\n"
    " 2 ." G "." G "P" G "P" G "." G ". 2\n"
    "       ." G "P" G "." G "P" G ".\n"
    " 1 ." G "P" G "." G "." G "P" G ". 1\n"
    "       P" G "." G "B" G "." G "P\n"
    "           R" G "." G "." G "R\n"
    "               N" G "B" G "N\n"
    "                   Q" G "K\n"
    "                       B\n"
    "   a   b   c   d   e   f   g   h   i   k   l\n"
    "\n"
    "White to move (move 1).\n"
    "(upper case: White, lower case: Black; files run up the columns,\n"
    "ranks bend at file f: rank 1 is a1 down to f1 and up to l1)\n";

#define GLINSKI_START "b/qbk/n1b1n/r5r/ppppppppp/11/5P5/4P1P4/3P1B1P3/2P2B2P2/1PRNQBKNRP1 w - 0 1"

static void test_notify_mail_diagram_glinski_start(void **state)
{
    (void)state;
    assert_diagram("glinski", GLINSKI_START, glinski_start_diagram);
}

/* The start position cell by cell from glinski.md's list of men, found
 * through the documented coordinate, and the totals: 18 men a side,
 * 91 - 36 = 55 empty cells. */
static void test_notify_mail_diagram_glinski_cells(void **state)
{
    (void)state;
    static const struct {
        char piece;
        const char *cells;
    } men[] = {
        { 'K', "g1" }, { 'Q', "e1" }, { 'R', "c1 i1" }, { 'N', "d1 h1" },
        { 'B', "f1 f2 f3" }, { 'P', "b1 c2 d3 e4 f5 g4 h3 i2 k1" },
        { 'k', "g10" }, { 'q', "e10" }, { 'r', "c8 i8" }, { 'n', "d9 h9" },
        { 'b', "f9 f10 f11" }, { 'p', "b7 c7 d7 e7 f7 g7 h7 i7 k7" },
    };
    char out[NOTIFY_DIAGRAM_MAX];
    assert_true(notify_diagram("glinski", GLINSKI_START, out, sizeof out) > 0);

    /* Split the board's 21 lines. */
    char *lines[21];
    char *p = out;
    for (int i = 0; i < 21; i++) {
        lines[i] = p;
        p = strchr(p, '\n');
        assert_non_null(p);
        *p++ = '\0';
    }
    int white = 0, black = 0, empty = 0;
    for (int i = 0; i < 21; i++)
        for (const char *c = lines[i]; *c; c++) {
            if (*c == '.')
                empty++;
            /* Letters that are men, not rank digits. */
            if (strchr("KQRBNP", *c) && *c)
                white++;
            if (strchr("kqrbnp", *c) && *c)
                black++;
        }
    assert_int_equal(white, 18);
    assert_int_equal(black, 18);
    assert_int_equal(empty, 55);

    for (size_t m = 0; m < sizeof men / sizeof *men; m++) {
        const char *c = men[m].cells;
        while (*c) {
            int file = (int)(strchr("abcdefghikl", c[0]) - "abcdefghikl");
            int rank = atoi(c + 1);
            int offset = file < 5 ? 5 - file : file - 5;
            int line = 20 - (offset + 2 * (rank - 1));
            int column = 3 + 4 * file;
            assert_true((int)strlen(lines[line]) > column);
            assert_int_equal(lines[line][column], men[m].piece);
            c += strcspn(c, " ");
            c += *c == ' ';
        }
    }
}

static void test_notify_mail_diagram_refusals(void **state)
{
    (void)state;
    char out[NOTIFY_DIAGRAM_MAX], small[100];
    strcpy(out, "x");
    assert_int_equal(notify_diagram("chess", GLINSKI_START, out, sizeof out), 0);
    assert_string_equal(out, "");
    strcpy(out, "x");
    assert_int_equal(notify_diagram("glinski", "not a position", out, sizeof out), 0);
    assert_string_equal(out, "");
    /* Two white kings: more than the set (korpalski.md section 5). */
    assert_int_equal(notify_diagram("korpalski", "4k3/8/8/8/8/8/8/K6K[] w - - 0 9", out,
                                    sizeof out), 0);
    /* Too small a buffer: nothing half-drawn. */
    strcpy(small, "x");
    assert_int_equal(notify_diagram("glinski", GLINSKI_START, small, sizeof small), 0);
    assert_string_equal(small, "");
    assert_int_equal(notify_diagram(NULL, GLINSKI_START, out, sizeof out), 0);
}

/* ---- Subjects and bodies -------------------------------------------------- */

#define PRISON_FEN "3qk3/3p4/8/8/8/8/4P3/R3K3[QBNPPPrrbbnpp] w - - 0 20"

/* Everything a mail could use, for bob playing White against alice: the
 * shared game (notify_test.h) in the prison position, with a challenge, a
 * webhook, a message, a tournament and an arbiter's reason. */
static struct notify_about about(enum notify_kind kind)
{
    struct notify_about a = notify_test_about(kind);
    a.challenge_id = "Ch4llenge1";
    a.fen = PRISON_FEN;
    a.challenge_url = "https://korp.example/challenges/Ch4llenge1";
    a.webhook_url = "https://bot.example/hook";
    a.webhook_reason = "HTTP 500 on 10 deliveries in a row";
    a.message_text = "Thanks for the game!\n\nShall we play a return game?";
    a.tournament_name = "Autumn Glinski";
    a.arbiter_reason = "perpetual check upheld";
    return a;
}

/* Lines of a body: '\n' ends, at most 78 columns (counting characters). */
static void assert_body_lines(const char *body)
{
    size_t column = 0;
    for (const char *p = body; *p; p++) {
        if (*p == '\n') {
            column = 0;
            continue;
        }
        column += ((unsigned char)*p & 0xC0) != 0x80;
        assert_true(column <= 78);
    }
    assert_int_equal(body[strlen(body) - 1], '\n');
}

/* The text with runs of white space as single spaces (malloc'd), to find
 * sentences whatever the wrapping. */
static char *squeeze(const char *text)
{
    char *out = calloc(1, strlen(text) + 1);
    size_t n = 0;
    for (const char *p = text; *p; p++) {
        bool space = *p == ' ' || *p == '\n';
        if (space && (n == 0 || out[n - 1] == ' '))
            continue;
        out[n++] = space ? ' ' : *p;
    }
    return out;
}

static void test_notify_mail_subjects(void **state)
{
    (void)state;
    static const struct {
        enum notify_kind kind;
        const char *subject;
    } cases[] = {
        { NOTIFY_YOUR_MOVE, "Your move in game aZ3kP9qw against alice (Korpalski)" },
        { NOTIFY_CHALLENGE, "alice challenges you to a game of Korpalski" },
        { NOTIFY_GAME_START, "New game aZ3kP9qw against alice (Korpalski)" },
        { NOTIFY_DRAW_OFFER, "alice offers a draw in game aZ3kP9qw" },
        { NOTIFY_GAME_END, "Game aZ3kP9qw against alice ended: 1-0 (checkmate)" },
        { NOTIFY_DEADLINE_NEAR, "24 hours left for your move in game aZ3kP9qw against alice" },
        { NOTIFY_CHALLENGE_DECLINED, "alice declined your challenge to a game of Korpalski" },
        { NOTIFY_CHALLENGE_CANCELED, "alice withdrew the challenge to a game of Korpalski" },
        { NOTIFY_CLAIM, "alice claimed a draw in game aZ3kP9qw (threefold repetition)" },
        { NOTIFY_WEBHOOK_DISABLED, "Your korp webhook was turned off" },
        { NOTIFY_EMAIL_CONFIRM, "Confirm your email address for korp" },
        /* Messages, conditional moves, arbiters and tournaments. */
        { NOTIFY_MESSAGE, "alice sent you a message in game aZ3kP9qw" },
        { NOTIFY_CONDITIONAL_PLAYED, "Your conditional move Q@d8 was played in game aZ3kP9qw" },
        { NOTIFY_ARBITER, "An arbiter has ruled on game aZ3kP9qw" },
        { NOTIFY_TOURNAMENT_START, "Tournament Autumn Glinski has begun" },
        { NOTIFY_TOURNAMENT_END, "Tournament Autumn Glinski has ended" },
    };
    assert_int_equal(sizeof cases / sizeof *cases, NOTIFY_KIND_COUNT);
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        struct notify_about a = about(cases[i].kind);
        if (cases[i].kind == NOTIFY_CLAIM) {
            a.result = "1/2-1/2";
            a.termination = "threefold";
        }
        if (cases[i].kind == NOTIFY_EMAIL_CONFIRM)
            a.confirm_url = "https://korp.example/v1/email/confirm?player=aZ3kP9qw&exp=1&sig=ab";
        char subject[NOTIFY_SUBJECT_MAX], *body = NULL;
        struct base_err err = { "" };
        bool ok = notify_mail_text(&a, subject, sizeof subject, &body, &err);
        if (!ok)
            fail_msg("kind %d: %s", (int)cases[i].kind, err.text);
        assert_string_equal(subject, cases[i].subject);
        assert_true(strncmp(body, "Hello bob,\n\n", 12) == 0);
        assert_non_null(strstr(body, "\n-- \n"));
        assert_non_null(strstr(body, "\nhttps://korp.example/settings/notifications\n"));
        assert_body_lines(body);
        if (cases[i].kind == NOTIFY_EMAIL_CONFIRM)   /* the link, on a line of its own */
            assert_non_null(strstr(body, "\nhttps://korp.example/v1/email/confirm?player="
                                         "aZ3kP9qw&exp=1&sig=ab\n"));
        free(body);
    }
}

/* A message is quoted line by line, its blank line kept. */
static void test_notify_mail_message_body(void **state)
{
    (void)state;
    struct notify_about a = about(NOTIFY_MESSAGE);
    char subject[NOTIFY_SUBJECT_MAX], *body = NULL;
    struct base_err err = { "" };
    body = notify_test_text(&a, subject);
    assert_non_null(strstr(body, "\n\n> Thanks for the game!\n>\n> Shall we play a return "
                                 "game?\n"));
    free(body);
    a.message_text = NULL;
    assert_false(notify_mail_text(&a, subject, sizeof subject, &body, &err));
    assert_non_null(strstr(err.text, "message_text"));
}

/* The turn mail: alice dropped her queen, bob is to move. */
static void test_notify_mail_your_move_body(void **state)
{
    (void)state;
    struct notify_about a = about(NOTIFY_YOUR_MOVE);
    char subject[NOTIFY_SUBJECT_MAX];
    char *body = notify_test_text(&a, subject);
    char *flat = squeeze(body);

    assert_non_null(strstr(flat, "It is your move in game aZ3kP9qw against alice (Korpalski). "
                                 "You play White."));
    /* Ply 38 was Black's 19th move; Polish: H = hetman, '/' a drop. */
    assert_non_null(strstr(flat, "alice's last move: 19... Q@d8 (in the inventor's Polish "
                                 "notation: H/d8)."));
    assert_non_null(strstr(body, "\n   a b c d e f g h\n8  . . . q k . . .  8\n"));
    assert_non_null(strstr(body, "White's prison:  rook, bishop, knight\n"));
    assert_non_null(strstr(body, "White to move (move 20).\n"));
    assert_non_null(strstr(body, "Your deadline: Wednesday 25 November 2026, 13:45 UTC "
                                 "(in 24 hours).\n"));
    assert_non_null(strstr(body, "\nhttps://korp.example/games/aZ3kP9qw\n"));
    assert_non_null(strstr(flat, "unsubscribe"));
    free(flat);
    free(body);

    /* Glinski has no Polish notation and White moves first: no last move. */
    a.variant = "glinski";
    a.fen = GLINSKI_START;
    a.ply = 0;
    a.last_san = NULL;
    a.last_polish = NULL;
    a.deadline = NULL;
    body = notify_test_text(&a, subject);
    assert_string_equal(subject, "Your move in game aZ3kP9qw against alice (Glinski)");
    assert_null(strstr(body, "last move"));
    assert_null(strstr(body, "deadline"));
    assert_non_null(strstr(body, glinski_start_diagram));
    free(body);
}

static void test_notify_mail_game_end_words(void **state)
{
    (void)state;
    static const struct {
        const char *color, *result, *termination;
        const char *subject_end, *sentence;
    } cases[] = {
        { "black", "1-0", "timeout", "ended: 1-0 (time)", "has ended on time: 1-0. You lost." },
        { "black", "0-1", "resignation", "ended: 0-1 (resignation)",
          "has ended by resignation: 0-1. You won." },
        { "white", "1/2-1/2", "agreement", "ended: 1/2-1/2 (agreement)",
          "has ended by agreement: 1/2-1/2. It is a draw." },
        { "white", "3/4-1/4", "stalemate", "ended: 3/4-1/4 (stalemate)",
          "has ended by stalemate: 3/4-1/4. You stalemated your opponent: 3/4 point for you." },
        { "white", "1/4-3/4", "stalemate", "ended: 1/4-3/4 (stalemate)",
          "You were stalemated: 1/4 point for you." },
        { "white", "*", "aborted", "ended: no result (aborted)",
          "has ended early (aborted): no result. Neither side scores." },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        struct notify_about a = about(NOTIFY_GAME_END);
        a.my_color = cases[i].color;
        a.result = cases[i].result;
        a.termination = cases[i].termination;
        char subject[NOTIFY_SUBJECT_MAX];
        char *body = notify_test_text(&a, subject);
        size_t n = strlen(subject), m = strlen(cases[i].subject_end);
        assert_true(n >= m);
        assert_string_equal(subject + n - m, cases[i].subject_end);
        char *flat = squeeze(body);
        if (strstr(flat, cases[i].sentence) == NULL)
            fail_msg("'%s' not in:\n%s", cases[i].sentence, body);
        free(flat);
        free(body);
    }
}

static void test_notify_mail_time_left(void **state)
{
    (void)state;
    static const struct {
        long long before;
        const char *subject_start;
    } cases[] = {
        { 23 * 3600 + 59 * 60 + 30, "24 hours left" },
        { 12 * 3600 + 10 * 60, "12 hours left" },
        { 45 * 60, "45 minutes left" },
        { 30, "1 minute left" },
        { 3 * 86400 + 600, "3 days left" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        struct notify_about a = about(NOTIFY_DEADLINE_NEAR);
        a.now = DEADLINE_UNIX - cases[i].before;
        char subject[NOTIFY_SUBJECT_MAX];
        char *body = notify_test_text(&a, subject);
        assert_true(strncmp(subject, cases[i].subject_start, strlen(cases[i].subject_start)) == 0);
        free(body);
    }
}

static void test_notify_mail_missing_facts(void **state)
{
    (void)state;
    char subject[NOTIFY_SUBJECT_MAX], *body = (char *)"x";
    struct base_err err = { "" };

    struct notify_about a = about(NOTIFY_YOUR_MOVE);
    a.opponent_name = NULL;
    assert_false(notify_mail_text(&a, subject, sizeof subject, &body, &err));
    assert_null(body);
    assert_string_equal(subject, "");
    assert_non_null(strstr(err.text, "opponent_name"));

    a = about(NOTIFY_GAME_END);
    a.my_color = "green";
    assert_false(notify_mail_text(&a, subject, sizeof subject, &body, &err));
    assert_non_null(strstr(err.text, "my_color"));

    a = about(NOTIFY_YOUR_MOVE);
    a.fen = "8/8/8/8/8/8/8/8[] w - - 0 1";
    assert_false(notify_mail_text(&a, subject, sizeof subject, &body, &err));
    assert_non_null(strstr(err.text, "position"));

    a = about(NOTIFY_YOUR_MOVE);
    a.deadline = "2026-11-31T13:45:00Z";
    assert_false(notify_mail_text(&a, subject, sizeof subject, &body, &err));

    a = about(NOTIFY_YOUR_MOVE);
    a.settings_url = NULL;
    assert_false(notify_mail_text(&a, subject, sizeof subject, &body, &err));
    assert_non_null(strstr(err.text, "settings_url"));

    a = about(NOTIFY_KIND_COUNT);
    assert_false(notify_mail_text(&a, subject, sizeof subject, &body, &err));

    a = about(NOTIFY_YOUR_MOVE);
    assert_false(notify_mail_text(&a, subject, 20, &body, &err));
    assert_non_null(strstr(err.text, "subject"));
}

static void test_notify_mail_digest(void **state)
{
    (void)state;
    struct notify_digest d = notify_test_digest(NULL);
    char subject[NOTIFY_SUBJECT_MAX], *body = NULL;
    struct base_err err = { "" };
    assert_true(notify_mail_digest(&d, subject, sizeof subject, &body, &err));
    assert_string_equal(subject, "Your move in 2 games");
    assert_true(strncmp(body, "Hello bob,\n\n", 12) == 0);
    assert_non_null(strstr(body, "Game aZ3kP9qw against alice (Korpalski), you play White\n"
                                 "  Last move: 19... Q@d8\n"
                                 "  Deadline: Wednesday 25 November 2026, 13:45 UTC (in 2 hours).\n"
                                 "  https://korp.example/games/aZ3kP9qw\n"));
    assert_non_null(strstr(body, "Game Hx7Gl1nsk against carol (Glinski), you play Black\n"
                                 "  Last move: 1. f5f7\n"
                                 "  https://korp.example/games/Hx7Gl1nsk\n"));
    /* In the order given. */
    assert_true(strstr(body, "aZ3kP9qw") < strstr(body, "Hx7Gl1nsk"));
    assert_non_null(strstr(body, "\nhttps://korp.example/settings/notifications\n"));
    assert_body_lines(body);
    free(body);

    d.count = 1;
    assert_true(notify_mail_digest(&d, subject, sizeof subject, &body, &err));
    assert_string_equal(subject, "Your move in 1 game");
    free(body);

    d.count = 0;
    assert_false(notify_mail_digest(&d, subject, sizeof subject, &body, &err));
    assert_null(body);
}

/* ---- Messages -------------------------------------------------------------- */

static const char tricky_body[] =
    "Hello bob,\n"
    "\n"
    "A line of ASCII.\n"
    "Gli\xc5\x84ski \xe2\x80\x93 \xe2\x99\x94 Pawe\xc5\x82 = equals\r\n"
    ".\n"
    ".starts with a dot\n"
    "From here on, mbox would mangle this line\n"
    "trailing space \n"
    "trailing tab\t\n"
    "https://korp.example/a/very/long/url/that/goes/on/and/on/"
    "0123456789012345678901234567890123456789012345678901234567890123456789/end\n"
    "-- \n"
    "no newline at the end";

static struct notify_mail mail(void)
{
    return (struct notify_mail){
        .from_address = "korp@example.org",
        .from_name = "korp",
        .to_address = "bob@example.net",
        .to_name = "Bob \"the Rook\" O'Neil",
        .subject = "Your move in game aZ3kP9qw against alice (Korpalski)",
        .body = tricky_body,
        .message_id = "notify.42.aZ3kP9qw@example.org",
        .unsubscribe_url = "https://korp.example/unsubscribe?t=abc123",
        .date = (time_t)DEADLINE_UNIX,
    };
}

static void assert_header(const char *msg, const char *name, const char *value)
{
    char *v = header_value(msg, name);
    if (v == NULL)
        fail_msg("no %s header", name);
    assert_string_equal(v, value);
    free(v);
}

static void test_notify_mail_message_headers(void **state)
{
    (void)state;
    struct notify_mail m = mail();
    struct base_err err = { "" };
    char *msg = notify_mail_message(&m, &err);
    if (msg == NULL)
        fail_msg("%s", err.text);
    assert_wire_format(msg);

    assert_header(msg, "Date", "Wed, 25 Nov 2026 13:45:00 +0000");
    assert_header(msg, "From", "korp <korp@example.org>");
    assert_header(msg, "To", "\"Bob \\\"the Rook\\\" O'Neil\" <bob@example.net>");
    assert_header(msg, "Subject", "Your move in game aZ3kP9qw against alice (Korpalski)");
    assert_header(msg, "Message-ID", "<notify.42.aZ3kP9qw@example.org>");
    assert_header(msg, "MIME-Version", "1.0");
    assert_header(msg, "Content-Type", "text/plain; charset=UTF-8");
    assert_header(msg, "Content-Transfer-Encoding", "quoted-printable");
    assert_header(msg, "Auto-Submitted", "auto-generated");
    assert_header(msg, "List-Unsubscribe", "<https://korp.example/unsubscribe?t=abc123>");
    assert_header(msg, "List-Unsubscribe-Post", "List-Unsubscribe=One-Click");

    /* The body decodes to the input, line ends made '\n', a final one added. */
    char *decoded = qp_decode(message_body(msg));
    char expected[sizeof tricky_body + 1];
    size_t n = 0;
    for (const char *p = tricky_body; *p; p++)
        if (!(p[0] == '\r' && p[1] == '\n'))
            expected[n++] = *p;
    expected[n++] = '\n';
    expected[n] = '\0';
    assert_string_equal(decoded, expected);
    free(decoded);

    /* RFC 2049 section 3: no line starts with '.' or "From ", and no line
     * ends in white space. */
    const char *body = message_body(msg);
    for (const char *line = body; *line; line = strstr(line, "\r\n") + 2) {
        assert_int_not_equal(line[0], '.');
        assert_false(strncmp(line, "From ", 5) == 0);
        const char *end = strstr(line, "\r\n");
        assert_true(end == line || (end[-1] != ' ' && end[-1] != '\t'));
    }
    free(msg);

    /* A plain http URL: List-Unsubscribe, but no one-click (RFC 8058 wants
     * https); without a URL neither; no names: bare addresses. */
    m.unsubscribe_url = "http://localhost:8080/unsubscribe?t=abc";
    m.from_name = NULL;
    m.to_name = "";
    msg = notify_mail_message(&m, &err);
    assert_non_null(msg);
    assert_header(msg, "List-Unsubscribe", "<http://localhost:8080/unsubscribe?t=abc>");
    assert_null(header_value(msg, "List-Unsubscribe-Post"));
    assert_header(msg, "From", "korp@example.org");
    assert_header(msg, "To", "bob@example.net");
    free(msg);
    m.unsubscribe_url = NULL;
    msg = notify_mail_message(&m, &err);
    assert_non_null(msg);
    assert_null(header_value(msg, "List-Unsubscribe"));
    free(msg);

    m.date = 0;
    msg = notify_mail_message(&m, &err);
    assert_header(msg, "Date", "Thu, 1 Jan 1970 00:00:00 +0000");
    free(msg);
}

static void test_notify_mail_message_encoded_words(void **state)
{
    (void)state;
    static const char *const subjects[] = {
        /* Polish, a dash and a chess king: two- and three-byte characters. */
        ("Tw\xc3\xb3j ruch w partii aZ3kP9qw z Gli\xc5\x84skim \xe2\x80\x93 \xe2\x99\x94 "
         "\xc5\xbc\xc3\xb3\xc5\x82w \xc4\x85\xc4\x99 \xc5\x9b\xc4\x87\xc5\xba "
         "i jeszcze d\xc5\x82ugi ogon tekstu, by trzeba by\xc5\x82o go z\xc5\x82o\xc5\xbcy\xc4\x87"),
        /* ASCII that a reader could take for an encoded word. */
        "=?UTF-8?B?SGk=?= is not an encoded word here",
        /* Long ASCII: folded at its spaces. */
        ("alice challenges you to a game of Glinski, and this subject goes on for long "
         "enough that it has to be folded onto two or even three lines of a header"),
        "\xf0\x9f\x98\x80 four-byte",
    };
    for (size_t i = 0; i < sizeof subjects / sizeof *subjects; i++) {
        struct notify_mail m = mail();
        m.subject = subjects[i];
        struct base_err err = { "" };
        char *msg = notify_mail_message(&m, &err);
        if (msg == NULL)
            fail_msg("%s", err.text);
        assert_wire_format(msg);
        char *raw = header_value(msg, "Subject");
        for (const char *p = raw; *p; p++)
            assert_true((unsigned char)*p < 0x80);
        if (i != 2)
            assert_non_null(strstr(raw, "=?UTF-8?B?"));
        else
            assert_null(strstr(raw, "=?"));
        char *decoded = words_decode(raw);
        assert_string_equal(decoded, subjects[i]);
        free(decoded);
        free(raw);
        free(msg);
    }

    /* Names: atoms stay as they are; others are encoded. */
    struct notify_mail m = mail();
    m.to_name = "Pawe\xc5\x82 Gli\xc5\x84ski";
    m.from_name = "korp chess server";
    struct base_err err = { "" };
    char *msg = notify_mail_message(&m, &err);
    assert_non_null(msg);
    assert_wire_format(msg);
    assert_header(msg, "From", "korp chess server <korp@example.org>");
    char *to = header_value(msg, "To");
    char *decoded = words_decode(to);
    assert_non_null(strstr(to, "=?UTF-8?B?"));
    assert_string_equal(decoded, "Pawe\xc5\x82 Gli\xc5\x84ski <bob@example.net>");
    free(decoded);
    free(to);
    free(msg);
}

static void test_notify_mail_message_random_id(void **state)
{
    (void)state;
    struct notify_mail m = mail();
    m.message_id = NULL;
    m.message_id_domain = "mail.example.org";
    struct base_err err = { "" };
    char *one = notify_mail_message(&m, &err);
    char *two = notify_mail_message(&m, &err);
    assert_non_null(one);
    assert_non_null(two);
    char *id1 = header_value(one, "Message-ID"), *id2 = header_value(two, "Message-ID");
    const char *suffix = "@mail.example.org>";
    assert_int_equal(id1[0], '<');
    assert_true(strlen(id1) > strlen(suffix) + 16);
    assert_string_equal(id1 + strlen(id1) - strlen(suffix), suffix);
    for (const char *p = id1 + 1; *p != '@'; p++)
        assert_non_null(strchr("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
                               "abcdefghijklmnopqrstuvwxyz", *p));
    assert_string_not_equal(id1, id2);
    free(id1);
    free(id2);
    free(one);
    free(two);

    /* Without a domain, the sender's. */
    m.message_id_domain = NULL;
    one = notify_mail_message(&m, &err);
    id1 = header_value(one, "Message-ID");
    assert_string_equal(id1 + strlen(id1) - strlen("@example.org>"), "@example.org>");
    free(id1);
    free(one);
}

/* Every way in for a line break, and addresses that are not plain. */
static void test_notify_mail_message_refuses_injection(void **state)
{
    (void)state;
    enum { SUBJECT, FROM_NAME, TO_NAME, FROM_ADDRESS, TO_ADDRESS, URL, ID, ID_DOMAIN, BODY };
    static const struct {
        int field;
        const char *value;
        const char *err_names;  /* what the message should name */
    } cases[] = {
        { SUBJECT, "Hi\r\nBcc: eve@evil.example", "subject" },
        { SUBJECT, "Hi\nBcc: eve@evil.example", "subject" },
        { SUBJECT, "Hi\rBcc: eve@evil.example", "subject" },
        { SUBJECT, "tab\there", "subject" },
        { SUBJECT, "delete\x7f", "subject" },
        { SUBJECT, "bad \xc3\x28 utf-8", "subject" },
        { SUBJECT, "overlong \xc0\xaf slash", "subject" },
        { SUBJECT, "surrogate \xed\xa0\x80", "subject" },
        { FROM_NAME, "korp\r\nBcc: eve@evil.example", "from name" },
        { TO_NAME, "Bob\nBcc: eve@evil.example", "to name" },
        { TO_NAME, "Bob\x1b[31m", "to name" },
        { FROM_ADDRESS, "korp@example.org\r\nBcc: eve@evil.example", "from address" },
        { TO_ADDRESS, "bob@example.net\r\nBcc: eve@evil.example", "to address" },
        { TO_ADDRESS, "bob@example.net\n", "to address" },
        { TO_ADDRESS, "bob@example.net>, eve@evil.example", "to address" },
        { TO_ADDRESS, "<bob@example.net>", "to address" },
        { TO_ADDRESS, "bob smith@example.net", "to address" },
        { TO_ADDRESS, "\"bob\"@example.net", "to address" },
        { TO_ADDRESS, "bob", "to address" },
        { TO_ADDRESS, "bob@", "to address" },
        { TO_ADDRESS, "@example.net", "to address" },
        { TO_ADDRESS, "bob@@example.net", "to address" },
        { TO_ADDRESS, "bob..smith@example.net", "to address" },
        { TO_ADDRESS, "bob@example..net", "to address" },
        { TO_ADDRESS, "bob@-example.net", "to address" },
        { TO_ADDRESS, "b\xc3\xb8" "b@example.net", "to address" },
        { TO_ADDRESS, "", "to address" },
        { URL, "https://korp.example/u\r\nBcc: eve@evil.example", "unsubscribe url" },
        { URL, "https://korp.example/u?a=b c", "unsubscribe url" },
        { URL, "https://korp.example/u>,<mailto:eve@evil.example", "unsubscribe url" },
        { URL, "javascript:alert(1)", "unsubscribe url" },
        { ID, "abc\r\n@example.org", "message id" },
        { ID, "<abc@example.org>", "message id" },
        { ID, "abc", "message id" },
        { ID_DOMAIN, "example.org\r\nBcc: eve@evil.example", "message id domain" },
        { ID_DOMAIN, "example.org>", "message id domain" },
        { BODY, "bad \xff byte", "body" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        struct notify_mail m = mail();
        switch (cases[i].field) {
        case SUBJECT: m.subject = cases[i].value; break;
        case FROM_NAME: m.from_name = cases[i].value; break;
        case TO_NAME: m.to_name = cases[i].value; break;
        case FROM_ADDRESS: m.from_address = cases[i].value; break;
        case TO_ADDRESS: m.to_address = cases[i].value; break;
        case URL: m.unsubscribe_url = cases[i].value; break;
        case ID: m.message_id = cases[i].value; break;
        case ID_DOMAIN:
            m.message_id = NULL;
            m.message_id_domain = cases[i].value;
            break;
        case BODY: m.body = cases[i].value; break;
        }
        struct base_err err = { "" };
        char *msg = notify_mail_message(&m, &err);
        if (msg != NULL)
            fail_msg("case %zu (%s) was accepted:\n%s", i, cases[i].err_names, msg);
        if (strncmp(err.text, cases[i].err_names, strlen(cases[i].err_names)) != 0)
            fail_msg("case %zu: message '%s' does not start with '%s'", i, err.text,
                     cases[i].err_names);
    }

    /* Missing pieces and overlong text. */
    struct notify_mail m = mail();
    char long_subject[NOTIFY_HEADER_TEXT_MAX + 2];
    struct base_err err = { "" };
    memset(long_subject, 'a', sizeof long_subject - 1);
    long_subject[sizeof long_subject - 1] = '\0';
    m.subject = long_subject;
    assert_null(notify_mail_message(&m, &err));
    assert_non_null(strstr(err.text, "too long"));
    m = mail();
    m.subject = NULL;
    assert_null(notify_mail_message(&m, &err));
    m = mail();
    m.body = NULL;
    assert_null(notify_mail_message(&m, &err));
    m = mail();
    m.to_address = NULL;
    assert_null(notify_mail_message(&m, &err));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_notify_mail_diagram_korpalski_start),
        cmocka_unit_test(test_notify_mail_diagram_korpalski_prison),
        cmocka_unit_test(test_notify_mail_diagram_glinski_start),
        cmocka_unit_test(test_notify_mail_diagram_glinski_cells),
        cmocka_unit_test(test_notify_mail_diagram_refusals),
        cmocka_unit_test(test_notify_mail_subjects),
        cmocka_unit_test(test_notify_mail_your_move_body),
        cmocka_unit_test(test_notify_mail_message_body),
        cmocka_unit_test(test_notify_mail_game_end_words),
        cmocka_unit_test(test_notify_mail_time_left),
        cmocka_unit_test(test_notify_mail_missing_facts),
        cmocka_unit_test(test_notify_mail_digest),
        cmocka_unit_test(test_notify_mail_message_headers),
        cmocka_unit_test(test_notify_mail_message_encoded_words),
        cmocka_unit_test(test_notify_mail_message_random_id),
        cmocka_unit_test(test_notify_mail_message_refuses_injection),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
