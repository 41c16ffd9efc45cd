"""Fixtures of the security suite: tests/server's own (korpd, the shared database,
HAProxy with deploy/haproxy.cfg), imported, not copied."""

import importlib.util
import os
import sys

SERVER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "server")
sys.path.insert(0, SERVER)


def _load(name, filename):
    spec = importlib.util.spec_from_file_location(name, os.path.join(SERVER, filename))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_server = _load("server_conftest", "conftest.py")
_scaleout = _load("server_scaleout", "test_scaleout.py")

korpd_binary = _server.korpd_binary
shared_db_url = _server.shared_db_url
start_korpd = _server.start_korpd
sink = _server.sink
haproxy = _scaleout.haproxy
