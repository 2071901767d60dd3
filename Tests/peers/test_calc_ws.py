"""`/ws/calc` and `POST /api/calc` checked by an independent peer: Python `websockets`
(pinned in Tests/browser/requirements.txt) against the real `tombola` binary.

Random key sequences go through the socket (pipelined, with and without permessage-deflate)
and must show exactly what `tombola calc --batch` shows for them: the channel adds and loses
nothing. Protocol rules (seq echo, duplicates, resume after a dropped connection, error
frames) are checked frame by frame.

    TOMBOLA_BIN (default .build/debug/tombola), CALC_WS_SEED, CALC_WS_COUNT.
"""

import json
import os
import random
import re
import subprocess
import tempfile
import urllib.error
import urllib.request

import pytest
from websockets.sync.client import connect

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BINARY = os.environ.get("TOMBOLA_BIN", os.path.join(ROOT, ".build", "debug", "tombola"))
SEED = int(os.environ.get("CALC_WS_SEED", "20261129"))
COUNT = int(os.environ.get("CALC_WS_COUNT", "300"))


class Tombola:
    """The server on 127.0.0.1 with a free port, read from its start-up banner."""

    def __init__(self):
        self.directory = tempfile.TemporaryDirectory(prefix="tombola-calc-peer-")
        public = os.path.join(self.directory.name, "Public")
        os.mkdir(public)
        with open(os.path.join(public, "index.html"), "w") as handle:
            handle.write("<!doctype html><title>peer</title>")
        self.process = subprocess.Popen(
            [BINARY, "--host", "127.0.0.1", "--port", "0", "--public", public,
             "--data", os.path.join(self.directory.name, "data")],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.port = None
        for line in self.process.stdout:
            match = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
            if match:
                self.port = int(match.group(1))
                break
        assert self.port, "tombola did not print its address"

    def calc(self, **options):
        options.setdefault("open_timeout", 10)
        options.setdefault("close_timeout", 5)
        return CalcSocket(connect(f"ws://127.0.0.1:{self.port}/ws/calc", **options))

    def post(self, body):
        request = urllib.request.Request(f"http://127.0.0.1:{self.port}/api/calc", data=body.encode(),
                                         headers={"Content-Type": "application/json"}, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                return response.status, json.loads(response.read())
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read())

    def stop(self):
        self.process.terminate()
        try:
            assert self.process.wait(timeout=10) == 0
        finally:
            self.process.kill()
            self.directory.cleanup()


class CalcSocket:
    def __init__(self, ws):
        self.ws = ws
        self.session = self.expect("hello")["session"]
        self.greeting = self.expect("display")

    def recv(self):
        return json.loads(self.ws.recv(timeout=10))

    def expect(self, kind):
        message = self.recv()
        assert message["type"] == kind, message
        return message

    def send(self, message):
        self.ws.send(message if isinstance(message, str) else json.dumps(message))

    def key(self, key, seq):
        self.send({"type": "key", "key": key, "seq": seq})
        reply = self.expect("display")
        assert reply["seq"] == seq
        return reply

    def close(self):
        self.ws.close()


@pytest.fixture(scope="module")
def server():
    tombola = Tombola()
    yield tombola
    tombola.stop()


DISPLAY_FIELDS = ["type", "seq", "display", "expression", "error", "message", "memory", "mode", "angle", "history"]

BASIC = list("0123456789") + [".", "neg", "+", "-", "*", "/", "=", "%", "sqrt", "sq", "inv", "back", "CE",
                              "MS", "MR", "M+", "M-"]
SCIENTIFIC = BASIC + ["(", ")", "^", "mod", "sin", "cos", "tan", "ln", "log", "exp", "abs", "pi", "e", "cube",
                      "cbrt", "fact"]


def random_sequences(rng, keys, count):
    digits = [k for k in keys if k.isdigit()]
    sequences = []
    for _ in range(count):
        sequence = []
        for _ in range(rng.randint(3, 24)):
            # Mostly digits, so numbers have several digits and operators have operands.
            sequence.append(rng.choice(digits) if rng.random() < 0.55 else rng.choice(keys))
        sequence.append("=")
        sequences.append(sequence)
    return sequences


def cli(sequences, mode, degrees):
    args = [BINARY, "calc", "--batch", "--mode", mode] + (["--deg"] if degrees else [])
    lines = "\n".join(" ".join(s) for s in sequences) + "\n"
    output = subprocess.run(args, input=lines, capture_output=True, text=True, timeout=300, check=True).stdout
    return output.splitlines()


@pytest.mark.parametrize("mode,degrees,compression", [
    ("basic", False, None), ("scientific", False, None), ("scientific", True, "deflate"),
])
def test_random_sequences_show_what_the_engine_shows(server, mode, degrees, compression):
    seed = SEED + {"basic": 0, "scientific": 1}[mode] + (2 if degrees else 0)
    rng = random.Random(seed)
    sequences = random_sequences(rng, BASIC if mode == "basic" else SCIENTIFIC, COUNT)
    expected = cli(sequences, mode, degrees)
    calc = server.calc(compression=compression)
    try:
        calc.send({"type": "mode", "mode": mode})
        assert calc.expect("display")["mode"] == mode
        calc.send({"type": "angle", "unit": "deg" if degrees else "rad"})
        calc.expect("display")
        seq = 0
        for index, sequence in enumerate(sequences):
            keys = ["C", "MC"] + sequence
            # Pipeline the whole sequence, then read one reply per key, in order.
            for key in keys:
                calc.send({"type": "key", "key": key, "seq": seq + 1})
                seq += 1
            replies = [calc.recv() for _ in keys]
            assert [r["seq"] for r in replies] == list(range(seq - len(keys) + 1, seq + 1)), f"seed {seed}"
            last = replies[-1]
            assert list(last.keys()) == DISPLAY_FIELDS
            shown = last["error"] or last["display"]  # `--batch` prints error codes
            assert shown == expected[index], f"seed {seed}: {' '.join(sequence)}"
    finally:
        calc.close()


def test_duplicate_keys_are_answered_but_applied_once(server):
    calc = server.calc()
    try:
        assert calc.key("4", 1)["display"] == "4"
        assert calc.key("4", 1)["display"] == "4"
        assert calc.key("2", 2)["display"] == "42"
        assert calc.key("9", 1)["display"] == "42"
    finally:
        calc.close()


def test_resume_after_a_dropped_connection_keeps_the_calculation(server):
    first = server.calc()
    for seq, key in enumerate(["1", "+", "2"], start=1):
        first.key(key, seq)
    old = first.session
    first.ws.socket.close()  # the network drops: no close frame

    second = server.calc()
    try:
        assert second.session != old
        second.send({"type": "resume", "session": old})
        assert second.expect("hello")["session"] == old
        resumed = second.expect("display")
        assert (resumed["display"], resumed["expression"], resumed["seq"]) == ("2", "1 +", 3)
        # The page resends its unanswered key 3 and sends 4.
        assert second.key("2", 3)["display"] == "2"
        assert second.key("=", 4)["display"] == "3"
    finally:
        second.close()


@pytest.mark.parametrize("message,code", [
    ("{", "bad_json"),
    ('{"type":"key","key":"1"}', "bad_request"),
    ('{"type":"key","key":"1","seq":2.0}', "bad_request"),
    ('{"type":"key","key":"nope","seq":2}', "unknown_key"),
    ('{"type":"jump"}', "unknown_type"),
    ('{"type":"resume","session":"00000000000000000000000000000000"}', "unknown_session"),
    ('{"type":"key","key":"1","seq":2,"x":"' + "y" * 5000 + '"}', "too_large"),
])
def test_errors_change_nothing(server, message, code):
    calc = server.calc()
    try:
        calc.key("5", 1)
        calc.send(message)
        error = calc.expect("error")
        assert error["code"] == code and error["message"]
        assert calc.key("1", 2)["display"] == "51"
    finally:
        calc.close()


def test_api_calc(server):
    status, body = server.post('{"keys":["0",".","1","+","0",".","2","="],"mode":"basic","angle":"rad"}')
    assert status == 200 and body["display"] == "0.3" and "seq" not in body
    status, body = server.post('{"keys":["1","x"]}')
    assert status == 400 and body["error"]["code"] == "unknown_key" and body["error"]["index"] == 1
    status, body = server.post(json.dumps({"keys": ["1"] * 10_001}))
    assert status == 413 and body["error"]["code"] == "too_large"
