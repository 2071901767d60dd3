"""A `tombola` server for one bench script: on a free port of 127.0.0.1, a fresh data directory,
stopped (SIGKILL) and removed after. Standard library only."""
import json
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def call(base, method, path, body=None, key=None, timeout=60):
    """The response body (bytes) of one request; `body` is JSON-encoded unless it is bytes already."""
    data = None if body is None else (body if isinstance(body, bytes) else json.dumps(body).encode())
    request = urllib.request.Request(base + path, data=data, method=method)
    if key:
        request.add_header("Authorization", "Bearer " + key)
    if data is not None:
        request.add_header("Content-Type", "application/json")
    with urllib.request.urlopen(request, timeout=timeout) as response:
        return response.read()


class LocalServer:
    """`with LocalServer(binary, public, "--default-draw", CODE, …) as server:` → `server.base`, `server.port`."""

    def __init__(self, binary, public, *flags, prefix="tombola-bench-"):
        self.binary, self.public, self.flags, self.prefix = binary, public, flags, prefix

    def __enter__(self):
        self.data = tempfile.mkdtemp(prefix=self.prefix)
        self.port = free_port()
        self.base = "http://127.0.0.1:%d" % self.port
        self.process = subprocess.Popen([self.binary, "--host", "127.0.0.1", "--port", str(self.port), "--data", self.data,
                                         "--public", self.public, *self.flags],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.time() + 60
        while True:
            try:
                call(self.base, "GET", "/healthz", timeout=2)
                return self
            except (urllib.error.URLError, ConnectionError, OSError):
                if time.time() > deadline or self.process.poll() is not None:
                    self.__exit__(None, None, None)
                    sys.exit("server did not start")
                time.sleep(0.1)

    def __exit__(self, *exc):
        # SIGKILL: a child of a test process may have SIGTERM blocked (HELPERS.md).
        self.process.send_signal(signal.SIGKILL)
        self.process.wait()
        shutil.rmtree(self.data, ignore_errors=True)
        return False
