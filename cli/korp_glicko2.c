/*
 * korp_glicko2.c — `korp glicko2 [--tau T] R RD VOL OPP_R:OPP_RD:SCORE...`:
 * one Glicko-2 rating period, computed by the same code as the server's.
 * Prints "rating rd volatility" (2, 2 and 6 decimals).
 */
#include "korp_int.h"

#include "ratings.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Reads one number that must fill the whole text (up to `stop`, if given). */
static bool read_number(const char *text, char stop, const char **next, double *out)
{
    char *end = NULL;
    if (*text == '\0' || *text == stop)
        return false;
    *out = strtod(text, &end);
    if (end == text || !isfinite(*out) || *end != stop)
        return false;
    if (next)
        *next = end + (stop ? 1 : 0);
    return true;
}

static bool read_game(const char *text, struct ratings_game *game)
{
    const char *p = text;
    return read_number(p, ':', &p, &game->rating) && read_number(p, ':', &p, &game->rd) &&
           read_number(p, '\0', NULL, &game->score);
}

static int bad(const char *what, const char *arg)
{
    fprintf(stderr, "korp: glicko2: %s%s%s\n"
                    "usage: korp glicko2 [--tau T] R RD VOL OPP_R:OPP_RD:SCORE...\n",
            what, arg ? ": " : "", arg ? arg : "");
    return 2;
}

int korp_glicko2(const struct korp_args *args)
{
    double tau = RATINGS_DEFAULT_TAU;
    struct ratings_glicko player, after;
    struct ratings_game *games = NULL;
    double *own[3] = { &player.rating, &player.rd, &player.volatility };
    int own_count = 0, count = 0, rc = 2;

    games = calloc((size_t)args->raw_count + 1, sizeof *games);
    if (games == NULL) {
        fprintf(stderr, "korp: out of memory\n");
        return 2;
    }
    for (int i = 0; i < args->raw_count; i++) {
        const char *a = args->raw[i];
        if (strcmp(a, "--tau") == 0 || strncmp(a, "--tau=", 6) == 0) {
            const char *t = a[5] == '=' ? a + 6 : (i + 1 < args->raw_count ? args->raw[++i]
                                                                          : NULL);
            if (t == NULL || !read_number(t, '\0', NULL, &tau) || !(tau > 0)) {
                rc = bad("--tau needs a number above 0", t);
                goto done;
            }
        } else if (strcmp(a, "--help") == 0) {
            printf("usage: korp glicko2 [--tau T] R RD VOL OPP_R:OPP_RD:SCORE...\n");
            rc = 0;
            goto done;
        } else if (own_count < 3) {
            if (!read_number(a, '\0', NULL, own[own_count])) {
                rc = bad("R, RD and VOL must be numbers", a);
                goto done;
            }
            own_count++;
        } else if (!read_game(a, &games[count++])) {
            rc = bad("an opponent is OPP_R:OPP_RD:SCORE", a);
            goto done;
        }
    }
    if (own_count < 3) {
        rc = bad("missing R, RD or VOL", NULL);
        goto done;
    }
    if (!ratings_glicko2_period(&player, games, count, tau, &after)) {
        rc = bad("out of range (RD, VOL and every OPP_RD above 0, SCORE from 0 to 1)", NULL);
        goto done;
    }
    printf("%.2f %.2f %.6f\n", after.rating, after.rd, after.volatility);
    rc = 0;
done:
    free(games);
    return rc;
}
