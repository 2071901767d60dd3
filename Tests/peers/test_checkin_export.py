"""Check-in (#14) through the independent verifier: a draw whose pool is the entrants who
joined from their phones exports as public ids only, passes docs/FAIRNESS.md's Python script
unchanged, lets one entrant find their id in the pool by hash alone, and fails when an id is
swapped."""
import copy
import hashlib
import json

from test_draw_export import HOST_KEY, Tombola, data_dir, verify_with_script  # noqa: F401 (fixtures by name)
from test_fairness_script import script  # noqa: F401


def canon(x):
    return json.dumps(x, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def test_a_checkin_draw_exports_public_ids_only_and_passes_the_fairness_script(script, data_dir, tmp_path):
    server = Tombola(data_dir)
    try:
        assert server.command("config", {"pool": {"kind": "checkin"}, "perStop": 2})[0] == 200
        assert server.command("entries/open", {"fields": [{"key": "ticket", "label": "Ticket", "unique": True}]})[0] == 200
        ids = {}
        for n in range(12):
            status, body = server.json("POST", "/api/draws/%s/join" % server.code,
                                       {"name": "Zoë %d" % n, "fields": {"ticket": "T%d" % n}})
            assert status == 201, body
            ids[body["entry"]["id"]] = "Zoë %d" % n
        assert server.command("entries/close")[1]["entrants"] == 12
        for _ in range(2):
            assert server.command("start")[0] == 200
            assert server.command("stop")[0] == 200
        status, raw = server.request("GET", "/api/draws/%s/export.json" % server.code)
        assert status == 200
        export = json.loads(raw)
        assert "Zoë" not in raw.decode("utf-8")

        result = verify_with_script(script, export, tmp_path)
        assert result.returncode == 0, result.stdout + result.stderr

        # One entrant checks their id is in the round's pool from the public export alone.
        rounds = [r for r in export["records"] if r["kind"] == "round"]
        lists = {r["entrantsHash"]: r for r in export["records"] if r["kind"] == "entrants"}
        mine = next(iter(ids))
        listed = lists[rounds[0]["pool"]["entrants"]]
        assert hashlib.sha256(canon(listed["entrants"])).hexdigest() == listed["entrantsHash"]
        assert mine in listed["entrants"] and sorted(listed["entrants"]) == sorted(ids)
        assert all(w in ids for r in rounds for w in r["winners"])

        # Swapping one public id breaks the chain.
        tampered = copy.deepcopy(export)
        record = next(r for r in tampered["records"] if r["kind"] == "entrants")
        record["entrants"][0] = "ZZZZZZZZ"
        assert verify_with_script(script, tampered, tmp_path).returncode == 1
    finally:
        server.stop()
