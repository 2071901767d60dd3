"""The test relay's chain signs the quicknet way: real quicknet rounds (published vectors) and
the test chain's rounds verify with the same pairing check; tampered ones do not."""
import hashlib
import json
import urllib.request

from drand_relay import QUICKNET, Relay, DrandChain, verify

# Rounds of the League of Entropy's quicknet as its relays serve them (public data).
QUICKNET_ROUNDS = [
    {"round": 1000, "randomness": "fe290beca10872ef2fb164d2aa4442de4566183ec51c56ff3cd603d930e54fdd",
     "signature": "b44679b9a59af2ec876b1a6b1ad52ea9b1615fc3982b19576350f93447cb1125e342b73a8dd2bacbe47e4b6b63ed5e39"},
]


def test_real_quicknet_rounds_verify_with_the_pinned_key():
    for value in QUICKNET_ROUNDS:
        assert hashlib.sha256(bytes.fromhex(value["signature"])).hexdigest() == value["randomness"]
        assert verify(QUICKNET["publicKey"], value["round"], value["signature"])
        assert not verify(QUICKNET["publicKey"], value["round"] + 1, value["signature"])


def test_test_chain_signs_like_quicknet_and_the_relay_serves_it():
    chain = DrandChain(secret=123456789)
    relay = Relay(chain)
    try:
        number = chain.current_round() - 5
        with urllib.request.urlopen("%s/%s/public/%d" % (relay.url, chain.hash, number), timeout=10) as answer:
            value = json.load(answer)
        assert value == chain.sign(number)
        assert hashlib.sha256(bytes.fromhex(value["signature"])).hexdigest() == value["randomness"]
        assert verify(chain.public_key, number, value["signature"])
        assert not verify(QUICKNET["publicKey"], number, value["signature"])
        relay.mode = "tamper-signature"
        with urllib.request.urlopen("%s/%s/public/%d" % (relay.url, chain.hash, number), timeout=10) as answer:
            tampered = json.load(answer)
        assert tampered["signature"] != value["signature"]
        assert not verify(chain.public_key, number, tampered["signature"])
        try:
            urllib.request.urlopen("%s/%s/public/%d" % (relay.url, chain.hash, chain.current_round() + 10), timeout=10)
            raise AssertionError("a future round was served")
        except urllib.error.HTTPError as error:
            assert error.code == 425
    finally:
        relay.close()
