/*
 * ratings.h — Glickman's Glicko-2 rating system (glicko.net/glicko/glicko2.pdf),
 * pure C over libm: one rating period of a player against any number of
 * opponents, and the growth of a rating deviation with time.  Used by the
 * server (games_ratings.c) and by `korp glicko2`.
 */
#ifndef KORP_RATINGS_H
#define KORP_RATINGS_H

#include <stdbool.h>

/* The starting values of every player, and the system constant τ. */
#define RATINGS_START_RATING 1500.0
#define RATINGS_START_RD 350.0
#define RATINGS_START_VOLATILITY 0.06
#define RATINGS_DEFAULT_TAU 0.5
/* A rating is provisional while its deviation is above this. */
#define RATINGS_PROVISIONAL_RD 110.0

/* A player's rating on the Glicko scale: rating, deviation (RD), volatility. */
struct ratings_glicko {
    double rating;
    double rd;
    double volatility;
};

/* One game of the period: the opponent's rating and RD before it, and the
 * player's score (1 a win, 0.5 a draw, 0 a loss; any value from 0 to 1). */
struct ratings_game {
    double rating;
    double rd;
    double score;
};

/*
 * Computes the player's rating after one rating period in which they played
 * `count` games (count 0: only the deviation grows, by the volatility).
 * tau is the system constant (0.3 to 1.2 in the paper; any value > 0 works).
 * Writes the new values to *after (which may be player) and returns true;
 * false when an input is out of range (rd or volatility not > 0, a score
 * outside 0..1, tau not > 0, a value not finite), leaving *after alone.
 */
bool ratings_glicko2_period(const struct ratings_glicko *player,
                            const struct ratings_game *games, int count, double tau,
                            struct ratings_glicko *after);

/*
 * The deviation of a player who has not played for `periods` rating periods
 * (a fraction allowed): sqrt(RD² + periods·σ²) on the Glicko-2 scale, never
 * more than RATINGS_START_RD.  periods ≤ 0 leaves rd as it is.
 */
double ratings_rd_after_idle(double rd, double volatility, double periods);

#endif
