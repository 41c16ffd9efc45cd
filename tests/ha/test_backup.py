"""The restore drill: games are played on a cluster made as scripts/up.sh
makes its own; scripts/backup.sh takes a full backup; more moves; the time is noted;
more moves; an incremental backup; scripts/restore.sh restores to the noted time into
a new data directory and starts korpd on it.  The restored database holds exactly
the moves committed before the noted time, korpd serves them, and their PGNs replay
with `korp replay`."""

import os
import shutil
import signal
import subprocess
import tempfile

import pytest
import requests

from ha_cluster import ROOT, api_call, move_of, new_game, replay, wait_until

BUILD = os.environ.get("KORP_BUILD_DIR")
KORP = os.environ.get("KORP")
LIB = os.path.join(ROOT, "scripts", "lib.sh")


def bash(script, env=None, timeout=300):
    out = subprocess.run(["bash", "-c", script], env=dict(os.environ, **(env or {})),
                         capture_output=True, text=True, timeout=timeout)
    assert out.returncode == 0, out.stdout + out.stderr
    return out.stdout


@pytest.fixture
def cluster():
    """A cluster as up.sh makes one (lib.sh: a non-root owner, passwords, roles
    korp_admin and korp, database korp); {dir, data, port, url}; stopped after."""
    if not BUILD or not KORP:
        pytest.skip("KORP_BUILD_DIR and KORP (the CLI) are not set")
    folder = tempfile.mkdtemp(prefix="korp-backup-")
    os.chmod(folder, 0o755)
    out = bash(f'. "{LIB}"; OWNER=$(korp_pg_owner); '
               f'[ "$(id -un)" = "$OWNER" ] || chown "$OWNER" "{folder}"; '
               f'korp_pg_throwaway "{folder}/pg" "$OWNER" >&2; '
               f'korp_pg_role "{folder}/pg" "$OWNER" $KORP_PG_PORT_FOUND; '
               f'korp_pg_createdb "{folder}/pg" $KORP_PG_PORT_FOUND korp; '
               f'echo $KORP_PG_PORT_FOUND')
    port = int(out.split()[-1])
    c = {"dir": folder, "data": os.path.join(folder, "pg"), "port": port,
         "url": f"postgresql://korp@127.0.0.1:{port}/korp?passfile={folder}/korp.pgpass"}
    yield c
    for pidfile in [os.path.join(d, "korpd.pid") for d in c.get("restored", [])]:
        try:
            with open(pidfile) as f:
                os.kill(int(f.read()), signal.SIGKILL)
        except (OSError, ValueError):
            pass
    for data in [c["data"]] + [os.path.join(d, "pg") for d in c.get("restored", [])]:
        bash(f'. "{LIB}"; korp_pg_stop "{data}" "$(stat -c %U "{data}")"')
    shutil.rmtree(folder, ignore_errors=True)


def play(base, game, plies):
    """Plays the moves for `plies` (1-based) in this game; returns them."""
    played = []
    for ply in plies:
        status, body = api_call(base, "POST", f"/v1/games/{game['id']}/moves",
                                game["tokens"][(ply - 1) % 2],
                                {"move": move_of(ply), "ply": ply - 1})
        assert status == 201, body
        played.append(move_of(ply))
    return played


def admin_sql(c, sql):
    return bash(f'. "{LIB}"; korp_pg_admin "{c["data"]}" {c["port"]} -d korp -tAc "{sql}"').strip()


def test_point_in_time_restore(cluster, start_korpd):
    env = {"KORP_PGDATA": cluster["data"], "KORP_BUILD_DIR": BUILD}
    k = start_korpd(cluster["url"])
    games = [new_game(k.base, f"bk{i}_") for i in range(3)]
    before = {g["id"]: play(k.base, g, range(1, 5)) for g in games}

    out = bash(f'bash "{ROOT}/scripts/backup.sh" full', env)
    assert "full backup" in out, out
    backed_up = admin_sql(cluster, "SELECT clock_timestamp()")

    # korpd, not restarted, plays on (PostgreSQL restarted under it once).
    for g in games:
        before[g["id"]] += wait_until(lambda: _try_play(k.base, g, range(5, 9)), 30,
                                      "a move after the restart")
    # pgBackRest picks a backup that stopped before the noted time, to the second.
    wait_until(lambda: admin_sql(cluster, f"SELECT clock_timestamp() > '{backed_up}'::timestamptz"
                                          " + interval '1.5 s'") == "t", 10,
               "the clock to pass the backup's last second")
    noted = admin_sql(cluster, "SELECT clock_timestamp()")
    after = {g["id"]: play(k.base, g, range(9, 13)) for g in games}
    # A game started after the noted time is not in the restored database.
    late = new_game(k.base, "bklate_")
    play(k.base, late, range(1, 3))
    bash(f'bash "{ROOT}/scripts/backup.sh" incr', env)
    assert all(len(v) == 4 for v in after.values())

    out = bash(f'bash "{ROOT}/scripts/restore.sh" "{noted}"', env, timeout=600)
    lines = out.strip().splitlines()
    assert lines[-2].startswith("korpd http://127.0.0.1:"), lines[-2:]
    assert lines[-1].startswith("postgresql 127.0.0.1:"), lines[-2:]
    restored_dir = os.path.dirname(lines[-1].split()[-1])
    cluster.setdefault("restored", []).append(restored_dir)
    base = lines[-2].split()[-1]

    # Exactly the moves committed before the noted time, served by korpd and
    # replayed by korp from the PGN.
    for g in games:
        r = requests.get(f"{base}/v1/games/{g['id']}", timeout=10)
        assert r.status_code == 200
        assert r.json()["moves"] == before[g["id"]]
        assert r.json()["ply"] == 8
        pgn = requests.get(f"{base}/v1/games/{g['id']}/pgn", timeout=10)
        assert pgn.status_code == 200
        assert [san for _, san, _ in replay(KORP, pgn.text)] == before[g["id"]]
    assert requests.get(f"{base}/v1/games/{late['id']}", timeout=10).status_code == 404
    # The original goes on untouched, with every move.
    for g in games:
        r = requests.get(f"{k.base}/v1/games/{g['id']}", timeout=10)
        assert r.json()["moves"] == before[g["id"]] + after[g["id"]]


def _try_play(base, game, plies):
    """Plays plies once PostgreSQL is back; None while moves get 503."""
    first = plies[0]
    status, _ = api_call(base, "GET", f"/v1/games/{game['id']}")
    if status != 200:
        return None
    r = api_call(base, "POST", f"/v1/games/{game['id']}/moves", game["tokens"][(first - 1) % 2],
                 {"move": move_of(first), "ply": first - 1})
    if r[0] in (502, 503):
        return None
    assert r[0] == 201, r
    return [move_of(first)] + play(base, game, plies[1:])

