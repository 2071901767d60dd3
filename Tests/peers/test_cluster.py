"""Cluster mode (docs/CLUSTER.md) with real processes: a private `redis-server` (AOF,
fsync always) on a free loopback port in a temporary directory, and `tombola --redis`
instances on port 0 (the port read from the banner), watched by `websockets` pages.

- three instances, pages on all three, the host on a non-owner: ticks and results reach
  every page in order, every page shows the same winners, viewer counts add up;
- failover: kill -9 the owner while rolling and while stopping, TOMBOLA_CLUSTER_FAILOVERS
  times (default 6; 50 with CI=true): another instance takes the lease within 3 s, no
  announced winner is lost or changed, and the final export passes `tombola verify` and the
  FAIRNESS.md script;
- fencing: the owner SIGSTOPped past its lease and resumed writes and announces nothing;
- Redis SIGKILLed and restarted on its AOF: nothing acknowledged is lost, commands meanwhile
  get `cluster_unavailable`, the draw carries on;
- HAProxy (deploy/haproxy/tombola-cluster.cfg) and nginx (deploy/nginx/tombola-cluster.conf)
  in front of three instances: pages and REST through it; a page whose instance dies
  reconnects through the balancer to another and resyncs.
"""
import asyncio
import json
import os
import re
import shutil
import signal
import ssl
import subprocess
import tempfile
import threading
import time
import urllib.error
import urllib.request

import pytest
import websockets

from abuse_support import free_port
from test_draw_export import ADMIN_KEY, Tombola, verify_with_script  # noqa: F401
from test_fairness_script import script, tombola_binary  # noqa: F401 (fixture)

CODE = "CLUSTER1"
HOST_KEY = "peer-host-key-0123456789"


def wait_for_pong(server, what):
    """Until `server.cli("PING")` answers PONG, while `server.proc` runs."""
    deadline = time.time() + 20
    while server.cli("PING") != "PONG":
        assert server.proc.poll() is None, "%s exited" % what
        assert time.time() < deadline, "%s did not answer PING" % what
        time.sleep(0.05)


class Redis:
    """A private redis-server with appendonly yes and appendfsync always (plus `extra_args`)."""

    extra_args = ()

    def __init__(self, directory, port=None):
        self.directory = directory
        self.port = port or free_port()
        self.start()

    def start(self):
        self.proc = subprocess.Popen(
            [shutil.which("redis-server") or "/usr/bin/redis-server", "--port", str(self.port), "--bind", "127.0.0.1",
             "--dir", self.directory, "--appendonly", "yes", "--appendfsync", "always", "--save", "",
             "--protected-mode", "no", *self.extra_args],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_for_pong(self, "redis-server")
        # The PONG must be this child's, not another program's Redis on the same port.
        assert "process_id:%d" % self.proc.pid in self.cli("INFO", "server").split(), "port %d is taken" % self.port

    def cli(self, *args):
        result = subprocess.run(["redis-cli", "-p", str(self.port), *args], capture_output=True, text=True, timeout=10)
        return result.stdout.strip()

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(timeout=10)

    @property
    def url(self):
        return "redis://127.0.0.1:%d" % self.port

    @property
    def args(self):
        """How an instance is told where this Redis is."""
        return ("--redis", self.url)

    def lease_holder(self):
        """The instance id holding the draw's lease, or None."""
        value = self.cli("GET", "{d:%s}:lease" % CODE)
        return value.split(":", 1)[1] if ":" in value else None

    def tokens(self):
        """The fencing token of every record in the round log, in order."""
        lines = self.cli("XRANGE", "{d:%s}:log" % CODE, "-", "+").splitlines()
        return [int(lines[i + 1]) for i, line in enumerate(lines) if line == "token"]


class Instance(Tombola):
    """One `tombola --redis` process; its stdout and stderr are drained so it never blocks."""

    def __init__(self, redis, key_file, extra=()):
        super().__init__(tempfile.mkdtemp(prefix="tombola-cluster-data-"), code=CODE,
                         extra=(*redis.args, "--cluster-key", key_file, *extra))
        self.id = re.search(r"as instance ([0-9a-f]+)", self.banner).group(1)
        self.lines = []
        self.errors = []
        self.timeline = []  # both streams' lines with the time each arrived, for failure reports
        threading.Thread(target=self._drain, args=(self.proc.stdout, self.lines, self.timeline), daemon=True).start()
        threading.Thread(target=self._drain, args=(self.proc.stderr, self.errors, self.timeline), daemon=True).start()

    @staticmethod
    def _drain(stream, into, timeline):
        for line in stream:
            into.append(line)
            timeline.append("%s.%03d %s" % (time.strftime("%H:%M:%S"), int(time.time() * 1000) % 1000, line))

    def stop(self):
        self.kill()
        shutil.rmtree(self.data_dir, ignore_errors=True)
        shutil.rmtree(self.public_dir, ignore_errors=True)

    def state(self):
        return self.json("GET", "/api/draws/" + CODE)[1]


@pytest.fixture
def cluster(tmp_path):
    """Redis, a key file and a way to start instances; everything is stopped afterwards."""
    key_file = tmp_path / "cluster.key"
    key_file.write_bytes(os.urandom(32))
    redis_dir = tmp_path / "redis"
    redis_dir.mkdir()
    redis = Redis(str(redis_dir))
    instances = []

    class Cluster:
        def __init__(self):
            self.redis = redis
            self.instances = instances

        def start(self, extra=()):
            instance = Instance(redis, str(key_file), extra)
            instances.append(instance)
            return instance

        def owner(self, timeout=10):
            deadline = time.time() + timeout
            while time.time() < deadline:
                holder = redis.lease_holder()
                for instance in instances:
                    if instance.id == holder and instance.proc.poll() is None:
                        return instance
                time.sleep(0.05)
            raise AssertionError("no live instance holds the lease")

        def others(self, owner):
            return [i for i in instances if i is not owner and i.proc.poll() is None]

    try:
        yield Cluster()
    finally:
        for instance in instances:
            instance.stop()
        redis.kill()


class Page:
    """A page on /ws/draw/CODE that records every message, in order, on its own thread."""

    def __init__(self, instance, host=False, port=None, code=CODE):
        self.messages = []
        self.url = "ws://127.0.0.1:%d/ws/draw/%s" % (port or instance.port, code)
        self.host = host
        self.ready = threading.Event()
        self.closed = threading.Event()
        self.outbox = []
        self.loop = None
        self.thread = threading.Thread(target=lambda: asyncio.run(self._run()), daemon=True)
        self.thread.start()
        assert self.ready.wait(15), "page did not connect"

    async def _run(self):
        self.loop = asyncio.get_running_loop()
        self.queue = asyncio.Queue()
        try:
            async with websockets.connect(self.url, open_timeout=10, max_size=None) as ws:
                if self.host:
                    await ws.send(json.dumps({"type": "auth", "key": HOST_KEY, "client": "cluster-test"}))
                self.ready.set()

                async def sender():
                    while True:
                        text = await self.queue.get()
                        if text is None:
                            await ws.close()
                            return
                        await ws.send(text)

                task = asyncio.create_task(sender())
                try:
                    async for raw in ws:
                        self.messages.append(json.loads(raw))
                finally:
                    task.cancel()
        except (OSError, websockets.WebSocketException):
            pass
        finally:
            self.ready.set()
            self.closed.set()

    def send(self, message):
        self.loop.call_soon_threadsafe(self.queue.put_nowait, json.dumps(message))

    def hello(self, entropy):
        """Sends entropy and waits until its instance has handled it (a `sync` after it is answered)."""
        mark = len(self.messages)
        self.send({"type": "hello", "entropy": entropy})
        self.send({"type": "sync"})
        self.wait_for(lambda m: m.get("type") == "state", what="state after hello", since=mark)

    def close(self):
        if self.loop and not self.closed.is_set():
            self.loop.call_soon_threadsafe(self.queue.put_nowait, None)
        self.closed.wait(10)

    def wait_for(self, predicate, timeout=15, what="message", since=0):
        deadline = time.time() + timeout
        seen = since
        while time.time() < deadline:
            while seen < len(self.messages):
                message = self.messages[seen]
                seen += 1
                if predicate(message):
                    return message
            time.sleep(0.02)
        raise AssertionError("%s not seen on %s; last: %s" % (what, self.url, self.messages[-5:]))

    def of_type(self, kind):
        return [m for m in self.messages if m.get("type") == kind]


def export_rounds(instance):
    status, export = instance.json("GET", "/api/draws/%s/export.json" % CODE)
    assert status == 200, export
    rounds = {}
    for record in export["records"]:
        if record["kind"] == "round" and record.get("replaces") is None:
            rounds[record["round"]] = record["winners"]
    return export, rounds


def verify_export(export, tmp_path, script_path, flags=()):
    path = tmp_path / ("export-%d.json" % time.monotonic_ns())
    path.write_text(json.dumps(export), encoding="utf-8")
    result = subprocess.run([tombola_binary(), "verify", str(path), *flags], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stdout + result.stderr
    checked = verify_with_script(script_path, export, tmp_path)
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_three_instances_share_one_draw(cluster, script, tmp_path):
    first = cluster.start()
    owner = cluster.owner()
    assert owner is first
    second, third = cluster.start(), cluster.start()
    pages = [Page(instance) for instance in (first, second, third) for _ in range(3)]
    host = Page(third, host=True)
    host.wait_for(lambda m: m.get("type") == "role" and m["role"] == "host", what="role host")
    for page in pages:
        page.wait_for(lambda m: m.get("type") == "state", what="state")
    # Every page's entropy counts, whichever instance it is on (forwarded to the owner).
    entropies = [os.urandom(16).hex() for _ in pages]
    for page, entropy in zip(pages, entropies):
        page.send({"type": "hello", "entropy": entropy, "client": "page-" + entropy[:6]})

    # Counts add up: 9 viewers + the host page, announced on every page of every instance.
    for page in pages + [host]:
        page.wait_for(lambda m: m.get("type") == "viewers" and m["count"] == 10, timeout=10, what="viewers 10")

    winners = []
    for round_number in (1, 2):
        host.send({"type": "start", "seq": round_number * 10})
        host.wait_for(lambda m: m.get("type") == "ack" and m.get("seq") == round_number * 10, what="start ack")
        for page in pages:
            page.wait_for(lambda m: m.get("type") == "tick", what="tick")
        host.send({"type": "stop", "seq": round_number * 10 + 1})
        host.wait_for(lambda m: m.get("type") == "ack" and m.get("seq") == round_number * 10 + 1, what="stop ack")
        results = [page.wait_for(lambda m: m.get("type") == "result" and m["round"] == round_number, what="result")
                   for page in pages + [host]]
        assert len({json.dumps(r["winners"]) for r in results}) == 1, "pages disagree on the winners"
        assert sorted(results[0]["contributions"]) == sorted(entropies), "a page's entropy was left out"
        winners.append(results[0]["winners"])
        for page in pages:
            page.wait_for(lambda m: m.get("type") == "phase" and m["phase"] == "revealed", what="revealed")

    for page in pages:
        ticks = [m["seq"] for m in page.of_type("tick")]
        assert ticks == sorted(ticks) and len(set(ticks)) == len(ticks), "ticks out of order on " + page.url
        order = [m["type"] for m in page.messages if m.get("type") in ("phase", "result")]
        assert order.count("result") == 2
        # Every result comes after its round's `stopping` and before its `revealed`.
        phases = [(m["type"], m.get("phase")) for m in page.messages if m.get("type") in ("phase", "result")]
        assert phases == [("phase", "rolling"), ("phase", "stopping"), ("result", None), ("phase", "revealed")] * 2, phases

    # A host command on a non-owner gets the same errors as single-box: stop while revealed.
    host.send({"type": "stop", "seq": 99})
    error = host.wait_for(lambda m: m.get("type") == "error" and m.get("seq") == 99, what="error")
    assert error["code"] == "wrong_phase"
    # Not the host: refused on a follower as on the owner.
    pages[-1].send({"type": "start", "seq": 1})
    assert pages[-1].wait_for(lambda m: m.get("type") == "error", what="not_host")["code"] == "not_host"

    # A page joining any instance late gets the same board; every instance exports the same log.
    late = Page(second)
    state = late.wait_for(lambda m: m.get("type") == "state", what="late state")
    assert [r["winners"] for r in state["rounds"]] == winners
    exports = [export_rounds(instance) for instance in (first, second, third)]
    assert all(e[0] == exports[0][0] for e in exports)
    assert [exports[0][1][1], exports[0][1][2]] == winners
    # One signing key across instances (derived from the cluster key, issue #47): every record is
    # signed with it, whichever instance wrote it, and verifies against any instance's served key.
    keys = [instance.json("GET", "/api/server/key")[1] for instance in (first, second, third)]
    assert all(k == keys[0] for k in keys) and keys[0]["algorithm"] == "Ed25519"
    signed = exports[0][0]["signatures"]
    assert signed["publicKey"] == keys[0]["publicKey"]
    assert sorted(signed["records"], key=int) == [str(r["index"]) for r in exports[0][0]["records"]]
    verify_export(exports[0][0], tmp_path, script, flags=("--key", keys[0]["fingerprint"]))
    # The board's pages (issue 18): the owner holds the board; another instance says so (503).
    for instance in (first, second, third):
        status, body = instance.json("GET", "/api/draws/%s/rounds/2/winners?limit=1" % CODE)
        if instance is owner:
            assert status == 200 and body["winners"] == winners[1][:1] and body["total"] == len(winners[1]), body
        else:
            assert status == 503 and body["error"]["code"] == "cluster_unavailable", body
    for page in pages + [host, late]:
        page.close()


FAILOVERS = int(os.environ.get("TOMBOLA_CLUSTER_FAILOVERS", "50" if os.environ.get("CI") == "true" else "6"))


def wait_new_owner(cluster, old, killed_at):
    deadline = killed_at + 10
    while time.time() < deadline:
        holder = cluster.redis.lease_holder()
        if holder and holder != old.id:
            return time.time() - killed_at
        time.sleep(0.02)
    raise AssertionError("nobody took the lease over")


def test_failover_kill_9_while_rolling_and_while_stopping(cluster, script, tmp_path):
    for _ in range(3):
        cluster.start()
    announced = {}  # round → winners, as any page was shown them
    takeovers = []
    for attempt in range(FAILOVERS):
        owner = cluster.owner()
        others = cluster.others(owner)
        watcher = Page(others[0])
        watcher.wait_for(lambda m: m.get("type") == "state", what="state")
        frozen = os.urandom(16).hex()  # given before Start: frozen into the round
        watcher.hello(frozen)
        before = owner.state()
        assert before["phase"] in ("idle", "revealed"), before
        # Through the watcher's instance: its forwarded entropy reaches the owner first.
        status, body = others[0].command("start")
        assert status == 200, body
        watcher.wait_for(lambda m: m.get("type") == "tick", what="tick")
        while_stopping = attempt % 2 == 1
        if while_stopping:
            length = int(cluster.redis.cli("XLEN", "{d:%s}:log" % CODE))
            def stop(via=others[0]):
                try:
                    via.command("stop", timeout=30)  # its answer may be lost with the owner: pages tell
                except OSError:
                    pass
            stopper = threading.Thread(target=stop, daemon=True)
            stopper.start()
            deadline = time.time() + 10
            while int(cluster.redis.cli("XLEN", "{d:%s}:log" % CODE)) == length:
                assert time.time() < deadline, "the round was never stored"
                time.sleep(0.005)
        mark = len(watcher.messages)
        owner.proc.send_signal(signal.SIGKILL)
        killed_at = time.time()
        owner.proc.wait(timeout=10)
        takeovers.append(wait_new_owner(cluster, owner, killed_at))
        assert takeovers[-1] < 3.0, "takeover took %.2f s" % takeovers[-1]
        new_owner = cluster.owner()
        state = watcher.wait_for(lambda m: m.get("type") == "state" and m["phase"] == ("revealed" if while_stopping else "rolling")
                                 and len(m["rounds"]) == len(before["rounds"]) + (1 if while_stopping else 0),
                                 what="state from the new owner", since=mark)
        if while_stopping:
            round_number = state["result"]["round"]
            assert state["result"]["winners"] == state["rounds"][-1]["winners"]
            announced[round_number] = state["result"]["winners"]
        else:
            # The round carries on rolling on the new owner: same commitment, same frozen inputs.
            assert state["commit"]["commitment"] == before["commit"]["commitment"]
            watcher.wait_for(lambda m: m.get("type") == "tick", what="ticks from the new owner", since=mark)
            late = os.urandom(16).hex()  # given after Start: must not count in this round
            watcher.send({"type": "hello", "entropy": late})
            status, body = others[-1].command("stop")
            assert status == 200, (body, "via the new owner" if others[-1] is new_owner else "via a follower",
                                   others[-1].errors[-5:], new_owner.errors[-5:])
            result = body["result"]
            assert result["commitment"] == before["commit"]["commitment"]
            assert frozen in result["contributions"] and late not in result["contributions"], result["contributions"]
            announced[result["round"]] = result["winners"]
        # Every announced winner is unchanged on the new owner.
        _, rounds = export_rounds(new_owner)
        for number, winners in announced.items():
            assert rounds[number] == winners, "round %d changed after failover %d" % (number, attempt)
        watcher.close()
        cluster.instances.remove(owner)
        owner.stop()
        cluster.start()
    export, rounds = export_rounds(cluster.owner())
    for number, winners in announced.items():
        assert rounds[number] == winners
    verify_export(export, tmp_path, script)
    print("takeovers: max %.2f s, mean %.2f s over %d" % (max(takeovers), sum(takeovers) / len(takeovers), len(takeovers)))


def test_a_command_sent_while_no_owner_listens_runs_on_the_new_owner(cluster):
    """Start sent to a follower right after the owner died: nobody hears it on the command
    channel, so the follower sends it again until the new owner (maybe itself) does; the host
    gets the new owner's answer instead of an error, and exactly one round starts."""
    cluster.start()
    owner = cluster.owner()
    second, third = cluster.start(), cluster.start()
    before = second.state()
    owner.proc.send_signal(signal.SIGKILL)
    owner.proc.wait(timeout=10)
    killed_at = time.time()
    cluster.instances.remove(owner)
    owner.stop()
    status, body = second.command("start", timeout=30)
    assert status == 200, body
    assert time.time() - killed_at < 10
    new_owner = cluster.owner()
    assert new_owner in (second, third)
    state = new_owner.state()
    assert state["phase"] == "rolling" and state["commit"]["round"] == before["commit"]["round"], state
    assert second.command("stop")[0] == 200
    assert len(new_owner.state()["rounds"]) == len(before["rounds"]) + 1


def test_a_command_resent_after_a_takeover_gets_its_first_answer(cluster, script, tmp_path):
    """`client`/`seq` dedup survives the owner: the answer is kept in Redis with what the
    command wrote, so a host resending after a takeover gets the same ack and nothing runs twice."""
    cluster.start()
    owner = cluster.owner()
    second, third = cluster.start(), cluster.start()
    watcher = Page(third)
    watcher.wait_for(lambda m: m.get("type") == "state", what="state")
    host = Page(second, host=True)
    host.wait_for(lambda m: m.get("type") == "role" and m["role"] == "host", what="role host")
    before = owner.state()
    host.send({"type": "start", "seq": 41})
    first_ack = host.wait_for(lambda m: m.get("seq") == 41 and m.get("type") in ("ack", "error"), what="start answer")
    assert first_ack["type"] == "ack", first_ack
    # Killed right after the host got the ack.
    owner.proc.send_signal(signal.SIGKILL)
    killed_at = time.time()
    owner.proc.wait(timeout=10)
    wait_new_owner(cluster, owner, killed_at)
    new_owner = cluster.owner()
    # The host's phone reconnects to another instance and resends what it has not seen answered.
    host.close()
    again = Page(third, host=True)
    again.wait_for(lambda m: m.get("type") == "role" and m["role"] == "host", what="role host again")
    again.send({"type": "start", "seq": 41})
    resent = again.wait_for(lambda m: m.get("seq") == 41 and m.get("type") in ("ack", "error"), what="resent start answer")
    assert resent == first_ack
    # No second Start: the same round carries on (same commitment, no extra round).
    state = new_owner.state()
    assert state["phase"] == "rolling" and state["commit"]["commitment"] == before["commit"]["commitment"], state
    again.send({"type": "stop", "seq": 42})
    stop_ack = again.wait_for(lambda m: m.get("seq") == 42 and m.get("type") in ("ack", "error"), what="stop answer")
    assert stop_ack["type"] == "ack", stop_ack
    result = watcher.wait_for(lambda m: m.get("type") == "result", what="result")
    assert result["round"] == len(before["rounds"]) + 1
    watcher.wait_for(lambda m: m.get("type") == "phase" and m["phase"] == "revealed", what="revealed")
    # The Stop's answer was kept with its records: the next owner dies too, and the last
    # instance answers both resent commands (over WebSocket and REST) as they were first
    # answered, with still exactly one round and the same winners.
    again.close()
    new_owner.proc.send_signal(signal.SIGKILL)
    killed_at = time.time()
    new_owner.proc.wait(timeout=10)
    wait_new_owner(cluster, new_owner, killed_at)
    last = cluster.owner()
    on_owner = Page(last, host=True)
    on_owner.wait_for(lambda m: m.get("type") == "role" and m["role"] == "host", what="role host on the last instance")
    on_owner.send({"type": "stop", "seq": 42})
    assert on_owner.wait_for(lambda m: m.get("seq") == 42, what="stop answer on the last instance") == stop_ack
    status, body = last.command("start", {"seq": 41, "client": "cluster-test"})
    assert status == 200 and body == {"ok": True, "seq": 41, "command": "start"}, body
    state = last.state()
    assert state["phase"] == "revealed" and len(state["rounds"]) == len(before["rounds"]) + 1, state
    # A new seq is a new command: it runs.
    on_owner.send({"type": "start", "seq": 43})
    assert on_owner.wait_for(lambda m: m.get("seq") == 43, what="a new start")["type"] == "ack"
    new_owner = last
    export, rounds = export_rounds(new_owner)
    assert rounds[result["round"]] == result["winners"] and len(rounds) == result["round"]
    # The answers live under the draw's hash tag and expire.
    assert 0 < int(cluster.redis.cli("PTTL", "{d:%s}:acks" % CODE))
    verify_export(export, tmp_path, script)
    for page in (watcher, on_owner):
        page.close()


def settings_download(instance, headers=()):
    """GET /api/draws/CODE/config with `headers`: (status, headers, raw body)."""
    req = urllib.request.Request(instance.base + "/api/draws/%s/config" % CODE, method="GET")
    for name, value in headers:
        req.add_header(name, value)
    try:
        with urllib.request.urlopen(req, timeout=10) as resp:
            return resp.status, dict(resp.headers), resp.read()
    except urllib.error.HTTPError as e:
        return e.code, dict(e.headers), e.read()


def test_every_instance_serves_the_settings_download(cluster):
    """GET /api/draws/CODE/config on a follower: the owner's document, ETag and gzip included."""
    cluster.start()
    owner = cluster.owner()
    followers = [cluster.start(), cluster.start()]
    page = Page(followers[1])
    page.wait_for(lambda m: m.get("type") == "state", what="state")
    for round_trip in range(2):
        names = "\n".join("Entrant %d-%d" % (round_trip, i) for i in range(3000))
        mark = len(page.messages)
        status, body = followers[0].command("config", {"pool": {"kind": "list", "text": names}, "perStop": 2 + round_trip})
        assert status == 200, body
        summary = page.wait_for(lambda m: m.get("type") == "config", what="config frame", since=mark)
        for encoding in ((), (("Accept-Encoding", "gzip"),)):
            expected = settings_download(owner, encoding)
            assert expected[0] == 200 and expected[1]["ETag"] == '"%s"' % summary["config"]["hash"], expected[1]
            for instance in followers:
                got = settings_download(instance, encoding)
                assert got[0] == 200, got
                assert got[2] == expected[2], "a follower's settings differ from the owner's"
                for header in ("ETag", "Content-Encoding", "Cache-Control", "Vary"):
                    assert got[1].get(header) == expected[1].get(header), header
        assert expected[1].get("Content-Encoding") == "gzip"
        document = json.loads(settings_download(followers[0])[2])
        assert document["pool"]["entrants"][:2] == ["Entrant %d-0" % round_trip, "Entrant %d-1" % round_trip], document["pool"]
        assert document["perStop"] == 2 + round_trip
        # Revalidation: the page's copy is current.
        status, _, raw = settings_download(followers[1], (("If-None-Match", expected[1]["ETag"]),))
        assert status == 304 and raw == b""
    # Every viewer page asks for its device's check-in entry: a page without a device cookie has none
    # (check-in across instances: test_cluster_checkin.py).
    assert followers[0].json("GET", "/api/draws/%s/entry" % CODE) == (200, {"entry": None})
    page.close()


def metrics(instance):
    status, raw = instance.request("GET", "/metrics")
    assert status == 200
    values = {}
    for line in raw.decode().splitlines():
        if line and not line.startswith("#"):
            name, value = line.rsplit(" ", 1)
            values[name] = float(value)
    return values


def wait_metrics(instance, expected, timeout=10):
    deadline = time.time() + timeout
    while True:
        values = metrics(instance)
        if all(values.get(name) == value for name, value in expected.items()):
            return values
        assert time.time() < deadline, "metrics of %s: %s, expected %s" % (instance.id, values, expected)
        time.sleep(0.05)


def test_metrics_on_the_owner_and_a_follower(cluster):
    """/metrics in cluster mode: the draws served (every draw of the cluster, on every
    instance), the draws owned here, this instance's own pages, and what its room did."""
    cluster.start()
    owner = cluster.owner()
    follower = cluster.start()
    pages = [Page(follower), Page(follower), Page(owner)]
    for page in pages:
        page.wait_for(lambda m: m.get("type") == "state", what="state")
    wait_metrics(owner, {"tombola_draw_rooms": 1, "tombola_cluster_draws_owned": 1, "tombola_draw_viewers": 1})
    wait_metrics(follower, {"tombola_draw_rooms": 1, "tombola_cluster_draws_owned": 0, "tombola_draw_viewers": 2})
    # A round run from the follower is drawn (and counted) by the owner.
    assert follower.command("start")[0] == 200
    assert follower.command("stop")[0] == 200
    wait_metrics(owner, {"tombola_draw_rounds_total": 1, "tombola_draw_commands_total": 2})
    assert metrics(follower)["tombola_draw_rounds_total"] == 0
    # A draw made on either instance is served by both; each draw has exactly one owner.
    status, created = follower.json("POST", "/api/draws", {"config": {"pool": {"kind": "range", "from": 1, "to": 9}}}, ADMIN_KEY)
    assert status == 201, created
    # The admin's list, archive and delete are single-box only: a clear refusal, nothing changed.
    for method, path in (("GET", "/api/draws"), ("POST", "/api/draws/%s/archive" % created["code"]),
                         ("DELETE", "/api/draws/" + created["code"])):
        status, answer = follower.json(method, path, {} if method == "POST" else None, ADMIN_KEY)
        assert (status, answer["error"]["code"]) == (501, "not_supported"), (method, path, answer)
    # So is retention (no instance sweeps): the setting is refused, the settings unchanged.
    before = follower.json("GET", "/api/draws/%s/config" % created["code"])
    status, answer = follower.json("PUT", "/api/draws/%s/config" % created["code"],
                                   {"pool": {"kind": "checkin"}, "retentionDays": 30}, created["hostKey"])
    assert (status, answer["error"]["code"]) == (501, "not_supported"), answer
    assert follower.json("GET", "/api/draws/%s/config" % created["code"]) == before
    deadline = time.time() + 10
    while True:
        values = [metrics(instance) for instance in (owner, follower)]
        if all(v["tombola_draw_rooms"] == 2 for v in values) and sum(v["tombola_cluster_draws_owned"] for v in values) == 2:
            break
        assert time.time() < deadline, values
        time.sleep(0.05)
    for page in pages:
        page.close()
    wait_metrics(follower, {"tombola_draw_viewers": 0})


def test_exclude_winners_of_a_draw_owned_by_another_instance(cluster, script, tmp_path):
    """`excludeWinnersOf` across instances: the other draw's owner publishes its winners, the
    linking draw's owner reads them before Configure and Start (docs/CLUSTER.md)."""
    cluster.start()
    owner = cluster.owner()
    others = [cluster.start(), cluster.start()]
    staff = [{"name": "Person %d" % i, "id": "E%d" % i} for i in range(10)]

    def holder(code):
        value = cluster.redis.cli("GET", "{d:%s}:lease" % code)
        return value.split(":", 1)[1] if ":" in value else None

    # A draw owned by another instance than the default draw's (made on a follower, which
    # usually takes its lease first; made again if not).
    for attempt in range(12):
        status, created = others[attempt % 2].json("POST", "/api/draws",
                                                   {"config": {"pool": {"kind": "list", "entrants": staff}, "perStop": 3}}, ADMIN_KEY)
        assert status == 201, created
        lunch, lunch_key = created["code"], created["hostKey"]
        deadline = time.time() + 10
        while holder(lunch) is None:
            assert time.time() < deadline, "nobody took the new draw"
            time.sleep(0.02)
        if holder(lunch) != owner.id:
            break
    else:
        raise AssertionError("every new draw went to the default draw's owner")
    lunch_owner = [i for i in cluster.instances if i.id == holder(lunch)][0]
    assert lunch_owner is not owner
    status, body = owner.json("POST", "/api/draws/%s/start" % lunch, {}, lunch_key)
    assert status == 200, body
    status, body = owner.json("POST", "/api/draws/%s/stop" % lunch, {}, lunch_key)
    assert status == 200, body
    lunch_winners = body["result"]["winners"]
    assert len(lunch_winners) == 3

    def config(link):
        return {"pool": {"kind": "list", "entrants": staff}, "perStop": 7, "excludeWinnersOf": [link]}

    # Through the lunch draw's owner: forwarded to the default draw's owner, which checks the key.
    status, body = lunch_owner.command("config", config({"code": lunch, "key": "wrong-key-0123456789"}))
    assert status == 403 and body["error"]["code"] == "past_draw_key", body
    status, body = lunch_owner.command("config", config({"code": lunch, "key": lunch_key}))
    assert status == 200, body
    state = owner.state()
    assert state["config"]["excludeWinnersOf"] == [lunch] and state["remaining"] == 7, state
    assert owner.command("start")[0] == 200
    status, body = owner.command("stop")
    assert status == 200, body
    result = body["result"]
    assert len(result["winners"]) == 7 and not set(result["winners"]) & set(lunch_winners)
    past = result["pool"]["pastWinners"][0]
    status, lunch_export = lunch_owner.json("GET", "/api/draws/%s/export.json" % lunch)
    assert past["code"] == lunch and len(past["removed"]) == 3
    assert past["head"] == lunch_export["records"][-1]["hash"] and past["records"] == len(lunch_export["records"])
    export, _ = export_rounds(owner)
    verify_export(export, tmp_path, script)


def test_a_paused_owner_writes_and_announces_nothing(cluster, script, tmp_path):
    first = cluster.start()
    owner = cluster.owner()
    second = cluster.start()
    third = cluster.start()
    on_owner = Page(owner)
    on_other = Page(second)
    on_third = Page(third)
    for page in (on_owner, on_other, on_third):
        page.wait_for(lambda m: m.get("type") == "state", what="state")
    # Entropy given before the takeover still counts after it: the new owner replays its own
    # pages' and the other instances send theirs again when they see a new owner.
    entropies = [os.urandom(16).hex(), os.urandom(16).hex()]
    on_other.hello(entropies[0])
    on_third.hello(entropies[1])
    assert second.command("start")[0] == 200
    on_other.wait_for(lambda m: m.get("type") == "tick", what="tick")
    old_tokens = cluster.redis.tokens()
    marks = {page: len(page.messages) for page in (on_other, on_third)}
    owner.proc.send_signal(signal.SIGSTOP)
    try:
        paused_at = time.time()
        wait_new_owner(cluster, owner, paused_at)
        new_owner = cluster.owner()
        # The new owner carries the round on (it was rolling) and announces itself to every page.
        for page in (on_other, on_third):
            page.wait_for(lambda m: m.get("type") == "state" and m["phase"] == "rolling", what="new owner's state",
                          since=marks[page])
        status, body = second.command("stop")
        assert status == 200, body
        carried = body["result"]
        # A fresh round on the new owner counts the entropy given before the takeover: the new
        # owner replays its own pages' and the other instances send theirs again.
        status, body = second.command("start")
        assert status == 200, body
        status, body = second.command("stop")
        assert status == 200, body
        result = body["result"]
        assert set(entropies) <= set(carried["contributions"])
        assert set(entropies) <= set(result["contributions"]), (new_owner.id, result["contributions"])
    finally:
        owner.proc.send_signal(signal.SIGCONT)
    resumed = len(on_owner.messages)
    # The resumed owner is told to stop, directly: it must not draw (fenced) or announce.
    status, body = owner.command("stop")
    assert status in (409, 503), body
    state = on_owner.wait_for(lambda m: m.get("type") == "state" and m.get("result") and m["result"]["round"] == result["round"],
                              what="the new owner's state on the resumed instance")
    assert state["result"]["winners"] == result["winners"]
    later = on_owner.messages[resumed:]
    assert not [m for m in later if m.get("type") == "result" and m["winners"] != result["winners"]]
    new_tokens = cluster.redis.tokens()
    old_token = max(old_tokens)
    assert all(t > old_token for t in new_tokens[len(old_tokens):]), "the paused owner wrote after the takeover"
    export, rounds = export_rounds(second)
    assert rounds[result["round"]] == result["winners"]
    assert rounds[carried["round"]] == carried["winners"]
    verify_export(export, tmp_path, script)
    for page in (on_owner, on_other, on_third):
        page.close()


def test_redis_killed_and_restarted(cluster, script, tmp_path):
    first = cluster.start()
    second = cluster.start()
    owner = cluster.owner()
    follower = cluster.others(owner)[0]
    page = Page(follower)
    page.wait_for(lambda m: m.get("type") == "state", what="state")
    assert follower.command("start")[0] == 200
    status, body = follower.command("stop")
    assert status == 200, body
    first_result = body["result"]
    # The page has everything of the round (the REST answer may come before the fan-out).
    page.wait_for(lambda m: m.get("type") == "phase" and m["phase"] == "revealed", what="revealed")
    shown = len(page.messages)

    cluster.redis.kill()
    # While Redis is down: a clear error, nothing drawn; the page keeps its state (no new frames, no close).
    status, body = follower.command("start", timeout=30)
    assert status == 503 and body["error"]["code"] == "cluster_unavailable", body
    status, body = owner.command("start", timeout=30)
    assert status == 503 and body["error"]["code"] == "cluster_unavailable", body
    assert not page.closed.is_set()
    assert not [m for m in page.messages[shown:] if m.get("type") in ("result", "tick")]
    # REST: the follower still shows its last state; the former owner (no pages, so nothing
    # cached) says it cannot know, once it has stepped down.
    status, state = follower.json("GET", "/api/draws/" + CODE)
    assert status == 200 and state["result"]["winners"] == first_result["winners"]
    deadline = time.time() + 20
    while True:
        status, body = owner.json("GET", "/api/draws/" + CODE, timeout=30)
        if status == 503:
            assert body["error"]["code"] == "cluster_unavailable"
            break
        assert status == 200 and time.time() < deadline, body
        time.sleep(0.1)

    cluster.redis.start()
    cluster.owner(timeout=15)
    # As a host page does: each command resent with its `client`/`seq` until it is answered.
    # Right after Redis returns the lease may change hands, so a `cluster_unavailable` may hide
    # a command that did run; the resend then gets its first answer instead of running again.
    deadline = time.time() + 20

    def until_answered(name, seq):
        while True:
            status, body = follower.command(name, {"seq": seq, "client": "redis-restart-test"}, timeout=30)
            if status == 200:
                return body
            assert status == 503 and time.time() < deadline, body
            time.sleep(0.2)

    assert until_answered("start", 1) == {"ok": True, "seq": 1, "command": "start"}
    until_answered("stop", 2)
    export, rounds = export_rounds(follower)
    # Exactly one more round, and the first one unchanged.
    assert sorted(rounds) == [first_result["round"], first_result["round"] + 1], sorted(rounds)
    assert rounds[first_result["round"]] == first_result["winners"]
    verify_export(export, tmp_path, script)
    page.close()


def test_start_up_refuses_redis_that_would_lose_writes(tmp_path):
    port = free_port()
    proc = subprocess.Popen([shutil.which("redis-server") or "/usr/bin/redis-server", "--port", str(port), "--bind", "127.0.0.1",
                             "--dir", str(tmp_path), "--appendonly", "no", "--save", ""],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.time() + 20
        while subprocess.run(["redis-cli", "-p", str(port), "PING"], capture_output=True, text=True).stdout.strip() != "PONG":
            assert time.time() < deadline
            time.sleep(0.05)
        key = tmp_path / "k"
        key.write_text("ab" * 32 + "\n")
        args = [tombola_binary(), "--host", "127.0.0.1", "--port", "0", "--data", str(tmp_path / "d"),
                "--redis", "redis://127.0.0.1:%d" % port, "--cluster-key", str(key)]
        refused = subprocess.run(args, capture_output=True, text=True, timeout=30)
        assert refused.returncode == 1
        assert "appendonly no" in refused.stderr and "--allow-unsafe-redis" in refused.stderr
        assert "ab" * 16 not in refused.stderr + refused.stdout
        # Overridden: it runs, and says so loudly.
        unsafe = subprocess.Popen(args + ["--allow-unsafe-redis"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            out = ""
            while "Press Ctrl-C" not in out:
                line = unsafe.stdout.readline()
                assert line, unsafe.stderr.read()
                out += line
            assert "WARNING: --allow-unsafe-redis" in out + unsafe.stderr.readline()
        finally:
            unsafe.kill()
            unsafe.wait()
        missing = subprocess.run(args[:-2], capture_output=True, text=True, timeout=30)
        assert missing.returncode == 2 and "cluster-key" in missing.stderr
    finally:
        proc.kill()
        proc.wait()


def test_a_draw_created_on_one_instance_runs_on_every_instance(cluster, script, tmp_path):
    first, second, third = cluster.start(), cluster.start(), cluster.start()
    status, created = first.json("POST", "/api/draws", {"config": {"pool": {"kind": "range", "from": 1, "to": 30}}}, ADMIN_KEY)
    assert status == 201, created
    code, key = created["code"], created["hostKey"]
    assert created["hostUrl"].endswith("/draw/%s#key=%s" % (code, key))
    # The other instances learn it from Redis (announced on creation).
    for instance in (second, third):
        deadline = time.time() + 10
        while instance.request("GET", "/api/draws/" + code)[0] != 200:
            assert time.time() < deadline, "instance never learnt the new draw"
            time.sleep(0.02)
    page = Page(second, code=code)
    state = page.wait_for(lambda m: m.get("type") == "state", what="state of the new draw")
    assert state["code"] == code and state["remaining"] == 30
    status, body = third.json("POST", "/api/draws/%s/start" % code, {}, key)
    assert status == 200, body
    status, body = third.json("POST", "/api/draws/%s/stop" % code, {}, key)
    assert status == 200, body
    shown = page.wait_for(lambda m: m.get("type") == "result", what="result of the new draw")
    assert shown["winners"] == body["result"]["winners"]
    # The default draw's key does not control it, nor the other way round.
    assert third.json("POST", "/api/draws/%s/start" % code, {}, HOST_KEY)[0] == 403
    status, export = second.json("GET", "/api/draws/%s/export.json" % code)
    assert status == 200 and export["code"] == code
    verify_export(export, tmp_path, script)
    page.close()


HAPROXY = shutil.which("haproxy") or "/usr/sbin/haproxy"
HAPROXY_CONFIG = os.path.join(os.path.dirname(__file__), "..", "..", "deploy", "haproxy", "tombola-cluster.cfg")
NGINX = shutil.which("nginx") or "/usr/sbin/nginx"
NGINX_CONFIG = os.path.join(os.path.dirname(__file__), "..", "..", "deploy", "nginx", "tombola-cluster.conf")
HAPROXY_TLS_CONFIG = os.path.join(os.path.dirname(__file__), "..", "..", "deploy", "haproxy", "tombola-cluster-https.cfg")
NGINX_TLS_CONFIG = os.path.join(os.path.dirname(__file__), "..", "..", "deploy", "nginx", "tombola-cluster-https.conf")


class Balancer:
    """A load balancer in front of three instances, on a free loopback port: HAProxy with
    deploy/haproxy/tombola-cluster.cfg, or nginx with deploy/nginx/tombola-cluster.conf."""

    def __init__(self, kind, instances, work, tls=None):
        """`tls`: (certificate, key) PEM paths: also serve HTTPS on `tls_port` with the
        deploy/…/tombola-cluster-https.* file loaded beside the plain one."""
        self.port = free_port()
        self.tls_port = free_port() if tls else None
        if kind == "haproxy":
            env = dict(os.environ, TOMBOLA_LB_BIND="127.0.0.1:%d" % self.port)
            for letter, instance in zip("ABC", instances):
                env["TOMBOLA_INSTANCE_" + letter] = "127.0.0.1:%d" % instance.port
            files = ["-f", HAPROXY_CONFIG]
            if tls:
                bundle = os.path.join(work, "haproxy.pem")
                with open(bundle, "w") as out:
                    for path in tls:
                        with open(path) as f:
                            out.write(f.read())
                env.update(TOMBOLA_LB_TLS_BIND="127.0.0.1:%d" % self.tls_port, TOMBOLA_LB_CERT=bundle)
                files += ["-f", HAPROXY_TLS_CONFIG]
            self.proc = subprocess.Popen([HAPROXY, "-db", *files], env=env,
                                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        else:
            with open(NGINX_CONFIG) as f:
                site = f.read()
            for default, instance in zip((8081, 8082, 8083), instances):
                assert "server 127.0.0.1:%d " % default in site, "deploy/nginx/tombola-cluster.conf changed"
                site = site.replace("server 127.0.0.1:%d " % default, "server 127.0.0.1:%d " % instance.port)
            assert "listen 80;" in site
            site = site.replace("listen 80;", "listen 127.0.0.1:%d;" % self.port)
            if tls:
                with open(NGINX_TLS_CONFIG) as f:
                    secure = f.read()
                for pattern, replacement in ((r"listen 443 ssl http2;", "listen 127.0.0.1:%d ssl http2;" % self.tls_port),
                                             (r"ssl_certificate\s+\S+;", "ssl_certificate %s;" % tls[0]),
                                             (r"ssl_certificate_key\s+\S+;", "ssl_certificate_key %s;" % tls[1])):
                    secure, count = re.subn(pattern, replacement, secure)
                    assert count == 1, "deploy/nginx/tombola-cluster-https.conf no longer has " + pattern
                site += "\n" + secure
            for name in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"):
                os.makedirs(os.path.join(work, name), exist_ok=True)
            conf = os.path.join(work, "nginx.conf")
            with open(conf, "w") as f:
                f.write("daemon off;\nmaster_process off;\npid %(d)s/nginx.pid;\nerror_log %(d)s/error.log warn;\n"
                        "events { worker_connections 512; }\nhttp {\n access_log off;\n client_body_temp_path %(d)s/client_body;\n"
                        " proxy_temp_path %(d)s/proxy;\n fastcgi_temp_path %(d)s/fastcgi;\n uwsgi_temp_path %(d)s/uwsgi;\n"
                        " scgi_temp_path %(d)s/scgi;\n%(site)s\n}\n" % {"d": work, "site": site})
            self.proc = subprocess.Popen([NGINX, "-p", work, "-c", conf, "-e", os.path.join(work, "error.log")],
                                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.base = "http://127.0.0.1:%d" % self.port
        deadline = time.time() + 20
        while True:
            assert self.proc.poll() is None, "haproxy exited"
            try:
                if self.request("GET", "/api/info")[0] == 200:
                    break
            except OSError:
                pass
            assert time.time() < deadline, "haproxy did not serve"
            time.sleep(0.05)

    def request(self, method, path, body=None, key=None):
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.base + path, data=data, method=method)
        if key:
            req.add_header("Authorization", "Bearer " + key)
        try:
            with urllib.request.urlopen(req, timeout=30) as resp:
                return resp.status, json.loads(resp.read())
        except urllib.error.HTTPError as e:
            return e.code, json.loads(e.read())

    def command(self, name):
        return self.request("POST", "/api/draws/%s/%s" % (CODE, name), {}, HOST_KEY)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(timeout=10)


@pytest.mark.parametrize("kind", ["haproxy", "nginx"])
def test_pages_through_a_load_balancer_reconnect_to_another_instance(kind, cluster, script, tmp_path):
    instances = [cluster.start(extra=("--trusted-proxy", "127.0.0.1")) for _ in range(3)]
    work = tmp_path / kind
    work.mkdir()
    balancer = Balancer(kind, instances, str(work))
    try:
        pages = [Page(None, port=balancer.port) for _ in range(6)]
        for page in pages:
            page.wait_for(lambda m: m.get("type") == "state", what="state through haproxy")
        results = []
        owner = cluster.owner()
        # First a follower dies, then the owner: each time its pages reconnect through HAProxy.
        for victim in (cluster.others(owner)[0], owner):
            status, body = balancer.command("start")
            assert status == 200, body
            status, body = balancer.command("stop")
            assert status == 200, body
            results.append(body["result"])
            for page in pages:
                shown = page.wait_for(lambda m: m.get("type") == "result" and m["round"] == results[-1]["round"], what="result")
                assert shown["winners"] == results[-1]["winners"]
            victim.proc.send_signal(signal.SIGKILL)
            victim.proc.wait(timeout=10)
            # Each page either answers a sync (its instance lives) or is cut off (it was on the victim).
            cut = []
            for page in pages:
                mark = len(page.messages)
                if not page.closed.is_set():
                    page.send({"type": "sync"})
                deadline = time.time() + 10
                while not page.closed.is_set() and not [m for m in page.messages[mark:] if m.get("type") == "state"]:
                    assert time.time() < deadline, "a page neither answered nor closed"
                    time.sleep(0.01)
                if page.closed.is_set():
                    cut.append(page)
            assert cut, "no page was on the instance that died"
            cluster.owner()
            for page in cut:
                pages.remove(page)
                again = Page(None, port=balancer.port)
                state = again.wait_for(lambda m: m.get("type") == "state" and len(m["rounds"]) == len(results),
                                       what="resynced state")
                assert [r["winners"] for r in state["rounds"]] == [r["winners"] for r in results]
                pages.append(again)
        status, body = balancer.command("start")
        assert status == 200, body
        status, body = balancer.command("stop")
        assert status == 200, body
        for page in pages:
            assert page.wait_for(lambda m: m.get("type") == "result" and m["round"] == body["result"]["round"],
                                 what="result after the failovers")["winners"] == body["result"]["winners"]
        status, export = balancer.request("GET", "/api/draws/%s/export.json" % CODE)
        assert status == 200
        verify_export(export, tmp_path, script)
        for page in pages:
            page.close()
    finally:
        balancer.stop()


def self_signed(directory):
    """A certificate for 127.0.0.1 and its key, made with the openssl CLI."""
    cert, key = os.path.join(directory, "cert.pem"), os.path.join(directory, "key.pem")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                    "-days", "1", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
                    "-keyout", key, "-out", cert], check=True, capture_output=True, timeout=30)
    return cert, key


@pytest.mark.parametrize("kind", ["haproxy", "nginx"])
def test_https_and_wss_through_the_balancer(kind, cluster, tmp_path):
    """deploy/haproxy/tombola-cluster-https.cfg and deploy/nginx/tombola-cluster-https.conf
    beside the plain files: REST and a WebSocket over TLS (the client trusts exactly the
    test's self-signed certificate), links handed out as https://, a round seen over wss://."""
    instances = [cluster.start(extra=("--trusted-proxy", "127.0.0.1")) for _ in range(3)]
    work = tmp_path / kind
    work.mkdir()
    cert, key = self_signed(str(work))
    balancer = Balancer(kind, instances, str(work), tls=(cert, key))
    context = ssl.create_default_context(cafile=cert)
    base = "https://127.0.0.1:%d" % balancer.tls_port

    def request(method, path, body=None, key=None):
        req = urllib.request.Request(base + path, data=None if body is None else json.dumps(body).encode(), method=method)
        if key:
            req.add_header("Authorization", "Bearer " + key)
        try:
            with urllib.request.urlopen(req, timeout=30, context=context) as resp:
                return resp.status, json.loads(resp.read())
        except urllib.error.HTTPError as e:
            return e.code, json.loads(e.read())

    try:
        assert balancer.request("GET", "/api/info")[0] == 200  # the plain side still works
        status, _ = request("GET", "/api/info")
        assert status == 200
        status, created = request("POST", "/api/draws", {"config": {"pool": {"kind": "range", "from": 1, "to": 50}}}, ADMIN_KEY)
        assert status == 201, created
        assert created["hostUrl"].startswith(base + "/draw/"), created["hostUrl"]

        async def round_over_wss():
            async with websockets.connect("wss://127.0.0.1:%d/ws/draw/%s" % (balancer.tls_port, CODE), ssl=context,
                                          origin=base, open_timeout=10) as ws:
                async def next_of(kind):
                    while True:
                        message = json.loads(await asyncio.wait_for(ws.recv(), 20))
                        if message.get("type") == kind:
                            return message
                await next_of("state")
                loop = asyncio.get_running_loop()
                status, body = await loop.run_in_executor(None, request, "POST", "/api/draws/%s/start" % CODE, {}, HOST_KEY)
                assert status == 200, body
                await next_of("tick")
                status, body = await loop.run_in_executor(None, request, "POST", "/api/draws/%s/stop" % CODE, {}, HOST_KEY)
                assert status == 200, body
                shown = await next_of("result")
                assert shown["winners"] == body["result"]["winners"]

        asyncio.run(round_over_wss())
        # A client that does not trust the certificate is refused by its own TLS check.
        with pytest.raises(urllib.error.URLError):
            urllib.request.urlopen(base + "/api/info", timeout=10, context=ssl.create_default_context())
    finally:
        balancer.stop()
