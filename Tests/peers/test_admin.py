"""The admin's REST API with the real binary (issue #25): list draws page by page, archive
(read-only over REST and WebSocket, still exportable and verifiable, kept across a restart),
un-archive, delete (archived first; records gone, tombstone and audit entry kept, the code never
used again)."""
import json
import os
import sqlite3
import subprocess

from websockets.sync.client import connect

from test_draw_export import ADMIN_KEY, CODE, HOST_KEY, Tombola, data_dir  # noqa: F401 (fixture)
from test_fairness_script import tombola_binary


def error_code(answer):
    status, body = answer
    return status, body["error"]["code"]


def test_list_archive_unarchive_and_delete(data_dir, tmp_path):
    server = Tombola(data_dir)
    try:
        created = [server.json("POST", "/api/draws", {"config": {"pool": {"kind": "range", "from": 1, "to": 9}}}, ADMIN_KEY)[1]
                   for _ in range(3)]
        codes = [c["code"] for c in created]
        # Paged, newest first; `next` leads to the rest, and the pages hold every draw once.
        status, first = server.json("GET", "/api/draws?limit=2", key=ADMIN_KEY)
        assert status == 200 and [d["code"] for d in first["draws"]] == [codes[2], codes[1]] and first["next"] == codes[1]
        status, second = server.json("GET", "/api/draws?limit=2&after=" + first["next"], key=ADMIN_KEY)
        assert [d["code"] for d in second["draws"]] == [codes[0], CODE] and second["next"] is None
        row = second["draws"][0]
        assert row["rounds"] == 0 and row["title"] is None and row["archived"] is False
        assert row["created"] <= row["lastActivity"]
        assert error_code(server.json("GET", "/api/draws?limit=0", key=ADMIN_KEY)) == (400, "bad_page")
        assert error_code(server.json("GET", "/api/draws?after=NOSUCH", key=ADMIN_KEY)) == (400, "bad_page")
        assert error_code(server.json("GET", "/api/draws")) == (401, "unauthorized")
        assert error_code(server.json("GET", "/api/draws", key=created[0]["hostKey"])) == (403, "bad_admin_key")

        # A round, then archive: read-only, still exported.
        target, host_key = codes[0], created[0]["hostKey"]
        path = "/api/draws/%s/" % target
        assert server.json("POST", path + "start", {}, host_key)[0] == 200
        assert error_code(server.json("POST", path + "archive", {}, ADMIN_KEY)) == (409, "wrong_phase")
        assert server.json("POST", path + "stop", {}, host_key)[0] == 200
        assert server.json("GET", "/api/draws?limit=1&after=" + codes[1], key=ADMIN_KEY)[1]["draws"][0]["rounds"] == 1
        assert server.json("POST", path + "archive", {}, ADMIN_KEY) == (200, {"ok": True, "code": target, "archived": True})
        for name in ("start", "clear"):
            assert error_code(server.json("POST", path + name, {}, host_key)) == (409, "draw_archived")
        assert error_code(server.json("PUT", path + "config", {"perStop": 2}, host_key)) == (409, "draw_archived")
        with connect("ws://127.0.0.1:%d/ws/draw/%s" % (server.port, target), open_timeout=10) as page:
            def reply():
                while True:
                    message = json.loads(page.recv(timeout=10))
                    if message["type"] in ("role", "error", "ack"):
                        return message
            page.send(json.dumps({"type": "auth", "key": host_key}))
            assert reply()["role"] == "host"
            page.send(json.dumps({"type": "start", "seq": 1}))
            assert reply()["code"] == "draw_archived"
        status, export = server.request("GET", path + "export.json")
        assert status == 200 and b'"round"' in export
        assert error_code(server.json("DELETE", "/api/draws/" + codes[1], key=ADMIN_KEY)) == (409, "not_archived")
        # A draw whose winners another draw excludes stays until that draw lets go of it.
        listed = {"pool": {"kind": "list", "entrants": ["Ann", "Bob", "Cy"]}}
        status, named = server.json("POST", "/api/draws", {"config": listed}, ADMIN_KEY)
        linking = {**listed, "excludeWinnersOf": [{"code": named["code"], "key": named["hostKey"]}]}
        assert server.json("POST", "/api/draws", {"config": linking}, ADMIN_KEY)[0] == 201
        assert server.json("POST", "/api/draws/%s/archive" % named["code"], {}, ADMIN_KEY)[0] == 200
        assert error_code(server.json("DELETE", "/api/draws/" + named["code"], key=ADMIN_KEY)) == (409, "draw_linked")
        assert server.json("GET", "/api/draws/" + named["code"])[0] == 200
        assert server.json("POST", "/api/draws/%s/archive" % CODE, {}, ADMIN_KEY)[0] == 200
        assert error_code(server.json("DELETE", "/api/draws/" + CODE, key=ADMIN_KEY)) == (409, "default_draw")
        assert server.json("POST", "/api/draws/%s/unarchive" % CODE, {}, ADMIN_KEY)[0] == 200
        assert server.json("POST", "/api/draws/%s/clear" % CODE, {}, HOST_KEY)[0] == 200
    finally:
        server.stop()

    # Archived stays archived across a restart; then deleted.
    server = Tombola(data_dir)
    try:
        assert error_code(server.json("POST", path + "start", {}, host_key)) == (409, "draw_archived")
        assert server.json("DELETE", "/api/draws/" + target.lower(), key=ADMIN_KEY) == (200, {"ok": True, "code": target, "deleted": True})
        assert error_code(server.json("GET", "/api/draws/" + target)) == (404, "unknown_draw")
        listed = [d["code"] for d in server.json("GET", "/api/draws", key=ADMIN_KEY)[1]["draws"]]
        assert target not in listed and codes[1] in listed
    finally:
        server.stop()

    db = sqlite3.connect(os.path.join(data_dir, "tombola.sqlite"))
    try:
        assert db.execute("SELECT COUNT(*) FROM records WHERE draw_code = ?", (target,)).fetchone()[0] == 0
        assert db.execute("SELECT deleted_at IS NOT NULL, host_key_hash FROM draws WHERE code = ?", (target,)).fetchone() == (1, "")
        actions = [a for (a,) in db.execute("SELECT action FROM audit WHERE draw_code = ? AND actor = 'admin' ORDER BY idx", (target,))]
        assert actions == ["create", "archive", "delete"]
    finally:
        db.close()
    # The code is never used again, not even for the default draw.
    done = subprocess.run([tombola_binary(), "--port", "0", "--data", data_dir, "--default-draw", target,
                           "--public", str(tmp_path)], capture_output=True, text=True, timeout=30)
    assert done.returncode == 1 and "was deleted" in done.stderr

