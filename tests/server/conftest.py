"""pytest fixtures shared by the HTTP tests (see korp_fixtures.py)."""

import os

import pytest

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
