"""Pruning what only grows against a real korpd (sweeping every
second, test clock on, 2 days of retention) on a database of each test's own: events and
finished deliveries past their retention go, pending deliveries and the events they name
stay, idempotency keys go after 24 hours, and an event stream resuming after pruned
events is refused with 410 `events-pruned` (0 and ids from the newest pruned on are not).

Which rows must go is worked out here from their ages against the test clock (set by the
test), read back with psql, an independent client."""

import os
import subprocess

import pytest

from korp_client import Api
from korp_fixtures import wait_until
from test_events import Stream

DAY = 86400
RETENTION_DAYS = 2


def sql(url, query):
    out = subprocess.run(["psql", "-X", "-q", "-t", "-A", "-v", "ON_ERROR_STOP=1", "-d", url],
                         input=query, capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, (query, out.stderr)
    return out.stdout.strip()


class World:
    def __init__(self, korpd, binary, url):
        self.url = url
        self.korpd = korpd
        self.api = Api(korpd.base)
        out = subprocess.run([binary, "admin", "create-arbiter", "arb_retention"],
                             env=dict(os.environ, KORP_DATABASE_URL=url),
                             capture_output=True, text=True, timeout=60, check=True)
        self.arbiter = Api(korpd.base, out.stdout.strip())
        self.offset = 0

    def forward(self, seconds):
        self.offset += seconds
        self.arbiter.call("POST", "/v1/admin/clock", json={"offset_seconds": self.offset},
                          expect=200)

    def game(self):
        wa, w = self.api.new_player("w")
        ba, b = self.api.new_player("b")
        _, ch = wa.call("POST", "/v1/challenges", json={"variant": "korpalski",
                                                         "opponent": b["id"], "color": "white"},
                        expect=201)
        _, acc = ba.call("POST", "/v1/challenges/{id}/accept", [ch["id"]], expect=201)
        return wa, w, ba, b, acc["game"]["id"]


@pytest.fixture
def world(korpd_binary, own_postgres, start_korpd):
    k = start_korpd(own_postgres.url, KORP_TEST_CLOCK=1, KORP_SWEEP_SECONDS=1,
                    KORP_EVENT_RETENTION_DAYS=RETENTION_DAYS,
                    KORP_DELIVERY_RETENTION_DAYS=RETENTION_DAYS)
    return World(k, korpd_binary, own_postgres.url)


def ids(url, where="true"):
    text = sql(url, f"SELECT id FROM events WHERE {where} ORDER BY id")
    return [int(x) for x in text.split()] if text else []


def test_old_events_go_and_a_stream_resuming_after_them_is_refused(world):
    wa, w, ba, b, gid = world.game()
    wa.move(gid, "K@e1")
    ba.move(gid, "K@e8")
    old = ids(world.url)
    assert len(old) >= 4, old      # game_start and moves, to each player
    # A day later, still within the retention: nothing goes.
    world.forward(DAY)
    wa.move(gid, "N@g1")
    day1 = [i for i in ids(world.url) if i not in old]
    assert day1
    world.forward(DAY + 3600)   # the first events are now 2 days and an hour old
    ba.move(gid, "N@g8")
    wait_until(lambda: ids(world.url, f"id <= {max(old)}") == [], 20, what="old events pruned")
    # The events of a day ago and of now stay; the newest pruned is noted.
    left = ids(world.url)
    assert all(i in left for i in day1), (day1, left)
    assert int(sql(world.url, "SELECT pruned_through FROM event_retention")) == max(old)

    # Resuming after a pruned event: 410, the problem says up to which id they are gone.
    for last in (min(old), max(old) - 1):
        status, body = wa.call("GET", "/v1/events", headers={"Last-Event-ID": str(last)})
        assert status == 410 and body["type"] == "/problems/events-pruned", body
        assert str(max(old)) in body["detail"]
    status, body = world.api.call("GET", "/v1/events", query={"game": gid,
                                                             "last_event_id": min(old)})
    assert status == 410 and body["type"] == "/problems/events-pruned"
    # From the newest pruned on, and from 0, the stream resumes with what is kept.
    mine = ids(world.url, f"player_id = '{w['id']}'")
    for last, first in ((max(old), min(i for i in mine if i > max(old))),
                        (0, min(mine))):
        s = Stream(world.api.base, token=wa.token, last_event_id=last)
        try:
            assert s.status() == 200
            assert s.events(1)[0]["id"] == first
        finally:
            s.close()


def test_finished_deliveries_go_pending_ones_and_their_events_stay(world):
    wa, w, ba, b, gid = world.game()
    wa.move(gid, "K@e1")
    e1, e2, e3 = ids(world.url)[-3:]
    # Three deliveries made now: one delivered (with an attempt), one failed, one still
    # pending (its next attempt in a month: the workers leave it alone).
    insert = """
        INSERT INTO deliveries (player_id, channel, event_id, type, payload, status,
                                next_attempt_at, created_at)
        SELECT '{player}', 'email', e, 'move', '{{}}', s,
               korp_now() + interval '30 days', korp_now()
        FROM (VALUES {rows}) v(e, s);
        INSERT INTO delivery_attempts (delivery_id, attempt, at, status_code, latency_ms)
        SELECT id, 1, created_at, 250, 1.5 FROM deliveries d
        WHERE NOT EXISTS (SELECT FROM delivery_attempts a WHERE a.delivery_id = d.id);"""
    rows = f"({e1}, 'delivered'), ({e2}, 'failed'), ({e3}, 'pending')"
    sql(world.url, insert.format(player=w["id"], rows=rows))
    assert sql(world.url, "SELECT count(*) FROM deliveries") == "3"
    # Three days on (past the retention of two), one more delivered now: the finished
    # ones of three days ago go with their attempts; then the events no delivery names.
    world.forward(3 * DAY)
    sql(world.url, insert.format(player=w["id"], rows=f"({e3}, 'delivered')"))
    try:
        wait_until(lambda: sql(world.url, "SELECT count(*) FROM deliveries") == "2", 20,
                   what="finished deliveries pruned")
    except AssertionError:
        raise AssertionError(sql(world.url, "SELECT id, status, event_id, created_at, korp_now()"
                                 " FROM deliveries ORDER BY id") + "\n" +
                             world.korpd.log_text()[-3000:]) from None
    assert sql(world.url, "SELECT status || ':' || event_id FROM deliveries ORDER BY id") == \
        f"pending:{e3}\ndelivered:{e3}"
    assert sql(world.url, "SELECT count(*) FROM delivery_attempts") == "2"
    wait_until(lambda: ids(world.url, f"id <= {e3}") == [e3], 20, what="old events pruned")


def test_idempotency_keys_go_after_a_day(world):
    wa, w, ba, b, gid = world.game()
    for i, mv in enumerate(["K@e1", "K@e8"]):
        side = wa if i == 0 else ba
        side.call("POST", "/v1/games/{id}/moves", [gid], json={"move": mv},
                  headers={"Idempotency-Key": f"k{i}"}, expect=201)
    assert sql(world.url, "SELECT count(*) FROM idempotency_keys") == "2"
    world.forward(DAY + 60)
    wait_until(lambda: sql(world.url, "SELECT count(*) FROM idempotency_keys") == "0", 20,
               what="idempotency keys pruned")
    # A key used again after that is a new request (its answer not replayed).
    _, g = wa.call("POST", "/v1/games/{id}/moves", [gid], json={"move": "N@g1"},
                   headers={"Idempotency-Key": "k0"}, expect=201)
    assert g["ply"] == 3
