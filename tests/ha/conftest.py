"""Fixtures of the HA and deployment tests: tests/server's own (korpd, the suite's
database), imported, not copied."""

import importlib.util
import os
import sys

SERVER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "server")
sys.path.insert(0, SERVER)

_spec = importlib.util.spec_from_file_location("server_conftest",
                                               os.path.join(SERVER, "conftest.py"))
_server = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_server)

korpd_binary = _server.korpd_binary
shared_db_url = _server.shared_db_url
start_korpd = _server.start_korpd
