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
from visible import seen, shows

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
