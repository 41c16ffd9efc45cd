/*
 * tune.c — korp-tune, the evaluation's tuner (bench/tune.sh drives it;
 * docs/engine.md says how and why).
 *
 *   korp-tune play VARIANT GAMES SEED NODES
 *       seeded self-play: the first plies random (from SEED), then the
 *       engine at NODES nodes a move; every position from ply 8 on is
 *       printed as "RESULT FEN", RESULT the game's score for White (1, 0.5,
 *       0; 0.75 and 0.25 for a Glinski stalemate).  The same arguments give
 *       the same games.
 *   korp-tune fit VARIANT FILE
 *       Texel's method: keeps the quiet positions (not in check, no
 *       capture or promotion that wins material by static exchange, both
 *       kings placed), fits the logistic scale K to the current weights,
 *       then moves one weight at a time while the mean squared error
 *       between the results and 1 / (1 + 10^(-K * eval / 400)) falls; prints
 *       the fitted weights as the lines of a C table (struct eval_weights
 *       fields) to put into engine/eval_VARIANT.c.
 */
#include "engine_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define OPENING_PLIES 6
#define FIRST_KEPT_PLY 8
#define MAX_PLIES 300
#define POSITIONS_MAX 400000

/* The game's score for White, or a negative number while it goes on. */
static double game_score(const struct rules_variant *v, const struct rules_position *pos,
                         const uint64_t *keys, int count)
{
    struct rules_report rep;
    int quarters[2];
    v->position_report(pos, &rep);
    if (rep.status != RULES_ONGOING && rules_result_quarters(rep.result, quarters))
        return quarters[RULES_WHITE] / 4.0;
    if (rep.fifty_move_claimable ||
        rules_repetition_count(keys, count, keys[count - 1], NULL, 0) >= 3)
        return 0.5;
    return -1;
}

static int play(const struct rules_variant *v, int games, uint64_t seed, uint64_t nodes)
{
    static struct rules_position seen[MAX_PLIES + 1];
    static uint64_t keys[MAX_PLIES + 1];
    struct engine *e = engine_new(16);
    uint64_t rng = engine_rng_seed(seed);
    if (e == NULL)
        return 2;
    for (int g = 0; g < games; g++) {
        struct rules_position pos;
        int plies = 0, key_start = 0;
        double score = -1;
        engine_clear(e);
        v->position_parse(&pos, v->start_text, NULL);
        keys[0] = v->repetition_key(&pos);
        while (plies < MAX_PLIES && (score = game_score(v, &pos, keys + key_start,
                                                        plies - key_start + 1)) < 0) {
            struct rules_move moves[RULES_MAX_MOVES], m;
            int n = v->moves_legal(&pos, moves);
            if (plies < OPENING_PLIES) {
                m = moves[engine_rng_next(&rng) % (uint64_t)n];
            } else {
                struct engine_limits lim = { .nodes = nodes };
                struct engine_result r;
                engine_stop_reset(e);
                if (engine_search(e, v, &pos, keys + key_start, plies - key_start + 1, &lim,
                                  NULL, NULL, &r) != 0 || !r.has_move)
                    break;
                m = r.best;
            }
            seen[plies] = pos;
            bool irreversible = v->move_is_irreversible(&pos, m);
            if (v->position_apply(&pos, m) != RULES_OK)
                return 2;   /* never: the rules refused the engine's move */
            plies++;
            if (irreversible)
                key_start = plies;
            keys[plies] = v->repetition_key(&pos);
        }
        if (score < 0)
            score = 0.5;    /* adjudicated: too long */
        for (int i = FIRST_KEPT_PLY; i < plies; i++) {
            char fen[RULES_TEXT_MAX];
            v->position_format(&seen[i], fen, sizeof fen);
            printf("%g %s\n", score, fen);
        }
        fprintf(stderr, "game %d: %d plies, %g\n", g + 1, plies, score);
    }
    engine_free(e);
    return 0;
}

/* ---- fitting ------------------------------------------------------------- */

struct sample {
    struct rules_position pos;
    float result;
};

static struct sample *samples;
static int sample_count;

static bool quiet(const struct rules_variant *v, const struct eval_weights *w,
                  const struct rules_position *pos)
{
    struct rules_move moves[RULES_MAX_MOVES];
    if (v->in_check(pos) || v->reserve_count(pos, RULES_WHITE, RULES_KING) > 0 ||
        v->reserve_count(pos, RULES_BLACK, RULES_KING) > 0)
        return false;
    int n = v->moves_noisy(pos, moves);
    for (int i = 0; i < n; i++)
        if ((moves[i].flags & RULES_MOVE_PROMOTION) || engine_see(v, w, pos, moves[i]) > 0)
            return false;
    return v->moves_legal(pos, moves) > 0;
}

static double error_of(const struct rules_variant *v, const struct eval_weights *w, double k)
{
    double sum = 0;
    for (int i = 0; i < sample_count; i++) {
        int e = eval_position(w, v, &samples[i].pos);
        if (v->side_to_move(&samples[i].pos) == RULES_BLACK)
            e = -e;
        double p = 1.0 / (1.0 + pow(10.0, -k * e / 400.0));
        sum += (samples[i].result - p) * (samples[i].result - p);
    }
    return sum / sample_count;
}

/* The weights the fit moves: name, where, the bounds. */
struct param {
    const char *name;
    int *at;
    int lo, hi, step;
};

static void print_array(const char *name, const int *a)
{
    printf("    .%s = { %d, %d, %d, %d, %d, %d },\n", name, a[0], a[1], a[2], a[3], a[4], a[5]);
}

static int fit(const struct rules_variant *v, const char *path)
{
    FILE *f = fopen(path, "r");
    char line[512];
    struct eval_weights w = *eval_weights_for(v);
    int read = 0;
    if (f == NULL) {
        perror(path);
        return 2;
    }
    samples = calloc(POSITIONS_MAX, sizeof *samples);
    if (samples == NULL)
        return 2;
    while (fgets(line, sizeof line, f) && sample_count < POSITIONS_MAX) {
        char *fen = strchr(line, ' ');
        if (fen == NULL)
            continue;
        *fen++ = '\0';
        fen[strcspn(fen, "\n")] = '\0';
        struct sample *s = &samples[sample_count];
        read++;
        if (v->position_parse(&s->pos, fen, NULL) != RULES_OK || !quiet(v, &w, &s->pos))
            continue;
        s->result = (float)atof(line);
        sample_count++;
    }
    fclose(f);
    if (sample_count == 0) {
        fprintf(stderr, "no quiet positions in %s\n", path);
        return 1;
    }

    /* The scale K: the one that fits the current weights best. */
    double k = 1.0, best = error_of(v, &w, k);
    for (double step = 0.5; step > 0.01; step /= 2)
        for (int dir = -1; dir <= 1; dir += 2)
            while (k + dir * step > 0.05) {
                double e = error_of(v, &w, k + dir * step);
                if (e >= best)
                    break;
                best = e;
                k += dir * step;
            }
    double start = best;
    fprintf(stderr, "%d positions read, %d quiet; K = %.3f, error %.6f\n", read, sample_count,
            k, best);

    struct param params[] = {
        { "value[N]", &w.value[RULES_KNIGHT], 150, 600, 10 },
        { "value[B]", &w.value[RULES_BISHOP], 150, 600, 10 },
        { "value[R]", &w.value[RULES_ROOK], 250, 900, 10 },
        { "value[Q]", &w.value[RULES_QUEEN], 500, 1500, 10 },
        { "reserve_value[P]", &w.reserve_value[RULES_PAWN], 40, 200, 10 },
        { "reserve_value[N]", &w.reserve_value[RULES_KNIGHT], 150, 600, 10 },
        { "reserve_value[B]", &w.reserve_value[RULES_BISHOP], 150, 600, 10 },
        { "reserve_value[R]", &w.reserve_value[RULES_ROOK], 250, 900, 10 },
        { "reserve_value[Q]", &w.reserve_value[RULES_QUEEN], 500, 1500, 10 },
        { "mobility[N]", &w.mobility[RULES_KNIGHT], 0, 12, 1 },
        { "mobility[B]", &w.mobility[RULES_BISHOP], 0, 12, 1 },
        { "mobility[R]", &w.mobility[RULES_ROOK], 0, 12, 1 },
        { "mobility[Q]", &w.mobility[RULES_QUEEN], 0, 12, 1 },
        { "king_attack[N]", &w.king_attack[RULES_KNIGHT], 0, 10, 1 },
        { "king_attack[B]", &w.king_attack[RULES_BISHOP], 0, 10, 1 },
        { "king_attack[R]", &w.king_attack[RULES_ROOK], 0, 10, 1 },
        { "king_attack[Q]", &w.king_attack[RULES_QUEEN], 0, 10, 1 },
        { "drop_danger[P]", &w.drop_danger[RULES_PAWN], 0, 10, 1 },
        { "drop_danger[N]", &w.drop_danger[RULES_KNIGHT], 0, 10, 1 },
        { "drop_danger[Q]", &w.drop_danger[RULES_QUEEN], 0, 10, 1 },
        { "shelter", &w.shelter, 0, 8, 1 },
        { "danger_scale", &w.danger_scale, 2, 40, 1 },
        { "tempo", &w.tempo, 0, 40, 2 },
    };
    int count = (int)(sizeof params / sizeof *params);
    bool drops = v->cells == 64;
    for (int pass = 1; pass <= 12; pass++) {
        bool moved = false;
        for (int p = 0; p < count; p++) {
            struct param *pr = &params[p];
            if (!drops && (strncmp(pr->name, "reserve", 7) == 0 ||
                           strncmp(pr->name, "drop", 4) == 0))
                continue;
            for (int dir = -1; dir <= 1; dir += 2) {
                int old = *pr->at, now = old + dir * pr->step;
                if (now < pr->lo || now > pr->hi)
                    continue;
                *pr->at = now;
                double e = error_of(v, &w, k);
                if (e < best) {
                    best = e;
                    moved = true;
                    break;
                }
                *pr->at = old;
            }
        }
        fprintf(stderr, "pass %d: error %.6f\n", pass, best);
        if (!moved)
            break;
    }

    printf("    /* Fitted by bench/tune.sh (Texel's method): %d quiet positions of %d,\n"
           "     * K = %.3f, mean squared error %.6f -> %.6f. */\n",
           sample_count, read, k, start, best);
    print_array("value", w.value);
    print_array("reserve_value", w.reserve_value);
    print_array("mobility", w.mobility);
    print_array("king_attack", w.king_attack);
    print_array("drop_danger", w.drop_danger);
    printf("    .shelter = %d,\n    .danger_scale = %d,\n    .tempo = %d,\n", w.shelter,
           w.danger_scale, w.tempo);
    free(samples);
    return 0;
}

int main(int argc, char **argv)
{
    rules_init();
    const struct rules_variant *v = argc > 2 ? rules_variant_find(argv[2]) : NULL;
    if (v != NULL && argc == 6 && strcmp(argv[1], "play") == 0)
        return play(v, atoi(argv[3]), strtoull(argv[4], NULL, 10), strtoull(argv[5], NULL, 10));
    if (v != NULL && argc == 4 && strcmp(argv[1], "fit") == 0)
        return fit(v, argv[3]);
    fprintf(stderr, "usage: korp-tune play VARIANT GAMES SEED NODES > positions\n"
                    "       korp-tune fit VARIANT POSITIONS > weights\n");
    return 2;
}
