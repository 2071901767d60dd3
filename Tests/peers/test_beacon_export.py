"""Beacon-sealed rounds (docs/FAIRNESS.md §13) in an export: the FAIRNESS.md script and
`tombola verify` agree on the engine's sample (sealed by quicknet round 1000, a real value),
refuse a tampered randomness, and only the script's `--bls` pairing check catches a value
signed by another key with every hash and winner recomputed to match."""
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


def tombola_verify(data, tmp_path):
    path = tmp_path / "export.json"
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return subprocess.run([tombola_binary(), "verify", str(path)], capture_output=True, text=True, timeout=60)


def test_beacon_fixture_is_what_the_engine_produces_now():
    expected = FIXTURE.read_text(encoding="utf-8").strip()
    produced = subprocess.run([tombola_binary(), "verify", "--sample-export", "beacon"], capture_output=True, text=True,
                              timeout=60, check=True)
    assert produced.stdout.strip() == expected


def test_script_and_tombola_verify_check_the_sealed_round_and_print_the_pairing_command(script, tmp_path):
    data = load()
    kinds = [r["kind"] for r in data["records"]]
    assert kinds.count("beacon") == 2 and kinds.count("beaconVoid") == 1 and kinds.count("beaconValue") == 1
    result = run(script, data, tmp_path)
    assert result.returncode == 0, result.stdout
    assert "#7 note: drand round 999 voided: relays disagree on round 999" in result.stdout
    own = tombola_verify(data, tmp_path)
    assert own.returncode == 0, own.stdout
    assert "drand round(s) 1000" in own.stdout and "verify_tombola.py --bls" in own.stdout
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


def test_a_value_signed_by_another_key_fails_only_the_pairing(script, tmp_path):
    spec = importlib.util.spec_from_file_location("verify_tombola", script)
    v = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(v)
    data = load()
    records = data["records"]
    i = next(j for j, r in enumerate(records) if r["kind"] == "beaconValue")
    forged = DrandChain(secret=987654321).sign(1000)  # the quicknet scheme, another key
    records[i].update(signature=forged["signature"], randomness=forged["randomness"])
    rehash(records[i])
    # A forger recomputes the winners from the forged randomness, and every later hash.
    rnd = records[i + 1]
    lists = {r["entrantsHash"]: r for r in records if r["kind"] == "entrants"}
    key = hashlib.sha256(b"tombola-drand-v1\x00" + bytes.fromhex(records[i - 1]["hash"])
                         + bytes.fromhex(forged["randomness"])).digest()
    n, element, _ = v.eligible(rnd["pool"], lists)
    rnd["winners"] = [element(p) for p in v.positions(key, rnd["round"], rnd["poolHash"], rnd["entropy"], n, len(rnd["winners"]))]
    rechain(records, i + 1)
    assert run(script, data, tmp_path).returncode == 0
    assert tombola_verify(data, tmp_path).returncode == 0
    bls = run_bls(script, data, tmp_path)
    assert bls.returncode == 1 and "#9 drand round 1000 signature: FAIL: not signed by the chain's key" in bls.stdout
