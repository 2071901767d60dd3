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

With `--checkin`, draw B is a check-in draw instead: `--names` entrants are written into its book in
SQLite while B is unloaded (`--unload-idle-after 5`; joining 100,000 over REST would take minutes of
rate limit), and each run reopens entries, removes one entrant and closes them: the close locks the
pool of the entrants left, which is the work measured.
"""
import argparse
import json
import os
import random
import sqlite3
import statistics
import threading
import time

from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from local_server import LocalServer, call

CODE = "STALL"
KEY = "bench-host-key-0123"
ADMIN = "bench-admin-key-0123"


def api(base, method, path, body=None, key=None):
    return json.loads(call(base, method, path, body, key, timeout=120) or b"null")


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


CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"


def seed_checkin(server, code, count):
    """Writes `count` entrants into check-in draw `code`'s book (the draw must be unloaded), as
    joins would (public ids of 8 Crockford characters, sequence numbers after the real join's)."""
    db = sqlite3.connect(os.path.join(server.data, "tombola.sqlite"), timeout=30)
    try:
        seq, joined = db.execute("SELECT MAX(seq), MAX(joined_at) FROM entrants WHERE draw_code = ?", (code,)).fetchone()
        taken = {row[0] for row in db.execute("SELECT public_id FROM entrants WHERE draw_code = ?", (code,))}
        rng = random.Random(7)
        rows = []
        while len(rows) < count:
            public_id = "".join(rng.choice(CROCKFORD) for _ in range(8))
            if public_id in taken:
                continue
            taken.add(public_id)
            rows.append((code, public_id, seq + 1 + len(rows), "Guest %07d" % len(rows), "{}", None, joined))
        with db:
            db.executemany("INSERT INTO entrants (draw_code, public_id, seq, name, fields_json, device_hash, joined_at)"
                           " VALUES (?, ?, ?, ?, ?, ?, ?)", rows)
        return [row[1] for row in rows]
    finally:
        db.close()


def checkin_runs(base, other, args, watch, rows, server):
    """Draw B as a check-in draw of `--names` entrants: each run reopens, removes one, closes (measured)."""
    code, key = other["code"], other["hostKey"]
    api(base, "PUT", "/api/draws/%s/config" % code, {"pool": {"kind": "checkin"}}, key)
    api(base, "POST", "/api/draws/%s/entries/open" % code, {}, key)
    api(base, "POST", "/api/draws/%s/join" % code, {"name": "First guest"})
    time.sleep(7)  # B unloads (--unload-idle-after 5) so its book is read again with the rows below
    ids = seed_checkin(server, code, args.names)
    for run in range(args.runs):
        api(base, "POST", "/api/draws/%s/entries/open" % code, {}, key)
        api(base, "DELETE", "/api/draws/%s/entrants/%s" % (code, ids[run]), {"reason": "bench"}, key)
        time.sleep(0.3)
        start = time.monotonic()
        api(base, "POST", "/api/draws/%s/entries/close" % code, {}, key)
        end = time.monotonic()
        time.sleep(0.3)
        row = {"label": args.label, "names": args.names, "checkin": True, "run": run + 1,
               "closeMs": round((end - start) * 1000, 1),
               "longestTickGapMs": round(watch.longest_gap(start, end) * 1000, 1)}
        rows.append(row)
        print(json.dumps(row), flush=True)
    # The closes locked what was asked: the seeded entrants and the real join, less those removed.
    remaining = api(base, "GET", "/api/draws/%s" % code, None, key).get("remaining")
    assert remaining == args.names + 1 - args.runs, (remaining, args.names + 1 - args.runs)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--binary", required=True)
    parser.add_argument("--public", default="Public")
    parser.add_argument("--names", type=int, default=100000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--private", action="store_true")
    parser.add_argument("--checkin", action="store_true", help="close a check-in draw of --names entrants instead")
    parser.add_argument("--label", default="")
    args = parser.parse_args()

    rows = []
    watch = None
    unload = ("--unload-idle-after", "5") if args.checkin else ()
    with LocalServer(args.binary, args.public, "--default-draw", CODE, "--host-key", KEY, "--admin-key", ADMIN, *unload,
                     prefix="tombola-stall-") as server:
        base = server.base
        try:
            other = api(base, "POST", "/api/draws", {}, ADMIN)
            watch = TickWatch("ws://127.0.0.1:%d/ws/draw/%s" % (server.port, CODE))
            watch.start()
            api(base, "PUT", "/api/draws/%s/config" % CODE, {"pool": {"kind": "range", "from": 1, "to": 1000}}, KEY)
            api(base, "POST", "/api/draws/%s/start" % CODE, {}, KEY)
            if args.checkin:
                checkin_runs(base, other, args, watch, rows, server)
            privacy = ',"private":true' if args.private else ""
            names = ",".join('"Entrant %07d"' % i for i in range(args.names))
            big = ('{"pool":{"kind":"list","entrants":[%s]}%s}' % (names, privacy)).encode()
            small = ('{"pool":{"kind":"list","entrants":["Only one","And two"]}%s}' % privacy).encode()
            time.sleep(1.0)
            for run in range(0 if args.checkin else args.runs):
                api(base, "PUT", "/api/draws/%s/config" % other["code"], small, other["hostKey"])
                time.sleep(0.3)
                start = time.monotonic()
                api(base, "PUT", "/api/draws/%s/config" % other["code"], big, other["hostKey"])
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
    gaps = [r["longestTickGapMs"] for r in rows]
    walls = [r.get("configureMs", r.get("closeMs")) for r in rows]
    what = "check-in close of %s entrants" % format(args.names, ",") if args.checkin else \
        "configure of %s%s names" % (format(args.names, ","), " private" if args.private else "")
    print("| %s | %s (median) | longest tick gap of another draw: median / max | quiet 2 s |" % (args.label or "binary", what))
    print("|---|---|---|---|")
    print("| %s | %.0f ms | %.0f / %.0f ms | %.0f ms |" % (args.label or os.path.basename(args.binary), statistics.median(walls),
                                                        statistics.median(gaps), max(gaps), quiet * 1000))


if __name__ == "__main__":
    main()
