"""korpd's stop with its database frozen (every PostgreSQL process SIGSTOPped: the
kernel still accepts and acknowledges, nothing answers): SIGTERM ends korpd within
10 s, status 0, whatever its background parts were waiting for.  Each test has a
cluster of its own, thawed after it."""

import os
import signal
import subprocess
import time

import pytest

from korp_fixtures import Postgres, wait_until


def _signal_cluster(pg, sig, postmaster_first):
    """Sends sig to the cluster's processes; one that ended meanwhile (a client's
    server process, or one a test killed) is passed over."""
    pids = pg._pids()
    for pid in pids if postmaster_first else reversed(pids):
        try:
            os.kill(pid, sig)
        except ProcessLookupError:
            pass
    pg.frozen = sig == signal.SIGSTOP


@pytest.fixture
def frozen_able():
    """A cluster of the test's own, frozen by freeze(), thawed and removed after it."""
    pg = Postgres()
    pg.freeze = lambda: _signal_cluster(pg, signal.SIGSTOP, postmaster_first=True)
    try:
        yield pg
    finally:
        if pg.frozen:
            _signal_cluster(pg, signal.SIGCONT, postmaster_first=False)
        pg.close()


def _stops_within(k, seconds):
    started = time.monotonic()
    k.signal(signal.SIGTERM)
    status = k.wait(timeout=seconds + 20)
    took = time.monotonic() - started
    assert status == 0, k.log_text()[-2000:]
    assert took < seconds, (took, k.log_text()[-2000:])


def test_stop_while_the_sweep_waits_on_a_frozen_database(frozen_able, start_korpd):
    # A sweep every second: with the database frozen, each of its steps (the
    # deadlines, the tournaments, each table's pruning) waits for a deadline.
    k = start_korpd(frozen_able.url, KORP_SWEEP_SECONDS=1)
    frozen_able.freeze()
    wait_until(lambda: "deadline sweep failed" in k.log_text(), 60, step=0.2,
               what="a sweep to fail on the frozen database")
    _stops_within(k, 10)


def test_stop_while_the_listener_reconnects_to_a_frozen_database(frozen_able, start_korpd):
    k = start_korpd(frozen_able.url, KORP_SWEEP_SECONDS=3600)

    def listener():
        """The server process of korpd's event listener, once it listens."""
        out = subprocess.run(["psql", frozen_able.url, "-Atqc",
                              "SELECT pid FROM pg_stat_activity"
                              " WHERE query = 'LISTEN korp_events'"],
                             capture_output=True, text=True, timeout=30, check=True)
        pids = out.stdout.split()
        return int(pids[0]) if len(pids) == 1 else None

    wait_until(lambda: listener() is not None, 20, step=0.2, what="the listener to listen")
    pid = listener()
    frozen_able.freeze()
    # The listener's server process dies (its socket closes); the postmaster, frozen,
    # takes nothing new: the listener's reconnection hangs until its deadlines.
    os.kill(pid, signal.SIGKILL)
    wait_until(lambda: "listener on korp_events: connection lost" in k.log_text(), 20,
               step=0.1, what="the listener to lose its connection")
    _stops_within(k, 10)
