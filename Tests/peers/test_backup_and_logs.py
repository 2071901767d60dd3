"""Operating a server: backups of a live database, upgrades/downgrades, machine-readable logs.

- `tombola backup --data DIR FILE` runs while rounds are being drawn; every copy restores
  with `tombola restore`, serves, and `tombola verify` passes on every draw in it; each copy
  holds a prefix of what the live server ended with (a consistent snapshot).
- A database from a newer Tombola (higher schema version) is refused with a clear message
  and left untouched.
- `--log-format json`: every line on stdout and stderr is one JSON object (start-up, access
  log, draw events, stop, errors), and no key ever appears in them.
"""
import json
import os
import shutil
import sqlite3
import subprocess
import tempfile
import threading

from test_draw_export import ADMIN_KEY, CODE, HOST_KEY, Tombola, data_dir  # noqa: F401 (fixture)
from test_fairness_script import tombola_binary


def tombola(*args, env=None):
    return subprocess.run([tombola_binary(), *args], capture_output=True, text=True, timeout=60, env=env)


def run_rounds(server, code, key, stop_event, done):
    while not stop_event.is_set():
        if server.json("POST", "/api/draws/%s/start" % code, {}, key)[0] == 200:
            status, body = server.json("POST", "/api/draws/%s/stop" % code, {}, key)
            if status == 200:
                done.append(body["result"]["round"])


def exports(server, codes):
    result = {}
    for code in codes:
        status, export = server.json("GET", "/api/draws/%s/export.json" % code)
        assert status == 200, export
        result[code] = export
    return result


def test_a_backup_taken_during_live_draws_restores_and_every_draw_verifies(data_dir, tmp_path):
    server = Tombola(data_dir)
    backups = [str(tmp_path / ("backup-%d.sqlite" % i)) for i in range(3)]
    try:
        status, created = server.json("POST", "/api/draws", {}, ADMIN_KEY)
        assert status == 201
        codes = [CODE, created["code"]]
        keys = {CODE: HOST_KEY, created["code"]: created["hostKey"]}
        assert server.command("config", {"pool": {"kind": "range", "from": 1, "to": 100000}})[0] == 200
        stop_event, threads, done = threading.Event(), [], {code: [] for code in codes}
        for code in codes:
            thread = threading.Thread(target=run_rounds, args=(server, code, keys[code], stop_event, done[code]))
            thread.start()
            threads.append(thread)
        try:
            for path in backups:
                # Each copy is taken while both draws are rolling, stopping and storing rounds.
                before = sum(len(rounds) for rounds in done.values())
                while sum(len(rounds) for rounds in done.values()) < before + 2:
                    assert all(t.is_alive() for t in threads)
                    threading.Event().wait(0.05)
                run = tombola("backup", "--data", data_dir, path)
                assert run.returncode == 0, run.stderr
                assert "tombola backup:" in run.stdout and "2 draws" in run.stdout
        finally:
            stop_event.set()
            for thread in threads:
                thread.join(timeout=30)
        final = exports(server, codes)
    finally:
        server.stop()
    assert all(len(done[code]) >= 2 for code in codes), done

    # A second backup to the same file never overwrites it.
    run = tombola("backup", "--data", data_dir, backups[0])
    assert run.returncode == 1 and "already exists" in run.stderr

    for path in backups:
        restored = tempfile.mkdtemp(prefix="tombola-restored-")
        shutil.rmtree(restored)
        run = tombola("restore", "--data", restored, path)
        assert run.returncode == 0, run.stderr
        again = tombola("restore", "--data", restored, path)
        assert again.returncode == 1 and "already exists" in again.stderr
        # The keys are backed up apart from the database (docs/DEPLOY.md): the signing key comes back
        # beside it, or the records it signed no longer verify against the server's key (issue #47).
        assert "Copy signing.key" in run.stdout
        shutil.copy(os.path.join(data_dir, "signing.key"), os.path.join(restored, "signing.key"))
        copy = Tombola(restored)
        try:
            got = exports(copy, codes)
        finally:
            copy.stop()
            shutil.rmtree(restored, ignore_errors=True)
        for code in codes:
            path_json = tmp_path / ("%s.json" % code)
            path_json.write_text(json.dumps(got[code]), encoding="utf-8")
            check = tombola("verify", str(path_json))
            assert check.returncode == 0, check.stdout + check.stderr
            assert check.stdout.strip().splitlines()[-1].startswith("verified:")
            # A consistent snapshot: every record the copy holds is the live server's final record.
            # (A restored server adds one `restart` commitment of its own at the end.)
            records = got[code]["records"][:-1]
            assert records == final[code]["records"][:len(records)]


def test_backup_and_restore_refuse_bad_input_and_change_nothing(tmp_path):
    missing = tombola("backup", "--data", str(tmp_path / "nothing"), str(tmp_path / "b.sqlite"))
    assert missing.returncode == 1 and "no database at" in missing.stderr
    assert not (tmp_path / "b.sqlite").exists()
    assert tombola("backup").returncode == 2
    not_a_db = tmp_path / "junk.sqlite"
    not_a_db.write_bytes(b"this is not sqlite" * 100)
    run = tombola("restore", "--data", str(tmp_path / "new"), str(not_a_db))
    assert run.returncode == 1
    assert not (tmp_path / "new" / "tombola.sqlite").exists()


def test_a_database_from_a_newer_version_is_refused_with_a_clear_message(data_dir):
    server = Tombola(data_dir)
    server.stop()
    path = os.path.join(data_dir, "tombola.sqlite")
    db = sqlite3.connect(path)
    db.execute("PRAGMA user_version = 99")
    db.commit()
    db.close()
    for extra, parse in (((), str), (("--log-format", "json"), json.loads)):
        run = tombola("--host", "127.0.0.1", "--port", "0", "--data", data_dir, *extra)
        assert run.returncode == 1
        message = parse(run.stderr.strip())
        text = message["message"] if isinstance(message, dict) else message
        assert "written by a newer Tombola (schema version 99; this version knows up to" in text, text
        if isinstance(message, dict):
            assert message["level"] == "error" and message["reason"] == "schema_too_new"
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA user_version").fetchone()[0] == 99
    db.close()
    run = tombola("backup", "--data", data_dir, os.path.join(data_dir, "copy.sqlite"))
    assert run.returncode == 0  # an operator can still copy it somewhere safe
    run = tombola("restore", "--data", os.path.join(data_dir, "elsewhere"), os.path.join(data_dir, "copy.sqlite"))
    assert run.returncode == 1 and "newer" not in run.stdout and "schema version 99" in run.stderr


def test_json_logs_are_one_object_per_line_and_never_carry_a_key(data_dir):
    binary = tombola_binary()
    public = tempfile.mkdtemp(prefix="tombola-json-public-")
    with open(os.path.join(public, "index.html"), "w") as f:
        f.write("<!doctype html><title>t</title>")
    process = subprocess.Popen([binary, "--host", "127.0.0.1", "--port", "0", "--data", data_dir, "--public", public,
                                "--default-draw", CODE, "--host-key", HOST_KEY, "--admin-key", ADMIN_KEY,
                                "--log-format", "json", "--access-log"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        start = json.loads(process.stdout.readline())
        assert start["event"] == "start" and start["level"] == "info" and start["draw"] == CODE
        port = start["port"]
        server = Tombola.__new__(Tombola)
        server.base, server.code = "http://127.0.0.1:%d" % port, CODE
        assert server.command("start")[0] == 200
        assert server.command("stop")[0] == 200
        assert server.request("GET", "/api/calc?key=" + HOST_KEY)[0] in (404, 405)
        assert server.json("PUT", "/api/draws/%s/config" % CODE, {}, "wrong-" + ADMIN_KEY)[0] == 403
        assert server.request("GET", "/")[0] == 200
    finally:
        process.terminate()
        out, err = process.communicate(timeout=20)
        shutil.rmtree(public, ignore_errors=True)
    lines = [start] + [json.loads(line) for line in (out + err).splitlines()]  # every line is JSON
    events = [line["event"] for line in lines]
    assert {"start", "access", "draw", "stop"} <= set(events), events
    access = [line for line in lines if line["event"] == "access"]
    assert {"remote", "method", "path", "status", "bytes", "ms", "time"} <= set(access[0])
    assert any(line["path"] == "/api/calc" and "?" not in line["path"] for line in access)
    rounds = [line for line in lines if line["event"] == "draw" and "round" in line]
    assert rounds and rounds[0]["draw"] == CODE and rounds[0]["winners"] >= 1
    everything = out + err
    for secret in (HOST_KEY, ADMIN_KEY):
        assert secret not in everything
