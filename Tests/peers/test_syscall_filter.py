"""The packaged unit's `SystemCallFilter=~@privileged @resources` and `ProcSubset=pid`
(deploy/systemd/tombola.service) must never refuse a call or a file the server needs. systemd is not PID 1 in every test machine, so the
server runs under strace as an unprivileged user (as `DynamicUser=` runs it), is driven
through start-up, pages, REST, a WebSocket, a drawn round and a graceful stop, and every
system call it made is checked against the two groups as this machine's `systemd-analyze
syscall-filter` expands them.
"""
import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
import time
import urllib.request

from websockets.sync.client import connect

from test_fairness_script import tombola_binary

HOST_KEY = "peer-host-key-0123456789"


def expand(groups, seen=None):
    seen = set() if seen is None else seen
    names = set()
    for group in groups:
        if group in seen:
            continue
        seen.add(group)
        text = subprocess.run(["systemd-analyze", "syscall-filter", group], capture_output=True, text=True, check=True).stdout
        for line in text.splitlines()[1:]:
            item = line.strip()
            if item.startswith("@"):
                names |= expand([item], seen)
            elif item and not item.startswith("#"):
                names.add(item)
    return names


def test_the_server_makes_no_privileged_or_resources_call(tmp_path):
    forbidden = expand(["@privileged", "@resources"])
    assert {"setuid", "setrlimit", "sched_setaffinity", "chown"} <= forbidden
    work = tempfile.mkdtemp(prefix="tombola-seccomp-")
    os.chmod(work, 0o777)
    public = os.path.join(work, "Public")
    os.mkdir(public)
    with open(os.path.join(public, "index.html"), "w") as f:
        f.write("<!doctype html><title>t</title>")
    trace, out = os.path.join(work, "strace.txt"), os.path.join(work, "stdout.txt")
    user = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"] if os.geteuid() == 0 else []
    process = subprocess.Popen(
        ["strace", "-f", "-qq", "-o", trace, *user, tombola_binary(), "--host", "127.0.0.1", "--port", "0",
         "--data", os.path.join(work, "data"), "--public", public, "--default-draw", "SECCOMP1", "--host-key", HOST_KEY,
         "--access-log"],
        stdout=open(out, "w"), stderr=subprocess.STDOUT)
    try:
        deadline = time.time() + 60
        while not re.search(r"http://127\.0\.0\.1:(\d+)/", open(out).read()):
            assert process.poll() is None and time.time() < deadline, open(out).read()
            time.sleep(0.1)
        base = "http://127.0.0.1:%s" % re.search(r"http://127\.0\.0\.1:(\d+)/", open(out).read()).group(1)
        for path in ("/", "/healthz", "/readyz", "/metrics", "/api/info", "/api/draws/SECCOMP1"):
            assert urllib.request.urlopen(base + path, timeout=20).status == 200, path

        def command(name):
            request = urllib.request.Request(base + "/api/draws/SECCOMP1/" + name, data=b"{}", method="POST",
                                             headers={"Authorization": "Bearer " + HOST_KEY, "Content-Type": "application/json"})
            return urllib.request.urlopen(request, timeout=30).status

        with connect(base.replace("http", "ws") + "/ws/draw/SECCOMP1", open_timeout=20) as ws:
            assert json.loads(ws.recv(timeout=20))["type"] == "state"
            assert command("start") == 200 and command("stop") == 200
        # The server is strace's child (setpriv execs it): its pid opens the trace.
        os.kill(int(open(trace).readline().split()[0]), signal.SIGTERM)
        assert process.wait(timeout=60) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    text = open(trace).read()
    # From tombola's own execve on (setpriv's setresuid/setgroups/capset before it are systemd's part).
    text = text[text.index('execve("%s"' % tombola_binary()):]
    calls = set(re.findall(r"^\d+\s+([a-z_0-9]+)\(", text, re.M))
    try:
        assert len(calls) > 30, calls
        assert {"epoll_wait", "accept4", "fsync"} & calls
        assert not calls & forbidden, sorted(calls & forbidden)
        # ProcSubset=pid: nothing but the process's own /proc entries is read, besides the one file
        # glibc's malloc tries when it shrinks a thread arena (overcommit_memory; hidden, it keeps
        # its default, glibc's check_may_shrink_heap in sysdeps/unix/sysv/linux/malloc-sysdep.h).
        paths = set(re.findall(r'"(/proc/[^"]*)"', text)) - {"/proc/sys/vm/overcommit_memory"}
        assert any(path.startswith("/proc/self/stat") for path in paths), paths
        assert all(path.startswith(("/proc/self/", "/proc/thread-self/")) for path in paths), paths
    finally:
        shutil.rmtree(work, ignore_errors=True)
