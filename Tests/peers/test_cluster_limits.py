"""Rate limits that hold across instances (SECURITY.md §8a, issue 29): one client spreads its
attempts over three `tombola --redis` instances (real redis-server, the fixtures of
test_cluster.py). Each instance keeps its fast local bucket and spends from a token bucket in
Redis shared by all (one Lua script, batched), so the client gets the single-box allowance
for the whole cluster (plus at most one attempt per other instance that had not heard yet),
not three times it.
"""
import json
import time

from websockets.sync.client import connect as ws_connect

from test_cluster import CODE, HOST_KEY, cluster  # noqa: F401 (fixture)
from test_cluster_checkin import call, join

# One instance: 5 wrong keys per address, then one per 2 s (DrawService's limiter); 5 wrong
# presence codes per device, then one per 2 s (CheckinLimits).
BURST = 5
REFILL = 2.0
INSTANCES = 3


def allowance(elapsed):
    """What the cluster may let one client try in a burst of `elapsed` seconds: the burst and
    its refill, plus what instances let through on a stale view of the shared bucket (each
    lets through no attempt of an address while one awaits Redis's answer): about one per other
    instance, 7 in our runs however fast the client. Per instance it would be 3 × 5 = 15. The
    rate over time is checked after the burst."""
    return BURST + 2 * (INSTANCES - 1) + int(elapsed / REFILL)


def test_wrong_host_keys_spread_over_three_instances_share_one_limit(cluster):
    instances = [cluster.start() for _ in range(INSTANCES)]
    started = time.time()
    outcomes = []
    for attempt in range(30):
        status, body, _ = call(instances[attempt % INSTANCES], "GET", "entrants", key="wrong-host-key-%012d" % attempt)
        outcomes.append(body["error"]["code"])
    elapsed = time.time() - started
    assert set(outcomes) <= {"bad_key", "rate_limited"}, outcomes
    tried = outcomes.count("bad_key")
    print("wrong host keys let through: %d of 30 in %.2f s" % (tried, elapsed))
    # Per instance this would be 15 (5 on each); shared, about 5.
    assert BURST <= tried <= allowance(elapsed), (tried, elapsed, outcomes)
    assert outcomes[-INSTANCES:] == ["rate_limited"] * INSTANCES, outcomes
    assert cluster.redis.cli("HGET", "{tombola:limits}:key:127.0.0.1", "tokens") != ""
    # Over time the cluster allows the single-box rate: one try per 2 s, not one per instance.
    window, later = 4 * REFILL, []
    started = time.time()
    while time.time() - started < window:
        status, body, _ = call(instances[len(later) % INSTANCES], "GET", "entrants", key="wrong-host-key-late-%08d" % len(later))
        later.append(body["error"]["code"])
        time.sleep(0.05)
    # Per instance: 3 × 4 = 12 (and the debt of the burst is repaid first).
    assert later.count("bad_key") <= window / REFILL + 1, later
    tried += later.count("bad_key")
    # The right key works on every instance once the bucket has refilled (429 until then).
    deadline = time.time() + 6 * REFILL
    for instance in instances:
        while True:
            status, body, _ = call(instance, "GET", "entrants", key=HOST_KEY)
            if status == 200:
                break
            assert status == 429 and time.time() < deadline, body
            time.sleep(0.2)


def test_presence_code_guesses_from_one_device_over_three_instances_share_one_limit(cluster):
    instances = [cluster.start() for _ in range(INSTANCES)]
    assert instances[0].command("config", {"pool": {"kind": "checkin"}})[0] == 200
    assert instances[1].command("entries/open", {"presence": True})[0] == 200
    _, current, _ = call(instances[0], "GET", "entries/presence", key=HOST_KEY)
    wrong = "%04d" % ((int(current["code"]) + 5000) % 10000)
    device = "one-device-join-key-0123456789"  # the same device on every instance
    started = time.time()
    outcomes = []
    for attempt in range(30):
        status, body, _ = join(instances[attempt % INSTANCES], "Guesser", code=wrong, join_key=device)
        outcomes.append(body["error"]["code"])
    elapsed = time.time() - started
    assert set(outcomes) <= {"bad_code", "rate_limited"}, outcomes
    guesses = outcomes.count("bad_code")
    assert BURST <= guesses <= allowance(elapsed), (guesses, elapsed, outcomes)
    assert outcomes[-INSTANCES:] == ["rate_limited"] * INSTANCES, outcomes
    # Nobody joined.
    status, body, _ = call(instances[2], "GET", "entrants", key=HOST_KEY)
    assert status == 200 and body["count"] == 0, body


def test_a_right_key_sent_right_after_a_wrong_one_is_taken_on_every_instance(cluster):
    """While Redis has not yet answered for a wrong key, an instance decides no further attempt
    of that address (a client faster than Redis cannot outrun the shared count): it holds the
    next one for those milliseconds instead of refusing it, so a host who mistypes and sends
    the right key at once (or a script, back to back) is let in, over REST and WebSocket."""
    instances = [cluster.start() for _ in range(INSTANCES)]
    for instance in instances[:2]:
        assert call(instance, "GET", "entrants", key="wrong-host-key-0123456789")[0] == 403
        status, body, _ = call(instance, "GET", "entrants", key=HOST_KEY)
        assert status == 200, body
    with ws_connect("ws://127.0.0.1:%d/ws/draw/%s" % (instances[2].port, CODE), open_timeout=10) as ws:
        ws.send(json.dumps({"type": "auth", "key": "wrong-host-key-0123456789"}))
        ws.send(json.dumps({"type": "auth", "key": HOST_KEY}))
        seen = []
        deadline = time.time() + 10
        while not any(m.get("type") == "role" and m.get("role") == "host" for m in seen):
            assert time.time() < deadline, seen
            seen.append(json.loads(ws.recv(timeout=10)))
        assert [m["code"] for m in seen if m.get("type") == "error"] == ["bad_key"], seen
