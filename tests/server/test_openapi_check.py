"""Tests of openapi_check (no server needed): it accepts what the contract allows and
rejects what it does not; and a few consistency rules of openapi.yaml itself that the
Redocly lint does not know (every route declares its error statuses, examples validate)."""

import copy
import json
import re

import pytest
import requests

import openapi_check
from openapi_check import check, check_problem, spec


def response(status, body=None, content_type="application/json", headers=None, raw=None):
    r = requests.Response()
    r.status_code = status
    if raw is not None:
        r._content = raw
    elif body is None:
        r._content = b""
    else:
        r._content = json.dumps(body).encode("utf-8")
    if content_type is not None and (body is not None or raw is not None):
        r.headers["Content-Type"] = content_type
    for k, v in (headers or {}).items():
        r.headers[k] = v
    # What korpd sends with every game resource: an ETag and Cache-Control.
    if status in (200, 304):
        r.headers.setdefault("ETag", 'W/"' + "0" * 32 + '"')
        r.headers.setdefault("Cache-Control", "no-cache")
    r.encoding = "utf-8"
    r.url = "http://127.0.0.1:8080/test"
    return r


GAME = {
    "id": "Gm8Vb3Nc6K",
    "variant": "korpalski",
    "white": {"id": "Bq4Lm8Rt2W", "name": "bob"},
    "black": {"id": "aZ3kP9qwX2", "name": "alice"},
    "status": "active",
    "result": "*",
    "termination": None,
    "adjudication_reason": None,
    "fen": "8/8/8/4n3/6Q1/2K5/5k2/8[RRBBNNPPPPPPPPqrrbbnpppppppp] w - - 0 3",
    "ply": 4,
    "to_move": "white",
    "moves": ["K@c3", "K@f2", "Q@g4", "N@e5"],
    "days_per_move": 3,
    "deadline": "2026-11-26T09:12:44Z",
    "draw_offer": None,
    "fifty_move_rule": True,
    "created_at": "2026-11-22T13:46:00Z",
    "updated_at": "2026-11-23T09:12:44Z",
}


def game(**changes):
    g = copy.deepcopy(GAME)
    g.update(changes)
    return g


def problem(slug, status, **extra):
    body = {"type": f"/problems/{slug}", "title": slug.replace("-", " ").capitalize(),
            "status": status, "detail": "what went wrong"}
    body.update(extra)
    return response(status, body, "application/problem+json")


# --- what the checker accepts -------------------------------------------------------

def test_accepts_a_valid_game():
    body = check(response(200, GAME), "GET", "/v1/games/{id}")
    assert body["id"] == "Gm8Vb3Nc6K"


def test_accepts_a_finished_glinski_stalemate_and_a_move_201():
    g = game(variant="glinski", status="finished", result="3/4-1/4", termination="stalemate",
             deadline=None, days_per_move=None)
    check(response(200, g), "GET", "/v1/games/{id}")
    check(response(201, GAME), "POST", "/v1/games/{id}/moves")


def test_accepts_extra_members_in_responses():
    check(response(200, game(clock_note="later issues may add members")), "GET", "/v1/games/{id}")


def test_accepts_move_problems():
    check(problem("illegal-move", 422, ply=12, move="Q@e2", reason="drop-gives-check"),
          "POST", "/v1/games/{id}/moves")
    check(problem("ply-mismatch", 409, ply=6, move="Rxf3+"), "POST", "/v1/games/{id}/moves")


def test_accepts_401_with_www_authenticate_and_503_with_retry_after():
    r = problem("unauthorized", 401)
    r.headers["WWW-Authenticate"] = "Bearer"
    check(r, "GET", "/v1/players/me")
    r = problem("unavailable", 503)
    r.headers["Retry-After"] = "2"
    check(r, "GET", "/v1/games/{id}")


def test_accepts_405_for_a_method_the_path_lacks():
    r = problem("method-not-allowed", 405)
    r.headers["Allow"] = "GET"
    check(r, "DELETE", "/v1/games/{id}")


def test_accepts_204_without_body_and_pgn_text():
    assert check(response(204), "DELETE", "/v1/players/me/tokens/{id}") is None
    pgn = b'[Event "?"]\n[Result "*"]\n\n1. K@c3 K@f2 *\n'
    text = check(response(200, raw=pgn, content_type="application/x-chess-pgn"),
                 "GET", "/v1/games/{id}/pgn")
    assert text.startswith("[Event")


def test_accepts_health_both_ways():
    check(response(200, {"status": "ok", "version": "0.2.0",
                         "database": {"reachable": True, "latency_ms": 0.3,
                                      "schema_version": 2}}), "GET", "/healthz")
    r = response(503, {"status": "degraded", "version": "0.2.0",
                       "database": {"reachable": False, "error": "refused"}},
                 headers={"Retry-After": "2"})
    check(r, "GET", "/healthz")


def test_content_type_parameters_are_ignored():
    check(response(200, GAME, "application/json; charset=utf-8"), "GET", "/v1/games/{id}")


def test_check_problem_for_paths_outside_the_contract():
    body = check_problem(problem("not-found", 404), "not-found", 404)
    assert body["detail"]


# --- what it rejects -----------------------------------------------------------------

def rejects(r, method, template, *fragments):
    with pytest.raises(AssertionError) as e:
        check(r, method, template)
    for f in fragments:
        assert f in str(e.value), str(e.value)
    return str(e.value)


def test_rejects_an_id_given_as_a_number():
    rejects(response(200, game(id=12345)), "GET", "/v1/games/{id}", "['id']")
    rejects(response(200, game(white={"id": 7, "name": "bob"})), "GET", "/v1/games/{id}",
            "['white']['id']")


def test_rejects_an_unknown_termination():
    g = game(status="finished", result="1-0", termination="walkover", deadline=None)
    rejects(response(200, g), "GET", "/v1/games/{id}", "termination")


def test_rejects_inconsistent_game_states():
    rejects(response(200, game(status="finished")), "GET", "/v1/games/{id}")  # result '*'
    rejects(response(200, game(termination="checkmate")), "GET", "/v1/games/{id}")
    rejects(response(200, game(status="finished", result="1/2-1/2", termination="adjudication",
                               deadline=None)), "GET", "/v1/games/{id}", "adjudication_reason")


def test_rejects_bad_times_and_missing_fields():
    rejects(response(200, game(created_at="2026-11-22 13:46:00")), "GET", "/v1/games/{id}",
            "created_at")
    g = game()
    del g["fifty_move_rule"]
    rejects(response(200, g), "GET", "/v1/games/{id}", "fifty_move_rule")


def test_rejects_an_undeclared_status():
    rejects(problem("illegal-move", 422, ply=0, move="x", reason="syntax"),
            "GET", "/v1/games/{id}", "not declared", "422")
    rejects(response(200, GAME), "POST", "/v1/games/{id}/moves", "not declared")


def test_rejects_a_problem_without_type():
    r = problem("not-found", 404)
    body = json.loads(r.content)
    del body["type"]
    r._content = json.dumps(body).encode()
    rejects(r, "GET", "/v1/games/{id}", "'type' is a required property")


def test_rejects_a_problem_of_the_wrong_slug_or_status():
    rejects(problem("conflict", 404), "GET", "/v1/games/{id}", "type")
    rejects(problem("not-found", 410), "GET", "/v1/games/{id}")
    r = problem("not-found", 404)
    r.status_code = 409
    rejects(r, "POST", "/v1/challenges/{id}/accept")


def test_rejects_an_illegal_move_problem_without_reason_or_ply():
    rejects(problem("illegal-move", 422, ply=3, move="Q@e2"), "POST", "/v1/games/{id}/moves",
            "reason")
    rejects(problem("illegal-move", 422, move="Q@e2", reason="syntax"),
            "POST", "/v1/games/{id}/moves", "ply")
    rejects(problem("not-your-turn", 409), "POST", "/v1/games/{id}/moves", "ply")


def test_rejects_the_wrong_content_type():
    rejects(response(200, GAME, "text/plain"), "GET", "/v1/games/{id}", "text/plain")
    rejects(response(404, json.loads(problem("not-found", 404).content), "application/json"),
            "GET", "/v1/games/{id}", "application/json")
    rejects(response(200, raw=b"not json", content_type="application/json"),
            "GET", "/v1/games/{id}", "not JSON")


def test_rejects_missing_required_headers():
    rejects(problem("unauthorized", 401), "GET", "/v1/players/me", "WWW-Authenticate")
    rejects(problem("unavailable", 503), "GET", "/v1/games/{id}", "Retry-After")
    r = problem("unavailable", 503)
    r.headers["Retry-After"] = "soon"
    rejects(r, "GET", "/v1/games/{id}", "Retry-After")
    rejects(problem("method-not-allowed", 405), "PUT", "/v1/games/{id}", "Allow")


def test_rejects_a_body_on_204_and_a_non_405_for_a_missing_method():
    rejects(response(204, {}), "DELETE", "/v1/players/me/tokens/{id}", "without a body")
    rejects(response(200, GAME), "DELETE", "/v1/games/{id}", "405")


def test_rejects_leaks_and_unknown_paths():
    player = {"id": "aZ3kP9qwX2", "name": "alice", "role": "player", "played": 0, "won": 0,
              "drawn": 0, "lost": 0, "points": 0, "email": "alice@example.org"}
    rejects(response(200, player), "GET", "/v1/players/{id}", "email")
    with pytest.raises(AssertionError, match="not a path"):
        check(response(200, GAME), "GET", "/v1/game/{id}")


def test_rejects_points_that_are_not_quarters():
    player = {"id": "aZ3kP9qwX2", "name": "alice", "role": "player", "played": 1, "won": 0,
              "drawn": 0, "lost": 1, "points": 0.3}
    rejects(response(200, player), "GET", "/v1/players/{id}", "points")


# --- the contract's own consistency --------------------------------------------------

def operations():
    for template, item in spec()["paths"].items():
        for method in openapi_check._METHODS:
            if method in item:
                yield template, method, item[method]


def test_every_v1_operation_declares_its_errors():
    missing = []
    for template, method, op in operations():
        if not template.startswith("/v1/"):
            continue
        codes = set(op["responses"])
        want = {"500", "503"}
        if op.get("security"):
            want.add("401")
        if "requestBody" in op:
            want |= {"400", "413", "415"}
        if "{id}" in template:
            want.add("404")
        params = [openapi_check._deref(p) for p in op.get("parameters", [])]
        # If-None-Match is never a bad request: a value that is no entity tag is
        # ignored (RFC 9110 §13.1.2).
        if any(p["in"] == "query" or (p["in"] == "header" and p["name"] != "If-None-Match")
               for p in params):
            want.add("400")
        if not want <= codes:
            missing.append(f"{method.upper()} {template}: {sorted(want - codes)}")
        assert any(c.startswith("2") for c in codes), f"{method.upper()} {template}"
    assert not missing, "\n".join(missing)


def test_every_operation_has_security_and_a_unique_operation_id():
    ids = []
    for template, method, op in operations():
        assert "security" in op, f"{method.upper()} {template} has no security"
        ids.append(op["operationId"])
    assert len(ids) == len(set(ids))


def test_request_bodies_reject_unknown_members():
    for template, method, op in operations():
        if "requestBody" not in op:
            continue
        schema = openapi_check._deref(op["requestBody"]["content"]["application/json"]["schema"])
        assert schema.get("additionalProperties") is False, f"{method.upper()} {template}"


def test_every_example_matches_its_schema():
    checked = 0
    for template, method, op in operations():
        media = []
        if "requestBody" in op:
            media += list(op["requestBody"]["content"].items())
        for code, resp in op["responses"].items():
            media += list((openapi_check._deref(resp).get("content") or {}).items())
        for media_type, m in media:
            examples = []
            if "example" in m:
                examples.append(m["example"])
            for ex in (m.get("examples") or {}).values():
                examples.append(openapi_check._deref(ex)["value"])
            for value in examples:
                errors = list(openapi_check.validator(m["schema"]).iter_errors(value))
                assert not errors, f"{method.upper()} {template} {media_type}: {errors[0].message}"
                checked += 1
    for name, resp in spec()["components"]["responses"].items():
        for media_type, m in (resp.get("content") or {}).items():
            if "example" in m:
                errors = list(openapi_check.validator(m["schema"]).iter_errors(m["example"]))
                assert not errors, f"responses/{name}: {errors[0].message}"
                checked += 1
    assert checked > 40


def test_every_component_is_used():
    text = json.dumps(spec())
    unused = []
    for kind, items in spec()["components"].items():
        for name in items:
            if kind == "securitySchemes":
                used = f'"{name}"' in json.dumps(spec()["paths"])
            else:
                used = f'"#/components/{kind}/{name}' in text
            # MethodNotAllowed answers methods a path does not list, so no operation
            # can refer to it; openapi_check uses it.
            if not used and (kind, name) != ("responses", "MethodNotAllowed"):
                unused.append(f"{kind}/{name}")
    assert not unused, unused


def test_problem_slugs_are_the_agreed_ones():
    slugs = set(re.findall(r"/problems/([a-z0-9-]+)", json.dumps(spec())))
    assert slugs == {
        "bad-request", "unauthorized", "forbidden", "not-found", "method-not-allowed",
        "conflict", "not-your-turn", "game-over", "ply-mismatch", "body-too-large",
        "unsupported-media-type", "illegal-move", "draw-not-allowed", "unavailable",
        "internal-error", "too-many-requests", "invalid-webhook-url", "invalid-value",
        "not-implemented",
        # Conditional moves whose lines answer one move differently;
        # leave over the allowance.
        "conditional-conflict", "leave-exceeded",
        # A stream resuming after events that were pruned.
        "events-pruned",
        # Engine analysis of a game the asker is still playing.
        "analysis-own-game"}, slugs
