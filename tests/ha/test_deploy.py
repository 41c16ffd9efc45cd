"""The deployment kit: the systemd units (systemd-analyze), the alert rules
(promtool) and HAProxy terminating TLS in front of two korpd (a throwaway
certificate, curl and a raw TLS socket)."""

import os
import re
import shutil
import socket
import ssl
import subprocess
import time

import pytest
import requests

from korp_fixtures import free_port, stop_process, wait_until

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
DEPLOY = os.path.join(ROOT, "deploy")


def _tool(name):
    path = shutil.which(name) or next((p for p in (f"/usr/bin/{name}", f"/usr/sbin/{name}")
                                       if os.path.exists(p)), None)
    if path is None:
        pytest.skip(f"{name} is not installed")
    return path


# ---- systemd ---------------------------------------------------------------

def _unit_settings(text):
    settings = {}
    for line in text.splitlines():
        m = re.match(r"^([A-Za-z]+)=(.*)$", line)
        if m:
            settings.setdefault(m.group(1), []).append(m.group(2))
    return settings


@pytest.mark.parametrize("unit", ["korpd.service", "korpd-notify.service"])
def test_systemd_unit_verifies_and_is_sandboxed(unit, korpd_binary, tmp_path):
    analyze = _tool("systemd-analyze")
    with open(os.path.join(DEPLOY, "systemd", unit)) as f:
        text = f.read()
    s = _unit_settings(text)
    # The sandbox the issue asks for, and a stop that outlasts korpd's own grace.
    assert s["DynamicUser"] == ["yes"]
    assert s["ProtectSystem"] == ["strict"]
    assert s["NoNewPrivileges"] == ["yes"] and s["PrivateTmp"] == ["yes"]
    assert s["CapabilityBoundingSet"] == [""]
    assert set(s["RestrictAddressFamilies"][0].split()) == {"AF_INET", "AF_INET6", "AF_UNIX"}
    assert s["KillSignal"] == ["SIGTERM"]
    assert int(s["TimeoutStopSec"][0]) > 10          # KORP_SHUTDOWN_SECONDS' default
    assert s["EnvironmentFile"][0].startswith("/etc/korp/")
    assert s["ExecStart"][0].split()[0] == "/usr/local/bin/korpd"
    assert ("--notify-only" in s["ExecStart"][0]) == (unit == "korpd-notify.service")
    # systemd checks it, with this build's korpd where the unit expects it installed.
    local = tmp_path / unit
    local.write_text(text.replace("/usr/local/bin/korpd", korpd_binary))
    out = subprocess.run([analyze, "verify", str(local)], capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 0 and out.stderr.strip() == "", out.stderr
    # Its own measure of exposure (0 best, 10 worst): "OK" is below 2.5 here.
    out = subprocess.run([analyze, "security", "--offline=yes", str(local)],
                         capture_output=True, text=True, timeout=60)
    level = re.search(r"Overall exposure level for \S+: ([0-9.]+)", out.stdout)
    assert level and float(level.group(1)) < 2.5, out.stdout[-400:]


def test_systemd_verify_can_fail(korpd_binary, tmp_path):
    """The check above is a check: a unit with a wrong key and no binary fails it."""
    analyze = _tool("systemd-analyze")
    bad = tmp_path / "bad.service"
    bad.write_text("[Service]\nExecStart=/nonexistent/korpd\n")
    out = subprocess.run([analyze, "verify", str(bad)], capture_output=True, text=True,
                         timeout=60)
    assert out.returncode != 0


# ---- Prometheus --------------------------------------------------------------

def test_alert_rules_check_and_unit_tests():
    promtool = _tool("promtool")
    folder = os.path.join(DEPLOY, "prometheus")
    out = subprocess.run([promtool, "check", "rules", "alerts.yml"], cwd=folder,
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stdout + out.stderr
    out = subprocess.run([promtool, "test", "rules", "alerts_test.yml"], cwd=folder,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stdout + out.stderr


def test_alert_rules_name_metrics_korpd_exports(korpd_binary, shared_db_url, start_korpd):
    """Every korp_ metric the rules read is one korpd's /metrics really has."""
    with open(os.path.join(DEPLOY, "prometheus", "alerts.yml")) as f:
        used = set(re.findall(r"\b(korp_[a-z_]+)", f.read()))
    k = start_korpd(shared_db_url)
    text = requests.get(k.base + "/metrics", timeout=10).text
    exported = set(re.findall(r"^# TYPE (korp_[a-z_]+) (\w+)", text, re.M))
    names = {n for n, _ in exported} | {f"{n}_bucket" for n, t in exported if t == "histogram"}
    assert used and used <= names, used - names


# ---- HAProxy with TLS --------------------------------------------------------

@pytest.fixture
def tls_proxy(tmp_path):
    haproxy = _tool("haproxy")
    openssl = _tool("openssl")
    key, cert = tmp_path / "key.pem", tmp_path / "cert.pem"
    subprocess.run([openssl, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                    "-keyout", str(key), "-out", str(cert), "-subj", "/CN=localhost",
                    "-addext", "subjectAltName=DNS:localhost"],
                   check=True, capture_output=True, timeout=60)
    pem = tmp_path / "korp.pem"
    pem.write_text(cert.read_text() + key.read_text())
    procs = []

    def start(backend1, backend2):
        port = free_port()
        env = dict(os.environ, KORP_HAPROXY_BIND=f"127.0.0.1:{port}", KORP_TLS_CERT=str(pem),
                   KORPD_1=backend1, KORPD_2=backend2)
        proc = subprocess.Popen([haproxy, "-db", "-f",
                                 os.path.join(DEPLOY, "haproxy", "korp-tls.cfg")],
                                env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        procs.append(proc)
        base = f"https://localhost:{port}"

        def up():
            assert proc.poll() is None, proc.stderr.read().decode()
            return curl(base, "/healthz", cert)[0] == "200"
        wait_until(up, 20, what="haproxy to answer over TLS")
        return base, port

    yield start, cert
    for proc in procs:
        stop_process(proc)


def curl(base, path, cert, *extra):
    """curl through the proxy, trusting only the throwaway certificate; localhost is
    pinned to 127.0.0.1.  Returns (status, the rest of curl's output)."""
    port = base.rsplit(":", 1)[1]
    out = subprocess.run(["curl", "-s", "--cacert", str(cert), "--resolve",
                          f"localhost:{port}:127.0.0.1", "-o", "/dev/null",
                          "-w", "%{http_code} %{num_connects}\\n", *extra, base + path],
                         capture_output=True, text=True, timeout=30)
    first, *rest = (out.stdout.strip().splitlines() or ["000"])
    return first.split()[0], [first] + rest


def test_haproxy_terminates_tls_in_front_of_two_korpd(shared_db_url, start_korpd, tls_proxy):
    start, cert = tls_proxy
    # Only the proxy is trusted for X-Forwarded-For; /metrics is open to one
    # address no client here has, so a forged header would open it.
    settings = dict(KORP_TRUSTED_PROXIES="127.0.0.1", KORP_METRICS_ALLOW="192.0.2.7")
    k1 = start_korpd(shared_db_url, **settings)
    k2 = start_korpd(shared_db_url, **settings)
    base, port = start(f"127.0.0.1:{k1.port}", f"127.0.0.1:{k2.port}")

    # TLS with the throwaway certificate; curl refuses it without --cacert.
    assert curl(base, "/healthz", cert)[0] == "200"
    refused = subprocess.run(["curl", "-s", "--resolve", f"localhost:{port}:127.0.0.1",
                              "-o", "/dev/null", "-w", "%{http_code}", base + "/healthz"],
                             capture_output=True, text=True, timeout=30)
    assert refused.returncode != 0 and refused.stdout == "000"
    # HTTP/1.1 keep-alive: three requests, one TLS connection.
    _, lines = curl(base, "/healthz", cert, "--http1.1", "-o", "/dev/null", base + "/healthz",
                    "-o", "/dev/null", base + "/healthz")
    assert [line.split() for line in lines] == [["200", "1"], ["200", "0"], ["200", "0"]]
    # X-Forwarded-For from the client is dropped: korpd sees 127.0.0.1, not it.
    assert curl(base, "/metrics", cert, "-H", "X-Forwarded-For: 192.0.2.7")[0] == "403"

    # An event stream through the proxy gets each move at once (no buffering).
    s = requests.post(k1.base + "/v1/players", json={"name": f"tls_w_{port}"}, timeout=10).json()
    b = requests.post(k1.base + "/v1/players", json={"name": f"tls_b_{port}"}, timeout=10).json()
    ch = requests.post(k1.base + "/v1/challenges", headers={"Authorization": f"Bearer {s['token']}"},
                       json={"variant": "korpalski", "opponent": b["id"], "color": "white"},
                       timeout=10).json()
    game = requests.post(f"{k2.base}/v1/challenges/{ch['id']}/accept",
                         headers={"Authorization": f"Bearer {b['token']}"}, timeout=10).json()
    ctx = ssl.create_default_context(cafile=str(cert))
    raw = socket.create_connection(("127.0.0.1", port), timeout=10)
    tls = ctx.wrap_socket(raw, server_hostname="localhost")
    tls.sendall(f"GET /v1/events HTTP/1.1\r\nHost: localhost\r\nAccept: text/event-stream\r\n"
                f"Authorization: Bearer {b['token']}\r\n\r\n".encode())
    seen = b""
    deadline = time.monotonic() + 10
    while b"\r\n\r\n" not in seen and time.monotonic() < deadline:
        seen += tls.recv(65536)
    assert b" 200 " in seen.split(b"\r\n", 1)[0], seen
    assert b"text/event-stream" in seen.split(b"\r\n\r\n", 1)[0]
    sent = time.monotonic()
    r = requests.post(f"{k2.base}/v1/games/{game['game']['id']}/moves",
                      headers={"Authorization": f"Bearer {s['token']}"},
                      json={"move": "K@e1"}, timeout=10)
    assert r.status_code == 201
    while b"event: move" not in seen and time.monotonic() < sent + 5:
        seen += tls.recv(65536)
    assert b"event: move" in seen
    assert time.monotonic() - sent < 2
    tls.close()

    # korpd 1 dies: the health checks on /healthz take it out, requests go on.
    k1.kill9()
    for _ in range(10):
        assert curl(base, "/healthz", cert)[0] == "200"
