"""GET /metrics: Prometheus's text format, checked by Prometheus's own promtool, and
counters that follow what the requests did."""

import re
import shutil
import subprocess

import pytest
import requests

from korp_client import Api
from korp_fixtures import wait_until
from openapi_check import check


def scrape(base):
    r = requests.get(base + "/metrics", timeout=10)
    check(r, "GET", "/metrics")
    assert r.headers["Content-Type"].startswith("text/plain; version=0.0.4")
    return r.text


def value(text, name, **labels):
    want = ",".join(f'{k}="{v}"' for k, v in labels.items())
    pattern = "^" + re.escape(name) + (r"\{" + re.escape(want) + r"\}" if want else "") + r" (\S+)$"
    m = re.search(pattern, text, re.M)
    assert m, f"{name}{{{want}}} not in the metrics"
    return float(m.group(1))


def test_metrics_follow_the_requests(shared_db_url, start_korpd):
    k = start_korpd(shared_db_url)
    api = Api(k.base)
    wa, _ = api.new_player("mw")
    ba, b = api.new_player("mb")
    gid = wa.new_game(ba, b["id"])["id"]
    wa.move(gid, "K@e1")
    ba.move(gid, "K@e8")
    wa.call("POST", "/v1/games/{id}/moves", [gid], json={"move": "Q@e2"}, expect=422)
    wa.call("POST", "/v1/games/{id}/moves", [gid], json={"move": "K@e1"}, expect=422)
    ba.call("POST", "/v1/games/{id}/moves", [gid], json={"move": "N@c6"}, expect=409)
    wa.call("POST", "/v1/games/{id}/claims", [gid], json={"kind": "threefold"}, expect=200)
    wa.call("POST", "/v1/games/{id}/resign", [gid], expect=200)

    text = scrape(k.base)
    assert value(text, "korp_moves_total", outcome="accepted") == 2
    assert value(text, "korp_moves_total", outcome="illegal") == 2
    assert value(text, "korp_moves_total", outcome="not_your_turn") == 1
    assert value(text, "korp_claims_total", kind="threefold", accepted="false") == 1
    assert value(text, "korp_games_started_total", variant="korpalski") == 1
    assert value(text, "korp_games_finished_total", variant="korpalski",
                 termination="resignation") == 1
    assert value(text, "korp_http_requests_total", method="POST",
                 route="/v1/games/{id}/moves", status="201") == 2
    assert value(text, "korp_http_requests_total", method="POST",
                 route="/v1/games/{id}/moves", status="422") == 2
    assert value(text, "korp_event_streams") == 0
    # Nothing else is in flight on this korpd: only the scrape itself.
    assert value(text, "korp_http_requests_in_flight") == 1
    assert value(text, "korp_db_connects_total") >= 1
    count = value(text, "korp_http_request_duration_seconds_count")
    assert value(text, "korp_http_request_duration_seconds_bucket", le="+Inf") == count
    assert count >= 10


def test_promtool_accepts_the_metrics(shared_db_url, start_korpd):
    promtool = shutil.which("promtool")
    if promtool is None:
        pytest.skip("promtool (Debian package prometheus) is not installed")
    k = start_korpd(shared_db_url)
    requests.get(k.base + "/healthz", timeout=10)
    requests.get(k.base + "/no/such", timeout=10)
    out = subprocess.run([promtool, "check", "metrics"], input=scrape(k.base), text=True,
                         capture_output=True, timeout=60)
    assert out.returncode == 0, out.stdout + out.stderr


def test_rate_limits_answer_429_with_retry_after(shared_db_url, start_korpd):
    k = start_korpd(shared_db_url, KORP_RATE_LIMIT=2, KORP_RATE_BURST=3)
    api = Api(k.base)
    # Anonymous routes count per address: the player sign-ups below take 2 of 3.
    a, body = api.new_player("rl")
    b, _ = api.new_player("rl")
    # Per token: a burst of 3, then 429 with Retry-After and a problem body.
    statuses = [a.call("GET", "/v1/players/me")[0] for _ in range(3)]
    assert statuses == [200, 200, 200]
    r = requests.get(k.base + "/v1/players/me", headers={"Authorization": f"Bearer {a.token}"},
                     timeout=10)
    check(r, "GET", "/v1/players/me")
    assert r.status_code == 429 and int(r.headers["Retry-After"]) >= 1
    assert r.json()["type"] == "/problems/too-many-requests"
    # Another token has its own bucket; health and metrics are never limited.
    assert b.call("GET", "/v1/players/me")[0] == 200
    assert all(requests.get(k.base + "/healthz", timeout=10).status_code == 200
               for _ in range(6))
    # The bucket refills at 2 a second: a token comes back within half a second (polled
    # more slowly than that, so the polls themselves cannot keep it empty).
    wait_until(lambda: a.call("GET", "/v1/players/me")[0] == 200, 5, step=0.6,
               what="the token's bucket to refill")
