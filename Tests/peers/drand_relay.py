"""A drand test relay: a test chain whose BLS key the tests make, served over plain HTTP on
127.0.0.1 (tests cannot reach the internet), signing rounds exactly as quicknet does
(scheme bls-unchained-g1-rfc9380, docs/FAIRNESS.md §13):

    message   = SHA-256(u64be(round))
    signature = sk · hash_to_G1(message, DST)     (RFC 9380, DST below; 48 bytes compressed)
    publicKey = sk · G2                           (96 bytes compressed)
    randomness = SHA-256(signature)

`Relay(chain, mode=…)` serves `GET /{chainhash}/public/{round}` as drand's HTTP API does; a
round answers 425 before it is due. Modes give the faults the tests need: "ok", "tamper-
signature" (another valid-looking signature, randomness recomputed from it), "tamper-
randomness", "past" (answers the round before the one asked), "slow" (answers after `delay`
seconds), "big" (pads the answer past the server's size limit).
"""
import hashlib
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from py_ecc.bls.hash_to_curve import hash_to_G1
from py_ecc.bls.point_compression import compress_G1, compress_G2, decompress_G1, decompress_G2
from py_ecc.bls.typing import G1Compressed, G2Compressed
from py_ecc.optimized_bls12_381 import FQ12, G2, final_exponentiate, multiply, neg, pairing

DST = b"BLS_SIG_BLS12381G1_XMD:SHA-256_SSWU_RO_NUL_"

QUICKNET = {
    "hash": "52db9ba70e0cc0f6eaf7803dd07447a1f5477735fd3f661792ba94600c84e971",
    "publicKey": "83cf0f2896adee7eb8b5f01fcad3912212c437e0073e911fb90022d3e760183c8c4b450b6a0a6c3ac6a5776a2d1064510d1fec758c921cc22b0e17e63aaf4bcb5ed66304de9cf809bd274ca73bab4af5a6e9c76a4bc09e76eae8991ef5ece45a",
    "genesis": 1692803367,
    "period": 3,
}


def message(round_number):
    return hashlib.sha256(round_number.to_bytes(8, "big")).digest()


def g2_bytes(point):
    z1, z2 = compress_G2(point)
    return z1.to_bytes(48, "big") + z2.to_bytes(48, "big")


def verify(public_key_hex, round_number, signature_hex):
    """The BLS check: e(pk, H(m)) == e(G2, sig). About a second in pure Python."""
    pk = bytes.fromhex(public_key_hex)
    sig = bytes.fromhex(signature_hex)
    try:
        p = decompress_G2(G2Compressed((int.from_bytes(pk[:48], "big"), int.from_bytes(pk[48:], "big"))))
        s = decompress_G1(G1Compressed(int.from_bytes(sig, "big")))
    except (ValueError, AssertionError):
        return False
    h = hash_to_G1(message(round_number), DST, hashlib.sha256)
    product = pairing(p, h, final_exponentiate=False) * pairing(G2, neg(s), final_exponentiate=False)
    return final_exponentiate(product) == FQ12.one()


class DrandChain:
    """A chain of the quicknet scheme with a key of the test's own."""

    def __init__(self, secret=0x7E57C4A1, period=3, genesis=None):
        self.secret = secret
        self.period = period
        self.genesis = int(time.time()) - 3600 if genesis is None else genesis
        self.public_key = g2_bytes(multiply(G2, secret)).hex()
        info = {"public_key": self.public_key, "period": period, "genesis_time": self.genesis,
                "schemeID": "bls-unchained-g1-rfc9380"}
        self.hash = hashlib.sha256(json.dumps(info, sort_keys=True).encode()).hexdigest()
        self._signed = {}
        self._lock = threading.Lock()

    def due(self, round_number):
        return self.genesis + (round_number - 1) * self.period

    def current_round(self):
        return int((time.time() - self.genesis) // self.period) + 1

    def sign(self, round_number):
        with self._lock:
            if round_number not in self._signed:
                point = multiply(hash_to_G1(message(round_number), DST, hashlib.sha256), self.secret)
                self._signed[round_number] = compress_G1(point).to_bytes(48, "big").hex()
            signature = self._signed[round_number]
        return {"round": round_number, "randomness": hashlib.sha256(bytes.fromhex(signature)).hexdigest(),
                "signature": signature}

    def trust_flags(self):
        """The `tombola verify` flags that accept this chain's values (docs/FAIRNESS.md §13)."""
        return ["--trust-chain", "%s:%s" % (self.hash, self.public_key)]

    def flags(self):
        """The server flags that pin this chain (and allow plain-HTTP relays)."""
        return ["--beacon-chain", self.hash, "--beacon-public-key", self.public_key,
                "--beacon-genesis", str(self.genesis), "--beacon-period", str(self.period), "--beacon-allow-http"]


class Relay:
    """One relay of `chain` on 127.0.0.1 (a free port); `mode` may be changed while it runs."""

    def __init__(self, chain, mode="ok", delay=0.0):
        self.chain, self.mode, self.delay = chain, mode, delay
        self.requests = []
        relay = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                relay.requests.append(self.path)
                parts = self.path.strip("/").split("/")
                if len(parts) != 3 or parts[0] != relay.chain.hash or parts[1] != "public" or not parts[2].isdigit():
                    return self.reply(404, {"error": "not found"})
                number = int(parts[2])
                if relay.mode == "down":
                    return self.reply(503, {"error": "down"})
                if time.time() < relay.chain.due(number):
                    return self.reply(425, {"error": "round not yet available"})
                if relay.mode == "slow":
                    time.sleep(relay.delay)
                body = relay.answer(number)
                self.reply(200, body)

            def reply(self, status, body):
                data = json.dumps(body).encode()
                if relay.mode == "big" and status == 200:
                    data = b" " * 8192 + data
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Access-Control-Allow-Origin", "*")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = "http://127.0.0.1:%d" % self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def answer(self, number):
        if self.mode == "past":
            return self.chain.sign(number - 1)
        value = self.chain.sign(number)
        if self.mode == "tamper-signature":
            other = self.chain.sign(number + 1000)["signature"]  # a valid G1 point, wrong round
            value = {"round": number, "signature": other,
                     "randomness": hashlib.sha256(bytes.fromhex(other)).hexdigest()}
        elif self.mode == "tamper-randomness":
            value = dict(value, randomness=hashlib.sha256(b"tampered").hexdigest())
        return value

    def close(self):
        self.server.shutdown()
        self.server.server_close()
