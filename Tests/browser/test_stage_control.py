"""Stage control (issue #26) in Chromium against the real server: the host page hands out the
"Screen with controls" link; on the screen it opens, Space and a clicker's PageDown/PageUp start
and stop, the arrows page a round's winners, F goes full screen, M turns sound on and off, `?`
shows the shortcuts, the Screen Wake Lock is held, and a check-in's presence code is shown
(a screen without the key says where the code is instead)."""

import json
import time
import urllib.request

import pytest

from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from test_draw import create_draw, open_page


def api(server, path, key, body=b"{}", method="POST"):
    req = urllib.request.Request(server.url(path), data=body, method=method,
                                 headers={"Authorization": "Bearer " + key, "Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=20) as r:
        return json.load(r)


def press(b, key):
    ActionChains(b.driver).send_keys(key).perform()


def screen_link_from_host_page(browser, server, code, key):
    host = open_page(browser(390, 844), server.url("/draw/%s#key=%s" % (code, key)))
    host.wait_js("window.tombola.state.role === 'host'")
    link = host.wait_js("document.querySelector('[data-link=\"screen-controls\"] a')")
    href = link.get_attribute("href")
    # The row shows the link with its key masked; the Open button carries it.
    assert key not in host.find_element(By.CSS_SELECTOR, "[data-link='screen-controls'] .link-url").text
    return href


def test_the_screen_with_controls_runs_the_draw_from_the_keyboard(server, browser):
    code, key = create_draw(server, {"pool": {"kind": "range", "from": 1, "to": 500}, "perStop": 20})
    href = screen_link_from_host_page(browser, server, code, key)
    assert href.endswith("/screen/%s#key=%s" % (code, key))

    screen = browser(1920, 1080)
    screen.driver.execute_cdp_cmd("Browser.grantPermissions", {"permissions": ["wakeLockScreen"]})
    open_page(screen, href)
    screen.wait_js("window.tombola.state.role === 'host'")
    screen.wait_js("document.body.dataset.wakeLock === 'on'")

    # Space starts, the clicker's PageDown stops: 20 winners, the REST result's.
    press(screen, Keys.SPACE)
    screen.wait_js("window.tombola.state.phase === 'rolling'")
    screen.wait_js("window.tombola.state.tick !== null")
    press(screen, Keys.PAGE_DOWN)
    screen.wait_js("window.tombola.state.phase === 'revealed'", 15)
    result = api(server, "/api/draws/%s" % code, key, body=None, method="GET")
    shown = screen.wait_js("window.tombola.state.lastReveal && window.tombola.state.lastReveal.winners")
    assert len(shown) == 20
    assert [r["winners"] for r in result["rounds"] if r["round"] == 1] == [shown]

    # Arrows page the winners (12 a page: two pages), both ways, wrapping.
    pages = screen.wait_js("document.querySelector('[data-pager]').textContent")
    assert "1" in pages and "2" in pages
    first = screen.wait_js("document.querySelector('[data-winners] .winner-value').textContent")
    press(screen, Keys.ARROW_RIGHT)
    screen.wait_js("window.tombola.state.page === 1")
    screen.wait_js("document.querySelector('[data-winners] .winner-value').textContent !== %s" % json.dumps(first))
    press(screen, Keys.ARROW_LEFT)
    screen.wait_js("window.tombola.state.page === 0")
    press(screen, Keys.ARROW_LEFT)
    screen.wait_js("window.tombola.state.page === 1")

    # PageUp (a clicker's "back") starts the next round too; Enter stops it.
    press(screen, Keys.PAGE_UP)
    screen.wait_js("window.tombola.state.phase === 'rolling'")
    press(screen, Keys.ENTER)
    screen.wait_js("window.tombola.state.phase === 'revealed' && window.tombola.state.lastReveal.round === 2", 15)

    # M: sound off and on again (it came on with the first key press, the default on a screen).
    screen.wait_js("document.querySelector('[data-sound]').getAttribute('aria-pressed') === 'true'")
    press(screen, "m")
    screen.wait_js("document.querySelector('[data-sound]').getAttribute('aria-pressed') === 'false'")
    press(screen, "M")
    screen.wait_js("document.querySelector('[data-sound]').getAttribute('aria-pressed') === 'true'")

    # F: full screen and back.
    press(screen, "f")
    screen.wait_js("document.fullscreenElement !== null")
    press(screen, "f")
    screen.wait_js("document.fullscreenElement === null")

    # ?: the shortcut overlay; Space there does not start a round; Escape closes it.
    press(screen, "?")
    screen.wait_js("document.querySelector('[data-shortcuts]').open")
    assert screen.find_element(By.CSS_SELECTOR, "[data-shortcuts-nocontrol]").get_attribute("hidden") is not None
    assert "Page Down" in screen.find_element(By.CSS_SELECTOR, "[data-shortcuts]").text
    press(screen, Keys.ESCAPE)
    screen.wait_js("!document.querySelector('[data-shortcuts]').open")
    assert screen.errors() == []


def test_a_screen_without_the_key_ignores_start_and_says_where_the_controls_are(server, browser):
    code, key = create_draw(server, {"pool": {"kind": "range", "from": 1, "to": 50}})
    screen = open_page(browser(1920, 1080, "zh-CN"), server.url("/screen/%s" % code))
    press(screen, Keys.SPACE)
    time.sleep(0.5)  # the subject: nothing starts (a Start would reach every page within this)
    assert api(server, "/api/draws/%s" % code, key, body=None, method="GET")["phase"] != "rolling"
    press(screen, "?")
    screen.wait_js("document.querySelector('[data-shortcuts]').open")
    note = screen.find_element(By.CSS_SELECTOR, "[data-shortcuts-nocontrol]")
    assert note.is_displayed() and "可控制的屏幕" in note.text
    assert screen.errors() == []


def test_the_presence_code_shows_on_the_screen_with_controls_and_a_plain_screen_says_where(server, browser):
    code, key = create_draw(server, {"pool": {"kind": "checkin"}})
    api(server, "/api/draws/%s/entries/open" % code, key, body=json.dumps({"presence": True}).encode())
    href = screen_link_from_host_page(browser, server, code, key)
    controls = open_page(browser(1920, 1080), href)
    plain = open_page(browser(1920, 1080), server.url("/screen/%s" % code))
    digits = controls.wait_js("!document.querySelector('[data-presence]').hidden && document.querySelector('[data-presence-code]').textContent", 15)
    assert digits.isdigit() and len(digits) == 4
    assert controls.find_element(By.CSS_SELECTOR, "[data-presence-hidden]").get_attribute("hidden") is not None
    plain.wait_js("!document.querySelector('[data-presence-hidden]').hidden")
    assert plain.find_element(By.CSS_SELECTOR, "[data-presence]").get_attribute("hidden") is not None
    assert "Screen with controls" in plain.find_element(By.CSS_SELECTOR, "[data-presence-hidden]").text
    assert controls.errors() == [] and plain.errors() == []


@pytest.mark.parametrize("lang", ["en-US", "zh-CN"])
def test_the_shortcut_overlay_has_no_axe_violations(server, browser, lang):
    from test_axe import audit

    code, key = create_draw(server, {"pool": {"kind": "range", "from": 1, "to": 50}})
    screen = open_page(browser(1920, 1080, lang), server.url("/screen/%s#key=%s" % (code, key)))
    press(screen, "?")
    screen.wait_js("document.querySelector('[data-shortcuts]').open")
    found = {}
    audit(screen, "screen, shortcuts", found)
    assert not found, "\n".join("%s (%s):\n%s" % (name, lang, text) for name, text in found.items())
