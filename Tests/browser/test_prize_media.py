"""A prize tier's picture and music (issue #26) in Chromium against the real server: the host's
panel uploads a picture (a photo too large for the server is scaled down by the page first) and
music for a tier; the screen and a phone show the picture while that tier rolls and at the
reveal, and the screen plays the music instead of the drumroll; the panel is axe-clean in
English and Chinese."""

import json
import os
import random
import tempfile
import urllib.request

import pytest
from axe_selenium_python import Axe
from selenium.webdriver.common.by import By

from test_branding import png
from test_draw import create_draw, open_page, press_startstop

OGG = b"OggS" + bytes(2000)


def upload(host, selector, data, suffix):
    with tempfile.NamedTemporaryFile(suffix=suffix, delete=False) as f:
        f.write(data)
        path = f.name
    try:
        host.find_element(By.CSS_SELECTOR, selector).send_keys(path)
        host.wait_js("!document.querySelector('[data-media-panel]').dataset.busy", 30)
    finally:
        os.unlink(path)


def fetch(server, url):
    with urllib.request.urlopen(server.url(url), timeout=10) as r:
        return r.headers["Content-Type"], r.read()


def test_a_tier_picture_and_music_reach_the_screen_and_the_phones(server, browser):
    code, key = create_draw(server, {"pool": {"kind": "range", "from": 1, "to": 500},
                                     "prizes": [{"name": "Bicycle", "count": 1}, {"name": "Television", "count": 1}]})
    host = open_page(browser(390, 844), server.url("/draw/%s#key=%s" % (code, key)))
    host.wait_js("window.tombola.state.role === 'host'")
    host.js("document.querySelector('[data-media-panel]').open = true")
    host.wait_js("document.querySelector('[data-media-tier]').options.length === 2")
    assert host.js("return [...document.querySelector('[data-media-tier]').options].map((o) => o.textContent)") == [
        "1. Bicycle", "2. Television"]

    # A "photo" of noise, too large for the server (over 256 KiB): the page scales it down.
    rng = random.Random(7)
    photo = png(400, 300, lambda x, y: (rng.randrange(256), rng.randrange(256), rng.randrange(256), 255))
    assert len(photo) > 256 * 1024
    upload(host, "[data-media-picture-input]", photo, ".png")
    assert host.find_element(By.CSS_SELECTOR, "[data-media-error]").text == ""
    host.wait_js("!document.querySelector('[data-media-picture-preview]').hidden")
    upload(host, "[data-media-music-input]", OGG, ".ogg")
    host.wait_js("!document.querySelector('[data-media-music-preview]').hidden")

    with urllib.request.urlopen(server.url("/api/draws/%s/branding" % code), timeout=10) as r:
        media = json.load(r)["media"]
    assert sorted(media) == ["music-0", "picture-0"]
    kind, picture = fetch(server, media["picture-0"])
    assert kind in ("image/webp", "image/jpeg") and len(picture) <= 256 * 1024, "scaled down and re-encoded by the page"
    assert fetch(server, media["music-0"]) == ("audio/ogg", OGG)

    # A file that is neither: refused with the server's reason, nothing changed.
    upload(host, "[data-media-music-input]", b"just text, not music", ".mp3")
    assert host.find_element(By.CSS_SELECTOR, "[data-media-error]").text != ""

    screen = open_page(browser(1920, 1080), server.url("/screen/%s" % code))
    phone = open_page(browser(390, 844), server.url("/watch/%s" % code))
    for page in (screen, phone):
        assert page.js("return document.querySelector('[data-prize-picture]').hidden"), "idle: no picture"
    screen.find_element(By.CSS_SELECTOR, "body").click()  # the first gesture turns the screen's sound on
    screen.wait_js("window.tombola.state.sound === true")

    press_startstop(host)
    for page in (screen, phone):
        page.wait_js("!document.querySelector('[data-prize-picture]').hidden")
        src = page.js("return document.querySelector('[data-prize-picture] img').getAttribute('src')")
        assert src == media["picture-0"]
        page.wait_js("document.querySelector('[data-prize-picture] img').naturalWidth > 0")
    screen.wait_js("document.body.dataset.drumroll === 'music'")
    press_startstop(host)
    host.wait_js("window.tombola.state.phase === 'revealed'", 15)
    screen.wait_js("document.body.dataset.drumroll === 'off'")
    for page in (screen, phone):
        page.wait_js("window.tombola.state.phase === 'revealed'", 15)
        assert not page.js("return document.querySelector('[data-prize-picture]').hidden"), "shown at the reveal"

    # The second tier has neither: the next round rolls with the drumroll and no picture.
    press_startstop(host)
    screen.wait_js("window.tombola.state.phase === 'rolling'")
    screen.wait_js("document.body.dataset.drumroll === 'on'")
    assert screen.js("return document.querySelector('[data-prize-picture]').hidden")
    press_startstop(host)
    host.wait_js("window.tombola.state.phase === 'revealed'", 15)

    # Removing the picture: the host's preview goes, and so does the URL.
    host.js("document.querySelector('[data-media-picture-remove]').click()")
    host.wait_js("document.querySelector('[data-media-picture-preview]').hidden")
    with urllib.request.urlopen(server.url("/api/draws/%s/branding" % code), timeout=10) as r:
        assert sorted(json.load(r)["media"]) == ["music-0"]
    # The refused upload above is the one failed request the host page logs.
    assert not host.errors(allow=("415 (Unsupported Media Type)",)) and not screen.errors() and not phone.errors()


@pytest.mark.parametrize("lang", ["en-US", "zh-CN"])
def test_the_media_panel_is_axe_clean(server, browser, lang):
    code, key = create_draw(server, {"pool": {"kind": "range", "from": 1, "to": 50}, "prizes": [{"name": "Prize", "count": 1}]})
    host = open_page(browser(390, 844, lang), server.url("/draw/%s#key=%s" % (code, key)))
    host.wait_js("window.tombola.state.role === 'host'")
    host.js("document.querySelector('[data-media-panel]').open = true")
    host.wait_js("document.querySelector('[data-media-tier]').options.length === 1")
    axe = Axe(host.driver)
    axe.inject()
    results = axe.run(context="[data-media-panel]")
    assert results["passes"]
    assert not results["violations"], axe.report(results["violations"])
