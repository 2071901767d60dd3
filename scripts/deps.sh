# Sourced by scripts/run and scripts/test: installs the Debian packages Tombola needs.
# As root it runs apt-get; otherwise it prints the exact sudo line and stops.

tombola_require_swift() {
    if ! command -v swift >/dev/null 2>&1; then
        echo "tombola: the Swift toolchain (6.0 or newer) is not on PATH." >&2
        echo "Install it from https://www.swift.org/install/linux/ and run this command again." >&2
        exit 1
    fi
}

# tombola_install_packages PKG… — installs whichever of the packages are missing.
tombola_install_packages() {
    local missing=()
    local pkg
    for pkg in "$@"; do
        if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed'; then
            missing+=("$pkg")
        fi
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    if [ "$(id -u)" -ne 0 ]; then
        echo "tombola: these Debian packages are missing: ${missing[*]}" >&2
        echo "Install them with:" >&2
        echo "  sudo apt-get install -y ${missing[*]}" >&2
        echo "then run this command again." >&2
        exit 1
    fi
    echo "tombola: installing ${missing[*]}" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >&2
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
}

# Libraries the server links against (SwiftPM system-library targets).
TOMBOLA_BUILD_PACKAGES=(pkg-config zlib1g-dev libsqlite3-dev libssl-dev libgmp-dev libmpfr-dev libqrencode-dev libhiredis-dev libsystemd-dev
                        libcurl4-openssl-dev)
# Test peers: Python for websockets/mpmath/selenium, Chromium for the browser tests, patch for
# the Autobahn|Testsuite's Python 3 port (scripts/autobahn); the deployment tests' package tools
# (dpkg-dev, lintian, systemd-analyze) and reverse proxies (openssl makes the HTTPS test certificate);
# redis-server and haproxy for the cluster tests.
# Fonts the pages are drawn with in every screenshot and browser test, whatever the machine had
# before: a CJK font (Chinese pages, names) and a colour-emoji font (emoji in names on the wheel
# and the projector).
TOMBOLA_TEST_PACKAGES=(python3 python3-venv strace chromium chromium-driver fonts-wqy-microhei fonts-noto-color-emoji sqlite3 patch
                       dpkg-dev binutils lintian systemd nginx-light caddy redis-server openssl haproxy)
# Benchmark peers (not needed by the tests): the Go hub (bench/gohub/build.sh: Go in GOPATH mode
# with Debian's gorilla/websocket), wrk and nginx for `tombola-bench static`.
TOMBOLA_BENCH_PACKAGES=(golang-go golang-github-gorilla-websocket-dev wrk nginx-light)
# scripts/package: dpkg-shlibdeps (dpkg-dev) and strip (binutils).
TOMBOLA_PACKAGE_PACKAGES=(dpkg-dev binutils)
# scripts/image: it writes the OCI layout with Python (tar, gzip, sha256) from .debs that
# apt-get download fetches and dpkg-deb unpacks (both always present on Debian).
TOMBOLA_IMAGE_PACKAGES=(python3)
# The image test (Tests/image/test_image.py, TOMBOLA_IMAGE_TEST=1): podman runs the archive
# (with crun, conmon and the CNI plugins it depends on; runc where crun refuses a hybrid cgroup
# tree; slirp4netns and uidmap when run rootless).
TOMBOLA_IMAGE_TEST_PACKAGES=(podman runc slirp4netns uidmap)
