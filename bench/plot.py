#!/usr/bin/env python3
"""Draws the SVG plots of BENCHMARKS.md from tombola-bench's JSON lines.

    .bench-venv/bin/python bench/plot.py bench/results/*.jsonl --out docs/bench

Each input line is one `tombola-bench … | grep '^{'` result; lines may carry a "peer" field
(added when collecting, e.g. "tombola" or "go") to tell servers apart. Plots:
  fanout-viewers.svg  viewers → latency p99 and server CPU, one line per peer
  fanout-hz.svg       tick rate → server CPU (fan-out runs at one viewer count)
  storm-cdf.svg       the storm's time to a correct state, as a distribution (deflate runs marked)
  fanout-deflate.svg  issue 31: viewers → rate held, p99, server CPU and RSS for every peer of one
                      run, with and without permessage-deflate ("tombola-deflate", "go-deflate"…);
                      runs with the generator split over processes ("…-2proc") as open markers
Plots without data are skipped; --only names the ones to write.
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
    fig, ax = plt.subplots(figsize=(7.5, 4.2))
    for r in rs:
        cdf = r["cdfMs"]
        ps = [2 * (i + 1) for i in range(len(cdf))]
        # The generator's shape matters: one loop with 128 handshakes in flight measured its own queue.
        gen = "%d loops × %d" % (r["threads"], r["maxPending"]) if "threads" in r else "1 loop × 128"
        size = "" if r.get("viewers", 10000) == 10000 else "%d viewers, " % r["viewers"]
        ax.plot(cdf, ps, label="%s%s%s, bench %s, load %s" % (size, "idle" if r.get("idle") else "rolling",
                                                               ", deflate" if r.get("deflate") else "", gen,
                                                               r.get("load", "?").split()[0]))
    ax.set_xscale("log")
    ax.set(xlabel="time to a correct state (ms, log)", ylabel="viewers back (%)", title="reconnect storm (10,000 viewers unless named)")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    path = os.path.join(out, "storm-cdf.svg")
    fig.savefig(path, metadata={"Date": None})
    return path


def fanout_deflate(runs, out):
    rs = [r for r in runs if r.get("command") == "fanout" and r.get("hz") == 20 and "deflate" in r.get("peer", "")]
    if not rs:
        return None
    keep = {r.get("peer") for r in rs} | {p.replace("-deflate", "") for p in (r.get("peer") for r in rs)}
    peers = {}
    for r in runs:
        if r.get("command") == "fanout" and r.get("hz") == 20 and r.get("peer") in keep:
            peers.setdefault(r["peer"], {})[r["viewers"]] = r  # the last run of a peer at a size
    fig, axes = plt.subplots(1, 4, figsize=(15, 3.6))
    columns = (("sentHz", "ticks sent per second", "rate held (20 Hz asked)"),
               ("p99Ms", "tick latency p99 (ms)", "latency at 20 Hz"),
               ("serverCores", "server CPU (cores)", "server CPU"),
               ("rssPeakKiB", "server RSS peak (MiB)", "server memory"))
    colours = {}
    for peer in sorted(p for p in peers if not p.endswith("-2proc")):
        by_size = peers[peer]
        xs = sorted(by_size)
        style = "-" if "deflate" in peer else ":"
        for ax, (key, _, _) in zip(axes, columns):
            ys = [by_size[x].get(key) for x in xs]
            if key == "rssPeakKiB":
                ys = [y / 1024 if y is not None else None for y in ys]
            line, = ax.plot(xs, ys, style, marker="o", label=peer, color=colours.get(peer.split("-")[0]))
            colours.setdefault(peer.split("-")[0], line.get_color())
    for peer in sorted(p for p in peers if p.endswith("-2proc")):
        for x, r in peers[peer].items():
            for ax, (key, _, _) in zip(axes, columns):
                y = r.get(key)
                if key == "rssPeakKiB" and y is not None:
                    y = y / 1024
                ax.plot([x], [y], marker="o", markerfacecolor="none", linestyle="none",
                        color=colours.get(peer.split("-")[0]), label=peer.replace("-2proc", ", 2 generator processes"))
    load = sorted({r.get("load", "?").split()[0] for r in rs})
    for ax, (_, ylabel, title) in zip(axes, columns):
        ax.set(xlabel="viewers", ylabel=ylabel, title=title)
        ax.grid(alpha=0.3)
    axes[0].set_ylim(0, 21)
    axes[0].legend(fontsize=7)
    fig.suptitle("fan-out with permessage-deflate (solid) and without (dotted), one run; load %s–%s" % (load[0], load[-1]),
                 fontsize=9)
    fig.tight_layout()
    path = os.path.join(out, "fanout-deflate.svg")
    fig.savefig(path, metadata={"Date": None})
    return path


PLOTS = {"fanout-viewers": fanout_viewers, "fanout-hz": fanout_hz, "storm-cdf": storm_cdf, "fanout-deflate": fanout_deflate}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("inputs", nargs="+")
    parser.add_argument("--out", default="docs/bench")
    parser.add_argument("--only", action="append", choices=sorted(PLOTS), help="write only these plots (repeatable)")
    args = parser.parse_args()
    runs = load(args.inputs)
    os.makedirs(args.out, exist_ok=True)
    for name in args.only or list(PLOTS):
        made = PLOTS[name](runs, args.out)
        if made:
            print("wrote", made)
    return 0


if __name__ == "__main__":
    sys.exit(main())
