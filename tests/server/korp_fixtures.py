"""Real processes for the HTTP tests: a PostgreSQL cluster of the test's own
(so it may be restarted, stopped or frozen without disturbing other tests)
and korpd itself, each started on a free loopback port and stopped by PID."""

import glob
import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
import time

import requests


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_until(predicate, timeout, step=0.05, what="condition"):
    """Polls predicate until it is true or timeout seconds pass (bounded)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(step)
    raise AssertionError(f"timed out after {timeout} s waiting for {what}")


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
        subprocess.run(["createdb", "-h", "127.0.0.1", "-p", str(self.port), "-U", "korp",
                        "korp"], check=True)
        self.url = f"postgresql://korp@127.0.0.1:{self.port}/korp"
        self.frozen = False

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
    """korpd started as users start it, with settings from the environment."""

    def __init__(self, binary, database_url, **settings):
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        env = dict(os.environ, KORP_DATABASE_URL=database_url,
                   KORP_LISTEN=f"127.0.0.1:{self.port}")
        # Tests send bursts from one address and few tokens: no rate limits unless a
        # test asks for them.
        env.setdefault("KORP_RATE_LIMIT", "0")
        env.update({k: str(v) for k, v in settings.items()})
        self.log = tempfile.NamedTemporaryFile(prefix="korpd-", suffix=".log", delete=False)
        self.proc = subprocess.Popen([binary], env=env, stdout=self.log,
                                     stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        wait_until(self._answers, 20, what="korpd to answer /healthz")

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
        os.unlink(self.log.name)
