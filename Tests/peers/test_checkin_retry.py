"""A check-in join stored but never answered (issue 33 §4): the phone retries with the same
`Idempotency-Key` after the server came back and gets `already_joined` with its entry and its
device cookie again, not `duplicate_value`; another key with the same unique value still gets
`duplicate_value`; a bad key is refused and changes nothing."""
import http.client
import json
import os
import signal
import socket
import sqlite3
import time

from test_draw_export import HOST_KEY, Tombola, data_dir  # noqa: F401 (fixture)

KEY = "0123456789abcdef0123456789abcdef"


def join(server, body, key=None, cookie=None):
    headers = {"Content-Type": "application/json"}
    if key is not None:
        headers["Idempotency-Key"] = key
    if cookie:
        headers["Cookie"] = cookie
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    try:
        conn.request("POST", "/api/draws/%s/join" % server.code, json.dumps(body), headers)
        resp = conn.getresponse()
        return resp.status, json.loads(resp.read()), resp.getheader("Set-Cookie")
    finally:
        conn.close()


def send_without_reading(server, body, key):
    """The phone's request goes out; its answer is never read (the phone never learns it)."""
    raw = json.dumps(body).encode()
    sock = socket.create_connection(("127.0.0.1", server.port), timeout=10)
    sock.sendall(b"POST /api/draws/%s/join HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                 b"Idempotency-Key: %s\r\nContent-Length: %d\r\n\r\n" % (server.code.encode(), key.encode(), len(raw)) + raw)
    return sock


def stored_entrants(data_dir):
    db = sqlite3.connect("file:%s?mode=ro" % os.path.join(data_dir, "tombola.sqlite"), uri=True, timeout=10)
    try:
        return db.execute("SELECT public_id FROM entrants").fetchall()
    except sqlite3.OperationalError:
        return []  # the table is not there yet
    finally:
        db.close()


def open_entries(server):
    assert server.command("config", {"pool": {"kind": "checkin"}})[0] == 200
    fields = [{"key": "ticket", "label": "Ticket", "unique": True}]
    assert server.command("entries/open", {"fields": fields})[0] == 200


def check_recovery(server, entry_id=None):
    status, body, cookie = join(server, {"name": "Ada", "fields": {"ticket": "T1"}}, key=KEY)
    assert status == 409 and body["error"]["code"] == "already_joined", body
    entry = body["error"]["entry"]
    assert entry["name"] == "Ada" and entry["fields"] == {"ticket": "T1"}
    assert entry_id is None or entry["id"] == entry_id
    assert cookie and cookie.startswith("tombola_device="), cookie
    # The cookie it got back is the entry's: the phone reads its entry with it.
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    conn.request("GET", "/api/draws/%s/entry" % server.code, headers={"Cookie": cookie.split(";")[0]})
    assert json.loads(conn.getresponse().read())["entry"]["id"] == entry["id"]
    conn.close()
    # Another phone (another key) with the same ticket is still refused.
    status, body, _ = join(server, {"name": "Bob", "fields": {"ticket": "T1"}}, key="another-key-0123456789")
    assert status == 409 and body["error"] == {**body["error"], "code": "duplicate_value", "field": "ticket"}, body
    status, body, _ = join(server, {"name": "Bob", "fields": {"ticket": "T1"}})
    assert status == 409 and body["error"]["code"] == "duplicate_value", body
    return entry


def test_a_join_answered_then_restarted_server_gives_the_entry_back_to_its_key(data_dir):
    server = Tombola(data_dir)
    try:
        open_entries(server)
        status, body, _ = join(server, {"name": "Ada", "fields": {"ticket": "T1"}}, key=KEY)
        assert status == 201, body
        first = body["entry"]["id"]
        server.stop()  # the phone never got that answer (no cookie kept); the server restarts
        server = Tombola(data_dir)
        check_recovery(server, first)
        # Bad keys: a clear error, nothing stored.
        for bad in ["short", "x" * 65, "has space in it 0123", "ünïcode-key-0123456789"]:
            status, body, _ = join(server, {"name": "Cy", "fields": {"ticket": "T9"}}, key=bad)
            assert status == 400 and body["error"]["code"] == "bad_idempotency_key", (bad, body)
        status, listing = server.json("GET", "/api/draws/%s/entrants" % server.code, key=HOST_KEY)
        assert status == 200 and listing["total"] == 1, listing
    finally:
        server.stop()


def test_kill_9_between_store_and_answer_then_the_retry_recovers(data_dir):
    server = Tombola(data_dir)
    try:
        open_entries(server)
        sock = send_without_reading(server, {"name": "Ada", "fields": {"ticket": "T1"}}, KEY)
        deadline = time.time() + 30
        while not stored_entrants(data_dir):  # stored: visible in the database file
            assert time.time() < deadline, "the join was never stored"
            time.sleep(0.01)
        server.proc.send_signal(signal.SIGSTOP)  # the answer may be unsent: the phone never reads it
        server.proc.kill()
        sock.close()
        server.kill()
        server = Tombola(data_dir)
        check_recovery(server)
    finally:
        server.stop()
