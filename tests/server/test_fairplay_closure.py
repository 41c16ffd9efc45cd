"""The arbiter's sanction and its record: closing a player's account for rated play (their
active rated games ended by forfeit or adjudication as the arbiter chooses, their open rated
challenges cancelled, their rated tournaments left, unrated play and the opponents' earlier
ratings untouched), and dismissals written to the arbiters' log with who and why.  The
expected states come from the contract in docs/api.md ("Fair play"), not from korpd's
answers: a forfeit is the closed player's loss, unrated; an adjudication their loss, rated."""

import os
import random

import pytest

from korp_client import Api
from test_fairplay import arbiter_api, psql


def close(api, player, body, expect=201):
    """POST /v1/arbiter/closures for player (an Api or an id) with body."""
    pid = getattr(player, "player_id", player)
    return api.call("POST", "/v1/arbiter/closures", json={"player_id": pid, **body},
                    expect=expect)[1]


@pytest.fixture
def world(korpd_binary, own_postgres, start_korpd):
    k = start_korpd(own_postgres.url, KORP_FAIRPLAY_WORKERS=0)
    api = Api(k.base)
    players = {}
    for name in ("cheat", "first", "second", "third"):
        a, body = api.new_player(name)
        a.player_id = body["id"]
        players[name] = a
    return dict(url=own_postgres.url, api=api, arbiter=arbiter_api(korpd_binary,
                own_postgres.url, k.base), rng=random.Random(3411), **players)


def challenge(world, challenger, opponent, accept=True, **extra):
    _, ch = challenger.call("POST", "/v1/challenges",
                            json={"variant": "korpalski", "opponent": opponent.player_id,
                                  "color": "white", **extra})
    if not accept:
        return ch
    _, accepted = opponent.call("POST", "/v1/challenges/{id}/accept", [ch["id"]])
    return accepted["game"]


def some_moves(world, game, plies):
    api = world["api"]
    for _ in range(plies):
        g = api.game(game["id"])
        _, legal = api.call("GET", "/v1/games/{id}/legal-moves", [game["id"]], expect=200)
        white = g["to_move"] == "white"
        who = g["white"]["id"] if white else g["black"]["id"]
        mover = next(world[n] for n in ("cheat", "first", "second", "third")
                     if world[n].player_id == who)
        mover.move(game["id"], world["rng"].choice(legal["moves"])["uci"])


def ratings(world, who):
    return world["api"].call("GET", "/v1/players/{id}", [who.player_id], expect=200)[1]["ratings"]


def review_item(world, player, game_id):
    item = f"Fp{os.urandom(4).hex()}"
    psql(world["url"], "INSERT INTO arbiter_queue (id, kind, game_id, player_id, details,"
         f" created_at) VALUES ('{item}', 'fairplay-review', '{game_id}',"
         f" '{player.player_id}', '{{\"variant\": \"korpalski\"}}', now())")
    return item


def test_closing_an_account_for_rated_play(world):
    api, arbiter = world["api"], world["arbiter"]
    cheat, first, second, third = (world[n] for n in ("cheat", "first", "second", "third"))

    # A rated game finished before the closure: first lost it to cheat; that rating change
    # stays (opponents' ratings are not recomputed).
    done = challenge(world, cheat, first)
    first.call("POST", "/v1/games/{id}/resign", [done["id"]], expect=200)

    rated_white = challenge(world, cheat, first)             # cheat White
    some_moves(world, rated_white, 3)
    rated_black = challenge(world, second, cheat)             # cheat Black
    unrated = challenge(world, cheat, first, rated=False)
    others = challenge(world, first, second)                  # not cheat's
    made = challenge(world, cheat, second, accept=False)
    received = challenge(world, first, cheat, accept=False)
    made_unrated = challenge(world, cheat, third, accept=False, rated=False)
    others_open = challenge(world, second, third, accept=False)

    def tournament(rated, start):
        _, t = first.call("POST", "/v1/tournaments",
                          json={"name": "closure", "variant": "korpalski", "max_players": 4,
                                "rated": rated})
        for who in (cheat, first, second):
            who.call("POST", "/v1/tournaments/{id}/join", [t["id"]], expect=200)
        if start:
            first.call("POST", "/v1/tournaments/{id}/start", [t["id"]], expect=200)
        return api.call("GET", "/v1/tournaments/{id}", [t["id"]], expect=200)[1]

    t_open, t_unrated, t_active = tournament(True, False), tournament(False, False), \
        tournament(True, True)
    t_games = [g for g in t_active["games"] if cheat.player_id in (g["white"], g["black"])]
    assert len(t_games) == 2, t_active

    before = {who.player_id: ratings(world, who) for who in (first, second)}
    item = review_item(world, cheat, done["id"])
    body = {"reason": "top1 0.98 over 25 games", "message": "Closed for rated play.",
            "item_id": item}

    # Checked before anything is done.
    close(cheat, first, body, expect=403)
    close(arbiter, cheat, {"reason": "no message"}, expect=400)
    close(arbiter, cheat, {**body, "games": "resign"}, expect=400)
    close(arbiter, "nosuchplayer", body, expect=404)
    close(arbiter, cheat, {**body, "item_id": "nosuchitem"}, expect=404)
    assert api.game(rated_white["id"])["status"] == "active"

    closed = close(arbiter, cheat, body)
    assert closed["player_id"] == cheat.player_id and closed["status"] == "closed", closed
    assert closed["ended_by"] == "forfeit" and closed["log_id"], closed
    ended = {rated_white["id"], rated_black["id"]} | {g["id"] for g in t_games}
    assert set(closed["games"]) == ended, closed
    assert set(closed["challenges"]) == {made["id"], received["id"]}, closed
    assert set(closed["tournaments"]) == {t_open["id"], t_active["id"]}, closed

    # Every active rated game: cheat's loss by forfeit, unrated.
    for gid in ended:
        g = api.game(gid)
        cheat_white = g["white"]["id"] == cheat.player_id
        assert g["status"] == "finished" and g["termination"] == "forfeit", g
        assert g["result"] == ("0-1" if cheat_white else "1-0") and g["rated"] is False, g
    # Unrated play, and what is not cheat's, go on.
    for gid in (unrated["id"], others["id"]):
        assert api.game(gid)["status"] == "active"
    for ch, want, reader in ((made, "cancelled", cheat), (received, "cancelled", cheat),
                             (made_unrated, "open", cheat), (others_open, "open", second)):
        _, now = reader.call("GET", "/v1/challenges/{id}", [ch["id"]], expect=200)
        assert now["status"] == want, (ch, now)
    # Tournaments: off the open rated one's list, withdrawn from the one under way, still
    # in the unrated one.

    def entry(t):
        t = api.call("GET", "/v1/tournaments/{id}", [t["id"]], expect=200)[1]
        return [p for p in t["players"] if p["id"] == cheat.player_id]
    assert entry(t_open) == []
    assert [p["withdrawn"] for p in entry(t_active)] == [True]
    assert [p["withdrawn"] for p in entry(t_unrated)] == [False]
    # Forfeits change no rating, and the earlier rated game is not recomputed.
    assert {who.player_id: ratings(world, who) for who in (first, second)} == before

    # The item is resolved; the log and the player say it.
    _, queue = arbiter.call("GET", "/v1/arbiter/queue", expect=200)
    assert item not in [i["id"] for i in queue["items"]], queue
    _, me = arbiter.call("GET", "/v1/players/me", expect=200)
    _, log = arbiter.call("GET", "/v1/arbiter/log", query={"player": cheat.player_id},
                          expect=200)
    entry = log["entries"][0]
    assert entry["id"] == closed["log_id"] and entry["action"] == "close", log
    assert entry["arbiter"]["id"] == me["id"] and entry["player"]["id"] == cheat.player_id
    assert (entry["item_id"], entry["reason"], entry["message"]) == \
        (item, body["reason"], body["message"]), entry
    assert set(entry["details"]["games"]) == ended and entry["details"]["ended_by"] == "forfeit"
    _, mine = cheat.call("GET", "/v1/players/me/warnings", expect=200)
    assert [(w["action"], w["message"]) for w in mine["warnings"]] == \
        [("close", body["message"])], mine

    # Once is enough.
    again = close(arbiter, cheat, {"reason": "again", "message": "again"}, expect=409)
    assert again["type"] == "/problems/conflict", again
    assert psql(world["url"], "SELECT rated_closed_at IS NOT NULL FROM players"
                f" WHERE id = '{cheat.player_id}'").strip() == "t"

    # Reopened (after an appeal): logged, shown to the player, what was ended stays ended.
    reopen = "/v1/arbiter/reopenings"
    appeal = {"player_id": cheat.player_id, "reason": "appeal upheld", "message": "Open again."}
    cheat.call("POST", reopen, json=appeal, expect=403)
    arbiter.call("POST", reopen, json={"player_id": cheat.player_id}, expect=400)
    arbiter.call("POST", reopen, json={**appeal, "player_id": "nosuchplayer"}, expect=404)
    arbiter.call("POST", reopen, json={**appeal, "player_id": first.player_id}, expect=409)
    _, opened = arbiter.call("POST", reopen, json=appeal, expect=201)
    assert (opened["player_id"], opened["status"]) == (cheat.player_id, "open"), opened
    arbiter.call("POST", reopen, json=appeal, expect=409)
    assert psql(world["url"], "SELECT rated_closed_at IS NULL FROM players"
                f" WHERE id = '{cheat.player_id}'").strip() == "t"
    _, log = arbiter.call("GET", "/v1/arbiter/log", query={"player": cheat.player_id},
                          expect=200)
    assert [(x["id"], x["action"], x["reason"]) for x in log["entries"][:2]] == \
        [(opened["log_id"], "reopen", "appeal upheld"), (closed["log_id"], "close", body["reason"])]
    _, mine = cheat.call("GET", "/v1/players/me/warnings", expect=200)
    assert [(w["action"], w["message"]) for w in mine["warnings"]] == \
        [("reopen", "Open again."), ("close", body["message"])], mine
    assert api.game(rated_white["id"])["status"] == "finished"
    # Without a message the player is shown nothing; closed again, reopened again.
    close(arbiter, cheat, {"reason": "again", "message": "Closed again."})
    arbiter.call("POST", reopen, json={"player_id": cheat.player_id, "reason": "quietly"},
                 expect=201)
    _, mine = cheat.call("GET", "/v1/players/me/warnings", expect=200)
    assert [w["action"] for w in mine["warnings"]] == ["close", "reopen", "close"], mine


def test_a_closure_may_adjudicate_the_games_instead(world):
    """Adjudicated, the games are the closed player's rated losses: the opponent's rating
    changes as for any adjudicated game, with the closure's reason."""
    api, arbiter = world["api"], world["arbiter"]
    cheat, first = world["cheat"], world["first"]
    game = challenge(world, first, cheat)                     # cheat Black
    some_moves(world, game, 2)
    before = ratings(world, first)
    body = {"reason": "engine use proven", "message": "Closed.", "games": "adjudicate"}
    closed = close(arbiter, cheat, body)
    assert closed["ended_by"] == "adjudication" and closed["games"] == [game["id"]], closed
    assert closed["challenges"] == [] and closed["tournaments"] == [], closed
    g = api.game(game["id"])
    assert (g["status"], g["termination"], g["result"], g["rated"]) == \
        ("finished", "adjudication", "1-0", True), g
    assert g["adjudication_reason"] == body["reason"], g
    after = ratings(world, first)
    assert after["korpalski"]["rating"] > before["korpalski"]["rating"], (before, after)


def test_a_dismissal_is_logged_with_who_and_why(world):
    api, arbiter = world["api"], world["arbiter"]
    cheat, first = world["cheat"], world["first"]
    game = challenge(world, cheat, first)
    _, req = first.call("POST", "/v1/games/{id}/arbiter-request", [game["id"]],
                        json={"text": "my opponent answers in seconds"}, expect=202)
    review = review_item(world, cheat, game["id"])
    reasons = {req["request_id"]: "nothing to rule on", review: "a known strong player"}
    _, me = arbiter.call("GET", "/v1/players/me", expect=200)
    for item, reason in reasons.items():
        _, done = arbiter.call("POST", "/v1/arbiter/queue/{id}/dismiss", [item],
                               json={"reason": reason}, expect=200)
        assert done == {"id": item, "status": "dismissed"}, done
    arbiter.call("POST", "/v1/arbiter/queue/{id}/dismiss", [review],
                 json={"reason": "again"}, expect=409)

    _, log = arbiter.call("GET", "/v1/arbiter/log", expect=200)
    entries = {e["item_id"]: e for e in log["entries"] if e["action"] == "dismiss"}
    assert set(entries) == set(reasons), log
    about = {req["request_id"]: (first.player_id, "request"),
             review: (cheat.player_id, "fairplay-review")}
    for item, e in entries.items():
        assert e["id"] and e["reason"] == reasons[item], e
        assert e["arbiter"]["id"] == me["id"] and e["message"] is None, e
        assert (e["player"]["id"], e["details"]["kind"]) == about[item], e
        assert e["details"]["game_id"] == game["id"], e
    # A dismissal is not a warning: the players are not shown it.
    assert cheat.call("GET", "/v1/players/me/warnings", expect=200)[1] == {"warnings": []}
    # An item about no player (a tournament game still going at the tournament's end).
    item = f"Te{os.urandom(4).hex()}"
    psql(world["url"], "INSERT INTO arbiter_queue (id, kind, game_id, details, created_at)"
         f" VALUES ('{item}', 'tournament-end', '{game['id']}', '{{}}', now())")
    arbiter.call("POST", "/v1/arbiter/queue/{id}/dismiss", [item],
                 json={"reason": "played on"}, expect=200)
    _, log = arbiter.call("GET", "/v1/arbiter/log", expect=200)
    e = log["entries"][0]
    assert (e["action"], e["item_id"], e["player"]) == ("dismiss", item, None), e
    api.call("GET", "/v1/arbiter/log", expect=401)




def test_a_closed_account_is_refused_rated_play(world):
    """Once closed, rated play is refused whichever way it starts (a challenge made or
    received, an open one accepted, a tournament joined); unrated play goes on."""
    api, arbiter = world["api"], world["arbiter"]
    cheat, first = world["cheat"], world["first"]
    _, open_ch = first.call("POST", "/v1/challenges",
                            json={"variant": "korpalski", "opponent": None}, expect=201)
    _, t = first.call("POST", "/v1/tournaments",
                      json={"name": "later", "variant": "korpalski", "max_players": 4},
                      expect=201)
    close(arbiter, cheat, {"reason": "r", "message": "m"})
    for who, body in ((cheat, {"variant": "korpalski", "opponent": first.player_id}),
                      (first, {"variant": "korpalski", "opponent": cheat.player_id}),
                      (cheat, {"variant": "korpalski", "opponent": None})):
        _, p = who.call("POST", "/v1/challenges", json=body, expect=409)
        assert "closed for rated play" in p["detail"] and p["reason"] == "rated-play-closed", p
    _, p = cheat.call("POST", "/v1/challenges/{id}/accept", [open_ch["id"]], expect=409)
    assert "closed for rated play" in p["detail"] and p["reason"] == "rated-play-closed", p
    assert api.call("GET", "/v1/challenges/{id}", [open_ch["id"]],
                    expect=200)[1]["status"] == "open"
    _, p = cheat.call("POST", "/v1/tournaments/{id}/join", [t["id"]], expect=409)
    assert "closed for rated play" in p["detail"] and p["reason"] == "rated-play-closed", p
    # Unrated play goes on.
    g = challenge(world, cheat, first, rated=False)
    assert g["rated"] is False
    cheat.call("POST", "/v1/challenges",
               json={"variant": "korpalski", "opponent": None, "rated": False}, expect=201)
