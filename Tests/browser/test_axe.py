"""An axe-core audit (PyPI axe-selenium-python, which ships axe-core) of every page in
both languages: any violation fails, whatever its impact."""

import os

import pytest
from axe_selenium_python import Axe

from test_pages import load, pages

HERE = os.path.dirname(os.path.abspath(__file__))
PUBLIC = os.path.join(HERE, "..", "..", "Public")

# Which page each HTML file of Public/ is audited as, so a page a later change adds cannot
# slip past the audit: the check below fails until it is listed here and in pages().
AUDITED_FILES = {"index.html": "index", "calc.html": "calc", "draw.html": "host", "screen.html": "screen",
                 "watch.html": "watch", "certificate.html": "certificate"}


def test_every_page_of_public_is_audited(server):
    files = sorted(f for f in os.listdir(PUBLIC) if f.endswith(".html"))
    assert files == sorted(AUDITED_FILES), "add new pages to AUDITED_FILES and test_pages.pages()"
    assert set(AUDITED_FILES.values()) <= set(pages(server))


def audit(b, name, found):
    """Runs axe on what `b` shows once its finite animations and transitions have ended (axe
    blends a fading text's colour with its background: a notice caught mid-fade read as 1.1:1
    contrast, one run in five); its violations go into `found[name]`."""
    b.wait_js("document.getAnimations().every((a) => a.playState !== 'running'"
              " || a.effect?.getComputedTiming().endTime === Infinity)", 10)
    axe = Axe(b.driver)
    axe.inject()
    results = axe.run()
    if results["violations"]:
        found[name] = axe.report(results["violations"])
    assert results["passes"], "%s: axe checked nothing" % name


@pytest.mark.parametrize("lang", ["en-US", "zh-CN"])
def test_pages_have_no_axe_violations(server, browser, lang):
    b = browser(390, 844, lang)
    found = {}
    for name, url in pages(server).items():
        load(b, url)
        if name == "host":
            # the settings panel holds most of the host's controls
            b.js("document.querySelector('[data-settings-panel]').open = true")
        audit(b, name, found)
    assert not found, "\n".join("%s (%s):\n%s" % (name, lang, text) for name, text in found.items())


@pytest.mark.parametrize("lang", ["en-US", "zh-CN"])
def test_check_in_views_have_no_axe_violations(server, browser, lang):
    """The views a check-in draw adds (#14): the host's check-in card with entries open, the
    screen's "Scan to enter", the phone's join form, and the phone after joining."""
    from test_checkin import create_draw, host_opens_entries, open_room, phone_joins

    code, key = create_draw(server)
    host = open_room(browser(390, 844, lang), server.url("/draw/%s#key=%s" % (code, key)))
    host.wait_js("window.tombola.state.role === 'host'")
    host_opens_entries(host)
    screen = open_room(browser(1920, 1080, lang), server.url("/screen/%s" % code))
    screen.wait_js("window.tombola.state.checkin && window.tombola.state.checkin.open === true")
    phone = open_room(browser(390, 844, lang), server.url("/watch/%s" % code))
    phone.wait_js("!document.querySelector('[data-join-form]').hidden")

    found = {}
    audit(host, "host, entries open", found)
    audit(screen, "screen, scan to enter", found)
    audit(phone, "phone, join form", found)
    phone_joins(phone, 1)
    audit(phone, "phone, joined", found)
    assert not found, "\n".join("%s (%s):\n%s" % (name, lang, text) for name, text in found.items())
