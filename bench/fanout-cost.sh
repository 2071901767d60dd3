#!/usr/bin/env bash
# Where a delivered tick frame's server CPU goes at each audience size (issue #46): one release
# server per size on loopback, `tombola-bench fanout` at 20 Hz, and `perf stat` on the server
# process for the rolling part: task-clock, system calls (raw_syscalls:sys_enter), context
# switches, io_uring submissions (io_uring:io_uring_submit_req) and TCP segments sent (the loopback
# receive path runs in the sender's context), each divided by the frames delivered. Then the
# kernel floor at the same sizes (`tombola-bench floor`, no server logic). JSON lines to $OUT.
#   swift build -c release --product tombola && swift build -c release --product tombola-bench
#   bench/fanout-cost.sh [N ...]        (default: 1000 2500 5000 10000)
# Environment: SECONDS_PER_RUN (default 20), OUT (default bench/results/issue46-<time>.jsonl),
# FLOOR=0 to skip the floor; BIN (the server's directory, default .build/release), BENCH (the
# generator, default $BIN/tombola-bench), PUBLIC (default Public) and SERVER_FLAGS (default
# "--tick-hz 20 --max-connections 25000") let scripts/ab measure another build with one generator.
# Bounded: every step stops by itself; every process is killed by pid.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-bench/results/issue46-$(date +%Y%m%d-%H%M).jsonl}
BIN=${BIN:-.build/release}
BENCH=${BENCH:-$BIN/tombola-bench}
PUBLIC=${PUBLIC:-Public}
SERVER_FLAGS=${SERVER_FLAGS:---tick-hz 20 --max-connections 25000}
PORT=${PORT:-18470}
SECONDS_PER_RUN=${SECONDS_PER_RUN:-20}
sizes=${*:-1000 2500 5000 10000}
mkdir -p "$(dirname "$OUT")"
data=$(mktemp -d /tmp/tombola-cost-XXXXXX)
server_pid=
perf_pid=
cleanup() {
    [ -n "$perf_pid" ] && kill -INT "$perf_pid" 2> /dev/null
    [ -n "$server_pid" ] && kill -9 "$server_pid" 2> /dev/null
    rm -rf "$data"
}
trap cleanup EXIT
events=task-clock,context-switches,raw_syscalls:sys_enter,io_uring:io_uring_submit_req,tcp:tcp_probe
# tcp:tcp_probe is not on every kernel: keep only the events this one knows.
known=$(perf list 2> /dev/null)
events=$(tr ',' '\n' <<< "$events" | while read -r e; do
    case $e in *:*) grep -q "${e}" <<< "$known" && echo "$e" ;; *) echo "$e" ;; esac
done | paste -sd, -)

for n in $sizes; do
    dir="$data/$n"; mkdir -p "$dir"
    # shellcheck disable=SC2086 # SERVER_FLAGS is a list of flags
    "$BIN/tombola" --host 127.0.0.1 --port "$PORT" --data "$dir" --public "$PUBLIC" --default-draw BENCH \
        --host-key bench-host-key-0123 $SERVER_FLAGS > "$dir/server.log" 2>&1 &
    server_pid=$!
    for _ in $(seq 100); do curl -fs "http://127.0.0.1:$PORT/healthz" > /dev/null 2>&1 && break; sleep 0.1; done
    load=$(cut -d' ' -f1-3 /proc/loadavg)
    # perf counts from the moment every viewer is connected (fanout's --ready-file) to the end.
    (timeout $((SECONDS_PER_RUN + 120)) "$BENCH" fanout --url "http://127.0.0.1:$PORT" --viewers "$n" --hz 20 \
        --seconds "$SECONDS_PER_RUN" --code BENCH --host-key bench-host-key-0123 --server-pid "$server_pid" \
        --ready-file "$dir/ready" ${PROCESSES:+--processes $PROCESSES} > "$dir/fanout.txt" 2>&1) &
    bench_pid=$!
    for _ in $(seq 1200); do [ -e "$dir/ready" ] && break; sleep 0.05; done
    perf stat -x, -e "$events" -p "$server_pid" -o "$dir/perf.csv" &
    perf_pid=$!
    wait "$bench_pid"
    kill -INT "$perf_pid" 2> /dev/null; wait "$perf_pid" 2> /dev/null; perf_pid=
    kill -9 "$server_pid" 2> /dev/null; wait "$server_pid" 2> /dev/null; server_pid=
    report=$(grep '^{' "$dir/fanout.txt" | tail -1)
    python3 - "$n" "$load" "$dir/perf.csv" "$report" >> "$OUT" <<'PY'
import json, sys
n, load, perf_path, report = sys.argv[1], sys.argv[2], sys.argv[3], json.loads(sys.argv[4])
counts = {}
for line in open(perf_path):
    parts = line.strip().split(",")
    if len(parts) > 2 and parts[0] and not parts[0].startswith("<"):
        counts[parts[2]] = float(parts[0])
frames = report["ticksDelivered"] or 1
row = {"command": "fanout-cost", "viewers": int(n), "load": load, "seconds": report["seconds"], "sentHz": report["sentHz"],
       "delivered": report["ticksDelivered"], "p50Ms": report["p50Ms"], "p99Ms": report["p99Ms"],
       "perfMs": counts.get("task-clock"), "usPerFrame": round(counts.get("task-clock", 0) * 1000 / frames, 3),
       "cores": round(counts.get("task-clock", 0) / 1000 / max(report["seconds"], 1e-9), 3)}
for key, name in (("raw_syscalls:sys_enter", "syscallsPerFrame"), ("context-switches", "switchesPerFrame"),
                  ("io_uring:io_uring_submit_req", "uringSubmitsPerFrame"), ("tcp:tcp_probe", "tcpProbesPerFrame")):
    if key in counts:
        row[name] = round(counts[key] / frames, 4)
print(json.dumps(row))
PY
    tail -1 "$OUT" >&2
done

if [ "${FLOOR:-1}" != 0 ]; then
    for n in $sizes; do
        load=$(cut -d' ' -f1-3 /proc/loadavg)
        timeout 120 "$BENCH" floor --connections "$n" --hz 20 --seconds 10 | grep '^{' \
            | sed "s/^{/{\"load\":\"$load\",/" | tee -a "$OUT" >&2
    done
fi
