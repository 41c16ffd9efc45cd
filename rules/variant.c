/*
 * variant.c — the list of variants and the words for statuses and results.
 */
#include "rules.h"
#include "glinski_int.h"
#include "korpalski_int.h"
#include "report_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <strings.h>

static const struct rules_variant *const variants[] = {
    &rules_korpalski, &rules_glinski, NULL
};

void rules_init(void)
{
    kp_attacks_init();
    gl_tables_init();
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

const char *rules_result_text(enum rules_result result)
{
    switch (result) {
    case RULES_RESULT_WHITE_WINS: return "1-0";
    case RULES_RESULT_BLACK_WINS: return "0-1";
    case RULES_RESULT_DRAW: return "1/2-1/2";
    case RULES_RESULT_WHITE_3_4: return "3/4-1/4";
    case RULES_RESULT_BLACK_3_4: return "1/4-3/4";
    default: return "*";
    }
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

enum rules_error text_fail(char *why, enum rules_error err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, RULES_WHY_MAX, fmt, ap);
    va_end(ap);
    return err;
}
