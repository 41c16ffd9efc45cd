"""`korp glicko2`: the paper's example, and seeded random rating
periods against the independent Python implementation in glicko2_ref.py."""
import os
import random
import subprocess

import glicko2_ref

KORP = os.environ.get("KORP", "korp")


def korp(*args):
    return subprocess.run([KORP, "glicko2", *map(str, args)], capture_output=True,
                          text=True, timeout=30)


def test_paper_example_prints_unrounded_values():
    r = korp(1500, 200, 0.06, "1400:30:1", "1550:100:0", "1700:300:0")
    assert r.returncode == 0, r.stderr
    assert r.stdout == "1464.05 151.52 0.059996\n"
    r = korp("--tau", "0.5", 1500, 200, 0.06, "1400:30:1", "1550:100:0", "1700:300:0")
    assert r.stdout == "1464.05 151.52 0.059996\n"


def test_random_periods_match_reference():
    rng = random.Random(19)
    for _ in range(60):
        me = (rng.uniform(1000, 2400), rng.uniform(30, 350), rng.uniform(0.04, 0.1))
        tau = rng.choice([0.3, 0.5, 0.8, 1.2])
        games = [(round(rng.uniform(1000, 2400), 1), round(rng.uniform(30, 350), 1),
                  rng.choice([0, 0.25, 0.5, 0.75, 1])) for _ in range(rng.randint(0, 6))]
        me = tuple(round(x, 4) for x in me)
        r = korp("--tau", tau, *me, *("%s:%s:%s" % g for g in games))
        assert r.returncode == 0, r.stderr
        got = [float(x) for x in r.stdout.split()]
        want = glicko2_ref.period(*me, games, tau)
        assert abs(got[0] - want[0]) <= 0.0051, (me, games, tau, got, want)
        assert abs(got[1] - want[1]) <= 0.0051, (me, games, tau, got, want)
        assert abs(got[2] - want[2]) <= 0.0000051, (me, games, tau, got, want)


def test_bad_arguments_exit_2():
    for args in [(), (1500, 200), (1500, 200, "x"), (1500, 200, 0.06, "1400:30"),
                 (1500, 200, 0.06, "1400:30:2"), (1500, 0, 0.06, "1400:30:1"),
                 ("--tau", 0, 1500, 200, 0.06), ("--tau",)]:
        r = korp(*args)
        assert r.returncode == 2, args
        assert "glicko2" in r.stderr
