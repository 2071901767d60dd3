"""One file is the whole server: the real binary, started from an empty directory with no
--public, serves every file of Public/ byte for byte and every page route; `--public DIR`
still overrides the built-in pages; `tombola --version` and `tombola_build_info` on /metrics
name the version (VERSION), the commit the binary was built from and the Swift compiler.
"""
import hashlib
import os
import re
import shutil
import signal
import subprocess
import tempfile
import time
import urllib.request

import pytest

from abuse_support import BINARY, ROOT, banner_port, eventually

PUBLIC = os.path.join(ROOT, "Public")


def version_lines():
    run = subprocess.run([BINARY, "--version"], capture_output=True, text=True, timeout=30)
    assert run.returncode == 0, run.stderr
    return run.stdout


class Server:
    """The binary started in `cwd` with `extra` options on a port it picks."""

    def __init__(self, cwd, *extra):
        self.out_path = os.path.join(cwd, "..", os.path.basename(cwd) + "-out.txt")
        self.process = subprocess.Popen([BINARY, "--host", "127.0.0.1", "--port", "0", *extra], cwd=cwd,
                                        stdout=open(self.out_path, "wb"), stderr=subprocess.STDOUT)
        self.port = 0
        deadline = time.monotonic() + 30
        while self.port == 0:
            assert self.process.poll() is None, self.output()
            assert time.monotonic() < deadline, "no banner: " + self.output()
            time.sleep(0.05)
            self.port = banner_port(self.output())

    def output(self):
        with open(self.out_path, encoding="utf-8", errors="replace") as f:
            return f.read()

    def get(self, path):
        with urllib.request.urlopen("http://127.0.0.1:%d%s" % (self.port, path), timeout=10) as response:
            return response.status, response.read()

    def stop(self):
        self.process.send_signal(signal.SIGTERM)
        try:
            assert self.process.wait(timeout=15) == 0, self.output()
        finally:
            if self.process.poll() is None:
                self.process.kill()


@pytest.fixture
def place():
    path = tempfile.mkdtemp(prefix="tombola-release-")
    os.makedirs(os.path.join(path, "empty"))
    yield path
    shutil.rmtree(path, ignore_errors=True)


def public_files():
    files = {}
    for directory, names, file_names in os.walk(PUBLIC):
        names[:] = [n for n in names if not n.startswith(".")]
        for name in file_names:
            if not name.startswith("."):
                path = os.path.join(directory, name)
                with open(path, "rb") as f:
                    files[os.path.relpath(path, PUBLIC)] = f.read()
    return files


def test_started_from_an_empty_directory_the_binary_serves_every_page(place):
    cwd = os.path.join(place, "empty")
    server = Server(cwd)
    try:
        files = public_files()
        assert len(files) > 30 and "draw.html" in files
        for path, contents in files.items():
            status, body = server.get("/" + path)
            assert status == 200 and body == contents, path
        for route, page in (("/", "index.html"), ("/calc", "calc.html"), ("/draw/PARTY1", "draw.html"),
                            ("/screen/PARTY1", "screen.html"), ("/watch/PARTY1", "watch.html")):
            assert server.get(route) == (200, files[page]), route
        # The only thing it made where it was started is the data directory.
        assert os.listdir(cwd) == ["tombola-data"]
        # SIGHUP has nothing to re-read and keeps serving the same pages.
        server.process.send_signal(signal.SIGHUP)
        assert eventually(lambda: "nothing to reload" in server.output())
        assert server.get("/") == (200, files["index.html"])
    finally:
        server.stop()


def test_public_dir_overrides_the_built_in_pages_and_sighup_reloads_it(place):
    pages = os.path.join(place, "pages")
    os.makedirs(pages)
    with open(os.path.join(pages, "index.html"), "w") as f:
        f.write("<!doctype html><title>mine</title>")
    server = Server(os.path.join(place, "empty"), "--public", pages)
    try:
        assert server.get("/") == (200, b"<!doctype html><title>mine</title>")
        with open(os.path.join(pages, "index.html"), "w") as f:
            f.write("<!doctype html><title>edited</title>")
        server.process.send_signal(signal.SIGHUP)
        assert eventually(lambda: server.get("/")[1] == b"<!doctype html><title>edited</title>", timeout=10)
    finally:
        server.stop()


def test_version_names_the_release_the_commit_the_date_and_swift():
    text = version_lines()
    with open(os.path.join(ROOT, "VERSION")) as f:
        version = f.read().strip()
    match = re.fullmatch(r"tombola (\S+)\ncommit (\S+)\nbuilt (\S+)\nswift (\S+)\nsha256 ([0-9a-f]{64})\n", text)
    assert match, text
    # The binary's own SHA-256 (issue #47): the digest of the file that printed it.
    with open(BINARY, "rb") as f:
        assert match.group(5) == hashlib.sha256(f.read()).hexdigest(), text
    assert match.group(1) == version
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", match.group(3)), text
    assert re.fullmatch(r"\d+\.\d+(\.\d+)?", match.group(4)), text
    head = subprocess.run(["git", "-C", ROOT, "rev-parse", "HEAD"], capture_output=True, text=True)
    if os.path.exists(os.path.join(ROOT, ".git")) and head.returncode == 0:
        # The commit the binary was built from: HEAD after `swift build` (scripts/test builds
        # first), or an ancestor when a commit came after the last build.
        assert re.fullmatch(r"[0-9a-f]{12}", match.group(2)), text
        ancestor = subprocess.run(["git", "-C", ROOT, "merge-base", "--is-ancestor", match.group(2), "HEAD"])
        assert ancestor.returncode == 0, "%s is not a commit of this checkout's history" % match.group(2)
    else:
        assert match.group(2) == "unknown"


def test_metrics_carry_the_build_info(place):
    text = version_lines()
    version, commit, swift = (re.search(r"^%s (\S+)$" % word, text, flags=re.M).group(1)
                              for word in ("tombola", "commit", "swift"))
    server = Server(os.path.join(place, "empty"))
    try:
        _, body = server.get("/metrics")
    finally:
        server.stop()
    line = 'tombola_build_info{version="%s",commit="%s",swift="%s"} 1' % (version, commit, swift)
    assert line in body.decode().splitlines(), body.decode()
