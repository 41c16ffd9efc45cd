/*
 * korp_analyse.c — `korp analyse`: for the final position of a game record
 * (or ply N, or every ply, or one FEN), the facts an arbiter rules on a
 * claim by, as one JSON object per position: the same as
 * GET /v1/games/{id}/analysis, from the same rules code.  With --engine, the
 * engine's evaluation and best line are added ("engine"), the score from
 * White's point of view; with more than one line asked for
 * (korp_analysis_engine_lines), the best lines too ("lines").
 */
#include "korp_int.h"

#include "engine.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The engine's handle and limits for this run (one run per process). */
static struct {
    struct engine *engine;
    struct engine_limits limits;
} analysis_engine;

/* Lines asked for (MultiPV); kept apart from the limits, which
 * korp_analysis_engine_start resets. */
static int analysis_lines = 1;

#define LINES_MAX 16

/* Each line's deepest iteration, from the info callback. */
struct last_line {
    int length;
    int depth;
    int score;
    struct rules_move pv[ENGINE_MAX_PLY];
};

static void keep_line(void *arg, const struct engine_info *info)
{
    struct last_line *lines = arg;
    if (info->multipv < 1 || info->multipv > LINES_MAX)
        return;
    struct last_line *line = &lines[info->multipv - 1];
    line->length = info->pv_length;
    line->depth = info->depth;
    line->score = info->score;
    memcpy(line->pv, info->pv, (size_t)info->pv_length * sizeof *info->pv);
}

/* How many best lines --engine reports (1 to LINES_MAX). */
void korp_analysis_engine_lines(int lines)
{
    analysis_lines = lines < 1 ? 1 : lines > LINES_MAX ? LINES_MAX : lines;
}

bool korp_analysis_engine_start(const struct korp_args *args)
{
    memset(&analysis_engine, 0, sizeof analysis_engine);
    if (args->engine_multipv > 0)
        korp_analysis_engine_lines(args->engine_multipv);
    analysis_engine.engine = engine_new(ENGINE_HASH_DEFAULT_MB);
    if (analysis_engine.engine == NULL)
        return false;
    analysis_engine.limits.depth = args->engine_depth;
    analysis_engine.limits.movetime_ms = args->engine_movetime;
    if (args->engine_depth == 0 && args->engine_movetime == 0)
        analysis_engine.limits.depth = KORP_ANALYSE_DEFAULT_DEPTH;
    analysis_engine.limits.multipv = analysis_lines;
    return true;
}

void korp_analysis_engine_end(void)
{
    engine_free(analysis_engine.engine);
    analysis_engine.engine = NULL;
}

/* A JSON array of the line in the given notation (UCI and SAN need no
 * escaping: letters, digits, @ = + # x - O). */
static void print_line(const struct rules_variant *v, const struct rules_position *pos,
                       const struct rules_move *line, int length, enum rules_notation how)
{
    struct rules_position p = *pos;
    char text[RULES_MOVE_TEXT_MAX];

    putchar('[');
    for (int i = 0; i < length; i++) {
        v->move_format(&p, line[i], how, text, sizeof text);
        printf("%s\"%s\"", i ? "," : "", text);
        v->move_play(&p, line[i]);
    }
    putchar(']');
}

/* A score from White's point of view: {"cp":N} or {"mate":N}. */
static void print_score(int score, int sign)
{
    if (engine_mate_moves(score) != 0)
        printf("{\"mate\":%d}", sign * engine_mate_moves(score));
    else
        printf("{\"cp\":%d}", sign * score);
}

/* ,"engine":{...} for pos, or ,"engine":null when there is no move. */
static void print_engine(const struct rules_variant *v, const struct rules_position *pos,
                         const uint64_t *keys, int count)
{
    struct engine_result res;
    static struct last_line lines[LINES_MAX];
    struct last_line *line = &lines[0];
    struct engine *e = analysis_engine.engine;
    char best[RULES_MOVE_TEXT_MAX];
    int sign = v->side_to_move(pos) == RULES_WHITE ? 1 : -1;

    engine_clear(e);
    engine_stop_reset(e);
    memset(lines, 0, sizeof lines);
    if (engine_search(e, v, pos, keys, count, &analysis_engine.limits, keep_line, lines,
                      &res) != 0 || !res.has_move) {
        fputs(",\"engine\":null", stdout);
        return;
    }
    /* The line of the last completed iteration starts with the answer; if a
     * stopped iteration changed the answer, the line is that move alone. */
    if (line->length == 0 || memcmp(&line->pv[0], &res.best, sizeof res.best) != 0) {
        line->pv[0] = res.best;
        line->length = 1;
        line->depth = res.depth;
        line->score = res.score;
    }
    v->move_format(pos, res.best, RULES_NOTATION_UCI, best, sizeof best);
    printf(",\"engine\":{\"point_of_view\":\"white\",\"depth\":%d,\"score\":", res.depth);
    print_score(res.score, sign);
    printf(",\"best\":\"%s\",\"pv\":", best);
    print_line(v, pos, line->pv, line->length, RULES_NOTATION_UCI);
    fputs(",\"pv_san\":", stdout);
    print_line(v, pos, line->pv, line->length, RULES_NOTATION_SAN);
    /* The best lines, best first, each from its own deepest iteration
     * (the first is the answer above). */
    if (analysis_lines > 1) {
        fputs(",\"lines\":[", stdout);
        for (int i = 0; i < analysis_lines && lines[i].length > 0; i++) {
            printf("%s{\"multipv\":%d,\"depth\":%d,\"score\":", i ? "," : "", i + 1,
                   lines[i].depth);
            print_score(lines[i].score, sign);
            fputs(",\"pv\":", stdout);
            print_line(v, pos, lines[i].pv, lines[i].length, RULES_NOTATION_UCI);
            fputs(",\"pv_san\":", stdout);
            print_line(v, pos, lines[i].pv, lines[i].length, RULES_NOTATION_SAN);
            putchar('}');
        }
        putchar(']');
    }
    printf(",\"nodes\":%llu,\"time_ms\":%lld}", (unsigned long long)res.nodes,
           (long long)res.time_ms);
}

/* One position given as a FEN (no game before it): analysed as it stands. */
static int analyse_fen(const struct korp_args *args)
{
    const struct rules_variant *v =
        args->variant ? args->variant : rules_variant_find("korpalski");
    struct rules_position pos;
    const char *last = strrchr(args->position, ' ');
    long fullmove = last != NULL ? strtol(last + 1, NULL, 10) : 1;
    uint64_t key;
    int rc = korp_read_position(v, args->position, &pos);
    if (rc != 0)
        return rc;
    key = v->repetition_key(&pos);
    /* The plies played, from the FEN's move number. */
    if (fullmove < 1 || fullmove > 500000)
        fullmove = 1;
    korp_print_analysis(v, &pos, &key, 1,
                        (int)(2 * (fullmove - 1)) + (v->side_to_move(&pos) == RULES_BLACK));
    return 0;
}

int korp_analyse(const struct korp_args *args)
{
    struct korp_args replay = *args;
    int rc;

    replay.analyse = true;
    if (args->engine && !korp_analysis_engine_start(args)) {
        fprintf(stderr, "korp: out of memory\n");
        return 2;
    }
    /* A FEN instead of a game record: ranks with '/' and fields apart (as
     * several words, or one quoted word with spaces that names no file). */
    if (args->operand_count > 0 && strchr(args->position, '/') != NULL &&
        (args->operand_count > 1 ||
         (strchr(args->operands[0], ' ') != NULL && access(args->operands[0], F_OK) != 0)))
        rc = analyse_fen(args);
    else
        rc = korp_replay(&replay);
    korp_analysis_engine_end();
    return rc;
}

static const char *yes(bool b)
{
    return b ? "true" : "false";
}

void korp_print_analysis(const struct rules_variant *v, const struct rules_position *pos,
                         const uint64_t *keys, int count, int ply)
{
    struct rules_report rep;
    struct rules_claim claim = { 0 };
    bool first = true;

    v->position_report(pos, &rep);
    rules_claim_check(v, pos, keys, count, NULL, &claim, NULL);
    printf("{\"ply\":%d,\"status\":\"%s\",\"to_move\":\"%s\",\"halfmove_clock\":%d,"
           "\"fifty_move_claimable\":%s,\"earlier_occurrences\":[",
           ply, rules_status_text(rep.status),
           v->side_to_move(pos) == RULES_WHITE ? "white" : "black", rep.halfmove_clock,
           yes(claim.fifty_move));
    /* keys[count - 1] is the position at `ply`; keys[i] the one at
     * ply - (count - 1 - i).  Every occurrence, not only the claim's few. */
    for (int i = 0; i < count - 1; i++) {
        if (keys[i] != claim.key)
            continue;
        printf("%s%d", first ? "" : ",", ply - (count - 1 - i));
        first = false;
    }
    printf("],\"threefold_claimable\":%s,"
           "\"insufficient_material\":{\"white\":%s,\"black\":%s},"
           "\"can_mate\":{\"white\":%s,\"black\":%s},"
           "\"can_drop\":{\"white\":%s,\"black\":%s},"
           "\"draw_by_agreement_allowed\":%s,\"result\":\"%s\"",
           yes(claim.threefold), yes(!rep.can_mate[RULES_WHITE]),
           yes(!rep.can_mate[RULES_BLACK]), yes(rep.can_mate[RULES_WHITE]),
           yes(rep.can_mate[RULES_BLACK]), yes(rep.can_drop[RULES_WHITE]),
           yes(rep.can_drop[RULES_BLACK]), yes(rep.draw_agreement_allowed),
           rules_result_text(rep.result));
    if (analysis_engine.engine != NULL)
        print_engine(v, pos, keys, count);
    fputs("}\n", stdout);
    fflush(stdout);
}
