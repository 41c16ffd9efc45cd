/*
 * test_engine_rules.c — the rules library's helpers for search (rules.h,
 * "For search", second part) against the checked functions they stand in
 * for, on the perft positions and on every position of seeded random games
 * of both variants (captures preferred, so that promotions, en passant and
 * endings come up):
 *   - moves_noisy gives exactly the captures and promotions of moves_legal,
 *     in the same order;
 *   - key_after gives repetition_key of the position after every move;
 *   - move_is_legal_fast agrees with move_is_legal on every legal move, on
 *     moves of other positions and on altered moves (flags, piece, cells);
 *   - view agrees with man_at, attacks_from and reserve_count;
 *   - attackers_to with no man taken away is every man whose attacks_from
 *     holds the cell; with one of them taken away, the others remain.
 * usage: test_engine_rules korpalski|glinski PERFT.epd
 */
#include "rules.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GAMES 40
#define PLIES 160
#define POOL 256

static int failures;
static long checks;

#define CHECK(cond, ...)                                                     \
    do {                                                                     \
        checks++;                                                            \
        if (!(cond)) {                                                       \
            if (failures++ < 20) {                                           \
                fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);          \
                fprintf(stderr, __VA_ARGS__);                                \
                fputc('\n', stderr);                                         \
            }                                                                \
        }                                                                    \
    } while (0)

static uint64_t rng_next(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static bool noisy(struct rules_move m)
{
    return (m.flags & (RULES_MOVE_CAPTURE | RULES_MOVE_PROMOTION)) != 0;
}

static bool has_cell(struct rules_cells c, int cell)
{
    return (c.w[cell >> 6] >> (cell & 63)) & 1;
}

static bool cells_eq(struct rules_cells a, struct rules_cells b)
{
    return a.w[0] == b.w[0] && a.w[1] == b.w[1];
}

static struct rules_move pool[POOL];
static int pool_n;

static void check_position(const struct rules_variant *v, const struct rules_position *pos,
                           const char *fen, uint64_t *rng)
{
    static struct rules_move all[RULES_MAX_MOVES], part[RULES_MAX_MOVES];
    int n = v->moves_legal(pos, all);
    int k = v->moves_noisy(pos, part);
    uint64_t key = v->repetition_key(pos);

    /* The noisy moves: the full list filtered, order kept. */
    int j = 0;
    for (int i = 0; i < n; i++) {
        if (!noisy(all[i]))
            continue;
        CHECK(j < k && rules_move_equal(all[i], part[j]), "%s: noisy move %d differs", fen, j);
        j++;
    }
    CHECK(j == k, "%s: %d noisy moves, the full list has %d", fen, k, j);

    /* Keys after each move, and each legal move legal for the fast test. */
    for (int i = 0; i < n; i++) {
        struct rules_position next = *pos;
        v->move_play(&next, all[i]);
        CHECK(v->key_after(pos, key, all[i], &next) == v->repetition_key(&next),
              "%s: key after move %d", fen, i);
        CHECK(v->move_is_legal_fast(pos, all[i]), "%s: legal move %d refused", fen, i);
    }

    /* Foreign and altered moves: the fast test agrees with the checked one. */
    for (int i = 0; i < 48 && pool_n > 0; i++) {
        struct rules_move m = pool[rng_next(rng) % (uint64_t)pool_n];
        switch (rng_next(rng) % 6) {
        case 0: m.flags ^= (uint8_t)(1u << (rng_next(rng) % 5)); break;
        case 1: m.piece = (uint8_t)(rng_next(rng) % 8); break;
        case 2: m.to = (uint8_t)(rng_next(rng) % 130); break;
        case 3: m.from = (uint8_t)(rng_next(rng) % 130); break;
        default: break;
        }
        CHECK(v->move_is_legal_fast(pos, m) == v->move_is_legal(pos, m),
              "%s: move %d-%d piece %d flags %d: fast %d, checked %d", fen, m.from, m.to,
              m.piece, m.flags, v->move_is_legal_fast(pos, m), v->move_is_legal(pos, m));
    }
    for (int i = 0; i < n && i < 8; i++)
        pool[(pool_n < POOL ? pool_n++ : (int)(rng_next(rng) % POOL))] =
            all[rng_next(rng) % (uint64_t)n];

    /* The view against the one-cell functions. */
    static struct rules_view view;
    struct rules_cells occ = { { 0, 0 } };
    v->view(pos, &view);
    CHECK(view.side == (uint8_t)v->side_to_move(pos), "%s: view side", fen);
    for (int c = 0; c < 2; c++)
        for (int t = 0; t < RULES_PIECE_TYPES; t++)
            CHECK(view.reserve[c][t] ==
                      v->reserve_count(pos, (enum rules_color)c, (enum rules_piece)t),
                  "%s: view reserve %d %d", fen, c, t);
    for (int cell = 0; cell < v->cells; cell++) {
        int man = v->man_at(pos, cell);
        CHECK(view.man[cell] == man, "%s: view man at %d", fen, cell);
        if (man == RULES_NO_MAN)
            continue;
        occ.w[cell >> 6] |= 1ULL << (cell & 63);
        CHECK(has_cell(view.occupied[RULES_MAN_COLOR(man)], cell), "%s: occupied %d", fen, cell);
        CHECK(cells_eq(view.attacks[cell], v->attacks_from(pos, cell)), "%s: attacks %d", fen,
              cell);
        if (RULES_MAN_TYPE(man) == RULES_KING)
            CHECK(view.king[RULES_MAN_COLOR(man)] == cell, "%s: king %d", fen, cell);
    }
    CHECK(cells_eq(occ, (struct rules_cells){ { view.occupied[0].w[0] | view.occupied[1].w[0],
                                                view.occupied[0].w[1] |
                                                    view.occupied[1].w[1] } }),
          "%s: occupancy", fen);

    /* Attackers: with every man on the board, exactly the men whose attack
     * sets hold the cell. */
    for (int cell = 0; cell < v->cells; cell++) {
        struct rules_cells want = { { 0, 0 } };
        for (int from = 0; from < v->cells; from++)
            if (v->man_at(pos, from) != RULES_NO_MAN && has_cell(v->attacks_from(pos, from), cell))
                want.w[from >> 6] |= 1ULL << (from & 63);
        struct rules_cells none = { { 0, 0 } };
        struct rules_cells got = v->attackers_to(pos, cell, none);
        CHECK(cells_eq(got, want), "%s: attackers of %d", fen, cell);
        /* Take one attacker away: it is gone, and none of the others is. */
        if (want.w[0] | want.w[1]) {
            int gone = want.w[0] ? __builtin_ctzll(want.w[0]) : 64 + __builtin_ctzll(want.w[1]);
            struct rules_cells removed = { { 0, 0 } };
            removed.w[gone >> 6] |= 1ULL << (gone & 63);
            struct rules_cells after = v->attackers_to(pos, cell, removed);
            CHECK(!has_cell(after, gone), "%s: removed attacker of %d still there", fen, cell);
            CHECK((want.w[0] & ~after.w[0] & ~(gone < 64 ? 1ULL << gone : 0)) == 0 &&
                      (want.w[1] & ~after.w[1] & ~(gone >= 64 ? 1ULL << (gone - 64) : 0)) == 0,
                  "%s: an attacker of %d lost with another removed", fen, cell);
        }
    }
}

static void random_games(const struct rules_variant *v, uint64_t seed, int *positions)
{
    uint64_t rng = seed;
    for (int g = 0; g < GAMES; g++) {
        struct rules_position pos;
        char fen[RULES_TEXT_MAX];
        if (v->position_parse(&pos, v->start_text, NULL) != RULES_OK) {
            CHECK(false, "start position");
            return;
        }
        for (int ply = 0; ply < PLIES; ply++) {
            static struct rules_move moves[RULES_MAX_MOVES];
            v->position_format(&pos, fen, sizeof fen);
            check_position(v, &pos, fen, &rng);
            (*positions)++;
            int n = v->moves_legal(&pos, moves);
            if (n == 0)
                break;
            int caps[RULES_MAX_MOVES], nc = 0;
            for (int i = 0; i < n; i++)
                if (noisy(moves[i]))
                    caps[nc++] = i;
            int pick = nc > 0 && rng_next(&rng) % 3 != 0 ? caps[rng_next(&rng) % (uint64_t)nc]
                                                          : (int)(rng_next(&rng) % (uint64_t)n);
            CHECK(v->position_apply(&pos, moves[pick]) == RULES_OK, "apply");
        }
    }
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: test_engine_rules VARIANT PERFT.epd\n");
        return 2;
    }
    rules_init();
    const struct rules_variant *v = rules_variant_find(argv[1]);
    FILE *f = fopen(argv[2], "r");
    if (v == NULL || f == NULL) {
        fprintf(stderr, "unknown variant or unreadable %s\n", argv[2]);
        return 2;
    }
    char line[1024];
    int positions = 0;
    uint64_t rng = 0x9E3779B97F4A7C15ULL;
    while (fgets(line, sizeof line, f)) {
        char *semi = strchr(line, ';');
        if (line[0] == '#' || semi == NULL)
            continue;
        *semi = '\0';
        struct rules_position pos;
        CHECK(v->position_parse(&pos, line, NULL) == RULES_OK, "parse %s", line);
        check_position(v, &pos, line, &rng);
        positions++;
        /* Every position one move on, too. */
        static struct rules_move moves[RULES_MAX_MOVES];
        int n = v->moves_legal(&pos, moves);
        for (int i = 0; i < n; i += 7) {
            struct rules_position next = pos;
            char fen[RULES_TEXT_MAX];
            v->move_play(&next, moves[i]);
            v->position_format(&next, fen, sizeof fen);
            check_position(v, &next, fen, &rng);
            positions++;
        }
    }
    fclose(f);
    random_games(v, 0x2545F4914F6CDD1DULL, &positions);
    printf("%s: %d positions, %ld checks, %d failures\n", v->name, positions, checks, failures);
    return failures ? 1 : 0;
}
