"""Issue #47 item 2 (docs/FAIRNESS.md §18): with `--tsa URL` a real `tombola` has the chain head
after each round's record time-stamped (RFC 3161) by that authority; the answers travel in the
export, `openssl ts -verify` accepts each for its record's hash under the TSA's CA, and
`tombola verify --tsa-ca` and the script of §12 check them; a time-stamp moved onto another record
(a time-stamp of another hash) is refused by both, and another CA does not verify it.
The TSA is a local one: a test CA and `openssl ts -reply` behind a small HTTP server on loopback."""
import copy
import json
import re
import subprocess
import sys
import time

from local_tsa import LocalTSA
from test_draw_export import CODE, Tombola, data_dir  # noqa: F401 (the fixture is used by name)
from test_fairness_script import script, tombola_binary  # noqa: F401
from test_cluster import CODE as CLUSTER_CODE, cluster  # noqa: F401 (the fixture is used by name)


def test_each_rounds_chain_head_is_time_stamped_and_checks_with_openssl(script, data_dir, tmp_path):
    binary = tombola_binary()
    tsa = LocalTSA(tmp_path / "tsa")
    other = LocalTSA(tmp_path / "other-tsa")
    other.close()
    server = Tombola(data_dir, extra=("--tsa", tsa.url))
    try:
        for _ in range(2):
            assert server.command("start")[0] == 200 and server.command("stop")[0] == 200
        deadline = time.time() + 20
        while True:
            status, export = server.json("GET", "/api/draws/%s/export.json" % CODE)
            if status == 200 and len(export.get("timestamps", {})) == 2:
                break
            assert time.time() < deadline, "no time-stamps in the export: %r" % export.get("timestamps")
            time.sleep(0.1)
    finally:
        server.stop()
        tsa.close()
    records = export["records"]
    stamps = export["timestamps"]
    # The chain head stored with each round's record: the record after the round (the next commitment).
    rounds = [r["index"] for r in records if r["kind"] == "round"]
    assert sorted(int(i) for i in stamps) == [i + 1 for i in rounds], (rounds, sorted(stamps))
    for name, stamp in stamps.items():
        assert stamp["hash"] == records[int(name)]["hash"] and stamp["tsa"] == tsa.url
        path = tmp_path / ("stamp-%s.tsr" % name)
        path.write_bytes(bytes.fromhex(stamp["response"]))
        checked = subprocess.run(["openssl", "ts", "-verify", "-digest", stamp["hash"], "-in", str(path), "-CAfile", tsa.ca],
                                 capture_output=True, text=True, timeout=30)
        assert checked.returncode == 0 and "Verification: OK" in checked.stdout, checked.stdout + checked.stderr
        assert re.fullmatch(r"\d{14}Z", stamp["genTime"]), stamp["genTime"]

    def run(data, *flags):
        path = tmp_path / "export.json"
        path.write_text(json.dumps(data), encoding="utf-8")
        swift = subprocess.run([binary, "verify", str(path), *flags], capture_output=True, text=True, timeout=60)
        python = subprocess.run([sys.executable, str(script), str(path)], capture_output=True, text=True, timeout=60)
        return swift, python

    swift, python = run(export, "--tsa-ca", tsa.ca)
    assert swift.returncode == 0, swift.stdout + swift.stderr
    assert swift.stdout.count("OK (signature checked)") == 2, swift.stdout
    assert python.returncode == 0, python.stdout + python.stderr
    assert python.stdout.count("time-stamp by %s at " % tsa.url) == 2, python.stdout
    # Another CA: the hashes still match, the signature does not chain to it.
    swift, _ = run(export, "--tsa-ca", other.ca)
    assert swift.returncode == 1 and "does not chain" in swift.stdout, swift.stdout
    # A time-stamp moved onto another record (named with that record's hash): of another hash.
    forged = copy.deepcopy(export)
    first = sorted(stamps, key=int)[0]
    moved = forged["timestamps"].pop(first)
    moved["hash"] = records[0]["hash"]
    forged["timestamps"]["0"] = moved
    swift, python = run(forged)
    assert swift.returncode == 1 and "#0 time-stamp: FAIL" in swift.stdout, swift.stdout
    assert python.returncode == 1 and "#0 time-stamp: FAIL" in python.stdout, python.stdout


def test_cluster_instances_time_stamp_the_owners_rounds_for_every_instances_export(cluster, tmp_path):
    """Cluster mode (docs/CLUSTER.md): the owner of the draw asks the TSA after each round and keeps
    the answer in Redis beside the round log; an export from another instance carries it, and
    `tombola verify --tsa-ca` checks it."""
    tsa = LocalTSA(tmp_path / "tsa")
    try:
        owner = cluster.start(("--tsa", tsa.url))
        follower = cluster.start(("--tsa", tsa.url))
        assert cluster.owner() is owner
        for _ in range(2):
            assert follower.command("start")[0] == 200 and follower.command("stop")[0] == 200
        deadline = time.time() + 20
        while True:
            status, export = follower.json("GET", "/api/draws/%s/export.json" % CLUSTER_CODE)
            if status == 200 and len(export.get("timestamps", {})) == 2:
                break
            assert time.time() < deadline, "no time-stamps in the follower's export: %r" % export.get("timestamps")
            time.sleep(0.1)
    finally:
        tsa.close()
    records = export["records"]
    rounds = [r["index"] for r in records if r["kind"] == "round"]
    assert sorted(int(i) for i in export["timestamps"]) == [i + 1 for i in rounds]
    path = tmp_path / "export.json"
    path.write_text(json.dumps(export), encoding="utf-8")
    checked = subprocess.run([tombola_binary(), "verify", str(path), "--tsa-ca", tsa.ca], capture_output=True, text=True, timeout=60)
    assert checked.returncode == 0 and checked.stdout.count("OK (signature checked)") == 2, checked.stdout
