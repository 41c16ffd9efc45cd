"""A second, independent Glicko-2 (Glickman, glicko.net/glicko/glicko2.pdf),
for the tests: the new volatility is found by plain bisection on the paper's
equation (korp's C code uses the paper's Illinois iteration), in Python's
floats, from the paper's formulas.  Never compare korp with itself."""
import math



def _g(phi):
    return 1 / math.sqrt(1 + 3 * phi * phi / math.pi ** 2)


def period(rating, rd, vol, games, tau=0.5):
    """One rating period; games is a list of (opp_rating, opp_rd, score).
    Returns (rating, rd, volatility)."""
    mu, phi = (rating - 1500) / 173.7178, rd / 173.7178
    if not games:
        return rating, math.sqrt(phi * phi + vol * vol) * 173.7178, vol
    terms = []
    for r_j, rd_j, s in games:
        g = _g(rd_j / 173.7178)
        e = 1 / (1 + math.exp(-g * (mu - (r_j - 1500) / 173.7178)))
        terms.append((g, e, s))
    v = 1 / sum(g * g * e * (1 - e) for g, e, _ in terms)
    delta = v * sum(g * (s - e) for g, e, s in terms)
    a = math.log(vol * vol)

    def f(x):
        ex = math.exp(x)
        return (ex * (delta ** 2 - phi ** 2 - v - ex) / (2 * (phi ** 2 + v + ex) ** 2)
                - (x - a) / tau ** 2)

    # f decreases in x and f(a) >= 0: widen to a bracket, then halve it.
    lo, hi, step = a, a + 1, 1.0
    while f(hi) > 0:
        lo, hi, step = hi, hi + 2 * step, 2 * step
    if f(a) < 0:
        hi, lo, step = a, a - 1, 1.0
        while f(lo) < 0:
            hi, lo, step = lo, lo - 2 * step, 2 * step
    for _ in range(200):
        mid = (lo + hi) / 2
        if f(mid) > 0:
            lo = mid
        else:
            hi = mid
    new_vol = math.exp((lo + hi) / 4)
    phi_star2 = phi * phi + new_vol * new_vol
    new_phi = 1 / math.sqrt(1 / phi_star2 + 1 / v)
    new_mu = mu + new_phi ** 2 * sum(g * (s - e) for g, e, s in terms)
    return new_mu * 173.7178 + 1500, new_phi * 173.7178, new_vol


def rd_after_idle(rd, vol, periods):
    """The RD grown over `periods` rating periods without a game, capped at 350."""
    if periods <= 0:
        return rd
    phi = rd / 173.7178
    return min(350 / 173.7178, math.sqrt(phi * phi + periods * vol * vol)) * 173.7178


if __name__ == "__main__":
    print("%.2f %.2f %.6f" % period(1500, 200, 0.06,
                                    [(1400, 30, 1), (1550, 100, 0), (1700, 300, 0)]))
