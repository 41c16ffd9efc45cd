"""The example bot's engine mode (examples/random-bot --engine) against a real korpd: it
accepts a challenge in each variant from a player whose moves the random mode makes,
and wins both games outright (checkmate, or the random side's resignation at its move
cap), every move of each record checked by `korp replay`.  Also: the level a bot plays
at comes from --level or from its account's name ("...-3" plays level 3)."""

import uuid

from korp_client import Api
from korp_fixtures import wait_until
from test_random_bot import check_game, challenge, games_of, start_bot  # noqa: F401 (a fixture)

RANDOM_CAP = 300


def named_player(api, suffix):
    """A player whose name ends with suffix ("-3": level 3), unique in the database."""
    name = f"e{uuid.uuid4().hex[:10]}{suffix}"
    _, body = api.call("POST", "/v1/players", json={"name": name}, expect=201)
    return api.as_(body["token"]), body


def test_engine_bot_beats_the_random_bot_in_both_variants(korpd, korp_binary, start_bot):
    api = Api(korpd.base)
    ea, e = named_player(api, "-engine-3")
    ra, r = api.new_player("rnd")

    engine = start_bot(korpd.base, ea.token, "--engine", "--games", "2", seed=2301)
    rand = start_bot(korpd.base, ra.token, "--max-plies", str(RANDOM_CAP), "--games", "2",
                     seed=2302)
    wait_until(lambda: "stream: open" in engine.text() and "stream: open" in rand.text(), 20,
               what="the bots' streams")
    # The random side challenges; the engine plays White in one game, Black in the other.
    # One game at a time, so that each is the same at every run.
    ids = []

    def ended(n):
        games = games_of(api, e["id"])
        return len(games) == n and all(g["status"] != "active" for g in games)

    for variant, color in (("korpalski", "black"), ("glinski", "white")):
        ids.append(challenge(ra, e["id"], variant, color))
        wait_until(lambda: ended(len(ids)), 120, step=0.1, what=f"the {variant} game to end")

    assert engine.wait(240) == 0, engine.text()
    assert rand.wait(60) == 0, rand.text()

    log = engine.text()
    assert "engine mode, level 3: depth 3" in log, log
    for cid in ids:
        assert f"accept challenge {cid}: game" in log, log
    games = games_of(api, e["id"])
    assert sorted((g["variant"], g["white"]["id"] == e["id"]) for g in games) == [
        ("glinski", False), ("korpalski", True)]
    for g in games:
        term = check_game(api, korp_binary, g["id"], RANDOM_CAP)
        engine_white = g["white"]["id"] == e["id"]
        assert g["result"] == ("1-0" if engine_white else "0-1"), (g["result"], term, g)
        assert term in ("checkmate", "resignation"), (term, g)
        # Every move of the engine's side was the engine's choice, none a random fallback.
        mine = 0 if engine_white else 1
        ours = [m for i, m in enumerate(g["moves"]) if i % 2 == mine]
        searched = [line for line in log.splitlines() if f"engine {g['id']} ply " in line]
        assert len(searched) == len(ours), (len(searched), len(ours))
    assert "not among korpd's legal moves" not in log, log


def test_level_from_option_and_name(korpd, start_bot):
    api = Api(korpd.base)
    a, _ = named_player(api, "-engine-9")
    b, _ = named_player(api, "-engine")
    by_name = start_bot(korpd.base, a.token, "--engine", seed=2303)
    by_option = start_bot(korpd.base, a.token, "--engine", "--level", "2", seed=2304)
    default = start_bot(korpd.base, b.token, "--engine", seed=2305)
    wait_until(lambda: "engine mode" in by_name.text() and "engine mode" in by_option.text()
               and "engine mode" in default.text(), 20, what="the bots to log in")
    assert "engine mode, level 9: time per move 4000 ms" in by_name.text()
    assert "engine mode, level 2: depth 2" in by_option.text()
    assert "engine mode, level 7: time per move 1000 ms" in default.text()
