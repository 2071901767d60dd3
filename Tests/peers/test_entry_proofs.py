"""Issue 27 part 2 and issue 33 part 2 from outside: a check-in draw's entrants fetch their entry
proofs (`GET …/rounds/<n>/proof?entry=…`), `tombola verify --proof` and the script of
docs/FAIRNESS.md §12 check them against the export (and every entry with `--all-entries`), a
forged proof is refused by both, the errors are clear and old (v1) exports verify with the note."""
import copy
import json
import pathlib
import subprocess
import sys
import urllib.parse

import forgeries
from test_draw_export import Tombola, data_dir  # noqa: F401 (fixture by name)
from test_fairness_script import script, tombola_binary  # noqa: F401

FIXTURES = pathlib.Path(__file__).with_name("fixtures")
ref = forgeries.ref


def both(script, tmp_path, export, *extra):
    """(script's output, tombola verify's output), each with its exit code."""
    path = tmp_path / "export.json"
    path.write_text(json.dumps(export, ensure_ascii=False), encoding="utf-8")
    py = subprocess.run([sys.executable, str(script), str(path), *extra], capture_output=True, text=True, timeout=120)
    sw = subprocess.run([tombola_binary(), "verify", str(path), *extra], capture_output=True, text=True, timeout=120)
    return py, sw


def proof_path(tmp_path, name, proof):
    path = tmp_path / name
    path.write_text(json.dumps(proof, ensure_ascii=False), encoding="utf-8")
    return str(path)


def test_checked_in_entrants_prove_their_entries_and_forged_proofs_fail(script, data_dir, tmp_path):
    server = Tombola(data_dir)
    try:
        assert server.command("config", {"pool": {"kind": "checkin"}, "perStop": 2})[0] == 200
        assert server.command("entries/open", {"fields": []})[0] == 200
        ids = []
        for n in range(7):  # 7 leaves: odd levels on the way up
            status, body = server.json("POST", "/api/draws/%s/join" % server.code, {"name": "Zoë %d" % n, "fields": {}})
            assert status == 201, body
            ids.append(body["entry"]["id"])
        assert server.command("entries/close")[0] == 200
        for _ in range(2):
            assert server.command("start")[0] == 200
            assert server.command("stop")[0] == 200
        base = "/api/draws/%s/rounds" % server.code
        status, raw = server.request("GET", "/api/draws/%s/export.json" % server.code)
        export = json.loads(raw)
        assert status == 200 and export["format"] == "tombola-export-v2"
        rounds = [r for r in export["records"] if r["kind"] == "round"]
        first_winners = rounds[0]["winners"]

        proofs = {}
        for n, entry in enumerate(ids):
            status, proof = server.json("GET", "%s/2/proof?entry=%s" % (base, urllib.parse.quote(" %s " % entry)))
            assert status == 200, proof
            assert proof["entry"] == {"position": n, "name": entry, "tickets": 1, "group": ""} and proof["size"] == 7
            # Round 2 was drawn without round 1's winners (repeats off): they are in the list, not in the pool.
            assert proof["inPool"] == (entry not in first_winners)
            assert proof["lock"]["kind"] == "lock" and proof["lock"]["root"] == proof["root"]
            proofs[entry] = proof
        paths = [proof_path(tmp_path, "p%d.json" % i, p) for i, p in enumerate(proofs.values())]
        args = [a for p in paths for a in ("--proof", p)] + ["--all-entries"]
        py, sw = both(script, tmp_path, export, *args)
        for out in (py, sw):
            assert out.returncode == 0, out.stdout + out.stderr
            assert sum("proof round 2: OK" in line for line in out.stdout.splitlines()) == 7
            assert "entries: 7 paths OK" in out.stdout
            assert 'entry "%s" (1 tickets) is in the locked pool' % next(e for e in ids if e not in first_winners) in out.stdout

        # The same proof with another ticket count, a bent path or a lock of another pool fails in both.
        honest = proofs[ids[3]]
        more = copy.deepcopy(honest)
        more["entry"]["tickets"] = 5
        more["leaf"] = ref.leaf_hash(3, ids[3], 5, "").hex()
        bent = copy.deepcopy(honest)
        bent["path"][0] = "00" * 32
        other = copy.deepcopy(honest)
        other["lock"]["poolHash"] = "ab" * 32
        other["lock"]["hash"] = ref.sha(ref.canon({k: v for k, v in other["lock"].items() if k != "hash"}))
        # A lock record of its own (another time, re-hashed): the proof holds together but is not the export's.
        moved = copy.deepcopy(honest)
        moved["lock"]["at"] += 1
        moved["lock"]["hash"] = ref.sha(ref.canon({k: v for k, v in moved["lock"].items() if k != "hash"}))
        for name, forged, reason in (("more", more, "path"), ("bent", bent, "path"), ("other", other, "pool"),
                                     ("moved", moved, "lock not in the export")):
            py, sw = both(script, tmp_path, export, "--proof", proof_path(tmp_path, name + ".json", forged))
            for out in (py, sw):
                assert out.returncode == 1 and "proof round 2: FAIL: %s" % reason in out.stdout, name + out.stdout

        # Clear errors, nothing changed.
        for path, status_code, code in (
            ("%s/2/proof" % base, 400, "bad_entry"),
            ("%s/2/proof?entry=%%20" % base, 400, "bad_entry"),
            ("%s/2/proof?entry=%s" % (base, "x" * 201), 400, "bad_entry"),
            ("%s/9/proof?entry=%s" % (base, ids[0]), 404, "unknown_round"),
            ("%s/0/proof?entry=%s" % (base, ids[0]), 404, "unknown_round"),
            ("%s/2/proof?entry=%s" % (base, urllib.parse.quote("Zoë 1")), 404, "unknown_entry"),  # names are private here
            ("/api/draws/NOSUCH/rounds/1/proof?entry=A", 404, "unknown_draw"),
        ):
            status, body = server.json("GET", path)
            assert (status, body["error"]["code"]) == (status_code, code), (path, body)
        status, again = server.request("GET", "/api/draws/%s/export.json" % server.code)
        assert json.loads(again)["records"] == export["records"]
    finally:
        server.stop()


def test_a_range_round_has_no_entry_proof(data_dir):
    server = Tombola(data_dir)
    try:
        assert server.command("config", {"pool": {"kind": "range", "from": 1, "to": 50}})[0] == 200
        assert server.command("start")[0] == 200
        assert server.command("stop")[0] == 200
        status, body = server.json("GET", "/api/draws/%s/rounds/1/proof?entry=7" % server.code)
        assert (status, body["error"]["code"]) == (400, "not_a_list")
    finally:
        server.stop()


def test_old_format_exports_verify_with_the_note(script, tmp_path):
    for name in ("sample-export-v1.json", "sample-export-pools-v1.json", "sample-export-past-v1.json"):
        export = json.loads((FIXTURES / name).read_text(encoding="utf-8"))
        assert export["format"] == "tombola-export-v1"
        rounds = sum(r["kind"] == "round" for r in export["records"])
        py, sw = both(script, tmp_path, export)
        for out in (py, sw):
            assert out.returncode == 0, name + out.stdout
            notes = [line for line in out.stdout.splitlines() if "note: no lock record (export format v1)" in line]
            assert len(notes) == rounds and "FAIRNESS.md §11" in notes[0]


def test_the_new_fixtures_have_a_lock_before_every_round_and_no_note(script, tmp_path):
    # The current exports (the lock stored at Start) and the same draws as stored before that
    # (the lock stored by Stop, with its round): both verify alike in the script and `tombola verify`.
    for name in ("sample-export.json", "sample-export-pools.json", "sample-export-past.json",
                 "sample-export-stoplock.json", "sample-export-pools-stoplock.json", "sample-export-past-stoplock.json"):
        export = json.loads((FIXTURES / name).read_text(encoding="utf-8"))
        records = export["records"]
        assert export["format"] == "tombola-export-v2"
        assert all(records[i - 1]["kind"] == "lock" for i, r in enumerate(records) if r["kind"] == "round")
        py, sw = both(script, tmp_path, export, "--all-entries")
        for out in (py, sw):
            assert out.returncode == 0 and "no lock record" not in out.stdout, out.stdout


def test_a_lock_stripped_from_a_v2_export_is_refused(script, tmp_path):
    export = json.loads((FIXTURES / "sample-export.json").read_text(encoding="utf-8"))
    data = copy.deepcopy(export)
    locks = [i for i, r in enumerate(data["records"]) if r["kind"] == "lock"]
    del data["records"][locks[1]]
    for i, r in enumerate(data["records"]):
        r["index"] = i
    forgeries.relink(data["records"])
    py, sw = both(script, tmp_path, data)
    label = "#%d round 2: FAIL: round without its lock" % locks[1]
    for out in (py, sw):
        assert out.returncode == 1 and label in out.stdout, out.stdout
