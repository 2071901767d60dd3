"""A private draw in Chromium (issue #42, docs/FAIRNESS.md §22): the projector (1920x1080) and a
phone (390x844) show the winners' names masked by the server and never a real name; the phone,
opened from an entrant's receipt link, says the entry is in the locked pool; the host's page
shows the real names; the round's certificate shows the masked winners and still rechecks."""

import json
import urllib.parse

from test_draw import create_draw, open_page
from test_stage_modes import api

TIMEOUT = 20
REAL = ["Johanna Doe", "Bartholomew Quist", "13812345678", "Evangeline Marsh", "Theodor Lindqvist", "15987654321",
        "Wilhelmina Okafor", "Augustin Ferreira"]


def mask(value):
    """docs/STAGE.md "Name masking" (names), as the server masks (ASCII values here)."""
    if value.isdigit():
        return value[:3] + "*" * (len(value) - 7) + value[-4:]
    return " ".join(w[0] + "*" * max(1, len(w) - 1) for w in value.split(" "))


def visible_text(page, wanted):
    """The page's text once it shows every string of `wanted`."""
    return page.wait_js("(() => { const t = document.body.innerText;"
                        " return %s.every((m) => t.includes(m)) ? t : null; })()" % json.dumps(wanted), TIMEOUT)


def test_a_private_draw_shows_masked_winners_a_receipt_proves_its_entry_and_the_host_sees_names(server, browser):
    code, key = create_draw(server, {"pool": {"kind": "list", "entrants": REAL}, "perStop": 3, "private": True})
    roster = api(server, "/api/draws/%s/private" % code, key, method="GET")
    by_id = {e["id"]: e for e in roster["entrants"]}
    assert sorted(e["name"] for e in roster["entrants"]) == sorted(REAL)
    host = open_page(browser(1280, 800), server.url("/draw/%s#key=%s" % (code, key)))
    host.wait_js("window.tombola.state.role === 'host'")
    screen = open_page(browser(1920, 1080), server.url("/screen/%s" % code))
    # The phone opens the receipt of an entrant (the fragment: nothing of it reaches the server).
    receipt = roster["entrants"][0]
    phone = open_page(browser(390, 844), receipt["receipt"].replace(urllib.parse.urlsplit(receipt["receipt"]).netloc,
                                                                      urllib.parse.urlsplit(server.url("/")).netloc))

    api(server, "/api/draws/%s/start" % code, key)
    result = api(server, "/api/draws/%s/stop" % code, key)["result"]
    names = [by_id[w]["name"] for w in result["winners"]]
    masked = [mask(n) for n in names]

    for label, page in (("screen", screen), ("phone", phone)):
        page.wait_js("window.tombola.state.lastReveal && window.tombola.state.lastReveal.round === %d" % result["round"], TIMEOUT)
        text = visible_text(page, masked)
        for real in REAL:
            # The receipt's holder sees their own name, from their link, in the receipt's card only.
            mine = page is phone and real == receipt["name"]
            assert text.count(real) == (1 if mine else 0), "%s shows %s" % (label, real)
        assert page.errors() == [], label

    # On the projector each masked winner fits the stage, uncovered (the side panel, the confetti's canvas aside).
    fits = screen.wait_js("""(() => {
      const want = %s, out = [];
      for (const el of document.querySelectorAll('body *')) {
        if (el.children.length || !want.includes(el.textContent.trim())) continue;
        const r = el.getBoundingClientRect();
        if (r.width === 0) continue;
        const panel = document.querySelector('[data-side], .side, .screen-side, aside');
        const limit = panel ? panel.getBoundingClientRect().left : innerWidth;
        if (r.left < 0 || r.right > limit + 1 || r.top < 0 || r.bottom > innerHeight) return null;
        out.push(el.textContent.trim());
      }
      return want.every((m) => out.includes(m)) ? out : null;
    })()""" % json.dumps(masked), TIMEOUT)
    assert fits

    # The receipt: its name, its id's tag and the proof's line, on screen.
    line = phone.wait_js("(() => { const p = document.querySelector('[data-receipt-proof]');"
                         " return p && p.innerText.includes('✓') ? p.innerText : null; })()", TIMEOUT)
    assert "round %d" % result["round"] in line
    card = phone.js("const r = document.querySelector('[data-receipt]').getBoundingClientRect();"
                    " return [r.top, r.bottom, r.width, document.querySelector('[data-receipt]').innerText];")
    assert card[0] >= 0 and card[2] > 0 and receipt["name"] in card[3] and "#" + receipt["id"][1:7].upper() in card[3]

    # The host's page names the winners.
    host_text = visible_text(host, names)
    assert host.errors() == []

    cert = browser(390, 844)
    cert.get(server.url("/draw/%s/round/%d" % (code, result["round"])))
    text = visible_text(cert, masked)
    for real in REAL:
        assert real not in text, "the certificate shows %s" % real
    assert cert.wait_js("document.querySelector('[data-verify]').dataset.state === 'ok'", TIMEOUT)
    assert cert.errors() == []
    assert host_text
