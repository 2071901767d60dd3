"""The auditor's pack for an event (issue #41) from the host page's Export card: a draw that
excludes the winners of another shows "Auditor's pack for the event (ZIP)" in the page's language
(Chinese here), visible and tappable, and the press delivers one ZIP with both draws' packs and
event.html; a draw that links none does not show the button (Tests/peers/test_audit_pack.py checks
the pack's contents)."""
import base64
import io
import os
import zipfile

from test_draw import create_draw, open_page
from test_xlsx_downloads import HOOK, READ, VISIBLE
from visible import english_words

TIMEOUT = 20
SHOTS = os.environ.get("TOMBOLA_SCREENSHOTS")
NAMES = ["王小明", "李华", "张伟"]


def wait_visible(page, element, text):
    """Waits until `element` shows `text`, inside the viewport, opaque and not covered (it shows
    once the draw's settings have arrived); fails with what it last saw."""
    expected, seen = {"text": text, "inside": True, "opacity": "1", "hit": True}, []
    try:
        page.wait(lambda: seen.append(page.js(VISIBLE, element)) or seen[-1] == expected, TIMEOUT)
    except Exception:
        raise AssertionError(seen[-1:]) from None


def test_a_linked_draw_offers_the_event_pack_and_delivers_every_draw(server, browser):
    first, first_key = create_draw(server, {"pool": {"kind": "list", "entrants": NAMES}})
    code, key = create_draw(server, {"pool": {"kind": "list", "entrants": NAMES},
                                     "excludeWinnersOf": [{"code": first, "key": first_key}]})
    host = open_page(browser(390, 844, "zh-CN"), server.url("/draw/%s#key=%s" % (code, key)))
    host.wait_js("window.tombola.state.role === 'host'", TIMEOUT)
    host.js("document.querySelectorAll('details').forEach((d) => d.setAttribute('open', ''))")
    host.js(HOOK)
    button = host.find_element("css selector", '[data-audit-export="event"]')
    wait_visible(host, button, "整场活动的审计包（ZIP）")
    assert english_words(host, allow=NAMES) == []
    if SHOTS:
        host.save_screenshot(os.path.join(SHOTS, "event-pack-390x844-zh.png"))
    button.click()
    host.wait_js("window.__blobs.length === 1", TIMEOUT)
    pack = zipfile.ZipFile(io.BytesIO(base64.b64decode(host.js(READ, 0))))
    names = set(pack.namelist())
    assert {"event.html", "draws/%s/export.json" % first, "draws/%s/export.json" % code} <= names, names
    event = pack.read("event.html").decode()
    assert "<td>%s</td><td>%s</td>" % (code, first) in event

    # The first draw links none: no event button on its page (the draw's own pack stays).
    host.get(server.url("/draw/%s#key=%s" % (first, first_key)))
    host.wait_js("window.tombola && window.tombola.state.role === 'host' && window.tombola.state.code === %r && window.tombola.state.config" % first, TIMEOUT)
    own = host.find_element("css selector", '[data-audit-export="zip"]')
    wait_visible(host, own, "审计包（ZIP）")
    assert host.js("return document.querySelector('[data-audit-export=event]').getClientRects().length") == 0
    assert "整场活动的审计包" not in host.js("return document.body.innerText")
    assert host.errors() == []
