"""Operator keys with the real binary (issue #25): keys read from files (flags and
TOMBOLA_*_FILE) work and never reach /proc/PID/cmdline or the banner; short keys are refused at
start; a generated admin key is printed once and survives a restart; `tombola admin-link`
replaces it while the server runs; and a refusal names the key that was wrong (#34)."""
import json
import os
import re
import subprocess
import time
import urllib.error
import urllib.request

from test_draw_export import data_dir  # noqa: F401 (fixture)
from test_fairness_script import tombola_binary


class Server:
    """`tombola` on 127.0.0.1 with the given arguments and environment; reads its banner."""

    def __init__(self, data, *args, env=None):
        self.proc = subprocess.Popen([tombola_binary(), "--host", "127.0.0.1", "--port", "0", "--data", data, *args],
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                     env={**os.environ, **(env or {})})
        self.banner = ""
        deadline = time.time() + 30
        while "Press Ctrl-C" not in self.banner:
            line = self.proc.stdout.readline()
            assert line, "tombola exited: " + self.proc.stderr.read()
            assert time.time() < deadline, "no banner: " + self.banner
            self.banner += line
        self.base = re.search(r"(http://127\.0\.0\.1:\d+)/", self.banner).group(1)

    def post(self, path, key):
        request = urllib.request.Request(self.base + path, data=b"{}", method="POST",
                                         headers={"Authorization": "Bearer " + key, "Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                return response.status, json.loads(response.read())
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read())

    def refusal(self, path, key):
        """The answer to a wrong key, past the rate limit the test's own tries may have spent."""
        deadline = time.time() + 20
        while True:
            status, body = self.post(path, key)
            if status != 429:
                return status, body
            assert time.time() < deadline, "still rate-limited"
            time.sleep(0.5)

    def stop(self):
        self.proc.terminate()
        self.proc.wait(timeout=10)


def admin_key_in(text):
    found = re.findall(r"/#admin=([a-z2-7]{26})", text)
    return found[0] if found else None


def test_keys_from_files_work_and_stay_out_of_the_command_line_and_banner(data_dir, tmp_path):
    host_key, admin_key = "host-key-in-a-file-4f1c", "admin-key-in-a-file-9b2e"
    (tmp_path / "host").write_text(host_key + "\n")
    (tmp_path / "admin").write_text(admin_key + "\n")
    server = Server(data_dir, "--default-draw", "KEYS01", "--host-key-file", str(tmp_path / "host"),
                    env={"TOMBOLA_ADMIN_KEY_FILE": str(tmp_path / "admin")})
    try:
        with open("/proc/%d/cmdline" % server.proc.pid, "rb") as f:
            cmdline = f.read()
        with open("/proc/%d/environ" % server.proc.pid, "rb") as f:
            environ = f.read()
        for key in (host_key, admin_key):
            assert key.encode() not in cmdline and key.encode() not in environ
            assert key not in server.banner
        assert "--host-key-file" in server.banner and "--admin-key-file" in server.banner
        assert server.post("/api/draws/KEYS01/clear", host_key)[0] == 200
        status, created = server.post("/api/draws", admin_key)
        assert status == 201 and created["code"]
    finally:
        server.stop()
    assert admin_key not in server.proc.stderr.read()


def test_short_or_missing_keys_are_refused_at_start(data_dir, tmp_path):
    (tmp_path / "empty").write_text("\n")
    for args, env, said in [
        (["--admin-key", "s3cr3t"], {}, "--admin-key: the admin key must be at least 16 characters, this one has 6"),
        ([], {"TOMBOLA_HOST_KEY": "x"}, "the host key must be at least 16 characters, this one has 1"),
        (["--admin-key-file", str(tmp_path / "missing")], {}, "does not exist"),
        ([], {"TOMBOLA_HOST_KEY_FILE": str(tmp_path / "empty")}, "is empty"),
    ]:
        done = subprocess.run([tombola_binary(), "--port", "0", "--data", data_dir, *args], capture_output=True, text=True,
                              timeout=30, env={**os.environ, **env})
        assert done.returncode == 2 and said in done.stderr, (args, done.stderr)
        assert "s3cr3t" not in done.stderr
    assert os.listdir(data_dir) == []


def test_a_generated_admin_key_survives_a_restart_and_admin_link_replaces_it(data_dir):
    first = Server(data_dir)
    try:
        key = admin_key_in(first.banner)
        assert key, first.banner
        assert first.post("/api/draws", key)[0] == 201
    finally:
        first.stop()

    second = Server(data_dir)
    try:
        assert admin_key_in(second.banner) is None and "tombola admin-link" in second.banner
        assert second.post("/api/draws", key)[0] == 201

        port = second.base.rsplit(":", 1)[1]
        done = subprocess.run([tombola_binary(), "admin-link", "--data", data_dir, "--host", "127.0.0.1", "--port", port],
                              capture_output=True, text=True, timeout=30)
        assert done.returncode == 0, done.stderr
        new_key = admin_key_in(done.stdout)
        assert new_key and new_key != key and "%s/#admin=%s" % (second.base, new_key) in done.stdout
        deadline = time.time() + 10
        while second.post("/api/draws", new_key)[0] != 201:
            assert time.time() < deadline, "the running server never took the new admin key"
            time.sleep(0.2)
        # The old key is refused, and the refusal says it was the admin key.
        status, body = second.refusal("/api/draws", key)
        assert status == 403 and body["error"]["code"] == "bad_admin_key" and "admin key" in body["error"]["message"]
        code = second.banner.split("/screen/")[1].split()[0]
        status, body = second.refusal("/api/draws/%s/clear" % code, new_key)
        assert status == 403 and body["error"]["code"] == "bad_key" and "host key" in body["error"]["message"]
    finally:
        second.stop()

    missing = subprocess.run([tombola_binary(), "admin-link", "--data", data_dir + "-nowhere"], capture_output=True, text=True,
                             timeout=30)
    assert missing.returncode == 1 and "no draws in" in missing.stderr and not os.path.exists(data_dir + "-nowhere")
