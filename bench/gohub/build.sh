#!/usr/bin/env bash
# Builds the Go peer hub (BENCHMARKS.md, "Go hub") in GOPATH mode against Debian's
# gorilla/websocket, into bench/gohub/gohub. Installs the two Debian packages if missing.
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/deps.sh
tombola_install_packages "${TOMBOLA_BENCH_PACKAGES[@]}"
cd bench/gohub
GOPATH=/usr/share/gocode GO111MODULE=off GOFLAGS= go build -o gohub main.go
echo "built bench/gohub/gohub"
