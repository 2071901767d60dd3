"""The stage's display modes (issue #26) in Chromium against the real server: on the screen
(1920x1080), the host page and a phone (390x844), each mode shows what the server drew, the
same as the REST result, round after round: slot reels on a range, a wheel of a weighted list
landing several winners one after another, a prize tier's own mode (names, reels) over the
draw's. What a page shows is read from the mode's own drawing (the wheel's slice under the
pointer, the reels' digits, the names lit), not from the result it was given. The phone asks
for reduced motion (the calm variant)."""

import json
import urllib.error
import urllib.request

from test_draw import create_draw, open_page

TIMEOUT = 20


def api(server, path, key, body=None, method="POST"):
    data = json.dumps(body if body is not None else {}).encode() if method != "GET" else None
    req = urllib.request.Request(server.url(path), data=data, method=method,
                                 headers={"Authorization": "Bearer " + key, "Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=60) as r:
        return json.load(r)


def open_all(browser, server, code, key):
    screen = open_page(browser(1920, 1080), server.url("/screen/%s" % code))
    host = open_page(browser(390, 844), server.url("/draw/%s#key=%s" % (code, key)))
    phone = browser(390, 844)
    # The phone asks for reduced motion: its calm variant lands on the same winners.
    phone.driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-reduced-motion", "value": "reduce"}]})
    open_page(phone, server.url("/watch/%s" % code))
    return {"screen": screen, "host": host, "phone": phone}


def draw_round(server, code, key, pages):
    for page in pages.values():
        page.js("window.__landed = null; window.__sawMode = null;")
    api(server, "/api/draws/%s/start" % code, key)
    for page in pages.values():
        page.wait_js("window.tombola.state.phase === 'rolling'", TIMEOUT)
        # The mode holds the stage while rolling.
        page.wait_js("document.querySelector('[data-stage]').classList.contains('mode-on')", TIMEOUT)
    return api(server, "/api/draws/%s/stop" % code, key)["result"]


def assert_every_page_lands(pages, result, mode):
    want = [str(w) for w in result["winners"]]
    for name, page in pages.items():
        page.wait_js("window.tombola.state.lastReveal && window.tombola.state.lastReveal.round === %d" % result["round"], TIMEOUT)
        assert page.js("return document.querySelector('[data-stage]').dataset.mode") == mode, name
        landed = page.wait_js("(() => { const v = document.querySelector('[data-mode-layer]').dataset.landed;"
                              " return v && JSON.parse(v).length === %d ? v : null; })()" % len(want), TIMEOUT)
        assert json.loads(landed) == want, "%s (%s) shows %s, the server drew %s" % (name, mode, landed, want)
        assert page.errors() == [], name


def test_reels_land_the_rest_result_digit_by_digit_on_every_page(server, browser):
    code, key = create_draw(server, {"pool": {"kind": "range", "from": 1, "to": 5000}, "mode": "reels"})
    pages = open_all(browser, server, code, key)
    # The slow-down lands the reels from the left: record how many had landed at each tick (the
    # reels follow a tick at once, in the listener registered before this one).
    pages["screen"].js("""
      window.__reels = [];
      window.tombola.state.addEventListener('change', ({ detail }) => {
        if (detail === 'tick') window.__reels.push(document.querySelectorAll('.reel.is-landed').length);
      });""")
    for _ in range(2):
        result = draw_round(server, code, key, pages)
        assert_every_page_lands(pages, result, "reels")
        counts = pages["screen"].js("return window.__reels")
        # Rolling: none landed; the slow-down lands them from the left, never taking one back.
        assert counts[0] == 0 and counts[-1] == 4, counts
        assert counts == sorted(counts), counts
        assert len(set(counts)) >= 3, "the reels landed all at once: %s" % counts
        pages["screen"].js("window.__reels = []")


def test_a_weighted_wheel_and_the_tiers_own_modes_show_the_servers_winners(server, browser):
    entrants = [{"name": "Guest %02d" % i, "tickets": 1 + i % 4} for i in range(1, 41)]
    prizes = [{"name": "Wheel prize", "count": 3}, {"name": "Names prize", "count": 2, "mode": "names"},
              {"name": "Reels prize", "count": 1, "mode": "reels"}]
    code, key = create_draw(server, {"pool": {"kind": "list", "entrants": entrants}, "perStop": 3,
                                     "prizes": prizes, "mode": "wheel"})
    pages = open_all(browser, server, code, key)
    for mode, count in (("wheel", 3), ("names", 2), ("reels", 1)):
        result = draw_round(server, code, key, pages)
        assert len(result["winners"]) == count
        assert_every_page_lands(pages, result, mode)


def test_a_field_of_names_lights_several_winners_and_bad_modes_are_refused(server, browser):
    names = ["Entrant %03d" % i for i in range(300)]
    code, key = create_draw(server, {"pool": {"kind": "list", "entrants": names}, "perStop": 4, "mode": "names"})
    for bad in ({"mode": "carousel"}, {"prizes": [{"name": "A", "count": 1, "mode": "spin"}]}):
        try:
            api(server, "/api/draws/%s/config" % code, key, {"pool": {"kind": "list", "entrants": names}, **bad}, method="PUT")
            raise AssertionError("accepted %s" % bad)
        except urllib.error.HTTPError as error:
            assert error.code == 400
            assert json.load(error)["error"]["code"] == "bad_mode"
    assert api(server, "/api/draws/%s" % code, key, method="GET")["config"]["mode"] == "names"
    pages = open_all(browser, server, code, key)
    for _ in range(2):
        result = draw_round(server, code, key, pages)
        assert_every_page_lands(pages, result, "names")
