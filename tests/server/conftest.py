"""pytest fixtures shared by the HTTP tests (see korp_fixtures.py)."""

import os
from contextlib import closing

import pytest

from korp_client import Api
from korp_fixtures import Korpd, Postgres, SmtpSink, made_by


def _from_env(variable, through="ctest (scripts/test.sh)"):
    """The environment's VARIABLE; the test skips when it is not set."""
    value = os.environ.get(variable)
    if not value:
        pytest.skip(f"{variable} is not set: run through {through}")
    return value


@pytest.fixture(scope="module")
def korpd_binary():
    return _from_env("KORPD")


@pytest.fixture
def own_postgres():
    with closing(Postgres()) as pg:
        yield pg


@pytest.fixture
def sink():
    """smtp-sink on a free port, stopped after the test."""
    with closing(SmtpSink()) as s:
        yield s


@pytest.fixture
def start_korpd(korpd_binary):
    """start(database_url, **settings): a korpd of the test's own, stopped after it."""
    yield from made_by(lambda database_url, **settings: Korpd(korpd_binary, database_url, **settings))


@pytest.fixture(scope="module")
def shared_db_url():
    return _from_env("KORP_TEST_DATABASE_URL", "scripts/test.sh")


@pytest.fixture(scope="module")
def korpd(korpd_binary, shared_db_url):
    """One korpd on the suite's database (with the test clock), for a module."""
    with closing(Korpd(korpd_binary, shared_db_url, KORP_TEST_CLOCK=1, KORP_SWEEP_SECONDS=1)) as k:
        yield k


@pytest.fixture
def api(korpd):
    return Api(korpd.base)


@pytest.fixture
def two_players(api):
    """(white_api, white, black_api, black): two fresh players."""
    wa, w = api.new_player("w")
    ba, b = api.new_player("b")
    return wa, w, ba, b


@pytest.fixture(scope="module")
def arbiter(korpd_binary, shared_db_url, korpd):
    """An Api with a fresh arbiter's token (made by `korpd admin create-arbiter`)."""
    import subprocess
    import uuid
    env = dict(os.environ, KORP_DATABASE_URL=shared_db_url)
    name = f"arb_{uuid.uuid4().hex[:12]}"
    out = subprocess.run([korpd_binary, "admin", "create-arbiter", name], env=env,
                         capture_output=True, text=True, timeout=60, check=True)
    token = out.stdout.strip()
    assert token.startswith("korp_"), out
    return Api(korpd.base, token)




@pytest.fixture(scope="module")
def bot_binary():
    """examples/random-bot's binary (ctest sets KORP_RANDOM_BOT)."""
    return _from_env("KORP_RANDOM_BOT")


@pytest.fixture(scope="module")
def korp_binary():
    """The korp tool (ctest sets KORP)."""
    return _from_env("KORP")
