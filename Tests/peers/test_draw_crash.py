"""Crash durability: `kill -9` at random (seeded) moments while rounds run over REST.

After every restart each winner a client was told about is still there, unchanged; no
round number is drawn twice; the draw comes back idle, revealed, or rolling on the round it was
rolling (resumed, issue #40); the export passes the FAIRNESS.md
script; and SQLite's `PRAGMA integrity_check` says ok. Set TOMBOLA_CRASH_SEED to replay.
"""
import http.client
import json
import os
import random
import sqlite3
import subprocess
import threading
import time

from test_draw_export import CODE, Tombola, data_dir, verify_with_script  # noqa: F401 (fixture)
from test_fairness_script import script, tombola_binary  # noqa: F401 (fixture)

ROUNDS = 30


def test_announced_winners_survive_kill_9_at_random_moments(script, data_dir, tmp_path):
    seed = int(os.environ.get("TOMBOLA_CRASH_SEED", random.SystemRandom().randrange(2**32)))
    rng = random.Random(seed)
    note = "(TOMBOLA_CRASH_SEED=%d)" % seed
    announced = {}  # round → winners, as the client saw them
    kills = 0
    server = Tombola(data_dir)
    try:
        attempts = 0
        while len(announced) < ROUNDS and attempts < ROUNDS * 3:
            attempts += 1
            # About one round in three is cut short somewhere between Start and the reveal.
            kill_after = rng.uniform(0.0, 2.0) if rng.random() < 0.35 else None
            timer = threading.Timer(kill_after, server.proc.kill) if kill_after is not None else None
            if timer:
                timer.start()
            try:
                status, body = server.command("start")
                if status == 409 and body["error"]["code"] == "wrong_phase":
                    status = 200  # a resumed round rolls: its Stop comes next
                if status == 200:
                    status, body = server.command("stop")
                    if status == 200:
                        result = body["result"]
                        assert result["round"] not in announced, "round %d announced twice %s" % (result["round"], note)
                        announced[result["round"]] = result["winners"]
                else:
                    assert status == 409, "start answered %d %s %s" % (status, body, note)
            except (OSError, ValueError, http.client.HTTPException):
                pass  # the server died mid-request: nothing was announced to us
            finally:
                if timer:
                    timer.join()
                    # SIGKILL is sent, not yet acted on: wait for the death, or poll() below
                    # can still see the server alive and the next request meets a dying one.
                    server.proc.wait(timeout=60)
            if server.proc.poll() is not None:
                kills += 1
                server.kill()
                server = Tombola(data_dir)
                status, state = server.json("GET", "/api/draws/" + CODE)
                # A restart shows the last revealed round (phase revealed), or idle when the board
                # is empty; a round that was rolling rolls on, resumed (issue #40, docs/PROTOCOL.md):
                # its Stop is announced like any other.
                assert status == 200, note
                if state["phase"] == "rolling":
                    assert state["resumed"] == {"round": state["plan"]["round"]}, "%s %s" % (state.get("resumed"), note)
                else:
                    assert state["phase"] == ("revealed" if state["rounds"] else "idle"), note
                check_board(server, state, announced, note)
        status, state = server.json("GET", "/api/draws/" + CODE)
        check_board(server, state, announced, note)
        status, export = server.json("GET", "/api/draws/%s/export.json" % CODE)
        assert status == 200
    finally:
        server.stop()

    assert kills >= 3, "only %d kills happened %s" % (kills, note)
    assert len(announced) >= ROUNDS // 2, note
    rounds = [r for r in export["records"] if r["kind"] == "round"]
    numbers = [r["round"] for r in rounds]
    assert len(numbers) == len(set(numbers)), "a round was drawn twice %s" % note
    stored = {r["round"]: r["winners"] for r in rounds}
    for number, winners in announced.items():
        assert stored.get(number) == winners, "round %d: announced %s, stored %s %s" % (number, winners, stored.get(number), note)
    every = [w for r in rounds for w in r["winners"]]
    assert len(every) == len(set(every)), "a number won twice %s" % note
    outcome = verify_with_script(script, export, tmp_path)
    assert outcome.returncode == 0, note + "\n" + outcome.stdout

    db = sqlite3.connect(os.path.join(data_dir, "tombola.sqlite"))
    try:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok", note
        count = db.execute("SELECT count(*) FROM records WHERE draw_code = ? AND kind = 'round'", (CODE,)).fetchone()[0]
        assert count == len(rounds), note
    finally:
        db.close()


def check_board(server, state, announced, note):
    """Every announced round on the board. The snapshot lists at most the latest 50 rounds
    (docs/PROTOCOL.md: kills make unannounced rounds too, so 30 announced ones can pass 50): the
    ones it leaves out (`olderRounds`) are read from the paged list, as the pages do."""
    board = {r["round"]: r["winners"] for r in state["rounds"]}
    if state["olderRounds"]:
        status, older = server.json("GET", "/api/draws/%s/rounds?offset=%d&limit=200" % (CODE, len(state["rounds"])))
        assert status == 200 and older["total"] == len(state["rounds"]) + state["olderRounds"], (older, note)
        board.update({r["round"]: r["winners"] for r in older["rounds"]})
    for number, winners in announced.items():
        assert board.get(number) == winners, "after restart round %d shows %s, announced %s %s" % (
            number, board.get(number), winners, note)


def test_a_roll_whose_sealed_seed_is_lost_leaves_its_lock_abandoned_and_both_verifiers_warn(script, data_dir, tmp_path):
    """Start stores the round's lock before it rolls (docs/FAIRNESS.md §1, step 3). A server killed
    while rolling resumes the round (test_draw_resume.py) unless the data that resumes it is lost:
    here `seed.key` is. Then the lock stays in the chain, abandoned, the restart's commit follows
    it, the next Start stores a new lock for the same round, and both
    verifiers pass with a WARNING."""
    server = Tombola(data_dir)
    try:
        status, body = server.command("start")
        assert status == 200, body
        server.proc.kill()
        server.proc.wait(timeout=60)
        server.kill()
        os.unlink(os.path.join(data_dir, "seed.key"))
        server = Tombola(data_dir)
        status, state = server.json("GET", "/api/draws/" + CODE)
        assert state["interrupted"] == {"round": 1} and "resumed" not in state
        assert server.command("start")[0] == 200
        status, body = server.command("stop")
        assert status == 200, body
        status, export = server.json("GET", "/api/draws/%s/export.json" % CODE)
        assert status == 200
    finally:
        server.stop()
    kinds = [r["kind"] for r in export["records"]]
    assert kinds == ["commit", "lock", "commit", "lock", "round", "commit"], kinds
    first, again = export["records"][1], export["records"][3]
    assert export["records"][2]["reason"] == "restart"
    assert first["round"] == again["round"] == 1 and first["commitment"] != again["commitment"]
    assert first["at"] < again["at"] <= export["records"][4]["at"]
    outcome = verify_with_script(script, export, tmp_path)
    assert outcome.returncode == 0, outcome.stdout
    assert "#2 WARNING: lock of round 1 abandoned: its roll was cut short before Stop and not resumed" in outcome.stdout
    path = tmp_path / "crash-export.json"
    path.write_text(json.dumps(export), encoding="utf-8")
    own = subprocess.run([tombola_binary(), "verify", str(path)], capture_output=True, text=True, timeout=60)
    assert own.returncode == 0 and "lock of round 1 abandoned" in own.stdout, own.stdout
