#!/usr/bin/env python3
"""The size of a viewer's `state` as a board of long rounds grows (issue 18, item 1).

Starts the given `tombola` binary on a free port of 127.0.0.1 with a fresh data directory,
configures a list pool over REST, draws rounds of `--per-stop` winners (REST Stop waits for the
reveal), and after the chosen rounds prints the `state` payload (`GET /api/draws/<code>`, the
viewer's snapshot without a connection) in bytes and raw-deflated (what permessage-deflate
sends). One JSON line per measurement, then a table. Standard library only.

    python3 bench/state_size.py --binary .build/debug/tombola --public Public
"""
import argparse
import json
import zlib

from local_server import LocalServer, call

CODE = "BENCH"
KEY = "bench-host-key-0123"


def deflated(payload):
    compressor = zlib.compressobj(6, zlib.DEFLATED, -15)
    return len(compressor.compress(payload) + compressor.flush(zlib.Z_SYNC_FLUSH)) - 4


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--binary", required=True)
    parser.add_argument("--public", default="Public")
    parser.add_argument("--names", type=int, default=20000)
    parser.add_argument("--name-bytes", type=int, default=15)
    parser.add_argument("--per-stop", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--measure", default="1,10", help="rounds after which to measure (comma-separated)")
    parser.add_argument("--label", default="")
    args = parser.parse_args()
    measure = {int(x) for x in args.measure.split(",") if x}

    rows = []
    with LocalServer(args.binary, args.public, "--default-draw", CODE, "--host-key", KEY, prefix="tombola-state-size-") as server:
        base = server.base
        filler = "x" * max(0, args.name_bytes - 8)
        names = "\n".join("N%07d%s" % (i, filler) for i in range(args.names))
        call(base, "PUT", "/api/draws/%s/config" % CODE, {"pool": {"kind": "list", "text": names}, "perStop": args.per_stop}, KEY)
        for n in range(1, args.rounds + 1):
            call(base, "POST", "/api/draws/%s/start" % CODE, {}, KEY)
            result = json.loads(call(base, "POST", "/api/draws/%s/stop" % CODE, {}, KEY))
            if n in measure:
                state = call(base, "GET", "/api/draws/%s" % CODE)
                row = {"label": args.label, "rounds": n, "winnersPerRound": len(result["result"]["winners"]),
                       "stateBytes": len(state), "stateDeflatedBytes": deflated(state),
                       "resultBytes": len(json.dumps(result["result"], separators=(",", ":")).encode())}
                rows.append(row)
                print(json.dumps(row), flush=True)
    print("| rounds of %d | state | deflated | live result |" % args.per_stop)
    print("|---|---|---|---|")
    for row in rows:
        print("| %d | %s bytes | %s bytes | %s bytes |" % (row["rounds"], format(row["stateBytes"], ","),
                                                       format(row["stateDeflatedBytes"], ","), format(row["resultBytes"], ",")))


if __name__ == "__main__":
    main()
