"""The record's outcomes as a room sees them (issue 39, items 2, 5, 8, 11): a Chinese claims event
in Chromium against the real server, read from what is visible (visible.py), compared with the
REST export. Round 1: the winner does not claim, the win passes to the alternate, who claims:
the projector shows the alternate, never the no-show, in giant letters. Round 2: the winner does
not claim and no alternate is left: the projector says nobody claimed. Every page gives the pass
reason in Chinese. The certificates of both rounds name who holds the prize and the pass lines.
The CSV downloads are read as bytes: a BOM first, the host's column names, names beside ids, local
times."""

import csv
import datetime
import io
import json
import os
import re
import time
import urllib.parse
import urllib.request

from test_claim import claim_from, join
from test_draw import create_draw, open_page
from test_stage_modes import api
from visible import english_words, largest, seen

TIMEOUT = 30
SECONDS = 10
NAMES = ["欧阳娜娜", "刘洋", "陈静"]
TITLE = "星光公司年会"
SHOTS = os.environ.get("TOMBOLA_SCREENSHOTS") and os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "docs", "screenshots")


def zh_event(server, browser):
    """A check-in draw with claims (one alternate a round), three phones, screen and host, in Chinese."""
    config = {"pool": {"kind": "checkin"}, "claim": {"seconds": SECONDS, "alternates": 1}}
    code, key = create_draw(server, config)
    api(server, "/api/draws/%s/branding" % code, key, {"title": TITLE}, method="PUT")
    api(server, "/api/draws/%s/entries/open" % code, key, {"publicNames": True})
    phones, names = {}, {}
    for name in NAMES:
        phone = open_page(browser(390, 844, "zh-CN"), server.url("/watch/%s" % code))
        entry = join(phone, name)
        phones[entry], names[entry] = phone, name
    api(server, "/api/draws/%s/entries/close" % code, key)
    screen = open_page(browser(1920, 1080, "zh-CN"), server.url("/screen/%s" % code))
    host = open_page(browser(1280, 800, "zh-CN"), server.url("/draw/%s#key=%s" % (code, key)))
    host.wait_js("window.tombola.state.role === 'host'", TIMEOUT)
    return code, key, phones, names, screen, host


def settled(pages, round_, passes):
    """Waits until every page holds round `round_`'s claims with no window open and `passes` passes."""
    for page in pages:
        page.wait_js("(() => { const c = window.tombola.state.claims; return c && c.round === %d && !c.open"
                     " && c.items.every((i) => i.status !== 'open')"
                     " && c.items.filter((i) => i.status === 'passed').length === %d; })()" % (round_, passes), TIMEOUT)


def stage_text(page):
    """The stage's visible text of at least 64 px (the projector's giant letters)."""
    return [p["text"] for p in seen(page, "[data-stage]") if p["size"] >= 64]


def no_english(pages, allow):
    for page in pages:
        assert english_words(page, allow) == [], page.driver.current_url


def test_claims_passes_and_nobody_claimed_show_the_record_in_chinese(server, browser):
    code, key, phones, names, screen, host = zh_event(server, browser)
    pages = [screen, host, *phones.values()]
    zh_reason = "%d 秒内未领取" % SECONDS

    # Round 1: the winner stays away, the win passes to the alternate, who claims.
    api(server, "/api/draws/%s/start" % code, key)
    first = api(server, "/api/draws/%s/stop" % code, key)["result"]
    absent, alternate = first["winners"][0], first["alternates"][0]
    phones[alternate].wait_js("document.querySelector('[data-claim-button]') !== null", TIMEOUT + SECONDS)
    phones[alternate].find_element("css selector", "[data-claim-button]").click()
    settled(pages, 1, 1)
    screen.wait_js("(() => { const c = window.tombola.state.claims; return c.items.some((i) => i.status === 'claimed'); })()", TIMEOUT)
    exported = api(server, "/api/draws/%s/export.json" % code, key, method="GET")
    passes = [r for r in exported["records"] if r["kind"] == "pass"]
    assert [(p["winner"], p["alternate"]) for p in passes] == [(absent, alternate)]
    # The projector crowns who holds the prize, never the no-show.
    screen.wait_js("document.querySelector('[data-stage]').innerText.includes(%r)" % names[alternate], TIMEOUT)
    assert largest(screen, names[alternate], "[data-stage]") >= 64, seen(screen, "[data-stage]")
    assert largest(screen, names[absent], "[data-stage]") < 64, stage_text(screen)
    # The pass reason in Chinese on the projector, the host's list and the no-show's phone.
    for page in (screen, host):
        assert any(zh_reason in p["text"] for p in seen(page)), page.driver.current_url
    phones[absent].wait_js("document.querySelector('[data-claim-missed]') !== null", TIMEOUT)
    no_english(pages, NAMES + list(names))  # a phone shows its own entry id (its ticket)
    if SHOTS:
        screen.save_screenshot(os.path.join(SHOTS, "claims-alternate-holds-1920x1080-zh.png"))

    # Round 2: the last entrant wins, has no alternate and stays away: nobody claimed.
    api(server, "/api/draws/%s/start" % code, key)
    second = api(server, "/api/draws/%s/stop" % code, key)["result"]
    no_show = second["winners"][0]
    assert second["alternates"] == []
    settled(pages, 2, 1)
    assert claim_from(phones[no_show]) == [409, "claim_closed"]
    screen.wait_js("document.querySelector('[data-stage]').innerText.includes('无人领奖')", TIMEOUT)
    assert largest(screen, "无人领奖", "[data-stage]") >= 64, seen(screen, "[data-stage]")
    assert largest(screen, names[no_show], "[data-stage]") < 64, stage_text(screen)
    for page in (host, phones[no_show]):
        page.wait_js("document.body.innerText.includes('无人领奖') || document.body.innerText.includes(%r)" % zh_reason, TIMEOUT)
    no_english(pages, NAMES + list(names))  # a phone shows its own entry id (its ticket)
    if SHOTS:
        screen.save_screenshot(os.path.join(SHOTS, "claims-nobody-claimed-1920x1080-zh.png"))
    # The host's CSV link is the page's language; the download says the pass reasons in it, with names.
    href = host.js("return document.querySelector('[data-export=\"csv\"]').href")
    assert href.endswith("/api/draws/%s/export.csv?lang=zh" % code), href
    link = urllib.parse.urlsplit(href)
    table = list(csv.reader(io.StringIO(get_bytes(server, "%s?%s" % (link.path, link.query), key).decode("utf-8-sig"))))
    rows = [dict(zip(table[0], row)) for row in table[1:]]
    assert sorted((r["name"], r["reason"]) for r in rows if r["voided"] == "yes") == sorted([(names[absent], zh_reason), (names[no_show], zh_reason)])
    assert {r["name"] for r in rows} == set(NAMES)
    for page in pages:
        assert page.errors(allow=("/claim - Failed to load resource",)) == []

    # The certificates agree with the record (item 5), carry the event's title and the screen's
    # origin in their QR code, and their PNG is the certificate, not half a blank page (item 11).
    # Opened on localhost: the screen's links use the server's address (127.0.0.1 here).
    cert = browser(794, 1123, "zh-CN")
    exported = api(server, "/api/draws/%s/export.json" % code, key, method="GET")
    ids = [e for e in names]
    for n, held, passed, to in ((1, [names[alternate]], names[absent], names[alternate]), (2, ["无人领奖"], names[no_show], "已无候补")):
        cert.get(server.url("/draw/%s/round/%d" % (code, n)).replace("127.0.0.1", "localhost"))
        cert.wait_js("window.tombolaCertificate && window.tombolaCertificate.status === 'ready'"
                     " && document.querySelector('[data-verify]').dataset.state === 'ok'"
                     " && !document.querySelector('[data-qr]').hidden", TIMEOUT)
        assert [p["text"] for p in seen(cert, "[data-winners]")] == held
        title = " ".join(p["text"] for p in seen(cert, "[data-title]"))
        assert TITLE in title and code not in title, title
        pass_lines = " ".join(p["text"] for p in seen(cert, "[data-voided]"))
        assert passed in pass_lines and zh_reason in pass_lines and to in pass_lines, pass_lines
        text = cert.js("return document.body.innerText")
        assert not any(i in text for i in ids), text
        no_english([cert], NAMES + ["hmac"])  # the algorithm, tombola-hmac-sha256-v1
        qr = cert.js("return decodeURIComponent(document.querySelector('[data-qr]').src)")
        assert qr.split("text=", 1)[1].startswith(server.url("/draw/%s/round/%d" % (code, n))), qr
        if SHOTS:
            cert.save_screenshot(os.path.join(SHOTS, "certificate-claims-round-%d-zh.png" % n))
    # The PNG: its ink reaches its bottom margin (a blank half is not the certificate).
    cert.find_element("css selector", "[data-png]").click()
    size = cert.driver.execute_async_script(PNG_INK)
    assert size["height"] >= 600 and size["height"] - size["lastInk"] <= 160, size
    assert cert.errors() == []


PNG_INK = """
  const done = arguments[arguments.length - 1];
  const wait = () => window.tombolaCertificate.png ? read() : setTimeout(wait, 50);
  const read = async () => {
    const bitmap = await createImageBitmap(window.tombolaCertificate.png);
    const canvas = new OffscreenCanvas(bitmap.width, bitmap.height);
    const g = canvas.getContext('2d');
    g.drawImage(bitmap, 0, 0);
    const data = g.getImageData(0, 0, bitmap.width, bitmap.height).data;
    let lastInk = 0;
    for (let y = 0; y < bitmap.height; y++) {
      for (let x = 0; x < bitmap.width; x += 2) {
        const i = (y * bitmap.width + x) * 4;
        if (data[i] < 200 || data[i + 1] < 200 || data[i + 2] < 200) { lastInk = y; break; }
      }
    }
    done({ width: bitmap.width, height: bitmap.height, lastInk });
  };
  wait();
"""


BOM = b"\xef\xbb\xbf"
ISO_LOCAL = r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$"


def get_bytes(server, path, key=None):
    headers = {"Authorization": "Bearer " + key} if key else {}
    with urllib.request.urlopen(urllib.request.Request(server.url(path), headers=headers), timeout=30) as r:
        return r.read()


def test_csv_downloads_open_in_chinese_excel_with_the_hosts_columns_names_and_local_times(server):
    """Item 8: the bytes a host downloads. Both CSVs start with a UTF-8 BOM; the entrants CSV is
    headed with the host's column name (工号) and gives join times as ISO 8601 with an offset; the
    winners CSV names a check-in winner beside the public id (with the host key; not in the public
    download of a draw that does not show names)."""
    code, key = create_draw(server, {"pool": {"kind": "checkin"}})
    fields = [{"key": "field1", "label": "工号", "required": True, "unique": True, "maxLength": 16}]
    api(server, "/api/draws/%s/entries/open" % code, key, {"fields": fields})
    for name, staff in (("黄丽", "A-001"), ("张伟", "A-002")):
        body = json.dumps({"name": name, "fields": {"field1": staff}}).encode()
        req = urllib.request.Request(server.url("/api/draws/%s/join" % code), data=body, method="POST",
                                     headers={"Content-Type": "application/json"})
        urllib.request.urlopen(req, timeout=30).read()
    api(server, "/api/draws/%s/entries/close" % code, key)
    api(server, "/api/draws/%s/start" % code, key)
    winner = api(server, "/api/draws/%s/stop" % code, key)["result"]["winners"][0]
    entrants = {e["id"]: e for e in api(server, "/api/draws/%s/entrants?limit=200" % code, key, method="GET")["items"]}

    raw = get_bytes(server, "/api/draws/%s/entrants.csv" % code, key)
    assert raw.startswith(BOM), raw[:20]
    rows = list(csv.reader(io.StringIO(raw[len(BOM):].decode("utf-8"))))
    assert rows[0] == ["seq", "id", "name", "工号", "joined_at", "removed"]
    for row in rows[1:]:
        entry = entrants[row[1]]
        assert row[2] == entry["name"] and row[3] == entry["fields"]["field1"]
        assert re.match(ISO_LOCAL, row[4]), row[4]
        at = datetime.datetime.fromisoformat(row[4].replace("Z", "+00:00"))
        assert abs(at.timestamp() * 1000 - entry["joinedAt"]) < 1000, (row[4], entry["joinedAt"])

    for key_given, want in ((key, entrants[winner]["name"]), (None, "")):
        raw = get_bytes(server, "/api/draws/%s/export.csv?lang=zh" % code, key_given)
        assert raw.startswith(BOM), raw[:20]
        rows = list(csv.reader(io.StringIO(raw[len(BOM):].decode("utf-8"))))
        header = rows[0]
        row = dict(zip(header, rows[1]))
        assert row["winner"] == winner and row["name"] == want, row
        assert re.match(ISO_LOCAL, row["at"]), row["at"]


def test_the_slow_down_length_is_a_draw_setting_on_the_host_page(server, browser):
    """The host sets how long Stop's slow-down lasts (1.5–6 s) beside the display mode; the server
    spreads the slow-down over it (Stop answers after the reveal, not before), and refuses a value
    out of range with the reason, shown under the form."""
    code, key = create_draw(server, {"pool": {"kind": "range", "from": 1, "to": 99}})
    host = open_page(browser(1280, 800), server.url("/draw/%s#key=%s" % (code, key)))
    host.wait_js("window.tombola.state.role === 'host'", TIMEOUT)
    host.js("document.querySelector('[data-settings]').closest('details')?.setAttribute('open', '')")
    field = host.find_element("css selector", "[data-slow-down]")
    host.js("arguments[0].scrollIntoView({block: 'center'})", field)
    assert any("Slow-down after Stop" in p["text"] for p in seen(host)), [p["text"] for p in seen(host)][:40]
    for value, want in (("3", 3000), ("9", None)):
        field.clear()
        field.send_keys(value)
        host.find_element("css selector", "[data-save]").click()
        if want:
            host.wait_js("window.tombola.state.config && window.tombola.state.config.slowDown === %d" % want, TIMEOUT)
        else:
            # The server's refusal (bad_slow_down), said in the host's bar.
            host.wait_js("document.body.innerText.includes('slow-down lasts 1.5 to 6 seconds')", TIMEOUT)
            assert any("1.5 to 6 seconds" in p["text"] for p in seen(host)), [p["text"] for p in seen(host)]
    assert api(server, "/api/draws/%s" % code, key, method="GET")["config"]["slowDown"] == 3000
    api(server, "/api/draws/%s/start" % code, key)
    began = time.monotonic()
    api(server, "/api/draws/%s/stop" % code, key)
    assert time.monotonic() - began >= 2.9


def test_two_people_of_one_name_enter_from_an_uploaded_list_told_apart_by_their_staff_number(server, browser, tmp_path):
    """Item 11: a GB18030 spreadsheet of 姓名 and 工号 where two 张伟 have their own staff numbers:
    the preview lists both, each with the number, asks for nothing, and the saved pool holds both."""
    code, key = create_draw(server, {"pool": {"kind": "range", "from": 1, "to": 9}})
    sheet = tmp_path / "guests.csv"
    sheet.write_bytes("姓名,工号\r\n张伟,A-001\r\n李娜,A-002\r\n张伟,A-003\r\n".encode("gb18030"))
    host = open_page(browser(1280, 800, "zh-CN"), server.url("/draw/%s#key=%s" % (code, key)))
    host.wait_js("window.tombola.state.role === 'host'", TIMEOUT)
    host.js("document.querySelector('[data-settings-panel]').open = true")
    host.find_element("css selector", "[data-pool-kind][value=list]").click()
    host.find_element("css selector", "[data-csv]").send_keys(str(sheet))
    host.wait_js("!document.querySelector('[data-import-preview]').hidden", TIMEOUT)
    host.js("document.querySelector('[data-import-preview]').scrollIntoView({block: 'start'})")
    shown = [p["text"] for p in seen(host, "[data-import-preview]")]
    assert "张伟（A-001）" in shown and "张伟（A-003）" in shown, shown
    assert not any("同名" in text for text in shown), shown
    host.find_element("css selector", "[data-import-use]").click()  # using the list saves it (item 3)
    host.wait_js("window.tombola.state.config.pool.kind === 'list' && window.tombola.state.config.pool.count === 3", TIMEOUT)
    entrants = api(server, "/api/draws/%s/config" % code, key, method="GET")["pool"]["entrants"]
    assert sorted(e if isinstance(e, str) else e["name"] for e in entrants) == ["张伟（A-001）", "张伟（A-003）", "李娜"]
