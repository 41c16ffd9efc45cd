"""Notes and messages, and what conditional moves and messages owe
by email: privacy, limits, messages hidden from spectators until the end, the PGN with
`?notes=true`, the `message` event, and the outbox rows the database owes (read with psql).

Expected values come from the issue's text (limits, who may read what) and by hand; every
answer is checked against openapi.yaml by korp_client.Api.
"""

import json
import subprocess
import uuid

import requests

from korp_client import Api
from korp_fixtures import free_port, wait_until
from openapi_check import check
from test_conditional import started
from test_events import Stream
from test_games_flow import move_clock_forward, pgn_tags, replay

NOTES = "/v1/games/{id}/notes"
MESSAGES = "/v1/games/{id}/messages"


def sql(db_url, query, **params):
    """Rows of one query (psql, unaligned: fields split by '|', rows by newlines)."""
    argv = ["psql", "-X", "-q", "-t", "-A", "-v", "ON_ERROR_STOP=1", "-d", db_url]
    for name, value in params.items():
        argv += ["-v", f"{name}={value}"]
    out = subprocess.run(argv, input=query, capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, (query, out.stderr)
    return [line.split("|") for line in out.stdout.strip().splitlines() if line]


def player_with_email(api, prefix):
    name = f"{prefix}_{uuid.uuid4().hex[:12]}"
    _, body = api.call("POST", "/v1/players", json={"name": name,
                                                      "email": f"{name}@example.org"},
                       expect=201)
    return api.as_(body["token"]), dict(body, email=f"{name}@example.org")


def pgn_text(base, gid, token=None, query="?notes=true", expect=200):
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    r = requests.get(f"{base}/v1/games/{gid}/pgn{query}", headers=headers, timeout=30)
    body = check(r, "GET", "/v1/games/{id}/pgn")
    assert r.status_code == expect, r.text
    return body


# ------------------------------------------------------------------ notes


def test_notes_are_their_authors_alone(api, two_players):
    wa, w, ba, b = two_players
    gid = started(wa, ba, b)
    empty = wa.call("GET", NOTES, [gid], expect=200)[1]
    assert empty == {"text": "", "updated_at": None}
    put = wa.call("PUT", NOTES, [gid], json={"text": "Plan: Nb1-c3-d5."}, expect=200)[1]
    assert put["text"] == "Plan: Nb1-c3-d5." and put["updated_at"]
    assert wa.call("GET", NOTES, [gid], expect=200)[1]["text"] == "Plan: Nb1-c3-d5."
    # The opponent has their own notes, and never sees White's.
    assert ba.call("GET", NOTES, [gid], expect=200)[1]["text"] == ""
    ba.call("PUT", NOTES, [gid], json={"text": "Black's own"}, expect=200)
    assert wa.call("GET", NOTES, [gid], expect=200)[1]["text"] == "Plan: Nb1-c3-d5."
    # Anyone else: no such notes (404), and without a token 401.
    sa, _ = api.new_player("s")
    assert sa.call("GET", NOTES, [gid], expect=404)[1]["type"] == "/problems/not-found"
    sa.call("PUT", NOTES, [gid], json={"text": "x"}, expect=404)
    api.call("GET", NOTES, [gid], expect=401)
    # Kept after the game ends.
    ba.call("POST", "/v1/games/{id}/resign", [gid], expect=200)
    assert wa.call("GET", NOTES, [gid], expect=200)[1]["text"] == "Plan: Nb1-c3-d5."
    wa.call("PUT", NOTES, [gid], json={"text": "Won by resignation."}, expect=200)


def test_notes_length_is_counted_in_characters(two_players):
    wa, w, ba, b = two_players
    gid = started(wa, ba, b)
    # 20 000 characters of two bytes each (40 000 bytes of UTF-8, sent as such) are
    # allowed; one more is not.
    def raw(text, expect):
        data = json.dumps({"text": text}, ensure_ascii=False).encode()
        return wa.call("PUT", NOTES, [gid], data=data, expect=expect,
                       headers={"Content-Type": "application/json"})[1]

    raw("é" * 20000, 200)
    body = raw("é" * 20001, 400)
    assert body["type"] == "/problems/bad-request"
    assert wa.call("GET", NOTES, [gid], expect=200)[1]["text"] == "é" * 20000
    wa.call("PUT", NOTES, [gid], json={"text": ""}, expect=200)
    wa.call("PUT", NOTES, [gid], json={}, expect=400)


def test_pgn_with_notes_for_their_author_only(api, two_players):
    wa, w, ba, b = two_players
    gid = started(wa, ba, b)
    wa.call("PUT", NOTES, [gid], json={"text": "Keep the {knight} on c3"}, expect=200)
    plain = pgn_text(api.base, gid, query="")
    mine = pgn_text(api.base, gid, wa.token)
    # The comment opens the movetext: '}' would end it early, so it became ')'.
    assert "{Keep the {knight) on c3}\n1. K@a1" in mine, mine
    assert mine.replace("{Keep the {knight) on c3}\n", "") == plain
    assert pgn_tags(mine) == pgn_tags(plain)
    # The opponent, who wrote none, and a stranger get the plain record.
    assert pgn_text(api.base, gid, ba.token) == plain
    sa, _ = api.new_player("s")
    assert pgn_text(api.base, gid, sa.token) == plain
    # Without a token the notes cannot be asked for; a bad value is 400.
    assert pgn_text(api.base, gid, query="?notes=true", expect=401)["type"] == \
        "/problems/unauthorized"
    pgn_text(api.base, gid, wa.token, query="?notes=yes", expect=400)
    # korp replay reads the record with the comment as the same five plies.
    plies, _ = replay(mine)
    assert [san for _, san, _ in plies] == ["K@a1", "K@h8", "N@b1", "N@g8", "Nc3"]


# ---------------------------------------------------------------- messages


def send(api, gid, text, expect=201):
    return api.call("POST", MESSAGES, [gid], json={"text": text}, expect=expect)[1]


def listed(api, gid, expect=200):
    return api.call("GET", MESSAGES, [gid], expect=expect)[1]


def test_messages_between_players_hidden_from_spectators_until_the_end(
        api, arbiter, korpd, two_players):
    wa, w, ba, b = two_players
    gid = started(wa, ba, b)
    spectator = Stream(korpd.base, query=f"?game={gid}&last_event_id=0")
    black = Stream(korpd.base, query=f"?game={gid}&last_event_id=0", token=ba.token)
    try:
        sent = send(wa, gid, "Good luck!\nAnd have fun.")
        assert sent["ply"] == 5 and sent["from"] == "white"
        assert sent["text"] == "Good luck!\nAnd have fun."
        # With a move: stored at that move's ply (6), in its transaction.
        game = ba.move(gid, "Nf6", ply=5, message="Thanks, you too")
        assert game["ply"] == 6
        both = [(m["ply"], m["from"], m["text"]) for m in listed(wa, gid)["messages"]]
        assert both == [(5, "white", "Good luck!\nAnd have fun."),
                        (6, "black", "Thanks, you too")]
        assert listed(ba, gid) == listed(wa, gid)
        assert listed(arbiter, gid) == listed(wa, gid)
        # Spectators, with a token or without: not while the game runs.
        sa, _ = api.new_player("s")
        assert listed(sa, gid, expect=403)["type"] == "/problems/forbidden"
        listed(api, gid, expect=403)
        # Black's stream has White's message as an event; the game's public stream
        # never carries messages.
        events = black.events(1 + 5 + 1 + 1)   # game_start, 5 moves, message, move
        got = [e for e in events if e["event"] == "message"]
        assert len(got) == 1 and got[0]["data"]["message"]["text"] == "Good luck!\nAnd have fun."
        assert got[0]["data"]["message"]["from"] == "white"
        public = spectator.events(1 + 6)         # game_start and six moves
        assert all(e["event"] != "message" for e in public)
        assert spectator.quiet(0.5) == []
        # Once the game is over, everyone reads them.
        ba.call("POST", "/v1/games/{id}/resign", [gid], expect=200)
        assert listed(sa, gid) == listed(wa, gid)
        assert len(listed(api, gid)["messages"]) == 2
    finally:
        spectator.close()
        black.close()


def test_only_players_send_messages_and_text_is_checked(api, two_players):
    wa, w, ba, b = two_players
    gid = started(wa, ba, b)
    sa, _ = api.new_player("s")
    assert send(sa, gid, "hello", expect=403)["type"] == "/problems/forbidden"
    api.call("POST", MESSAGES, [gid], json={"text": "hi"}, expect=401)
    for bad in ["", "x" * 501, "tab\there", "bell\x07", "\x85next line"]:
        assert send(wa, gid, bad, expect=400)["type"] == "/problems/bad-request", bad
    assert send(wa, gid, "é" * 500)["text"] == "é" * 500
    # A bad message with a move refuses the move too.
    body = ba.call("POST", "/v1/games/{id}/moves", [gid],
                   json={"move": "Nf6", "message": "x" * 501}, expect=400)[1]
    assert body["type"] == "/problems/bad-request"
    assert wa.game(gid)["ply"] == 5
    assert len(listed(wa, gid)["messages"]) == 1


def test_twenty_messages_a_day_then_429(api, arbiter, two_players):
    wa, w, ba, b = two_players
    gid = started(wa, ba, b)
    # Keep clear of a UTC midnight in the middle of the count.
    now = wa.call("GET", "/v1/players/me", expect=200)[1]["created_at"]
    if now[11:16] >= "23:55":
        move_clock_forward(api, arbiter, 600)
    for i in range(19):
        send(wa, gid, f"message {i}")
    ba.move(gid, "Nf6", ply=5)
    wa.move(gid, "Nb1", ply=6, message="message 19 with a move")
    r = requests.post(f"{api.base}/v1/games/{gid}/messages", json={"text": "one too many"},
                      headers={"Authorization": f"Bearer {wa.token}"}, timeout=30)
    body = check(r, "POST", MESSAGES)
    assert r.status_code == 429 and body["type"] == "/problems/too-many-requests"
    wait = int(r.headers["Retry-After"])
    assert 1 <= wait <= 86400
    # A move with a message past the limit is refused before it is played.
    body = ba.call("POST", "/v1/games/{id}/moves", [gid], json={"move": "Ng8"}, expect=201)
    r = requests.post(f"{api.base}/v1/games/{gid}/moves",
                      json={"move": "Nc3", "message": "again"},
                      headers={"Authorization": f"Bearer {wa.token}"}, timeout=30)
    assert r.status_code == 429 and wa.game(gid)["ply"] == 8
    # The opponent's own count is separate.
    send(ba, gid, "my first")
    assert len(listed(wa, gid)["messages"]) == 21
    # The next UTC day (the test clock moved past midnight), more may be sent.
    move_clock_forward(api, arbiter, wait + 60)
    send(wa, gid, "a new day")


# --------------------------------------------------------- what is owed by email


def answered_by_a_conditional_move(api, message):
    """Two players with addresses; Black plays Nf6 (ply 6) with message, and
    White's conditional Nb1 answers it at once (ply 7): (w, b, game id)."""
    wa, w = player_with_email(api, "w")
    ba, b = player_with_email(api, "b")
    gid = started(wa, ba, b)
    wa.call("PUT", "/v1/games/{id}/conditional-moves", [gid],
            json={"lines": [["Nf6", "Nb1"]]}, expect=200)
    assert ba.move(gid, "Nf6", ply=5, message=message)["ply"] == 7
    return w, b, gid


def test_message_and_conditional_reply_notifications(api, shared_db_url):
    w, b, gid = answered_by_a_conditional_move(api, "Your knight again?")
    rows = sql(shared_db_url,
               "SELECT player_id, type, payload->>'ply', coalesce(payload->>'conditional', '-'),"
               " coalesce(payload->'message'->>'text', '-') FROM deliveries"
               " WHERE channel = 'email' AND payload->>'game_id' = :'g'"
               " AND type IN ('move', 'message') ORDER BY id", g=gid)
    owed = [tuple(r) for r in rows]
    # Black's move (ply 6) was White's to answer, but the conditional reply answered it:
    # White is told of the reply instead ("your conditional move Nb1 was played"), and
    # Black of the reply as their move.  Black's message goes to White alone.
    assert (w["id"], "move", "6", "-", "-") not in owed
    assert owed.count((w["id"], "move", "7", "true", "-")) == 1
    assert owed.count((b["id"], "move", "7", "true", "-")) == 1
    assert owed.count((w["id"], "message", "7", "-", "Your knight again?")) == 1
    assert not [r for r in owed if r[0] == b["id"] and r[1] == "message"]
    # Earlier moves: each to the player then to move (ply 1-5).
    assert len([r for r in owed if r[1] == "move"]) == 5 + 2


def test_emails_tell_of_the_conditional_move_and_quote_the_message(shared_db_url, start_korpd,
                                                                   sink):
    port = free_port()
    k = start_korpd(shared_db_url, port=port, KORP_SMTP_URL=sink.url,
                    KORP_MAIL_FROM="korp@example.org", KORP_PUBLIC_URL=f"http://127.0.0.1:{port}",
                    KORP_NOTIFY_BACKOFF_SCALE=0.001)
    w, b, gid = answered_by_a_conditional_move(Api(k.base), "Your knight again?\nReally?")

    def mails(player):
        return [m for m in sink.messages(to=player["email"]) if gid in m.subject]

    # White: "your move" after plies 2 and 4 only (not after 6: the reply answered it),
    # the conditional move, the message.  Black: "your move" after plies 1, 3, 5 and 7.
    wait_until(lambda: len(mails(w)) >= 4 and len(mails(b)) >= 4, 30,
               what="the game's emails")
    to_white = sorted(m.subject for m in mails(w))
    assert to_white == sorted([
        f"Your move in game {gid} against {b['name']} (Korpalski)"] * 2 + [
        f"Your conditional move Nb1 was played in game {gid}",
        f"{b['name']} sent you a message in game {gid}"]), to_white
    assert [m.subject for m in mails(b)] == \
        [f"Your move in game {gid} against {w['name']} (Korpalski)"] * 4
    said = next(m for m in mails(w) if "message" in m.subject)
    body = said.msg.get_body(preferencelist=("plain",)).get_content()
    assert "> Your knight again?\n> Really?\n" in body.replace("\r\n", "\n"), body
    played = next(m for m in mails(w) if "conditional" in m.subject)
    text = played.msg.get_body(preferencelist=("plain",)).get_content()
    assert "as you had planned" in " ".join(text.split()), text
    # Nothing else is owed to either of them for this game.
    pending = sql(shared_db_url, "SELECT count(*) FROM deliveries WHERE status = 'pending'"
                  " AND payload->>'game_id' = :'g'", g=gid)
    assert pending == [["0"]]


def test_no_sanitizer_report_in_korpds_log(korpd):
    # Last in the module: korpd (built with ASan and UBSan in the second suite) said
    # nothing about memory or undefined behaviour while serving the tests above.
    log = korpd.log_text()
    for mark in ("AddressSanitizer", "LeakSanitizer", "UndefinedBehaviorSanitizer",
                 "runtime error:"):
        assert mark not in log, log[-4000:]
