/*
 * glicko2.c — one Glicko-2 rating period, step by step as Glickman's paper
 * numbers them (steps 2 to 8), with the volatility found by the paper's
 * Illinois iteration (step 5).
 */
#include "ratings.h"

#include <math.h>

/* Ratings are converted to the Glicko-2 scale by this factor (400 / ln 10). */
#define GLICKO2_SCALE 173.7178
/* The volatility iteration stops when its bracket is narrower than this. */
#define VOLATILITY_EPSILON 0.000001
/* A bound on the iterations, far above what a sane input needs (~10). */
#define VOLATILITY_MAX_STEPS 200

static double g_of(double phi)
{
    return 1.0 / sqrt(1.0 + 3.0 * phi * phi / (M_PI * M_PI));
}

static double expected(double mu, double mu_j, double g_j)
{
    return 1.0 / (1.0 + exp(-g_j * (mu - mu_j)));
}

/* The function whose zero is ln(σ'²) (step 5.1). */
static double volatility_f(double x, double delta2, double phi2, double v, double a,
                           double tau)
{
    double ex = exp(x);
    double den = phi2 + v + ex;
    return ex * (delta2 - phi2 - v - ex) / (2.0 * den * den) - (x - a) / (tau * tau);
}

static double new_volatility(double sigma, double delta, double phi, double v, double tau)
{
    double delta2 = delta * delta, phi2 = phi * phi;
    double a = log(sigma * sigma);
    double A = a, B;
    if (delta2 > phi2 + v) {
        B = log(delta2 - phi2 - v);
    } else {
        int k = 1;
        while (k < VOLATILITY_MAX_STEPS &&
               volatility_f(a - k * tau, delta2, phi2, v, a, tau) < 0)
            k++;
        B = a - k * tau;
    }
    double fA = volatility_f(A, delta2, phi2, v, a, tau);
    double fB = volatility_f(B, delta2, phi2, v, a, tau);
    for (int step = 0; step < VOLATILITY_MAX_STEPS && fabs(B - A) > VOLATILITY_EPSILON;
         step++) {
        double C = A + (A - B) * fA / (fB - fA);
        double fC = volatility_f(C, delta2, phi2, v, a, tau);
        if (fC * fB <= 0) {
            A = B;
            fA = fB;
        } else {
            fA /= 2.0;
        }
        B = C;
        fB = fC;
    }
    return exp(A / 2.0);
}

static bool valid(const struct ratings_glicko *p, const struct ratings_game *games,
                  int count, double tau)
{
    if (!isfinite(p->rating) || !(p->rd > 0) || !isfinite(p->rd) ||
        !(p->volatility > 0) || !isfinite(p->volatility) || !(tau > 0) || !isfinite(tau) ||
        count < 0 || (count > 0 && games == 0))
        return false;
    for (int i = 0; i < count; i++)
        if (!isfinite(games[i].rating) || !(games[i].rd > 0) || !isfinite(games[i].rd) ||
            !(games[i].score >= 0 && games[i].score <= 1))
            return false;
    return true;
}

bool ratings_glicko2_period(const struct ratings_glicko *player,
                            const struct ratings_game *games, int count, double tau,
                            struct ratings_glicko *after)
{
    if (!valid(player, games, count, tau))
        return false;
    double mu = (player->rating - RATINGS_START_RATING) / GLICKO2_SCALE;
    double phi = player->rd / GLICKO2_SCALE;
    double sigma = player->volatility;

    if (count == 0) {
        after->rating = player->rating;
        after->rd = sqrt(phi * phi + sigma * sigma) * GLICKO2_SCALE;
        after->volatility = sigma;
        return true;
    }
    /* Steps 3 and 4: the estimated variance v and the improvement delta. */
    double v_inverse = 0, improvement = 0;
    for (int i = 0; i < count; i++) {
        double mu_j = (games[i].rating - RATINGS_START_RATING) / GLICKO2_SCALE;
        double g_j = g_of(games[i].rd / GLICKO2_SCALE);
        double e = expected(mu, mu_j, g_j);
        v_inverse += g_j * g_j * e * (1.0 - e);
        improvement += g_j * (games[i].score - e);
    }
    double v = 1.0 / v_inverse;
    double delta = v * improvement;
    /* Steps 5 to 7. */
    double sigma_new = new_volatility(sigma, delta, phi, v, tau);
    double phi_star = sqrt(phi * phi + sigma_new * sigma_new);
    double phi_new = 1.0 / sqrt(1.0 / (phi_star * phi_star) + 1.0 / v);
    double mu_new = mu + phi_new * phi_new * improvement;
    /* Step 8. */
    after->rating = mu_new * GLICKO2_SCALE + RATINGS_START_RATING;
    after->rd = phi_new * GLICKO2_SCALE;
    after->volatility = sigma_new;
    return true;
}

double ratings_rd_after_idle(double rd, double volatility, double periods)
{
    if (!(periods > 0))
        return rd;
    double phi = rd / GLICKO2_SCALE;
    double grown = sqrt(phi * phi + periods * volatility * volatility) * GLICKO2_SCALE;
    return grown < RATINGS_START_RD ? grown : RATINGS_START_RD;
}
