"""Ticket books (issue 45) in Chromium against the real server: a pool of coloured books
(`red 1–40, blue 1–40, 绿 101–120`) drawn in every display mode (number, reels, wheel, names). On
the projector (1920x1080, English) and a phone (390x844, Chinese) the winner reads as the REST
result ("blue 17") and carries its book's colour where a person sees it: the swatch painted
before the text (its computed colour, its size, inside the viewport), the wheel's pixels under the
pointer. The host page (Chinese) sets the books from its settings form; the export's entrants
record holds the books, and `tombola verify` passes it."""

import json
import os
import subprocess
import urllib.request

from test_draw import create_draw, open_page
from test_stage_modes import api
from visible import english_words, seen

TIMEOUT = 20
BOOKS = [{"name": "red", "from": 1, "to": 40, "color": "#c62828"},
         {"name": "blue", "from": 1, "to": 40, "color": "#1565c0"},
         {"name": "绿", "from": 101, "to": 120, "color": "#2e7d32"}]

# The visible element (text painted, inside the viewport, on top at its centre) under `scope`
# whose own text is `text`: its font size and its swatch (the ::before the page paints before a
# ticket) as computed: colour, width, and whether the swatch lies inside the viewport.
SWATCH = r"""
  const [scope, text] = arguments;
  for (const el of document.querySelectorAll(scope + ' *')) {
    if (el.children.length || el.textContent.trim() !== text || el.closest('[hidden]')) continue;
    const r = el.getBoundingClientRect();
    if (r.width < 1 || r.height < 1 || r.left < -1 || r.top < -1 || r.right > innerWidth + 1 || r.bottom > innerHeight + 1) continue;
    let opacity = 1;
    for (let e = el; e; e = e.parentElement) { const cs = getComputedStyle(e); if (cs.display === 'none' || cs.visibility === 'hidden') { opacity = 0; break; } opacity *= parseFloat(cs.opacity); }
    if (opacity < 0.99) continue;
    const top = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
    if (!top || !(top === el || el.contains(top) || top.contains(el))) continue;
    const before = getComputedStyle(el, '::before');
    return { size: parseFloat(getComputedStyle(el).fontSize), color: before.backgroundColor, content: before.content,
             width: parseFloat(before.width), left: r.left };
  }
  return null;
"""

# The wheel's pixel under the pointer (at the top, near the rim, outside the labels).
WHEEL_PIXEL = r"""
  const c = document.querySelector('[data-mode-layer] .wheel-canvas');
  if (!c || !c.style.transform) return null;
  const rot = parseFloat(/rotate\(([-+\d.e]+)rad\)/.exec(c.style.transform)[1]);
  const R = c.width / 2, angle = -Math.PI / 2 - rot;
  const d = c.getContext('2d').getImageData(Math.round(R + 0.955 * R * Math.cos(angle)), Math.round(R + 0.955 * R * Math.sin(angle)), 1, 1).data;
  return [d[0], d[1], d[2]];
"""


def rgb(color):
    return "rgb(%d, %d, %d)" % tuple(int(color[i:i + 2], 16) for i in (1, 3, 5))


def book_of(ticket):
    name, number = ticket.rsplit(" ", 1)
    book = next(b for b in BOOKS if b["name"] == name)
    assert book["from"] <= int(number) <= book["to"], ticket
    return book


def swatch_shows(page, scope, ticket, at_least=0, color=None):
    """Waits until `ticket` is visible under `scope` (at >= `at_least` px) with its book's swatch
    (or one of `color`)."""
    want = rgb(color or book_of(ticket)["color"])

    def ready():
        got = page.js(SWATCH, scope, ticket)
        return got if got and got["size"] >= at_least and got["color"] == want and got["width"] >= 6 else None
    try:
        return page.wait(ready, TIMEOUT)
    except Exception:
        raise AssertionError("%s under %s: %s (want %s at >= %s px; visible: %s)" % (
            ticket, scope, page.js(SWATCH, scope, ticket), want, at_least, [p["text"] for p in seen(page, scope)])) from None


def test_ticket_books_show_their_colour_in_every_mode_and_verify(server, browser):
    code, key = create_draw(server, {"pool": {"kind": "books", "books": BOOKS}, "exclude": ["blue 7"], "mode": "number"})
    screen = open_page(browser(1920, 1080), server.url("/screen/%s" % code))
    phone = open_page(browser(390, 844, "zh-CN"), server.url("/watch/%s" % code))
    drawn = []
    for mode in ("number", "reels", "wheel", "names"):
        config = api(server, "/api/draws/%s/config" % code, key, method="GET")
        config["mode"] = mode
        api(server, "/api/draws/%s/config" % code, key, config, method="PUT")
        api(server, "/api/draws/%s/start" % code, key)
        result = api(server, "/api/draws/%s/stop" % code, key)["result"]
        (ticket,) = result["winners"]
        drawn.append(ticket)
        assert ticket != "blue 7"
        if mode == "number":
            # The stage's big value: the ticket, large, after its book's swatch.
            got = swatch_shows(screen, "[data-stage]", ticket, at_least=80)
            # Inside the screen to within a pixel, as SWATCH itself counts: a name is fitted to the
            # box with scrollWidth, an integer, so its fractional width may overhang by a fraction of
            # a pixel (-0.115 px once on a fresh clone, for one ticket's glyphs: invisible).
            assert got["left"] >= -1
            swatch_shows(phone, "[data-stage]", ticket, at_least=24)
        else:
            # The winner card every mode ends on, on the projector and the phone.
            swatch_shows(screen, "[data-winner-card]", ticket, at_least=120)
            swatch_shows(phone, "[data-winner-card]", ticket)
        if mode == "wheel":
            # Under the card, the wheel rests on the winner's slice, painted in its book's colour.
            screen.js("document.querySelector('[data-winner-card]').style.visibility = 'hidden'")
            want = [int(book_of(ticket)["color"][i:i + 2], 16) for i in (1, 3, 5)]
            screen.wait(lambda: (lambda p: p and max(abs(a - b) for a, b in zip(p, want)) <= 8)(screen.js(WHEEL_PIXEL)), TIMEOUT)
            screen.js("document.querySelector('[data-winner-card]').style.visibility = ''")
        if mode == "names":
            # The field's lit chip for the winner carries the swatch too.
            screen.js("document.querySelector('[data-winner-card]').style.visibility = 'hidden'")
            swatch_shows(screen, "[data-mode-layer]", ticket)
            screen.js("document.querySelector('[data-winner-card]').style.visibility = ''")
    # The phone's list of earlier rounds (the latest is on the stage): each ticket with its swatch,
    # and no English on the zh page but the tickets' own book names.
    for ticket in drawn[:-1]:
        phone.js("""for (const el of document.querySelectorAll('[data-history] *'))
                      if (!el.children.length && el.textContent.trim() === arguments[0]) el.scrollIntoView({ block: 'center' });""", ticket)
        swatch_shows(phone, "[data-history]", ticket)
    assert not english_words(phone, allow={"red", "blue"}), english_words(phone, allow={"red", "blue"})

    # The record: the export's list holds the books; tombola verify passes it.
    with urllib.request.urlopen(server.url("/api/draws/%s/export.json" % code), timeout=30) as r:
        export = json.load(r)
    lists = [r for r in export["records"] if r["kind"] == "entrants"]
    assert lists and lists[0]["books"] == BOOKS and lists[0]["entrants"][40] == "blue 1"
    assert [w for r in export["records"] if r["kind"] == "round" for w in r["winners"]] == drawn
    path = os.path.join(server.data_dir, "books-export.json")
    with open(path, "w", encoding="utf-8") as f:
        json.dump(export, f, ensure_ascii=False)
    verified = subprocess.run([os.environ.get("TOMBOLA_BIN", "tombola"), "verify", path], capture_output=True, text=True, timeout=60)
    assert verified.returncode == 0, verified.stdout

    # The host page (Chinese) sets books from its settings form, each shown with its colour.
    host = open_page(browser(390, 844, "zh-CN"), server.url("/draw/%s#key=%s" % (code, key)))
    host.wait_js("window.tombola.state.role === 'host'")
    host.js("document.querySelector('[data-settings-panel]').open = true")
    host.wait(lambda: host.js("return document.querySelector('[data-pool-kind][value=books]').checked"), TIMEOUT)
    host.js("document.querySelector('[data-books-preview]').scrollIntoView({ block: 'center' })")
    host.save_screenshot("/tmp/books-host.png")
    swatch_shows(host, "[data-books-preview]", "绿：101–120", color="#2e7d32")
    host.js("""const t = document.querySelector('[data-books]');
               t.value = '红 1–30\\nblue 5-9 #0D47A1'; t.dispatchEvent(new Event('input', { bubbles: true }));""")
    host.js("document.querySelector('[data-save]').click()")
    host.wait(lambda: api(server, "/api/draws/%s/config" % code, key, method="GET")["pool"].get("books") == [
        {"name": "红", "from": 1, "to": 30, "color": "#c62828"}, {"name": "blue", "from": 5, "to": 9, "color": "#0d47a1"}], TIMEOUT)
    swatch_shows(host, "[data-books-preview]", "blue：5–9", color="#0d47a1")
