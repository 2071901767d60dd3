"""Name masking (issue #26, docs/STAGE.md "Name masking") in Chromium against the real server: a
draw set to mask names shows them masked on the screen (1920x1080), a phone (390x844) and the
round's certificate, while REST's result and export keep the real names; a bad mask is refused
and changes nothing."""

import json
import urllib.error

from test_draw import create_draw, open_page
from test_stage_modes import api

TIMEOUT = 20
REAL = ["张三", "欧阳娜娜", "John Doe", "Nguyễn Văn Ánh", "13812345678"]
MASKED = ["张*", "欧***", "J*** D**", "N***** V** Á**", "138****5678"]


def test_a_masked_draw_shows_masked_names_and_exports_the_real_ones(server, browser):
    config = {"pool": {"kind": "list", "entrants": REAL}, "perStop": "all", "mask": "names"}
    code, key = create_draw(server, config)
    try:
        api(server, "/api/draws/%s/config" % code, key, {**config, "mask": "everyone"}, method="PUT")
        raise AssertionError("a bad mask was accepted")
    except urllib.error.HTTPError as error:
        assert error.code == 400
        assert json.load(error)["error"]["code"] == "bad_mask"
    assert api(server, "/api/draws/%s" % code, key, method="GET")["config"]["mask"] == "names"

    screen = open_page(browser(1920, 1080), server.url("/screen/%s" % code))
    phone = open_page(browser(390, 844), server.url("/watch/%s" % code))
    api(server, "/api/draws/%s/start" % code, key)
    result = api(server, "/api/draws/%s/stop" % code, key)["result"]
    assert sorted(result["winners"]) == sorted(REAL)
    exported = api(server, "/api/draws/%s/export.json" % code, key, method="GET")
    rounds = [r for r in exported["records"] if r["kind"] == "round"]
    assert sorted(rounds[-1]["winners"]) == sorted(REAL)

    for name, page in (("screen", screen), ("phone", phone)):
        page.wait_js("window.tombola.state.lastReveal && window.tombola.state.lastReveal.round === %d" % result["round"], TIMEOUT)
        text = page.wait_js("(() => { const t = document.body.innerText;"
                            " return %s.every((m) => t.includes(m)) ? t : null; })()" % json.dumps(MASKED), TIMEOUT)
        for real in REAL:
            assert real not in text, "%s shows %s" % (name, real)
        assert page.errors() == [], name

    cert = browser(390, 844)
    cert.get(server.url("/draw/%s/round/%d" % (code, result["round"])))
    text = cert.wait_js("(() => { const t = document.body.innerText;"
                        " return %s.every((m) => t.includes(m)) ? t : null; })()" % json.dumps(MASKED), TIMEOUT)
    for real in REAL:
        assert real not in text, "the certificate shows %s" % real
    # The page still rechecks the round: it has the real values from the export.
    assert cert.wait_js("document.querySelector('[data-verify]').dataset.state === 'ok'", TIMEOUT)
    assert cert.errors() == []
