/*
 * korp_commands.c — perft, status and moves: one position in, figures out.
 */
#include "korp_int.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static const struct rules_variant *variant_of(const struct korp_args *args)
{
    return args->variant ? args->variant : rules_variant_find("korpalski");
}

int korp_read_position(const struct rules_variant *v, const char *text,
                       struct rules_position *pos)
{
    struct rules_why why;
    if (text == NULL || text[0] == '\0')
        text = v->start_text;
    if (v->position_parse(pos, text, &why) != RULES_OK) {
        fprintf(stderr, "korp: %s\n", why.text);
        return 2;
    }
    return 0;
}

bool korp_number(const char *text, long min, long max, long *out)
{
    char *end = NULL;
    long v;
    if (text == NULL || *text == '\0')
        return false;
    v = strtol(text, &end, 10);
    if (*end != '\0' || v < min || v > max)
        return false;
    *out = v;
    return true;
}

int korp_perft(const struct korp_args *args)
{
    const struct rules_variant *v = variant_of(args);
    struct rules_position pos;
    struct rules_move moves[RULES_MAX_MOVES];
    long depth;
    uint64_t total = 0;
    int rc;

    if (args->operand_count < 1) {
        fprintf(stderr, "korp: perft needs a DEPTH\n");
        return 2;
    }
    if (!korp_number(args->operands[0], 0, 20, &depth)) {
        fprintf(stderr, "korp: perft depth must be a number from 0 to 20, not '%s'\n",
                args->operands[0]);
        return 2;
    }
    if ((rc = korp_read_position(v, args->position, &pos)) != 0)
        return rc;
    if (depth == 0) {
        printf("1\n");
        return 0;
    }
    /* Root moves one by one: --divide prints each, a terminal shows progress. */
    bool progress = !args->divide && depth >= 5 && isatty(STDERR_FILENO);
    int n = v->moves_legal(&pos, moves);
    for (int i = 0; i < n; i++) {
        struct rules_position next = pos;
        v->position_apply(&next, moves[i]);
        uint64_t count = v->perft(&next, (int)depth - 1);
        total += count;
        if (args->divide) {
            char uci[RULES_MOVE_TEXT_MAX];
            v->move_format(&pos, moves[i], RULES_NOTATION_UCI, uci, sizeof uci);
            printf("%s %" PRIu64 "\n", uci, count);
        } else if (progress) {
            fprintf(stderr, "\rperft: %d/%d root moves", i + 1, n);
        }
    }
    if (progress)
        fprintf(stderr, "\r\033[K");
    if (args->divide)
        printf("\n");
    printf("%" PRIu64 "\n", total);
    return 0;
}

static const char *boolean(bool b) { return b ? "true" : "false"; }

int korp_status(const struct korp_args *args)
{
    const struct rules_variant *v = variant_of(args);
    struct rules_position pos;
    struct rules_report r;
    int rc;

    if ((rc = korp_read_position(v, args->position, &pos)) != 0)
        return rc;
    v->position_report(&pos, &r);
    printf("{\"variant\":\"%s\",\"status\":\"%s\",\"result\":\"%s\",\"in_check\":%s,"
           "\"legal_moves\":%d,\"halfmove_clock\":%d,\"fifty_move_claimable\":%s,"
           "\"insufficient_material\":%s,\"can_drop\":{\"white\":%s,\"black\":%s}}\n",
           v->name, rules_status_text(r.status), rules_result_text(r.result),
           boolean(r.in_check), r.legal_moves, r.halfmove_clock,
           boolean(r.fifty_move_claimable), boolean(r.insufficient_material),
           boolean(r.can_drop[0]), boolean(r.can_drop[1]));
    return 0;
}

int korp_moves(const struct korp_args *args)
{
    const struct rules_variant *v = variant_of(args);
    struct rules_position pos;
    struct rules_move moves[RULES_MAX_MOVES];
    int rc;

    if ((rc = korp_read_position(v, args->position, &pos)) != 0)
        return rc;
    int n = v->moves_legal(&pos, moves);
    for (int i = 0; i < n; i++) {
        char uci[RULES_MOVE_TEXT_MAX], san[RULES_MOVE_TEXT_MAX];
        v->move_format(&pos, moves[i], RULES_NOTATION_UCI, uci, sizeof uci);
        v->move_format(&pos, moves[i], RULES_NOTATION_SAN, san, sizeof san);
        printf("%s %s\n", uci, san);
    }
    return 0;
}
