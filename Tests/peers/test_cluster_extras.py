"""Cluster mode (docs/CLUSTER.md) beyond the round: the screen's branding, `tombola
host-link` and the audit log, with real processes (the `cluster` fixture of
test_cluster.py: a private redis-server and `tombola --redis` instances).

- branding set through one instance is what every instance answers (`GET …/branding`,
  `GET …/logo`, the same bytes and cache headers), and pages on every instance hear it as
  one `branding` message; bad input on a follower gets the single-box errors and changes
  nothing; Redis down: `cluster_unavailable`, nothing written;
- `tombola host-link CODE --redis …`: every instance refuses the old key and takes the new
  one within a deadline, and a host page with the old key becomes a viewer;
- the audit log: kept in `{d:CODE}:audit`, chained, without any key.
"""
import json
import urllib.error
import urllib.request

from test_cluster import CODE, HOST_KEY, Page, cluster  # noqa: F401 (fixture)

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
    empty = {"title": None, "accent": None, "logo": None}
    assert [branding(i) for i in (a, b, c)] == [empty] * 3
    assert raw(b, "GET", "/api/draws/%s/logo" % CODE)[0] == 404
    pages = [Page(i) for i in (a, b, c)]
    for page in pages:
        page.wait_for(lambda m: m.get("type") == "state", what="state")

    # Title and accent through a follower.
    marks = [len(p.messages) for p in pages]
    status, answer = follower.json("PUT", "/api/draws/%s/branding" % CODE, {"title": "Gala 2026", "accent": "#FF8800"}, HOST_KEY)
    assert status == 200, answer
    assert answer == {"title": "Gala 2026", "accent": "#ff8800", "logo": None}
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
