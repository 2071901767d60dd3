"""The real `tombola` binary on loopback, for the abuse and secrets tests.

`TOMBOLA_BIN` names the binary (scripts/test sets it); otherwise .build/debug/tombola.
Each server gets its own data and Public directories and a port it picks itself (--port 0,
read back from its banner, so no other program can take it meanwhile), and is stopped
with SIGTERM. Its stdout/stderr are kept for the tests that grep them.
"""
import http.client
import os
import signal
import socket
import subprocess
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BINARY = os.environ.get("TOMBOLA_BIN", os.path.join(ROOT, ".build", "debug", "tombola"))


def free_port():
    """A loopback port free right now, for programs that cannot listen on port 0 and tell us
    which port they got (nginx, caddy). Tombola itself is always started on --port 0.

    Picked below the kernel's ephemeral range (32768–60999 here): a port the kernel hands out
    for port 0 may be handed out again, before the program binds it, as the source port of one
    of the tests' many outgoing connections (the proxy storms open thousands)."""
    import random
    for _ in range(200):
        port = random.randint(20000, 32000)
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise RuntimeError("no free loopback port in 20000-32000")


class Tombola:
    def __init__(self, *extra, host_key="hk-Secret-7Q2w9Zx4", admin_key="ak-Secret-3Lm8Np5R", code="ABUSE1"):
        self.host_key, self.admin_key, self.code = host_key, admin_key, code
        self.dir = tempfile.mkdtemp(prefix="tombola-abuse-")
        public = os.path.join(self.dir, "public")
        os.makedirs(public)
        for name in ("index.html", "draw.html", "watch.html", "screen.html", "calc.html"):
            with open(os.path.join(public, name), "w") as f:
                f.write("<!doctype html><title>%s</title>" % name)
        self.port = 0
        self.out_path = os.path.join(self.dir, "stdout.txt")
        self.err_path = os.path.join(self.dir, "stderr.txt")
        self.data = os.path.join(self.dir, "data")
        args = [BINARY, "--host", "127.0.0.1", "--port", "0", "--data", self.data,
                "--public", public, "--default-draw", code, "--host-key", host_key, "--admin-key", admin_key, *extra]
        self.process = subprocess.Popen(args, stdout=open(self.out_path, "wb"), stderr=open(self.err_path, "wb"))
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                break
            if self.port == 0:
                self.port = banner_port(self.stdout())
                if self.port == 0:
                    time.sleep(0.05)
                    continue
            try:
                if self.request("GET", "/healthz")[0] == 200:
                    return
            except OSError:
                time.sleep(0.05)
        self.stop()
        raise RuntimeError("tombola did not start: " + self.stderr())

    def request(self, method, path, body=None, headers=None, source="127.0.0.1", timeout=10):
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout, source_address=(source, 0))
        try:
            connection.request(method, path, body=body, headers=headers or {})
            response = connection.getresponse()
            return response.status, response.read()
        finally:
            connection.close()

    def latency_ms(self, path="/healthz"):
        start = time.monotonic()
        status, _ = self.request("GET", path)
        assert status == 200
        return (time.monotonic() - start) * 1000

    def rss_bytes(self):
        with open("/proc/%d/status" % self.process.pid) as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
        return 0

    def open_connections(self):
        _, body = self.request("GET", "/metrics")
        for line in body.decode().splitlines():
            if line.startswith("tombola_http_open_connections "):
                return int(float(line.split()[1])) - 1
        raise AssertionError("no open-connections gauge")

    def stop(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

    def stdout(self):
        with open(self.out_path, "rb") as f:
            return f.read().decode("utf-8", "replace")

    def stderr(self):
        with open(self.err_path, "rb") as f:
            return f.read().decode("utf-8", "replace")


def banner_port(text):
    """The port in the start-up banner's Home line (0 until the whole banner is written)."""
    if "Press Ctrl-C" not in text:
        return 0
    for line in text.splitlines():
        if "Home:" in line:
            return int(line.rstrip("/").rsplit(":", 1)[1])
    return 0


def eventually(condition, timeout=5.0, interval=0.05):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(interval)
    return condition()
