"""`Type=notify` without systemd: the test is the service manager. It binds a datagram socket,
starts `tombola` with `NOTIFY_SOCKET` and `WATCHDOG_USEC` as systemd would, and reads what
libsystemd's sd_notify sends: `READY=1` once the port is bound, `WATCHDOG=1` every half
watchdog interval while the event loops answer, `STOPPING=1` on SIGTERM, then a clean exit.
"""
import os
import signal
import socket
import subprocess
import tempfile
import time

from test_fairness_script import tombola_binary


def test_ready_watchdog_and_stopping_reach_the_notify_socket(tmp_path):
    path = str(tmp_path / "notify")
    manager = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    manager.bind(path)
    manager.settimeout(20)
    public = tempfile.mkdtemp(prefix="tombola-notify-public-")
    with open(os.path.join(public, "index.html"), "w") as f:
        f.write("<!doctype html><title>t</title>")
    env = dict(os.environ, NOTIFY_SOCKET=path, WATCHDOG_USEC="1000000")
    process = subprocess.Popen([tombola_binary(), "--host", "127.0.0.1", "--port", "0", "--data", str(tmp_path / "data"),
                                "--public", public], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    try:
        ready = manager.recv(4096).decode()
        assert ready.startswith("READY=1\nSTATUS=serving http://"), ready
        pings, started = 0, time.monotonic()
        while pings < 3:
            message = manager.recv(4096).decode()
            assert message == "WATCHDOG=1", message
            pings += 1
        # Half of WATCHDOG_USEC apart (0.5 s): three within a loaded machine's generous bound.
        assert time.monotonic() - started < 10
        process.send_signal(signal.SIGTERM)
        while True:
            message = manager.recv(4096).decode()
            if message != "WATCHDOG=1":
                break
        assert message == "STOPPING=1"
        assert process.wait(timeout=30) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        manager.close()
