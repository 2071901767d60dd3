#!/usr/bin/env bash
# Runs the full Autobahn|Testsuite fuzzingclient (517 cases) against `tombola --echo-endpoint`
# and fails on any case that is not OK (STRICT=1: NON-STRICT fails too; the three cases the
# suite rates INFORMATIONAL for every server, 7.1.6 and 7.13.1/2, pass).
#
# Usage: scripts/autobahn/echo-suite.sh TOMBOLA_BIN [CASES]
# Env:   AUTOBAHN_VENV  the suite's venv (default .autobahn-venv in the repository, gitignored;
#                       rebuilt by setup.sh when the pins, patches or setup script change)
#        EXCLUDE        case patterns to skip (default none)
# The server runs on a free loopback port with a throw-away data folder; the report goes to
# a temporary folder outside the repository, kept (and its path printed) only on failure.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
if [ $# -lt 1 ] || [ $# -gt 2 ]; then
    awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"
    exit 2
fi
BIN="$1"
CASES="${2:-*}"
VENV="${AUTOBAHN_VENV:-$ROOT/.autobahn-venv}"

stamp="$(cat "$HERE/setup.sh" "$HERE/requirements.txt" "$HERE"/patches/*.patch | sha256sum | cut -d' ' -f1)"
if [ ! -x "$VENV/bin/wstest" ] || [ "$(cat "$VENV/tombola-stamp" 2>/dev/null)" != "$stamp" ]; then
    rm -rf "$VENV"
    "$HERE/setup.sh" "$VENV"
    echo "$stamp" > "$VENV/tombola-stamp"
fi

work="$(mktemp -d "${TMPDIR:-/tmp}/tombola-autobahn.XXXXXX")"
server_pid=""
cleanup() {
    if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
    rm -rf "$work/data" "$work/server.out"
    if [ "${keep_report:-0}" = 1 ]; then echo "report kept in $work/report"; else rm -rf "$work"; fi
}
trap cleanup EXIT

# Port 0: the kernel picks a free port, which the banner's first URL shows. The banner also
# holds the throw-away draw's keys, so it stays in the temporary folder, never in the log.
# `timeout` bounds the server even if this script is killed.
timeout 3600 "$BIN" --echo-endpoint --host 127.0.0.1 --port 0 --data "$work/data" > "$work/server.out" 2>&1 &
server_pid=$!
port=""
for _ in $(seq 1 300); do
    port="$(sed -n 's|^ *Home: *http://127\.0\.0\.1:\([0-9]*\)/.*|\1|p' "$work/server.out" | head -n 1)"
    [ -n "$port" ] && break
    kill -0 "$server_pid" 2>/dev/null || break
    sleep 0.1
done
if [ -z "$port" ]; then
    echo "echo-suite: the server did not start:" >&2
    grep -v -i "key" "$work/server.out" >&2 || true
    exit 1
fi

started=$(date +%s)
set +e
STRICT=1 AUTOBAHN_VENV="$VENV" REPORT_DIR="$work/report" AGENT=tombola \
    "$HERE/run.sh" "ws://127.0.0.1:$port/ws/echo" "$CASES"
rc=$?
set -e
echo "Autobahn run took $(( $(date +%s) - started )) s"
if ! kill -0 "$server_pid" 2>/dev/null; then
    echo "echo-suite: the server died during the run" >&2
    rc=1
fi
[ $rc -eq 0 ] || keep_report=1
exit $rc
