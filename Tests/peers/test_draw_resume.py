"""No re-roll by crash (issue #40): `kill -9` while a round rolls, at seeded random moments, and
the restarted server carries the round on to the winners its Start's lock determined.

Each run kills the server while its round rolls, copies the data directory as the kill left it,
and restarts a server on each copy: both roll the same round on (`resumed`, the same commitment)
and their Stops draw the same winners, with their own fresh Stop times and no entropy from any page
in between; the export verifies with the FAIRNESS.md script. Set TOMBOLA_CRASH_SEED to replay."""
import os
import random
import shutil
import tempfile
import time

from test_draw_export import CODE, Tombola, verify_with_script
from test_fairness_script import script, tombola_binary  # noqa: F401 (fixture)

RUNS = 20


def resumed_stop(data_dir, round_, commitment, note):
    server = Tombola(data_dir)
    try:
        status, state = server.json("GET", "/api/draws/" + CODE)
        assert status == 200 and state["phase"] == "rolling", "%s %s" % (state.get("phase"), note)
        assert state["resumed"] == {"round": round_} and state["interrupted"] is None, note
        assert state["commit"]["commitment"] == commitment, note
        status, body = server.command("stop")
        assert status == 200, "%s %s" % (body, note)
        status, export = server.json("GET", "/api/draws/%s/export.json" % CODE)
        assert status == 200
        return body["result"], export
    finally:
        server.stop()


def test_kill_9_while_rolling_resumes_the_same_round_to_the_same_winners(script, tmp_path):
    seed = int(os.environ.get("TOMBOLA_CRASH_SEED", random.SystemRandom().randrange(2**32)))
    rng = random.Random(seed)
    root = tempfile.mkdtemp(prefix="tombola-resume-")
    try:
        data = os.path.join(root, "data")
        server = Tombola(data)
        assert server.command("config", {"pool": {"kind": "range", "from": 1, "to": 10000}, "perStop": 3})[0] == 200
        drawn = set()
        for run in range(RUNS):
            note = "(run %d, TOMBOLA_CRASH_SEED=%d)" % (run, seed)
            status, body = server.command("start")
            assert status == 200, "%s %s" % (body, note)
            status, state = server.json("GET", "/api/draws/" + CODE)
            round_, commitment = state["plan"]["round"], state["commit"]["commitment"]
            time.sleep(rng.uniform(0.0, 0.3))
            server.proc.kill()
            server.proc.wait(timeout=60)
            server.kill()
            copy = os.path.join(root, "copy")
            shutil.rmtree(copy, ignore_errors=True)
            shutil.copytree(data, copy)
            first, _ = resumed_stop(copy, round_, commitment, note)
            second, export = resumed_stop(data, round_, commitment, note)
            assert first["round"] == second["round"] == round_, note
            assert first["winners"] == second["winners"] and len(first["winners"]) == 3, (first["winners"], second["winners"], note)
            assert first["commitment"] == second["commitment"] == commitment, note
            assert not drawn & set(second["winners"]), "a winner drawn twice %s" % note
            drawn |= set(second["winners"])
            server = Tombola(data)
        server.stop()
        rounds = [r for r in export["records"] if r["kind"] == "round"]
        assert [r["round"] for r in rounds] == list(range(1, RUNS + 1)), "a round abandoned or drawn twice (TOMBOLA_CRASH_SEED=%d)" % seed
        checked = verify_with_script(script, export, tmp_path)
        assert checked.returncode == 0, checked.stdout + checked.stderr
        assert "lock of round" not in checked.stdout, checked.stdout
    finally:
        shutil.rmtree(root, ignore_errors=True)
