"""The pages around the stage at an event (issue 39), asserting what a person sees (visible.py):
the host page's uploaded list is the pool the moment the host uses it (item 3); a winner's phone
brings "Tap to claim" into view and keeps it there, without a blocked vibration (items 6, 17);
the projector shows ten winners on one page and a void's replacement where the voided winner was
(item 7); its side panel holds its lines while claims run (item 9); the screen with controls says
why Start was refused (item 10); all prizes drawn, archived, the title on the phone, the
calculator's far digits (item 11)."""

import os
import tempfile
import time

from selenium.webdriver.common.by import By
from selenium.webdriver.common.action_chains import ActionChains

from test_draw import create_draw, open_page
from test_stage_modes import api
from visible import english_words, seen, shows

TIMEOUT = 20
GUESTS = ["Ann Lee", "Bo Chen", "Cai Wen", "Dara Okafor", "Emil Novak", "Fatima Zahra", "Gao Yan", "Hugo Silva",
          "Ines Duarte", "Jun Park", "Kofi Mensah", "Lena Weber"]


def visible_texts(page, scope=None, at_least=0):
    return [p["text"] for p in seen(page, scope) if p["size"] >= at_least]


def test_an_uploaded_list_is_the_pool_the_moment_the_host_uses_it(server, browser):
    """Item 3: Upload → "Use these entrants" → Start rolls and draws names of the file, with no
    "Save settings" in between."""
    code, key = create_draw(server, {"pool": {"kind": "range", "from": 1, "to": 500}})
    host = open_page(browser(1280, 900), server.url("/draw/%s#key=%s" % (code, key)))
    host.wait_js("window.tombola.state.role === 'host' && window.tombola.state.fullSettings() !== null", TIMEOUT)
    host.js("document.querySelector('[data-settings-panel]').open = true")
    radio = host.find_element(By.CSS_SELECTOR, "[data-pool-kind][value=list]")
    host.js("arguments[0].scrollIntoView({ block: 'center' })", radio)
    radio.click()
    with tempfile.NamedTemporaryFile("w", suffix=".csv", prefix="guests", delete=False, encoding="utf-8") as f:
        f.write("name\n" + "\n".join(GUESTS) + "\n")
        path = f.name
    try:
        host.find_element(By.CSS_SELECTOR, "[data-csv]").send_keys(path)
        host.wait_js("!document.querySelector('[data-import-preview]').hidden", TIMEOUT)
        use = host.find_element(By.CSS_SELECTOR, "[data-import-use]")
        host.js("arguments[0].scrollIntoView({ block: 'center' })", use)
        use.click()
    finally:
        os.unlink(path)
    # The host reads in the bar that the list was loaded; Start is pressed at once.
    host.wait(lambda: any(os.path.basename(path) in t for t in visible_texts(host, "[data-bar-status]")), TIMEOUT,
              "the bar does not say the list was loaded")
    host.js("window.scrollTo(0, 0)")  # the stage, at the top of the page
    idle = set(visible_texts(host, "[data-value]"))  # "Press Start to draw"
    host.find_element(By.CSS_SELECTOR, "[data-startstop]").click()
    host.wait_js("window.tombola.state.phase === 'rolling' && window.tombola.state.tick", TIMEOUT)
    rolled = set()
    deadline = time.time() + 10
    while len(rolled) < 4 and time.time() < deadline:
        rolled.update(t for t in visible_texts(host, "[data-value]") if t != "…" and t not in idle)
    assert rolled and rolled <= set(GUESTS), "rolling values are not names of the file: %s" % sorted(rolled)
    host.find_element(By.CSS_SELECTOR, "[data-startstop]").click()
    host.wait_js("window.tombola.state.phase === 'revealed' && window.tombola.state.lastReveal", TIMEOUT)
    record = api(server, "/api/draws/%s/rounds" % code, key, method="GET")
    winner = record["rounds"][0]["winners"][0]
    winner = winner.get("value", winner) if isinstance(winner, dict) else winner
    assert winner in GUESTS, record
    host.wait(lambda: shows(host, winner, "[data-stage]", at_least=40), TIMEOUT, "the winner is not on the host's stage")
    assert host.errors() == []


SIDE_SPILLS = """
  const side = document.querySelector('.side').getBoundingClientRect();
  const out = [];
  for (const e of document.querySelectorAll('.side *')) {
    const cs = getComputedStyle(e);
    if (e.closest('[hidden]') || cs.display === 'none' || cs.visibility === 'hidden') continue;
    const r = e.getBoundingClientRect();
    if (r.width < 1 || r.height < 1) continue;
    if (r.left < side.left - 1 || r.right > side.right + 1 || r.top < side.top - 1 || r.bottom > side.bottom + 1
        || r.bottom > innerHeight + 1 || r.right > innerWidth + 1)
      out.push((e.className || e.tagName) + ' ' + (e.textContent || '').trim().slice(0, 30));
  }
  return out;
"""


def join_rest(server, code, name):
    """A guest who entered from another phone (a fresh device: no cookie)."""
    import json
    import urllib.request
    req = urllib.request.Request(server.url("/api/draws/%s/join" % code), data=json.dumps({"name": name}).encode(),
                                 method="POST", headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=10) as r:
        return json.load(r)["entry"]["id"]


def resize(page, width, height):
    page.set_window_size(width, height)
    page.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": width, "height": height, "deviceScaleFactor": 1,
                                                                 "mobile": False})
    page.wait_js("innerWidth === %d && innerHeight === %d" % (width, height))


def test_a_winner_sees_tap_to_claim_wherever_they_scrolled_and_the_screen_holds_its_panel(server, browser):
    """Items 6 and 17 on the phone, 9 and 10 on the projector, the event's title on the phone (11);
    in Chinese, where no English word may show."""
    code, key = create_draw(server, {"pool": {"kind": "checkin"}, "perStop": 3, "claim": {"seconds": 30, "alternates": 1}})
    title = "Star Tech 2026 Gala"
    api(server, "/api/draws/%s/branding" % code, key, {"title": title}, method="PUT")
    api(server, "/api/draws/%s/entries/open" % code, key, {"publicNames": True})
    screen = open_page(browser(1920, 1080, "zh-CN"), server.url("/screen/%s#key=%s" % (code, key)))
    screen.wait_js("window.tombola.state.role === 'host'", TIMEOUT)
    # Item 10: the clicker's Start while entries are open says why nothing happens, on the projector.
    refused = screen.js("return import('/js/lib/i18n.js').then((m) => m.errorText('entries_open'))")
    ActionChains(screen.driver).send_keys(" ").perform()
    screen.wait(lambda: shows(screen, refused, at_least=20), TIMEOUT, "the screen does not say why Start was refused")

    phone = open_page(browser(390, 844, "zh-CN"), server.url("/watch/%s" % code))
    # Item 11: the phone's header names the event (its title), not only the code.
    phone.wait(lambda: shows(phone, title, ".topbar"), TIMEOUT, "the phone's header does not show the event's title")
    phone.wait_js("!document.querySelector('[data-join-form]').hidden", TIMEOUT)
    phone.find_element(By.CSS_SELECTOR, "[data-join-name]").send_keys("Ann Lee")
    phone.find_element(By.CSS_SELECTOR, "[data-join-submit]").click()
    phone.wait_js("window.tombola.state.me && window.tombola.state.me.id", TIMEOUT)
    for name in ("Bo Chen", "Cai Wen"):
        join_rest(server, code, name)
    api(server, "/api/draws/%s/entries/close" % code, key)
    # The guest comes back to the page later (no tap on it since) and scrolls down to watch.
    phone.refresh()
    open_page(phone, phone.current_url)
    phone.wait_js("window.tombola.state.me && window.tombola.state.me.id", TIMEOUT)
    phone.js("window.scrollTo(0, document.documentElement.scrollHeight)")
    phone.collect()
    api(server, "/api/draws/%s/start" % code, key)
    api(server, "/api/draws/%s/stop" % code, key)
    phone.wait_js("document.querySelector('[data-claim-button]')", TIMEOUT)
    tap = lambda: phone.js("return document.querySelector('[data-claim-button]')?.textContent ?? ''")
    won = phone.js("return document.querySelector('[data-you-won] .you-won-title').textContent")
    phone.wait(lambda: shows(phone, tap(), "[data-claims]", at_least=20) and shows(phone, won, at_least=20), TIMEOUT,
               "'Tap to claim' and 'You won!' are not both in view")
    # Scrolled down again while the window is open: the button stays in view.
    phone.js("window.scrollTo(0, document.documentElement.scrollHeight)")
    phone.wait(lambda: shows(phone, tap(), "[data-claims]", at_least=20), TIMEOUT, "'Tap to claim' left the view")
    ours = title.split() + "Ann Lee Bo Chen Cai Wen".split()
    assert english_words(phone, ours) == [] and english_words(screen, ours) == []
    # Item 17: no vibration before the guest touched the page (Chromium blocks it and says so).
    assert [e["message"] for e in phone.collect() if "vibrate" in e["message"]] == []

    # Item 9: while claims run, every line of the projector's side panel lies inside the panel.
    screen.wait_js("document.querySelector('[data-claims]') && !document.querySelector('[data-claims]').hidden", TIMEOUT)
    screen.wait_js("document.querySelector('[data-verified]').dataset.verify === 'ok'", TIMEOUT)
    for width, height in ((1920, 1080), (1280, 720)):
        resize(screen, width, height)
        if os.environ.get("TOMBOLA_SHOTS_DIR"):
            screen.save_screenshot(os.path.join(os.environ["TOMBOLA_SHOTS_DIR"], "claims-side-%dx%d.png" % (width, height)))
            phone.save_screenshot(os.path.join(os.environ["TOMBOLA_SHOTS_DIR"], "claims-phone.png"))
        assert screen.js(SIDE_SPILLS) == [], "side panel at %dx%d" % (width, height)
        # The full-screen button (shown while the other controls hide) sits at the panel's foot.
        gap = screen.js("const s = document.querySelector('.side').getBoundingClientRect();"
                        "const b = document.querySelector('[data-fullscreen]').getBoundingClientRect();"
                        "return b.height > 0 ? s.bottom - b.bottom : 0")
        assert gap < 0.04 * height, "the full-screen button floats %d px above the panel's foot" % gap

    # Item 11: "Local proof" beside "verified" explains itself (a tooltip in the page's language).
    phone.wait_js("document.querySelector('[data-proof]')", TIMEOUT)
    phone.js("document.querySelector('[data-proof]').scrollIntoView({ block: 'end' })")
    label, tip = phone.js("const n = document.querySelector('[data-proof]'); return [n.textContent, n.title]")
    explained = phone.js("return import('/js/lib/i18n.js').then((m) => m.t('draw.proof.local.desc'))")
    assert shows(phone, label, "[data-stage]") and tip == explained

    # The guest taps "You won!" where it shows: it claims as the button does.
    phone.js("window.scrollTo(0, document.documentElement.scrollHeight)")
    box = phone.js("const r = document.querySelector('[data-you-won] .you-won-title').getBoundingClientRect();"
                   "return [r.left + r.width / 2, r.top + r.height / 2]")
    phone.js("document.elementFromPoint(arguments[0], arguments[1]).click()", *box)
    phone.wait_js("document.querySelector('[data-claim-done]') !== null", TIMEOUT)
    assert phone.errors() == []
    assert screen.errors() == []


ROSTER = GUESTS + ["Maximilian Oberhauser", "Nguyễn Thị Minh Khai", "欧阳娜娜", "黄丽", "Olu Adeyemi", "Priya Raman",
                   "Quentin Marchand", "Rosa Delgado", "Sven Lindqvist", "Tomás Ó Briain", "Ulla Berg", "Vikram Nair",
                   "王建国", "Xu Ming", "Yara Haddad", "Zoltan Kiss", "司马相如", "Amelia Featherstonehaugh"]

# The grid's cells in reading order (a grid places its cells row by row, in the list's order).
READING_ORDER = "return Array.from(document.querySelectorAll('[data-winners] .winner-value')).map((v) => v.textContent);"


def on_screen_at_once(screen, names, at_least):
    """Every name is visible (visible.py) at >= `at_least` px on the projector at the same moment."""
    pieces = seen(screen, "[data-round-winners]")
    return all(any(p["text"] == n and p["size"] >= at_least for p in pieces) for n in names)


def test_ten_winners_fill_one_projector_page_and_a_void_is_replaced_in_place(server, browser):
    """Item 7: ten winners at 1920x1080 are all on one page, legible; a void's replacement takes the
    voided winner's cell. Item 11: once every prize is drawn Start is off and says so once; an
    archived draw says so when the host page opens."""
    code, key = create_draw(server, {"pool": {"kind": "list", "entrants": ROSTER}, "perStop": 10,
                                     "prizes": [{"name": "Mug", "count": 10}]})
    screen = open_page(browser(1920, 1080), server.url("/screen/%s" % code))
    host = open_page(browser(1280, 800), server.url("/draw/%s#key=%s" % (code, key)))
    host.wait_js("window.tombola.state.role === 'host'", TIMEOUT)
    api(server, "/api/draws/%s/start" % code, key)
    result = api(server, "/api/draws/%s/stop" % code, key)["result"]
    winners = [str(w) for w in result["winners"]]
    assert len(winners) == 10
    screen.wait(lambda: on_screen_at_once(screen, winners, 40), TIMEOUT,
                "not all ten winners are visible at once at >= 40 px")
    assert screen.js("return document.querySelector('[data-pager]').textContent") == ""

    # A void: the replacement rolls in where the voided winner was; the other nine stay put.
    before = screen.js(READING_ORDER)
    gone = winners[2]
    replaced = api(server, "/api/draws/%s/void" % code, key, {"round": result["round"], "winner": gone, "reason": "left early"})
    new = str(replaced["result"]["winners"][0])
    expected = [new if w == gone else w for w in before]
    screen.wait(lambda: on_screen_at_once(screen, expected, 40), TIMEOUT, "the replacement is not shown with the nine")
    screen.wait(lambda: screen.js(READING_ORDER) == expected,
                TIMEOUT, "the replacement is not in the voided winner's place")
    if os.environ.get("TOMBOLA_SHOTS_DIR"):
        screen.save_screenshot(os.path.join(os.environ["TOMBOLA_SHOTS_DIR"], "ten-winners-1920x1080.png"))
    assert screen.errors() == []

    # Item 11: every prize is drawn. Start is off and the bar says so, once, also after Space.
    done = host.js("return import('/js/lib/i18n.js').then((m) => m.t('host.prizesdone'))")
    bar = lambda: " ".join(visible_texts(host, "[data-bar-status]"))
    host.wait(lambda: bar() == done, TIMEOUT, "the bar does not say that all prizes are drawn")
    assert host.js("return document.querySelector('[data-startstop]').disabled")
    host.find_element(By.TAG_NAME, "body").click()
    ActionChains(host.driver).send_keys(" ").perform()
    assert host.js("return window.tombola.state.awaiting") is None  # nothing was sent
    assert bar() == done

    # Archived: the host page says so as it opens, and Start is off.
    status = api(server, "/api/draws/%s/archive" % code, server.admin_key)
    assert status["archived"] is True
    host.refresh()
    open_page(host, host.current_url)
    archived = host.js("return import('/js/lib/i18n.js').then((m) => m.errorText('draw_archived'))")
    host.wait(lambda: bar() == archived, TIMEOUT, "the host page does not say the draw is archived")
    assert host.js("return document.querySelector('[data-startstop]').disabled")
    assert host.errors(allow=("/import - Failed to load resource",)) == []
