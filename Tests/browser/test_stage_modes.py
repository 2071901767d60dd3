"""The stage's display modes (issue #26, issue 39) in Chromium against the real server: on the
screen (1920x1080), the host page and a phone (390x844), each mode shows what the server drew,
the same as the REST result, round after round, and ends on a winner card that stays until the
next Start. Everything is read as a person sees it (visible.py: text painted at opacity 1, inside
the viewport, not covered or clipped, its font size), never from a data attribute. A recorder in
the screen page notes what is visible at every animation frame, so a blank band or a flash of
the plain value between two checks cannot slip by. The phone asks for reduced motion."""

import json
import re
import struct
import zlib
import urllib.error
import urllib.request

from test_draw import create_draw, open_page
from visible import SEEN, seen

TIMEOUT = 20

# Every animation frame: what is visible in the winner card and in the mode layer (text, size,
# vertical middle), and the plain value's computed opacity while a mode holds the stage.
RECORD = """
  const see = new Function(arguments[0]);
  window.__frames = [];
  window.__recording = true;
  let last = '';
  const step = () => {
    if (!window.__recording) return;
    const st = window.tombola.state;
    const stage = document.querySelector('[data-stage]');
    const value = document.querySelector('[data-value]');
    const pick = (scope) => see(scope).map((p) => [p.text, Math.round(p.size), Math.round(p.mid)]);
    const frame = { phase: st.phase, round: st.lastReveal ? st.lastReveal.round : null,
      card: pick('[data-winner-card]'), mode: pick('[data-mode-layer]'),
      value: stage.classList.contains('mode-on') ? parseFloat(getComputedStyle(value).opacity) : 0 };
    const key = JSON.stringify(frame);
    if (key !== last) { last = key; frame.t = performance.now(); window.__frames.push(frame); }
    requestAnimationFrame(step);
  };
  requestAnimationFrame(step);
"""
RESULT_AT = """
  window.__resultAt = null;
  window.tombola.state.addEventListener('change', ({ detail }) => { if (detail === 'result') window.__resultAt = performance.now(); });
"""


def api(server, path, key, body=None, method="POST"):
    data = json.dumps(body if body is not None else {}).encode() if method != "GET" else None
    req = urllib.request.Request(server.url(path), data=data, method=method,
                                 headers={"Authorization": "Bearer " + key, "Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=60) as r:
        return json.load(r)


def put_picture(server, code, key, tier):
    """A 64x48 PNG as the tier's prize picture."""
    raw = b"".join(b"\x00" + bytes([200, 120, 30]) * 64 for _ in range(48))
    chunk = lambda kind, data: struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 64, 48, 8, 2, 0, 0, 0)) + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")
    req = urllib.request.Request(server.url("/api/draws/%s/prizes/%d/picture" % (code, tier)), data=png, method="PUT",
                                 headers={"Authorization": "Bearer " + key, "Content-Type": "image/png"})
    urllib.request.urlopen(req, timeout=30).read()


# The card's picture: loaded, painted at opacity 1, at least 100 px tall, inside the viewport, on top.
PICTURE_SEEN = """
  const img = document.querySelector('[data-winner-card] .card-picture');
  if (!img || !img.complete || !img.naturalWidth) return false;
  const r = img.getBoundingClientRect();
  let opacity = 1;
  for (let e = img; e; e = e.parentElement) { const cs = getComputedStyle(e); if (cs.display === 'none' || cs.visibility === 'hidden') return false; opacity *= parseFloat(cs.opacity); }
  const top = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
  return opacity > 0.99 && r.height >= 100 && r.top >= 0 && r.bottom <= innerHeight && r.left >= 0 && r.right <= innerWidth && top === img;
"""


def record(page):
    page.js(RECORD, SEEN)
    page.js(RESULT_AT)


def frames(page):
    page.js("window.__recording = false")
    return page.js("return window.__frames"), page.js("return window.__resultAt")


def open_all(browser, server, code, key, host=True):
    pages = {"screen": open_page(browser(1920, 1080), server.url("/screen/%s" % code))}
    if host:
        pages["host"] = open_page(browser(390, 844), server.url("/draw/%s#key=%s" % (code, key)))
    phone = browser(390, 844)
    # The phone asks for reduced motion: its calm variant lands on the same winners.
    phone.driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-reduced-motion", "value": "reduce"}]})
    pages["phone"] = open_page(phone, server.url("/watch/%s" % code))
    return pages


def draw_round(server, code, key, pages, recorded=("screen",)):
    api(server, "/api/draws/%s/start" % code, key)
    for page in pages.values():
        page.wait_js("window.tombola.state.phase === 'rolling'", TIMEOUT)
        # The mode holds the stage while rolling.
        page.wait_js("document.querySelector('[data-stage]').classList.contains('mode-on')", TIMEOUT)
    for name in recorded:
        record(pages[name])
    return api(server, "/api/draws/%s/stop" % code, key)["result"]


def card_shows(page, texts, at_least=0):
    """Waits until the winner card shows exactly `texts` (each at >= `at_least` px); returns the pieces."""
    def ready():
        pieces = seen(page, "[data-winner-card] .card-names")
        got = [p["text"] for p in pieces if p["size"] >= at_least]
        return pieces if sorted(got) == sorted(texts) else None
    try:
        return page.wait(ready, TIMEOUT)
    except Exception:
        raise AssertionError("the card shows %s, not %s" % (seen(page, "[data-winner-card]"), texts)) from None


def shown(value):
    """A winner as the pages show it: numbers grouped (digits compared), names as they are."""
    return str(value)


def digits(text):
    return re.sub(r"\D", "", text)


def assert_never_blank(frames_, result_at, texts, at_least, settle=900):
    """From `settle` ms after the result on, every frame shows one of `texts` at >= `at_least` px."""
    after = [f for f in frames_ if f["t"] >= result_at + settle]
    assert after, "no frame recorded after the result"
    for f in after:
        visible_now = [t for t, size, _ in f["card"] + f["mode"] if size >= at_least]
        assert any(t in texts for t in visible_now), "at %.0f ms after the result the stage shows %s, not %s" % (
            f["t"] - result_at, f["card"] + f["mode"], texts)


def assert_no_flash(frames_):
    """The plain stage value never shows through a mode (issue 39 item 17)."""
    flashes = [f for f in frames_ if f["value"] > 0.01]
    assert not flashes, "the plain value is painted over the mode: %s" % flashes[:3]


def test_slot_reels_land_on_the_winner_and_end_on_a_card_that_stays(server, browser):
    """Item 1, 13, 17 and the card: a list's name reel scrolls as a strip at a size set by the
    band (a 50-character outlier does not shrink it), lands on the REST winner, and the card
    shows it (one winner at >= 120 px with the tier and its picture; three at >= 64 px) until
    the next Start, also after a reload."""
    outlier = "Maximiliana Wolfeschlegelsteinhausenberger-Dorff III"
    names = ["Guest %02d" % i for i in range(1, 30)] + ["李小龙", "Nguyễn Văn Ánh", outlier]
    assert len(outlier) >= 50
    code, key = create_draw(server, {"pool": {"kind": "list", "entrants": names}, "perStop": 3, "mode": "reels",
                                     "prizes": [{"name": "Grand prize", "count": 1}, {"name": "Second prize", "count": 3}]})
    put_picture(server, code, key, 0)
    pages = open_all(browser, server, code, key, host=False)
    screen, phone = pages["screen"], pages["phone"]
    # Idle: the reels at rest under the next round's tier and "Ready" (item 10).
    screen.wait(lambda: any("Grand prize" in t and "Ready" in t for t in [p["text"] for p in seen(screen, "[data-mode-layer]")]), TIMEOUT)

    result = draw_round(server, code, key, pages)
    winner = shown(result["winners"][0])
    screen.wait_js("window.__resultAt !== null", TIMEOUT)
    card = card_shows(screen, [winner], at_least=120)
    assert all(p["size"] >= 120 for p in card), card
    assert any(p["text"] == "Grand prize" for p in seen(screen, "[data-winner-card]")), "the card names the tier"
    assert screen.js(PICTURE_SEEN), "the card shows the tier's picture"
    got, result_at = frames(screen)
    assert_no_flash(got)
    assert_never_blank(got, result_at, [winner], 64)
    # The reel itself landed on the winner before the card opened.
    assert any(any(t == winner and size >= 64 for t, size, _ in f["mode"]) for f in got if f["t"] >= result_at), "the reel never showed the winner"
    # While rolling: a strip (a name seen at several heights as it moves) at the band's size.
    rolling = [f for f in got if f["phase"] in ("rolling", "stopping")]
    heights = {mid for f in rolling for _, _, mid in f["mode"]}
    sizes = sorted(size for f in rolling for t, size, _ in f["mode"] if t.startswith("Guest"))
    assert sizes and sizes[len(sizes) // 2] >= 120, "rolling names at %s px" % sizes[:10]
    assert len(heights) >= 3, "the names do not move as a strip: %s" % heights
    card_shows(phone, [winner])

    # A reload after the reveal: the card at once, and the reel under it on the winner (item 13).
    screen.refresh()
    open_page(screen, screen.current_url)
    card_shows(screen, [winner], at_least=120)
    screen.js("document.querySelector('[data-winner-card]').style.visibility = 'hidden'")
    screen.wait(lambda: any(p["text"] == winner for p in seen(screen, "[data-mode-layer]")), TIMEOUT)
    screen.js("document.querySelector('[data-winner-card]').style.visibility = ''")

    # Three winners: the reel rolls on to each, then the card shows all three at >= 64 px.
    result = draw_round(server, code, key, pages)
    winners = [shown(w) for w in result["winners"]]
    assert len(winners) == 3
    screen.wait_js("window.__resultAt !== null", TIMEOUT)
    card_shows(screen, winners, at_least=64)
    got, result_at = frames(screen)
    assert_no_flash(got)
    assert_never_blank(got, result_at, winners, 64)
    card_shows(phone, winners)
    for page in pages.values():
        assert page.errors() == [], page.errors()


def test_digit_reels_land_from_the_left_on_the_rest_result_and_a_late_page_shows_it(server, browser):
    """A range's digit reels land from the left over the slow-down's steps, on the REST winner;
    a page opened after the reveal shows the winner's digits, not 000 (item 13). A restart that
    cuts the next round short leaves every page on that round's tier, ready, not on the previous
    round's winner (item 11)."""
    code, key = create_draw(server, {"pool": {"kind": "range", "from": 1, "to": 5000}, "mode": "reels",
                                     "prizes": [{"name": "Third prize", "count": 1}, {"name": "Grand prize", "count": 1}]})
    pages = open_all(browser, server, code, key, host=False)
    screen = pages["screen"]
    # The digits the landed reels show at each tick (they follow a tick at once, in the listener
    # registered before this one).
    screen.js("""
      window.__reels = [];
      window.tombola.state.addEventListener('change', ({ detail }) => {
        if (detail === 'tick') window.__reels.push(Array.from(document.querySelectorAll('.reel.is-landed')).map((r) => r.innerText).join(''));
      });""")
    result = draw_round(server, code, key, pages)
    winner = str(result["winners"][0])
    screen.wait(lambda: [digits(p["text"]) for p in seen(screen, "[data-winner-card] .card-names") if p["size"] >= 120] == [winner], TIMEOUT)
    landed = screen.js("return window.__reels")
    counts = [len(x) for x in landed]
    # Rolling: none landed; the slow-down lands them from the left, never taking one back.
    assert counts[0] == 0 and counts[-1] == 4, counts
    assert counts == sorted(counts), counts
    assert len(set(counts)) >= 3, "the reels landed all at once: %s" % counts
    padded = winner.rjust(4, "0")
    assert all(padded.startswith(x) for x in landed), (landed, padded)
    got, result_at = frames(screen)
    assert_no_flash(got)
    # A page opened after the reveal (the phone, reloaded): its card, and under it the reels on the winner.
    late = pages["phone"]
    late.refresh()
    open_page(late, late.current_url)
    late.wait(lambda: [digits(p["text"]) for p in seen(late, "[data-winner-card] .card-names")] == [winner], TIMEOUT)
    late.js("document.querySelector('[data-winner-card]').style.visibility = 'hidden'")
    late.wait(lambda: "".join(p["text"] for p in seen(late, ".reels")) == padded, TIMEOUT)
    late.js("document.querySelector('[data-winner-card]').style.visibility = ''")

    api(server, "/api/draws/%s/start" % code, key)
    screen.wait_js("window.tombola.state.phase === 'rolling'", TIMEOUT)
    commitment = api(server, "/api/draws/%s" % code, key, method="GET")["commit"]["commitment"]
    server.restart()
    # No re-roll by crash (issue #40): round 2 rolls on after the restart, every page says so, and
    # none shows round 1's winner or card meanwhile.
    for page in (screen, late):
        page.wait_js("window.tombola.state.connection === 'online' && window.tombola.state.phase === 'rolling'", TIMEOUT)
        page.wait(lambda: any("Round 2 rolls on after a server restart" in p["text"] for p in seen(page)), TIMEOUT)
        texts = [digits(p["text"]) for p in seen(page, "[data-stage]")]
        assert not seen(page, "[data-winner-card]"), texts
    second = api(server, "/api/draws/%s/stop" % code, key)["result"]
    assert second["round"] == 2 and second["commitment"] == commitment
    for page in (screen, late):
        page.wait(lambda: [digits(p["text"]) for p in seen(page, "[data-winner-card] .card-names")] == [shown(second["winners"][0])], TIMEOUT)
        assert not any("rolls on after a server restart" in p["text"] for p in seen(page))


def test_each_tiers_mode_ends_on_a_card_of_the_rest_winners(server, browser):
    """A wheel of a weighted list (3 winners), a field of names (2) and a name reel (1), a tier's
    own mode over the draw's: every page ends on a card with the REST winners."""
    entrants = [{"name": "Guest %02d" % i, "tickets": 1 + i % 4} for i in range(1, 41)]
    prizes = [{"name": "Wheel prize", "count": 3}, {"name": "Names prize", "count": 2, "mode": "names"},
              {"name": "Reels prize", "count": 1, "mode": "reels"}]
    code, key = create_draw(server, {"pool": {"kind": "list", "entrants": entrants}, "perStop": 3,
                                     "prizes": prizes, "mode": "wheel"})
    pages = open_all(browser, server, code, key)
    for mode, count in (("wheel", 3), ("names", 2), ("reels", 1)):
        result = draw_round(server, code, key, pages)
        assert len(result["winners"]) == count
        winners = [shown(w) for w in result["winners"]]
        for name, page in pages.items():
            assert page.js("return document.querySelector('[data-stage]').dataset.mode") == mode, name
            card_shows(page, winners, at_least=64 if name == "screen" else 0)
        got, _ = frames(pages["screen"])
        assert_no_flash(got)
        if mode == "names":
            lit = {t for f in got for t, _, _ in f["mode"] if f["phase"] == "revealed"}
            assert set(winners) <= lit, "the field lit %s, the server drew %s" % (lit, winners)
    for name, page in pages.items():
        assert page.errors() == [], name


def test_the_field_lights_the_winner_after_earlier_winners_leave_it_and_bad_modes_are_refused(server, browser):
    """Item 12: 12 names, 4 per stop, then 1 per stop: the earlier winners leave the field, and
    the field lights the REST winner (not a neighbour), whole, inside the field (item 17)."""
    names = ["Entrant %02d" % i for i in range(12)]
    config = {"pool": {"kind": "list", "entrants": names}, "perStop": 4, "mode": "names"}
    code, key = create_draw(server, config)
    for bad in ({"mode": "carousel"}, {"prizes": [{"name": "A", "count": 1, "mode": "spin"}]}):
        try:
            api(server, "/api/draws/%s/config" % code, key, {"pool": {"kind": "list", "entrants": names}, **bad}, method="PUT")
            raise AssertionError("accepted %s" % bad)
        except urllib.error.HTTPError as error:
            assert error.code == 400
            assert json.load(error)["error"]["code"] == "bad_mode"
    screen = open_page(browser(1920, 1080), server.url("/screen/%s" % code))
    pages = {"screen": screen}
    first = draw_round(server, code, key, pages)
    assert len(first["winners"]) == 4
    screen.wait_js("window.tombola.state.phase === 'revealed'", TIMEOUT)
    api(server, "/api/draws/%s/config" % code, key, {**config, "perStop": 1}, method="PUT")
    result = draw_round(server, code, key, pages)
    winner = shown(result["winners"][0])
    card_shows(screen, [winner], at_least=120)
    got, result_at = frames(screen)
    lit = [(t, f["t"] - result_at) for f in got if f["phase"] == "revealed" for t, _, _ in f["mode"]]
    assert lit, "the field lit nobody"
    assert {t for t, _ in lit} == {winner}, "the field lit %s, the server drew %s" % (lit, winner)
    assert screen.js(LIT_INSIDE) is not False, "the lit name runs out of the field"
    assert screen.errors() == []


LIT_INSIDE = """
  const c = document.querySelector('.names-chip'), l = document.querySelector('[data-mode-layer]');
  if (!c) return null;
  const a = c.getBoundingClientRect(), b = l.getBoundingClientRect();
  return a.top >= b.top - 1 && a.bottom <= b.bottom + 1 && a.left >= b.left - 1 && a.right <= b.right + 1;"""


def test_a_few_long_names_light_whole_inside_the_field(server, browser):
    """A field of a few names lays them out large; the lit one, grown, once wrapped after it was
    placed and ran off the bottom of a 1080p stage (so a check-in test of six names failed only
    when a long name in the lower row won). Two long names: whichever wins is lit whole, inside
    the field, on one line."""
    names = ["Nguyễn Thị Minh Khai", "Phạm Hồng Nhung Lê"]
    code, key = create_draw(server, {"pool": {"kind": "list", "entrants": names}, "mode": "names"})
    screen = open_page(browser(1920, 1080), server.url("/screen/%s" % code))
    result = draw_round(server, code, key, {"screen": screen})
    winner = shown(result["winners"][0])
    card_shows(screen, [winner], at_least=120)
    got, _ = frames(screen)
    lit = {t for f in got if f["phase"] == "revealed" for t, _, _ in f["mode"]}
    assert lit == {winner}, "the field lit %s, the winner is %s" % (lit, winner)
    assert screen.js(LIT_INSIDE) is True, "the lit name runs out of the field"
    assert screen.errors() == []


def test_a_checkin_pool_with_public_names_lights_and_crowns_the_winners_name(server, browser):
    """Item 16: a check-in pool whose host shows names, in names mode: the field lights the
    winner by name (not its 8-character id) and the card names them."""
    code, key = create_draw(server, {"pool": {"kind": "checkin"}, "mode": "names"})
    api(server, "/api/draws/%s/entries/open" % code, key, {"publicNames": True})
    people = ["黄丽", "张伟", "Zoë Martin", "Nguyễn Văn Ánh", "Bob Stone", "王芳"]
    for name in people:
        req = urllib.request.Request(server.url("/api/draws/%s/join" % code), method="POST",
                                     data=json.dumps({"name": name, "fields": {}}).encode(), headers={"Content-Type": "application/json"})
        urllib.request.urlopen(req, timeout=30).read()
    api(server, "/api/draws/%s/entries/close" % code, key)
    screen = open_page(browser(1920, 1080), server.url("/screen/%s" % code))
    result = draw_round(server, code, key, {"screen": screen})
    ids = {e["id"]: e["name"] for e in api(server, "/api/draws/%s/entrants?limit=200" % code, key, method="GET")["items"]}
    winner = ids[result["winners"][0]]
    card_shows(screen, [winner], at_least=120)
    got, _ = frames(screen)
    lit = {t for f in got if f["phase"] == "revealed" for t, _, _ in f["mode"]}
    assert lit == {winner}, "the field lit %s, the winner is %s" % (lit, winner)
    assert screen.errors() == []
