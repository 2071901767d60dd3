#!/usr/bin/env python3
"""How long a large configure holds up *another* draw's ticks (docs/ARCHITECTURE.md "Work off the loop").

Starts the given `tombola` binary on a free port of 127.0.0.1 with a fresh data directory. Draw A
(the default draw) rolls; a viewer of A records when each `tick` arrives (20 a second). Meanwhile a
second draw, B, is configured `--runs` times over REST with a list of `--names` names (private with
`--private`), each time after a one-name list so the pool really changes. Prints one JSON line per
configure (its wall time and the longest gap between A's ticks while it ran) and a summary: the
longest and the median gap over the configures, against the ticks' own period (50 ms). Everything
on loopback; it stops by itself. Needs `websockets` (the test venv has it).

    .venv/bin/python bench/configure_stall.py --binary .build/release/tombola --private
"""
import argparse
import json
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request

from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

CODE = "STALL"
KEY = "bench-host-key-0123"
ADMIN = "bench-admin-key-0123"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def call(base, method, path, body=None, key=None, timeout=120):
    data = None if body is None else (body if isinstance(body, bytes) else json.dumps(body).encode())
    request = urllib.request.Request(base + path, data=data, method=method)
    if key:
        request.add_header("Authorization", "Bearer " + key)
    if data is not None:
        request.add_header("Content-Type", "application/json")
    with urllib.request.urlopen(request, timeout=timeout) as response:
        body = response.read()
    return json.loads(body) if body.startswith(b"{") else body


class TickWatch(threading.Thread):
    """A viewer of draw A: the arrival time of every tick."""

    def __init__(self, url):
        super().__init__(daemon=True)
        self.url, self.arrivals, self.done = url, [], threading.Event()

    def run(self):
        with connect(self.url, max_size=None) as ws:
            while not self.done.is_set():
                try:
                    message = json.loads(ws.recv(timeout=0.5))
                except TimeoutError:
                    continue
                except ConnectionClosed:
                    return
                if message.get("type") == "tick":
                    self.arrivals.append(time.monotonic())

    def longest_gap(self, start, end):
        inside = [t for t in self.arrivals if start <= t <= end]
        before = [t for t in self.arrivals if t < start][-1:]
        after = [t for t in self.arrivals if t > end][:1]
        times = before + inside + after
        return max((b - a for a, b in zip(times, times[1:])), default=float("nan"))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--binary", required=True)
    parser.add_argument("--public", default="Public")
    parser.add_argument("--names", type=int, default=100000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--private", action="store_true")
    parser.add_argument("--label", default="")
    args = parser.parse_args()

    data = tempfile.mkdtemp(prefix="tombola-stall-")
    port = free_port()
    base = "http://127.0.0.1:%d" % port
    server = subprocess.Popen([args.binary, "--host", "127.0.0.1", "--port", str(port), "--data", data,
                               "--public", args.public, "--default-draw", CODE, "--host-key", KEY, "--admin-key", ADMIN],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    rows = []
    watch = None
    try:
        deadline = time.time() + 60
        while True:
            try:
                call(base, "GET", "/healthz", timeout=2)
                break
            except (urllib.error.URLError, ConnectionError, OSError):
                if time.time() > deadline or server.poll() is not None:
                    sys.exit("server did not start")
                time.sleep(0.1)
        other = call(base, "POST", "/api/draws", {}, ADMIN)
        watch = TickWatch("ws://127.0.0.1:%d/ws/draw/%s" % (port, CODE))
        watch.start()
        call(base, "PUT", "/api/draws/%s/config" % CODE, {"pool": {"kind": "range", "from": 1, "to": 1000}}, KEY)
        call(base, "POST", "/api/draws/%s/start" % CODE, {}, KEY)
        privacy = ',"private":true' if args.private else ""
        names = ",".join('"Entrant %07d"' % i for i in range(args.names))
        big = ('{"pool":{"kind":"list","entrants":[%s]}%s}' % (names, privacy)).encode()
        small = ('{"pool":{"kind":"list","entrants":["Only one","And two"]}%s}' % privacy).encode()
        time.sleep(1.0)
        for run in range(args.runs):
            call(base, "PUT", "/api/draws/%s/config" % other["code"], small, other["hostKey"])
            time.sleep(0.3)
            start = time.monotonic()
            call(base, "PUT", "/api/draws/%s/config" % other["code"], big, other["hostKey"])
            end = time.monotonic()
            time.sleep(0.3)
            row = {"label": args.label, "names": args.names, "private": args.private, "run": run + 1,
                   "configureMs": round((end - start) * 1000, 1),
                   "longestTickGapMs": round(watch.longest_gap(start, end) * 1000, 1)}
            rows.append(row)
            print(json.dumps(row), flush=True)
        # The ticks' own gaps with nothing else going on, for comparison.
        quiet_start = time.monotonic()
        time.sleep(2.0)
        quiet = watch.longest_gap(quiet_start, time.monotonic())
    finally:
        if watch:
            watch.done.set()
        # SIGKILL: a child of a test process may have SIGTERM blocked (HELPERS.md).
        server.send_signal(signal.SIGKILL)
        server.wait()
        shutil.rmtree(data, ignore_errors=True)
    gaps = [r["longestTickGapMs"] for r in rows]
    walls = [r["configureMs"] for r in rows]
    print("| %s | configure of %s%s names (median) | longest tick gap of another draw: median / max | quiet 2 s |"
          % (args.label or "binary", format(args.names, ","), " private" if args.private else ""))
    print("|---|---|---|---|")
    print("| %s | %.0f ms | %.0f / %.0f ms | %.0f ms |" % (args.label or os.path.basename(args.binary), statistics.median(walls),
                                                        statistics.median(gaps), max(gaps), quiet * 1000))


if __name__ == "__main__":
    main()
