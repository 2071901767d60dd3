"""Issue #42 acceptance: a private draw (docs/FAIRNESS.md §22). One event per kind of draw, a real
`tombola` binary: a check-in round (12 phones with a mobile number and a team, names public) and
two rounds and a void from an uploaded list of 1,000 names with phone numbers. A viewer, a screen
and a checked-in phone keep their WebSocket open throughout; every frame they receive and every
public REST answer is swept *by value* for the names, phone numbers and field values. In a
private draw none is found; the same event without `private` finds them (the sweep can fail).
Then the entry proofs: a receipt holder and the checked-in phone prove their own entries (both
verifiers), the host's export names the winners, and with the whole list as the dictionary a
guess leaves no trace in anything public but a winner's masked name."""
import hashlib
import hmac
import io
import os
import sqlite3
import json
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import zipfile

import pytest
from websockets.sync.client import connect

from test_draw_export import HOST_KEY, Tombola
from test_fairness_script import script, tombola_binary  # noqa: F401 (fixture by name)

GIVEN = ["Adele", "Bruno", "Carmen", "Dmitri", "Elena", "Farid", "Greta", "Hamish", "Ingrid", "Jasper",
         "Kalani", "Leopold", "Marisol", "Nikolai", "Ottilie", "Priya", "Quentin", "Rosalind", "Saoirse", "Thaddeus",
         "Ulrike", "Valentin", "Wilhelmina", "Xiomara", "Yusuf", "Zenobia", "Ambrose", "Beatrix", "Cosimo", "Delphine",
         "Evander", "Florentyna", "Gideon", "Honoria", "Ignatius", "Juniper", "Kasimir", "Lucasta", "Mordecai", "Nerissa"]
FAMILY = ["Abernathy", "Blackwood", "Castellano", "Dunleavy", "Eriksdottir", "Fairweather", "Galloway", "Hargreaves",
          "Ibarruri", "Jablonski", "Kowalczyk", "Lindqvist", "Montgomery", "Nakashima", "Oyelaran", "Pemberton",
          "Quispe", "Rautenbach", "Szczepanski", "Thistlewood", "Umberfield", "Vasquez", "Whitcombe", "Xanthopoulos", "Yarborough"]
NAMES = ["%s %s" % (g, f) for f in FAMILY for g in GIVEN]                  # 1,000 distinct names
PHONES = ["139%08d" % (10000000 + 7919 * i) for i in range(len(NAMES))]     # 1,000 distinct mobile numbers
ENTRIES = ["%s %s" % (n, p) for n, p in zip(NAMES, PHONES)]                 # the uploaded list: name and number
CHECKIN = [("Checkin %s" % g, "137%08d" % (20000000 + 31 * i), "Team %s" % f)  # name, mobile field, team field
           for i, (g, f) in enumerate(zip(GIVEN[:12], FAMILY[:12]))]

# Every pair of words (overlapping: each word with the next) and every run of 11 digits.
PAIRS = re.compile(r"(?=\b([A-Za-z]+ [A-Za-z]+)\b)")
DIGITS = re.compile(r"(?<!\d)(\d{11})(?!\d)")


def found(texts, values):
    """The values (names: two words; numbers: 11 digits) that occur in any of `texts`, by value: the
    texts' word pairs and digit runs, matched against the values (fast for megabytes of text)."""
    seen = set()
    for text in texts:
        seen.update(PAIRS.findall(text))
        seen.update(DIGITS.findall(text))
    return set(values) & seen


def sha(b):
    return hashlib.sha256(b).hexdigest()


def mask(entry):
    """docs/STAGE.md "Name masking" (names): each word keeps its first character."""
    return " ".join(w[0] + "*" * max(1, len(w) - 1) for w in entry.split(" "))


class Frames:
    """A WebSocket page that keeps every text frame it receives until closed."""

    def __init__(self, url, cookie=None):
        self.texts = []
        self.socket = connect(url, additional_headers={"Cookie": "tombola_device=" + cookie} if cookie else None,
                              max_size=None, open_timeout=10)
        self.thread = threading.Thread(target=self.read, daemon=True)
        self.thread.start()

    def read(self):
        try:
            for message in self.socket:
                self.texts.append(message if isinstance(message, str) else message.decode("utf-8", "replace"))
        except Exception:
            pass

    def wait_for(self, predicate, timeout=20):
        deadline = time.time() + timeout
        while not any(predicate(t) for t in list(self.texts)):
            assert time.time() < deadline, "no such frame"
            time.sleep(0.05)

    def close(self):
        self.socket.close()
        self.thread.join(10)


def call(server, method, path, body=None, key=None, cookie=None):
    """→ (status, raw bytes, the tombola_device cookie set)."""
    import urllib.request
    import urllib.error
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(server.base + path, data=data, method=method)
    if key:
        req.add_header("Authorization", "Bearer " + key)
    if cookie:
        req.add_header("Cookie", "tombola_device=" + cookie)
    if data is not None:
        req.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(req, timeout=20) as resp:
            status, headers, raw = resp.status, resp.headers, resp.read()
    except urllib.error.HTTPError as e:
        status, headers, raw = e.code, e.headers, e.read()
    made = None
    for header in headers.get_all("Set-Cookie") or []:
        if header.startswith("tombola_device="):
            made = header.split(";", 1)[0].split("=", 1)[1]
    return status, raw, made


def public_texts(server, rounds, winners):
    """Every public REST answer about the draw (no key, no cookie), as text."""
    code = server.code
    texts = []
    paths = ["/api/draws/%s" % code, "/api/draws/%s/config" % code, "/api/draws/%s/export.json" % code,
             "/api/draws/%s/export.csv" % code, "/api/draws/%s/rounds" % code, "/api/draws/%s/entries/pool" % code,
             "/api/info", "/watch/%s" % code, "/screen/%s" % code, "/draw/%s/round/1" % code]
    paths += ["/api/draws/%s/rounds/%d/winners" % (code, n) for n in range(1, rounds + 1)]
    paths += ["/api/draws/%s/rounds/%d/proof?entry=%s" % (code, n, urllib.parse.quote(w)) for n, w in winners]
    for path in paths:
        status, raw, _ = call(server, "GET", path)
        assert status in (200, 400, 404, 409), (path, status)
        texts.append(raw.decode("utf-8", "replace"))
    status, raw, _ = call(server, "GET", "/api/draws/%s/export.xlsx" % code)
    assert status == 200
    with zipfile.ZipFile(io.BytesIO(raw)) as sheet:
        texts.extend(sheet.read(name).decode("utf-8", "replace") for name in sheet.namelist())
    return texts


def run_event(private):
    """The event; returns what the sweep and the proof checks need (the server still runs)."""
    data_dir = tempfile.mkdtemp(prefix="tombola-private-")
    server = Tombola(data_dir)
    code = server.code
    ws = "ws://127.0.0.1:%d/ws/draw/%s" % (server.port, code)
    pages = []
    try:
        viewer, screen = Frames(ws), Frames(ws)
        pages += [viewer, screen]
        assert server.command("config", {"pool": {"kind": "checkin"}, "perStop": 2, "private": private})[0] == 200
        fields = [{"key": "mobile", "label": "Mobile", "unique": True}, {"key": "team", "label": "Team"}]
        assert server.command("entries/open", {"fields": fields, "publicNames": True})[0] == 200
        cookies = []
        for name, mobile, team in CHECKIN:
            status, raw, cookie = call(server, "POST", "/api/draws/%s/join" % code, {"name": name, "fields": {"mobile": mobile, "team": team}})
            assert status == 201, raw
            cookies.append((cookie, json.loads(raw)["entry"]["id"]))
        phone = Frames(ws, cookie=cookies[0][0])
        pages.append(phone)
        phone.wait_for(lambda t: '"me":{' in t)
        assert server.command("entries/close")[0] == 200
        assert server.command("start")[0] == 200
        assert server.command("stop")[0] == 200
        checkin_texts = public_texts(server, 1, [])

        status, body = server.command("config", {"pool": {"kind": "list", "entrants": ENTRIES}, "perStop": 3, "private": private})
        assert status == 200, body
        winners = []
        for _ in range(2):
            assert server.command("start")[0] == 200
            status, body = server.command("stop")
            assert status == 200, body
            winners += [(body["result"]["round"], w) for w in body["result"]["winners"]]
        status, body = server.command("void", {"round": 3, "winner": winners[-1][1], "reason": "no-show"})
        assert status == 200, body
        replacement = body["result"]["winners"][0]
        winners.append((3, replacement))
        viewer.wait_for(lambda t: replacement in t and '"type":"result"' in t)
        for page in pages:
            page.wait_for(lambda t: replacement in t)
        texts = checkin_texts + public_texts(server, 3, winners)
        for page in pages:
            page.close()
        frames = [t for page in pages for t in page.texts]
        return {"server": server, "data_dir": data_dir, "texts": texts, "frames": frames, "winners": winners,
                "phone": cookies[0], "phone_frames": phone.texts}
    except BaseException:
        for page in pages:
            page.close()
        server.stop()
        shutil.rmtree(data_dir, ignore_errors=True)
        raise


@pytest.fixture(scope="module")
def private_event():
    run = run_event(True)
    yield run
    run["server"].stop()
    shutil.rmtree(run["data_dir"], ignore_errors=True)


@pytest.fixture(scope="module")
def public_event():
    run = run_event(False)
    yield run
    run["server"].stop()
    shutil.rmtree(run["data_dir"], ignore_errors=True)


def sweep(event):
    everything = event["texts"] + event["frames"]
    assert len(event["frames"]) > 50 and len(event["phone_frames"]) > 10
    return (found(everything, NAMES + [n for n, _, _ in CHECKIN]), found(everything, PHONES + [m for _, m, _ in CHECKIN]),
            found(everything, [t for _, _, t in CHECKIN]))


def test_a_private_draws_frames_and_public_answers_carry_no_name_phone_number_or_field_value(private_event):
    assert sweep(private_event) == (set(), set(), set())


def test_the_same_sweep_finds_them_in_a_draw_that_is_not_private(public_event):
    names, numbers, teams = sweep(public_event)
    # The list is public there (the export, the settings), and the checked-in names the host made public.
    assert set(NAMES) <= names and set(PHONES) <= numbers
    # (the two winners of the check-in round at least, and the names rolling by)
    assert len(found(public_event["frames"], [n for n, _, _ in CHECKIN])) >= 2
    # Field values are the host's in every draw: never public.
    assert teams == set()


def both(script, tmp_path, export, *extra):
    path = tmp_path / "export.json"
    path.write_text(json.dumps(export, ensure_ascii=False), encoding="utf-8")
    py = subprocess.run([sys.executable, str(script), str(path), *extra], capture_output=True, text=True, timeout=120)
    sw = subprocess.run([tombola_binary(), "verify", str(path), *extra], capture_output=True, text=True, timeout=120)
    return py, sw


def test_entrants_prove_their_own_entries_and_a_guess_leaves_no_trace(private_event, script, tmp_path):
    event = private_event
    server, code = event["server"], event["server"].code
    status, raw, _ = call(server, "GET", "/api/draws/%s/export.json" % code)
    export = json.loads(raw)
    status, raw, _ = call(server, "GET", "/api/draws/%s/private" % code, key=HOST_KEY)
    assert status == 200
    roster = {e["name"]: e for e in json.loads(raw)["entrants"]}
    assert set(roster) == set(ENTRIES)
    assert call(server, "GET", "/api/draws/%s/private" % code)[0] == 401
    won = {w for _, w in event["winners"]}
    # The salts are FAIRNESS §22's: HMAC-SHA256(the draw's secret, "salt" 0x00 name); the secret is in
    # the stored settings only (the data folder), never in anything public.
    with sqlite3.connect(os.path.join(event["data_dir"], "tombola.sqlite")) as db:
        stored = json.loads(db.execute("SELECT config_json FROM draws WHERE code = ?", (code,)).fetchone()[0])
    secret = bytes.fromhex(stored["privateSecret"])
    for entry in ENTRIES[:50]:
        assert hmac.new(secret, b"salt\x00" + entry.encode(), hashlib.sha256).hexdigest() == roster[entry]["salt"]
    assert stored["privateSecret"] not in "\n".join(event["texts"] + event["frames"])

    # A receipt holder (a winner and one who did not win): the name and salt open the public id, and
    # the id's proof for round 3 checks in both verifiers.
    loser = next(e for e in ENTRIES if roster[e]["id"] not in won)
    winner = next(e for e in ENTRIES if roster[e]["id"] in won)
    proofs = []
    for entry in (winner, loser):
        row = roster[entry]
        assert "#" + sha(bytes.fromhex(row["salt"]) + entry.encode()) == row["id"]
        receipt = urllib.parse.urlsplit(row["receipt"])
        assert receipt.path == "/watch/%s" % code and receipt.query == ""  # all of it in the fragment
        assert urllib.parse.parse_qs(receipt.fragment) == {"receipt": [row["id"]], "salt": [row["salt"]], "name": [entry]}
        status, raw, _ = call(server, "GET", "/api/draws/%s/rounds/3/proof?entry=%s" % (code, urllib.parse.quote(row["id"])))
        assert status == 200
        proofs.append(tmp_path / ("%d.json" % len(proofs)))
        proofs[-1].write_bytes(raw)
    # The checked-in phone: its public id's proof for its round.
    _, entry_id = event["phone"]
    status, raw, _ = call(server, "GET", "/api/draws/%s/rounds/1/proof?entry=%s" % (code, entry_id))
    assert status == 200
    proofs.append(tmp_path / "phone.json")
    proofs[-1].write_bytes(raw)
    py, sw = both(script, tmp_path, export, *[a for p in proofs for a in ("--proof", str(p))], "--all-entries")
    for out in (py, sw):
        assert out.returncode == 0, out.stdout + out.stderr
        assert sum(line.startswith("proof round") and ": OK: " in line for line in out.stdout.splitlines()) == 3
        assert "entries: 1000 paths OK" in out.stdout

    # The host's export names the winners: every name opens its id, both verifiers.
    status, raw, _ = call(server, "GET", "/api/draws/%s/export.json" % code, key=HOST_KEY)
    host_export = json.loads(raw)
    py, sw = both(script, tmp_path, host_export)
    for out in (py, sw):
        assert out.returncode == 0, out.stdout + out.stderr
        assert "private: 1000 names open their public ids: OK" in out.stdout
        assert json.dumps(winner) in out.stdout
    forged = json.loads(raw)
    forged["private"]["entrants"][0]["name"] = ENTRIES[1]
    py, sw = both(script, tmp_path, forged)
    for out in (py, sw):
        assert out.returncode == 1 and "does not open" in out.stdout, out.stdout

    # The whole list as the dictionary: no guess, no hash of a guess, appears in anything public;
    # a masked name appears for exactly the entrants who won (the screens show winners, masked).
    public = event["texts"] + event["frames"]
    blob = "\n".join(public)
    ids = set(re.findall(r"#[0-9a-f]{64}", blob))
    hexes = set(re.findall(r"[0-9a-f]{64}", blob))
    assert {roster[e]["id"] for e in ENTRIES} <= ids
    for entry in ENTRIES:
        for guess in (entry, entry.rsplit(" ", 1)[1], entry.rsplit(" ", 1)[0]):
            assert sha(guess.encode()) not in hexes
    winner_masks = {mask(e) for e in ENTRIES if roster[e]["id"] in won}
    assert {e for e in ENTRIES if mask(e) in blob} == {e for e in ENTRIES if mask(e) in winner_masks}
