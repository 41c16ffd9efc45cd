/*
 * report_int.h — what both variants share when they judge a position or
 * read a position text and explain what is wrong with it.
 */
#ifndef KORP_REPORT_INT_H
#define KORP_REPORT_INT_H

#include "rules.h"

/*
 * Sets r->status and r->result from r->legal_moves, r->in_check and
 * r->insufficient_material: mate wins, no move is stalemate (scored
 * `stalemate` for the side that made it), else insufficient material draws.
 */
void report_decide(struct rules_report *r, enum rules_color side_to_move,
                   bool stalemate_is_draw);

/* Reads a whole number of at most `max` at *s; advances *s.  False if
 * there is none or it is larger. */
bool text_parse_number(const char **s, long max, int *out);

/* Fills why (if not NULL) with the reason and a printf-style message. */
void why_set(struct rules_why *why, enum rules_reason reason, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Fills why like why_set; returns err. */
enum rules_error text_fail(struct rules_why *why, enum rules_error err,
                           enum rules_reason reason, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* The two kinds of position text refusal. */
#define fail_syntax(why, ...) \
    text_fail(why, RULES_ERR_SYNTAX, RULES_REASON_SYNTAX, __VA_ARGS__)
#define fail_invalid(why, ...) \
    text_fail(why, RULES_ERR_INVALID, RULES_REASON_INVALID_POSITION, __VA_ARGS__)

/* Reads " w" or " b" at *text into *side (0 white, 1 black); advances
 * *text.  Refusals name the format `what` ("fen"). */
enum rules_error text_parse_side(const char **text, const char *what, uint8_t *side,
                                 struct rules_why *why);

/* Reads the clocks that end a position text at `text`: " HALFMOVE" and
 * optionally " FULLMOVE"; refusals name the format `what` ("fen"). */
enum rules_error text_parse_clocks(const char *text, const char *what, uint16_t *halfmove,
                                   uint16_t *fullmove, struct rules_why *why);

/* Whether `m` equals, all four bytes, one of moves[0..n). */
bool moves_contain(const struct rules_move *moves, int n, struct rules_move m);

/* Adds one to a counter, stopping at RULES_COUNTER_MAX. */
static inline void counter_step(uint16_t *c)
{
    if (*c < RULES_COUNTER_MAX)
        (*c)++;
}

#endif
