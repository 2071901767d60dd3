"""Idle draws leave memory (issue 31, `--unload-idle-after`): a real `tombola` with a 5-second idle
time. Draws touched and left alone are unloaded (`tombola_draw_rooms_loaded` falls), a draw with a
connected page never is, a later request reads a draw back identical (the same `state`, the same
chain: no `restart` commitment, nothing abandoned) and its next round uses the commitment shown
before; a draw that excludes an unloaded draw's winners still excludes them; `tombola verify` passes.
"""
import json
import subprocess
import time
import urllib.request

from websockets.sync.client import connect

from test_draw_export import ADMIN_KEY, CODE, Tombola, data_dir, tombola_binary  # noqa: F401 (fixture)

IDLE = 5
NAMES = ["Ann", "Bob", "Cat"]


def loaded(server):
    with urllib.request.urlopen(server.base + "/metrics", timeout=10) as response:
        for line in response.read().decode().splitlines():
            if line.startswith("tombola_draw_rooms_loaded "):
                return int(float(line.split()[1]))
    raise AssertionError("no tombola_draw_rooms_loaded gauge")


def wait_loaded(server, count, keep_alive=()):
    """Polls the gauge until it reads `count` (at most the idle time plus two sweeps and a margin);
    `keep_alive` are draw codes asked for meanwhile, once a second, so they stay in use."""
    deadline = time.monotonic() + IDLE + 10
    while time.monotonic() < deadline:
        if loaded(server) == count:
            return
        for code in keep_alive:
            assert server.json("GET", "/api/draws/" + code)[0] == 200
        time.sleep(1)
    raise AssertionError("tombola_draw_rooms_loaded stayed %d, expected %d" % (loaded(server), count))


def comparable(state):
    """The public state without the live viewer count and the last tick (the landing number
    before the reveal, shown by no page once revealed: forgotten as at a restart)."""
    return {k: v for k, v in state.items() if k not in ("viewers", "tick")}


def host(server, code, key, name, body=None):
    method = "PUT" if name == "config" else "POST"
    return server.json(method, "/api/draws/%s/%s" % (code, name), body if body is not None else {}, key, timeout=20)


def test_idle_draws_leave_memory_and_come_back_identical(data_dir, tmp_path):
    server = Tombola(data_dir, extra=("--unload-idle-after", str(IDLE)))
    try:
        made = []
        for _ in range(3):
            status, created = server.json("POST", "/api/draws", {}, ADMIN_KEY)
            assert status == 201
            made.append((created["code"], created["hostKey"]))
        (first, first_key), (linked, linked_key), (watched, _) = made
        # Two rounds on the first draw: two of three names win.
        assert host(server, first, first_key, "config", {"pool": {"kind": "list", "entrants": NAMES}, "perStop": 1})[0] == 200
        first_winners = []
        for _ in range(2):
            assert host(server, first, first_key, "start")[0] == 200
            status, stopped = host(server, first, first_key, "stop")
            assert status == 200, stopped
            first_winners += stopped["result"]["winners"]
        # The linked draw excludes them: only the third name can win there.
        config = {"pool": {"kind": "list", "entrants": NAMES}, "perStop": 1,
                  "excludeWinnersOf": [{"code": first, "key": first_key}]}
        assert host(server, linked, linked_key, "config", config)[0] == 200
        status, before = server.json("GET", "/api/draws/" + first)
        assert status == 200 and before["phase"] == "revealed"
        export_before = server.json("GET", "/api/draws/%s/export.json" % first)[1]
        assert loaded(server) == 4, "the default draw and the three made"

        # A page on the third draw: it stays, the others go (the linked one kept in use by requests
        # until the first has gone, so it is loaded while the draw it excludes is not).
        with connect("ws://127.0.0.1:%d/ws/draw/%s" % (server.port, watched), open_timeout=10) as page:
            assert json.loads(page.recv(timeout=10))["type"] == "state"
            wait_loaded(server, 2, keep_alive=[linked])
            assert server.json("GET", "/api/draws/" + watched)[0] == 200
            # The linked draw's Start resolves the unloaded draw's winners from memory.
            assert host(server, linked, linked_key, "start")[0] == 200
            status, stopped = host(server, linked, linked_key, "stop")
            assert status == 200, stopped
            assert stopped["result"]["winners"] == [n for n in NAMES if n not in first_winners]
            assert loaded(server) == 2, "the first draw was not read back for its winners"
            wait_loaded(server, 1)
            # The page's draw is never unloaded.
            time.sleep(IDLE + 2)
            assert loaded(server) == 1
        assert server.json("GET", "/api/draws/" + watched)[0] == 200

        # Read back on request: the same state, the same chain, no record added.
        status, after = server.json("GET", "/api/draws/" + first)
        assert status == 200
        assert comparable(after) == comparable(before)
        export_after = server.json("GET", "/api/draws/%s/export.json" % first)[1]
        assert export_after["records"] == export_before["records"]
        assert not any(r["kind"] == "commit" and r.get("reason") == "restart" for r in export_after["records"])

        # The next round is drawn with the commitment shown before it was unloaded.
        assert host(server, first, first_key, "start")[0] == 200
        status, stopped = host(server, first, first_key, "stop")
        assert status == 200, stopped
        assert stopped["result"]["commitment"] == before["commit"]["commitment"]
        assert stopped["result"]["winners"] == [n for n in NAMES if n not in first_winners]

        for code in (first, linked):
            export = server.json("GET", "/api/draws/%s/export.json" % code)[1]
            path = tmp_path / ("%s.json" % code)
            path.write_text(json.dumps(export, ensure_ascii=False), encoding="utf-8")
            verified = subprocess.run([tombola_binary(), "verify", str(path)], capture_output=True, text=True, timeout=60)
            assert verified.returncode == 0, verified.stdout + verified.stderr
            assert "abandoned" not in verified.stdout, verified.stdout
    finally:
        server.stop()


def test_the_flag_is_checked_and_zero_keeps_every_draw(data_dir):
    binary = tombola_binary()
    refused = subprocess.run([binary, "--unload-idle-after", "-1"], capture_output=True, text=True, timeout=30)
    assert refused.returncode != 0 and "unload-idle-after" in refused.stderr
    server = Tombola(data_dir, extra=("--unload-idle-after", "0"))
    try:
        assert server.json("GET", "/api/draws/" + CODE)[0] == 200
        time.sleep(IDLE + 2)
        assert loaded(server) == 1
    finally:
        server.stop()
