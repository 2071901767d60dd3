"""Beacon-sealed rounds in cluster mode (docs/FAIRNESS.md §13, docs/CLUSTER.md), with real
processes: three instances on one Redis (the fixtures of test_cluster.py) and two test relays
(drand_relay.py).

- the host on a follower configures, starts and stops a beacon draw; the owner stores the lock,
  fetches drand round R, and every instance's pages see `beacon` waiting, then sealed, and the
  result; the winners are the public function of the lock record and R (§13) and both verifiers
  pass the export;
- no relay answers: the host on a follower (its page there) hears `beacon_waiting` (its forwarded
  Stop waits out R's wait limit, longer than a plain command's), the round rolls on waiting for the
  same R (nothing voided, issue #40), and a retry on another follower seals it with that R;
- the owner is killed (kill -9) while it waits for R: the new owner rolls the same round on and
  fetches the same R, never another one; the pages on the followers see the same winners.
"""
import threading
import time

from test_beacon_room import CONFIG, chain, public_winners, relays  # noqa: F401 (fixtures)
from test_cluster import CODE, Page, cluster, export_rounds, verify_export, wait_new_owner  # noqa: F401 (fixture)
from test_draw_export import HOST_KEY
from test_fairness_script import script  # noqa: F401 (fixture)

def start_cluster(cluster, chain, relays):
    extra = list(chain.flags())
    for relay in relays:
        extra += ["--beacon-relay", relay.url]
    for _ in range(3):
        cluster.start(extra)
    owner = cluster.owner()
    return owner, cluster.others(owner)


def configure_and_start(follower):
    status, body = follower.command("config", CONFIG)
    assert status == 200, body
    status, body = follower.command("start")
    assert status == 200, body


def beacon_records(instance, kind):
    export, _ = export_rounds(instance)
    return [r for r in export["records"] if r["kind"] == kind]


def test_a_sealed_round_stopped_on_a_follower_reveals_drands_winners_everywhere(cluster, chain, relays, script, tmp_path):
    owner, followers = start_cluster(cluster, chain, relays)
    watcher = Page(followers[1])
    watcher.wait_for(lambda m: m.get("type") == "state", what="state")
    configure_and_start(followers[0])
    status, body = followers[0].command("stop", timeout=40)
    assert status == 200, body
    lock = beacon_records(owner, "beacon")
    assert len(lock) == 1
    lock = lock[0]
    signed = chain.sign(lock["beaconRound"])
    winners = public_winners(script, lock, signed["randomness"])
    assert body["result"]["winners"] == winners and len(winners) == 3
    waiting = watcher.wait_for(lambda m: m.get("type") == "beacon" and m["status"] == "waiting", what="beacon waiting")
    assert (waiting["round"], waiting["beaconRound"]) == (1, lock["beaconRound"])
    watcher.wait_for(lambda m: m.get("type") == "beacon" and m["status"] == "sealed", what="beacon sealed")
    result = watcher.wait_for(lambda m: m.get("type") == "result", what="result")
    assert result["winners"] == winners
    # Every instance serves the sealed state and the same records.
    for instance in [owner] + followers:
        state = instance.state()
        assert state["phase"] == "revealed" and state["beacon"]["status"] == "sealed", state["beacon"]
    export, rounds = export_rounds(followers[1])
    assert rounds[1] == winners
    value = [r for r in export["records"] if r["kind"] == "beaconValue"]
    assert len(value) == 1 and (value[0]["randomness"], value[0]["signature"]) == (signed["randomness"], signed["signature"])
    verify_export(export, tmp_path, script, chain.trust_flags())
    watcher.close()


def test_no_relay_answers_the_round_waits_for_the_same_r_and_a_retry_on_a_follower_seals_it(cluster, chain, relays, script, tmp_path):
    owner, followers = start_cluster(cluster, chain, relays)
    # The host's page on the follower: that instance follows the owner's state (its settings too).
    host_page = Page(followers[0])
    host_page.wait_for(lambda m: m.get("type") == "state", what="state")
    configure_and_start(followers[0])
    host_page.wait_for(lambda m: m == {"type": "phase", "phase": "rolling"}, what="rolling")
    for relay in relays:
        relay.mode = "down"
    began = time.time()
    status, body = followers[0].command("stop", timeout=60)
    waited = time.time() - began
    # Not `cluster_unavailable` after the plain 10 s: the forwarded Stop waits for R's wait limit,
    # then hears that R has not come; nothing is voided (issue #40).
    assert status == 409 and body["error"]["code"] == "beacon_waiting", (body, waited)
    assert waited > 10, waited
    lock = beacon_records(owner, "beacon")[0]
    deadline = time.time() + 5
    while (state := followers[1].state())["beacon"].get("reason") is None:  # the follower's copy follows the owner's
        assert time.time() < deadline, state["beacon"]
        time.sleep(0.05)
    assert state["phase"] == "rolling" and state["beacon"]["status"] == "waiting", state
    assert (state["beacon"]["beaconRound"], state["beacon"]["lock"]) == (lock["beaconRound"], lock["hash"])
    assert "in time" in state["beacon"]["reason"], state["beacon"]
    for relay in relays:
        relay.mode = "ok"
    status, body = followers[1].json("POST", "/api/draws/%s/beacon/retry" % CODE, {}, HOST_KEY)
    assert status == 200, body
    deadline = time.time() + 30
    while (state := followers[1].state())["phase"] != "revealed":
        assert time.time() < deadline, state["beacon"]
        time.sleep(0.1)
    export, rounds = export_rounds(owner)
    kinds = [r["kind"] for r in export["records"]]
    assert kinds[kinds.index("lock"):] == ["lock", "beacon", "beaconValue", "round", "commit"]
    assert beacon_records(owner, "beacon") == [lock]
    assert rounds[1] == public_winners(script, lock, chain.sign(lock["beaconRound"])["randomness"])
    verify_export(export, tmp_path, script, chain.trust_flags())
    host_page.close()


def test_kill_9_of_the_owner_waiting_for_drand_the_new_owner_fetches_the_same_round(cluster, chain, relays, script, tmp_path):
    owner, followers = start_cluster(cluster, chain, relays)
    watchers = [Page(follower) for follower in followers]
    for watcher in watchers:
        watcher.wait_for(lambda m: m.get("type") == "state", what="state")
    configure_and_start(followers[0])
    for relay in relays:
        relay.mode = "down"

    def stop():
        try:
            followers[0].command("stop", timeout=40)  # its answer may be lost with the owner: pages tell
        except OSError:
            pass

    threading.Thread(target=stop, daemon=True).start()
    deadline = time.time() + 10
    while not beacon_records(followers[1], "beacon"):
        assert time.time() < deadline, "no beacon record"
        time.sleep(0.05)
    lock = beacon_records(followers[1], "beacon")[0]
    for watcher in watchers:
        watcher.wait_for(lambda m: m.get("type") == "beacon" and m["status"] == "waiting", what="beacon waiting")
    owner.proc.kill()
    killed_at = time.time()
    owner.proc.wait(timeout=10)
    for relay in relays:
        relay.mode = "ok"
    assert wait_new_owner(cluster, owner, killed_at) < 5
    winners = public_winners(script, lock, chain.sign(lock["beaconRound"])["randomness"])
    for watcher in watchers:
        result = watcher.wait_for(lambda m: m.get("type") == "result", timeout=30, what="result from the new owner")
        assert result["round"] == 1 and result["winners"] == winners
    export, rounds = export_rounds(cluster.owner())
    # One lock for R, never replaced; one round, the public function of it.
    assert [r for r in export["records"] if r["kind"] == "beacon"] == [lock]
    assert not [r for r in export["records"] if r["kind"] == "beaconVoid"]
    assert rounds == {1: winners}
    verify_export(export, tmp_path, script, chain.trust_flags())
    for watcher in watchers:
        watcher.close()
