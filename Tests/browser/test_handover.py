"""The prize hand-over (核销, issue 45; docs/PROTOCOL.md "Prize hand-over") in Chromium against the
real server: a check-in draw with three prizes, three phones check in, a round; the winner's phone
shows its voucher (QR and code, inside a 390x844 view; the code is the one the host's list gives
that winner), the other phones none. Staff (a check-in co-host, its page in Chinese) type a code
with a typo and another that is no winner's: each refused in words, nothing changed; then the
winner's code → "Hand over" → the winner's phone says "Handed over at … by Mia", the host's list
"1 of 1", the CSV export has the columns; the same code again is refused, and so is a voided
winner's voucher. Once a third round rolls, the next winner's voucher is a compact card a tap
opens. Then the scan, for real: that winner's QR, photographed from its phone,
is what the staff page's camera sees (qr_camera.py); Scan reads it, shows that winner, hands over."""

import csv
import io
import json
import os
import urllib.request

from selenium.webdriver.common.by import By

from qr_camera import camera_browser, png_to_y4m
from test_draw import create_draw, open_page
from test_operators import call
from visible import english_words

TIMEOUT = 20
ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
ZH = {}  # filled from the page's own table (Public/js/lib/i18n.js), so the test reads the words the page says

INSIDE = """
  const n = document.querySelector(arguments[0]);
  if (!n) return null;
  n.scrollIntoView({block: 'center'});  // where the user would scroll to read it
  const r = n.getBoundingClientRect();
  const visible = r.width > 0 && r.height > 0 && r.top >= 0 && r.left >= 0 && r.bottom <= innerHeight && r.right <= innerWidth
    && getComputedStyle(n).opacity === '1' && getComputedStyle(n).visibility === 'visible';
  const hit = visible && n.contains(document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2));
  return visible && hit ? n.innerText : null;
"""


def shown(page, selector):
    """innerText of `selector` once scrolled to, when it is in the viewport, opaque and not covered; else None."""
    return page.js(INSIDE, selector)


def text_of(page, selector):
    return page.js("const n = document.querySelector(arguments[0]); return n && n.offsetParent !== null ? n.innerText : null;", selector)


def join(phone, name):
    phone.wait_js("!document.querySelector('[data-join-form]').hidden", TIMEOUT)
    phone.find_element(By.CSS_SELECTOR, "[data-join-name]").send_keys(name)
    phone.find_element(By.CSS_SELECTOR, "[data-join-submit]").click()
    return phone.wait_js("window.tombola.state.me && window.tombola.state.me.id", TIMEOUT)


def screenshot(page, name):
    """With TOMBOLA_SCREENSHOTS set: the page as it is now, for the README (docs/screenshots)."""
    if os.environ.get("TOMBOLA_SCREENSHOTS"):
        page.save_screenshot(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "docs", "screenshots", name))


def not_a_winners_code():
    """A well-formed code (its check character right) that no winner holds: 0000-000 + check."""
    values = [0] * 7
    check = sum((i + 1) * v for i, v in enumerate(values)) % 31
    return "0000-000" + ALPHABET[check]


def with_typo(code):
    """`code` with one character changed: its check character no longer matches."""
    chars = list(code)
    chars[2] = "Z" if chars[2] != "Z" else "Y"
    return "".join(chars)


def press(page, selector):
    """Clicks `selector` where a user would: scrolled to the middle of the view (the bar sticks to the bottom)."""
    page.js("document.querySelector(arguments[0]).scrollIntoView({block: 'center'})", selector)
    page.find_element(By.CSS_SELECTOR, selector).click()


def type_code(staff, code, button="[data-handover-check]"):
    field = staff.find_element(By.CSS_SELECTOR, "[data-handover-code]")
    field.clear()
    field.send_keys(code)
    press(staff, button)


def handover_list(server, code, key):
    return call(server, code, key, "GET", "handovers")[1]


def zh(page, key, **params):
    return page.js("return import('/js/lib/i18n.js').then((m) => m.tables.zh[arguments[0]])", key).format(**params)


def test_a_winner_shows_the_voucher_and_staff_hand_the_prize_over_typed_and_scanned(server, browser, tmp_path):
    config = {"pool": {"kind": "checkin"}, "prizes": [{"name": "Bike", "count": 1}, {"name": "Hamper", "count": 1},
                                                      {"name": "Mug", "count": 1}]}
    code, key = create_draw(server, config)
    call(server, code, key, "POST", "entries/open", {"publicNames": True})
    phones, names = {}, {}
    for name in ("Ann Lee", "Bo Chen", "Cai Wen"):
        phone = open_page(browser(390, 844), server.url("/watch/%s" % code))
        entry = join(phone, name)
        phones[entry], names[entry] = phone, name
    call(server, code, key, "POST", "entries/close")
    status, mia = call(server, code, key, "POST", "operators", {"name": "Mia", "role": "checkin"})
    assert status == 201, mia
    host = open_page(browser(1280, 900), server.url("/draw/%s#key=%s" % (code, key)))
    host.wait_js("window.tombola.state.role === 'host'", TIMEOUT)
    staff = open_page(browser(390, 844, "zh-CN"), mia["hostUrl"])
    staff.wait_js("window.tombola.state.role === 'host'", TIMEOUT)

    assert call(server, code, key, "POST", "start")[0] == 200
    status, stopped = call(server, code, key, "POST", "stop")
    winner = stopped["result"]["winners"][0]
    listed = handover_list(server, code, key)
    item = next(i for i in listed["items"] if i["winner"] == winner)
    voucher = item["code"]
    assert (item["state"], item["prize"], item["round"], item["name"]) == ("waiting", "Bike", 1, names[winner])

    # The winner's phone: the QR and the code under it, in view, and "Show this at the prize table".
    phone = phones[winner]
    phone.wait_js("document.querySelector('[data-voucher-qr]') && document.querySelector('[data-voucher-qr]').complete", TIMEOUT)
    phone.js("document.querySelector('[data-voucher]').scrollIntoView({block: 'center'})")
    assert shown(phone, "[data-voucher-code]") == voucher
    assert shown(phone, "[data-voucher-qr]") is not None
    assert shown(phone, "[data-voucher-status]") == "Show this at the prize table"
    screenshot(phone, "handover-voucher-phone-390x844-en.png")
    qr_box = phone.js("const r = document.querySelector('[data-voucher-qr]').getBoundingClientRect(); return [r.width, r.height];")
    assert min(qr_box) >= 150, qr_box
    for other, page in phones.items():
        if other != winner:
            assert page.js("return document.querySelectorAll('[data-voucher]').length") == 0
    # The host's list names it, with the same code, "0 of 1".
    host.wait_js("document.querySelector('[data-handover-item=\"%s\"]') !== null" % voucher, TIMEOUT)
    assert "Prizes: 0 of 1 handed over" == text_of(host, "[data-handover-count]")
    assert voucher in text_of(host, "[data-handover-item=\"%s\"]" % voucher)
    assert names[winner] in text_of(host, "[data-handover-item=\"%s\"]" % voucher)

    # Staff (Chinese page): a typo is caught by the check character; a code no winner holds is refused by the server.
    staff.wait_js("!document.querySelector('[data-prize-table]').hidden", TIMEOUT)
    assert shown(staff, "#prize-table-heading") == zh(staff, "handover.title")
    type_code(staff, with_typo(voucher))
    staff.wait_js("document.querySelector('[data-handover-message]').innerText === arguments[0]".replace(
        "arguments[0]", json.dumps(zh(staff, "handover.typo"))), TIMEOUT)
    assert shown(staff, "[data-handover-message]") == zh(staff, "handover.typo")
    type_code(staff, not_a_winners_code())
    expected = zh(staff, "err.unknown_voucher")
    staff.wait_js("document.querySelector('[data-handover-message]').innerText === %s" % json.dumps(expected), TIMEOUT)
    assert shown(staff, "[data-handover-message]") == expected
    assert handover_list(server, code, key)["handedOver"] == 0
    assert staff.js("return document.querySelector('[data-handover-found]').hidden")

    # The winner's code: whose it is, then "Hand over".
    type_code(staff, voucher.lower().replace("-", ""))
    staff.wait_js("!document.querySelector('[data-handover-found]').hidden", TIMEOUT)
    assert shown(staff, "[data-handover-found-text]") == zh(staff, "handover.found", name=names[winner], prize="Bike", n=1)
    screenshot(staff, "handover-prize-table-390x844-zh.png")
    # No English on the Chinese page: only the entrants' names, the prizes, the codes and Mia's name are in Latin letters.
    own = [w for n in names.values() for w in n.split()] + ["Bike", "Hamper", "Mia"] + voucher.split("-")
    assert english_words(staff, allow=own) == []
    press(staff, "[data-handover-confirm]")
    record = None
    phone.wait_js("document.querySelector('[data-voucher]').dataset.state === 'handedOver'", TIMEOUT)
    record = next(i for i in handover_list(server, code, key)["items"] if i["code"] == voucher)
    assert (record["state"], record["by"]) == ("handedOver", "Mia")
    time = phone.js("return new Date(arguments[0]).toLocaleTimeString(document.documentElement.lang || undefined,"
                    " {hour: '2-digit', minute: '2-digit'})", record["at"])
    assert shown(phone, "[data-voucher-status]") == "Handed over at %s by Mia" % time
    assert phone.js("return document.querySelectorAll('[data-voucher-qr]').length") == 0  # no QR to show any more
    host.wait_js("document.querySelector('[data-handover-count]').innerText === 'Prizes: 1 of 1 handed over'", TIMEOUT)
    assert shown(staff, "[data-handover-message]") == zh(staff, "handover.done", name=names[winner], prize="Bike")

    # The winners' CSV: 'handed over' (the time) and 'by'.
    with urllib.request.urlopen(urllib.request.Request(server.url("/api/draws/%s/export.csv" % code),
                                                       headers={"Authorization": "Bearer " + key}), timeout=10) as r:
        rows = list(csv.DictReader(io.StringIO(r.read().decode("utf-8-sig"))))
    row = next(r for r in rows if r["winner"] == winner)
    assert row["by"] == "Mia" and row["handed over"].startswith(row["at"][:10]), row

    # The same code again: refused, with when and by whom.
    type_code(staff, voucher)
    expected = zh(staff, "handover.already", time=staff.js(
        "return new Date(arguments[0]).toLocaleTimeString(document.documentElement.lang || undefined,"
        " {hour: '2-digit', minute: '2-digit'})", record["at"]), by="Mia", name=names[winner], prize="Bike")
    staff.wait_js("document.querySelector('[data-handover-message]').innerText === %s" % json.dumps(expected), TIMEOUT)
    assert call(server, code, mia["key"], "POST", "handover", {"code": voucher, "confirm": True})[1]["error"]["code"] == "already_handed_over"

    # Round 2: its winner is voided (a replacement is drawn): the voided voucher is refused and says so on its phone.
    assert call(server, code, key, "POST", "start")[0] == 200
    second = call(server, code, key, "POST", "stop")[1]["result"]["winners"][0]
    status, voided = call(server, code, key, "POST", "void", {"round": 2, "winner": second, "reason": "not here"})
    assert status == 200, voided
    replacement = voided["result"]["winners"][0]
    items = {i["winner"]: i for i in handover_list(server, code, key)["items"] if i["round"] == 2}
    assert (items[second]["state"], items[replacement]["state"]) == ("void", "waiting")
    phones[second].wait_js("document.querySelector('[data-voucher]') && document.querySelector('[data-voucher]').dataset.state === 'void'", TIMEOUT)
    phones[second].js("document.querySelector('[data-voucher]').scrollIntoView({block: 'center'})")
    assert shown(phones[second], "[data-voucher-status]") == "This voucher no longer counts: the win was voided"
    type_code(staff, items[second]["code"])
    expected = zh(staff, "handover.void", name=names[second], n=2)
    staff.wait_js("document.querySelector('[data-handover-message]').innerText === %s" % json.dumps(expected), TIMEOUT)
    assert handover_list(server, code, key)["handedOver"] == 1
    # Roles that are no staff: an observer may not even list the vouchers.
    status, eve = call(server, code, key, "POST", "operators", {"name": "Eve", "role": "observer"})
    assert call(server, code, eve["key"], "GET", "handovers")[1]["error"]["code"] == "role_forbidden"
    assert call(server, code, eve["key"], "POST", "handover", {"code": items[replacement]["code"]})[1]["error"]["code"] == "role_forbidden"

    # Round 3 rolls: the replacement's round-2 voucher is no longer the stage's, so it is a compact card
    # (its code, no QR) over the rolling stage; a tap opens its QR again.
    shot = phones[replacement]
    shot.wait_js("document.querySelector('[data-voucher-qr]') && document.querySelector('[data-voucher-qr]').complete", TIMEOUT)
    # A late guest without a phone here joins, so the third round has someone left to draw.
    assert call(server, code, key, "POST", "entries/open", {"publicNames": True})[0] == 200
    assert call(server, code, key, "POST", "join", {"name": "Dee Fox"})[0] == 201
    assert call(server, code, key, "POST", "entries/close")[0] == 200
    assert call(server, code, key, "POST", "start")[0] == 200
    shot.wait_js("document.querySelector('[data-voucher][data-compact]') !== null", TIMEOUT)
    assert shot.js("return document.querySelectorAll('[data-voucher-qr]').length") == 0
    assert shown(shot, "[data-voucher-code]") == items[replacement]["code"]
    shot.find_element(By.CSS_SELECTOR, "[data-voucher][data-compact]").click()
    # The scan: the replacement's phone shows its QR; a camera sees that screen; Scan on the staff page reads it.
    shot.wait_js("document.querySelector('[data-voucher-qr]') && document.querySelector('[data-voucher-qr]').complete", TIMEOUT)
    assert shot.js("return document.querySelector('[data-voucher]').dataset.compact") is None
    shot.js("document.querySelector('[data-voucher-qr]').scrollIntoView({block: 'center'})")
    assert shown(shot, "[data-voucher-code]") == items[replacement]["code"]
    png = shot.find_element(By.CSS_SELECTOR, "[data-voucher-qr]").screenshot_as_png
    y4m = png_to_y4m(png, str(tmp_path / "voucher.y4m"))
    with camera_browser(y4m, 390, 844) as scanner:
        open_page(scanner, mia["hostUrl"])
        scanner.wait_js("!document.querySelector('[data-prize-table]').hidden", TIMEOUT)
        press(scanner, "[data-handover-scan]")
        scanner.wait_js("!document.querySelector('[data-handover-found]').hidden", TIMEOUT)
        assert shown(scanner, "[data-handover-found-text]") == "%s · Hamper · round 2" % names[replacement]
        assert scanner.js("return document.querySelector('[data-handover-code]').value") == items[replacement]["code"]
        press(scanner, "[data-handover-confirm]")
        shot.wait_js("document.querySelector('[data-voucher]').dataset.state === 'handedOver'", TIMEOUT)
    host.wait_js("document.querySelector('[data-handover-count]').innerText === 'Prizes: 2 of 2 handed over'", TIMEOUT)
    for page in [host, staff, *phones.values()]:
        assert page.errors(allow=("/handover - Failed to load resource",)) == []
