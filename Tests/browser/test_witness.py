"""Witnessing (issue #27 §3) in Chromium against the real server: every page remembers the round
records it was shown (localStorage) and checks that later ones continue them. A normal new round
raises nothing; after the server's SQLite database is rewritten (a round's winners changed and
the chain's hashes recomputed, as an operator with the file could) and the server restarted, the
phone shows a loud warning, reports it, and the host page shows the report. The phone's
"what this phone saw" download holds the heads. English and Chinese, axe-clean."""

import hashlib
import json
import os
import shutil
import sqlite3
import tempfile
import time
import urllib.error
import urllib.request

import pytest
from selenium.webdriver.common.by import By

from conftest import Server
from test_axe import audit
from test_board_paging import post
from test_draw import create_draw, open_page

ALARM = "document.querySelector('[data-witness-alarm]')"


def canon(value):
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def record_hash(record):
    return hashlib.sha256(canon({k: v for k, v in record.items() if k != "hash"}).encode()).hexdigest()


def export(server, code):
    with urllib.request.urlopen(server.url("/api/draws/%s/export.json" % code), timeout=10) as r:
        return json.load(r)["records"]


def rewrite_round(data_dir, code, round_no):
    """Changes round `round_no`'s winners in the stopped server's database and recomputes every
    hash from there on (the chain stays internally sound). Returns (index, old hash, new hash)."""
    con = sqlite3.connect(os.path.join(data_dir, "tombola.sqlite"))
    rows = con.execute("SELECT idx, json FROM records WHERE draw_code = ? ORDER BY idx", (code,)).fetchall()
    records = [json.loads(text) for _, text in rows]
    target = max(i for i, r in enumerate(records) if r["kind"] == "round" and r["round"] == round_no)
    old = records[target]["hash"]
    taken = {w for r in records if r["kind"] == "round" for w in r["winners"]}
    pool = records[target]["pool"]
    records[target]["winners"] = [next(n for n in range(pool["from"], pool["to"] + 1) if n not in taken)]
    for i in range(target, len(records)):
        if i > target:
            records[i]["prev"] = records[i - 1]["hash"]
        records[i]["hash"] = record_hash(records[i])
    (trigger,) = con.execute("SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = 'records_no_update'").fetchone()
    con.execute("DROP TRIGGER records_no_update")
    for i in range(target, len(records)):
        con.execute("UPDATE records SET json = ?, hash = ?, prev_hash = ? WHERE draw_code = ? AND idx = ?",
                    (canon(records[i]), records[i]["hash"], records[i]["prev"], code, i))
    con.execute(trigger)
    con.commit()
    con.close()
    return target, old, records[target]["hash"]


def round_trip(server, code, key):
    post(server, "/api/draws/%s/start" % code, key)
    return post(server, "/api/draws/%s/stop" % code, key)["result"]


def witness(b):
    return b.js("return JSON.parse(JSON.stringify(window.tombola.state.witness));")


def download_witness(phone, code, folder):
    phone.execute_cdp_cmd("Page.setDownloadBehavior", {"behavior": "allow", "downloadPath": folder})
    phone.find_element(By.CSS_SELECTOR, "[data-witness-download]").click()
    path = os.path.join(folder, "tombola-%s-witness.json" % code)
    phone.wait(lambda: os.path.exists(path) and os.path.getsize(path) > 0, 15, "no witness download")
    with open(path, encoding="utf-8") as f:
        return json.load(f)


@pytest.fixture
def own_server():
    """A server of the test's own: it is stopped, its database rewritten and started again."""
    s = Server()
    yield s
    s.stop()
    shutil.rmtree(s.data_dir, ignore_errors=True)


def seen_two_rounds(server, browser, lang):
    """A range draw with two rounds a phone and the host page watched; returns (code, key, phone, host)."""
    code, key = create_draw(server, {"pool": {"kind": "range", "from": 1, "to": 50}})
    phone = open_page(browser(390, 844, lang), server.url("/watch/%s" % code))
    host = open_page(browser(1280, 900, lang), server.url("/draw/%s#key=%s" % (code, key)))
    host.wait_js("window.tombola.state.role === 'host'")
    first = round_trip(server, code, key)
    # Start's `lock` message, then the round right after it: both heads, linked directly.
    phone.wait_js("window.tombola.state.witness.heads.length === 2", 20)
    second = round_trip(server, code, key)
    # The second round's lock follows a `commit` record, so the phone reads the export to link it.
    for b in (phone, host):
        b.wait_js("window.tombola.state.witness.heads.length === 4 && window.tombola.state.witness.pending.length === 0", 30)
    # A round's `prev` is its lock's hash: the lock Start stored right before it.
    assert [h["hash"] for h in witness(phone)["heads"]] == [first["prev"], first["hash"], second["prev"], second["hash"]]
    return code, key, phone, host


@pytest.mark.parametrize("lang", ["en-US", "zh-CN"])
def test_a_rewritten_database_warns_the_phone_and_reaches_the_host(own_server, browser, lang):
    server = own_server
    code, key, phone, host = seen_two_rounds(server, browser, lang)
    # A normal new round: no warning anywhere.
    for b in (phone, host):
        assert witness(b)["alarm"] is None
        assert b.js("return %s.hidden;" % ALARM) is True
        assert b.js("return document.querySelector('[data-witness-reports]').hidden;") is True
    heads_before = witness(phone)["heads"]

    server.stop()
    index, old, new = rewrite_round(server.data_dir, code, 2)
    assert index == heads_before[-1]["index"] and old == heads_before[-1]["hash"] and new != old
    server.start()

    # The phone reconnects, is shown record `index` with another hash, and says so.
    phone.wait_js("%s && !%s.hidden" % (ALARM, ALARM), 60)
    alarm = witness(phone)["alarm"]
    assert alarm["reason"] == "rewritten"
    assert alarm["seen"] == {"index": index, "hash": old} and alarm["got"] == {"index": index, "hash": new}
    text = phone.find_element(By.CSS_SELECTOR, "[data-witness-alarm]").text
    assert ("#%d" % index) in text
    assert ("警告" in text) if lang == "zh-CN" else ("Warning" in text)
    # What it remembered survives a reload (localStorage), warning included.
    phone.refresh()
    phone.wait_js("window.tombola && window.tombola.state.snapshotReceived", 20)
    phone.wait_js("%s && !%s.hidden" % (ALARM, ALARM), 10)

    # The host page gets the server's relay of the report: a count and the reported heads.
    host.wait_js("window.tombola.state.role === 'host' && window.tombola.state.witnessReport", 60)
    report = host.js("return window.tombola.state.witnessReport;")
    assert report["count"] >= 1 and report["reason"] == "rewritten"
    assert report["heads"][0] == {"index": index, "hash": old}
    host.wait_js("!document.querySelector('[data-witness-reports]').hidden", 10)
    assert ("#%d" % index) in host.find_element(By.CSS_SELECTOR, "[data-witness-reports]").text

    found = {}
    audit(phone, "witness warning (phone, %s)" % lang, found)
    audit(host, "witness report (host, %s)" % lang, found)
    assert found == {}
    assert phone.errors(allow=("WebSocket connection to", "net::ERR_CONNECTION_REFUSED", "Failed to load resource")) == []


def test_the_phone_downloads_what_it_saw(server, browser):
    code, key, phone, _ = seen_two_rounds(server, browser, "en-US")
    folder = tempfile.mkdtemp(prefix="tombola-witness-")
    try:
        saw = download_witness(phone, code, folder)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    assert saw["format"] == "tombola-witness-v1" and saw["code"] == code and saw["alarm"] is None
    records = export(server, code)
    assert len(saw["heads"]) == 4
    for head, kind in zip(saw["heads"], ["lock", "round", "lock", "round"]):
        stored = records[head["index"]]
        assert stored["kind"] == kind and stored["hash"] == head["hash"] and stored["round"] == head["round"]
    assert phone.errors() == []


def test_a_report_is_checked_and_bounded(server, browser):
    """The server relays only well-formed reports (bad ones get `bad_witness`), one a connection
    every 10 s, and only to host pages."""
    code, key = create_draw(server, {"pool": {"kind": "range", "from": 1, "to": 50}})
    host = open_page(browser(1280, 900), server.url("/draw/%s#key=%s" % (code, key)))
    host.wait_js("window.tombola.state.role === 'host'")
    phone = open_page(browser(390, 844), server.url("/watch/%s" % code))
    good = {"type": "witness", "reason": "fork", "heads": [{"index": 3, "hash": "ab" * 32}]}
    bad = [dict(good, reason="maybe"), dict(good, heads=[]), dict(good, heads=[{"index": -1, "hash": "ab" * 32}]),
           dict(good, heads=[{"index": 3, "hash": "AB" * 32}]), dict(good, heads=[good["heads"][0]] * 3),
           dict(good, padding="x" * 600)]
    for message in bad:
        phone.js("window.tombola.socket.send(arguments[0], { queue: false });", message)
        phone.wait_js("window.tombola.state.lastError && window.tombola.state.lastError.code === 'bad_witness'", 10)
        phone.js("window.tombola.state.lastError = null;")
    time.sleep(0.5)
    assert host.js("return window.tombola.state.witnessReport;") is None
    phone.js("window.tombola.socket.send(arguments[0], { queue: false });", good)
    host.wait_js("window.tombola.state.witnessReport && window.tombola.state.witnessReport.count === 1", 10)
    # A second report of the same connection within 10 s is dropped; the viewer is told nothing.
    phone.js("window.tombola.socket.send(arguments[0], { queue: false });", dict(good, reason="rewritten"))
    time.sleep(1)
    assert host.js("return window.tombola.state.witnessReport.reason;") == "fork"
    assert phone.js("return window.tombola.state.witnessReport;") is None


def test_the_witness_links_heads_through_the_export_and_names_what_differs(browser, static_site):
    """witness.js on the sample export (every record kind): heads that follow through `commit`
    records settle; a record changed without its hash raises `rewritten`, an export whose newest
    records differ from the ones shown live (hashes recomputed) `fork`; a head shown again with
    another hash `rewritten`."""
    from test_page_lib import page, result_of, run_module
    path = os.path.join(os.path.dirname(__file__), "..", "peers", "fixtures", "sample-export.json")
    with open(path, encoding="utf-8") as f:
        records = json.load(f)["records"]
    rounds = [r for r in records if r["kind"] == "round"]
    tampered = json.loads(json.dumps(records))
    tampered[rounds[0]["index"]]["winners"] = [999]
    forked = json.loads(json.dumps(records))
    last = rounds[-1]["index"]
    forked[last]["winners"] = [998]
    for i in range(last, len(forked)):
        if i > last:
            forked[i]["prev"] = forked[i - 1]["hash"]
        forked[i]["hash"] = record_hash(forked[i])
    b = page(browser, static_site)
    got = result_of(run_module(b, "/js/lib/witness.js", """
        const [records, tampered, forked, rounds] = args;
        const fresh = () => new m.Witness('X');
        const w = fresh();
        const seen = [w.observe(rounds[0], 1), w.observe(rounds[1], 2), w.observe(rounds[1], 3)];
        const settled = w.settle(records, 4);
        const again = w.observe(rounds[1], 5);
        const t = fresh(); t.observe(rounds[0], 1); t.observe(rounds[2], 2);
        const f = fresh(); f.observe(rounds[0], 1); f.observe(rounds[rounds.length - 1], 2);
        const r = fresh(); r.observe(rounds[0], 1);
        const shown = r.observe({ ...rounds[0], hash: 'f'.repeat(64) }, 2);
        const saved = fresh(); saved.restore(JSON.parse(JSON.stringify(r)));
        const piece = fresh(); piece.observe(rounds[0], 1); piece.observe(rounds[2], 2);
        const from = piece.needsFrom();
        const fromPiece = [from, piece.settle(records.slice(from), 3), piece.heads.length];
        return { seen, settled, heads: w.heads.map((h) => h.hash), again, alarm: w.alarm,
                 tampered: [t.settle(tampered, 3), t.alarm.reason, t.alarm.detail],
                 forked: [f.settle(forked, 3), f.alarm.reason],
                 shown: [shown, r.alarm.reason, r.report()], restored: saved.alarm.reason,
                 chain: m.chainProblem(records, 0, records.length - 1), fromPiece };
    """, records, tampered, forked, rounds))
    assert got["seen"] == ["added", "check", "check"] and got["settled"] == "ok" and got["again"] == "known"
    assert got["heads"] == [rounds[0]["hash"], rounds[1]["hash"]] and got["alarm"] is None
    assert got["chain"] is None
    assert got["tampered"] == ["alarm", "rewritten", "record %d does not hash to its hash" % rounds[0]["index"]]
    assert got["forked"] == ["alarm", "fork"]
    assert got["shown"][:2] == ["alarm", "rewritten"]
    assert got["shown"][2] == {"type": "witness", "reason": "rewritten", "heads": [
        {"index": rounds[0]["index"], "hash": rounds[0]["hash"]}, {"index": rounds[0]["index"], "hash": "f" * 64}]}
    assert got["restored"] == "rewritten"
    # The piece of the chain from the remembered head on (export.json?from=) is enough.
    assert got["fromPiece"] == [rounds[0]["index"], "ok", 2]


def test_the_export_gives_the_chain_from_an_index(server):
    code, key = create_draw(server, {"pool": {"kind": "range", "from": 1, "to": 50}})
    round_trip(server, code, key)
    round_trip(server, code, key)
    whole = export(server, code)
    with urllib.request.urlopen(server.url("/api/draws/%s/export.json?from=2" % code), timeout=10) as r:
        piece = json.load(r)
    assert piece["records"] == whole[2:] and piece["format"] == "tombola-export-v2"
    for bad in ("-1", "x", "2.5", "99999999999"):
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(server.url("/api/draws/%s/export.json?from=%s" % (code, bad)), timeout=10)
        assert refused.value.code == 400 and json.load(refused.value)["error"]["code"] == "bad_page"


def test_the_witness_keeps_a_sealed_rounds_beacon_lock_and_flags_it_rewritten(browser, static_site):
    """FAIRNESS §13 step 2 and §14 (issue #40 item 3): a page shown the `beacon` record's head while
    the round waits for R keeps it with R's due time; the export with that record settles; an export
    where the lock was written again after R was public (its `at` moved, every later hash recomputed:
    a chain sound in itself) raises `rewritten` naming that record."""
    from test_page_lib import page, result_of, run_module
    path = os.path.join(os.path.dirname(__file__), "..", "peers", "fixtures", "sample-export-beacon.json")
    with open(path, encoding="utf-8") as f:
        records = json.load(f)["records"]
    lock = next(r for r in records if r["kind"] == "beacon" and records[r["index"] + 1]["kind"] == "beaconValue")
    due = (lock["chain"]["genesis"] + (lock["beaconRound"] - 1) * lock["chain"]["period"]) * 1000
    shown = {"type": "beacon", "status": "waiting", "round": lock["round"], "beaconRound": lock["beaconRound"],
             "lock": lock["hash"], "index": lock["index"], "prev": lock["prev"], "due": due}
    result = next(r for r in records if r["kind"] == "round" and r["index"] > lock["index"])
    rewritten = json.loads(json.dumps(records))
    rewritten[lock["index"]]["at"] += 1
    for i in range(lock["index"], len(rewritten)):
        if i > lock["index"]:
            rewritten[i]["prev"] = rewritten[i - 1]["hash"]
        rewritten[i]["hash"] = record_hash(rewritten[i])
    b = page(browser, static_site)
    got = result_of(run_module(b, "/js/lib/witness.js", """
        const [records, rewritten, shown, result] = args;
        const head = { index: shown.index, hash: shown.lock, prev: shown.prev, round: shown.round,
                       beaconRound: shown.beaconRound, due: shown.due };
        const ok = new m.Witness('BEACON');
        const seen = [ok.observe(head, shown.due - 2000), ok.observe(result, shown.due + 5000)];
        const settled = ok.settle(records, shown.due + 6000);
        const bad = new m.Witness('BEACON');
        bad.observe(head, shown.due - 2000); bad.observe(result, shown.due + 5000);
        return { seen, settled, kept: ok.heads.find((h) => h.index === shown.index),
                 bad: [bad.settle(rewritten, shown.due + 6000), bad.alarm.reason, bad.alarm.seen] };
    """, records, rewritten, shown, result))
    assert got["seen"] == ["added", "check"] and got["settled"] == "ok"
    kept = got["kept"]
    assert (kept["hash"], kept["beaconRound"], kept["due"]) == (lock["hash"], lock["beaconRound"], due) and kept["seen"] < kept["due"]
    assert got["bad"] == ["alarm", "rewritten", {"index": lock["index"], "hash": lock["hash"]}]
