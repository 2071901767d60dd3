"""A real `tombola` binary runs draws over REST and WebSocket; its export passes the
independent verifier printed in docs/FAIRNESS.md, and a Python WebSocket client (the
`websockets` package) sees its own entropy counted and rechecks the round itself.
"""
import asyncio
import copy
import hashlib
import hmac
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

import pytest
import websockets

from test_fairness_script import rehash, script, tombola_binary  # noqa: F401 (the fixture is used by name)

HOST_KEY = "peer-host-key-0123456789"
ADMIN_KEY = "peer-admin-key-0123456789"
CODE = "PEERS1"


class Tombola:
    """One `tombola` process on 127.0.0.1 with a data directory that outlives it."""

    def __init__(self, data_dir, code=CODE, extra=()):
        binary = tombola_binary()
        assert binary, "build tombola first (swift build) or set TOMBOLA_BIN"
        self.data_dir = data_dir
        self.public_dir = tempfile.mkdtemp(prefix="tombola-peer-public-")
        with open(os.path.join(self.public_dir, "index.html"), "w") as f:
            f.write("<!doctype html><title>t</title>")
        self.code = code
        self.proc = subprocess.Popen(
            [binary, "--host", "127.0.0.1", "--port", "0", "--data", data_dir, "--public", self.public_dir,
             "--default-draw", code, "--host-key", HOST_KEY, "--admin-key", ADMIN_KEY, *extra],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.banner = ""
        deadline = time.time() + 20
        while "Press Ctrl-C" not in self.banner:
            line = self.proc.stdout.readline()
            if not line:
                raise AssertionError("tombola exited: " + self.proc.stderr.read())
            self.banner += line
            assert time.time() < deadline, "no banner"
        self.port = int(re.search(r"http://127\.0\.0\.1:(\d+)/", self.banner).group(1))
        self.base = "http://127.0.0.1:%d" % self.port

    def request(self, method, path, body=None, key=None, timeout=10):
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.base + path, data=data, method=method)
        if key:
            req.add_header("Authorization", "Bearer " + key)
        if data is not None:
            req.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(req, timeout=timeout) as resp:
                return resp.status, resp.read()
        except urllib.error.HTTPError as e:
            return e.code, e.read()

    def json(self, method, path, body=None, key=None, timeout=10):
        status, raw = self.request(method, path, body, key, timeout)
        return status, json.loads(raw)

    def command(self, name, body=None, timeout=10):
        method = "PUT" if name == "config" else "POST"
        return self.json(method, "/api/draws/%s/%s" % (self.code, name), body if body is not None else {}, HOST_KEY, timeout)

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(timeout=10)
        shutil.rmtree(self.public_dir, ignore_errors=True)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        shutil.rmtree(self.public_dir, ignore_errors=True)


@pytest.fixture
def data_dir():
    path = tempfile.mkdtemp(prefix="tombola-peer-data-")
    yield path
    shutil.rmtree(path, ignore_errors=True)


def verify_with_script(script_path, export, tmp_path):
    path = tmp_path / "export.json"
    path.write_text(json.dumps(export, ensure_ascii=False), encoding="utf-8")
    return subprocess.run([sys.executable, str(script_path), str(path)], capture_output=True, text=True, timeout=120)


def test_every_kind_of_record_from_the_server_passes_the_fairness_script(script, data_dir, tmp_path):
    server = Tombola(data_dir)
    try:
        assert server.command("config", {"pool": {"kind": "range", "from": 1, "to": 50}, "exclude": [7],
                                         "perStop": 2, "prizes": [{"name": "3rd prize", "count": 3},
                                                                  {"name": "一等奖", "count": 1}]})[0] == 200
        rounds = []
        for audience in ("4711", None):
            assert server.command("start", {"audience": audience} if audience else {})[0] == 200
            status, body = server.command("stop")
            assert status == 200
            rounds.append(body["result"])
        assert [r["prize"] for r in rounds] == ["3rd prize", "3rd prize"]
        assert [len(r["winners"]) for r in rounds] == [2, 1]
        status, body = server.command("void", {"round": 1, "winner": rounds[0]["winners"][0], "reason": "no-show"})
        assert status == 200 and body["result"]["replaces"]["winner"] == rounds[0]["winners"][0]
        assert server.command("clear")[0] == 200
        names = "Ann\nBob\nZoë\n李雷\n\"Q\" \\ Smith\nAnn\n=cmd()"
        status, body = server.command("config", {"pool": {"kind": "list", "text": names}, "perStop": 3})
        assert status == 200 and body["duplicates"] == ["Ann"]
        assert server.command("start", {"audience": "0042"})[0] == 200
        status, body = server.command("stop")
        assert status == 200 and len(body["result"]["winners"]) == 3
    finally:
        server.stop()
    # A restart publishes a fresh commitment; one more round after it.
    server = Tombola(data_dir)
    try:
        assert server.command("start")[0] == 200
        assert server.command("stop")[0] == 200
        status, export = server.json("GET", "/api/draws/%s/export.json" % CODE)
        assert status == 200 and export["format"] == "tombola-export-v2" and export["code"] == CODE
        status, csv = server.request("GET", "/api/draws/%s/export.csv" % CODE)
        assert status == 200
    finally:
        server.stop()
    kinds = [r["kind"] for r in export["records"]]
    for kind in ("commit", "entrants", "round", "void", "clear"):
        assert kind in kinds
    assert any(r["kind"] == "commit" and r["reason"] == "restart" for r in export["records"])
    outcome = verify_with_script(script, export, tmp_path)
    assert outcome.returncode == 0, outcome.stdout + outcome.stderr
    assert outcome.stdout.count(": OK") == len(export["records"])
    check_audit_log(data_dir)
    # Tampering with a stored winner is caught by the independent script.
    tampered = json.loads(json.dumps(export))
    first_round = next(r for r in tampered["records"] if r["kind"] == "round")
    first_round["winners"][0] = 49 if first_round["winners"][0] != 49 else 48
    assert verify_with_script(script, tampered, tmp_path).returncode == 1
    # The CSV names every winner; a name a spreadsheet would run as a formula is defused.
    assert csv.startswith(b"\xef\xbb\xbf")  # UTF-8 with a BOM, for Excel
    text = csv.decode("utf-8-sig")
    assert text.startswith("session,round,prize,winner,voided,reason,")
    assert ",yes,no-show," in text
    assert ",=cmd()," not in text


def check_audit_log(data_dir):
    """The audit log says who did what, hash-chained, and holds no key."""
    db = sqlite3.connect(os.path.join(data_dir, "tombola.sqlite"))
    try:
        rows = db.execute("SELECT idx, at, actor, action, detail_json, prev_hash, hash FROM audit "
                          "WHERE draw_code = ? ORDER BY idx", (CODE,)).fetchall()
    finally:
        db.close()
    actions = [(actor, action) for _, _, actor, action, _, _, _ in rows]
    assert actions[0] == ("system", "create")
    for expected in (("host", "configure"), ("host", "start"), ("host", "stop"), ("host", "void"),
                     ("host", "clear"), ("system", "restart")):
        assert expected in actions
    prev = "0" * 64
    for index, at, actor, action, detail, prev_hash, digest in rows:
        body = {"draw": CODE, "index": index, "at": round(at * 1000), "actor": actor, "action": action,
                "detail": json.loads(detail), "prev": prev}
        canon = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()
        assert prev_hash == prev and hashlib.sha256(canon).hexdigest() == digest, "audit entry %d" % index
        assert HOST_KEY not in detail and ADMIN_KEY not in detail
        prev = digest


def entropy_digest(contributions, audience):
    msg = b"tombola-entropy-v1\x00" + len(contributions).to_bytes(8, "big")
    msg += b"".join(bytes.fromhex(c) for c in contributions)
    if audience is None:
        return hashlib.sha256(msg + b"\x00").hexdigest()
    a = audience.encode("ascii")
    return hashlib.sha256(msg + b"\x01" + len(a).to_bytes(8, "big") + a).hexdigest()


def first_winner(result):
    """Recomputes the first winner of a range round from the result message alone."""
    seed = bytes.fromhex(result["seed"])
    prefix = (b"tombola-hmac-sha256-v1\x00" + result["round"].to_bytes(8, "big") + bytes.fromhex(result["poolHash"])
              + bytes.fromhex(result["entropy"]))
    n = result["eligible"]
    limit = 2**64 - 2**64 % n
    c = 0
    while True:
        block = hmac.new(seed, prefix + c.to_bytes(8, "big"), hashlib.sha256).digest()
        for i in range(0, 32, 8):
            w = int.from_bytes(block[i:i + 8], "big")
            if w < limit:
                pool = result["pool"]
                assert pool["kind"] == "range" and pool["removed"] == []
                return pool["from"] + w % n
        c += 1


def test_a_python_websocket_viewer_sees_its_entropy_counted_and_rechecks_the_round(data_dir):
    server = Tombola(data_dir)

    async def scenario():
        url = "ws://127.0.0.1:%d/ws/draw/%s" % (server.port, CODE)
        async with websockets.connect(url) as viewer, websockets.connect(url) as host:
            state = json.loads(await viewer.recv())
            assert state["type"] == "state" and state["role"] == "viewer" and state["phase"] == "idle"
            mine = os.urandom(16).hex()
            await viewer.send(json.dumps({"type": "hello", "entropy": mine}))
            assert json.loads(await host.recv())["type"] == "state"
            await host.send(json.dumps({"type": "auth", "key": HOST_KEY}))
            while True:
                message = json.loads(await host.recv())
                if message["type"] == "role":
                    assert message["role"] == "host"
                    break
            await asyncio.sleep(0.1)
            await host.send(json.dumps({"type": "start", "seq": 1}))
            ticks, result = [], None
            stop_sent = False
            while result is None:
                message = json.loads(await asyncio.wait_for(viewer.recv(), 10))
                if message["type"] == "tick":
                    ticks.append(message)
                    if len(ticks) == 5 and not stop_sent:
                        stop_sent = True
                        await host.send(json.dumps({"type": "stop", "seq": 2}))
                elif message["type"] == "result":
                    result = message
            assert [t["seq"] for t in ticks] == sorted(t["seq"] for t in ticks)
            assert ticks[-1]["value"] == result["winners"][0]
            assert mine in result["contributions"] and result["contributors"] == 1
            assert entropy_digest(result["contributions"], result["audience"]) == result["entropy"]
            assert hashlib.sha256(bytes.fromhex(result["seed"])).hexdigest() == result["commitment"]
            assert first_winner(result) == result["winners"][0]
            assert json.loads(await viewer.recv()) == {"type": "phase", "phase": "revealed"}

    try:
        asyncio.run(scenario())
    finally:
        server.stop()


def test_unknown_draw_codes_are_refused_and_the_admin_key_creates_draws(data_dir):
    server = Tombola(data_dir)
    try:
        async def refused():
            with pytest.raises(websockets.exceptions.InvalidStatusCode) as info:
                async with websockets.connect("ws://127.0.0.1:%d/ws/draw/NOPE99" % server.port):
                    pass
            assert info.value.status_code == 404
        asyncio.run(refused())
        status, created = server.json("POST", "/api/draws", {}, ADMIN_KEY)
        assert status == 201
        assert created["hostUrl"] == "%s/draw/%s#key=%s" % (server.base, created["code"], created["hostKey"])
        status, state = server.json("GET", "/api/draws/" + created["code"])
        assert status == 200 and state["phase"] == "idle"
        status, info = server.json("GET", "/api/info")
        assert info["defaultDraw"] == CODE and info["lanUrl"] == server.base
    finally:
        server.stop()


def test_every_commit_record_names_the_binary_that_wrote_it_and_verify_says_so(data_dir, script, tmp_path):
    """Issue #47: each `commit` record carries `software` (version, commit, the SHA-256 of the
    running executable), inside its hash; `tombola --version` prints the same digest, which is the
    file's own `sha256sum`; `tombola verify` names the program."""
    binary = tombola_binary()
    with open(binary, "rb") as f:
        digest = hashlib.sha256(f.read()).hexdigest()
    version = subprocess.run([binary, "--version"], capture_output=True, text=True, timeout=30).stdout.splitlines()
    assert "sha256 %s" % digest in version, version
    release, commit = version[0].split()[1], version[1].split()[1]
    server = Tombola(data_dir)
    try:
        assert server.command("start")[0] == 200 and server.command("stop")[0] == 200
        status, export = server.json("GET", "/api/draws/%s/export.json" % CODE)
        assert status == 200
    finally:
        server.stop()
    commits = [r for r in export["records"] if r["kind"] == "commit"]
    assert len(commits) == 2
    for record in commits:
        assert record["software"] == {"version": release, "commit": commit, "sha256": digest}, record
    path = tmp_path / "export.json"
    path.write_text(json.dumps(export), encoding="utf-8")
    verified = subprocess.run([binary, "verify", str(path)], capture_output=True, text=True, timeout=60)
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert "written by tombola %s (commit %s, binary sha256 %s…)" % (release, commit, digest[:16]) in verified.stdout
    assert verified.stdout.count("written by") == 1, verified.stdout
    # Another binary named at the next round's commit, every hash recomputed (a forger's chain sound in
    # itself): only a restart may change the program, so both verifiers refuse it.
    forged = copy.deepcopy(export)
    at = commits[1]["index"]
    assert commits[1]["reason"] == "next"
    forged["records"][at]["software"]["sha256"] = "0" * 64
    for i in range(at, len(forged["records"])):
        if i > at:
            forged["records"][i]["prev"] = forged["records"][i - 1]["hash"]
        rehash(forged["records"][i])
    forged.pop("signatures", None)
    path.write_text(json.dumps(forged), encoding="utf-8")
    refused = subprocess.run([binary, "verify", str(path)], capture_output=True, text=True, timeout=60)
    assert refused.returncode == 1 and "#%d commit: FAIL: program changed without a restart" % at in refused.stdout, refused.stdout
    checked = verify_with_script(script, forged, tmp_path)
    assert checked.returncode == 1 and "#%d commit: FAIL: program changed without a restart" % at in checked.stdout, checked.stdout
    # A changed `software` breaks the record's hash: the chain no longer verifies.
    commits[0]["software"]["sha256"] = "0" * 64
    path.write_text(json.dumps(export), encoding="utf-8")
    assert subprocess.run([binary, "verify", str(path)], capture_output=True, text=True, timeout=60).returncode != 0
