"""A round's certificate (issue #26) in Chromium against the real server: /draw/<code>/round/<n>
shows the round's prize and winners (the REST result's, a no-show's replacement included),
time, commitment, seed, entropy and chain hash, rechecks the round in the page, carries a QR
code to itself, prints on one A4 page, and is axe-clean in English and Chinese."""

import base64
import hashlib
import json
import urllib.error
import urllib.request

import pytest
from selenium.webdriver.common.by import By

from conftest import server_command
from test_axe import audit
from test_draw import create_draw

NAMES = ["Ana Lima", "陈静", "Bartholomew Fitzgerald-O'Connor", "Nguyễn Thị Mai", "Kofi Mensah", "Émile Dubois",
         "Farah Haddad", "王伟", "Hiroshi Tanaka", "Ingrid Johansson"]


def api(server, path, key, body=None):
    req = urllib.request.Request(server.url(path), data=json.dumps(body or {}).encode(), method="POST",
                                 headers={"Authorization": "Bearer " + key, "Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=60) as r:
        return json.load(r)


@pytest.fixture(scope="module")
def drawn(server):
    code, key = create_draw(server, {"pool": {"kind": "list", "entrants": NAMES}, "perStop": 3,
                                     "prizes": [{"name": "Weekend for two", "count": 3}, {"name": "一等奖", "count": 1}]})
    rounds = []
    for _ in range(2):
        api(server, "/api/draws/%s/start" % code, key)
        rounds.append(api(server, "/api/draws/%s/stop" % code, key)["result"])
    # A no-show in round 1: its replacement is on the certificate, the voided one in small print.
    voided = rounds[0]["winners"][0]
    replacement = api(server, "/api/draws/%s/void" % code, key, {"round": 1, "winner": voided, "reason": "not here"})["result"]
    return code, rounds, voided, replacement, key


def open_certificate(browser, server, code, n, lang="en-US", width=794, height=1123):
    b = browser(width, height, lang)
    b.get(server.url("/draw/%s/round/%d" % (code, n)))
    b.wait_js("window.tombolaCertificate && window.tombolaCertificate.status !== 'loading'", 15)
    return b


def test_the_certificate_shows_the_round_rechecks_it_and_prints_on_one_a4_page(server, browser, drawn):
    code, rounds, voided, replacement, _ = drawn
    page = open_certificate(browser, server, code, 1)
    page.wait_js("document.querySelector('[data-verify]').dataset.state === 'ok'", 15)
    shown = [li.text for li in page.find_elements(By.CSS_SELECTOR, "[data-winners] li")]
    want = [w for w in rounds[0]["winners"] if w != voided] + replacement["winners"]
    assert shown == want
    assert voided in page.find_element(By.CSS_SELECTOR, "[data-voided]").text
    assert page.find_element(By.CSS_SELECTOR, "[data-prize]").text == "Weekend for two"
    for hook, value in (("commitment", replacement["commitment"]), ("seed", replacement["seed"]),
                        ("hash", replacement["hash"])):
        assert page.find_element(By.CSS_SELECTOR, "[data-%s]" % hook).text == value
    assert len(page.find_element(By.CSS_SELECTOR, "[data-entropy]").text) == 64
    # The program that wrote the round's commitment (issue #47): as the export's commit record
    # names it, the binary's own SHA-256 (the file the test runs).
    with urllib.request.urlopen(server.url("/api/draws/%s/export.json" % code), timeout=30) as r:
        records = json.load(r)["records"]
    software = next(r["software"] for r in records if r["kind"] == "commit" and r["commitment"] == rounds[0]["commitment"])
    with open(server_command(0, "")[0], "rb") as f:
        assert software["sha256"] == hashlib.sha256(f.read()).hexdigest()
    assert page.find_element(By.CSS_SELECTOR, "[data-software]").text == "tombola %s · commit %s · sha256 %s" % (
        software["version"], software["commit"], software["sha256"])
    # The key that signed the round's record (issue #47): the server's, as GET /api/server/key serves it.
    with urllib.request.urlopen(server.url("/api/server/key"), timeout=30) as r:
        fingerprint = json.load(r)["fingerprint"]
    signature = page.find_element(By.CSS_SELECTOR, "[data-signature]")
    assert signature.is_displayed() and signature.text.replace(" ", "") == fingerprint
    assert page.find_element(By.CSS_SELECTOR, "[data-signature-label]").text == "Signed with the server key (Ed25519 fingerprint)"
    page.wait_js("document.querySelector('[data-qr]').complete && !document.querySelector('[data-qr]').hidden")
    assert page.js("return decodeURIComponent(document.querySelector('[data-qr]').src)").endswith("/draw/%s/round/1#verify" % code)
    pdf = base64.b64decode(page.driver.execute_cdp_cmd("Page.printToPDF", {"paperWidth": 8.27, "paperHeight": 11.69, "preferCSSPageSize": True})["data"])
    assert pdf.count(b"/Type /Page\n") + pdf.count(b"/Type /Page\r") + pdf.count(b"/Type /Page/") + pdf.count(b"/Type /Page ") == 1
    assert page.errors() == []


def test_the_host_page_links_the_latest_rounds_certificate(server, browser, drawn):
    code, key = drawn[0], drawn[4]
    host = browser(390, 844)
    host.get(server.url("/draw/%s#key=%s" % (code, key)))
    link = host.wait_js("(() => { const a = document.querySelector('[data-certificate-link]'); return a && !a.hidden ? a : null; })()", 15)
    host.js("arguments[0].scrollIntoView({block: 'center'})", link)
    assert link.get_attribute("href").endswith("/draw/%s/round/2" % code)
    assert link.text == "Certificate of round 2"


def test_an_unknown_round_says_so(server, browser, drawn):
    code = drawn[0]
    page = open_certificate(browser, server, code, 9)
    assert page.find_element(By.CSS_SELECTOR, "[data-missing]").is_displayed()
    with pytest.raises(urllib.error.HTTPError) as error:
        urllib.request.urlopen(server.url("/draw/%s/round/01" % code), timeout=10)
    assert error.value.code == 404


@pytest.mark.parametrize("lang", ["en-US", "zh-CN"])
def test_the_certificate_has_no_axe_violations(server, browser, drawn, lang):
    code = drawn[0]
    found = {}
    for width, height in ((794, 1123), (390, 844)):
        page = open_certificate(browser, server, code, 2, lang, width, height)
        page.wait_js("document.querySelector('[data-verify]').dataset.state === 'ok'", 15)
        if lang == "zh-CN":
            assert "第 2 轮" in page.find_element(By.CSS_SELECTOR, "[data-title]").text
        audit(page, "certificate %dx%d" % (width, height), found)
    assert not found, "\n".join("%s (%s):\n%s" % (name, lang, text) for name, text in found.items())


def test_download_png_draws_the_certificate_on_an_a4_canvas(server, browser, drawn):
    code, _, _, _, _ = drawn
    page = open_certificate(browser, server, code, 2, lang="zh-CN")
    page.wait_js("document.querySelector('[data-verify]').dataset.state === 'ok'", 15)
    page.wait_js("!document.querySelector('[data-qr]').hidden", 15)
    button = page.find_element(By.CSS_SELECTOR, "[data-png]")
    assert button.text == "下载 PNG 图片"
    button.click()
    page.wait_js("document.querySelector('[data-png]').dataset.url", 15)
    assert page.js("return document.querySelector('[data-png]').dataset.file") == "round-2.png"
    # The blob the download link holds, read back in the page.
    encoded = page.driver.execute_async_script("""
        const done = arguments[arguments.length - 1];
        window.tombolaCertificate.png.arrayBuffer().then((buffer) => {
          let text = ''; for (const byte of new Uint8Array(buffer)) text += String.fromCharCode(byte);
          done(btoa(text));
        }, (e) => done(String(e)));""")
    png = base64.b64decode(encoded)
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    assert png[12:16] == b"IHDR"
    # A4 wide at 150 dpi, as tall as the certificate (at most one page).
    assert int.from_bytes(png[16:20], "big") == 1240 and 600 < int.from_bytes(png[20:24], "big") <= 1754
    # An A4 page of white compresses to a few kB; the texts and the QR code make it much more.
    assert len(png) > 30_000, len(png)
    assert page.errors() == []
