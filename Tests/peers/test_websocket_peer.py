"""The strict, independent WebSocket peer: Python `websockets` (pinned in requirements.txt)
against the real `tombola` binary's `/ws/echo` (only served with --echo-endpoint).

TOMBOLA_BIN points at the binary (default .build/debug/tombola)."""

import base64
import os
import re
import socket
import struct
import subprocess
import tempfile
import urllib.error
import urllib.request
import zlib

import pytest
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.extensions.permessage_deflate import ClientPerMessageDeflateFactory
from websockets.sync.client import connect

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BINARY = os.environ.get("TOMBOLA_BIN", os.path.join(ROOT, ".build", "debug", "tombola"))


class Tombola:
    """The server on 127.0.0.1 with a free port, read from its start-up banner."""

    def __init__(self, *flags):
        self.directory = tempfile.TemporaryDirectory(prefix="tombola-peer-")
        public = os.path.join(self.directory.name, "Public")
        os.mkdir(public)
        with open(os.path.join(public, "index.html"), "w") as handle:
            handle.write("<!doctype html><title>peer</title>")
        self.process = subprocess.Popen(
            [BINARY, "--host", "127.0.0.1", "--port", "0", "--public", public,
             "--data", os.path.join(self.directory.name, "data"), *flags],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.port = None
        for line in self.process.stdout:
            match = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
            if match:
                self.port = int(match.group(1))
                break
        assert self.port, "tombola did not print its address"

    def url(self, path="/ws/echo"):
        return f"ws://127.0.0.1:{self.port}{path}"

    def stop(self):
        self.process.terminate()
        try:
            assert self.process.wait(timeout=10) == 0
        finally:
            self.process.kill()
            self.directory.cleanup()


@pytest.fixture(scope="module")
def server():
    tombola = Tombola("--echo-endpoint")
    yield tombola
    tombola.stop()


def open_echo(server, **options):
    options.setdefault("open_timeout", 10)
    options.setdefault("close_timeout", 5)
    return connect(server.url(), **options)


@pytest.mark.parametrize("compression", [None, "deflate"])
def test_echoes_text_and_binary(server, compression):
    with open_echo(server, compression=compression) as ws:
        extensions = ws.response.headers.get("Sec-WebSocket-Extensions")
        if compression:
            assert extensions is not None and extensions.startswith("permessage-deflate")
        else:
            assert extensions is None
        for message in ["hello", "", "抽奖 🎉", b"\x00\x01\xff", b"", "x" * 5000, bytes(range(256)) * 40]:
            ws.send(message)
            assert ws.recv(timeout=5) == message


@pytest.mark.parametrize("compression", [None, "deflate"])
def test_echoes_a_large_message(server, compression):
    payload = os.urandom(2 << 20) + b"tombola" * 300_000  # random and compressible parts
    with open_echo(server, compression=compression, max_size=None) as ws:
        ws.send(payload)
        assert ws.recv(timeout=60) == payload


@pytest.mark.parametrize("offer", [
    dict(),
    dict(server_no_context_takeover=True),
    dict(client_no_context_takeover=True),
    dict(server_max_window_bits=9),
    dict(server_max_window_bits=8),  # Autobahn 13.x offers it; zlib cannot, so we send Huffman-only
    dict(client_max_window_bits=True),
    dict(client_max_window_bits=10, client_no_context_takeover=True),
    dict(server_max_window_bits=12, client_max_window_bits=12),
])
def test_echoes_under_each_permessage_deflate_offer(server, offer):
    factory = ClientPerMessageDeflateFactory(**offer)
    with open_echo(server, extensions=[factory], compression=None, max_size=None) as ws:
        assert ws.response.headers["Sec-WebSocket-Extensions"].startswith("permessage-deflate")
        messages = ["tombola " * 2000, os.urandom(70_000), "short", b"", "抽奖" * 5000]
        for message in messages:  # in a row, so any shared context would show
            ws.send(message)
        for message in messages:
            assert ws.recv(timeout=20) == message


def test_reassembles_compressed_fragments(server):
    with open_echo(server, compression="deflate") as ws:
        ws.send(["tombola " * 500, "rolls " * 500, "on"])
        assert ws.recv(timeout=5) == "tombola " * 500 + "rolls " * 500 + "on"


def test_reassembles_fragmented_messages(server):
    with open_echo(server, compression=None) as ws:
        ws.send(["Hel", "lo, ", "world"])
        assert ws.recv(timeout=5) == "Hello, world"
        ws.send([b"\x01", b"\x02\x03"])
        assert ws.recv(timeout=5) == b"\x01\x02\x03"


def test_answers_pings(server):
    with open_echo(server) as ws:
        assert ws.ping(b"tombola").wait(timeout=5)


@pytest.mark.parametrize("code", [1000, 1001, 3000, 4999])
def test_echoes_close_codes(server, code):
    ws = open_echo(server)
    ws.close(code=code, reason="bye")
    assert ws.protocol.close_rcvd is not None
    assert ws.protocol.close_rcvd.code == code


def test_refuses_a_message_over_16_mib_with_1009(server):
    with open_echo(server, compression=None, max_size=None) as ws:
        ws.send(b"\x00" * (16 << 20))  # exactly the limit: accepted
        assert len(ws.recv(timeout=60)) == 16 << 20
        with pytest.raises(ConnectionClosed):
            ws.send(b"\x00" * ((16 << 20) + 1))
            ws.recv(timeout=30)
        assert ws.protocol.close_rcvd.code == 1009


# Crafted frames, beyond what a well-behaved client library sends.

def raw_session(server, extra=""):
    sock = socket.create_connection(("127.0.0.1", server.port), timeout=10)
    key = base64.b64encode(os.urandom(16)).decode()
    sock.sendall((f"GET /ws/echo HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\nUpgrade: websocket\r\n"
                  f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n{extra}\r\n").encode())
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = sock.recv(4096)
        assert chunk, "closed during the handshake"
        head += chunk
    assert head.startswith(b"HTTP/1.1 101 ")
    return sock, head.split(b"\r\n\r\n", 1)[1]


def frame(opcode, payload, fin=True, masked=True, rsv=0):
    first = (0x80 if fin else 0) | rsv | opcode
    length = len(payload)
    if length < 126:
        header = struct.pack("!BB", first, (0x80 if masked else 0) | length)
    elif length < 65536:
        header = struct.pack("!BBH", first, (0x80 if masked else 0) | 126, length)
    else:
        header = struct.pack("!BBQ", first, (0x80 if masked else 0) | 127, length)
    if not masked:
        return header + payload
    mask = os.urandom(4)
    return header + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


def split_frame(data):
    """The first whole (unmasked, server) frame in `data` as (opcode, payload, the rest), or None."""
    if len(data) < 2:
        return None
    length, offset = data[1] & 0x7F, 2
    if length == 126:
        length, offset = struct.unpack("!H", data[2:4])[0], 4
    elif length == 127:
        length, offset = struct.unpack("!Q", data[2:10])[0], 10
    if len(data) < offset + length:
        return None
    return data[0] & 0x0F, data[offset:offset + length], data[offset + length:]


def read_close_code(sock, buffered):
    """Reads server frames until the close frame; returns its code."""
    data = buffered
    while True:
        while (whole := split_frame(data)) is not None:
            opcode, payload, data = whole
            if opcode == 0x8:
                return struct.unpack("!H", payload[:2])[0] if len(payload) >= 2 else None
        chunk = sock.recv(65536)
        if not chunk:
            return None
        data += chunk


@pytest.mark.parametrize("frames, code", [
    (frame(0x1, b"\xc3\x28"), 1007),  # invalid UTF-8
    (frame(0x1, "€".encode()[:2], fin=False) + frame(0x0, b"("), 1007),  # invalid across fragments
    (frame(0x1, b"hello", masked=False), 1002),  # unmasked client frame
    (frame(0x3, b""), 1002),  # reserved opcode
    (frame(0x1, b"x", rsv=0x40), 1002),  # RSV1 without the extension
    (frame(0x9, b"x" * 126), 1002),  # control frame too long
    (frame(0x0, b"x"), 1002),  # continuation with nothing to continue
    (frame(0x8, struct.pack("!H", 1005)), 1002),  # close code that may not be sent
    (frame(0x8, struct.pack("!H", 1000) + b"\xff"), 1007),  # close reason not UTF-8
])
def test_fails_bad_frames_with_the_right_close_code(server, frames, code):
    sock, buffered = raw_session(server)
    try:
        sock.sendall(frames)
        assert read_close_code(sock, buffered) == code
        # ...and then closes the TCP connection.
        sock.settimeout(10)
        while sock.recv(65536):
            pass
    finally:
        sock.close()


def test_a_compression_bomb_closes_with_1009(server):
    sock, buffered = raw_session(server, "Sec-WebSocket-Extensions: permessage-deflate\r\n")
    try:
        compressor = zlib.compressobj(9, zlib.DEFLATED, -15)
        body = compressor.compress(b"\x00" * (64 << 20)) + compressor.flush(zlib.Z_SYNC_FLUSH)
        assert body.endswith(b"\x00\x00\xff\xff") and len(body) < 100_000  # 64 MiB in ~64 KiB
        sock.sendall(frame(0x2, body[:-4], rsv=0x40))
        assert read_close_code(sock, buffered) == 1009
    finally:
        sock.close()
    with open_echo(server) as ws:  # and the server carries on
        ws.send("still here")
        assert ws.recv(timeout=5) == "still here"


def test_random_garbage_never_stops_the_server(server):
    import random
    seed = int.from_bytes(os.urandom(4), "big")
    generator = random.Random(seed)
    for _ in range(30):
        sock, _ = raw_session(server)
        try:
            sock.sendall(bytes(generator.randrange(256) for _ in range(generator.randrange(1, 4000))))
            sock.shutdown(socket.SHUT_WR)
            sock.settimeout(10)
            while sock.recv(65536):
                pass
        except ConnectionResetError:
            pass
        finally:
            sock.close()
    with open_echo(server) as ws:
        ws.send("alive")
        assert ws.recv(timeout=5) == "alive", f"seed {seed}"


def test_refuses_a_foreign_origin_and_a_wrong_version(server):
    with pytest.raises(InvalidStatus) as refused:
        connect(server.url(), origin="https://evil.example", open_timeout=10)
    assert refused.value.response.status_code == 403
    sock = socket.create_connection(("127.0.0.1", server.port), timeout=10)
    sock.sendall(b"GET /ws/echo HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                 b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 8\r\n\r\n")
    head = sock.recv(4096).decode()
    sock.close()
    assert head.startswith("HTTP/1.1 426 ")
    assert "Sec-WebSocket-Version: 13" in head


def test_echo_endpoint_is_404_without_the_flag():
    tombola = Tombola()
    try:
        with pytest.raises(urllib.error.HTTPError) as missing:
            urllib.request.urlopen(f"http://127.0.0.1:{tombola.port}/ws/echo", timeout=10)
        assert missing.value.code == 404
        with pytest.raises(InvalidStatus) as refused:
            connect(tombola.url(), open_timeout=10)
        assert refused.value.response.status_code == 404
    finally:
        tombola.stop()
