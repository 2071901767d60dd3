"""`tombola host-link CODE`: a lost host link is recovered on the machine that holds the
data, with the real binary and a running server: the new key works at once (no restart),
the old one stops working (also for a page that authenticated with it), the audit log
records the reset without the key, and the start-up banner points to the command."""
import json
import os
import re
import sqlite3
import subprocess
import time

from websockets.sync.client import connect

from test_draw_export import CODE, HOST_KEY, Tombola, data_dir  # noqa: F401 (fixture)
from test_fairness_script import tombola_binary


def host_link(*args):
    return subprocess.run([tombola_binary(), "host-link", *args], capture_output=True, text=True, timeout=30)


def clear_status(server, key):
    """Clear (harmless on an idle draw) needs the host key: 200 with it, 401/403 without."""
    status, _ = server.request("POST", "/api/draws/%s/clear" % CODE, body={}, key=key)
    return status


def next_message(socket, wanted):
    while True:
        message = json.loads(socket.recv(timeout=5))
        if message["type"] == wanted:
            return message


def test_host_link_issues_a_new_key_that_a_running_server_takes_at_once(data_dir):
    server = Tombola(data_dir)
    try:
        assert clear_status(server, HOST_KEY) == 200
        page = connect("ws://127.0.0.1:%d/ws/draw/%s" % (server.port, CODE))
        next_message(page, "state")
        page.send(json.dumps({"type": "auth", "key": HOST_KEY}))
        assert next_message(page, "role")["role"] == "host"

        done = host_link(CODE.lower(), "--data", data_dir, "--host", "127.0.0.1", "--port", str(server.port))
        assert done.returncode == 0, done.stderr
        link = re.search(r"http://127\.0\.0\.1:%d/draw/%s#key=([a-z2-7]{26})" % (server.port, CODE), done.stdout)
        assert link, done.stdout
        new_key = link.group(1)
        assert HOST_KEY not in done.stdout + done.stderr

        # The running server notices within a second or so: no restart.
        deadline = time.time() + 10
        while clear_status(server, new_key) != 200:
            assert time.time() < deadline, "the running server never took the new key"
            time.sleep(0.1)
        assert clear_status(server, HOST_KEY) in (401, 403)
        # The page that authenticated with the old key is a viewer now.
        assert next_message(page, "role")["role"] == "viewer"
        page.close()
    finally:
        server.stop()

    db = sqlite3.connect(os.path.join(data_dir, "tombola.sqlite"))
    try:
        rows = db.execute("SELECT actor, action, detail_json FROM audit WHERE draw_code = ? ORDER BY idx", (CODE,)).fetchall()
        everything = json.dumps(db.execute("SELECT * FROM audit").fetchall())
    finally:
        db.close()
    assert ("system", "host_key_reset", '{"via":"host-link"}') in rows
    assert new_key not in everything and HOST_KEY not in everything

    # Started again without --host-key, the banner says how to get a new link.
    proc = subprocess.Popen([tombola_binary(), "--host", "127.0.0.1", "--port", "0", "--data", data_dir,
                             "--default-draw", CODE], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        banner = ""
        deadline = time.time() + 20
        while "Press Ctrl-C" not in banner:
            line = proc.stdout.readline()
            assert line and time.time() < deadline, "no banner: " + banner
            banner += line
        assert "tombola host-link %s" % CODE in banner
        assert "#key=" not in banner
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_host_link_refuses_an_unknown_draw_or_missing_data(data_dir, tmp_path):
    Tombola(data_dir).stop()
    unknown = host_link("NOPE99", "--data", data_dir)
    assert unknown.returncode == 1 and "no draw NOPE99" in unknown.stderr and unknown.stdout == ""
    missing = host_link(CODE, "--data", str(tmp_path / "nothing-here"))
    assert missing.returncode == 1 and "no draws in" in missing.stderr
    assert not (tmp_path / "nothing-here").exists()
    usage = host_link()
    assert usage.returncode == 2 and "usage: tombola host-link CODE" in usage.stderr
    bad = host_link(CODE, "--data", data_dir, "--port", "many")
    assert bad.returncode == 2
