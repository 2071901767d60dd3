"""Beacon-sealed rounds in the live room (docs/FAIRNESS.md §13, docs/PROTOCOL.md "Beacon-sealed
rounds"): a real server against real test relays on 127.0.0.1 (drand_relay.py). Stop stores the
lock, the room waits for drand round R, fetches it and reveals winners that anyone recomputes
from the lock record and R's randomness alone; a relay serving a wrongly signed value is skipped;
no relay leaves the round waiting for the same R
(never another) until one answers, and only the host's abandon ends the wait, on the record; kill -9 while waiting resumes the same round with the same winners."""
import hashlib
import importlib.util
import json
import subprocess
import threading
import time

import pytest

from drand_relay import DrandChain, Relay
from test_draw_export import CODE, HOST_KEY, Tombola, data_dir, verify_with_script  # noqa: F401 (fixture)
from test_fairness_script import script, tombola_binary  # noqa: F401 (fixture)

CONFIG = {"pool": {"kind": "range", "from": 1, "to": 500}, "perStop": 3, "beacon": True}


@pytest.fixture(scope="module")
def chain():
    return DrandChain(secret=0xB3AC0)


@pytest.fixture
def relays(chain):
    made = [Relay(chain), Relay(chain)]
    yield made
    for relay in made:
        relay.close()


def server_for(data_dir, chain, relays):
    extra = chain.flags()
    for relay in relays:
        extra += ["--beacon-relay", relay.url]
    return Tombola(data_dir, extra=extra)


def records(server):
    status, export = server.json("GET", "/api/draws/%s/export.json" % CODE)
    assert status == 200
    return export


def public_winners(script, lock, randomness):
    """The winners as FAIRNESS.md §13 defines them: only the lock record and R's randomness."""
    spec = importlib.util.spec_from_file_location("verify_tombola", script)
    v = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(v)
    key = hashlib.sha256(b"tombola-drand-v1\x00" + bytes.fromhex(lock["hash"]) + bytes.fromhex(randomness)).digest()
    pool = lock["pool"]
    return [pool["from"] + p for p in v.positions(key, lock["round"], lock["poolHash"], lock["entropy"], lock["eligible"], lock["count"])]


def tombola_verify(export, tmp_path, chain, *extra):
    """`tombola verify`, trusting the test chain (any chain but quicknet fails without it, §13)."""
    path = tmp_path / "live-export.json"
    path.write_text(json.dumps(export), encoding="utf-8")
    return subprocess.run([tombola_binary(), "verify", str(path), *chain.trust_flags(), *extra], capture_output=True, text=True,
                          timeout=60)


def start(server):
    status, body = server.command("config", CONFIG)
    assert status == 200, body
    status, body = server.command("start")
    assert status == 200, body


def test_a_sealed_round_reveals_the_public_function_of_its_lock_and_drand(script, data_dir, chain, relays, tmp_path):
    server = server_for(data_dir, chain, relays)
    try:
        start(server)
        status, state = server.json("GET", "/api/draws/" + CODE)
        assert state["config"]["beacon"] is True and state["beacon"] is None
        status, body = server.command("stop", timeout=40)
        assert status == 200, body
        export = records(server)
        status, state = server.json("GET", "/api/draws/" + CODE)
    finally:
        server.stop()
    kinds = [r["kind"] for r in export["records"]]
    lock = next(r for r in export["records"] if r["kind"] == "beacon")
    value = next(r for r in export["records"] if r["kind"] == "beaconValue")
    round_record = next(r for r in export["records"] if r["kind"] == "round")
    start_at = kinds.index("lock")
    assert kinds[start_at:start_at + 5] == ["lock", "beacon", "beaconValue", "round", "commit"]
    lock_record = export["records"][start_at]
    assert (lock_record["round"], lock_record["poolHash"], lock_record["commitment"]) == (lock["round"], lock["poolHash"], lock["commitment"])
    assert lock_record["plan"]["count"] == 3
    assert lock["chain"]["hash"] == chain.hash and lock["relays"] == [relays[0].url, relays[1].url]
    assert value["beaconRound"] == lock["beaconRound"] and value["lock"] == lock["hash"]
    signed = chain.sign(lock["beaconRound"])
    assert (value["randomness"], value["signature"]) == (signed["randomness"], signed["signature"])
    assert chain.due(lock["beaconRound"]) * 1000 >= lock["at"] + 1000
    winners = public_winners(script, lock, signed["randomness"])
    assert body["result"]["winners"] == winners == round_record["winners"] and len(winners) == 3
    assert state["phase"] == "revealed"
    assert state["beacon"] == {"type": "beacon", "round": 1, "beaconRound": lock["beaconRound"], "status": "sealed", "reason": None}
    outcome = tombola_verify(export, tmp_path, chain)
    assert outcome.returncode == 0, outcome.stdout + outcome.stderr
    assert "drand round %d: OK (BLS signature verified under the key of chain %s…" % (lock["beaconRound"], chain.hash[:12]) \
        in outcome.stdout
    script_outcome = verify_with_script(script, export, tmp_path)
    assert script_outcome.returncode == 0, script_outcome.stdout


def test_a_relay_serving_a_wrongly_signed_value_is_skipped_and_the_round_seals(script, data_dir, chain, relays, tmp_path):
    # Relay 0 serves another round's signature as R's (a valid G1 point, randomness recomputed):
    # the server checks the BLS signature itself, skips it and seals with relay 1's value.
    relays[0].mode = "tamper-signature"
    server = server_for(data_dir, chain, relays)
    try:
        start(server)
        status, body = server.command("stop", timeout=40)
        assert status == 200, body
        export = records(server)
    finally:
        server.stop()
    lock = next(r for r in export["records"] if r["kind"] == "beacon")
    value = next(r for r in export["records"] if r["kind"] == "beaconValue")
    signed = chain.sign(lock["beaconRound"])
    assert (value["signature"], value["relays"]) == (signed["signature"], [relays[1].url])
    assert not [r for r in export["records"] if r["kind"] == "beaconVoid"]
    assert body["result"]["winners"] == public_winners(script, lock, signed["randomness"])
    assert tombola_verify(export, tmp_path, chain).returncode == 0


def wait_for(server, predicate, what, timeout=30):
    deadline = time.time() + timeout
    while True:
        status, state = server.json("GET", "/api/draws/" + CODE)
        if predicate(state):
            return state
        assert time.time() < deadline, what + ": " + json.dumps(state.get("beacon"))
        time.sleep(0.2)


def test_relays_cut_after_r_is_due_the_round_waits_and_seals_with_that_r(script, data_dir, chain, relays, tmp_path):
    # Issue #40: no void by timeout, never another R. The relays are cut: the Stop hears
    # beacon_waiting, every page sees "waiting" with the relays' errors and the lock's hash, nothing
    # is stored; once a relay answers (the host's retry asks at once) the round seals with that R.
    for relay in relays:
        relay.mode = "down"
    server = server_for(data_dir, chain, relays)
    try:
        start(server)
        status, body = server.command("stop", timeout=40)
        assert status == 409 and body["error"]["code"] == "beacon_waiting", body
        status, state = server.json("GET", "/api/draws/" + CODE)
        assert state["phase"] == "rolling" and state["result"] is None
        lock = next(r for r in records(server)["records"] if r["kind"] == "beacon")
        beacon = state["beacon"]
        assert (beacon["status"], beacon["beaconRound"], beacon["lock"]) == ("waiting", lock["beaconRound"], lock["hash"]), beacon
        assert "in time" in beacon["reason"] and relays[0].url in beacon["reason"] and beacon["retryAt"] > time.time() * 1000
        assert [r["kind"] for r in records(server)["records"]][-2:] == ["lock", "beacon"], "nothing stored while waiting"
        status, body = server.command("stop")
        assert status == 409 and body["error"]["code"] == "wrong_phase", "no second Stop, no new R"
        for relay in relays:
            relay.mode = "ok"
        status, body = server.json("POST", "/api/draws/%s/beacon/retry" % CODE, {}, HOST_KEY)
        assert status == 200 and body["ok"], body
        wait_for(server, lambda s: s["phase"] == "revealed", "the round never sealed")
        export = records(server)
        status, audit = server.json("GET", "/api/draws/%s/audit" % CODE, key=HOST_KEY)
    finally:
        server.stop()
    kinds = [r["kind"] for r in export["records"]]
    assert kinds[kinds.index("lock"):] == ["lock", "beacon", "beaconValue", "round", "commit"]
    assert [r for r in export["records"] if r["kind"] == "beacon"] == [lock]
    round_record = next(r for r in export["records"] if r["kind"] == "round")
    assert round_record["winners"] == public_winners(script, lock, chain.sign(lock["beaconRound"])["randomness"])
    sealed = [e for e in audit["entries"] if e["action"] == "beacon"]
    assert sealed and sealed[0]["detail"]["attempts"] >= 2 and sealed[0]["detail"]["skipped"] == [], sealed
    outcome = tombola_verify(export, tmp_path, chain)
    assert outcome.returncode == 0, outcome.stdout + outcome.stderr


def test_abandon_is_on_the_record_and_verify_shows_what_r_would_have_drawn(script, data_dir, chain, relays, tmp_path):
    # Issue #40: only the host gives R up, with a reason, on the record; once R is public,
    # tombola verify --beacon-value shows the winners R would have drawn beside the abandonment.
    for relay in relays:
        relay.mode = "down"
    server = server_for(data_dir, chain, relays)
    try:
        start(server)
        answer = {}
        stopper = threading.Thread(target=lambda: answer.update(r=server.command("stop", timeout=40)), daemon=True)
        stopper.start()
        wait_for(server, lambda s: (s.get("beacon") or {}).get("status") == "waiting", "no waiting round")
        lock = next(r for r in records(server)["records"] if r["kind"] == "beacon")
        status, body = server.json("POST", "/api/draws/%s/beacon/abandon" % CODE, {"reason": ""}, HOST_KEY)
        assert status == 400 and body["error"]["code"] == "bad_reason", body
        status, body = server.json("POST", "/api/draws/%s/beacon/abandon" % CODE, {"reason": "venue offline"}, HOST_KEY)
        assert status == 200 and body["ok"], body
        stopper.join(timeout=20)
        assert answer["r"][0] == 409 and answer["r"][1]["error"]["code"] == "beacon_void", answer
        state = wait_for(server, lambda s: (s.get("beacon") or {}).get("status") == "void", "no abandonment shown")
        assert state["beacon"]["reason"] == "abandoned by the host: venue offline" and state["phase"] == "rolling"
        for relay in relays:
            relay.mode = "ok"
        status, body = server.command("stop", timeout=40)
        assert status == 200, body
        export = records(server)
        status, audit = server.json("GET", "/api/draws/%s/audit" % CODE, key=HOST_KEY)
    finally:
        server.stop()
    kinds = [r["kind"] for r in export["records"]]
    assert kinds[kinds.index("lock"):] == ["lock", "beacon", "beaconVoid", "beacon", "beaconValue", "round", "commit"]
    void = next(r for r in export["records"] if r["kind"] == "beaconVoid")
    assert (void["beaconRound"], void["reason"]) == (lock["beaconRound"], "abandoned by the host: venue offline")
    assert [e["detail"]["reason"] for e in audit["entries"] if e["action"] == "beaconAbandon"] == ["venue offline"]
    outcome = tombola_verify(export, tmp_path, chain)
    assert outcome.returncode == 0, outcome.stdout + outcome.stderr
    assert "drand round %d of round 1 ABANDONED on the record (abandoned by the host: venue offline): once it is public" \
        % lock["beaconRound"] in outcome.stdout, outcome.stdout
    signed = chain.sign(lock["beaconRound"])
    would = public_winners(script, lock, signed["randomness"])
    outcome = tombola_verify(export, tmp_path, chain, "--beacon-value", "%d:%s" % (lock["beaconRound"], signed["signature"]))
    assert outcome.returncode == 0, outcome.stdout + outcome.stderr
    assert "it would have drawn: " + ", ".join(str(w) for w in would) in outcome.stdout, outcome.stdout
    forged = chain.sign(lock["beaconRound"] + 1)["signature"]
    outcome = tombola_verify(export, tmp_path, chain, "--beacon-value", "%d:%s" % (lock["beaconRound"], forged))
    assert outcome.returncode == 1 and "does not verify under the lock's chain key" in outcome.stdout, outcome.stdout


def test_a_sealed_round_with_a_waiting_list_verifies(script, data_dir, chain, relays, tmp_path):
    # Issue #40: the product's own export of a sealed draw with alternates (a waiting list, as
    # claims fix them, FAIRNESS §15) verified with "round differs from its beacon lock" before.
    server = server_for(data_dir, chain, relays)
    try:
        status, body = server.command("config", {"pool": {"kind": "range", "from": 1, "to": 40}, "perStop": 3,
                                                 "beacon": True, "waitlist": True})
        assert status == 200, body
        status, body = server.command("start")
        assert status == 200, body
        status, body = server.command("stop", timeout=40)
        assert status == 200, body
        export = records(server)
    finally:
        server.stop()
    round_record = next(r for r in export["records"] if r["kind"] == "round")
    assert len(round_record["alternates"]) == 37
    outcome = tombola_verify(export, tmp_path, chain)
    assert outcome.returncode == 0, outcome.stdout + outcome.stderr
    assert verify_with_script(script, export, tmp_path).returncode == 0


def test_kill_9_while_waiting_resumes_the_same_round_with_the_same_winners(script, data_dir, chain, relays, tmp_path):
    for relay in relays:
        relay.mode = "down"
    server = server_for(data_dir, chain, relays)
    try:
        start(server)
        answer = {}
        stopper = threading.Thread(target=lambda: answer.update(r=safe_stop(server)), daemon=True)
        stopper.start()
        deadline = time.time() + 10
        while not any(r["kind"] == "beacon" for r in records(server)["records"]):
            assert time.time() < deadline, "no beacon record"
            time.sleep(0.1)
        lock = next(r for r in records(server)["records"] if r["kind"] == "beacon")
        server.proc.kill()
        server.proc.wait(timeout=10)
        stopper.join(timeout=20)
    finally:
        server.kill()
    for relay in relays:
        relay.mode = "ok"
    # Restarted after R's 10 s wait limit has passed: R is fetched afresh (never replaced by another).
    time.sleep(max(0.0, chain.due(lock["beaconRound"]) + 11 - time.time()))
    server = server_for(data_dir, chain, relays)
    try:
        deadline = time.time() + 30
        while True:
            status, state = server.json("GET", "/api/draws/" + CODE)
            if state["phase"] == "revealed":
                break
            assert state["phase"] in ("rolling", "stopping"), state["phase"]
            assert time.time() < deadline, "the resumed round never revealed"
            time.sleep(0.2)
        export = records(server)
    finally:
        server.stop()
    assert [r for r in export["records"] if r["kind"] == "beacon"] == [lock]
    rounds = [r for r in export["records"] if r["kind"] == "round"]
    assert len(rounds) == 1 and rounds[0]["round"] == lock["round"]
    assert rounds[0]["winners"] == public_winners(script, lock, chain.sign(lock["beaconRound"])["randomness"])
    outcome = tombola_verify(export, tmp_path, chain)
    assert outcome.returncode == 0, outcome.stdout + outcome.stderr


def test_a_plain_http_relay_needs_beacon_allow_http():
    result = subprocess.run([tombola_binary(), "--beacon-relay", "http://127.0.0.1:1"], capture_output=True, text=True, timeout=30)
    assert result.returncode != 0 and "--beacon-allow-http" in result.stderr


def safe_stop(server):
    try:
        return server.command("stop", timeout=30)
    except OSError:
        return None


def test_a_voids_replacement_is_sealed_by_its_own_drand_round_across_a_kill_9(script, data_dir, chain, relays, tmp_path):
    """Issue #40 (FAIRNESS §13, "Voids"): in a sealed draw a no-show's replacement is not drawn from
    the seed the server knows but sealed by a drand round of its own, due after the void: the void
    stores `void`, `lock` and a `beacon` lock naming what it replaces; nothing else may happen
    meanwhile (Start is refused); a kill -9 while it waits resumes the same wait, and the
    replacement is the public function of its lock and that R; both verifiers pass the export."""
    server = server_for(data_dir, chain, relays)
    try:
        start(server)
        status, body = server.command("stop", timeout=30)
        assert status == 200, body
        winner = body["result"]["winners"][0]
        for relay in relays:
            relay.mode = "down"
        status, body = server.command("void", {"round": 1, "winner": winner, "reason": "no-show"})
        assert status == 200 and "result" not in body, body
        kinds = [r["kind"] for r in records(server)["records"]]
        assert kinds[-3:] == ["void", "lock", "beacon"], kinds
        lock = records(server)["records"][-1]
        assert lock["replaces"]["winner"] == winner and lock["count"] == 1 and lock["round"] == 1
        state = server.json("GET", "/api/draws/" + CODE)[1]
        assert state["beacon"]["status"] == "waiting" and state["beacon"]["replacement"] is True
        assert state["beacon"]["beaconRound"] == lock["beaconRound"] and state["phase"] == "revealed"
        status, body = server.command("start")
        assert status == 409 and body["error"]["code"] == "wrong_phase", body
        server.proc.kill()
        server.proc.wait(timeout=10)
    finally:
        server.kill()
    for relay in relays:
        relay.mode = "ok"
    server = server_for(data_dir, chain, relays)
    try:
        deadline = time.time() + 40
        while records(server)["records"][-2]["kind"] != "round":
            assert time.time() < deadline, "the resumed replacement never came"
            time.sleep(0.2)
        export = records(server)
        state = server.json("GET", "/api/draws/" + CODE)[1]
    finally:
        server.stop()
    kinds = [r["kind"] for r in export["records"]]
    assert kinds.count("beacon") == 2 and [r for r in export["records"] if r["kind"] == "beacon"][-1] == lock
    replacement = export["records"][-2]
    assert replacement["replaces"] == lock["replaces"] and state["result"]["hash"] == replacement["hash"]
    # The public function of the replacement's lock and its own R (the pool without the round's winners).
    spec = importlib.util.spec_from_file_location("verify_tombola", script)
    v = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(v)
    randomness = chain.sign(lock["beaconRound"])["randomness"]
    key = hashlib.sha256(b"tombola-drand-v1\x00" + bytes.fromhex(lock["hash"]) + bytes.fromhex(randomness)).digest()
    n, element, _ = v.eligible(lock["pool"], {})
    assert replacement["winners"] == [element(p) for p in v.positions(key, 1, lock["poolHash"], lock["entropy"], n, 1)]
    outcome = tombola_verify(export, tmp_path, chain)
    assert outcome.returncode == 0, outcome.stdout + outcome.stderr
    checked = verify_with_script(script, export, tmp_path)
    assert checked.returncode == 0, checked.stdout + checked.stderr
