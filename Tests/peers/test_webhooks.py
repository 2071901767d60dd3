"""Outgoing webhooks (issue #43, item 4; docs/PROTOCOL.md, "Webhooks") with a real receiver on
loopback: the host adds hooks over REST (the secret shown once, never listed), each delivery
is signed (`Tombola-Signature: t=…,v1=HMAC-SHA256(secret, "t.body")`), a failing receiver is
retried with back-off and still gets one hook's events in order, a private target is refused
without `--webhook-allow-private` (at creation, and at delivery when the server restarts
without it), and in cluster mode two instances deliver each event once (the owner announces)."""
import hashlib
import hmac
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from test_cluster import CODE as CLUSTER_CODE, HOST_KEY as CLUSTER_KEY, cluster  # noqa: F401 (fixture)
from test_draw_export import CODE, HOST_KEY, Tombola, data_dir  # noqa: F401 (fixture)


class Receiver:
    """Keeps every POST (path, headers, body); answers `fail[path]` 500s first, then 200."""

    def __init__(self, fail=None):
        self.seen = []
        self.fail = dict(fail or {})
        self.lock = threading.Lock()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                with receiver.lock:
                    receiver.seen.append((self.path, dict(self.headers), body))
                    failing = receiver.fail.get(self.path, 0) > 0
                    if failing:
                        receiver.fail[self.path] -= 1
                self.send_response(500 if failing else 200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def url(self, path):
        return "http://127.0.0.1:%d%s" % (self.server.server_address[1], path)

    def posts(self, path):
        with self.lock:
            return [(h, b) for p, h, b in self.seen if p == path]

    def wait(self, path, count, timeout=20):
        deadline = time.time() + timeout
        while len(self.posts(path)) < count:
            assert time.time() < deadline, "receiver got %d of %d posts on %s" % (len(self.posts(path)), count, path)
            time.sleep(0.02)
        return self.posts(path)

    def close(self):
        self.server.shutdown()
        self.server.server_close()


def hooks_path(code):
    return "/api/draws/%s/webhooks" % code


def add(server, code, key, body):
    return server.json("POST", hooks_path(code), body, key)


def signed(headers, body, secret):
    parts = dict(part.split("=", 1) for part in headers["Tombola-Signature"].split(","))
    assert abs(int(parts["t"]) - time.time()) < 300
    expected = hmac.new(secret.encode(), parts["t"].encode() + b"." + body, hashlib.sha256).hexdigest()
    return hmac.compare_digest(expected, parts["v1"])


def delivered(posts, secret):
    """The generic bodies the receiver got, each signature checked, in arrival order."""
    out = []
    for headers, body in posts:
        assert signed(headers, body, secret), headers
        event = json.loads(body)
        assert headers["Tombola-Delivery"] == event["id"] and headers["Tombola-Event"] == event["type"]
        out.append(event)
    return out


def round_trip(server):
    assert server.command("start")[0] == 200
    status, body = server.command("stop")
    assert status == 200, body
    return body["result"]


def test_hooks_are_refused_signed_retried_in_order_and_private_targets_need_the_flag(data_dir):
    receiver = Receiver(fail={"/generic": 2})
    server = Tombola(data_dir)
    try:
        # Without --webhook-allow-private: nothing private, nothing plain http; every refusal changes nothing.
        refusals = [
            ({"url": receiver.url("/generic")}, "webhook_not_https"),
            ({"url": "https://127.0.0.1:9/x"}, "webhook_private_target"),
            ({"url": "https://localhost/x"}, "webhook_private_target"),
            ({"url": "https://[::1]/x"}, "webhook_private_target"),
            ({"url": "https://169.254.169.254/latest"}, "webhook_private_target"),
            ({"url": "https://10.1.2.3/x"}, "webhook_private_target"),
            ({"url": "ftp://example.com/x"}, "bad_webhook_url"),
            ({"url": "https://user@example.com/x"}, "bad_webhook_url"),
            ({"url": "https://203.0.113.9/x", "events": ["round.revealed", "nope"]}, "bad_webhook_events"),
            ({"url": "https://203.0.113.9/x", "format": "telegram"}, "bad_webhook_format"),
        ]
        for body, code in refusals:
            status, answer = add(server, CODE, HOST_KEY, body)
            assert (status, answer["error"]["code"]) == (400, code), body
        assert server.json("POST", hooks_path(CODE), {"url": "https://example.com/x"})[0] == 401
        assert server.json("GET", hooks_path(CODE), key=HOST_KEY) == (200, {"code": CODE, "webhooks": []})
        server.stop()

        # With the flag the loopback receiver is allowed: a generic hook (its secret shown once) and a Slack one.
        server = Tombola(data_dir, extra=("--webhook-allow-private",))
        status, generic = add(server, CODE, HOST_KEY, {"url": receiver.url("/generic"), "events": ["round.revealed", "void"]})
        assert status == 201 and generic["secret"].startswith("whsec_"), generic
        status, slack = add(server, CODE, HOST_KEY, {"url": receiver.url("/slack"), "format": "slack", "language": "zh"})
        assert status == 201 and slack["events"] == ["round.revealed", "claim", "pass", "void", "checkin.opened", "checkin.closed"]
        status, listed = server.json("GET", hooks_path(CODE), key=HOST_KEY)
        assert [h["id"] for h in listed["webhooks"]] == [generic["id"], slack["id"]]
        assert all("secret" not in h for h in listed["webhooks"]) and generic["secret"] not in json.dumps(listed)

        first, second = round_trip(server), round_trip(server)
        status, voided = server.command("void", {"round": 2, "winner": second["winners"][0], "reason": "absent"})
        assert status == 200, voided
        # The receiver fails the generic hook's first two attempts (500): retried after 1 s and 5 s,
        # then the four events in the order they happened (the void, then its replacement), each
        # signed with the hook's secret.
        posts = receiver.wait("/generic", 6)
        events = delivered(posts, generic["secret"])
        assert [e["id"] for e in events[:3]] == [events[0]["id"]] * 3
        ok = events[2:]
        assert [(e["type"], e["data"]["round"]) for e in ok] == [("round.revealed", 1), ("round.revealed", 2), ("void", 2),
                                                               ("round.revealed", 2)]
        assert ok[0]["data"]["winners"] == first["winners"] and ok[0]["draw"] == CODE
        assert ok[2]["data"]["winner"] == second["winners"][0] and ok[2]["data"]["reason"] == "absent"
        assert ok[3]["data"]["winners"] == voided["result"]["winners"] and ok[3]["data"]["replaces"]["winner"] == second["winners"][0]
        # The chat format: the text line in the hook's language, not signed.
        chats = [json.loads(b) for _, b in receiver.wait("/slack", 4)]
        assert chats[0]["text"].startswith("第 1 轮") and "Tombola-Signature" not in receiver.posts("/slack")[0][0]
        deadline = time.time() + 10
        while True:
            listed = server.json("GET", hooks_path(CODE), key=HOST_KEY)[1]["webhooks"]
            last = listed[0]["last"]
            if last["delivered"] == 4 or time.time() > deadline:
                break
            time.sleep(0.05)
        assert (last["status"], last["delivered"], last["failed"], last["pending"]) == (200, 4, 0, 0), last

        # Deleted: gone from the list, and nothing more reaches it.
        assert server.request("DELETE", hooks_path(CODE) + "/" + slack["id"], key=HOST_KEY)[0] == 204
        assert server.json("DELETE", hooks_path(CODE) + "/" + slack["id"], key=HOST_KEY)[1]["error"]["code"] == "unknown_webhook"
        server.stop()

        # Restarted without the flag: the stored hook stays listed, and its next event is refused, not sent.
        server = Tombola(data_dir)
        before = len(receiver.seen)
        round_trip(server)
        deadline = time.time() + 10
        while True:
            listed = server.json("GET", hooks_path(CODE), key=HOST_KEY)[1]["webhooks"]
            if listed[0]["last"]["failed"] == 1 or time.time() > deadline:
                break
            time.sleep(0.05)
        assert [h["id"] for h in listed] == [generic["id"]]
        assert listed[0]["last"]["failed"] == 1 and "refused" in listed[0]["last"]["error"], listed
        assert len(receiver.seen) == before
    finally:
        server.stop()
        receiver.close()


def test_two_cluster_instances_deliver_each_event_once(cluster):
    receiver = Receiver()
    try:
        instances = [cluster.start(("--host-key", CLUSTER_KEY, "--webhook-allow-private")) for _ in range(2)]
        owner = cluster.owner()
        follower = cluster.others(owner)[0]
        status, hook = add(follower, CLUSTER_CODE, CLUSTER_KEY, {"url": receiver.url("/hook"), "events": ["round.revealed"]})
        assert status == 201, hook
        # Both instances list it (Redis), without the secret.
        for instance in instances:
            listed = instance.json("GET", hooks_path(CLUSTER_CODE), key=CLUSTER_KEY)[1]["webhooks"]
            assert [h["id"] for h in listed] == [hook["id"]] and "secret" not in listed[0]
        for via in (follower, owner, follower):
            assert via.command("start")[0] == 200
            assert via.command("stop")[0] == 200
        events = delivered(receiver.wait("/hook", 3), hook["secret"])
        assert [e["data"]["round"] for e in events] == [1, 2, 3]
        # A fourth round, delivered after any stray copy of the first three would have been.
        assert owner.command("start")[0] == 200 and owner.command("stop")[0] == 200
        events = delivered(receiver.wait("/hook", 4), hook["secret"])
        assert [e["data"]["round"] for e in events] == [1, 2, 3, 4]
        assert len({e["id"] for e in events}) == 4
        # The last status, kept in Redis by the owner, as the follower lists it.
        deadline = time.time() + 10
        while True:
            last = follower.json("GET", hooks_path(CLUSTER_CODE), key=CLUSTER_KEY)[1]["webhooks"][0]["last"]
            if last["delivered"] == 4 or time.time() > deadline:
                break
            time.sleep(0.05)
        assert (last["status"], last["delivered"]) == (200, 4), last
        assert follower.request("DELETE", hooks_path(CLUSTER_CODE) + "/" + hook["id"], key=CLUSTER_KEY)[0] == 204
        assert owner.json("GET", hooks_path(CLUSTER_CODE), key=CLUSTER_KEY)[1]["webhooks"] == []
    finally:
        receiver.close()
