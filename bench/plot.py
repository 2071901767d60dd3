#!/usr/bin/env python3
"""Draws the SVG plots of BENCHMARKS.md from tombola-bench's JSON lines.

    .bench-venv/bin/python bench/plot.py bench/results/*.jsonl --out docs/bench

Each input line is one `tombola-bench … | grep '^{'` result; lines may carry a "peer" field
(added when collecting, e.g. "tombola" or "go") to tell servers apart. Plots:
  fanout-viewers.svg  viewers → latency p99 and server CPU, one line per peer
  fanout-hz.svg       tick rate → server CPU (fan-out runs at one viewer count)
  storm-cdf.svg       the storm's time to a correct state, as a distribution
Plots without data are skipped.
"""
import argparse
import json
import os
import sys

import matplotlib

matplotlib.use("svg")
import matplotlib.pyplot as plt  # noqa: E402

plt.rcParams["svg.hashsalt"] = "tombola"  # stable ids: regenerating unchanged data changes nothing


def load(paths):
    lines = []
    for path in paths:
        with open(path, encoding="utf-8") as f:
            for raw in f:
                raw = raw.strip()
                if raw.startswith("{"):
                    lines.append(json.loads(raw))
    return lines


def fanout_viewers(runs, out):
    peers = {}
    for r in runs:
        if r.get("command") == "fanout" and r.get("hz") == 20:
            peers.setdefault(r.get("peer", "tombola"), []).append(r)
    if not peers:
        return None
    fig, (r_ax, a, b) = plt.subplots(1, 3, figsize=(12, 3.4))
    for peer, rs in sorted(peers.items()):
        rs = sorted(rs, key=lambda r: r["viewers"])
        xs = [r["viewers"] for r in rs]
        # The rate the server kept: a peer that falls behind sends fewer ticks for its CPU.
        r_ax.plot(xs, [r.get("sentHz") for r in rs], marker="o", label=peer)
        a.plot(xs, [r.get("p99Ms") for r in rs], marker="o", label=peer)
        b.plot(xs, [r.get("serverCores") for r in rs], marker="o", label=peer)
    r_ax.set(xlabel="viewers", ylabel="ticks sent per second", title="rate held (20 Hz asked)", ylim=(0, 21))
    a.set(xlabel="viewers", ylabel="tick latency p99 (ms)", title="latency at 20 Hz")
    b.set(xlabel="viewers", ylabel="server CPU (cores)", title="server CPU at 20 Hz")
    for ax in (r_ax, a, b):
        ax.grid(alpha=0.3)
        ax.legend()
    fig.tight_layout()
    path = os.path.join(out, "fanout-viewers.svg")
    fig.savefig(path, metadata={"Date": None})
    return path


def fanout_hz(runs, out):
    rs = [r for r in runs if r.get("command") == "fanout" and r.get("peer", "tombola") == "tombola"]
    by_viewers = {}
    for r in rs:
        by_viewers.setdefault(r["viewers"], []).append(r)
    series = {v: sorted(x, key=lambda r: r["hz"]) for v, x in by_viewers.items() if len({r["hz"] for r in x}) > 1}
    if not series:
        return None
    fig, ax = plt.subplots(figsize=(4.6, 3.4))
    for v, x in sorted(series.items()):
        ax.plot([r["hz"] for r in x], [r.get("serverCores") for r in x], marker="o", label="%d viewers" % v)
    ax.set(xlabel="tick rate (Hz)", ylabel="server CPU (cores)", title="tick rate → CPU")
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    path = os.path.join(out, "fanout-hz.svg")
    fig.savefig(path, metadata={"Date": None})
    return path


def storm_cdf(runs, out):
    rs = [r for r in runs if r.get("command") == "storm" and r.get("cdfMs")]
    if not rs:
        return None
    fig, ax = plt.subplots(figsize=(4.6, 3.4))
    for r in rs:
        cdf = r["cdfMs"]
        ps = [2 * (i + 1) for i in range(len(cdf))]
        # The generator's shape matters: one loop with 128 handshakes in flight measured its own queue.
        gen = "%d loops × %d" % (r["threads"], r["maxPending"]) if "threads" in r else "1 loop × 128"
        ax.plot(cdf, ps, label="%s, bench %s, load %s" % ("idle" if r.get("idle") else "rolling", gen,
                                                           r.get("load", "?").split()[0]))
    ax.set_xscale("log")
    ax.set(xlabel="time to a correct state (ms, log)", ylabel="viewers back (%)", title="reconnect storm, 10,000 viewers")
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    path = os.path.join(out, "storm-cdf.svg")
    fig.savefig(path, metadata={"Date": None})
    return path


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("inputs", nargs="+")
    parser.add_argument("--out", default="docs/bench")
    args = parser.parse_args()
    runs = load(args.inputs)
    os.makedirs(args.out, exist_ok=True)
    for made in (fanout_viewers(runs, args.out), fanout_hz(runs, args.out), storm_cdf(runs, args.out)):
        if made:
            print("wrote", made)
    return 0


if __name__ == "__main__":
    sys.exit(main())
