"""Issue #47 item 1 (docs/FAIRNESS.md §17): a real `tombola` signs every record it stores with its
Ed25519 key, prints the key's fingerprint in its banner and serves the key at GET /api/server/key;
the export carries the signatures, the key and its rotations. `tombola verify --key` and the
independent script of §12 check every signature against the served key, an OpenSSL check agrees,
and forged exports are refused: a record re-hashed without re-signing, a signature by another key
(under its own name or the server's), the key swapped without its rotation, another key expected.
"""
import copy
import hashlib
import json
import re
import subprocess
import sys

from test_draw_export import CODE, Tombola, data_dir  # noqa: F401 (the fixture is used by name)
from test_fairness_script import rehash, script, tombola_binary  # noqa: F401
from test_cluster import cluster  # noqa: F401 (the fixture is used by name)

DER_PREFIX = bytes.fromhex("302a300506032b6570032100")  # SubjectPublicKeyInfo of an Ed25519 key (RFC 8410)


def check(binary, script_path, export, tmp_path, key):
    path = tmp_path / "export.json"
    path.write_text(json.dumps(export, ensure_ascii=False), encoding="utf-8")
    swift = subprocess.run([binary, "verify", str(path), "--key", key], capture_output=True, text=True, timeout=60)
    python = subprocess.run([sys.executable, str(script_path), "--key", key, str(path)], capture_output=True, text=True, timeout=60)
    return swift, python


def openssl(*args, data=None):
    return subprocess.run(["openssl", *args], input=data, capture_output=True, timeout=30)


def test_every_record_is_signed_with_the_served_key_and_forgeries_are_refused(script, data_dir, tmp_path):
    binary = tombola_binary()
    server = Tombola(data_dir)
    try:
        status, first_key = server.json("GET", "/api/server/key")
        assert status == 200 and first_key["algorithm"] == "Ed25519" and first_key["rotations"] == []
        assert first_key["fingerprint"] == hashlib.sha256(bytes.fromhex(first_key["publicKey"])).hexdigest()
        shown = re.search(r"Signing key: ([0-9a-f ]+) \(Ed25519, (\S+)\)", server.banner)
        assert shown and shown.group(1).replace(" ", "") == first_key["fingerprint"], server.banner
        assert shown.group(2) == server.base + "/api/server/key"
        assert server.command("start")[0] == 200 and server.command("stop")[0] == 200
    finally:
        server.stop()
    # The key is rotated with the server stopped: the old key signs the hand-over.
    rotated = subprocess.run([binary, "rotate-signing-key", "--data", data_dir], capture_output=True, text=True, timeout=30)
    assert rotated.returncode == 0, rotated.stderr
    server = Tombola(data_dir)
    try:
        status, key = server.json("GET", "/api/server/key")
        assert status == 200 and key["publicKey"] != first_key["publicKey"]
        assert [r["old"] for r in key["rotations"]] == [first_key["publicKey"]] and key["rotations"][0]["new"] == key["publicKey"]
        assert server.command("start")[0] == 200 and server.command("stop")[0] == 200
        status, export = server.json("GET", "/api/draws/%s/export.json" % CODE)
        assert status == 200
    finally:
        server.stop()
    signatures = export["signatures"]
    assert {k: signatures[k] for k in ("algorithm", "publicKey", "fingerprint", "rotations")} == key
    by_key = [signatures["records"][str(r["index"])]["key"] for r in export["records"]]
    assert set(by_key) == {first_key["fingerprint"], key["fingerprint"]} and by_key[0] == first_key["fingerprint"]
    assert by_key[-1] == key["fingerprint"]

    swift, python = check(binary, script, export, tmp_path, key["publicKey"])
    assert swift.returncode == 0, swift.stdout + swift.stderr
    assert "signatures: %d records signed: OK" % len(export["records"]) in swift.stdout
    assert python.returncode == 0, python.stdout + python.stderr
    assert "signatures: %d records signed by it, 0 unsigned" % len(export["records"]) in python.stdout

    # OpenSSL, a third implementation, accepts the last record's signature under the served key.
    last = export["records"][-1]
    message = ("tombola-record-v1:%s:%s" % (CODE, last["hash"])).encode()
    (tmp_path / "pub.der").write_bytes(DER_PREFIX + bytes.fromhex(key["publicKey"]))
    (tmp_path / "msg").write_bytes(message)
    (tmp_path / "sig").write_bytes(bytes.fromhex(signatures["records"][str(last["index"])]["signature"]))
    verified = openssl("pkeyutl", "-verify", "-pubin", "-keyform", "DER", "-inkey", str(tmp_path / "pub.der"), "-rawin",
                       "-in", str(tmp_path / "msg"), "-sigfile", str(tmp_path / "sig"))
    assert verified.returncode == 0, verified.stdout + verified.stderr

    # Another key (made by OpenSSL) signs the last record's true hash.
    assert openssl("genpkey", "-algorithm", "ed25519", "-out", str(tmp_path / "other.pem")).returncode == 0
    other_sig = openssl("pkeyutl", "-sign", "-inkey", str(tmp_path / "other.pem"), "-rawin", "-in", str(tmp_path / "msg")).stdout
    other_pub = openssl("pkey", "-in", str(tmp_path / "other.pem"), "-pubout", "-outform", "DER").stdout[-32:]
    assert len(other_sig) == 64 and len(other_pub) == 32

    def rehashed_without_resigning(d):
        d["records"][-1]["at"] += 1000
        rehash(d["records"][-1])

    def signed_by_another_key(d):
        d["signatures"]["records"][str(last["index"])] = {"key": hashlib.sha256(other_pub).hexdigest(), "signature": other_sig.hex()}

    def another_key_under_the_servers_name(d):
        d["signatures"]["records"][str(last["index"])]["signature"] = other_sig.hex()

    def another_records_signature(d):
        d["signatures"]["records"][str(last["index"])] = d["signatures"]["records"][str(last["index"] - 1)]

    def key_swapped_without_its_rotation(d):
        d["signatures"]["rotations"] = []

    for forge in (rehashed_without_resigning, signed_by_another_key, another_key_under_the_servers_name,
                  another_records_signature, key_swapped_without_its_rotation):
        forged = copy.deepcopy(export)
        forge(forged)
        swift, python = check(binary, script, forged, tmp_path, key["publicKey"])
        assert swift.returncode == 1 and "FAIL" in swift.stdout, forge.__name__ + swift.stdout
        assert python.returncode == 1 and "FAIL" in python.stdout, forge.__name__ + python.stdout
        if forge is rehashed_without_resigning:
            # The chain itself still verifies: only the signature tells.
            assert [line for line in python.stdout.splitlines() if "FAIL" in line] == \
                ["#%d signature: FAIL: does not match the record's hash" % last["index"]], python.stdout
    # The right export, another key expected (the reader trusts a different server).
    swift, python = check(binary, script, export, tmp_path, hashlib.sha256(other_pub).hexdigest())
    assert swift.returncode == 1 and python.returncode == 1


def test_a_cluster_key_change_is_handed_over_on_the_record(cluster, script, tmp_path):
    """Cluster mode (docs/CLUSTER.md): the signing key follows the cluster key; `tombola
    rotate-signing-key --redis … --cluster-key OLD --new-cluster-key NEW` has the old key sign the
    new one into Redis, an instance restarted with NEW carries that hand-over in its export and its
    served key, and both verifiers pass records signed by either key; without the hand-over the
    change is refused."""
    from test_cluster import CODE as CLUSTER_CODE, Instance
    binary = tombola_binary()
    first = cluster.start()
    assert first.command("start")[0] == 200 and first.command("stop")[0] == 200
    old_key = first.json("GET", "/api/server/key")[1]
    first.stop()
    old_file, new_file = tmp_path / "cluster.key", tmp_path / "new-cluster.key"
    new_file.write_bytes(bytes(range(32)))
    rotate = [binary, "rotate-signing-key", *cluster.redis.args, "--cluster-key", str(old_file), "--new-cluster-key", str(new_file)]
    rotated = subprocess.run(rotate, capture_output=True, text=True, timeout=30)
    assert rotated.returncode == 0, rotated.stderr
    # A second hand-over from the old key would fork the chain: refused, nothing written.
    again = subprocess.run(rotate, capture_output=True, text=True, timeout=30)
    assert again.returncode == 1 and "is not to the key of --cluster-key" in again.stderr, again.stderr
    assert cluster.redis.cli("LLEN", "tombola:signing-rotations") == "1"

    second = Instance(cluster.redis, str(new_file))
    cluster.instances.append(second)
    assert second.command("start")[0] == 200 and second.command("stop")[0] == 200
    new_key = second.json("GET", "/api/server/key")[1]
    assert new_key["publicKey"] != old_key["publicKey"] and len(new_key["rotations"]) == 1
    assert (new_key["rotations"][0]["old"], new_key["rotations"][0]["new"]) == (old_key["publicKey"], new_key["publicKey"])
    assert new_key["fingerprint"] in rotated.stdout.replace(" ", "")
    status, export = second.json("GET", "/api/draws/%s/export.json" % CLUSTER_CODE)
    assert status == 200 and export["signatures"]["rotations"] == new_key["rotations"]
    keys = {entry["key"] for entry in export["signatures"]["records"].values()}
    assert keys == {old_key["fingerprint"], new_key["fingerprint"]}, keys
    swift, python = check(binary, script, export, tmp_path, new_key["fingerprint"])
    assert swift.returncode == 0, swift.stdout + swift.stderr
    assert python.returncode == 0, python.stdout + python.stderr
    # The same export without the hand-over: the old key's records are refused.
    forged = copy.deepcopy(export)
    forged["signatures"]["rotations"] = []
    swift, python = check(binary, script, forged, tmp_path, new_key["fingerprint"])
    assert swift.returncode == 1 and python.returncode == 1, swift.stdout + python.stdout
