"""Retention (issue #41): a check-in draw with `retentionDays` has its entrants' names, fields and
devices erased by the server once that many days have passed since its last activity, on an
archived draw too, with an audit entry by `system`; the chain is untouched, so the export still
verifies. A draw whose time has not come keeps its names, and the admin list says what goes when.

The server has no clock to set (no test-only flag): the test stops the server and backdates the
draws in SQLite by three days (the `created_at` of the draw, its records and its entrants; the
records' hashes cover their JSON, not that column, so the trigger that keeps records append-only
is dropped for the update and made again), then starts it: the sweep at start finds the overdue
draw, as it would after a server was down past the due time."""
import json
import os
import sqlite3
import subprocess
import time

from test_draw_export import ADMIN_KEY, CODE, HOST_KEY, Tombola, data_dir, verify_with_script  # noqa: F401 (fixture)
from test_fairness_script import script, tombola_binary  # noqa: F401 (fixture)

DAY = 86400


def error_code(reply):
    status, body = reply
    return status, body["error"]["code"]


def fill(server, code, key, names):
    """Open entries with a field, let `names` join, close them."""
    path = "/api/draws/%s/" % code
    assert server.json("POST", path + "entries/open", {"fields": [{"key": "ticket", "label": "Ticket"}]}, key)[0] == 200
    for n, name in enumerate(names):
        status, body = server.json("POST", path + "join", {"name": name, "fields": {"ticket": "T%d" % n}})
        assert status == 201, body
    assert server.json("POST", path + "entries/close", {}, key)[0] == 200


def names_of(server, code, key):
    """The names the host's list shows, erased and removed entrants included."""
    status, body = server.json("GET", "/api/draws/%s/entrants?removed=1" % code, key=key)
    assert status == 200, body
    return sorted(e["name"] for e in body["items"] if e.get("name"))


def listing(server):
    status, body = server.json("GET", "/api/draws?limit=100", key=ADMIN_KEY)
    assert status == 200, body
    return {d["code"]: d for d in body["draws"]}


def backdate(data_dir, seconds):
    db = sqlite3.connect(os.path.join(data_dir, "tombola.sqlite"))
    try:
        trigger = db.execute("SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = 'records_no_update'").fetchone()[0]
        with db:
            db.execute("DROP TRIGGER records_no_update")
            db.execute("UPDATE records SET created_at = created_at - ?", (seconds,))
            db.execute(trigger)
            db.execute("UPDATE draws SET created_at = created_at - ?", (seconds,))
            db.execute("UPDATE entrants SET joined_at = joined_at - ?, removed_at = removed_at - ?", (seconds, seconds))
    finally:
        db.close()


def test_the_server_erases_personal_data_when_retention_is_due_and_keeps_the_proof(script, data_dir, tmp_path):
    names = ["Zoë Quill", "Ada Brook", "Ivo Marsh"]
    server = Tombola(data_dir)
    try:
        assert error_code(server.command("config", {"pool": {"kind": "checkin"}, "retentionDays": 0})) == (400, "bad_retention")
        assert error_code(server.command("config", {"pool": {"kind": "checkin"}, "retentionDays": 3651})) == (400, "bad_retention")
        assert server.command("config", {"pool": {"kind": "checkin"}, "retentionDays": 2})[0] == 200
        fill(server, CODE, HOST_KEY, names)
        assert server.command("start")[0] == 200
        assert server.command("stop")[0] == 200
        # Another draw kept 30 days: not due after three.
        status, other = server.json("POST", "/api/draws", {"config": {"pool": {"kind": "checkin"}, "retentionDays": 30}}, ADMIN_KEY)
        assert status == 201, other
        fill(server, other["code"], other["hostKey"], ["Kim Lowe"])
        # The settings say it (pages read it back from here).
        status, body = server.json("GET", "/api/draws/%s/config" % CODE, key=HOST_KEY)
        assert status == 200 and body["retentionDays"] == 2, body

        rows = listing(server)
        mine = rows[CODE]["retention"]
        assert mine["days"] == 2 and mine["entrants"] == 3 and mine["open"] is False, mine
        assert 0 <= mine["dueAt"] - (rows[CODE]["lastActivity"] + 2 * DAY * 1000) < 5000, mine
        assert rows[other["code"]]["retention"]["entrants"] == 1
        assert server.json("POST", "/api/draws/%s/archive" % CODE, {}, ADMIN_KEY)[0] == 200
        assert names_of(server, CODE, HOST_KEY) == sorted(names)
    finally:
        server.stop()

    backdate(data_dir, 3 * DAY)
    server = Tombola(data_dir)
    try:
        deadline = time.time() + 10
        while names_of(server, CODE, HOST_KEY):
            assert time.time() < deadline, "the overdue draw was not erased at start"
            time.sleep(0.05)
        status, raw = server.request("GET", "/api/draws/%s/entrants.csv" % CODE, key=HOST_KEY)
        assert status == 200 and not any(name.encode() in raw for name in names)
        assert names_of(server, other["code"], other["hostKey"]) == ["Kim Lowe"]
        rows = listing(server)
        assert rows[CODE]["retention"]["entrants"] == 0 and rows[CODE]["archived"] is True
        assert rows[other["code"]]["retention"]["entrants"] == 1

        status, audit = server.json("GET", "/api/draws/%s/audit?limit=500" % CODE, key=HOST_KEY)
        assert status == 200, audit
        erased = [e for e in audit["entries"] if e["action"] == "retention_erase"]
        assert len(erased) == 1 and erased[0]["actor"] == "system" and erased[0]["detail"]["days"] == 2, erased
        status, raw = server.request("GET", "/api/draws/%s/export.json" % CODE, key=HOST_KEY)
        assert status == 200 and not any(name.encode() in raw for name in names)
        export = json.loads(raw)
    finally:
        server.stop()

    # The proof is whole: the round's winners are public ids of the pool, and both verifiers pass it.
    rounds = [r for r in export["records"] if r["kind"] == "round"]
    assert len(rounds) == 1 and len(rounds[0]["winners"]) == 1
    result = verify_with_script(script, export, tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    path = tmp_path / "erased.json"
    path.write_bytes(raw)
    verified = subprocess.run([tombola_binary(), "verify", str(path)], capture_output=True, text=True, timeout=60)
    assert verified.returncode == 0, verified.stdout + verified.stderr
