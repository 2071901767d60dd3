"""Browser test harness: starts the real Tombola server on a free port with a
temporary data directory and fixed keys, and hands out headless Chromium drivers
that collect console errors.

Environment:
  TOMBOLA_BIN        server binary (default .build/release/tombola, then .build/debug/tombola)
  CHROMIUM, CHROMEDRIVER   defaults /usr/bin/chromium, /usr/bin/chromedriver
  TOMBOLA_PUBLIC     a Public/ directory to serve instead of the pages built into the binary
                     (`--public`): page edits show without a rebuild; CI leaves it unset
  TOMBOLA_BROWSER_POOL=0   a new Chromium for every `browser(...)` instead of a kept, reset one
"""

import contextlib
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.support.ui import WebDriverWait

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
HOST_KEY = "test-host-key-7d1f0c2a9b"
ADMIN_KEY = "test-admin-key-40e2c8f1"
DRAW_CODE = "K7QX2M"


def free_port():
    with contextlib.closing(socket.socket()) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def server_command(port, data_dir):
    flags = ["--host", "127.0.0.1", "--port", str(port), "--data", data_dir,
             "--host-key", HOST_KEY, "--admin-key", ADMIN_KEY, "--default-draw", DRAW_CODE]
    candidates = [os.environ.get("TOMBOLA_BIN"),
                  os.path.join(ROOT, ".build", "release", "tombola"),
                  os.path.join(ROOT, ".build", "debug", "tombola")]
    for path in candidates:
        if path and os.path.isfile(path) and os.access(path, os.X_OK):
            public = os.environ.get("TOMBOLA_PUBLIC")
            return [path] + flags + (["--public", public] if public else [])
    pytest.fail("no server binary: build it (swift build -c release --product tombola), "
                "or set TOMBOLA_BIN")


def banner_port(log_path, offset):
    """The port in the start-up banner's Home line (0 until the whole banner is written)."""
    with open(log_path, "rb") as f:
        f.seek(offset)
        text = f.read().decode("utf-8", "replace")
    if "Press Ctrl-C" not in text:
        return 0
    for line in text.splitlines():
        if "Home:" in line:
            return int(line.rstrip("/").rsplit(":", 1)[1])
    return 0


class Server:
    """A running server; `url(path)` for pages, `restart()` keeps the data dir."""

    def __init__(self):
        self.port = 0  # the server picks a free one (no race with other programs); restarts keep it
        self.data_dir = tempfile.mkdtemp(prefix="tombola-browser-")
        self.proc = None
        self.code, self.host_key, self.admin_key = DRAW_CODE, HOST_KEY, ADMIN_KEY
        self.start()

    def start(self):
        log_path = os.path.join(self.data_dir, "server.log")
        offset = os.path.getsize(log_path) if os.path.exists(log_path) else 0
        self.log = open(log_path, "ab")
        self.proc = subprocess.Popen(server_command(self.port, self.data_dir), stdout=self.log,
                                     stderr=subprocess.STDOUT, cwd=ROOT)
        deadline = time.time() + 30
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError("server exited with %s; log in %s" % (self.proc.returncode, self.data_dir))
            if self.port == 0:
                self.port = banner_port(log_path, offset)
                if self.port == 0:
                    time.sleep(0.1)
                    continue
            try:
                with urllib.request.urlopen(self.url("/healthz"), timeout=1) as r:
                    if r.status == 200:
                        return
            except OSError:
                time.sleep(0.1)
        raise RuntimeError("server did not answer /healthz within 30 s")

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()

    def restart(self):
        self.stop()
        self.start()

    def url(self, path, port=None):
        return "http://127.0.0.1:%d%s" % (port or self.port, path)

    def host_url(self, page="draw", port=None):
        return self.url("/%s/%s#key=%s" % (page, self.code, self.host_key), port)


class Proxy:
    """A TCP proxy in front of the server whose connections the test can cut
    (a phone losing Wi-Fi): `cut()` drops every connection and refuses new ones
    until `restore()`."""

    def __init__(self, target_port):
        self.target = target_port
        self.listener = socket.socket()
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(64)
        self.port = self.listener.getsockname()[1]
        self.down = False
        self.conns = []
        self.lock = threading.Lock()
        self.closed = False
        threading.Thread(target=self.accept_loop, daemon=True).start()

    def accept_loop(self):
        while not self.closed:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            if self.down:
                client.close()
                continue
            try:
                upstream = socket.create_connection(("127.0.0.1", self.target), timeout=5)
                upstream.settimeout(None)
            except OSError:
                client.close()
                continue
            with self.lock:
                self.conns += [client, upstream]
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self.pipe, args=(a, b), daemon=True).start()

    @staticmethod
    def pipe(src, dst):
        try:
            while True:
                data = src.recv(65536)
                if not data:
                    break
                dst.sendall(data)
        except OSError:
            pass
        for s in (src, dst):
            with contextlib.suppress(OSError):
                s.shutdown(socket.SHUT_RDWR)

    def cut(self):
        self.down = True
        with self.lock:
            for s in self.conns:
                with contextlib.suppress(OSError):
                    s.shutdown(socket.SHUT_RDWR)
                with contextlib.suppress(OSError):
                    s.close()
            self.conns = []

    def restore(self):
        self.down = False

    def close(self):
        self.closed = True
        self.cut()
        self.listener.close()


# Console messages that are expected when a test cuts the network on purpose.
EXPECTED_WHEN_CUT = ("WebSocket connection to", "net::ERR_CONNECTION_REFUSED", "net::ERR_CONNECTION_RESET",
                     "net::ERR_EMPTY_RESPONSE", "Failed to load resource")


class Browser:
    """A headless Chromium window; `errors()` returns SEVERE console messages."""

    def __init__(self, width=390, height=844, lang="en-US", extra_args=()):
        options = Options()
        options.binary_location = os.environ.get("CHROMIUM", "/usr/bin/chromium")
        # TOMBOLA_CHROMIUM_GPU=swiftshader (bench/stage_fps.py --gpu): GPU raster and compositing
        # through ANGLE's SwiftShader (a GPU on the CPU), the path a laptop's real GPU takes.
        gpu = (["--use-angle=swiftshader", "--enable-unsafe-swiftshader", "--ignore-gpu-blocklist"]
               if os.environ.get("TOMBOLA_CHROMIUM_GPU") == "swiftshader" else ["--disable-gpu"])
        for arg in ["--headless=new", "--no-sandbox", *gpu, "--disable-dev-shm-usage",
                    "--hide-scrollbars", "--window-size=%d,%d" % (width, height), "--lang=%s" % lang,
                    "--autoplay-policy=no-user-gesture-required", *extra_args]:
            options.add_argument(arg)
        options.add_experimental_option("prefs", {"intl.accept_languages": lang})
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        service = Service(os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver"))
        self.driver = webdriver.Chrome(options=options, service=service)
        self.driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
            "width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 600})
        self.width, self.height, self.lang = width, height, lang
        self.log = []
        self.origins = set()
        self.cdp_used = set()
        record, run = self.cdp_used, self.driver.execute_cdp_cmd

        def execute_cdp_cmd(cmd, cmd_args):
            record.add(cmd)
            return run(cmd, cmd_args)
        self.driver.execute_cdp_cmd = execute_cdp_cmd

    def get(self, url):
        if url.startswith("http"):
            self.origins.add("/".join(url.split("/", 3)[:3]))
        return self.driver.get(url)

    def set_window_size(self, width, height):
        self.cdp_used.add("set_window_size")
        return self.driver.set_window_size(width, height)

    def reset(self):
        """Back to a new window's state, for the next test (BrowserPool): one tab on about:blank (so
        no page holds a socket), no cookies, storage or cache of any origin it opened, no emulation
        a test set, no console messages. False (then it is quit instead) when a test changed
        something this cannot undo (permissions, downloads, certificates, the window's size)."""
        if self.cdp_used - RESETTABLE_CDP:
            return False
        try:
            here = self.driver.current_url
            if here.startswith("http"):
                self.origins.add("/".join(here.split("/", 3)[:3]))
            handles = self.driver.window_handles
            for handle in handles[1:]:
                self.driver.switch_to.window(handle)
                self.driver.close()
            self.driver.switch_to.window(handles[0])
            self.driver.get("about:blank")
            run = self.driver.execute_cdp_cmd
            run("Network.clearBrowserCookies", {})
            run("Network.clearBrowserCache", {})
            for origin in self.origins:
                run("Storage.clearDataForOrigin", {"origin": origin, "storageTypes": "all"})
            run("Emulation.setEmulatedMedia", {"media": "", "features": []})
            run("Emulation.setDefaultBackgroundColorOverride", {})
            run("Emulation.setDeviceMetricsOverride", {
                "width": self.width, "height": self.height, "deviceScaleFactor": 1, "mobile": self.width < 600})
            self.driver.get_log("browser")  # drained: the next test reads only its own messages
        except Exception:
            return False
        self.log, self.origins, self.cdp_used = [], set(), set()
        return True

    def __getattr__(self, name):
        return getattr(self.driver, name)

    def collect(self):
        with contextlib.suppress(Exception):
            self.log.extend(self.driver.get_log("browser"))
        return self.log

    def errors(self, allow=()):
        return [e["message"] for e in self.collect()
                if e["level"] == "SEVERE" and not any(a in e["message"] for a in allow)]

    def js(self, script, *args):
        return self.driver.execute_script(script, *args)

    def wait(self, predicate, timeout=10, message=""):
        return WebDriverWait(self.driver, timeout, poll_frequency=0.05).until(lambda d: predicate(), message)

    def wait_js(self, expression, timeout=10):
        """Waits until a JS expression is truthy and returns its value."""
        return self.wait(lambda: self.js("return (%s);" % expression), timeout, "timed out waiting for: " + expression)

    def quit(self):
        with contextlib.suppress(Exception):
            self.driver.quit()


@pytest.fixture(scope="session")
def server():
    s = Server()
    yield s
    s.stop()
    shutil.rmtree(s.data_dir, ignore_errors=True)


# What Browser.reset undoes; a test that sent any other DevTools command gets a new window next time.
RESETTABLE_CDP = {"Emulation.setEmulatedMedia", "Emulation.setDeviceMetricsOverride",
                  "Emulation.setDefaultBackgroundColorOverride", "Page.captureScreenshot", "Page.printToPDF"}


class BrowserPool:
    """Chromium windows kept between tests: starting one costs 1–3 s of two shared cores, and the
    browser tests open several hundred. A window goes back after its test only if `reset` can
    return it to a new window's state; at most KEEP of each size and language wait."""

    KEEP = 4

    def __init__(self):
        self.idle = {}

    def take(self, width, height, lang):
        waiting = self.idle.get((width, height, lang), [])
        while waiting:
            b = waiting.pop()
            try:
                b.driver.current_url  # still answering
                return b
            except Exception:
                b.quit()
        return Browser(width, height, lang)

    def give_back(self, b):
        waiting = self.idle.setdefault((b.width, b.height, b.lang), [])
        if len(waiting) < self.KEEP and b.reset():
            waiting.append(b)
        else:
            b.quit()

    def close(self):
        for waiting in self.idle.values():
            for b in waiting:
                b.quit()
        self.idle = {}


@pytest.fixture(scope="session")
def browser_pool():
    pool = BrowserPool()
    yield pool
    pool.close()


@pytest.fixture
def browser(browser_pool):
    """Factory: browser(width, height, lang) → Browser, as a new window would be (a kept one,
    reset: BrowserPool); all go back to the pool, or quit, at teardown. TOMBOLA_BROWSER_POOL=0
    starts and quits a new Chromium for each instead."""
    made = []
    pooled = os.environ.get("TOMBOLA_BROWSER_POOL", "1") != "0"

    def make(width=390, height=844, lang="en-US"):
        b = browser_pool.take(width, height, lang) if pooled else Browser(width, height, lang)
        made.append(b)
        return b

    yield make
    for b in made:
        if pooled:
            browser_pool.give_back(b)
        else:
            b.quit()


@pytest.fixture
def proxy(server):
    p = Proxy(server.port)
    yield p
    p.close()


@pytest.fixture(scope="session")
def static_site():
    """The real server, for tests of page-only code (formatting, CSV, verify.js)."""
    srv = Server()
    yield "http://127.0.0.1:%d" % srv.port
    srv.stop()
    shutil.rmtree(srv.data_dir, ignore_errors=True)


def pretty(obj):
    return json.dumps(obj, ensure_ascii=False, indent=1)
