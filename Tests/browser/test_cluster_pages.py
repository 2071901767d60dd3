"""The draw pages in Chromium against a cluster (docs/CLUSTER.md): a private redis-server
(AOF, fsync always), three `tombola --redis` instances with the real pages, and HAProxy
(deploy/haproxy/tombola-cluster.cfg, plus tombola-cluster-https.cfg with a self-signed
certificate) in front of them. The host page is on a follower, the
screen on the owner, viewers on every instance and through HAProxy over HTTP and HTTPS: a round's ticks and
winners appear on every page, every page's recheck passes, and no page logs a console error.

The Redis and HAProxy helpers are those of Tests/peers/test_cluster.py.
"""

import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

import pytest
from selenium.webdriver.common.by import By

from conftest import ADMIN_KEY, DRAW_CODE, HOST_KEY, ROOT, server_command
from test_draw import TICK_RECORDER, assert_same_ticks, open_page, press_startstop, winners_text
from test_checkin import click, draw_one_and_see_the_win, host_opens_entries, open_room, phone_joins

PEERS = os.path.join(ROOT, "Tests", "peers")


def peers_cluster():
    """Tests/peers/test_cluster.py as a module (its helpers import their neighbours)."""
    if PEERS not in sys.path:
        sys.path.append(PEERS)
    spec = importlib.util.spec_from_file_location("peers_test_cluster", os.path.join(PEERS, "test_cluster.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class ClusterInstance:
    """One `tombola --redis` process serving the real pages on a free port."""

    def __init__(self, redis_url, key_file):
        self.data_dir = tempfile.mkdtemp(prefix="tombola-browser-cluster-")
        self.log_path = os.path.join(self.data_dir, "server.log")
        self.log = open(self.log_path, "ab")
        command = server_command(0, self.data_dir) + ["--redis", redis_url, "--cluster-key", key_file]
        self.proc = subprocess.Popen(command, stdout=self.log, stderr=subprocess.STDOUT, cwd=ROOT)
        deadline = time.time() + 30
        text = ""
        while "Press Ctrl-C" not in text:
            assert self.proc.poll() is None, "instance exited; log in " + self.log_path
            assert time.time() < deadline, "no banner; log in " + self.log_path
            time.sleep(0.05)
            with open(self.log_path, encoding="utf-8", errors="replace") as f:
                text = f.read()
        self.port = int(re.search(r"Home:\s*http://127\.0\.0\.1:(\d+)/", text).group(1))
        self.id = re.search(r"as instance ([0-9a-f]+)", text).group(1)

    def url(self, path):
        return "http://127.0.0.1:%d%s" % (self.port, path)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.kill()  # SIGKILL: nothing to flush in cluster mode, and no blocked-SIGTERM trap
        self.proc.wait(timeout=10)
        self.log.close()
        shutil.rmtree(self.data_dir, ignore_errors=True)


@pytest.fixture
def cluster(tmp_path):
    if not shutil.which("redis-server") and not os.path.exists("/usr/bin/redis-server"):
        pytest.fail("redis-server is missing: scripts/deps.sh installs it")
    peers = peers_cluster()
    redis_dir = tmp_path / "redis"
    redis_dir.mkdir()
    key_file = tmp_path / "cluster.key"
    key_file.write_bytes(os.urandom(32))
    redis = peers.Redis(str(redis_dir))
    instances, balancer = [], None
    try:
        for _ in range(3):
            instances.append(ClusterInstance(redis.url, str(key_file)))
        work = tmp_path / "haproxy"
        work.mkdir()
        # Plain and HTTPS (deploy/haproxy/tombola-cluster-https.cfg, a self-signed certificate).
        balancer = peers.Balancer("haproxy", instances, str(work), tls=peers.self_signed(str(work)))
        yield redis, instances, balancer
    finally:
        if balancer:
            balancer.stop()
        for instance in instances:
            instance.stop()
        redis.kill()


def owner_of(redis, instances, timeout=15):
    deadline = time.time() + timeout
    while time.time() < deadline:
        value = redis.cli("GET", "{d:%s}:lease" % DRAW_CODE)
        holder = value.split(":", 1)[1] if ":" in value else None
        for instance in instances:
            if instance.id == holder:
                return instance
        time.sleep(0.05)
    raise AssertionError("no instance owns the draw")


def test_a_round_run_from_a_follower_reaches_pages_on_every_instance(cluster, browser):
    redis, instances, balancer = cluster
    owner = owner_of(redis, instances)
    followers = [i for i in instances if i is not owner]
    host = open_page(browser(), followers[0].url("/draw/%s#key=%s" % (DRAW_CODE, HOST_KEY)))
    host.wait_js("window.tombola.state.role === 'host'")
    screen = open_page(browser(1280, 720), owner.url("/screen/%s" % DRAW_CODE))
    viewers = [open_page(browser(), instance.url("/watch/%s" % DRAW_CODE)) for instance in instances]
    through = open_page(browser(), "http://127.0.0.1:%d/watch/%s" % (balancer.port, DRAW_CODE))
    # Over HTTPS through HAProxy (HTTP/2 with ALPN; the page's WebSocket is wss://).
    secure = browser()
    secure.execute_cdp_cmd("Security.setIgnoreCertificateErrors", {"ignore": True})
    open_page(secure, "https://127.0.0.1:%d/watch/%s" % (balancer.tls_port, DRAW_CODE))
    assert secure.js("return location.protocol") == "https:"
    pages = [host, screen, through, secure] + viewers
    for page in pages:
        page.js(TICK_RECORDER)
    # Every page on every instance is counted (summed across instances by the owner).
    for page in pages:
        page.wait_js("window.tombola.state.viewers >= %d" % len(pages), 15)

    press_startstop(host)
    for page in pages:
        page.wait_js("window.tombola.state.phase === 'rolling'", 15)
    assert_same_ticks(pages, 10, where="instances")

    press_startstop(host)
    for page in pages:
        page.wait_js("window.tombola.state.phase === 'revealed' && window.tombola.state.lastReveal", 20)
    result = host.js("return window.tombola.state.lastReveal")
    expected = [str(w) for w in result["winners"]]
    for page in pages:
        assert page.js("return window.tombola.state.lastReveal.hash") == result["hash"], page.current_url
        page.wait_js("document.querySelector('[data-verified]').dataset.verify === 'ok'", 15)
    for page in [host, through, secure] + viewers:
        page.wait(lambda page=page: [w.replace(",", "") for w in winners_text(page)][-len(expected):] == expected, 10)
    # The viewers' entropy was forwarded to the owner and counted, whichever instance they are on.
    for page in [through, secure] + viewers:
        page.wait_js("!document.querySelector('[data-contributed]').hidden", 10)
    for page in pages:
        assert page.errors() == [], page.current_url
    assert ADMIN_KEY  # the instances run with the fixed admin key of conftest (unused here)


def test_phones_on_followers_join_and_the_winners_phone_shows_the_win(cluster, browser):
    """Check-in across instances (docs/CLUSTER.md "Check-in"): the host on one follower opens
    entries, phones on both followers join (each its own browser, so its own device cookie),
    every page counts them, the host closes and draws, and the winner's phone says so."""
    redis, instances, balancer = cluster
    owner = owner_of(redis, instances)
    followers = [i for i in instances if i is not owner]
    host = open_room(browser(390, 844), followers[0].url("/draw/%s#key=%s" % (DRAW_CODE, HOST_KEY)))
    host.wait_js("window.tombola.state.role === 'host'")
    host_opens_entries(host)
    screen = open_room(browser(1280, 720), owner.url("/screen/%s#key=%s" % (DRAW_CODE, HOST_KEY)))

    phones = {}
    for n, instance in enumerate([followers[1], followers[0], followers[1], followers[0]], start=1):
        phone = open_room(browser(390, 844), instance.url("/watch/%s" % DRAW_CODE))
        entry_id = phone_joins(phone, n)
        assert entry_id not in phones
        phones[entry_id] = phone
    # After a reload on its instance the phone still finds its entry, in its state too (`checkin.me`,
    # from the owner) as on the owner's pages.
    first_id, first = next(iter(phones.items()))
    first.refresh()
    first.wait_js("window.tombola && window.tombola.state.checkin && window.tombola.state.checkin.me"
                  " && window.tombola.state.checkin.me.id === %s && window.tombola.state.me.id === %s"
                  % (json.dumps(first_id), json.dumps(first_id)), 15)

    screen.wait_js("document.querySelector('[data-entrant-count]').textContent.includes('%d')" % len(phones), 15)
    host.wait_js("document.querySelectorAll('[data-checkin-list] li').length === %d" % len(phones), 15)
    click(host, "[data-checkin-close]")
    host.wait_js("window.tombola.state.checkin.open === false && window.tombola.state.remaining === %d" % len(phones), 15)
    winner = draw_one_and_see_the_win(host, phones)
    for entry_id, other in phones.items():
        if entry_id != winner:
            other.wait_js("window.tombola.state.phase === 'revealed'", 15)
            assert other.find_element(By.CSS_SELECTOR, "[data-you-won]").get_attribute("hidden") is not None
    # The host, on a follower, sees that the winner's phone (on a follower) is connected.
    host.wait_js("!document.querySelector('[data-winner-presence]').hidden", 15)
    assert "not connected" not in host.find_element(By.CSS_SELECTOR, "[data-winner-presence]").text
    for page in [host, screen] + list(phones.values()):
        assert page.errors(allow=("favicon",)) == [], page.current_url
