"""The Debian package from scripts/package, checked and run from a throwaway root.

TOMBOLA_DEB names the .deb (scripts/test builds it with scripts/package under CI=true or
TOMBOLA_PACKAGE_TEST=1: a release build takes minutes). The test reads `dpkg-deb --info`
and the contents, runs lintian (no errors), unpacks the package with `dpkg -x`, checks that
every library the binary needs resolves without the Swift toolchain's, runs
`systemd-analyze verify` on the unit inside that root, then starts the installed binary with
the unit's ExecStart and its environment file, serves every page built into it (the package
holds no page tree), draws a round and rechecks it with the installed `tombola verify`.
"""
import gzip
import hashlib
import json
import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.request

import pytest

DEB = os.environ.get("TOMBOLA_DEB")
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PUBLIC = os.path.join(ROOT, "Public")
REQUIRED_DEPENDS = ["libgmp10", "libmpfr6", "libqrencode4", "libsqlite3-0", "libssl3", "zlib1g"]


@pytest.fixture(scope="module")
def deb():
    assert DEB and os.path.isfile(DEB), "set TOMBOLA_DEB to the .deb built by scripts/package"
    return DEB


@pytest.fixture(scope="module")
def root(deb):
    path = tempfile.mkdtemp(prefix="tombola-deb-root-")
    subprocess.run(["dpkg", "-x", deb, path], check=True, timeout=300)
    yield path
    shutil.rmtree(path, ignore_errors=True)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_control_fields_and_contents(deb):
    info = subprocess.run(["dpkg-deb", "--info", deb], capture_output=True, text=True, check=True).stdout
    fields = dict(re.findall(r"^ (\S+): (.*)$", info, flags=re.M))
    assert fields["Package"] == "tombola"
    assert fields["Maintainer"] == "Tombola maintainers <maintainers@tombola.invalid>"
    assert fields["Homepage"].startswith("https://")
    with open(os.path.join(ROOT, "VERSION")) as f:
        assert fields["Version"] == f.read().strip()
    assert fields["Architecture"] == subprocess.run(["dpkg", "--print-architecture"], capture_output=True, text=True).stdout.strip()
    depends = [item.strip().split(" ")[0] for item in fields["Depends"].split(",")]
    for library in REQUIRED_DEPENDS:
        assert library in depends, fields["Depends"]
    assert not any("swift" in name for name in depends)
    for script in ("postinst", "prerm", "postrm", "conffiles"):
        assert script in info
    contents = subprocess.run(["dpkg-deb", "--contents", deb], capture_output=True, text=True, check=True).stdout
    for path in ("./usr/bin/tombola", "./lib/systemd/system/tombola.service", "./etc/default/tombola", "./usr/share/man/man1/tombola.1.gz",
                 "./usr/share/doc/tombola/copyright", "./usr/share/doc/tombola/DEPLOY.md",
                 "./usr/share/doc/tombola/examples/tombola.conf", "./usr/share/doc/tombola/examples/Caddyfile"):
        assert re.search(r" %s$" % re.escape(path), contents, flags=re.M), path
    assert re.search(r"^-rw------- root/root .* \./etc/default/tombola$", contents, flags=re.M)
    # The pages are inside the binary: no page tree anywhere in the package.
    assert not re.search(r"\.(html|js|css)$", contents, flags=re.M), contents
    assert "./usr/share/tombola/" not in contents


def test_the_copyright_file_grants_the_apache_license(root):
    with open(os.path.join(root, "usr", "share", "doc", "tombola", "copyright")) as f:
        text = f.read()
    assert text.startswith("Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/")
    assert re.search(r"^License: Apache-2\.0$", text, flags=re.M)
    assert "/usr/share/common-licenses/Apache-2.0" in text
    with open(os.path.join(ROOT, "LICENSE")) as f:
        assert "Apache License\n                           Version 2.0, January 2004" in f.read()


def test_lintian_finds_no_errors(deb):
    run = subprocess.run(["lintian", "--tag-display-limit", "0", deb], capture_output=True, text=True, timeout=900)
    errors = [line for line in run.stdout.splitlines() if line.startswith("E:")]
    assert errors == [], run.stdout
    print(run.stdout)  # warnings, if any, for the log


def test_the_binary_needs_only_debian_libraries_and_documents_itself(root):
    binary = os.path.join(root, "usr", "bin", "tombola")
    ldd = subprocess.run(["ldd", binary], capture_output=True, text=True, check=True).stdout
    assert "not found" not in ldd and "swift" not in ldd.lower(), ldd
    with gzip.open(os.path.join(root, "usr", "share", "man", "man1", "tombola.1.gz"), "rt") as f:
        man = f.read()
    assert man.startswith(".TH TOMBOLA 1") and "--trusted-proxy CIDR" in man and "tombola backup" in man
    help_text = subprocess.run([binary, "--help"], capture_output=True, text=True, check=True).stdout
    assert "--trusted-proxy CIDR" in help_text and "--log-format FORMAT" in help_text


def test_systemd_analyze_verifies_the_unit(root):
    # The throwaway root needs the targets the unit names and the commands it runs.
    units = os.path.join(root, "lib", "systemd", "system")
    for name in os.listdir("/lib/systemd/system"):
        if name.endswith((".target", ".slice")) and not os.path.exists(os.path.join(units, name)):
            shutil.copy(os.path.join("/lib/systemd/system", name), units)
    os.makedirs(os.path.join(root, "bin"), exist_ok=True)
    shutil.copy("/bin/kill", os.path.join(root, "bin", "kill"))
    unit = os.path.join(units, "tombola.service")
    run = subprocess.run(["systemd-analyze", "verify", "--man=no", "--root=" + root, unit],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0 and run.stdout.strip() == "" and run.stderr.strip() == "", run.stdout + run.stderr
    text = open(unit).read()
    for setting in ("DynamicUser=yes", "StateDirectory=tombola", "ProtectSystem=strict", "NoNewPrivileges=yes",
                    "PrivateTmp=yes", "RestrictAddressFamilies=", "SystemCallFilter=@system-service", "LimitNOFILE=",
                    "Type=notify", "WatchdogSec=", "ProcSubset=pid", "PrivateMounts=yes", "SystemCallFilter=~@privileged @resources"):
        assert setting in text, setting


def test_the_installed_binary_serves_pages_and_a_draw_with_the_units_command_line(root, tmp_path):
    unit = open(os.path.join(root, "lib", "systemd", "system", "tombola.service")).read()
    exec_start = re.search(r"^ExecStart=(.*)$", unit, flags=re.M).group(1)
    environment_file = re.search(r"^EnvironmentFile=-?(.*)$", unit, flags=re.M).group(1)
    assert environment_file == "/etc/default/tombola"
    state = tmp_path / "state"
    state.mkdir()
    # Paths inside the throwaway root; /var/lib/tombola is the unit's StateDirectory.
    argv = []
    for word in shlex.split(exec_start):
        if word == "/var/lib/tombola":
            argv.append(str(state))
        elif word.startswith("/usr/"):
            argv.append(root + word)
        else:
            argv.append(word)
    env = {"PATH": "/usr/bin:/bin"}
    with open(root + environment_file) as f:
        for line in f:
            line = line.strip()
            if line and not line.startswith("#"):
                name, value = line.split("=", 1)
                env[name] = value
    assert env["TOMBOLA_PORT"] == "8080"
    # What an operator does in /etc/default/tombola: a fixed draw and key (and a free port here).
    port = free_port()
    env.update(TOMBOLA_HOST="127.0.0.1", TOMBOLA_PORT=str(port), TOMBOLA_DEFAULT_DRAW="DEBPKG",
               TOMBOLA_HOST_KEY="deb-host-key-0123456789", TOMBOLA_ACCESS_LOG="1")
    process = subprocess.Popen(argv, env=env, cwd=str(tmp_path), stdout=open(tmp_path / "out.txt", "wb"), stderr=open(tmp_path / "err.txt", "wb"))
    base = "http://127.0.0.1:%d" % port

    def call(method, path, body=None, key=None):
        request = urllib.request.Request(base + path, method=method,
                                         data=None if body is None else json.dumps(body).encode())
        if key:
            request.add_header("Authorization", "Bearer " + key)
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                return response.status, response.read()
        except urllib.error.HTTPError as error:
            return error.code, error.read()

    try:
        deadline = time.monotonic() + 30
        while True:
            assert process.poll() is None, open(tmp_path / "err.txt").read()
            try:
                if call("GET", "/healthz")[0] == 200:
                    break
            except OSError:
                pass
            assert time.monotonic() < deadline, "the installed tombola did not start"
            time.sleep(0.05)
        # Every file of Public/, byte for byte, from the binary alone (no --public in the unit).
        assert "--public" not in exec_start and "TOMBOLA_PUBLIC" not in env
        served = 0
        for directory, _, names in os.walk(PUBLIC):
            for name in names:
                path = os.path.relpath(os.path.join(directory, name), PUBLIC)
                with open(os.path.join(PUBLIC, path), "rb") as f:
                    assert call("GET", "/" + path) == (200, f.read()), path
                served += 1
        assert served > 30
        for route in ("/", "/calc", "/draw/DEBPKG", "/screen/DEBPKG", "/watch/DEBPKG"):
            status, page = call("GET", route)
            assert status == 200 and b"<html" in page.lower(), route
        version = subprocess.run([root + "/usr/bin/tombola", "--version"], capture_output=True, text=True, check=True).stdout
        assert re.match(r"tombola \S+\ncommit \S+\nbuilt \S+\nswift \S+\nsha256 [0-9a-f]{64}\n$", version), version
        # The digest it prints is the installed binary's own (the software's identity on every commit record).
        with open(root + "/usr/bin/tombola", "rb") as f:
            assert version.split("sha256 ")[1].strip() == hashlib.sha256(f.read()).hexdigest()
        assert re.search(r'^tombola_build_info\{version="[^"]+",commit="[^"]+",swift="[^"]+"\} 1$',
                         call("GET", "/metrics")[1].decode(), flags=re.M)
        key = env["TOMBOLA_HOST_KEY"]
        assert call("POST", "/api/draws/DEBPKG/start", {}, key)[0] == 200
        status, body = call("POST", "/api/draws/DEBPKG/stop", {}, key)
        assert status == 200, body
        assert json.loads(body)["result"]["winners"]
        status, export = call("GET", "/api/draws/DEBPKG/export.json")
        assert status == 200
        (tmp_path / "export.json").write_bytes(export)
        verify = subprocess.run([root + "/usr/bin/tombola", "verify", str(tmp_path / "export.json")],
                                capture_output=True, text=True, timeout=60)
        assert verify.returncode == 0, verify.stdout + verify.stderr
        assert os.path.isfile(state / "tombola.sqlite")
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            assert process.wait(timeout=15) == 0
        finally:
            if process.poll() is None:
                process.kill()
