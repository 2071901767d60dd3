"""Beacon-sealed rounds (docs/FAIRNESS.md §13) in an export: the FAIRNESS.md script and
`tombola verify` agree on the engine's sample (sealed by quicknet round 1000, a real value) and
refuse a tampered randomness; a value signed by another key, with every hash and winner
recomputed to match, is caught by the BLS check of `tombola verify` and of the script's `--bls`;
`tombola verify` refuses a chain claiming quicknet's hash with another key, and a private chain
unless told to trust it (`--trust-chain HASH:KEY`)."""
import hashlib
import importlib.util
import json
import pathlib
import subprocess
import sys

from drand_relay import DrandChain
from test_fairness_script import rehash, run, script, tombola_binary  # noqa: F401 (fixture)

FIXTURE = pathlib.Path(__file__).with_name("fixtures") / "sample-export-beacon.json"


def load():
    return json.loads(FIXTURE.read_text(encoding="utf-8"))


def rechain(records, start):
    for i in range(start, len(records)):
        records[i]["prev"] = records[i - 1]["hash"]
        rehash(records[i])


def run_bls(script, data, tmp_path):
    path = tmp_path / "export.json"
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return subprocess.run([sys.executable, str(script), "--bls", str(path)], capture_output=True, text=True, timeout=300)


def tombola_verify(data, tmp_path, *flags):
    path = tmp_path / "export.json"
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return subprocess.run([tombola_binary(), "verify", str(path), *flags], capture_output=True, text=True, timeout=60)


def load_script(script):
    spec = importlib.util.spec_from_file_location("verify_tombola", script)
    v = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(v)
    return v


def forge(script, data, signer, chain=None):
    """Re-seal the sample's round 2 with `signer`'s round 1000 (and, with `chain`, its lock naming
    that chain), recomputing every hash, the beacon key and the winners as a forger would."""
    v = load_script(script)
    records = data["records"]
    i = next(j for j, r in enumerate(records) if r["kind"] == "beaconValue")
    if chain is not None:
        first = next(j for j, r in enumerate(records) if r["kind"] == "beacon")
        for r in records:
            if r["kind"] == "beacon":
                r["chain"] = dict(r["chain"], **chain)
        rechain(records, first)
    signed = signer.sign(1000)
    records[i].update(signature=signed["signature"], randomness=signed["randomness"], lock=records[i - 1]["hash"])
    rehash(records[i])
    rnd = records[i + 1]
    lists = {r["entrantsHash"]: r for r in records if r["kind"] == "entrants"}
    key = hashlib.sha256(b"tombola-drand-v1\x00" + bytes.fromhex(records[i - 1]["hash"])
                         + bytes.fromhex(signed["randomness"])).digest()
    n, element, _ = v.eligible(rnd["pool"], lists)
    rnd["winners"] = [element(p) for p in v.positions(key, rnd["round"], rnd["poolHash"], rnd["entropy"], n, len(rnd["winners"]))]
    rechain(records, i + 1)
    return data


def test_beacon_fixture_is_what_the_engine_produces_now():
    expected = FIXTURE.read_text(encoding="utf-8").strip()
    produced = subprocess.run([tombola_binary(), "verify", "--sample-export", "beacon"], capture_output=True, text=True,
                              timeout=60, check=True)
    assert produced.stdout.strip() == expected


def test_script_and_tombola_verify_check_the_sealed_round_and_its_signature(script, tmp_path):
    data = load()
    kinds = [r["kind"] for r in data["records"]]
    assert kinds.count("beacon") == 2 and kinds.count("beaconVoid") == 1 and kinds.count("beaconValue") == 1
    result = run(script, data, tmp_path)
    assert result.returncode == 0, result.stdout
    assert "#7 note: drand round 996 voided: abandoned by the host: no relay answered round 996" in result.stdout
    own = tombola_verify(data, tmp_path)
    assert own.returncode == 0, own.stdout
    assert "#9 drand round 1000: OK (BLS signature verified under drand quicknet's pinned key)" in own.stdout
    bls = run_bls(script, data, tmp_path)
    assert bls.returncode == 0 and "#9 drand round 1000 signature: OK" in bls.stdout, bls.stdout + bls.stderr


def test_tampered_randomness_is_refused_by_both(script, tmp_path):
    data = load()
    records = data["records"]
    i = next(j for j, r in enumerate(records) if r["kind"] == "beaconValue")
    records[i]["randomness"] = hashlib.sha256(b"tampered").hexdigest()
    rechain(records, i)
    rehash(records[i])
    rechain(records, i + 1)
    result = run(script, data, tmp_path)
    assert result.returncode == 1 and "#9 beaconValue 2: FAIL: randomness is not SHA-256(signature)" in result.stdout
    own = tombola_verify(data, tmp_path)
    assert own.returncode == 1 and "#9 beaconValue 2: FAIL: randomness is not SHA-256(signature)" in own.stdout


def test_a_value_signed_by_another_key_is_refused_by_the_bls_checks(script, tmp_path):
    data = forge(script, load(), DrandChain(secret=987654321, genesis=1692803367))  # the quicknet scheme, another key
    assert run(script, data, tmp_path).returncode == 0  # every record and winner rechecks
    own = tombola_verify(data, tmp_path)
    assert own.returncode == 1 and "#9 drand round 1000: FAIL: its BLS signature does not verify under drand quicknet's pinned key" \
        in own.stdout, own.stdout
    assert own.stdout.count("FAIL") == 1
    bls = run_bls(script, data, tmp_path)
    assert bls.returncode == 1 and "#9 drand round 1000 signature: FAIL: not signed by the chain's key" in bls.stdout


def test_quicknets_hash_with_another_key_is_refused(script, tmp_path):
    own_chain = DrandChain(secret=987654321, genesis=1692803367)
    data = forge(script, load(), own_chain, chain={"publicKey": own_chain.public_key})
    assert run(script, data, tmp_path).returncode == 0
    own = tombola_verify(data, tmp_path)
    assert own.returncode == 1 and own.stdout.count("FAIL") == 1, own.stdout
    assert "#9 drand round 1000: FAIL: the chain claims quicknet's hash with another public key, genesis or period" in own.stdout


def test_a_private_chain_is_refused_unless_trusted(script, tmp_path):
    own_chain = DrandChain(secret=987654321, genesis=1692803367)
    data = forge(script, load(), own_chain, chain={"publicKey": own_chain.public_key, "hash": own_chain.hash})
    own = tombola_verify(data, tmp_path)
    assert own.returncode == 1 and own.stdout.count("FAIL") == 1, own.stdout
    assert "#9 drand round 1000: FAIL: chain %s… is not drand's quicknet" % own_chain.hash[:12] in own.stdout
    trusted = tombola_verify(data, tmp_path, *own_chain.trust_flags())
    assert trusted.returncode == 0, trusted.stdout
    assert "#9 drand round 1000: OK (BLS signature verified under the key of chain %s…" % own_chain.hash[:12] in trusted.stdout
    # Trusting the hash with another key trusts nothing.
    other = DrandChain(secret=5, genesis=1692803367)
    wrong = tombola_verify(data, tmp_path, "--trust-chain", "%s:%s" % (own_chain.hash, other.public_key))
    assert wrong.returncode == 1


def test_a_lock_naming_a_later_drand_round_than_the_first_due_is_refused_by_both(script, tmp_path):
    """Issue #40: R is exactly the first round due 1 s after the lock. A server that waited and named a
    later R (here: the lock dated 3 s earlier, so round 999 was the first due, yet it names 1000), with
    the beacon key and the winners recomputed as a forger would, is refused by both verifiers."""
    v = load_script(script)
    data = load()
    records = data["records"]
    i = next(j for j, r in enumerate(records) if r["kind"] == "beaconValue")
    records[i - 2]["at"] -= 3000  # the void before it, so the times stay in order
    records[i - 1]["at"] -= 3000
    rechain(records, i - 2)
    records[i]["lock"] = records[i - 1]["hash"]
    rehash(records[i])
    rnd = records[i + 1]
    lists = {r["entrantsHash"]: r for r in records if r["kind"] == "entrants"}
    key = hashlib.sha256(b"tombola-drand-v1\x00" + bytes.fromhex(records[i - 1]["hash"])
                         + bytes.fromhex(records[i]["randomness"])).digest()
    n, element, _ = v.eligible(rnd["pool"], lists)
    rnd["winners"] = [element(p) for p in v.positions(key, rnd["round"], rnd["poolHash"], rnd["entropy"], n, len(rnd["winners"]))]
    rechain(records, i + 1)
    result = run(script, data, tmp_path)
    for out in (result, tombola_verify(data, tmp_path)):
        assert out.returncode == 1, out.stdout
        # the first failure is the lock's (what follows a refused lock fails with it)
        first = next(line for line in out.stdout.splitlines() if "FAIL" in line)
        assert first == "#8 beacon 2: FAIL: drand round later than the first due after the lock", out.stdout
