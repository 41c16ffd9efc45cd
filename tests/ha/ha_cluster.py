"""korp on Patroni, for the failover test and bench/failover.sh: the cluster that
scripts/ha-up.sh starts (in a folder of the caller's), the primary's "node" killed by
PID, clients that play moves at a steady rate with Idempotency-Keys and retry until
each move has its true outcome, an event stream that resumes with Last-Event-ID, a
webhook receiver, and the checks of what the database holds afterwards."""

import http.server
import os
import signal
import subprocess
import sys
import threading
import time

import psycopg2
import requests

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tests", "server"))

from korp_fixtures import korp_replay  # noqa: E402
from test_events import Stream  # noqa: E402  (tests/server's SSE client)


def wait_until(predicate, timeout, what, step=0.1):
    """Polls predicate until it returns something true (returned) or timeout seconds
    pass (AssertionError)."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() >= deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(step)


def _get_status(url):
    try:
        return requests.get(url, timeout=2).status_code
    except requests.RequestException:
        return None


class Cluster:
    """etcd, three Patroni nodes and korpd, started by scripts/ha-up.sh under `folder`
    (KORP_HA_DIR) with the korpd of `build`; stopped by scripts/ha-down.sh."""

    def __init__(self, folder, build, **settings):
        self.folder = folder
        self.env = dict(os.environ, KORP_HA_DIR=folder, KORP_BUILD_DIR=build,
                        KORP_RATE_LIMIT="0", KORP_SIGNUP_LIMIT="0",
                        KORP_WEBHOOK_ALLOW_PRIVATE="1",
                        **{k: str(v) for k, v in settings.items()})
        self.env.pop("KORP_LISTEN", None)
        self.env.pop("KORP_DATABASE_URL", None)
        try:
            self.up()
        except BaseException:
            self.print_logs()
            self.down()
            raise
        self.ports = {}
        with open(os.path.join(folder, "ports")) as f:
            for line in f:
                k, _, v = line.strip().partition("=")
                self.ports[k] = v
        self.pg_ports = [int(self.ports[f"PG_PORT_{n}"]) for n in (1, 2, 3)]
        self.korpd_pid = self._pid("korpd.pid")

    def up(self):
        """scripts/ha-up.sh: starts what is not running (a killed node rejoins)."""
        out = subprocess.run(["bash", os.path.join(ROOT, "scripts", "ha-up.sh")],
                             env=self.env, capture_output=True, text=True, timeout=400)
        assert out.returncode == 0, out.stdout + out.stderr
        lines = out.stdout.strip().splitlines()
        assert lines[-2].startswith("korpd http://127.0.0.1:"), lines[-2:]
        assert lines[-1].startswith("patroni http://127.0.0.1:"), lines[-2:]
        self.base = lines[-2].split(" ", 1)[1]
        self.rest = lines[-1].split(" ", 1)[1].split(",")
        assert len(self.rest) == 3
        return out.stdout

    def down(self):
        subprocess.run(["bash", os.path.join(ROOT, "scripts", "ha-down.sh")], env=self.env,
                       capture_output=True, timeout=300)

    def print_logs(self, lines=25):
        """The end of every log (pytest shows it when a test fails)."""
        logs = ["etcd.log", "korpd.log"] + [f"node{n}/patroni.log" for n in (1, 2, 3)]
        for name in logs:
            try:
                with open(os.path.join(self.folder, name), errors="replace") as f:
                    tail = f.readlines()[-lines:]
            except OSError:
                continue
            print(f"---- {name}\n" + "".join(tail))

    def _pid(self, name):
        with open(os.path.join(self.folder, name)) as f:
            return int(f.read())

    def korpd_alive(self):
        try:
            with open(f"/proc/{self.korpd_pid}/cmdline", "rb") as f:
                return os.path.join(self.folder, "korpd").encode() in f.read()
        except OSError:
            return False

    def leader(self):
        """The index (0-2) of the node whose Patroni says it is the primary, or None."""
        for i, api in enumerate(self.rest):
            if _get_status(api + "/primary") == 200:
                return i
        return None

    def sync_standby(self):
        for i, api in enumerate(self.rest):
            if _get_status(api + "/sync") == 200:
                return i
        return None

    def node_pids(self, i):
        """Patroni of node i, its postmaster and the postmaster's children."""
        node = os.path.join(self.folder, f"node{i + 1}")
        pids = [self._pid(f"node{i + 1}.pid")]
        with open(f"/proc/{pids[0]}/cmdline", "rb") as f:
            assert os.path.join(node, "patroni.yml").encode() in f.read()
        with open(os.path.join(node, "pg", "postmaster.pid")) as f:
            master = int(f.readline())
        pids.append(master)
        children = subprocess.run(["pgrep", "-P", str(master)], capture_output=True,
                                  text=True).stdout.split()
        return pids + [int(p) for p in children]

    def kill_node(self, i):
        """kill -9 of node i as a whole (Patroni and PostgreSQL); the time it happened."""
        pids = self.node_pids(i)
        for pid in pids:
            os.kill(pid, signal.SIGKILL)
        return time.monotonic()

    def wait_leader(self, other_than=None, timeout=90):
        """The index of the primary once there is one (other than `other_than`)."""
        found = []

        def elected():
            n = self.leader()
            if n is not None and n != other_than:
                found.append(n)
            return bool(found)
        wait_until(elected, timeout, "a primary")
        return found[0]

    def wait_new_leader(self, old, timeout=90):
        return self.wait_leader(other_than=old, timeout=timeout)

    def sql(self, query, params=()):
        """Rows of a query on the primary, as the superuser."""
        leader = self.wait_leader(timeout=60)
        conn = psycopg2.connect(host="127.0.0.1", port=self.pg_ports[leader], dbname="korp",
                                user="korp_admin",
                                passfile=os.path.join(self.folder, "korp_admin.pgpass"),
                                connect_timeout=5)
        try:
            with conn, conn.cursor() as cur:
                cur.execute(query, params)
                return cur.fetchall() if cur.description else []
        finally:
            conn.close()


# ---------------------------------------------------------------------------
# Players and games

def api_call(base, method, path, token=None, body=None, headers=None, timeout=10):
    h = dict(headers or {})
    if token:
        h["Authorization"] = f"Bearer {token}"
    r = requests.request(method, base + path, json=body, headers=h, timeout=timeout)
    return r.status_code, (r.json() if r.content and
                           r.headers.get("Content-Type", "").endswith("json") else None)


def new_player(base, name):
    status, body = api_call(base, "POST", "/v1/players", body={"name": name})
    assert status == 201, body
    return body["token"], body["id"]


def new_game(base, prefix):
    """Two new players and a Korpalski game between them (no fifty-move rule: the
    moves below shuffle knights for ever)."""
    wt, wid = new_player(base, f"{prefix}w")
    bt, bid = new_player(base, f"{prefix}b")
    status, ch = api_call(base, "POST", "/v1/challenges", wt,
                          {"variant": "korpalski", "opponent": bid, "color": "white",
                           "fifty_move_rule": False})
    assert status == 201, ch
    status, acc = api_call(base, "POST", f"/v1/challenges/{ch['id']}/accept", bt)
    assert status == 201, acc
    return {"id": acc["game"]["id"], "tokens": [wt, bt], "players": [wid, bid]}


# Kings and knights dropped, then the knights go back and forth: legal for ever
# (Korpalski draws by repetition only when claimed; the fifty-move rule is off).
OPENING = ["K@e1", "K@e8", "N@f3", "N@f6"]
CYCLE = ["Ng1", "Ng8", "Nf3", "Nf6"]


def move_of(ply):
    """The move for ply `ply` (1-based)."""
    return OPENING[ply - 1] if ply <= len(OPENING) else CYCLE[(ply - 1 - len(OPENING)) % 4]


# ---------------------------------------------------------------------------
# Clients

class Client(threading.Thread):
    """Plays both sides of one game at `interval` seconds a move.  Each move goes with
    its ply and an Idempotency-Key; an answer that is no answer (no connection, 502,
    503, 504) is retried with the same key until the move's true outcome (201) comes,
    within `retry_seconds`.  Every other answer is recorded as a failure."""

    RETRY = (None, 502, 503, 504)

    def __init__(self, base, game, tag, interval=0.05, retry_seconds=90):
        super().__init__(daemon=True)
        self.base, self.game, self.tag = base, game, tag
        self.interval, self.retry_seconds = interval, retry_seconds
        self.stopping = threading.Event()
        self.acked = []          # (ply, san, time of the 201)
        self.successes = []      # (start of the attempt, its end) of every 201
        self.retried = 0         # moves that needed more than one attempt
        self.unanswered = []     # statuses seen before the outcome (503 and the like)
        self.failures = []       # (ply, status, body): none expected
        self.unresolved = []     # keys whose outcome never came
        self.http = requests.Session()

    def attempt(self, ply, key):
        token = self.game["tokens"][(ply - 1) % 2]
        try:
            r = self.http.post(f"{self.base}/v1/games/{self.game['id']}/moves",
                               json={"move": move_of(ply), "ply": ply - 1},
                               headers={"Authorization": f"Bearer {token}",
                                        "Idempotency-Key": key}, timeout=15)
            return r.status_code, r.text
        except requests.RequestException as e:
            self.http = requests.Session()
            return None, str(e)

    def run(self):
        ply = 1
        while not self.stopping.is_set():
            key = f"{self.tag}-{self.game['id']}-{ply}"
            give_up = time.monotonic() + self.retry_seconds
            tries = 0
            while True:
                start = time.monotonic()
                status, text = self.attempt(ply, key)
                tries += 1
                if status not in self.RETRY:
                    break
                self.unanswered.append(status)
                if time.monotonic() > give_up:
                    self.unresolved.append(key)
                    return
                time.sleep(0.1)
            if tries > 1:
                self.retried += 1
            if status != 201:
                self.failures.append((ply, status, text[:300]))
                return
            now = time.monotonic()
            self.acked.append((ply, move_of(ply), now))
            self.successes.append((start, now))
            ply += 1
            time.sleep(self.interval)

    def stop(self, timeout=120):
        self.stopping.set()
        self.join(timeout)
        assert not self.is_alive(), "a client did not finish its move in time"


class Load:
    def __init__(self, base, games, tag, interval=0.05):
        self.clients = [Client(base, g, tag, interval) for g in games]

    def start(self):
        for c in self.clients:
            c.start()

    def stop(self):
        for c in self.clients:
            c.stop()

    def acked_count(self):
        return sum(len(c.acked) for c in self.clients)

    def first_success_after(self, t):
        """The end of the first 201 to an attempt started at or after t, or None."""
        ends = [end for c in self.clients for start, end in list(c.successes) if start >= t]
        return min(ends) if ends else None

    def acks_between(self, t0, t1):
        return sum(1 for c in self.clients for _, _, at in list(c.acked) if t0 <= at < t1)


class Follower(threading.Thread):
    """One player's event stream, read for as long as the test runs; when korpd ends
    it (or the connection breaks), reopened with Last-Event-ID."""

    def __init__(self, base, token):
        super().__init__(daemon=True)
        self.base, self.token = base, token
        self.ids, self.events, self.reconnects = [], [], 0
        self.stopping = threading.Event()

    def run(self):
        last = 0            # from the player's first event
        while not self.stopping.is_set():
            try:
                s = Stream(self.base, token=self.token, last_event_id=last)
            except OSError:
                self.reconnects += 1
                time.sleep(0.2)
                continue
            while not self.stopping.is_set():
                try:
                    item = s.items.get(timeout=0.2)
                except Exception:
                    if s.closed.is_set() and s.items.empty():
                        break
                    continue
                if "id" in item:
                    self.ids.append(item["id"])
                    self.events.append(item)
                    last = item["id"]
            s.close()
            if not self.stopping.is_set():
                self.reconnects += 1
                time.sleep(0.2)

    def stop(self):
        self.stopping.set()
        self.join(10)


class Receiver:
    """A webhook endpoint on loopback: answers 204 to every POST and counts the
    deliveries by their webhook-id header."""

    def __init__(self):
        seen = self.seen = []

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                n = int(self.headers.get("Content-Length", "0"))
                self.rfile.read(n)
                seen.append(self.headers.get("webhook-id"))
                self.send_response(204)
                self.end_headers()

            def log_message(self, *args):
                pass

        sys.path.insert(0, os.path.join(ROOT, "tests", "server"))
        from korp_fixtures import bind_free
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler,
                                                      bind_and_activate=False)
        self.port = bind_free(self.server.socket)
        self.server.server_address = ("127.0.0.1", self.port)
        self.server.server_activate()
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.port}/hook"

    def close(self):
        self.server.shutdown()
        self.server.server_close()


# ---------------------------------------------------------------------------
# Afterwards: what the database holds

def replay(korp, pgn_text):
    """`korp replay` of a PGN: [(ply, san, fen)]."""
    return korp_replay(korp, pgn_text)[0]


def check_moves(cluster, load, korp):
    """Every 201 is in the database exactly once, the plies of each game run 1..n
    with nothing else, and the stored positions are those `korp replay` computes
    from the game's PGN.  Returns (acknowledged, lost, duplicated)."""
    acknowledged = lost = duplicated = 0
    for c in load.clients:
        gid = c.game["id"]
        rows = cluster.sql("SELECT ply, san, fen FROM moves WHERE game_id = %s ORDER BY ply",
                           (gid,))
        (game_ply, game_fen), = cluster.sql("SELECT ply, fen FROM games WHERE id = %s", (gid,))
        stored = {}
        for ply, san, fen in rows:
            duplicated += ply in stored
            stored[ply] = (san, fen)
        acked = {ply: san for ply, san, _ in c.acked}
        acknowledged += len(acked)
        lost += sum(1 for ply, san in acked.items() if stored.get(ply, (None,))[0] != san)
        assert [r[0] for r in rows] == list(range(1, len(rows) + 1)), f"{gid}: plies not contiguous"
        assert sorted(acked) == [r[0] for r in rows], \
            f"{gid}: stored plies {len(rows)} but {len(acked)} acknowledged"
        assert game_ply == len(rows)
        r = requests.get(f"{cluster.base}/v1/games/{gid}/pgn", timeout=10)
        assert r.status_code == 200
        replayed = replay(korp, r.text)
        assert [(p, s) for p, s, _ in replayed] == [(r[0], r[1]) for r in rows]
        for (p, _, fen), row in zip(replayed, rows):
            assert fen == row[2], f"{gid} ply {p}: stored {row[2]}, replayed {fen}"
        if rows:
            assert game_fen == replayed[-1][2]
    return acknowledged, lost, duplicated


def settle_streams_and_deliveries(cluster, follower, player_id, timeout=60):
    """The stream saw every event of its player once, in order; every owed webhook
    delivery was delivered."""
    def stream_caught_up():
        ids = [r[0] for r in cluster.sql(
            "SELECT id FROM events WHERE player_id = %s ORDER BY id", (player_id,))]
        return ids if list(follower.ids) == ids else None
    try:
        wait_until(stream_caught_up, timeout, "the stream to see every event", step=0.5)
    except AssertionError:
        ids = [r[0] for r in cluster.sql(
            "SELECT id FROM events WHERE player_id = %s ORDER BY id", (player_id,))]
        seen = list(follower.ids)
        dup = len(seen) - len(set(seen))
        raise AssertionError(f"stream: {len(seen)} seen ({dup} twice), {len(ids)} stored, "
                             f"missing {sorted(set(ids) - set(seen))[:10]}") from None
    wait_until(lambda: cluster.sql("SELECT count(*) FROM deliveries"
                                   " WHERE status <> 'delivered'")[0][0] == 0,
               timeout, "every owed notification to be delivered", step=0.5)
