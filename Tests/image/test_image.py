"""The container image from scripts/image, loaded and run with podman on loopback.

TOMBOLA_IMAGE names the OCI archive (scripts/test builds it under TOMBOLA_IMAGE_TEST=1: a
release build takes minutes). Podman keeps its images and containers in a store of this test's
own (removed at the end), so nothing is added to, or taken from, the machine's. The checks: the
image's config (labels with this checkout's version and commit, the user, the volume, the
healthcheck) as podman reads it; a container with the image's defaults (no argument, the port
mapped to 127.0.0.1) serves every page built into the server, runs as `tombola`, passes its
healthcheck, takes a GB18030 spreadsheet as its pool (the one iconv module the image keeps)
and draws a round; then a new container on the same volume serves the same record, and the
image's own `tombola verify` rechecks its export. Last, deploy/compose's cluster: the
environment compose.yaml gives its two instances (every variable one the server knows), two
containers with exactly that on a private redis-server, one round seen by both; its Caddyfile
adapts. (Compose itself and the Redis and Caddy images are not run: they come from a registry.)
"""
import json
import os
import re
import resource
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "peers"))
from test_cluster import Redis  # noqa: E402 (the peers' private redis-server)

IMAGE = os.environ.get("TOMBOLA_IMAGE")
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PUBLIC = os.path.join(ROOT, "Public")
COMPOSE = os.path.join(ROOT, "deploy", "compose")
CODE = "IMAGE1"
HOST_KEY = "image-host-key-0123456789"
# What deploy/compose/compose.yaml sets: the server writes nothing outside its volume and /tmp.
HARDENED = ["--read-only", "--tmpfs", "/tmp", "--cap-drop", "ALL", "--security-opt", "no-new-privileges"]
ENTRANTS = "姓名,票数\r\n李雷,3\r\n韩梅梅,1\r\n欧阳娜娜,5\r\n"


class Podman:
    """podman with a throwaway store; runc where the cgroup tree is not pure v2 (crun refuses
    a hybrid one, as on this project's build machine), and limits podman may set as root
    without CAP_SYS_RESOURCE (its own defaults are above the hard limits a CI box has)."""

    def __init__(self, store):
        self.base = ["podman", "--root", os.path.join(store, "root"), "--runroot", os.path.join(store, "run")]
        if os.geteuid() == 0 and not os.path.exists("/sys/fs/cgroup/cgroup.controllers"):
            self.base += ["--runtime", "runc"]
        nofile = min(resource.getrlimit(resource.RLIMIT_NOFILE)[1], 65536)
        self.limits = ["--ulimit", "nofile=%d:%d" % (nofile, nofile), "--ulimit", "nproc=4096:4096"]

    def __call__(self, *args, check=True, timeout=120):
        result = subprocess.run(self.base + list(args), capture_output=True, text=True, timeout=timeout)
        assert not check or result.returncode == 0, (args, result.stdout, result.stderr)
        return result


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def podman():
    assert IMAGE and os.path.isfile(IMAGE), "set TOMBOLA_IMAGE to the archive built by scripts/image"
    store = tempfile.mkdtemp(prefix="tombola-podman-")
    tool = Podman(store)
    try:
        loaded = tool("load", "--input", IMAGE, timeout=300).stdout
        with open(os.path.join(ROOT, "VERSION")) as f:
            tool.image = "localhost/tombola:" + f.read().strip()
        assert tool.image in loaded, loaded
        yield tool
    finally:
        tool("system", "reset", "--force", check=False, timeout=120)
        shutil.rmtree(store, ignore_errors=True)


def call(base, method, path, body=None, key=None, content_type=None):
    request = urllib.request.Request(base + path, method=method, data=body)
    if key:
        request.add_header("Authorization", "Bearer " + key)
    if content_type:
        request.add_header("Content-Type", content_type)
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def start(podman, name, volume, port):
    """A container with the image's entrypoint and defaults (only the draw and its key are set),
    hardened as compose.yaml runs it."""
    podman("run", "--detach", "--name", name, *podman.limits, *HARDENED, "--publish", "127.0.0.1:%d:8080" % port,
           "--volume", volume + ":/var/lib/tombola", "--env", "TOMBOLA_DEFAULT_DRAW=" + CODE,
           "--env", "TOMBOLA_HOST_KEY=" + HOST_KEY, podman.image)
    return wait_ready(podman, name, "http://127.0.0.1:%d" % port)


def wait_ready(podman, name, base):
    deadline = time.monotonic() + 60
    while True:
        try:
            if call(base, "GET", "/readyz")[0] == 200:
                return base
        except OSError:
            pass
        state = podman("inspect", "--format", "{{.State.Status}}", name).stdout.strip()
        assert state == "running", podman("logs", name, check=False).stdout
        assert time.monotonic() < deadline, "the container did not get ready"
        time.sleep(0.1)


def stop(podman, name):
    podman("stop", "--time", "20", name)
    assert podman("inspect", "--format", "{{.State.ExitCode}}", name).stdout.strip() == "0"
    podman("rm", name)


def test_the_image_config_names_this_build(podman):
    info = json.loads(podman("image", "inspect", podman.image).stdout)[0]
    labels = info["Config"]["Labels"]
    with open(os.path.join(ROOT, "VERSION")) as f:
        assert labels["org.opencontainers.image.version"] == f.read().strip()
    head = subprocess.run(["git", "-C", ROOT, "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
    assert labels["org.opencontainers.image.revision"] == head
    assert labels["org.opencontainers.image.source"].startswith("https://")
    # Stamped with the commit's time (SOURCE_DATE_EPOCH), not the build's: the same commit builds the same image.
    epoch = int(subprocess.run(["git", "-C", ROOT, "log", "-1", "--format=%ct"], capture_output=True, text=True).stdout)
    assert labels["org.opencontainers.image.created"] == time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(epoch))
    assert info["Config"]["User"] == "10001:10001"
    assert info["Config"]["Entrypoint"] == ["/usr/bin/tombola"]
    assert list(info["Config"]["Volumes"]) == ["/var/lib/tombola"]
    assert list(info["Config"]["ExposedPorts"]) == ["8080/tcp"]
    # Podman reads the healthcheck from the Docker-format config (scripts/oci-layout says why).
    assert info["Healthcheck"]["Test"][-1] == "http://127.0.0.1:8080/readyz", info.get("Healthcheck")
    # One layer, no base image: Debian's packages and nothing else (no shell, no apt).
    assert len(info["RootFS"]["Layers"]) == 1
    assert podman("run", "--rm", *podman.limits, "--entrypoint", "/bin/sh", podman.image, "-c", "true", check=False).returncode != 0


def test_a_container_serves_draws_and_its_volume_keeps_them(podman, tmp_path):
    volume = "tombola-test-%d" % os.getpid()
    port = free_port()
    base = start(podman, "tombola-a", volume, port)
    try:
        # Every file of Public/, byte for byte, and the pages of the draw.
        served = 0
        for directory, _, names in os.walk(PUBLIC):
            for name in names:
                path = os.path.relpath(os.path.join(directory, name), PUBLIC)
                with open(os.path.join(PUBLIC, path), "rb") as f:
                    assert call(base, "GET", "/" + path) == (200, f.read()), path
                served += 1
        assert served > 30
        for route in ("/", "/calc", "/draw/" + CODE, "/screen/" + CODE, "/watch/" + CODE):
            status, page = call(base, "GET", route)
            assert status == 200 and b"<html" in page.lower(), route
        # The server runs as the image's user, and the image's healthcheck passes.
        users = podman("top", "tombola-a", "user", "args").stdout
        assert "tombola" in users and "root" not in users, users
        assert podman("healthcheck", "run", "tombola-a", check=False).returncode == 0
        # A Chinese Excel CSV as the pool (GB18030: the image keeps that iconv module), a round.
        status, body = call(base, "PUT", "/api/draws/%s/pool" % CODE, ENTRANTS.encode("gb18030"), HOST_KEY, "text/csv")
        assert status == 200 and json.loads(body)["count"] == 3, body
        assert call(base, "POST", "/api/draws/%s/start" % CODE, b"{}", HOST_KEY)[0] == 200
        status, body = call(base, "POST", "/api/draws/%s/stop" % CODE, b"{}", HOST_KEY)
        assert status == 200, body
        winners = json.loads(body)["result"]["winners"]
        assert winners
        status, before = call(base, "GET", "/api/draws/%s/export.json" % CODE)
        assert status == 200
    finally:
        stop(podman, "tombola-a")

    # A new container on the same volume: the same record, and it takes the next round.
    base = start(podman, "tombola-b", volume, port)
    try:
        status, after = call(base, "GET", "/api/draws/%s/export.json" % CODE)
        assert status == 200
        # Every record is kept (a restarted server may add a commitment for its next round).
        before_records = json.loads(before)["records"]
        assert json.loads(after)["records"][:len(before_records)] == before_records
        assert call(base, "POST", "/api/draws/%s/start" % CODE, b"{}", HOST_KEY)[0] == 200
        assert call(base, "POST", "/api/draws/%s/stop" % CODE, b"{}", HOST_KEY)[0] == 200
        status, export = call(base, "GET", "/api/draws/%s/export.json" % CODE)
        assert len(json.loads(export)["records"]) > len(json.loads(before)["records"])
    finally:
        stop(podman, "tombola-b")

    # The image's own verifier rechecks the export (read-only mount, readable by user 10001).
    shared = tmp_path / "export"
    shared.mkdir()
    os.chmod(shared, 0o755)
    (shared / "export.json").write_bytes(export)
    os.chmod(shared / "export.json", 0o644)
    verify = podman("run", "--rm", *podman.limits, "--volume", "%s:/export:ro" % shared, podman.image,
                    "verify", "/export/export.json", check=False)
    assert verify.returncode == 0, verify.stdout + verify.stderr
    podman("volume", "rm", volume)


def compose_environment(values):
    """The environment compose.yaml gives each instance (its x-tombola block), with `values`
    for its ${VAR:-default} / ${VAR:?message} references, as Compose interpolates them."""
    with open(os.path.join(COMPOSE, "compose.yaml")) as f:
        block = f.read().split("x-tombola: &tombola\n", 1)[1].split("\n  environment:\n", 1)[1]
    environment = {}
    for line in block.splitlines():
        if not line.startswith("    "):
            break
        line = line.strip()
        if line and not line.startswith("#"):
            name, value = line.split(":", 1)
            value = value.strip().strip('"')
            environment[name] = re.sub(r"\$\{(\w+)(?::[-?]([^}]*))?\}", lambda m: values.get(m.group(1), m.group(2)), value)
    return environment


def test_the_compose_cluster_runs_on_redis(podman, tmp_path):
    values = {"TOMBOLA_CLUSTER_KEY": os.urandom(32).hex(), "TOMBOLA_HOST_KEY": HOST_KEY,
              "TOMBOLA_ADMIN_KEY": "image-admin-key-0123456789", "TOMBOLA_DEFAULT_DRAW": CODE}
    environment = compose_environment(values)
    assert environment["TOMBOLA_DEFAULT_DRAW"] == CODE and environment["TOMBOLA_REDIS"].startswith("redis://")
    usage = podman("run", "--rm", *podman.limits, podman.image, "--help").stdout
    for name in environment:
        assert "[%s]" % name in usage or name == "TOMBOLA_CLUSTER_KEY", name
    with open(os.path.join(COMPOSE, "env.example")) as f:
        assert set(re.findall(r"^(TOMBOLA_\w+)=", f.read(), flags=re.M)) >= set(values)
    adapted = subprocess.run(["caddy", "adapt", "--adapter", "caddyfile", "--config", os.path.join(COMPOSE, "Caddyfile")],
                             env=dict(os.environ, TOMBOLA_DOMAIN="raffle.example.org"), capture_output=True, text=True, timeout=60)
    assert adapted.returncode == 0, adapted.stderr
    assert '"uri":"/readyz"' in adapted.stdout.replace(" ", "") and "tombola-2:8080" in adapted.stdout

    # compose.yaml's network is replaced by the host's loopback: Redis here, one port each.
    redis_dir = tmp_path / "redis"
    redis_dir.mkdir()
    redis = Redis(str(redis_dir))
    names, bases = ["tombola-c1", "tombola-c2"], []
    try:
        for name in names:
            port = free_port()
            settings = dict(environment, TOMBOLA_REDIS=redis.url, TOMBOLA_HOST="127.0.0.1", TOMBOLA_PORT=str(port))
            podman("run", "--detach", "--name", name, "--network", "host", *podman.limits, *HARDENED,
                   "--volume", name + ":/var/lib/tombola", *[a for k, v in settings.items() for a in ("--env", k + "=" + v)],
                   podman.image)
            bases.append(wait_ready(podman, name, "http://127.0.0.1:%d" % port))
        status, body = call(bases[1], "PUT", "/api/draws/%s/pool" % CODE, ENTRANTS.encode("utf-8"), HOST_KEY, "text/csv")
        assert status == 200, body
        assert call(bases[0], "POST", "/api/draws/%s/start" % CODE, b"{}", HOST_KEY)[0] == 200
        status, body = call(bases[0], "POST", "/api/draws/%s/stop" % CODE, b"{}", HOST_KEY)
        assert status == 200 and json.loads(body)["result"]["winners"], body
        exports = [json.loads(call(base, "GET", "/api/draws/%s/export.json" % CODE)[1]) for base in bases]
        assert exports[0]["records"] == exports[1]["records"] and exports[0]["records"]
    finally:
        for name in names:
            podman("rm", "--force", "--time", "0", name, check=False)
            podman("volume", "rm", name, check=False)
        redis.kill()
