/*
 * variant.c — the list of variants and the words for statuses and results.
 */
#include "rules.h"
#include "glinski_int.h"
#include "korpalski_int.h"
#include "report_int.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

static const struct rules_variant *const variants[] = {
    &rules_korpalski, &rules_glinski, NULL
};

static pthread_once_t init_once = PTHREAD_ONCE_INIT;

static void init_tables(void)
{
    kp_attacks_init();
    gl_tables_init();
}

void rules_init(void)
{
    pthread_once(&init_once, init_tables);
}

const struct rules_variant *const *rules_variant_list(void)
{
    return variants;
}

const struct rules_variant *rules_variant_find(const char *name)
{
    for (int i = 0; name != NULL && variants[i] != NULL; i++)
        if (strcasecmp(variants[i]->name, name) == 0)
            return variants[i];
    return NULL;
}

const struct rules_variant *rules_variant_find_pgn(const char *tag)
{
    for (int i = 0; tag != NULL && variants[i] != NULL; i++)
        if (strcasecmp(variants[i]->pgn_name, tag) == 0)
            return variants[i];
    return NULL;
}

/* Results in the words of PGN: the one table both ways. */
static const char *const result_texts[] = {
    [RULES_RESULT_NONE] = "*",
    [RULES_RESULT_WHITE_WINS] = "1-0",
    [RULES_RESULT_BLACK_WINS] = "0-1",
    [RULES_RESULT_DRAW] = "1/2-1/2",
    [RULES_RESULT_WHITE_3_4] = "3/4-1/4",
    [RULES_RESULT_BLACK_3_4] = "1/4-3/4",
};

const char *rules_result_text(enum rules_result result)
{
    return (unsigned)result < sizeof result_texts / sizeof *result_texts
               ? result_texts[result] : "*";
}

bool rules_result_parse(const char *text, enum rules_result *out)
{
    for (size_t i = 0; text != NULL && i < sizeof result_texts / sizeof *result_texts; i++)
        if (strcmp(result_texts[i], text) == 0) {
            *out = (enum rules_result)i;
            return true;
        }
    return false;
}

bool rules_move_equal(struct rules_move a, struct rules_move b)
{
    return a.from == b.from && a.to == b.to && a.piece == b.piece && a.flags == b.flags;
}

const char *rules_status_text(enum rules_status status)
{
    switch (status) {
    case RULES_CHECKMATE: return "checkmate";
    case RULES_STALEMATE: return "stalemate";
    case RULES_INSUFFICIENT_MATERIAL: return "insufficient-material";
    default: return "ongoing";
    }
}

const char *rules_error_text(enum rules_error err)
{
    switch (err) {
    case RULES_OK: return "ok";
    case RULES_ERR_SYNTAX: return "syntax error";
    case RULES_ERR_INVALID: return "invalid position";
    case RULES_ERR_ILLEGAL: return "illegal move";
    case RULES_ERR_AMBIGUOUS: return "ambiguous move";
    }
    return "unknown error";
}

static const char *const reason_slugs[RULES_REASON_COUNT] = {
    [RULES_REASON_NONE] = "none",
    [RULES_REASON_SYNTAX] = "syntax",
    [RULES_REASON_INVALID_POSITION] = "invalid-position",
    [RULES_REASON_AMBIGUOUS] = "ambiguous",
    [RULES_REASON_GAME_OVER] = "game-over",
    [RULES_REASON_NOT_LEGAL] = "not-legal",
    [RULES_REASON_NO_PIECE_ON_SQUARE] = "no-piece-on-square",
    [RULES_REASON_NO_SUCH_PIECE] = "no-such-piece",
    [RULES_REASON_OWN_MAN_ON_SQUARE] = "own-man-on-square",
    [RULES_REASON_CAPTURE_OF_EMPTY_SQUARE] = "capture-of-empty-square",
    [RULES_REASON_CAPTURE_NOT_MARKED] = "capture-not-marked",
    [RULES_REASON_CANNOT_REACH] = "cannot-reach",
    [RULES_REASON_KING_IN_CHECK] = "king-in-check",
    [RULES_REASON_PROMOTION_NOT_NAMED] = "promotion-not-named",
    [RULES_REASON_NOT_A_PROMOTION] = "not-a-promotion",
    [RULES_REASON_PROMOTION_PIECE_NOT_CAPTURED] = "promotion-piece-not-captured",
    [RULES_REASON_PRISON_EMPTY] = "prison-empty",
    [RULES_REASON_KING_NOT_PLACED] = "king-not-placed",
    [RULES_REASON_KINGS_ADJACENT] = "kings-adjacent",
    [RULES_REASON_NOT_IN_RESERVE] = "not-in-reserve",
    [RULES_REASON_DROP_ON_OCCUPIED_SQUARE] = "drop-on-occupied-square",
    [RULES_REASON_PAWN_DROP_RANK] = "pawn-drop-rank",
    [RULES_REASON_DROP_GIVES_CHECK] = "drop-gives-check",
    [RULES_REASON_NO_DROPS] = "no-drops",
    [RULES_REASON_AGREEMENT_NOT_ALLOWED] = "agreement-not-allowed",
};

const char *rules_reason_slug(enum rules_reason reason)
{
    if ((unsigned)reason >= RULES_REASON_COUNT || reason_slugs[reason] == NULL)
        return "unknown";
    return reason_slugs[reason];
}

bool rules_result_quarters(enum rules_result result, int quarters[2])
{
    static const int table[][2] = {
        [RULES_RESULT_NONE] = { 0, 0 },
        [RULES_RESULT_WHITE_WINS] = { 4, 0 },
        [RULES_RESULT_BLACK_WINS] = { 0, 4 },
        [RULES_RESULT_DRAW] = { 2, 2 },
        [RULES_RESULT_WHITE_3_4] = { 3, 1 },
        [RULES_RESULT_BLACK_3_4] = { 1, 3 },
    };
    bool known = result > RULES_RESULT_NONE && result <= RULES_RESULT_BLACK_3_4;
    quarters[0] = known ? table[result][0] : 0;
    quarters[1] = known ? table[result][1] : 0;
    return known;
}

enum rules_result rules_result_on_time(const struct rules_report *r,
                                       enum rules_color flagged)
{
    if (!r->can_mate[flagged ^ 1])
        return RULES_RESULT_DRAW;
    return flagged == RULES_WHITE ? RULES_RESULT_BLACK_WINS : RULES_RESULT_WHITE_WINS;
}

void report_decide(struct rules_report *r, enum rules_color side_to_move,
                   bool stalemate_is_draw)
{
    bool white_moves = side_to_move == RULES_WHITE;
    if (r->legal_moves == 0 && r->in_check) {
        r->status = RULES_CHECKMATE;
        r->result = white_moves ? RULES_RESULT_BLACK_WINS : RULES_RESULT_WHITE_WINS;
    } else if (r->legal_moves == 0) {
        r->status = RULES_STALEMATE;
        r->result = stalemate_is_draw ? RULES_RESULT_DRAW
                    : white_moves     ? RULES_RESULT_BLACK_3_4
                                      : RULES_RESULT_WHITE_3_4;
    } else if (r->insufficient_material) {
        r->status = RULES_INSUFFICIENT_MATERIAL;
        r->result = RULES_RESULT_DRAW;
    } else {
        r->status = RULES_ONGOING;
        r->result = RULES_RESULT_NONE;
    }
}

bool text_parse_number(const char **s, long max, int *out)
{
    long v = 0;
    const char *t = *s;
    if (*t < '0' || *t > '9')
        return false;
    for (; *t >= '0' && *t <= '9'; t++)
        if ((v = v * 10 + (*t - '0')) > max)
            return false;
    *out = (int)v;
    *s = t;
    return true;
}

static void why_vset(struct rules_why *why, enum rules_reason reason, const char *fmt,
                     va_list ap)
{
    why->reason = reason;
    vsnprintf(why->text, sizeof why->text, fmt, ap);
}

void why_set(struct rules_why *why, enum rules_reason reason, const char *fmt, ...)
{
    va_list ap;
    if (why == NULL)
        return;
    va_start(ap, fmt);
    why_vset(why, reason, fmt, ap);
    va_end(ap);
}

enum rules_error text_fail(struct rules_why *why, enum rules_error err,
                           enum rules_reason reason, const char *fmt, ...)
{
    va_list ap;
    if (why == NULL)
        return err;
    va_start(ap, fmt);
    why_vset(why, reason, fmt, ap);
    va_end(ap);
    return err;
}

enum rules_error text_parse_side(const char **text, const char *what, uint8_t *side,
                                 struct rules_why *why)
{
    const char *t = *text;
    if (*t++ != ' ' || (*t != 'w' && *t != 'b') || (t[1] != ' ' && t[1] != '\0'))
        return fail_syntax(why, "bad %s: side to move must be 'w' or 'b'", what);
    *side = *t++ == 'b';
    *text = t;
    return RULES_OK;
}

enum rules_error text_parse_clocks(const char *text, const char *what, uint16_t *halfmove,
                                   uint16_t *fullmove, struct rules_why *why)
{
    int number;

    if (*text++ != ' ' || !text_parse_number(&text, RULES_COUNTER_MAX, &number))
        return fail_syntax(why, "bad %s: halfmove clock must be a number (0-65535)", what);
    *halfmove = (uint16_t)number;
    if (*text == '\0')
        return RULES_OK;
    if (*text++ != ' ' || !text_parse_number(&text, RULES_COUNTER_MAX, &number) || number < 1)
        return fail_syntax(why, "bad %s: fullmove number must be a number (1-65535)", what);
    *fullmove = (uint16_t)number;
    while (*text == ' ')
        text++;
    if (*text != '\0')
        return fail_syntax(why, "bad %s: unexpected text after the fullmove number", what);
    return RULES_OK;
}

bool moves_contain(const struct rules_move *moves, int n, struct rules_move m)
{
    for (int i = 0; i < n; i++)
        if (moves[i].from == m.from && moves[i].to == m.to && moves[i].piece == m.piece &&
            moves[i].flags == m.flags)
            return true;
    return false;
}
