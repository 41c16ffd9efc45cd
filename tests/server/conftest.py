"""pytest fixtures shared by the HTTP tests (see korp_fixtures.py)."""

import os

import pytest

from korp_client import Api
from korp_fixtures import Korpd, Postgres


@pytest.fixture(scope="module")
def korpd_binary():
    path = os.environ.get("KORPD")
    if not path:
        pytest.skip("KORPD is not set: run through ctest (scripts/test.sh)")
    return path


@pytest.fixture
def own_postgres():
    pg = Postgres()
    yield pg
    pg.close()


@pytest.fixture
def start_korpd(korpd_binary):
    started = []

    def start(database_url, **settings):
        k = Korpd(korpd_binary, database_url, **settings)
        started.append(k)
        return k

    yield start
    for k in started:
        k.close()


@pytest.fixture(scope="module")
def shared_db_url():
    url = os.environ.get("KORP_TEST_DATABASE_URL")
    if not url:
        pytest.skip("KORP_TEST_DATABASE_URL is not set: run through scripts/test.sh")
    return url


@pytest.fixture(scope="module")
def korpd(korpd_binary, shared_db_url):
    """One korpd on the suite's database (with the test clock), for a module."""
    k = Korpd(korpd_binary, shared_db_url, KORP_TEST_CLOCK=1, KORP_SWEEP_SECONDS=1)
    yield k
    k.close()


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


def _binary(variable):
    path = os.environ.get(variable)
    if not path:
        pytest.skip(f"{variable} is not set: run through ctest (scripts/test.sh)")
    return path


@pytest.fixture(scope="module")
def bot_binary():
    """examples/random-bot's binary (ctest sets KORP_RANDOM_BOT)."""
    return _binary("KORP_RANDOM_BOT")


@pytest.fixture(scope="module")
def korp_binary():
    """The korp tool (ctest sets KORP)."""
    return _binary("KORP")
