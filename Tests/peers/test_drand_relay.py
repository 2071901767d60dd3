"""The test relay's chain signs the quicknet way: real quicknet rounds (published vectors) and
the test chain's rounds verify with the same pairing check; tampered ones do not."""
import hashlib
import json
import urllib.request

from drand_relay import QUICKNET, Relay, DrandChain, verify

# Rounds of the League of Entropy's quicknet as its relays serve them (public data).
QUICKNET_ROUNDS = [
    {"round": 1, "randomness": "1466a6cd24e327188770752f6134001c64d6efcc590ccc26b721611ad96f165a",
     "signature": "b55e7cb2d5c613ee0b2e28d6750aabbb78c39dcc96bd9d38c2c2e12198df95571de8e8e402a0cc48871c7089a2b3af4b"},
    {"round": 2, "randomness": "5782d6987841c654515a0e72b2d1ebb4e741234042c37cb19608ae50d93fb60c",
     "signature": "b6b6a585449b66eb12e875b64fcbab3799861a00e4dbf092d99e969a5eac57dd3f798acf61e705fe4f093db926626807"},
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
