"""A small client for korpd's API that checks every answer against
openapi.yaml (openapi_check.check), so that every test validates every
response it receives against the schema of its route and status."""

import uuid

import requests

from openapi_check import check


class Api:
    """Talks to one korpd; `token` (optional) authenticates the calls."""

    def __init__(self, base, token=None):
        self.base = base
        self.token = token
        self.http = requests.Session()

    def as_(self, token):
        return Api(self.base, token)

    def call(self, method, template, params=(), json=None, headers=None, query=None,
             data=None, expect=None):
        """Calls template (e.g. "/v1/games/{id}/moves") with params filled in
        order; checks the answer against the contract, and its status
        against `expect` when given.  Returns (status, body)."""
        path = template
        for p in params:
            path = path.replace(path[path.index("{"):path.index("}") + 1], p, 1)
        h = dict(headers or {})
        if self.token is not None:
            h.setdefault("Authorization", f"Bearer {self.token}")
        r = self.http.request(method, self.base + path, json=json, headers=h, params=query,
                              data=data, timeout=30)
        body = check(r, method, template)
        if expect is not None:
            assert r.status_code == expect, f"{method} {path}: {r.status_code} {r.text}"
        return r.status_code, body

    # ---- conveniences for the common steps

    def new_player(self, prefix="p"):
        name = f"{prefix}_{uuid.uuid4().hex[:12]}"
        _, body = self.call("POST", "/v1/players", json={"name": name}, expect=201)
        return self.as_(body["token"]), body

    def new_game(self, opponent_api, opponent_id, variant="korpalski", color="white",
                 days_per_move=None, fifty_move_rule=True):
        """This player challenges the opponent, who accepts; returns the game."""
        _, ch = self.call("POST", "/v1/challenges",
                          json={"variant": variant, "opponent": opponent_id, "color": color,
                                "days_per_move": days_per_move,
                                "fifty_move_rule": fifty_move_rule}, expect=201)
        _, accepted = opponent_api.call("POST", "/v1/challenges/{id}/accept", [ch["id"]],
                                        expect=201)
        return accepted["game"]

    def move(self, game_id, move, expect=201, **extra):
        return self.call("POST", "/v1/games/{id}/moves", [game_id],
                         json={"move": move, **extra}, expect=expect)[1]

    def game(self, game_id):
        return self.call("GET", "/v1/games/{id}", [game_id], expect=200)[1]
