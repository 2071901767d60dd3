"""Observers' sign-offs (issue #41, docs/FAIRNESS.md §20), as an event runs them: a draw with four
eyes keeps the owner's Start off ("Waiting for the observer's sign-off") and the server refuses it;
the observer signs the lock with a key made in their browser (WebCrypto Ed25519), Start comes
back; the round is drawn and the observer signs its result; "Witnessed by Eve (lock ✓, result ✓,
own key)" is visible on the host's phone, the projector (in Chinese) and a guest's phone, and on
the round's certificate; the owner's key may not sign, a forged signature and a stale head are
refused and change nothing; `tombola verify` passes the export and names the observer."""
import json
import os
import pathlib
import re
import subprocess
import sys

from test_draw import create_draw, open_page
from test_operators import call, click, visible, wait_for
from visible import english_words, seen, shows


def records(server, code, key):
    status, exported = call(server, code, key, "GET", "export.json")
    assert status == 200, exported
    return exported


def test_four_eyes_an_observers_own_key_signs_lock_and_result_on_every_page_and_certificate(server, browser, tmp_path):
    code, owner_key = create_draw(server, {"pool": {"kind": "range", "from": 1, "to": 90}, "foureyes": True})
    status, eve = call(server, code, owner_key, "POST", "operators", {"name": "Eve", "role": "observer"})
    assert status == 201, eve

    owner = open_page(browser(390, 844), server.url("/draw/%s#key=%s" % (code, owner_key)))
    owner.wait_js("window.tombola.state.role === 'host'")
    screen = open_page(browser(1920, 1080, "zh-CN"), server.url("/screen/%s" % code))
    phone = open_page(browser(390, 844), server.url("/watch/%s" % code))

    # Four eyes: Start is off and the bar says why; asked anyway, the server refuses.
    wait_for(owner, "the waiting line", lambda: shows(owner, "Waiting for the observer's sign-off of round 1"))
    assert owner.js("return document.querySelector('[data-startstop]').disabled")
    status, body = call(server, code, owner_key, "POST", "start")
    assert (status, body["error"]["code"]) == (409, "signoff_required"), body

    # Who may sign, and what is refused: the owner's key; a forged signature; a stale head. Nothing changes.
    before = records(server, code, owner_key)["records"]
    status, body = call(server, code, owner_key, "POST", "signoffs", {"statement": "lock", "round": 1})
    assert (status, body["error"]["code"]) == (403, "role_forbidden"), body
    forged = {"statement": "lock", "round": 1, "target": before[-1]["hash"], "publicKey": "11" * 32, "signature": "22" * 64}
    status, body = call(server, code, eve["key"], "POST", "signoffs", forged)
    assert (status, body["error"]["code"]) == (400, "bad_signoff"), body
    status, body = call(server, code, eve["key"], "POST", "signoffs", dict(forged, target="0" * 64))
    assert body["error"]["code"] == "signoff_stale", body
    status, body = call(server, code, eve["key"], "POST", "signoffs", {"statement": "result", "round": 1})
    assert body["error"]["code"] == "bad_signoff_round", body
    assert records(server, code, owner_key)["records"] == before

    # The observer's page: the card, a key of their own, the lock signed.
    observer = open_page(browser(390, 844), eve["hostUrl"])
    wait_for(observer, "the card", lambda: visible(observer, "[data-signoff-card]"))
    observer.js("document.querySelector('[data-signoff-card]').scrollIntoView({block: 'start'})")
    wait_for(observer, "the lock button", lambda: shows(observer, "I witnessed the lock of round 1"))
    assert not visible(owner, "[data-signoff-card]") and visible(observer, "[data-signoff-card]")
    click(observer, "[data-signoff-ownkey]")
    wait_for(observer, "the key's fingerprint", lambda: shows(observer, "Your key: "))
    click(observer, "[data-signoff='lock']")
    wait_for(observer, "the stored sign-off", lambda: shows(observer, "Your sign-off is on the record"))
    observer.wait_js("document.querySelector(\"[data-signoff='lock']\").disabled")

    line = "Witnessed by Eve (lock ✓, own key)"
    for page in (owner, phone, observer):
        page.js("document.querySelector('[data-signoff-line]').scrollIntoView({block: 'center'})")
        wait_for(page, "the lock's sign-off line", lambda: shows(page, line))
    wait_for(screen, "the Chinese sign-off line", lambda: shows(screen, "见证：Eve（锁定 ✓，自有密钥）"))

    # Start is back: the owner draws round 1.
    owner.wait_js("!document.querySelector('[data-startstop]').disabled")
    assert not shows(owner, "Waiting for the observer's sign-off")
    click(owner, "[data-startstop]")
    owner.wait_js("window.tombola.state.phase === 'rolling'")
    click(owner, "[data-startstop]")
    owner.wait_js("window.tombola.state.phase === 'revealed'", 15)
    winner = records(server, code, owner_key)["records"][-2]
    assert winner["kind"] == "round", winner
    # The next round waits for its own lock's sign-off.
    wait_for(owner, "round 2 waiting", lambda: shows(owner, "Waiting for the observer's sign-off of round 2"))

    # The result, signed.
    wait_for(observer, "the result button", lambda: observer.js("return !document.querySelector(\"[data-signoff='result']\").disabled"))
    observer.js("document.querySelector('[data-signoff-card]').scrollIntoView({block: 'start'})")
    assert shows(observer, "I witnessed the result of round 1")
    click(observer, "[data-signoff='result']")
    line = "Witnessed by Eve (lock ✓, result ✓, own key)"
    for page in (owner, phone, observer):
        page.js("document.querySelector('[data-signoff-line]').scrollIntoView({block: 'center'})")
        wait_for(page, "both sign-offs", lambda: shows(page, line))
    wait_for(screen, "both sign-offs in Chinese", lambda: shows(screen, "见证：Eve（锁定 ✓，结果 ✓，自有密钥）"))
    assert english_words(screen, allow={"Eve"}) == [], english_words(screen, allow={"Eve"})
    # The line sits in the side panel: the winner's number keeps the stage to itself.
    assert screen.js("""const a = document.querySelector('[data-signoff-line]').getBoundingClientRect(),
        b = document.querySelector('[data-stage]').getBoundingClientRect(); return a.left >= b.right || a.top >= b.bottom;""")
    assert screen.js("return document.querySelector('[data-value]').textContent.trim()") == str(winner["winners"][0])

    # The record: two signoff records naming Eve, with her key, after the lock's and the round's heads.
    exported = records(server, code, owner_key)
    signoffs = [r for r in exported["records"] if r["kind"] == "signoff"]
    assert [(s["statement"], s["round"], s["observer"]) for s in signoffs] == [("lock", 1, "Eve"), ("result", 1, "Eve")]
    assert signoffs[0]["publicKey"] == signoffs[1]["publicKey"] and len(signoffs[0]["signature"]) == 128
    path = tmp_path / "export.json"
    path.write_text(json.dumps(exported))
    verified = subprocess.run([os.environ.get("TOMBOLA_BIN", "tombola"), "verify", str(path)], capture_output=True, text=True, timeout=60)
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert "Eve" in verified.stdout, verified.stdout
    # The FAIRNESS.md §12 script (its one python block) checks the sign-offs too and names who witnessed what.
    fairness = (pathlib.Path(__file__).resolve().parents[2] / "docs" / "FAIRNESS.md").read_text(encoding="utf-8")
    (tmp_path / "verify_tombola.py").write_text(re.findall(r"```python\n(.*?)```", fairness, re.S)[0], encoding="utf-8")
    checked = subprocess.run([sys.executable, str(tmp_path / "verify_tombola.py"), str(path)], capture_output=True, text=True, timeout=120)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "Eve" in checked.stdout, checked.stdout

    # The observer's page offers the auditor's pack (test_audit_pack.py opens one).
    observer.js("document.querySelector('[data-audit-export=zip]').scrollIntoView({block: 'center'})")
    wait_for(observer, "the pack's link", lambda: shows(observer, "Auditor's pack (ZIP)"))
    assert observer.js("return document.querySelector('[data-audit-export=zip]').href").endswith("/api/draws/%s/auditpack.zip" % code)

    # The certificate of round 1 lists the sign-offs (and still verifies on the page).
    cert = browser(1280, 900)
    cert.get(server.url("/draw/%s/round/1" % code))
    wait_for(cert, "the certificate's check", lambda: shows(cert, "Verified in this page"))
    assert shows(cert, "Witnessed by") and shows(cert, "Eve (lock ✓, result ✓, own key)")
