"""The auditor's pack (issue #41): `GET /api/draws/<code>/auditpack.zip` with the host's or an
observer's key is one ZIP with the host export, the audit log (JSON and CSV), each round's
certificate, the server's key, the binary's identity, the verification and a one-page summary that
names the operators, the observers, the winners, the void and the verdict; the export in it passes
`tombola verify` and the FAIRNESS.md script. A viewer (no key), a wrong key and a presenter's key
get no pack. In cluster mode the owner and a follower give the same pack."""
import csv
import io
import json
import subprocess
import zipfile

from test_cluster import CODE as CLUSTER_CODE, HOST_KEY as CLUSTER_KEY, cluster  # noqa: F401 (fixture)
from test_cluster_extras import wait_audit
from test_draw_export import ADMIN_KEY, CODE, HOST_KEY, Tombola, data_dir, verify_with_script  # noqa: F401 (fixture)
from test_fairness_script import script, tombola_binary  # noqa: F401 (fixture)


def packs_for_host_and_observer_only(server, path, presenter, observer, host):
    """No key: 401; a wrong key: bad_key; a presenter's: role_forbidden; the observer's and the
    host's packs, as ZIP bytes."""
    assert server.request("GET", path)[0] == 401
    status, body = server.request("GET", path, key="wrong-key-0123456789")
    assert (status, json.loads(body)["error"]["code"]) == (403, "bad_key"), body
    status, body = server.request("GET", path, key=presenter)
    assert (status, json.loads(body)["error"]["code"]) == (403, "role_forbidden"), body
    packs = []
    for key in (observer, host):
        status, raw = server.request("GET", path, key=key)
        assert status == 200 and raw[:2] == b"PK", (status, raw[:200])
        packs.append(raw)
    return packs


def test_the_auditors_pack_holds_what_an_auditor_checks_and_only_hosts_and_observers_get_it(script, data_dir, tmp_path):
    server = Tombola(data_dir)
    try:
        assert server.command("config", {"pool": {"kind": "list", "entrants": ["Ann", "Bo", "Cy", "Di", "Ed", "Flo"]},
                                         "prizes": [{"name": "Grand prize", "count": 1}, {"name": "Mug", "count": 2}]})[0] == 200
        status, eve = server.json("POST", "/api/draws/%s/operators" % CODE, {"name": "Eve", "role": "observer"}, HOST_KEY)
        assert status == 201, eve
        status, pat = server.json("POST", "/api/draws/%s/operators" % CODE, {"name": "Pat", "role": "presenter"}, HOST_KEY)
        assert status == 201, pat
        assert server.json("POST", "/api/draws/%s/signoffs" % CODE, {"statement": "lock", "round": 1}, eve["key"])[0] == 200
        assert server.json("POST", "/api/draws/%s/start" % CODE, {}, pat["key"])[0] == 200
        status, body = server.json("POST", "/api/draws/%s/stop" % CODE, {}, pat["key"])
        assert status == 200, body
        grand = body["result"]["winners"][0]
        assert server.json("POST", "/api/draws/%s/signoffs" % CODE, {"statement": "result", "round": 1}, eve["key"])[0] == 200
        assert server.command("start")[0] == 200
        status, body = server.command("stop")
        mugs = body["result"]["winners"]
        status, body = server.command("void", {"round": 2, "winner": mugs[0], "reason": "left early"})
        assert status == 200, body
        replacement = body["result"]["winners"][0]

        observer_pack, raw = packs_for_host_and_observer_only(server, "/api/draws/%s/auditpack.zip" % CODE, pat["key"], eve["key"], HOST_KEY)
        status, host_export = server.request("GET", "/api/draws/%s/export.json" % CODE, key=HOST_KEY)
    finally:
        server.stop()

    pack = zipfile.ZipFile(io.BytesIO(raw))
    names = set(pack.namelist())
    assert {"summary.html", "export.json", "verification.txt", "audit.json", "audit.csv", "server-key.json", "software.json",
            "certificates/round-1.html", "certificates/round-2.html"} == names, names
    assert pack.testzip() is None

    # The export is the host's, as export.json gives it (the signatures aside: each download is signed anew).
    exported = json.loads(pack.read("export.json"))
    assert exported["records"] == json.loads(host_export)["records"]
    path = tmp_path / "export.json"
    path.write_bytes(pack.read("export.json"))
    verified = subprocess.run([tombola_binary(), "verify", str(path)], capture_output=True, text=True, timeout=60)
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert verify_with_script(script, exported, tmp_path).returncode == 0
    verification = pack.read("verification.txt").decode()
    assert verification.strip().splitlines()[-1].startswith("verified: 3 rounds")  # two rounds and a void's replacement, verification

    # The audit log, whole, in both forms: every entry, chained, naming who gave each command.
    audit = json.loads(pack.read("audit.json"))
    rows = list(csv.DictReader(io.StringIO(pack.read("audit.csv").decode())))
    assert [e["hash"] for e in audit] == [r["hash"] for r in rows] and len(audit) >= 8
    assert all(b["prev"] == a["hash"] for a, b in zip(audit, audit[1:]))
    assert {("start", "Pat"), ("signoff", "Eve"), ("void", "owner")} <= {(e["action"], e["detail"].get("operator")) for e in audit}

    software = json.loads(pack.read("software.json"))
    assert len(software["sha256"]) == 64
    key = json.loads(pack.read("server-key.json"))
    assert key["fingerprint"] in pack.read("summary.html").decode()

    summary = pack.read("summary.html").decode()
    for text in ("Pat", "Eve", grand, replacement, "left early", "Grand prize", "verified: 3 rounds", "Eve (lock)", "Eve (result)"):
        assert text in summary, text
    certificate = pack.read("certificates/round-2.html").decode()
    assert replacement in certificate and "<script" not in certificate and "Mug" in certificate
    assert "<li>%s</li>" % mugs[0] not in certificate and "void: %s (left early)" % mugs[0] in certificate
    assert "Witnessed by" in pack.read("certificates/round-1.html").decode()


def test_every_cluster_instance_gives_the_same_pack_from_redis(cluster, tmp_path):
    """Cluster mode: the pack reads the export and the audit stream the cluster's downloads read, so
    the owner and a follower give the same draw, log and verdict."""
    for _ in range(2):
        cluster.start(("--host-key", CLUSTER_KEY))
    owner = cluster.owner()
    follower = cluster.others(owner)[0]
    assert follower.command("config", {"pool": {"kind": "list", "entrants": ["Ann", "Bo", "Cy", "Di"]}})[0] == 200
    assert follower.command("start")[0] == 200
    status, body = follower.command("stop")
    assert status == 200, body
    winner = body["result"]["winners"][0]
    wait_audit(cluster.redis, 4)
    path = "/api/draws/%s/auditpack.zip" % CLUSTER_CODE
    packs = []
    for instance in (owner, follower):
        assert instance.request("GET", path)[0] == 401
        status, raw = instance.request("GET", path, key=CLUSTER_KEY)
        assert status == 200 and raw[:2] == b"PK", (status, raw[:200])
        packs.append(zipfile.ZipFile(io.BytesIO(raw)))
    for pack in packs:
        assert {"summary.html", "export.json", "audit.json", "audit.csv", "certificates/round-1.html"} <= set(pack.namelist())
        assert winner in pack.read("summary.html").decode() and winner in pack.read("certificates/round-1.html").decode()
    first, second = (json.loads(p.read("audit.json")) for p in packs)
    assert [e["hash"] for e in first] == [e["hash"] for e in second]
    assert [e["action"] for e in first][-3:] == ["configure", "start", "stop"]
    assert json.loads(packs[0].read("export.json"))["records"] == json.loads(packs[1].read("export.json"))["records"]
    exported = tmp_path / "cluster-export.json"
    exported.write_bytes(packs[1].read("export.json"))
    verified = subprocess.run([tombola_binary(), "verify", str(exported)], capture_output=True, text=True, timeout=60)
    assert verified.returncode == 0, verified.stdout + verified.stderr

    # The event pack in cluster mode: a second draw leaves out the first one's winner; from either
    # instance its `?event=1` pack holds both draws' packs and the link's check.
    config = {"pool": {"kind": "list", "entrants": ["Ann", "Bo", "Cy", "Di"]},
              "excludeWinnersOf": [{"code": CLUSTER_CODE, "key": CLUSTER_KEY}]}
    status, later = follower.json("POST", "/api/draws", {"config": config}, ADMIN_KEY)
    assert status == 201, later
    assert follower.json("POST", "/api/draws/%s/start" % later["code"], {}, later["hostKey"])[0] == 200
    status, body = follower.json("POST", "/api/draws/%s/stop" % later["code"], {}, later["hostKey"])
    assert status == 200 and winner not in body["result"]["winners"], body
    event_packs = []
    for instance in (owner, follower):
        status, raw = instance.request("GET", "/api/draws/%s/auditpack.zip?event=1" % later["code"], key=later["hostKey"])
        assert status == 200 and raw[:2] == b"PK", (status, raw[:200])
        event_packs.append(zipfile.ZipFile(io.BytesIO(raw)))
    for pack in event_packs:
        names = set(pack.namelist())
        assert "event.html" in names
        for code in (CLUSTER_CODE, later["code"]):
            assert {"draws/%s/export.json" % code, "draws/%s/summary.html" % code} <= names, (code, sorted(names))
        assert json.loads(pack.read("draws/%s/export.json" % CLUSTER_CODE))["records"] == \
            json.loads(packs[0].read("export.json"))["records"]
        assert winner in pack.read("event.html").decode()
    assert event_packs[0].namelist() == event_packs[1].namelist()


def test_the_event_pack_holds_each_linked_draws_own_pack_and_checks_the_links(data_dir, tmp_path):
    """`?event=1`: from the last draw of an event (C excludes the winners of A and B, B those of
    A), one ZIP with each draw's own pack in draws/<code>/ and event.html over them, for the key
    of the draw asked; from A, which links nothing, only A."""
    names = ["Ann", "Bo", "Cy", "Di", "Ed", "Flo", "Gus", "Hal", "Ivy", "Jo"]
    server = Tombola(data_dir)
    try:
        draws = {}

        def make(label, links=()):
            config = {"pool": {"kind": "list", "entrants": names}, "perStop": 2,
                      "excludeWinnersOf": [{"code": draws[l]["code"], "key": draws[l]["hostKey"]} for l in links]}
            status, created = server.json("POST", "/api/draws", {"config": config}, ADMIN_KEY)
            assert status == 201, created
            draws[label] = created

        def host(label, name, body=None):
            status, answer = server.json("POST", "/api/draws/%s/%s" % (draws[label]["code"], name), body or {}, draws[label]["hostKey"])
            assert status == 200, answer
            return answer

        def held(label):  # the draw's winners now: its rounds' winners, a voided one replaced
            status, state = server.json("GET", "/api/draws/" + draws[label]["code"])
            return [w for r in state["rounds"] for w in r["winners"]]

        make("A")
        host("A", "start")
        voided = host("A", "stop")["result"]["winners"][0]
        host("A", "void", {"round": 1, "winner": voided, "reason": "not present"})
        make("B", ["A"])
        host("B", "start")
        host("B", "stop")
        make("C", ["A", "B"])
        host("C", "start")
        host("C", "stop")  # each Stop takes the 1.5 s slow-down: one round per draw
        winners = {label: held(label) for label in draws}
        c = draws["C"]
        status, pat = server.json("POST", "/api/draws/%s/operators" % c["code"], {"name": "Pat", "role": "presenter"}, c["hostKey"])
        assert status == 201, pat
        status, eve = server.json("POST", "/api/draws/%s/operators" % c["code"], {"name": "Eve", "role": "observer"}, c["hostKey"])
        assert status == 201, eve
        assert server.json("POST", "/api/draws/%s/signoffs" % c["code"], {"statement": "result", "round": 1}, eve["key"])[0] == 200

        path = "/api/draws/%s/auditpack.zip?event=1" % c["code"]
        observer_pack, raw = packs_for_host_and_observer_only(server, path, pat["key"], eve["key"], c["hostKey"])
        exports = {}
        for label, draw in draws.items():
            status, text = server.request("GET", "/api/draws/%s/export.json" % draw["code"], key=draw["hostKey"])
            exports[label] = json.loads(text)
        status, alone = server.request("GET", "/api/draws/%s/auditpack.zip?event=1" % draws["A"]["code"], key=draws["A"]["hostKey"])
        assert status == 200, alone[:200]
    finally:
        server.stop()

    pack = zipfile.ZipFile(io.BytesIO(raw))
    assert pack.testzip() is None
    assert zipfile.ZipFile(io.BytesIO(observer_pack)).namelist() == pack.namelist()
    single = {"summary.html", "export.json", "verification.txt", "audit.json", "audit.csv", "server-key.json", "software.json"}
    for label, draw in draws.items():
        folder = "draws/%s/" % draw["code"]
        held_files = {n[len(folder):] for n in pack.namelist() if n.startswith(folder)}
        assert single | {"certificates/round-1.html"} <= held_files, (label, held_files)
        exported = json.loads(pack.read(folder + "export.json"))
        assert exported["records"] == exports[label]["records"], label
        path = tmp_path / ("%s.json" % label)
        path.write_bytes(pack.read(folder + "export.json"))
        verified = subprocess.run([tombola_binary(), "verify", str(path)], capture_output=True, text=True, timeout=60)
        assert verified.returncode == 0, verified.stdout + verified.stderr
    assert set(pack.namelist()) == {"event.html"} | {n for n in pack.namelist() if n.startswith("draws/")}
    # What event.html says of the links, an auditor redoes from the pack alone.
    past = subprocess.run([tombola_binary(), "verify", str(tmp_path / "C.json"), "--past", str(tmp_path / "A.json"),
                           "--past", str(tmp_path / "B.json")], capture_output=True, text=True, timeout=60)
    assert past.returncode == 0, past.stdout + past.stderr

    event = pack.read("event.html").decode()
    a, b, c = (draws[label]["code"] for label in "ABC")
    for label, draw in draws.items():
        assert draw["code"] in event
        for winner in winners[label]:
            assert winner in event, (label, winner)
    assert "void: %s (not present)" % voided in event
    assert "<td>Eve</td>" in event and "<td>owner</td>" in event  # who observed (signed off), who operated
    for later, earlier in ((b, a), (c, a), (c, b)):
        assert "<td>%s</td><td>%s</td>" % (later, earlier) in event
        assert "no winner of %s won again in %s" % (earlier, later) in event
    assert "No winner of an earlier draw won again in a later one" in event
    assert event.count('class="fail"') == 0 and event.count("verified: ") == 3
    # Drawn in that order, listed in that order.
    assert event.index(">%s</a>" % a) < event.index(">%s</a>" % b) < event.index(">%s</a>" % c)

    only = zipfile.ZipFile(io.BytesIO(alone))
    assert {n.split("/")[1] for n in only.namelist() if n.startswith("draws/")} == {a}
    assert "excludes the winners of no other draw" in only.read("event.html").decode()
