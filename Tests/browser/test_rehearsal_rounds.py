"""Rehearsal rounds (issue 45) in Chromium against the real server. A draw set to rehearsal: the
projector (1920x1080, English), a phone (390x844, Chinese) and the host page (390x844, English)
each wear a band "REHEARSAL — not the real draw" (彩排——不是正式抽奖) that is read as a person
reads it (visible.py: painted, inside the viewport, on top) and a diagonal watermark larger than
anything else on the page; the round's certificate carries both; the record (REST result, export,
winners CSV) says rehearsal. The host's "Wipe the rehearsal and go live" wipes it on the record (a
`clear` with `rehearsal`), saves the settings without rehearsal, and every page drops the band; the
next round is real, and `tombola verify` passes the whole export."""

import json
import os
import subprocess
import urllib.request

from selenium.webdriver.common.by import By

from test_draw import create_draw, open_page
from test_stage_modes import api
from visible import english_words, seen

TIMEOUT = 20
BAND = {"en": "REHEARSAL — not the real draw", "zh": "彩排——不是正式抽奖"}

# The diagonal watermark as painted: its text, font size and colour's alpha, its box's centre on screen.
WATERMARK = r"""
  const w = document.querySelector('.rehearsal-watermark');
  if (!w || w.hidden) return null;
  const cs = getComputedStyle(w);
  if (cs.display === 'none' || cs.visibility === 'hidden' || parseFloat(cs.opacity) < 0.99) return null;
  const r = w.getBoundingClientRect();
  const alpha = parseFloat((/rgba?\(([^)]+)\)/.exec(cs.color)[1].split(',')[3] ?? '1'));
  return { text: w.textContent, size: parseFloat(cs.fontSize), alpha, x: (r.left + r.right) / 2, y: (r.top + r.bottom) / 2 };
"""


def band_shown(page, lang, at_least):
    """Waits until the band's text is visible at the top of the page at >= `at_least` px."""
    def ready():
        pieces = [p for p in seen(page) if p["text"] == BAND[lang] and p["size"] >= at_least and p["mid"] < 120]
        return pieces or None
    try:
        return page.wait(ready, TIMEOUT)
    except Exception:
        raise AssertionError("no rehearsal band: %s" % [p["text"] for p in seen(page)][:12]) from None


def watermark_shown(page, word):
    got = page.wait(lambda: page.js(WATERMARK), TIMEOUT)
    width, height = page.js("return [innerWidth, innerHeight]")
    assert got["text"] == word and 0 < got["x"] < width and 0 < got["y"] < height, got
    assert got["alpha"] >= 0.15, got
    return got


def band_gone(page, lang):
    page.wait(lambda: not any(p["text"] == BAND[lang] for p in seen(page)) and page.js(WATERMARK) is None, TIMEOUT)


def test_a_rehearsal_is_marked_everywhere_and_wiped_before_the_real_event(server, browser):
    code, key = create_draw(server, {"pool": {"kind": "range", "from": 100, "to": 999}, "rehearsal": True})
    screen = open_page(browser(1920, 1080), server.url("/screen/%s" % code))
    phone = open_page(browser(390, 844, "zh-CN"), server.url("/watch/%s" % code))
    host = open_page(browser(390, 844), server.url("/draw/%s#key=%s" % (code, key)))
    host.wait_js("window.tombola.state.role === 'host'")

    api(server, "/api/draws/%s/start" % code, key)
    result = api(server, "/api/draws/%s/stop" % code, key)["result"]
    assert result["rehearsal"] is True
    (winner,) = result["winners"]
    # The projector: the band over the page, the winner still there, the watermark across it.
    band_shown(screen, "en", at_least=24)
    screen.wait(lambda: any(p["text"] == str(winner) for p in seen(screen, "[data-stage]")), TIMEOUT)
    mark = watermark_shown(screen, "REHEARSAL")
    assert mark["size"] >= 150, mark
    band_shown(phone, "zh", at_least=16)
    watermark_shown(phone, "彩排")
    assert not english_words(phone), english_words(phone)
    band_shown(host, "en", at_least=16)
    wipe = host.find_element(By.CSS_SELECTOR, "[data-wipe-rehearsal]")
    host.execute_script("arguments[0].scrollIntoView({ block: 'center' })", wipe)
    assert wipe.is_displayed() and wipe.text == "Wipe the rehearsal and go live"

    # The certificate of the rehearsal round, and the record.
    cert = browser(794, 1123)
    cert.get(server.url("/draw/%s/round/%d" % (code, result["round"])))
    cert.wait_js("window.tombolaCertificate && window.tombolaCertificate.status !== 'loading'", 15)
    band_shown(cert, "en", at_least=16)
    watermark_shown(cert, "REHEARSAL")
    with urllib.request.urlopen(server.url("/api/draws/%s/export.csv" % code), timeout=30) as r:
        rows = r.read().decode("utf-8-sig").splitlines()
    assert rows[0].endswith(",rehearsal") and rows[1].endswith(",REHEARSAL"), rows[:2]

    # Going live without the wipe is refused; the wipe (after its confirmation) goes live.
    config = api(server, "/api/draws/%s/config" % code, key, method="GET")
    config["rehearsal"] = False
    try:
        api(server, "/api/draws/%s/config" % code, key, config, method="PUT")
        raise AssertionError("going live over rehearsal rounds was accepted")
    except urllib.error.HTTPError as e:
        assert json.load(e)["error"]["code"] == "rehearsal_mixed"
    host.execute_script("window.confirm = () => true; arguments[0].click()", wipe)
    host.wait(lambda: "rehearsal" not in api(server, "/api/draws/%s/config" % code, key, method="GET"), TIMEOUT)
    for page, lang in ((screen, "en"), (phone, "zh"), (host, "en")):
        band_gone(page, lang)
    api(server, "/api/draws/%s/start" % code, key)
    real = api(server, "/api/draws/%s/stop" % code, key)["result"]
    assert "rehearsal" not in real
    screen.wait(lambda: any(p["text"] == str(real["winners"][0]) for p in seen(screen, "[data-stage]")), TIMEOUT)
    assert screen.js(WATERMARK) is None and not any(p["text"] == BAND["en"] for p in seen(screen))

    with urllib.request.urlopen(server.url("/api/draws/%s/export.json" % code), timeout=30) as r:
        export = json.load(r)
    kinds = [(r["kind"], r.get("rehearsal", False)) for r in export["records"] if r["kind"] in ("round", "clear")]
    assert kinds == [("round", True), ("clear", True), ("round", False)], kinds
    path = os.path.join(server.data_dir, "rehearsal-export.json")
    with open(path, "w", encoding="utf-8") as f:
        json.dump(export, f, ensure_ascii=False)
    verified = subprocess.run([os.environ.get("TOMBOLA_BIN", "tombola"), "verify", path], capture_output=True, text=True, timeout=60)
    assert verified.returncode == 0 and "REHEARSAL: round 1" in verified.stdout, verified.stdout
