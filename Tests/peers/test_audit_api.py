"""The audit log through the API (issue #41): `GET /api/draws/<code>/audit` (JSON, cursor-paged;
the downloads `…/audit.csv` and `audit.xlsx` take the same window) for the host, single-box
(SQLite) and in cluster mode (the draw's stream in Redis, read alike by every instance). Every
entry carries what its hash covers, so the chain is recomputed here from the API alone; bad
cursors, limits and keys get their codes."""
import hashlib
import json

from test_cluster import CODE as CLUSTER_CODE, HOST_KEY as CLUSTER_KEY, cluster  # noqa: F401 (fixture)
from test_cluster_extras import raw, wait_audit
from test_draw_export import CODE, HOST_KEY, Tombola, data_dir  # noqa: F401 (fixture)


def read_all(instance, code, key, limit):
    """Every entry, page by page (following `next`), with the pages' sizes."""
    entries, sizes, after = [], [], None
    while True:
        path = "/api/draws/%s/audit?limit=%d" % (code, limit) + ("" if after is None else "&after=%d" % after)
        status, page = instance.json("GET", path, key=key)
        assert status == 200, page
        assert page["code"] == code
        entries += page["entries"]
        sizes.append(len(page["entries"]))
        after = page["next"]
        if after is None:
            return entries, sizes


def check_chain(entries, code):
    """Indices 0, 1, 2, … each linked to the previous hash, each hash the SHA-256 of its body."""
    previous = "0" * 64
    for index, entry in enumerate(entries):
        assert entry["index"] == index and entry["prev"] == previous
        body = {k: entry[k] for k in ("index", "at", "actor", "action", "detail", "prev")}
        body["draw"] = code
        text = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        assert hashlib.sha256(text.encode()).hexdigest() == entry["hash"], entry
        previous = entry["hash"]


def check_csv(instance, code, key, entries):
    """The download (audit.csv) holds the same entries; `after` and `limit` cut it as they cut a page."""
    def rows(query=""):
        status, headers, body = raw(instance, "GET", "/api/draws/%s/audit.csv%s" % (code, query), key=key)
        assert status == 200 and headers["Content-Type"].startswith("text/csv") and body.startswith(b"\xef\xbb\xbf"), (status, body)
        lines = body[3:].decode().split("\r\n")
        assert lines[0] == "index,at,actor,action,detail,prev,hash" and lines[-1] == ""
        # index first, hash last (neither is ever quoted); `at` ISO 8601 with its offset.
        assert all(line.split(",")[1][10] == "T" for line in lines[1:-1])
        return [(int(line.split(",")[0]), line.split(",")[-1]) for line in lines[1:-1]]
    assert rows() == [(e["index"], e["hash"]) for e in entries]
    assert rows("?after=2&limit=2") == [(e["index"], e["hash"]) for e in entries[3:5]]


def check_refusals(instance, code, key):
    def code_of(path, with_key=key):
        status, body = instance.json("GET", "/api/draws/%s/%s" % (code, path), key=with_key)
        return status, body["error"]["code"]
    assert code_of("audit?after=-1") == (400, "bad_cursor")
    assert code_of("audit?after=abc") == (400, "bad_cursor")
    assert code_of("audit?limit=0") == (400, "bad_limit")
    assert code_of("audit?limit=1001") == (400, "bad_limit")
    assert code_of("audit.csv?limit=100001") == (400, "bad_limit")
    assert code_of("audit", None) == (401, "unauthorized")
    assert code_of("audit", "wrong-key-wrong-key-123") == (403, "bad_key")
    status, _, _ = raw(instance, "POST", "/api/draws/%s/audit" % code, data=b"{}", key=key)
    assert status == 405


def test_the_host_reads_the_audit_log_in_pages_as_json_and_csv(data_dir):
    server = Tombola(data_dir)
    try:
        for name in ("start", "stop", "start", "stop", "clear"):
            assert server.command(name)[0] == 200
        entries, sizes = read_all(server, CODE, HOST_KEY, 2)
        assert [e["action"] for e in entries] == ["create", "start", "stop", "start", "stop", "clear"]
        assert sizes == [2, 2, 2] and entries[1]["actor"] == "host" and entries[1]["detail"]["round"] == 1
        check_chain(entries, CODE)
        assert read_all(server, CODE, HOST_KEY, 1000)[0] == entries
        # A cursor past the end is an empty last page.
        assert server.json("GET", "/api/draws/%s/audit?after=99" % CODE, key=HOST_KEY)[1] == {"code": CODE, "entries": [], "next": None}
        check_csv(server, CODE, HOST_KEY, entries)
        check_refusals(server, CODE, HOST_KEY)
    finally:
        server.stop()


def test_every_cluster_instance_reads_the_audit_log_from_redis(cluster):
    instances = [cluster.start(("--host-key", CLUSTER_KEY)) for _ in range(3)]
    follower = cluster.others(cluster.owner())[0]
    for name in ("start", "stop", "start", "stop", "clear"):
        assert follower.command(name)[0] == 200
    wait_audit(cluster.redis, 6)
    pages = [read_all(instance, CLUSTER_CODE, CLUSTER_KEY, 2) for instance in instances]
    entries = pages[0][0]
    assert [e["action"] for e in entries] == ["takeover", "start", "stop", "start", "stop", "clear"]
    assert all(page == (entries, [2, 2, 2]) for page in pages)
    check_chain(entries, CLUSTER_CODE)
    # Pages read from either end of the stream agree (the script reads from the nearer end).
    for after in range(0, 6):
        status, page = follower.json("GET", "/api/draws/%s/audit?after=%d&limit=3" % (CLUSTER_CODE, after), key=CLUSTER_KEY)
        assert status == 200 and page["entries"] == entries[after + 1:after + 4], after
    check_csv(instances[2], CLUSTER_CODE, CLUSTER_KEY, entries)
    check_refusals(follower, CLUSTER_CODE, CLUSTER_KEY)
