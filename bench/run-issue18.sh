#!/usr/bin/env bash
# Runs issue #18's benchmarks in one go against release builds, one server at a time on
# loopback, and appends every result (with the load average before it) to $OUT as JSON lines.
#   swift build -c release --product tombola && swift build -c release --product tombola-bench
#   bench/gohub/build.sh
#   bench/run-issue18.sh [storm] [storm-idle] [rooms] [fanout] [floor] [startup] [history]     (default: all)
# Issue 31 (permessage-deflate as browsers offer it, idle draws unloaded), not in the default:
#   bench/run-issue18.sh fanout-deflate storm-deflate reveal-deflate unload   (and reveal: the same at 5,000 without deflate)
# Issue 46 (the p99 at 5,000 viewers, Tombola and the Go hub alternated, REPS times):
#   bench/run-issue18.sh p99-5k
# Issue 27 (a beacon-sealed Stop at 5,000 viewers, drand from two loopback test relays; needs the
# test venv with py_ecc, which scripts/test makes):
#   bench/run-issue18.sh reveal-beacon
# Each step stops by itself; every process started here is killed by its pid.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-bench/results/issue18-$(date +%Y%m%d-%H%M).jsonl}
BIN=.build/release
PORT=${PORT:-18490}
GOPORT=${GOPORT:-18495}
SECONDS_PER_RUN=${SECONDS_PER_RUN:-20}
steps=${*:-storm storm-idle rooms fanout floor startup history}
mkdir -p "$(dirname "$OUT")"
data=$(mktemp -d /tmp/tombola-bench-XXXXXX)
server_pid=

start_server() { # $1: data dir, rest: extra flags
    local dir=$1; shift
    mkdir -p "$dir"
    "$BIN/tombola" --host 127.0.0.1 --port "$PORT" --data "$dir" --public Public --default-draw BENCH \
        --host-key bench-host-key-0123 --admin-key bench-admin-key-0123 --tick-hz 20 --max-connections 25000 "$@" > "$dir/server.log" 2>&1 &
    server_pid=$!
    for _ in $(seq 100); do
        curl -fs "http://127.0.0.1:$PORT/healthz" > /dev/null 2>&1 && return 0
        sleep 0.1
    done
    echo "server did not start" >&2; return 1
}
stop_server() { [ -n "$server_pid" ] && kill -9 "$server_pid" 2> /dev/null; wait "$server_pid" 2> /dev/null; server_pid=; }
trap 'stop_server; [ -n "${go_pid:-}" ] && kill -9 "$go_pid" 2> /dev/null; [ -n "${relay_pid:-}" ] && kill "$relay_pid" 2> /dev/null' EXIT

record() { # $1: peer label, stdin: bench output
    local load; load=$(cut -d' ' -f1-3 /proc/loadavg)
    tee -a /dev/stderr | grep '^{' | sed "s/^{/{\"peer\":\"$1\",\"load\":\"$load\",/" >> "$OUT"
}

for step in $steps; do
    echo "== $step (load $(cut -d' ' -f1-3 /proc/loadavg))" >&2
    case $step in
    storm)
        start_server "$data/storm"
        timeout 300 "$BIN/tombola-bench" storm --threads 2 --viewers 10000 --pool 100000 --per-stop 1000 --code BENCH --host-key bench-host-key-0123 \
            --url "http://127.0.0.1:$PORT" --server-pid "$server_pid" --calc-clients 1 | record tombola
        stop_server ;;
    storm-idle)
        # The same storm while the draw is idle: what joins cost without the fan-out beside them.
        start_server "$data/storm-idle"
        timeout 300 "$BIN/tombola-bench" storm --threads 2 --idle --viewers 10000 --pool 100000 --per-stop 1000 --code BENCH --host-key bench-host-key-0123 \
            --url "http://127.0.0.1:$PORT" --server-pid "$server_pid" --calc-clients 1 | record tombola
        stop_server ;;
    rooms)
        start_server "$data/rooms"
        timeout 600 "$BIN/tombola-bench" rooms --rooms 1000 --viewers-per-room 10 --seconds 15 --admin-key bench-admin-key-0123 \
            --url "http://127.0.0.1:$PORT" --server-pid "$server_pid" | record tombola
        stop_server ;;
    fanout)
        # Tombola and the Go hub side by side at 1k, 5k and 10k viewers, 20 Hz, 20 s each.
        for viewers in 1000 5000 10000; do
            start_server "$data/fanout-$viewers"
            timeout 300 "$BIN/tombola-bench" fanout --viewers "$viewers" --hz 20 --seconds 20 --code BENCH --host-key bench-host-key-0123 \
                --url "http://127.0.0.1:$PORT" --server-pid "$server_pid" | record tombola
            stop_server
            bench/gohub/gohub --addr "127.0.0.1:$GOPORT" --tick-hz 20 --seconds 200 > /dev/null 2>&1 &
            go_pid=$!
            sleep 0.5
            timeout 300 "$BIN/tombola-bench" fanout --viewers "$viewers" --hz 20 --seconds 20 --code BENCH --host-key bench-host-key-0123 \
                --url "http://127.0.0.1:$GOPORT" --server-pid "$go_pid" | record go
            kill -9 "$go_pid"; wait "$go_pid" 2> /dev/null; go_pid=
        done ;;
    p99-5k)
        # Issue 46: the p99 at 5,000 viewers, Tombola and the Go hub alternated REPS times (default 5),
        # 20 Hz, SECONDS_PER_RUN each, no compression offered: the same generator, the same machine.
        for rep in $(seq 1 "${REPS:-5}"); do
            start_server "$data/p99-$rep"
            timeout 300 "$BIN/tombola-bench" fanout --viewers 5000 --hz 20 --seconds "$SECONDS_PER_RUN" --code BENCH --host-key bench-host-key-0123 \
                --url "http://127.0.0.1:$PORT" --server-pid "$server_pid" | record "tombola-rep$rep"
            stop_server
            bench/gohub/gohub --addr "127.0.0.1:$GOPORT" --tick-hz 20 --seconds 200 > /dev/null 2>&1 &
            go_pid=$!
            sleep 0.5
            timeout 300 "$BIN/tombola-bench" fanout --viewers 5000 --hz 20 --seconds "$SECONDS_PER_RUN" --code BENCH --host-key bench-host-key-0123 \
                --url "http://127.0.0.1:$GOPORT" --server-pid "$go_pid" | record "go-rep$rep"
            kill -9 "$go_pid"; wait "$go_pid" 2> /dev/null; go_pid=
        done ;;
    fanout-deflate)
        # Issue 31: every viewer offers permessage-deflate as Chromium does; Tombola and the Go hub
        # with gorilla's EnableCompression (-compress), each also without compression, at 1k, 5k
        # and 10k viewers, then the 10k deflate runs again with the viewers in two generator
        # processes (if the generator were the limit, splitting it would change the figures).
        go_run() { # $1: label, $2: viewers, rest: extra fanout flags (and -compress for the hub via GOFLAGS_HUB)
            local label=$1 viewers=$2; shift 2
            bench/gohub/gohub --addr "127.0.0.1:$GOPORT" --tick-hz 20 --seconds 200 $GOFLAGS_HUB > /dev/null 2>&1 &
            go_pid=$!
            sleep 0.5
            timeout 300 "$BIN/tombola-bench" fanout --viewers "$viewers" --hz 20 --seconds "$SECONDS_PER_RUN" --code BENCH --host-key bench-host-key-0123 \
                --url "http://127.0.0.1:$GOPORT" --server-pid "$go_pid" "$@" | record "$label"
            kill -9 "$go_pid"; wait "$go_pid" 2> /dev/null; go_pid=
        }
        tombola_run() { # $1: label, $2: viewers, rest: extra fanout flags
            local label=$1 viewers=$2; shift 2
            start_server "$data/fanout-$label-$viewers"
            timeout 300 "$BIN/tombola-bench" fanout --viewers "$viewers" --hz 20 --seconds "$SECONDS_PER_RUN" --code BENCH --host-key bench-host-key-0123 \
                --url "http://127.0.0.1:$PORT" --server-pid "$server_pid" "$@" | record "$label"
            stop_server
        }
        for viewers in 1000 5000 10000; do
            tombola_run tombola-deflate "$viewers" --deflate
            GOFLAGS_HUB=-compress go_run go-deflate "$viewers" --deflate
            tombola_run tombola "$viewers"
            GOFLAGS_HUB= go_run go "$viewers"
        done
        tombola_run tombola-deflate-2proc 10000 --deflate --processes 2
        GOFLAGS_HUB=-compress go_run go-deflate-2proc 10000 --deflate --processes 2 ;;
    storm-deflate)
        # Issue 31: the rolling storm with every viewer offering permessage-deflate.
        start_server "$data/storm-deflate"
        timeout 300 "$BIN/tombola-bench" storm --threads 2 --deflate --viewers 10000 --pool 100000 --per-stop 1000 --code BENCH --host-key bench-host-key-0123 \
            --url "http://127.0.0.1:$PORT" --server-pid "$server_pid" --calc-clients 1 | record tombola-deflate
        stop_server ;;
    reveal|reveal-deflate)
        # Issue 31: Stop with 1,000 winners → result at 5,000 viewers (the storm's last step), twice;
        # reveal-deflate: every viewer offers permessage-deflate.
        deflate=(); label=tombola
        [ "$step" = reveal-deflate ] && deflate=(--deflate) && label=tombola-deflate
        for run in 1 2; do
            start_server "$data/$step-$run"
            timeout 300 "$BIN/tombola-bench" storm --threads 2 "${deflate[@]}" --viewers 5000 --pool 100000 --per-stop 1000 --code BENCH --host-key bench-host-key-0123 \
                --url "http://127.0.0.1:$PORT" --server-pid "$server_pid" --calc-clients 1 | record "$label"
            stop_server
        done ;;
    reveal-beacon)
        # Issue 27: the same Stop (1,000 winners, 5,000 viewers) on a beacon-sealed draw: Stop stores
        # the lock, the room waits for drand round R (due at least 1 s after the lock), fetches it
        # from both relays, then slows down and reveals. Twice, one relay pair for both runs.
        .venv/bin/python bench/beacon_relay.py --seconds 420 > "$data/relay-flags" & relay_pid=$!
        for _ in $(seq 600); do [ -s "$data/relay-flags" ] && break; sleep 0.2; done
        read -r -a beacon_flags < "$data/relay-flags" || { echo "the test relays did not start" >&2; exit 1; }
        for run in 1 2; do
            start_server "$data/$step-$run" "${beacon_flags[@]}"
            timeout 300 "$BIN/tombola-bench" storm --threads 2 --beacon --viewers 5000 --pool 100000 --per-stop 1000 --code BENCH --host-key bench-host-key-0123 \
                --url "http://127.0.0.1:$PORT" --server-pid "$server_pid" --calc-clients 1 | record tombola-beacon
            stop_server
        done
        kill "$relay_pid" 2> /dev/null; relay_pid= ;;
    unload)
        # Issue 31: RSS after touching 1,000 draws of 100 rounds each, then after 15 s without a
        # request, with the draws unloaded after 5 s and never unloaded.
        "$BIN/tombola" generate-history --data "$data/unload" --draws 1000 --rounds 100 >&2 || exit 1
        for idle in 5 0; do
            timeout 600 "$BIN/tombola-bench" startup --binary "$BIN/tombola" --data "$data/unload" --port "$PORT" --runs 1 --touch 1000 \
                --idle-wait 15 --extra "--public Public --unload-idle-after $idle" | record "tombola-unload-$idle"
        done ;;
    floor)
        timeout 300 "$BIN/tombola-bench" floor --connections 10000 --hz 20 --seconds 10 | record floor ;;
    startup)
        # The rooms step left 1,000 stored draws (and a round each) in $data/rooms.
        [ -d "$data/rooms" ] && timeout 300 "$BIN/tombola-bench" startup --binary "$BIN/tombola" --data "$data/rooms" \
            --port "$PORT" --runs 3 --extra "--public Public" | record tombola ;;
    history)
        # Item 5: 1,000 stored draws × 100 rounds (100,000 rounds) against 1,000 × 1, laid down by
        # `tombola generate-history`; first /healthz and RSS, then RSS after touching 10 and 1,000 draws.
        for rounds in 1 100; do
            "$BIN/tombola" generate-history --data "$data/history-$rounds" --draws 1000 --rounds "$rounds" >&2 || continue
            for touch in 0 10 1000; do
                timeout 600 "$BIN/tombola-bench" startup --binary "$BIN/tombola" --data "$data/history-$rounds" \
                    --port "$PORT" --runs 3 --touch "$touch" --extra "--public Public" | record "tombola-$rounds-rounds"
            done
        done ;;
    esac
done
rm -rf "$data"
echo "results in $OUT" >&2
