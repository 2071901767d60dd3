"""Excluding the winners of another draw from the host page in Chromium against the real
server: the host pastes the lunch draw's host link, saves, and the main round never draws a
lunch winner; the page's recheck and the FAIRNESS.md reference accept the round."""

import json
import urllib.request

from selenium.webdriver.common.by import By

import fairness_ref as fr
from test_draw import create_draw, open_page, run_round
from test_import import click

STAFF = ["Ann Lee", "Bob Chen", "Zoë Roy", "李雷", "韩梅梅", "Dara Okafor", "Émile Dubois", "Farah Haddad"]


def post(server, path, key, body=b"{}"):
    req = urllib.request.Request(server.url(path), data=body, method="POST",
                                 headers={"Authorization": "Bearer " + key, "Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=20) as r:
        return json.load(r)


def test_the_host_excludes_the_lunch_winners_from_the_main_draw(server, browser):
    lunch, lunch_key = create_draw(server, {"pool": {"kind": "list", "entrants": STAFF}, "perStop": 3})
    post(server, "/api/draws/%s/start" % lunch, lunch_key)
    lunch_winners = post(server, "/api/draws/%s/stop" % lunch, lunch_key)["result"]["winners"]
    assert len(lunch_winners) == 3

    main, key = create_draw(server, {"pool": {"kind": "list", "entrants": STAFF}, "perStop": 5})
    host = open_page(browser(1280, 900), server.url("/draw/%s#key=%s" % (main, key)))
    host.wait_js("window.tombola.state.role === 'host'")
    host.js("document.querySelector('[data-settings-panel]').open = true")
    host.wait_js("!document.querySelector('[data-past-field]').hidden")
    link = server.url("/draw/%s#key=%s" % (lunch, lunch_key))
    host.js("const t = document.querySelector('[data-past-draws]'); t.value = arguments[0];"
            "t.dispatchEvent(new Event('input', { bubbles: true }));", link)
    click(host, "[data-save]")
    host.wait_js("JSON.stringify(window.tombola.state.config.excludeWinnersOf) === %r" % json.dumps([lunch]), 15)
    assert host.js("return window.tombola.state.remaining") == 5
    assert host.js("return document.querySelector('[data-past-draws]').value") == lunch, "the key is not shown back"

    host.js("document.querySelector('[data-settings-panel]').open = false")
    result = run_round(host)
    assert len(result["winners"]) == 5 and not set(result["winners"]) & set(lunch_winners)
    assert result["pool"]["pastWinners"][0]["code"] == lunch
    host.wait_js("window.tombola.state.verification.size > 0 && Array.from(window.tombola.state.verification.values()).every(v => v.state === 'ok')", 15)
    with urllib.request.urlopen(server.url("/api/draws/%s/export.json" % main), timeout=10) as r:
        export = json.load(r)
    assert fr.verify(export)
    assert lunch_key not in json.dumps(export)

    # A wrong key is refused with the page's words.
    host.js("document.querySelector('[data-settings-panel]').open = true")
    other, _ = create_draw(server, {"pool": {"kind": "list", "entrants": STAFF}})
    host.js("const t = document.querySelector('[data-past-draws]'); t.value = arguments[0];"
            "t.dispatchEvent(new Event('input', { bubbles: true }));", "%s\n%s not-the-key" % (lunch, other))
    click(host, "[data-save]")
    host.wait_js("window.tombola.state.lastError && window.tombola.state.lastError.code === 'past_draw_key'", 15)
    assert host.errors(allow=("Failed to load resource",)) == []
