"""A tournament as players read it: its PGN headers, the standings' order,
and the leaderboard with provisional players.
Expected values come from here: the FIDE Berger tables (Handbook C.05,
Annex 1, written out in test_tournaments.py) give each game's board; the
ratings at the start from glicko2_ref.py (an independent Glicko-2) for one
rated game between two new players (1500, RD 350, volatility 0.06: the
winner ends near 1662.3, the loser near 1337.7), the others new (1500)."""
import requests

import glicko2_ref
from test_tournaments import BERGER, create, field, get


def headers(pgn):
    """Each game's tags, in order, as dicts."""
    games, tags = [], None
    for line in pgn.splitlines():
        if line.startswith("[Event "):
            tags = {}
            games.append(tags)
        if line.startswith("[") and tags is not None:
            name, value = line[1:].split(" ", 1)
            tags[name] = value.rstrip("]")[1:-1]
    return games


def board_of(table, round_no, w, b):
    """The board (1..) of the game of numbers w and b in a round of a table."""
    rnd = table[(round_no - 1) % len(table)]
    for k, pair in enumerate(rnd):
        if set(pair) == {w, b}:
            return k + 1
    raise AssertionError((round_no, w, b))


def test_pgn_headers_of_a_rated_tournament(api):
    (a, pa), (b, pb), (c, pc), (d, pd) = [api.new_player(f"e{i}") for i in range(4)]
    # One rated game first: a beats b.
    _, ch = a.call("POST", "/v1/challenges", json={"variant": "glinski", "opponent": pb["id"],
                                                   "color": "white"}, expect=201)
    _, acc = b.call("POST", "/v1/challenges/{id}/accept", [ch["id"]], expect=201)
    b.call("POST", "/v1/games/{id}/resign", [acc["game"]["id"]], expect=200)
    won = glicko2_ref.period(1500, 350, 0.06, [(1500, 350, 1)])[0]
    lost = glicko2_ref.period(1500, 350, 0.06, [(1500, 350, 0)])[0]
    assert round(won) == 1662 and round(lost) == 1338   # Glickman's formulas by hand
    director, _ = api.new_player("dir")
    t = create(director, n_max=4, name="Zimowy turniej \"Łódź\"", rated=True)
    for who in (a, b, c, d):
        who.call("POST", "/v1/tournaments/{id}/join", [t["id"]], expect=200)
    director.call("POST", "/v1/tournaments/{id}/start", [t["id"]], expect=200)
    tour = get(api, t["id"])
    number = {p["id"]: p["number"] for p in tour["players"]}
    # Before any game ends every rank is 1: the rows by start number.
    assert [number[s["player"]] for s in tour["standings"]] == [1, 2, 3, 4]
    assert all(s["rank"] == 1 for s in tour["standings"])
    rating = {pa["id"]: won, pb["id"]: lost, pc["id"]: 1500, pd["id"]: 1500}
    r = requests.get(f"{api.base}/v1/tournaments/{t['id']}/pgn", timeout=30)
    assert r.status_code == 200
    got = headers(r.text)
    assert len(got) == len(tour["games"]) == 6
    for tags, g in zip(got, tour["games"]):
        game = api.game(g["id"])
        w, bl = number[g["white"]], number[g["black"]]
        assert tags["Event"] == 'Zimowy turniej \\"Łódź\\"'
        assert tags["Site"] == api.base   # KORP_PUBLIC_URL, as the fixture starts korpd
        assert tags["Round"] == f"{g['round']}.{board_of(BERGER[4], g['round'], w, bl)}"
        assert tags["Date"] == game["created_at"][:10].replace("-", ".")
        assert tags["WhiteElo"] == str(round(rating[g["white"]]))
        assert tags["BlackElo"] == str(round(rating[g["black"]]))
        assert tags["White"] == game["white"]["name"] and tags["Black"] == game["black"]["name"]
    # The tag stands while nothing changes; a move changes it.
    tag = r.headers["ETag"]
    again = requests.get(f"{api.base}/v1/tournaments/{t['id']}/pgn",
                         headers={"If-None-Match": tag}, timeout=30)
    assert again.status_code == 304 and again.text == ""
    first = tour["games"][0]
    mover = {pa["id"]: a, pb["id"]: b, pc["id"]: c, pd["id"]: d}[first["white"]]
    legal = mover.call("GET", "/v1/games/{id}/legal-moves", [first["id"]], expect=200)[1]
    mover.call("POST", "/v1/games/{id}/moves", [first["id"]],
               json={"move": legal["moves"][0]["uci"]}, expect=201)
    after = requests.get(f"{api.base}/v1/tournaments/{t['id']}/pgn",
                         headers={"If-None-Match": tag}, timeout=30)
    assert after.status_code == 200 and after.headers["ETag"] != tag
    assert after.text != r.text


def test_boards_of_an_odd_field_leave_the_bye_out(api):
    director, _ = api.new_player("dir")
    t = create(director, n_max=5)
    field(api, t, 5)
    director.call("POST", "/v1/tournaments/{id}/start", [t["id"]], expect=200)
    tour = get(api, t["id"])
    number = {p["id"]: p["number"] for p in tour["players"]}
    pgn = requests.get(f"{api.base}/v1/tournaments/{t['id']}/pgn", timeout=30).text
    got = headers(pgn)
    assert len(got) == len(tour["games"]) == 10
    for tags, g in zip(got, tour["games"]):
        # Six numbers, 6 the bye: its board (the first) is left out.
        board = board_of(BERGER[6], g["round"], number[g["white"]], number[g["black"]]) - 1
        assert tags["Round"] == f"{g['round']}.{board}"
        assert tags["WhiteElo"] == tags["BlackElo"] == "1500"   # new and unrated
    rounds = {}
    for tags in got:
        rnd, board = tags["Round"].split(".")
        rounds.setdefault(rnd, []).append(int(board))
    assert all(sorted(b) == [1, 2] for b in rounds.values())


def test_pgn_of_no_tournament_is_404(api):
    r = requests.get(f"{api.base}/v1/tournaments/nosuchtourn/pgn", timeout=30)
    assert r.status_code == 404


def test_leaderboard_lists_provisional_players_when_asked(api):
    (a, pa), (b, pb) = [api.new_player(f"l{i}") for i in range(2)]
    _, ch = a.call("POST", "/v1/challenges", json={"variant": "korpalski", "opponent": pb["id"],
                                                   "color": "white"}, expect=201)
    _, acc = b.call("POST", "/v1/challenges/{id}/accept", [ch["id"]], expect=201)
    b.call("POST", "/v1/games/{id}/resign", [acc["game"]["id"]], expect=200)
    settled = api.call("GET", "/v1/leaderboard/{variant}", ["korpalski"],
                       query={"limit": 200}, expect=200)[1]["players"]
    assert pa["id"] not in [p["id"] for p in settled]
    assert all(p["provisional"] is False for p in settled)
    every = api.call("GET", "/v1/leaderboard/{variant}", ["korpalski"],
                     query={"limit": 200, "provisional": "true"}, expect=200)[1]["players"]
    rows = {p["id"]: p for p in every}
    # After one game each RD is far above 110: provisional, marked.
    assert rows[pa["id"]]["provisional"] is True and rows[pb["id"]]["provisional"] is True
    assert abs(rows[pa["id"]]["rating"] -
               glicko2_ref.period(1500, 350, 0.06, [(1500, 350, 1)])[0]) <= 0.01
    assert [p["rating"] for p in every] == sorted((p["rating"] for p in every), reverse=True)
    assert all(p["provisional"] is (p["rd"] > 110) for p in every)
    api.call("GET", "/v1/leaderboard/{variant}", ["korpalski"],
             query={"provisional": "yes"}, expect=400)
