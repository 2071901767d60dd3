"""`tombola beacon` fetches a drand round exactly as a beacon-sealed round does (docs/FAIRNESS.md
§13): libcurl against real test relays on 127.0.0.1 (tests/peers/drand_relay.py), each fault giving
its documented outcome — the value when a relay serves one whose BLS signature verifies under the
chain's key (relays serving anything else skipped and listed), else `void: <reason>`."""
import json
import os
import pathlib
import socket
import subprocess
import time

import pytest

from drand_relay import DrandChain, Relay, verify

ROOT = pathlib.Path(__file__).resolve().parents[2]
BIN = os.environ.get("TOMBOLA_BIN") or str(ROOT / ".build" / "debug" / "tombola")


@pytest.fixture(scope="module")
def chain():
    return DrandChain(secret=0x5EA1ED)


@pytest.fixture
def relays(chain):
    made = []

    def make(mode="ok", delay=0.0):
        relay = Relay(chain, mode=mode, delay=delay)
        made.append(relay)
        return relay
    yield make
    for relay in made:
        relay.close()


def fetch(chain, urls, target, *extra):
    args = [BIN, "beacon", str(target), "--chain", chain.hash, "--public-key", chain.public_key,
            "--genesis", str(chain.genesis), "--period", str(chain.period), "--allow-http", *extra]
    for url in urls:
        args += ["--relay", url]
    started = time.monotonic()
    result = subprocess.run(args, capture_output=True, text=True, timeout=60)
    return result, time.monotonic() - started


def test_two_agreeing_relays_give_the_signed_value(chain, relays):
    a, b = relays(), relays()
    number = chain.current_round() - 3
    result, _ = fetch(chain, [a.url, b.url], number)
    assert result.returncode == 0, result.stdout + result.stderr
    value = json.loads(result.stdout)
    assert value == dict(beaconRound=number, relays=[a.url, b.url], skipped=[],
                         **{k: chain.sign(number)[k] for k in ("randomness", "signature")})
    assert verify(chain.public_key, number, value["signature"])
    assert a.requests == ["/%s/public/%d" % (chain.hash, number)]


def test_next_waits_for_the_first_round_due_a_second_after_now(chain, relays):
    a, b = relays(), relays()
    before = time.time()
    result, took = fetch(chain, [a.url, b.url], "next")
    assert result.returncode == 0, result.stdout + result.stderr
    number = json.loads(result.stdout)["beaconRound"]
    assert chain.due(number) >= before + 1 and chain.due(number - 1) < before + 1 + 0.05
    assert took >= chain.due(number) - before - 0.1


SIGNATURE_PROBLEM = "signature does not verify under the chain's public key"


@pytest.mark.parametrize("mode,problem", [
    ("tamper-signature", SIGNATURE_PROBLEM),
    ("tamper-randomness", "randomness is not SHA-256(signature)"),
    ("past", "answered round {p}"),
])
def test_a_faulty_relay_is_skipped_and_recorded(chain, relays, mode, problem):
    bad, good = relays(mode), relays()
    number = chain.current_round() - 2
    result, _ = fetch(chain, [bad.url, good.url], number)
    assert result.returncode == 0, result.stdout
    value = json.loads(result.stdout)
    assert value["signature"] == chain.sign(number)["signature"] and value["relays"] == [good.url]
    assert value["skipped"] == [{"relay": bad.url, "problem": problem.format(p=number - 1)}]


def test_only_faulty_relays_void_at_once(chain, relays):
    a, b = relays("tamper-signature"), relays("past")
    number = chain.current_round() - 2
    result, took = fetch(chain, [a.url, b.url], number)
    assert result.returncode == 1
    assert result.stdout.strip() == "void: no relay served a valid round %d (%s: %s; %s: answered round %d)" % (
        number, a.url, SIGNATURE_PROBLEM, b.url, number - 1)
    assert took < 5


def test_a_value_signed_by_another_key_is_refused(chain, relays):
    # The relays serve a chain of the same hash path and timing whose key the server does not pin.
    other = DrandChain(secret=0xBAD, genesis=chain.genesis)
    other.hash = chain.hash
    a = Relay(other)
    try:
        number = chain.current_round() - 2
        result, _ = fetch(chain, [a.url], number)
        assert result.returncode == 1
        assert result.stdout.strip() == "void: no relay served a valid round %d (%s: %s)" % (number, a.url, SIGNATURE_PROBLEM)
    finally:
        a.close()


def test_a_slow_relay_answering_within_the_request_limit_still_counts(chain, relays):
    a, slow = relays(), relays("slow", delay=1.0)
    number = chain.current_round() - 2
    result, took = fetch(chain, [a.url, slow.url], number)
    assert result.returncode == 0, result.stdout
    assert json.loads(result.stdout)["relays"] == [a.url, slow.url] and took >= 1.0


def test_a_relay_slower_than_the_wait_limit_voids_the_round_when_it_is_the_only_one(chain, relays):
    slow = relays("slow", delay=5.0)
    number = chain.current_round() - 2
    result, took = fetch(chain, [slow.url], number, "--wait", "1500")
    assert result.returncode == 1
    assert result.stdout.startswith("void: no relay answered round %d in time (%s: " % (number, slow.url))
    assert "Timeout" in result.stdout or "timed out" in result.stdout
    assert 1.5 <= took < 10


def test_no_relay_voids_the_round_at_the_wait_limit(chain):
    holders = []
    urls = []
    for _ in range(2):
        s = socket.socket()
        s.bind(("127.0.0.1", 0))  # bound, not listening: refused
        holders.append(s)
        urls.append("http://127.0.0.1:%d" % s.getsockname()[1])
    number = chain.current_round() - 2
    result, took = fetch(chain, urls, number, "--wait", "1000")
    for s in holders:
        s.close()
    assert result.returncode == 1
    assert result.stdout.startswith("void: no relay answered round %d in time" % number)
    assert 1.0 <= took < 10


def test_plain_http_needs_to_be_allowed(chain, relays):
    a = relays()
    args = [BIN, "beacon", "5", "--chain", chain.hash, "--public-key", chain.public_key, "--genesis", str(chain.genesis),
            "--period", "3", "--relay", a.url]
    result = subprocess.run(args, capture_output=True, text=True, timeout=60)
    assert result.returncode == 1 and result.stdout.strip() == "void: relay %s is not https (plain http needs --allow-http)" % a.url
    assert a.requests == []
