"""Check-in (#14) in cluster mode (#13, docs/CLUSTER.md "Check-in"): real redis-server, real
`tombola --redis` processes (the fixtures and helpers of test_cluster.py). Phones join on any
instance, the host runs check-in from a follower, every instance answers the same, and a
kill -9 of the owner loses and duplicates no acknowledged entrant."""
import json
import signal
import time
import urllib.error
import urllib.request

from websockets.sync.client import connect as ws_connect

from test_cluster import CODE, HOST_KEY, Page, cluster, export_rounds, verify_export, wait_new_owner  # noqa: F401 (fixture)
from test_cluster_extras import audit_entries
from test_fairness_script import script  # noqa: F401 (fixture)


def call(instance, method, path, body=None, key=None, cookie=None, raw_body=None, headers=None):
    """→ (status, parsed JSON or raw bytes, the `tombola_device` cookie it set or None)."""
    data = raw_body if raw_body is not None else (None if body is None else json.dumps(body).encode())
    req = urllib.request.Request(instance.base + "/api/draws/%s/%s" % (CODE, path), data=data, method=method)
    if key:
        req.add_header("Authorization", "Bearer " + key)
    if cookie:
        req.add_header("Cookie", "tombola_device=" + cookie)
    if data is not None:
        req.add_header("Content-Type", "application/json")
    for name, value in (headers or {}).items():
        req.add_header(name, value)
    try:
        with urllib.request.urlopen(req, timeout=15) as resp:
            status, headers, raw = resp.status, resp.headers, resp.read()
    except urllib.error.HTTPError as e:
        status, headers, raw = e.code, e.headers, e.read()
    set_cookie = None
    for header in headers.get_all("Set-Cookie") or []:
        if header.startswith("tombola_device="):
            set_cookie = header.split(";", 1)[0].split("=", 1)[1]
    content = raw
    if headers.get("Content-Type", "").startswith("application/json"):
        content = json.loads(raw)
    return status, content, set_cookie


def join(instance, name, ticket=None, cookie=None, code=None, join_key=None):
    body = {"name": name}
    if ticket is not None:
        body["fields"] = {"ticket": ticket}
    if code is not None:
        body["code"] = code
    return call(instance, "POST", "join", body, cookie=cookie, headers={"Idempotency-Key": join_key} if join_key else None)


def answered(attempt, timeout=20):
    """`attempt()` again while it answers 503 (no owner answered: a takeover), as a phone retries."""
    deadline = time.time() + timeout
    while True:
        status, body, cookie = attempt()
        if status != 503 or time.time() > deadline:
            return status, body, cookie
        assert body["error"]["code"] == "cluster_unavailable", body
        time.sleep(0.1)


def entrants(instance, **query):
    suffix = "&".join("%s=%s" % item for item in query.items())
    status, body, _ = call(instance, "GET", "entrants" + ("?" + suffix if suffix else ""), key=HOST_KEY)
    assert status == 200, body
    return body


def stored_rows(cluster):
    values = cluster.redis.cli("HVALS", "{d:%s}:entrants" % CODE).splitlines()
    return [json.loads(v) for v in values if v]


def wait_until(predicate, what, timeout=10):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if predicate():
            return
        time.sleep(0.05)
    raise AssertionError(what)


TICKET = {"fields": [{"key": "ticket", "label": "Ticket", "required": True, "unique": True}]}


def test_checkin_on_every_instance_with_the_host_on_a_follower(cluster, script, tmp_path):
    for _ in range(3):
        cluster.start()
    owner = cluster.owner()
    first, second = cluster.others(owner)

    assert first.command("config", {"pool": {"kind": "checkin"}, "perStop": 2})[0] == 200
    status, body = second.command("entries/open", TICKET)
    assert status == 200 and body["ok"] is True, body

    # Joins on both followers and on the owner: each answered 201 with its entry and a cookie.
    joined = {}
    cookies = {}
    for instance, name, ticket in ((first, "Ann", "T1"), (second, "Bo", "T2"), (owner, "Cy", "T3"), (first, "Dee", "T4")):
        status, body, cookie = join(instance, name, ticket)
        assert status == 201, body
        assert cookie, "no device cookie"
        joined[name] = body["entry"]
        cookies[name] = cookie
    assert sorted(e["seq"] for e in joined.values()) == [1, 2, 3, 4]

    # The same device on another instance: already_joined, with its first entry.
    status, body, _ = join(second, "Ann again", "T9", cookie=cookies["Ann"])
    assert status == 409 and body["error"]["code"] == "already_joined", body
    assert body["error"]["entry"]["id"] == joined["Ann"]["id"]
    # Its entry, read on every instance with its cookie.
    for instance in (owner, first, second):
        status, body, _ = call(instance, "GET", "entry", cookie=cookies["Ann"])
        assert status == 200 and body["entry"]["id"] == joined["Ann"]["id"], body
    # A unique value taken on one instance is refused on another.
    status, body, _ = join(owner, "Eve", "t1")
    assert status == 409 and body["error"]["code"] == "duplicate_value" and body["error"]["field"] == "ticket", body

    # Bad input on a follower: the single-box errors, and nothing changes.
    status, body, _ = call(first, "POST", "join", raw_body=b"{not json")
    assert status == 400 and body["error"]["code"] == "bad_json", body
    status, body, _ = join(first, "   ", "T7")
    assert status == 400 and body["error"]["code"] == "bad_name", body
    status, body, _ = join(second, "Fay")
    assert status == 400 and body["error"]["code"] == "missing_field" and body["error"]["field"] == "ticket", body
    status, body, _ = call(second, "GET", "join")
    assert status == 405, body
    status, body, _ = call(first, "POST", "entries/open", {"fields": "nope"}, key=HOST_KEY)
    assert status == 400 and body["error"]["code"] == "bad_settings", body
    status, body, _ = call(first, "GET", "entrants", key="wrong-key")
    assert status in (401, 403), body
    status, body, _ = call(second, "DELETE", "entrants/NOSUCHID", {"reason": "x"}, key=HOST_KEY)
    assert status == 404 and body["error"]["code"] == "unknown_entrant", body
    assert entrants(owner)["count"] == 4
    assert len(stored_rows(cluster)) == 4

    # Removal from a follower.
    status, body, _ = call(second, "DELETE", "entrants/" + joined["Bo"]["id"], {"reason": "left early"}, key=HOST_KEY)
    assert status == 200 and body["entrants"] == 3, body

    # The list and the CSV are the same on every instance.
    lists = [entrants(i, removed=1) for i in (owner, first, second)]
    assert lists[0] == lists[1] == lists[2], lists
    assert lists[0]["count"] == 3 and lists[0]["total"] == 4
    assert next(e for e in lists[0]["items"] if e["id"] == joined["Bo"]["id"])["removed"] == "left early"
    csvs = [call(i, "GET", "entrants.csv", key=HOST_KEY)[1] for i in (owner, first, second)]
    assert csvs[0] == csvs[1] == csvs[2] and b"Ann" in csvs[0] and b"left early" in csvs[0]
    # Stored in Redis, once each, the removal too.
    rows = {r["id"]: r for r in stored_rows(cluster)}
    assert sorted(rows) == sorted(e["id"] for e in joined.values())
    assert rows[joined["Bo"]["id"]]["removed"] == "left early" and rows[joined["Ann"]["id"]]["name"] == "Ann"

    # The host (on a follower) closes entries: the pool is locked to the three, on every instance.
    status, body, _ = call(first, "POST", "entries/close", {}, key=HOST_KEY)
    assert status == 200 and body["entrants"] == 3, body
    active = sorted(joined[n]["id"] for n in ("Ann", "Cy", "Dee"))
    for instance in (owner, first, second):
        status, body, _ = call(instance, "GET", "entries/pool")
        assert status == 200 and sorted(body["entrants"]) == active, body
    assert json.loads(cluster.redis.cli("HGET", "{d:%s}:meta" % CODE, "checkin"))["open"] is False
    assert json.loads(cluster.redis.cli("HGET", "{d:%s}:meta" % CODE, "config"))["pool"]["entrants"] == \
        [joined[n]["id"] for n in ("Ann", "Cy", "Dee")]
    status, body, _ = join(second, "Gus", "T8")
    assert status == 409 and body["error"]["code"] == "entries_closed", body

    # A round from a follower draws from them.
    assert second.command("start")[0] == 200
    status, body = first.command("stop")
    assert status == 200, body
    export, rounds = export_rounds(owner)
    assert len(rounds) == 1 and len(rounds[1]) == 2 and set(rounds[1]) <= set(active), rounds
    verify_export(export, tmp_path, script)

    # The host's export with entrants, from a follower, equals the owner's.
    exports = [call(i, "GET", "export.json", key=HOST_KEY)[1] for i in (owner, second)]
    assert exports[0]["checkin"] == exports[1]["checkin"] and len(exports[0]["checkin"]["entrants"]) == 4

    # Erase from a follower: no name left in memory nor in Redis; the public ids stay.
    status, body, _ = call(second, "POST", "entrants/erase", {}, key=HOST_KEY)
    assert status == 200 and body["entrants"] == 0, body
    assert entrants(first, removed=1)["items"][0]["name"] is None
    rows = stored_rows(cluster)
    assert sorted(r["id"] for r in rows) == sorted(e["id"] for e in joined.values())
    assert all(r["name"] is None and r["fields"] == {} and r["device"] is None for r in rows), rows
    assert "Ann" not in cluster.redis.cli("HVALS", "{d:%s}:entrants" % CODE)
    # The check-in commands are in the draw's audit stream, as every command's (the removal
    # with its reason), after the rows they wrote.
    wanted = ["entries_open", "entrant_remove", "entries_close", "entrants_erase"]
    deadline = time.time() + 10
    while True:
        actions = [json.loads(e["json"]) for e in audit_entries(cluster.redis)]
        checkin = [a for a in actions if a["action"] in wanted]
        if [a["action"] for a in checkin] == wanted or time.time() > deadline:
            break
        time.sleep(0.05)
    assert [a["action"] for a in checkin] == wanted, actions
    assert checkin[1]["detail"] == {"id": joined["Bo"]["id"], "reason": "left early", "operator": "owner", "operatorId": "owner"}


JOIN_KEY = "cluster-join-key-0123456789"


def test_owner_killed_after_joins_keeps_every_acknowledged_entrant(cluster):
    for _ in range(3):
        cluster.start()
    owner = cluster.owner()
    first, second = cluster.others(owner)
    assert first.command("config", {"pool": {"kind": "checkin"}})[0] == 200
    assert second.command("entries/open", dict(TICKET, presence=True))[0] == 200

    # The presence code is the same on every instance (read within one window).
    def codes():
        while True:
            read = [call(i, "GET", "entries/presence", key=HOST_KEY)[1] for i in (owner, first, second)]
            if len({r["changesAt"] for r in read}) == 1:
                return read
    read = codes()
    assert read[0]["code"] == read[1]["code"] == read[2]["code"] and read[0]["required"] is True
    code = read[1]["code"]
    status, body, _ = join(second, "Nocode", "X0")
    assert status == 403 and body["error"]["code"] == "bad_code", body

    joined = {}
    cookies = {}
    for n, instance in enumerate([first, second, owner, first, second, owner, first, second]):
        current = call(first, "GET", "entries/presence", key=HOST_KEY)[1]["code"]
        # Zoë 2's phone sends a join key (issue 33 §4) and never gets its answer: no cookie kept.
        status, body, cookie = join(instance, "Zoë %d" % n, "Z%d" % n, code=current, join_key=JOIN_KEY if n == 2 else None)
        assert status == 201, body
        joined[body["entry"]["id"]] = body["entry"]
        cookies[body["entry"]["id"]] = cookie

    # Phones' pages on both followers, each with its own entry in its state.
    pages = []
    for n, (entry_id, cookie) in enumerate(list(cookies.items())[:6]):
        instance = (first, second)[n % 2]
        ws = ws_connect("ws://127.0.0.1:%d/ws/draw/%s" % (instance.port, CODE),
                        additional_headers={"Cookie": "tombola_device=" + cookie}, open_timeout=10)
        assert own_state(ws)["checkin"]["me"]["id"] == entry_id
        pages.append((entry_id, ws))

    killed_at = time.time()
    owner.proc.send_signal(signal.SIGKILL)
    owner.proc.wait(timeout=10)
    assert wait_new_owner(cluster, owner, killed_at) < 3.5
    new_owner = cluster.owner()
    survivors = cluster.others(None)
    # Every page gets the new owner's state, still with its own entry (from the room on the new
    # owner, asked together from the owner on the other instance).
    for entry_id, ws in pages:
        assert own_state(ws)["checkin"]["me"]["id"] == entry_id
        ws.close()

    # Every acknowledged entrant, once, the same settings (open, presence), on every instance.
    def listed():
        try:
            return [entrants(i, limit=200) for i in survivors]
        except AssertionError:
            return None
    wait_until(lambda: listed() is not None, "the new owner answers the list")
    lists = listed()
    assert lists[0] == lists[1]
    assert sorted(e["id"] for e in lists[0]["items"]) == sorted(joined), lists[0]
    assert lists[0]["count"] == len(joined) and lists[0]["open"] is True
    assert len(stored_rows(cluster)) == len(joined)
    for instance in survivors:
        status, body, _ = call(instance, "GET", "entries/presence", key=HOST_KEY)
        assert body["required"] is True and body["open"] is True

    # The code read before the failover still works after it, or (window changed) the new one,
    # which is the same on both survivors.
    status, body, cookie = answered(lambda: join(survivors[0], "After", "A1", code=code))
    if status == 403:
        read = [call(i, "GET", "entries/presence", key=HOST_KEY)[1] for i in survivors]
        assert read[0]["code"] == read[1]["code"]
        status, body, _ = answered(lambda: join(survivors[1], "After", "A1", code=read[0]["code"], cookie=cookie))
    assert status == 201 or body["error"]["code"] == "already_joined", body

    # Each device still refused a second entry, with its first one; a unique value still taken.
    for entry_id, cookie in list(cookies.items())[:3]:
        current = call(survivors[1], "GET", "entries/presence", key=HOST_KEY)[1]["code"]
        status, body, _ = answered(lambda: join(survivors[1], "Again", "NEW" + entry_id, cookie=cookie, code=current))
        assert status == 409 and body["error"]["code"] == "already_joined", body
        assert body["error"]["entry"]["id"] == entry_id
    current = call(survivors[0], "GET", "entries/presence", key=HOST_KEY)[1]["code"]
    status, body, _ = answered(lambda: join(survivors[0], "Copy", "z3", code=current))
    assert status == 409 and body["error"]["code"] == "duplicate_value", body
    # Zoë 2's retry with the same key, on the new owner's cluster, gets her entry and the cookie back.
    current = call(survivors[0], "GET", "entries/presence", key=HOST_KEY)[1]["code"]
    status, body, cookie = answered(lambda: join(survivors[0], "Zoë 2", "Z2", code=current, join_key=JOIN_KEY))
    assert status == 409 and body["error"]["code"] == "already_joined", body
    assert joined[body["error"]["entry"]["id"]]["name"] == "Zoë 2" and cookie, body
    current = call(survivors[1], "GET", "entries/presence", key=HOST_KEY)[1]["code"]
    status, body, _ = answered(lambda: join(survivors[1], "Zoë 2", "Z2", code=current, join_key="other-" + JOIN_KEY))
    assert status == 409 and body["error"]["code"] == "duplicate_value", body

    # Closing on the new owner's follower locks the pool to all of them.
    follower = next(i for i in survivors if i is not new_owner)
    status, body, _ = call(follower, "POST", "entries/close", {}, key=HOST_KEY)
    assert status == 200 and body["entrants"] == len(joined) + 1, body


def own_state(ws, timeout=15):
    """The first `state` a page socket gets that names its own entry (`checkin.me`)."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        message = json.loads(ws.recv(timeout=max(0.1, deadline - time.time())))
        if message.get("type") == "state" and (message.get("checkin") or {}).get("me"):
            return message
    raise AssertionError("no state with checkin.me")


def test_the_winners_phone_on_one_follower_is_connected_for_the_host_on_another(cluster):
    for _ in range(3):
        cluster.start()
    owner = cluster.owner()
    phone_side, host_side = cluster.others(owner)
    assert host_side.command("config", {"pool": {"kind": "checkin"}, "perStop": 1})[0] == 200
    assert host_side.command("entries/open")[0] == 200
    status, body, cookie = join(phone_side, "Winner")
    assert status == 201, body
    entry = body["entry"]["id"]
    status, body, _ = join(owner, "Other")
    assert status == 201, body
    other = body["entry"]["id"]

    # The phone's page on one follower, with its device cookie; the host page on the other.
    phone = ws_connect("ws://127.0.0.1:%d/ws/draw/%s" % (phone_side.port, CODE),
                       additional_headers={"Cookie": "tombola_device=" + cookie}, open_timeout=10)
    host = Page(host_side, host=True)
    try:
        # Its state names its own entry, as on the owner.
        assert own_state(phone)["checkin"]["me"]["id"] == entry
        def connected(instance):
            return {e["id"]: e["connected"] for e in entrants(instance)["items"]}
        wait_until(lambda: connected(owner) == {entry: True, other: False}, "the owner counts the phone on a follower")
        assert connected(host_side) == {entry: True, other: False}

        # Remove the other entrant, close, draw: the phone's entry wins; the host on the other
        # follower learns that its phone is here.
        assert call(host_side, "DELETE", "entrants/" + other, {"reason": "test"}, key=HOST_KEY)[0] == 200
        assert host_side.command("entries/close")[1]["entrants"] == 1
        assert host_side.command("start")[0] == 200
        status, body = host_side.command("stop")
        assert status == 200, body
        presence = host.wait_for(lambda m: m.get("type") == "winnerPresence", what="winnerPresence on a follower's host")
        assert presence["winners"] == [{"id": entry, "name": "Winner", "connected": True}], presence
        # A page opened after the round (a reload) learns from its state which round its entry won.
        again = ws_connect("ws://127.0.0.1:%d/ws/draw/%s" % (phone_side.port, CODE),
                           additional_headers={"Cookie": "tombola_device=" + cookie}, open_timeout=10)
        assert own_state(again)["checkin"]["me"]["wins"] == [1]
        again.close()
        # A host page opened on a follower gets the winners' names in its state (names are not
        # public in this draw), as a host page on the owner does.
        late_host = Page(host_side, host=True)
        late_host.wait_for(lambda m: m.get("type") == "state" and ((m.get("checkin") or {}).get("names") or {}).get(entry) == "Winner",
                           what="a host state with the winner's name")
        late_host.close()
        viewer = Page(phone_side)
        state = viewer.wait_for(lambda m: m.get("type") == "state", what="a viewer's state")
        assert state["checkin"]["names"] == {} and state["checkin"]["me"] is None, state["checkin"]
        viewer.close()
    finally:
        phone.close()
    wait_until(lambda: connected(owner)[entry] is False, "the owner forgets the phone's page once it left")
    # The phone's page again, then its instance dies: the owner forgets it too (the instance goes quiet).
    phone = ws_connect("ws://127.0.0.1:%d/ws/draw/%s" % (phone_side.port, CODE),
                       additional_headers={"Cookie": "tombola_device=" + cookie}, open_timeout=10)
    wait_until(lambda: connected(owner)[entry] is True, "the owner counts the phone's page again")
    phone_side.proc.send_signal(signal.SIGKILL)
    phone_side.proc.wait(timeout=10)
    wait_until(lambda: connected(owner)[entry] is False, "the owner forgets the pages of a dead instance")
    assert connected(host_side)[entry] is False
    phone.close()
    host.close()


def test_without_redis_joins_are_refused_never_lost_and_work_again_after(cluster):
    for _ in range(2):
        cluster.start()
    owner = cluster.owner()
    (follower,) = cluster.others(owner)
    assert follower.command("config", {"pool": {"kind": "checkin"}})[0] == 200
    assert follower.command("entries/open")[0] == 200
    status, body, _ = join(follower, "Before")
    assert status == 201, body
    before = body["entry"]["id"]

    cluster.redis.kill()
    # On the follower (no owner can be asked) and on the owner (nothing can be stored): 503.
    for instance in (follower, owner):
        status, body, _ = join(instance, "During " + instance.id)
        assert status == 503 and body["error"]["code"] == "cluster_unavailable", body
    status, body, _ = call(follower, "GET", "entrants", key=HOST_KEY)
    assert status == 503 and body["error"]["code"] == "cluster_unavailable", body

    cluster.redis.start()
    # A phone tries again with its cookie, as the page does: a join answered 503 may still have
    # landed (its answer was lost in the takeover), and then the retry gets it (`already_joined`).
    deadline = time.time() + 20
    cookie = None
    while True:
        status, body, set_cookie = join(follower, "After", cookie=cookie)
        cookie = cookie or set_cookie
        if status == 201:
            after = body["entry"]["id"]
            break
        if status == 409 and body["error"]["code"] == "already_joined":
            after = body["error"]["entry"]["id"]
            break
        assert status == 503 and time.time() < deadline, body
        time.sleep(0.1)
    # Exactly the two acknowledged entrants: nothing refused during the outage was stored.
    wait_until(lambda: call(follower, "GET", "entrants", key=HOST_KEY)[0] == 200, "the list answers again")
    listed = entrants(follower)
    assert sorted(e["id"] for e in listed["items"]) == sorted([before, after]) and listed["open"] is True, listed
    assert sorted(r["id"] for r in stored_rows(cluster)) == sorted([before, after])


def test_a_follower_serves_the_whole_book_from_redis_even_with_the_owner_paused(cluster):
    """The CSV and the export with entrants are the whole book (megabytes at 100,000 entrants):
    a follower reads them from Redis, not through a Pub/Sub answer of the owner, so they come
    even while the owner does not answer, and equal what the owner served."""
    cluster.start()
    owner = cluster.owner()
    follower = cluster.start()
    assert follower.command("config", {"pool": {"kind": "checkin"}})[0] == 200
    assert follower.command("entries/open", TICKET)[0] == 200
    for n in range(30):
        status, body, _ = join(follower if n % 2 else owner, "Guest %d" % n, "T%d" % n)
        assert status == 201, body
    before_csv = call(owner, "GET", "entrants.csv", key=HOST_KEY)[1]
    before_export = call(owner, "GET", "export.json", key=HOST_KEY)[1]
    owner.proc.send_signal(signal.SIGSTOP)
    try:
        # Straight away: the lease has not run out, the follower is no owner, the owner is silent.
        status, csv, _ = call(follower, "GET", "entrants.csv", key=HOST_KEY)
        assert status == 200 and csv == before_csv and csv.count(b"\r\n") == 31, csv
        status, export, _ = call(follower, "GET", "export.json", key=HOST_KEY)
        assert status == 200 and export["checkin"] == before_export["checkin"], export
        assert len(export["checkin"]["entrants"]) == 30
    finally:
        owner.proc.send_signal(signal.SIGCONT)
