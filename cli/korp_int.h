/*
 * korp_int.h — the korp tool's commands.  Each returns the exit status:
 * 0 success, 1 an illegal or unreadable game, 2 bad arguments or input.
 */
#ifndef KORP_CLI_INT_H
#define KORP_CLI_INT_H

#include "rules.h"

/* analyse --engine without --depth or --movetime searches to this depth. */
#define KORP_ANALYSE_DEFAULT_DEPTH 6

struct korp_args {
    const struct rules_variant *variant;  /* NULL: not given */
    bool divide;
    bool pgn;                             /* replay: write PGN */
    bool analyse;                         /* replay as analyse */
    int stop_ply;                         /* analyse --ply N, or -1 */
    bool every_ply;                       /* analyse --every-ply */
    bool engine;                          /* analyse --engine */
    int engine_depth;                     /* analyse --depth N, or 0 */
    int engine_movetime;                  /* analyse --movetime MS, or 0 */
    int engine_multipv;                   /* analyse --multipv N, or 0 (one line) */
    const char *operands[8];
    int operand_count;
    char position[512];                   /* operands joined, for FENs */
    char **raw;                           /* the arguments after the command, for */
    int raw_count;                        /* commands that read their own */
};

/* Reads `text` as a whole decimal number from min to max into *out; false
 * for NULL, an empty text, other characters or a number out of range. */
bool korp_number(const char *text, long min, long max, long *out);

int korp_perft(const struct korp_args *args);
int korp_status(const struct korp_args *args);
int korp_moves(const struct korp_args *args);
int korp_replay(const struct korp_args *args);
int korp_analyse(const struct korp_args *args);
/* `korp uci`: the engine over UCI on stdin/stdout (korp_uci.c). */
int korp_uci(const struct korp_args *args);
/* `korp glicko2`: one Glicko-2 rating period (korp_glicko2.c); reads
 * args->raw itself. */
int korp_glicko2(const struct korp_args *args);

/*
 * Prints, as one JSON object on a line, what an arbiter needs to rule on a
 * claim in pos: keys are the repetition keys since the last irreversible
 * move, the current position's last; ply is the plies played.
 */
void korp_print_analysis(const struct rules_variant *v, const struct rules_position *pos,
                         const uint64_t *keys, int count, int ply);

/* How many best lines analyse --engine reports (--multipv; 1 to 16). */
void korp_analysis_engine_lines(int lines);

/* Makes korp_print_analysis add the engine's opinion ("engine": ...) with
 * these limits (args->engine_depth, args->engine_movetime); false when out
 * of memory.  korp_analysis_engine_end frees what it took. */
bool korp_analysis_engine_start(const struct korp_args *args);
void korp_analysis_engine_end(void);

/* Parses args->position (or the variant's start if empty) into *pos;
 * prints the error and returns 2 if it is not a valid position. */
int korp_read_position(const struct rules_variant *v, const char *text,
                       struct rules_position *pos);

#endif
