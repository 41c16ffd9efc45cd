"""Real processes for the HTTP tests: a PostgreSQL cluster of the test's own
(so it may be restarted, stopped or frozen without disturbing other tests)
and korpd itself, each started on a free loopback port and stopped by PID."""

import glob
import os
import pwd
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import uuid

import requests


# Listening ports come from here, below the kernel's range for outgoing connections
# (32768-60999 on Linux), where a client's socket may take a port between the probe and
# the server's bind (see /work/shared/NOTES.md).
PORT_RANGE = range(20000, 32768)


def _candidate_ports(avoid=()):
    """Every port of PORT_RANGE once, from a point that depends on the process and
    advances with each port handed out, so that tests running side by side seldom try
    the same ports."""
    global _next_port
    if _next_port is None:
        _next_port = os.getpid() * 7919 % len(PORT_RANGE)
    for _ in range(len(PORT_RANGE)):
        port = PORT_RANGE[_next_port]
        _next_port = (_next_port + 1) % len(PORT_RANGE)
        if port not in avoid:
            yield port
    raise AssertionError(f"no free loopback port in {PORT_RANGE}")


def bind_free(sock):
    """Binds sock (a TCP socket of the test's own) to a free loopback port below 32768
    and returns it: no gap between probe and bind."""
    for port in _candidate_ports():
        try:
            sock.bind(("127.0.0.1", port))
            return port
        except OSError:
            continue


def free_port(avoid=()):
    """A loopback TCP port below 32768 that nothing listens on now (probed by binding
    it), other than those in avoid, for a server another process starts."""
    for port in _candidate_ports(avoid):
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port


_next_port = None


def made_by(factory, stop="close"):
    """A fixture's body (`yield from made_by(...)`): gives the test a function
    that makes things with factory(...), and stops each (its method named by
    stop) after the test."""
    made = []

    def make(*args, **kwargs):
        thing = factory(*args, **kwargs)
        made.append(thing)
        return thing

    yield make
    for thing in made:
        getattr(thing, stop)()


def stop_process(proc, timeout=10):
    """Stops a child process: SIGTERM, and SIGKILL when it is still there after
    timeout seconds."""
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=timeout)


def korp_replay(korp, pgn_text):
    """`korp replay` (the CLI at korp) of a PGN text: ([(ply, san, fen)], its last line)."""
    with tempfile.NamedTemporaryFile("w", suffix=".pgn", delete=False) as f:
        f.write(pgn_text)
    try:
        out = subprocess.run([korp, "replay", f.name], capture_output=True, text=True,
                             timeout=60)
    finally:
        os.unlink(f.name)
    assert out.returncode == 0, (out.stdout, out.stderr, pgn_text)
    lines = out.stdout.strip().splitlines()
    plies = []
    for line in lines[:-1]:
        ply, san, fen = line.split(" ", 2)
        plies.append((int(ply), san, fen))
    return plies, lines[-1]


def wait_until(predicate, timeout, step=0.05, what="condition"):
    """Polls predicate until it is true or timeout seconds pass (bounded)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(step)
    raise AssertionError(f"timed out after {timeout} s waiting for {what}")


def eventually(fn, timeout, what, step=0.1):
    """fn() until it returns something truthy (returned), for at most timeout seconds."""
    deadline = time.monotonic() + timeout
    while True:
        value = fn()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(step)


def _pg_bin():
    dirs = sorted(glob.glob("/usr/lib/postgresql/*/bin"))
    assert dirs, "PostgreSQL server binaries not found under /usr/lib/postgresql"
    return dirs[-1]


class Postgres:
    """A throwaway cluster owned by a non-root user, on 127.0.0.1."""

    def __init__(self):
        self.bin = _pg_bin()
        self.owner = "postgres" if os.geteuid() == 0 else pwd.getpwuid(os.geteuid()).pw_name
        self.dir = tempfile.mkdtemp(prefix="korp-pg-")
        os.chmod(self.dir, 0o755)
        if os.geteuid() == 0:
            shutil.chown(self.dir, self.owner)
        self.data = os.path.join(self.dir, "data")
        self.port = free_port()
        self._as_owner(["initdb", "-D", self.data, "-U", "korp", "--auth=trust",
                        "--locale=C.UTF-8", "-E", "UTF8"])
        with open(os.path.join(self.data, "postgresql.conf"), "a") as conf:
            conf.write(f"listen_addresses = '127.0.0.1'\nport = {self.port}\n"
                       "unix_socket_directories = ''\n")
        self.start()
        self.url = self.create_database("korp")
        self.frozen = False

    def create_database(self, name):
        """Creates the database NAME (owned by korp), a test database: every session on it
        reads the test clock (korp_now(), db/functions.sql); its URL."""
        subprocess.run(["createdb", "-h", "127.0.0.1", "-p", str(self.port), "-U", "korp", name],
                       check=True, timeout=60)
        subprocess.run(["psql", "-X", "-q", "-h", "127.0.0.1", "-p", str(self.port), "-U", "korp",
                        "-d", name, "-c", f'ALTER DATABASE "{name}" SET korp.test_clock = on'],
                       check=True, timeout=60)
        return f"postgresql://korp@127.0.0.1:{self.port}/{name}"

    def fresh_database(self, prefix):
        """A new database named PREFIX_ and a random suffix; its URL."""
        return self.create_database(f"{prefix}_{uuid.uuid4().hex[:12]}")

    def _as_owner(self, argv, check=True):
        argv = [os.path.join(self.bin, argv[0])] + argv[1:]
        if os.geteuid() == 0:
            argv = ["runuser", "-u", self.owner, "--"] + argv
        return subprocess.run(argv, check=check, cwd="/", stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, timeout=120)

    def start(self):
        self._as_owner(["pg_ctl", "-D", self.data, "-l", os.path.join(self.dir, "log"),
                        "-w", "-t", "60", "start"])

    def stop(self):
        self._as_owner(["pg_ctl", "-D", self.data, "-w", "-t", "60", "-m", "fast", "stop"],
                       check=False)

    def restart(self):
        self._as_owner(["pg_ctl", "-D", self.data, "-l", os.path.join(self.dir, "log"),
                        "-w", "-t", "60", "-m", "fast", "restart"])

    def _pids(self):
        """The postmaster and all its children."""
        with open(os.path.join(self.data, "postmaster.pid")) as f:
            master = int(f.readline())
        pids = [master]
        for status in glob.glob("/proc/[0-9]*/status"):
            try:
                with open(status) as f:
                    fields = dict(line.split(":\t", 1) for line in f if ":\t" in line)
                if int(fields.get("PPid", "0").strip()) == master:
                    pids.append(int(status.split("/")[2]))
            except (OSError, ValueError):
                pass
        return pids

    def freeze(self):
        """A hung server: every process stopped, the kernel still answers TCP."""
        for pid in self._pids():
            os.kill(pid, signal.SIGSTOP)
        self.frozen = True

    def thaw(self):
        for pid in self._pids():
            os.kill(pid, signal.SIGCONT)
        self.frozen = False

    def close(self):
        if self.frozen:
            self.thaw()
        self.stop()
        shutil.rmtree(self.dir, ignore_errors=True)


class Korpd:
    """korpd started as users start it, with settings from the environment (a setting
    given as None is left out of it), and with command-line arguments (e.g.
    --notify-only) on a port that may be chosen before it starts (so KORP_PUBLIC_URL
    can name it).  With http=False (a process without a listener) it is ready when its
    log says it delivers notifications."""

    def __init__(self, binary, database_url, args=(), port=None, http=True, **settings):
        self.port = port or free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.http = http
        env = dict(os.environ, KORP_DATABASE_URL=database_url,
                   KORP_LISTEN=f"127.0.0.1:{self.port}")
        # Tests send bursts from one address and few tokens: no rate limits unless a
        # test asks for them.
        env.setdefault("KORP_RATE_LIMIT", "0")
        # Tests sign up many players from 127.0.0.1: no sign-up limit unless asked for.
        env.setdefault("KORP_SIGNUP_LIMIT", "0")
        # ... and mail to the addresses they give, and challenge at will.
        env.setdefault("KORP_EMAIL_CONFIRMATION", "off")
        env.setdefault("KORP_CHALLENGES_PER_DAY", "0")
        env.setdefault("KORP_TOURNAMENTS_PER_DAY", "0")
        for k, v in settings.items():
            if v is None:
                env.pop(k, None)
            else:
                env[k] = str(v)
        self.log = tempfile.NamedTemporaryFile(prefix="korpd-", suffix=".log", delete=False)
        self.proc = subprocess.Popen([binary, *args], env=env, stdout=self.log,
                                     stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        if http:
            wait_until(self._answers, 20, what="korpd to answer /healthz")
        else:
            wait_until(self._delivering, 20, what="korpd to say it delivers notifications")

    def _delivering(self):
        """A process without a listener is ready once it says so in its log (after its
        migrations, with its workers started)."""
        if self.proc.poll() is not None:
            raise AssertionError(f"korpd exited early ({self.proc.returncode}): "
                                 f"{self.log_text()}")
        return "delivering notifications only" in self.log_text()

    def _answers(self):
        if self.proc.poll() is not None:
            raise AssertionError(f"korpd exited early: {self.log_text()}")
        try:
            requests.get(self.base + "/healthz", timeout=5)
            return True
        except requests.ConnectionError:
            return False

    def log_text(self):
        with open(self.log.name, errors="replace") as f:
            return f.read()

    def metric(self, name):
        """The value of an unlabelled metric of /metrics."""
        text = requests.get(self.base + "/metrics", timeout=30).text
        m = re.search("^" + re.escape(name) + r" (\S+)$", text, re.M)
        assert m, f"{name} not in the metrics"
        return float(m.group(1))

    def alive(self):
        return self.proc.poll() is None

    def kill9(self):
        """SIGKILL, as a crash: nothing korpd has not committed survives."""
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=10)

    def signal(self, sig=signal.SIGTERM):
        self.proc.send_signal(sig)

    def wait(self, timeout):
        """The exit status, or AssertionError if it does not exit in time."""
        try:
            return self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            raise AssertionError(f"korpd did not exit within {timeout} s") from None

    def close(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=10)
        self.log.close()
        try:
            os.unlink(self.log.name)
        except OSError:
            pass


# ---------------------------------------------------------------------------
# Notifications: a real SMTP server (postfix's smtp-sink), a real
# webhook endpoint (webhook_receiver.mjs, which checks signatures with the
# Standard Webhooks library).

REPO_ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))


def _stop(proc, timeout=10):
    """Stops a process this module started, by its PID: SIGTERM, then SIGKILL."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=timeout)


class SinkMessage:
    """One message smtp-sink received: its file, raw bytes, the parsed message
    (email.policy.default) and the envelope smtp-sink recorded."""

    def __init__(self, path):
        import email
        import email.policy
        self.path = path
        with open(path, "rb") as f:
            self.raw = f.read()
        self.msg = email.message_from_bytes(self.raw, policy=email.policy.default)
        self.mail_from = str(self.msg.get("X-Mail-Args", ""))
        self.rcpts = [str(v) for v in self.msg.get_all("X-Rcpt-Args", [])]
        self.mtime = os.stat(path).st_mtime

    def to(self, address):
        """True if the envelope or the To: header names address."""
        address = address.lower()
        if any(f"<{address}>" in r.lower() for r in self.rcpts):
            return True
        return address in str(self.msg.get("To", "")).lower()

    @property
    def subject(self):
        return str(self.msg.get("Subject", ""))

    def original(self):
        """The message as korpd sent it: the raw bytes without the lines smtp-sink
        put in front (X-Client-Addr ... and its own Received: header)."""
        lines = self.raw.split(b"\n")
        i = 0
        while i < len(lines) and lines[i].startswith(b"X-"):
            i += 1
        if i < len(lines) and lines[i].startswith(b"Received: ") and b"smtp-sink" in b"\n".join(lines[i:i + 3]):
            i += 1
            while i < len(lines) and lines[i][:1] in (b" ", b"\t"):
                i += 1
        return b"\n".join(lines[i:])


class SmtpSink:
    """postfix's smtp-sink on a free loopback port; it writes each message it
    receives (headers included) to a file of its own in self.mail."""

    def __init__(self):
        binary = shutil.which("smtp-sink") or "/usr/sbin/smtp-sink"
        assert os.access(binary, os.X_OK), "smtp-sink not found: install postfix"
        self.dir = tempfile.mkdtemp(prefix="korp-smtp-")
        os.chmod(self.dir, 0o755)
        self.mail = os.path.join(self.dir, "mail")
        os.mkdir(self.mail)
        argv = [binary]
        if os.geteuid() == 0:
            # smtp-sink refuses to run as root: it drops to this user after binding.
            shutil.chown(self.mail, "nobody")
            argv += ["-u", "nobody"]
        self.port = free_port()
        self.url = f"smtp://127.0.0.1:{self.port}"
        argv += ["-d", os.path.join(self.mail, "msg."), f"127.0.0.1:{self.port}", "64"]
        self.log = open(os.path.join(self.dir, "smtp-sink.log"), "wb")
        self.proc = subprocess.Popen(argv, stdout=self.log, stderr=subprocess.STDOUT,
                                     stdin=subprocess.DEVNULL, cwd="/")
        wait_until(self._listening, 10, what="smtp-sink to listen")

    def _listening(self):
        if self.proc.poll() is not None:
            raise AssertionError(f"smtp-sink exited early: {self.log_text()}")
        with socket.socket() as s:
            s.settimeout(1)
            try:
                s.connect(("127.0.0.1", self.port))
                return True
            except OSError:
                return False

    def log_text(self):
        with open(self.log.name, errors="replace") as f:
            return f.read()

    def _open_files(self):
        """Files smtp-sink holds open: messages still being received."""
        held = set()
        fd_dir = f"/proc/{self.proc.pid}/fd"
        try:
            names = os.listdir(fd_dir)
        except OSError:
            return held
        for fd in names:
            try:
                held.add(os.readlink(os.path.join(fd_dir, fd)))
            except OSError:
                pass
        return held

    def messages(self, to=None):
        """The messages received completely so far (oldest first), optionally only
        those addressed to `to`."""
        held = self._open_files()
        out = []
        for name in os.listdir(self.mail):
            path = os.path.join(self.mail, name)
            if path in held:
                continue
            try:
                m = SinkMessage(path)
            except OSError:
                continue
            if to is None or m.to(to):
                out.append(m)
        out.sort(key=lambda m: (m.mtime, m.path))
        return out

    def close(self):
        _stop(self.proc)
        self.log.close()
        shutil.rmtree(self.dir, ignore_errors=True)


def ensure_node_modules(root=REPO_ROOT):
    """The npm packages package.json pins, in root/node_modules: installs them with
    `npm ci` when missing or older than package-lock.json (as tests/lint_openapi.sh
    does).  Returns the folder."""
    import fcntl
    import json
    modules = os.path.join(root, "node_modules")

    def stale():
        with open(os.path.join(root, "package.json")) as f:
            want = json.load(f)["devDependencies"]
        marker = os.path.join(modules, ".package-lock.json")
        if not os.path.exists(marker):
            return True
        if os.stat(os.path.join(root, "package-lock.json")).st_mtime > os.stat(marker).st_mtime:
            return True
        for name, version in want.items():
            try:
                with open(os.path.join(modules, name, "package.json")) as f:
                    if json.load(f)["version"] != version:
                        return True
            except OSError:
                return True
        return False

    lock_path = os.path.join(tempfile.gettempdir(), "korp-npm-ci.lock")
    with open(lock_path, "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if stale():
            npm = shutil.which("npm")
            assert npm, "npm not found: the webhook receiver needs Node and npm"
            out = subprocess.run([npm, "ci", "--no-audit", "--no-fund"], cwd=root,
                                 capture_output=True, text=True, timeout=600)
            assert out.returncode == 0, f"npm ci failed: {out.stdout}\n{out.stderr}"
            assert not stale(), "node_modules still does not match package.json after npm ci"
    return modules


class WebhookReceiver:
    """tests/server/webhook_receiver.mjs on a free loopback port (see that file)."""

    def __init__(self, script=None):
        script = script or os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                        "webhook_receiver.mjs")
        node = shutil.which("node") or shutil.which("nodejs")
        assert node, "node not found: the webhook receiver runs on Node"
        self.dir = tempfile.mkdtemp(prefix="korp-hooks-")
        port_file = os.path.join(self.dir, "port")
        self.log = open(os.path.join(self.dir, "receiver.log"), "wb")
        self.proc = subprocess.Popen([node, script, port_file], stdout=self.log,
                                     stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                     cwd=REPO_ROOT)

        def started():
            if self.proc.poll() is not None:
                raise AssertionError(f"webhook receiver exited early: {self.log_text()}")
            return os.path.exists(port_file)

        wait_until(started, 20, what="the webhook receiver to listen")
        with open(port_file) as f:
            self.port = int(f.read())
        self.base = f"http://127.0.0.1:{self.port}"
        self.http = requests.Session()

    def url(self, path):
        return self.base + path

    def configure(self, path, **settings):
        """secrets=[...], responses=[...], default={...}, clock_offset_seconds=N,
        release=True: see webhook_receiver.mjs."""
        r = self.http.post(self.base + "/_control", json={"path": path, **settings}, timeout=10)
        assert r.status_code == 200, r.text
        return r.json()

    def received(self, path=None):
        params = {"path": path} if path is not None else None
        r = self.http.get(self.base + "/_received", params=params, timeout=10)
        assert r.status_code == 200, r.text
        return r.json()["received"]

    def log_text(self):
        with open(self.log.name, errors="replace") as f:
            return f.read()

    def close(self):
        _stop(self.proc)
        self.log.close()
        shutil.rmtree(self.dir, ignore_errors=True)


class TableLock:
    """An ACCESS EXCLUSIVE lock on a table, held by a psql session of its own until
    released: every statement reading the table waits meanwhile."""

    def __init__(self, url, table):
        self.psql = subprocess.Popen(["psql", "-X", "-Atq", "-v", "ON_ERROR_STOP=1", url],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        # A lock not granted within 30 s ends psql (and the test) rather than hanging.
        self.psql.stdin.write("SET lock_timeout = '30s'; BEGIN; "
                              f"LOCK TABLE {table} IN ACCESS EXCLUSIVE MODE; SELECT 'locked';\n")
        self.psql.stdin.flush()
        assert self.psql.stdout.readline().strip() == "locked", f"{table} not locked"

    def release(self):
        if self.psql.poll() is None:
            self.psql.communicate("ROLLBACK;\n", timeout=30)
