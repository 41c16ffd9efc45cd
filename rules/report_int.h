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

/* Writes a printf-style message into why (RULES_WHY_MAX bytes); returns err. */
enum rules_error text_fail(char *why, enum rules_error err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
