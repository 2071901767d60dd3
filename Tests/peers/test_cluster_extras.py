"""Cluster mode (docs/CLUSTER.md) beyond the round: the screen's branding, `tombola
host-link` and the audit log, with real processes (the `cluster` fixture of
test_cluster.py: a private redis-server and `tombola --redis` instances).

- branding set through one instance is what every instance answers (`GET …/branding`,
  `GET …/logo`, the same bytes and cache headers), and pages on every instance hear it as
  one `branding` message; bad input on a follower gets the single-box errors and changes
  nothing; Redis down: `cluster_unavailable`, nothing written;
- `tombola host-link CODE --redis …`: every instance refuses the old key and takes the new
  one within a deadline, and a host page with the old key becomes a viewer;
  a reset announced before an instance's subscriber is live is not missed; an `auth` right
  behind the upgrade is answered on the owner (issue 29);
- the audit log: kept in `{d:CODE}:audit`, chained, without any key.
"""
import base64
import hashlib
import json
import os
import re
import socket
import time
import urllib.error
import urllib.request

from test_cluster import CODE, HOST_KEY, Page, cluster, free_port  # noqa: F401 (fixture)
from test_host_link import host_link
from test_websocket_peer import frame, split_frame

PNG = bytes([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) + bytes([7] * 40)
PNG2 = bytes([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) + bytes([9] * 60)


def raw(instance, method, path, data=None, key=None, content_type="application/octet-stream"):
    """A request with a raw body; returns (status, headers, body bytes)."""
    request = urllib.request.Request(instance.base + path, data=data, method=method)
    if key:
        request.add_header("Authorization", "Bearer " + key)
    if data is not None:
        request.add_header("Content-Type", content_type)
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, response.headers, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.headers, error.read()


def branding(instance):
    status, body = instance.json("GET", "/api/draws/%s/branding" % CODE)
    assert status == 200, body
    return body


def error_of(status_body):
    status, body = status_body
    return status, json.loads(body)["error"]["code"]


def test_branding_set_on_one_instance_is_served_and_heard_on_every_instance(cluster):
    a, b, c = cluster.start(("--host-key", HOST_KEY)), cluster.start(("--host-key", HOST_KEY)), cluster.start(("--host-key", HOST_KEY))
    owner = cluster.owner()
    follower = cluster.others(owner)[0]
    empty = {"title": None, "accent": None, "logo": None, "media": {}}
    assert [branding(i) for i in (a, b, c)] == [empty] * 3
    assert raw(b, "GET", "/api/draws/%s/logo" % CODE)[0] == 404
    pages = [Page(i) for i in (a, b, c)]
    for page in pages:
        page.wait_for(lambda m: m.get("type") == "state", what="state")

    # Title and accent through a follower.
    marks = [len(p.messages) for p in pages]
    status, answer = follower.json("PUT", "/api/draws/%s/branding" % CODE, {"title": "Gala 2026", "accent": "#FF8800"}, HOST_KEY)
    assert status == 200, answer
    assert answer == {"title": "Gala 2026", "accent": "#ff8800", "logo": None, "media": {}}
    for page, mark in zip(pages, marks):
        heard = page.wait_for(lambda m: m.get("type") == "branding", what="branding", since=mark)
        assert heard == dict(answer, type="branding")
    assert [branding(i) for i in (a, b, c)] == [answer] * 3

    # A logo through another instance: served the same by every instance, under a URL that names it.
    marks = [len(p.messages) for p in pages]
    status, _, body = raw(c, "PUT", "/api/draws/%s/logo" % CODE, PNG, HOST_KEY, "image/png")
    assert status == 200, body
    with_logo = json.loads(body)
    assert with_logo["title"] == "Gala 2026" and with_logo["logo"].startswith("/api/draws/%s/logo?v=" % CODE)
    for page, mark in zip(pages, marks):
        assert page.wait_for(lambda m: m.get("type") == "branding", since=mark)["logo"] == with_logo["logo"]
    for instance in (a, b, c):
        assert branding(instance) == with_logo
        status, headers, image = raw(instance, "GET", with_logo["logo"])
        assert status == 200 and image == PNG
        assert headers["Content-Type"] == "image/png"
        assert headers["Cache-Control"] == "public, max-age=31536000, immutable"

    # A new logo gets a new URL on every instance (cached copies of the old one are never reused),
    # and the bytes every instance serves are the new ones, also where the old one was read before.
    status, _, body = raw(a, "PUT", "/api/draws/%s/logo" % CODE, PNG2, HOST_KEY, "image/png")
    assert status == 200, body
    second = json.loads(body)["logo"]
    assert second != with_logo["logo"]
    for instance in (a, b, c):
        assert branding(instance)["logo"] == second
        assert raw(instance, "GET", second)[2] == PNG2

    # Bad input on a follower: the single-box errors, nothing changed anywhere.
    before = branding(owner)
    path = "/api/draws/%s/branding" % CODE
    assert error_of(follower.request("PUT", path, {"title": "x" * 500}, HOST_KEY)) == (400, "bad_title")
    assert error_of(follower.request("PUT", path, {"accent": "red"}, HOST_KEY)) == (400, "bad_accent")
    assert error_of(follower.request("PUT", path, {"title": 5}, HOST_KEY)) == (400, "bad_title")
    assert follower.request("PUT", path, {"title": "no key"})[0] == 401
    assert follower.request("PUT", path, {"title": "wrong key"}, "wrong-key-0123456789abcdef")[0] == 403
    status, _, body = raw(follower, "PUT", "/api/draws/%s/logo" % CODE, b"<svg></svg>", HOST_KEY, "image/svg+xml")
    assert (status, json.loads(body)["error"]["code"]) == (415, "bad_logo")
    status, _, body = raw(follower, "PUT", "/api/draws/%s/logo" % CODE, PNG + bytes(256 * 1024), HOST_KEY, "image/png")
    assert (status, json.loads(body)["error"]["code"]) == (413, "logo_too_large")
    assert [branding(i) for i in (a, b, c)] == [before] * 3

    # A page joining later on any instance reads the current branding (as the screen does when it loads).
    assert branding(follower) == before

    # A prize tier's music (larger than the usual 1 MiB body limit) through a follower: every
    # instance serves the same bytes under the URL the branding names; the pages hear it.
    marks = [len(p.messages) for p in pages]
    music = b"ID3" + bytes(range(256)) * 6000  # about 1.5 MiB
    status, _, body = raw(follower, "PUT", "/api/draws/%s/prizes/1/music" % CODE, music, HOST_KEY, "audio/mpeg")
    assert status == 200, body
    url = json.loads(body)["media"]["music-1"]
    assert url.startswith("/api/draws/%s/prizes/1/music?v=" % CODE)
    for page, mark in zip(pages, marks):
        assert page.wait_for(lambda m: m.get("type") == "branding", since=mark)["media"] == {"music-1": url}
    for instance in (a, b, c):
        status, headers, got = raw(instance, "GET", url)
        assert status == 200 and got == music and headers["Content-Type"] == "audio/mpeg"
    status, _, body = raw(owner, "PUT", "/api/draws/%s/prizes/1/picture" % CODE, b"<svg></svg>", HOST_KEY, "image/svg+xml")
    assert (status, json.loads(body)["error"]["code"]) == (415, "bad_media")
    status, _, body = raw(owner, "DELETE", "/api/draws/%s/prizes/1/music" % CODE, None, HOST_KEY)
    assert status == 200 and json.loads(body)["media"] == {}
    for instance in (a, b, c):
        assert raw(instance, "GET", "/api/draws/%s/prizes/1/music" % CODE)[0] == 404
    before = branding(owner)

    # Removing the logo: every instance answers 404 for it, and the pages hear it.
    marks = [len(p.messages) for p in pages]
    status, _, body = raw(follower, "DELETE", "/api/draws/%s/logo" % CODE, None, HOST_KEY)
    assert status == 200 and json.loads(body)["logo"] is None
    for page, mark in zip(pages, marks):
        assert page.wait_for(lambda m: m.get("type") == "branding", since=mark)["logo"] is None
    for instance in (a, b, c):
        assert raw(instance, "GET", "/api/draws/%s/logo" % CODE)[0] == 404
    for page in pages:
        page.close()

    # Redis down: a change is refused with cluster_unavailable, and nothing was half-written.
    cluster.redis.kill()
    status, code = error_of(follower.request("PUT", path, {"title": "while down"}, HOST_KEY))
    assert (status, code) == (503, "cluster_unavailable")
    status, _, body = raw(owner, "PUT", "/api/draws/%s/logo" % CODE, PNG, HOST_KEY, "image/png")
    assert (status, json.loads(body)["error"]["code"]) == (503, "cluster_unavailable")
    cluster.redis.start()
    assert cluster.redis.cli("HGET", "{d:%s}:branding" % CODE, "title") == "Gala 2026"
    assert cluster.redis.cli("HEXISTS", "{d:%s}:branding" % CODE, "logo") == "0"


def clear_status(instance, key):
    """Clear (harmless on an idle draw) needs the host key: 200 with it, 403 with another."""
    return instance.request("POST", "/api/draws/%s/clear" % CODE, body={}, key=key)[0]


def test_host_link_in_cluster_mode_replaces_the_key_on_every_instance(cluster, tmp_path):
    instances = [cluster.start(("--host-key", HOST_KEY)) for _ in range(3)]
    owner = cluster.owner()
    follower = cluster.others(owner)[0]
    for instance in instances:
        assert clear_status(instance, HOST_KEY) == 200
    # Host pages that authenticated with the old key, on the owner and on a follower.
    hosts = [Page(owner, host=True), Page(follower, host=True)]
    for page in hosts:
        page.wait_for(lambda m: m.get("type") == "role" and m.get("role") == "host", what="role host")
    marks = [len(p.messages) for p in hosts]

    key_file = next(a for a in instances[0].proc.args if a.endswith("cluster.key"))
    done = host_link(CODE.lower(), "--redis", cluster.redis.url, "--cluster-key", key_file,
                     "--host", "127.0.0.1", "--port", str(follower.port))
    assert done.returncode == 0, done.stdout + done.stderr
    link = re.search(r"http://127\.0\.0\.1:%d/draw/%s#key=([a-z2-7]{26})" % (follower.port, CODE), done.stdout)
    assert link, done.stdout
    new_key = link.group(1)
    assert HOST_KEY not in done.stdout + done.stderr
    assert cluster.redis.cli("HGET", "{d:%s}:meta" % CODE, "hostKeyHash") not in ("", HOST_KEY, new_key)

    # Within about a second, every instance (owner and followers) refuses the old key and takes the new one.
    deadline = time.time() + 2
    for instance in instances:
        while clear_status(instance, HOST_KEY) != 403:
            assert time.time() < deadline, "instance %s still takes the old key" % instance.id
            time.sleep(0.05)
        assert clear_status(instance, new_key) == 200
    # The pages that authenticated with the old key are viewers now, and their commands are refused.
    for page, mark in zip(hosts, marks):
        page.wait_for(lambda m: m.get("type") == "role" and m.get("role") == "viewer", what="role viewer", since=mark)
        mark = len(page.messages)
        page.send({"type": "start", "seq": 1})
        assert page.wait_for(lambda m: m.get("type") == "error", since=mark)["code"] == "not_host"
        page.close()
    # The old key is refused to a new page too; the new one makes a host, on a follower.
    page = Page(follower)
    page.send({"type": "auth", "key": HOST_KEY})
    assert page.wait_for(lambda m: m.get("type") == "error")["code"] == "bad_key"
    page.send({"type": "auth", "key": new_key})
    page.wait_for(lambda m: m.get("type") == "role" and m.get("role") == "host", what="role host with the new key")
    page.close()

    # No draw of that code in the cluster: exit 1, nothing written.
    missing = host_link("NOSUCHDRAW", "--redis", cluster.redis.url, "--cluster-key", key_file)
    assert missing.returncode == 1 and "no draw NOSUCHDRAW in the cluster" in missing.stderr, missing.stderr
    assert cluster.redis.cli("EXISTS", "{d:NOSUCHDRAW}:meta") == "0"
    # Redis unreachable: exit 1 with a clear message, no link printed.
    nowhere = host_link(CODE, "--redis", "redis://127.0.0.1:%d" % free_port(), "--cluster-key", key_file)
    assert nowhere.returncode == 1 and "cannot reach Redis" in nowhere.stderr and "#key=" not in nowhere.stdout, nowhere.stderr


def auth_in_the_handshake_packet(instance, key):
    """A page whose `auth` arrives in the same packet as its upgrade request (as a fast phone's
    may): the server reads both at once, so the page's join and its key check are queued together.
    Returns the first `role` or `error` message it gets, or None if none comes (10 s without data)."""
    with socket.create_connection(("127.0.0.1", instance.port), timeout=10) as sock:
        upgrade = ("GET /ws/draw/%s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                   "Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n\r\n"
                   % (CODE, instance.port, base64.b64encode(os.urandom(16)).decode()))
        sock.sendall(upgrade.encode() + frame(0x1, json.dumps({"type": "auth", "key": key}).encode()))
        data = b""
        while b"\r\n\r\n" not in data:
            data += sock.recv(65536)
        head, data = data.split(b"\r\n\r\n", 1)
        assert head.startswith(b"HTTP/1.1 101 "), head
        while True:
            while (whole := split_frame(data)) is not None:
                _, payload, data = whole
                message = json.loads(payload) if payload.startswith(b"{") else {}
                if message.get("type") in ("role", "error"):
                    return message
            try:
                chunk = sock.recv(65536)
            except socket.timeout:
                return None
            if not chunk:
                return None
            data += chunk


def test_an_auth_right_behind_the_join_is_answered_on_the_owner(cluster):
    """The owner used to hand a page's key verdict to its room at once, while the page's join
    waited its turn on the loop: the verdict came first, found no such page and was dropped,
    and the page was never told it is a host (the flake of the host-link test above, issue 29)."""
    cluster.start(("--host-key", HOST_KEY))
    owner = cluster.owner()
    assert clear_status(owner, HOST_KEY) == 200  # answered by the room: it is open
    for _ in range(12):
        assert auth_in_the_handshake_packet(owner, HOST_KEY) == {"type": "role", "role": "host"}
    assert auth_in_the_handshake_packet(owner, "not-the-host-key-0123456789")["code"] == "bad_key"


def resp(sock, *args):
    """One command on a raw Redis connection; returns its reply's first line."""
    sock.sendall(("*%d\r\n" % len(args) + "".join("$%d\r\n%s\r\n" % (len(a), a) for a in args)).encode())
    reply = b""
    while not reply.endswith(b"\r\n"):
        reply += sock.recv(1)
    return reply.decode().strip()


def test_a_host_link_announced_before_the_subscriber_is_live_is_not_missed(cluster):
    """An instance reads the draw's hash at start-up, then subscribes to `tombola:host-keys`:
    a reset announced in between reached no one. Held open here by Redis refusing the
    subscriber's connection (maxclients) while the instance's command connection works."""
    with socket.create_connection(("127.0.0.1", cluster.redis.port), timeout=10) as admin:
        assert resp(admin, "CONFIG", "SET", "maxclients", "2") == "+OK"  # this one and the instance's commands
        instance = cluster.start(("--host-key", HOST_KEY))
        assert clear_status(instance, HOST_KEY) == 200
        new_key = "new-host-key-0123456789abcdef"
        # What `tombola host-link` does (HostKeyReset), while the instance hears nothing.
        assert resp(admin, "HSET", "{d:%s}:meta" % CODE, "hostKeyHash", hashlib.sha256(new_key.encode()).hexdigest()) == ":0"
        assert resp(admin, "PUBLISH", "tombola:host-keys", CODE) == ":0"  # no subscriber heard it
        assert clear_status(instance, HOST_KEY) == 200
        assert resp(admin, "CONFIG", "SET", "maxclients", "10000") == "+OK"
    # Once its subscriber is live, the instance reads the hash again.
    deadline = time.time() + 20
    while clear_status(instance, HOST_KEY) != 403:
        assert time.time() < deadline, "the instance still takes the old key"
        time.sleep(0.05)
    assert clear_status(instance, new_key) == 200


def audit_entries(redis):
    """Every entry of the draw's audit stream as a dict of its fields, in order."""
    lines = redis.cli("XRANGE", "{d:%s}:audit" % CODE, "-", "+").splitlines()
    entries, current = [], None
    i = 0
    while i < len(lines):
        if re.fullmatch(r"\d+-\d+", lines[i]):
            current = {}
            entries.append(current)
            i += 1
            continue
        current[lines[i]] = lines[i + 1]
        i += 2
    return entries


def wait_audit(redis, count, timeout=10):
    deadline = time.time() + timeout
    while len(audit_entries(redis)) < count:
        assert time.time() < deadline, "audit log: %s" % audit_entries(redis)
        time.sleep(0.05)
    return audit_entries(redis)


def test_the_audit_log_is_kept_in_redis_chained_and_without_keys(cluster):
    instances = [cluster.start(("--host-key", HOST_KEY)) for _ in range(3)]
    owner = cluster.owner()
    follower = cluster.others(owner)[0]
    # The first owner's takeover, then host commands through a follower, as single-box audits them.
    for name in ("start", "stop", "clear"):
        status, body = follower.command(name)
        assert status == 200, (name, body)
    entries = wait_audit(cluster.redis, 4)
    assert [json.loads(e["json"])["action"] for e in entries] == ["takeover", "start", "stop", "clear"]
    first_token = int(cluster.redis.cli("GET", "{d:%s}:fence" % CODE))
    assert json.loads(entries[0]["json"])["detail"] == {"token": first_token, "instance": owner.id}
    assert all(int(e["token"]) == first_token for e in entries)

    # tombola host-link writes its entry too (token 0: not an owner's write), after the others.
    key_file = next(a for a in instances[0].proc.args if a.endswith("cluster.key"))
    done = host_link(CODE, "--redis", cluster.redis.url, "--cluster-key", key_file)
    assert done.returncode == 0 and "warning" not in done.stderr, done.stderr
    new_key = re.search(r"#key=([a-z2-7]{26})", done.stdout).group(1)
    entries = wait_audit(cluster.redis, 5)
    reset = json.loads(entries[4]["json"])
    assert (reset["actor"], reset["action"], reset["detail"], entries[4]["token"]) == ("system", "host_key_reset", {"via": "host-link"}, "0")

    # The owner dies: the next owner continues the same chain.
    owner.kill()
    successor = cluster.owner()
    assert successor is not owner
    deadline = time.time() + 10
    while True:
        status, body = successor.json("POST", "/api/draws/%s/start" % CODE, {}, new_key)
        if status == 200:
            break
        assert status == 503 and time.time() < deadline, body
        time.sleep(0.1)
    entries = wait_audit(cluster.redis, 7)
    assert [json.loads(e["json"])["action"] for e in entries[5:]] == ["takeover", "start"]
    assert json.loads(entries[5]["json"])["detail"]["instance"] == successor.id
    assert int(entries[6]["token"]) > first_token

    # The chain: each entry's body names its index and the previous hash, and hashes to its hash.
    previous = "0" * 64
    for index, entry in enumerate(entries):
        body = json.loads(entry["json"])
        assert (int(entry["index"]), body["index"], body["draw"]) == (index, index, CODE)
        assert entry["prev"] == body["prev"] == previous
        assert hashlib.sha256(entry["json"].encode()).hexdigest() == entry["hash"]
        assert json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False) == entry["json"]
        previous = entry["hash"]
    everything = cluster.redis.cli("XRANGE", "{d:%s}:audit" % CODE, "-", "+")
    assert HOST_KEY not in everything and new_key not in everything
