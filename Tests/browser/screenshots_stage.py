"""Writes the stage's screenshots (issue #26) into docs/screenshots/, with the harness of
screenshots.py: the shortcut overlay on the screen with controls (1920x1080) and the host
page's links with "Screen with controls" (390x844), and each display mode on the projector
(rolling, revealed) and a phone (revealed), a round's certificate (A4, phone), and a prize
tier's picture (projector and phone rolling, the host's panel), in English and Simplified Chinese.

    TOMBOLA_SHOTS_LOOPBACK=1 TOMBOLA_BIN=.build/debug/tombola python3 Tests/browser/screenshots_stage.py [control] [modes] [certificate] [media] [card]
"""

import contextlib
import json
import shutil
import sys
import time
import urllib.request

from selenium.webdriver.common.action_chains import ActionChains

from screenshots import LANGS, NAMES, Browser, ShotServer, create_names_draw, round_trip, shot, wait_room


def control(server, opened):
    code, key = create_names_draw(server)
    for lang, suffix in LANGS:
        host = Browser(390, 844, lang); opened.append(host)
        host.get(server.url("/draw/%s#key=%s" % (code, key))); wait_room(host)
        host.wait_js("document.querySelector('[data-link=\"screen-controls\"]')")
        host.js("document.querySelector('[data-link=\"screen-controls\"]').scrollIntoView({block: 'center'})")
        shot(host, "stage-host-links-390x844-" + suffix, settle=0.3)
        screen = Browser(1920, 1080, lang); opened.append(screen)
        screen.get(server.url("/screen/%s#key=%s" % (code, key))); wait_room(screen)
        if suffix == "en":
            round_trip(host)
        ActionChains(screen.driver).send_keys("?").perform()
        screen.wait_js("document.querySelector('[data-shortcuts]').open")
        shot(screen, "stage-shortcuts-1920x1080-" + suffix)


def api(server, path, key, body=None, method="POST"):
    req = urllib.request.Request(server.url(path), data=json.dumps(body or {}).encode(), method=method,
                                 headers={"Authorization": "Bearer " + key, "Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=60) as r:
        return json.load(r)


MODE_POOLS = {
    "reels": {"pool": {"kind": "range", "from": 1, "to": 5000}},
    "wheel": {"pool": {"kind": "list", "entrants": [{"name": n if i < len(NAMES) else "%s %d" % (n, i), "tickets": 1 + i % 3} for i, n in enumerate(NAMES * 3)][:36]}, "perStop": 3},
    "names": {"pool": {"kind": "list", "entrants": ["%s %d" % (n, i) for i in range(60) for n in NAMES][:600]}, "perStop": 3},
}


def modes(server, opened):
    """Each mode on the projector (rolling and revealed) and on a phone (revealed), en and zh."""
    for mode, config in MODE_POOLS.items():
        made = json.loads(urllib.request.urlopen(urllib.request.Request(
            server.url("/api/draws"), data=json.dumps({"config": {**config, "mode": mode}}).encode(), method="POST",
            headers={"Authorization": "Bearer " + server.admin_key, "Content-Type": "application/json"}), timeout=10).read())
        code, key = made["code"], made["hostKey"]
        for lang, suffix in LANGS:
            screen = Browser(1920, 1080, lang); opened.append(screen)
            phone = Browser(390, 844, lang); opened.append(phone)
            for b, path in ((screen, "/screen/"), (phone, "/watch/")):
                b.get(server.url(path + code)); wait_room(b)
            api(server, "/api/draws/%s/start" % code, key)
            screen.wait_js("document.querySelector('[data-stage]').classList.contains('mode-on')")
            if suffix == "en":
                shot(screen, "stage-%s-rolling-1920x1080-en" % mode, settle=1.0)
            api(server, "/api/draws/%s/stop" % code, key)
            for b in (screen, phone):
                b.wait_js("document.querySelector('[data-mode-layer]').dataset.landed", 15)
            time.sleep(2.5 if mode == "wheel" else 0.8)  # several winners land one after another
            shot(screen, "stage-%s-1920x1080-%s" % (mode, suffix), settle=0.2)
            shot(phone, "stage-%s-390x844-%s" % (mode, suffix), settle=0.2)


def certificate(server, opened):
    """A round's certificate, A4-sized and on a phone, en and zh."""
    code, key = create_names_draw(server)
    api(server, "/api/draws/%s/start" % code, key)
    api(server, "/api/draws/%s/stop" % code, key)
    for lang, suffix in LANGS:
        for width, height in ((794, 1123), (390, 844)):
            b = Browser(width, height, lang); opened.append(b)
            b.get(server.url("/draw/%s/round/1" % code))
            b.wait_js("document.querySelector('[data-verify]').dataset.state === 'ok'", 15)
            b.wait_js("document.querySelector('[data-qr]').complete")
            shot(b, "stage-certificate-%dx%d-%s" % (width, height, suffix), settle=0.3)


def prize_picture(x, y):
    """A 480x320 stand-in for a prize photo: a gift box with a ribbon on a soft gradient."""
    box = 150 <= x <= 330 and 120 <= y <= 280
    lid = 130 <= x <= 350 and 95 <= y <= 130
    ribbon = (230 <= x <= 250 and 95 <= y <= 280) or (lid and 105 <= y <= 118)
    bow = (x - 215) ** 2 + (y - 80) ** 2 < 24 ** 2 or (x - 265) ** 2 + (y - 80) ** 2 < 24 ** 2
    if ribbon or bow:
        return (250, 204, 21, 255)
    if box or lid:
        return (200, 16, 46, 255) if box else (225, 29, 72, 255)
    return (30 + y // 8, 41 + y // 10, 59 + x // 12, 255)


def media(server, opened):
    """A prize tier's picture on the projector and a phone while it rolls, and the host's panel."""
    from test_branding import png
    made = json.loads(urllib.request.urlopen(urllib.request.Request(
        server.url("/api/draws"), data=json.dumps({"config": {"pool": {"kind": "range", "from": 1, "to": 500},
                                                               "prizes": [{"name": "Weekend for two", "count": 1}]}}).encode(),
        method="POST", headers={"Authorization": "Bearer " + server.admin_key, "Content-Type": "application/json"}), timeout=10).read())
    code, key = made["code"], made["hostKey"]
    req = urllib.request.Request(server.url("/api/draws/%s/prizes/0/picture" % code), data=png(480, 320, prize_picture), method="PUT",
                                 headers={"Authorization": "Bearer " + key, "Content-Type": "image/png"})
    urllib.request.urlopen(req, timeout=10).read()
    for lang, suffix in LANGS:
        host = Browser(390, 844, lang); opened.append(host)
        host.get(server.url("/draw/%s#key=%s" % (code, key))); wait_room(host)
        host.js("document.querySelector('[data-media-panel]').open = true;"
                "document.querySelector('[data-media-panel]').scrollIntoView({block: 'start'})")
        host.wait_js("!document.querySelector('[data-media-picture-preview]').hidden")
        shot(host, "stage-media-host-390x844-" + suffix, settle=0.5)
        screen = Browser(1920, 1080, lang); opened.append(screen)
        phone = Browser(390, 844, lang); opened.append(phone)
        for b, path in ((screen, "/screen/"), (phone, "/watch/")):
            b.get(server.url(path + code)); wait_room(b)
        api(server, "/api/draws/%s/start" % code, key)
        for b in (screen, phone):
            b.wait_js("document.querySelector('[data-prize-picture] img').naturalWidth > 0")
        shot(screen, "stage-media-rolling-1920x1080-" + suffix, settle=0.5)
        shot(phone, "stage-media-rolling-390x844-" + suffix, settle=0.1)
        api(server, "/api/draws/%s/stop" % code, key)
        screen.wait_js("window.tombola.state.phase === 'revealed'", 15)
        api(server, "/api/draws/%s/clear" % code, key)


def card(server, opened):
    """The name reel's strip rolling and the winner card it ends on (issue 39): one winner with
    the tier's picture, then three, on the projector and a phone, en and zh."""
    from test_branding import png
    prizes = [{"name": "Weekend for two", "count": 1, "mode": "reels"}, {"name": "Dinner for two", "count": 3, "mode": "names"}]
    for lang, suffix in LANGS:
        made = json.loads(urllib.request.urlopen(urllib.request.Request(
            server.url("/api/draws"), data=json.dumps({"config": {"pool": {"kind": "list", "entrants": NAMES},
                                                                   "perStop": 3, "prizes": prizes}}).encode(),
            method="POST", headers={"Authorization": "Bearer " + server.admin_key, "Content-Type": "application/json"}), timeout=10).read())
        code, key = made["code"], made["hostKey"]
        req = urllib.request.Request(server.url("/api/draws/%s/prizes/0/picture" % code), data=png(480, 320, prize_picture), method="PUT",
                                     headers={"Authorization": "Bearer " + key, "Content-Type": "image/png"})
        urllib.request.urlopen(req, timeout=10).read()
        screen = Browser(1920, 1080, lang); opened.append(screen)
        phone = Browser(390, 844, lang); opened.append(phone)
        for b, path in ((screen, "/screen/"), (phone, "/watch/")):
            b.get(server.url(path + code)); wait_room(b)
        for n, (count, name) in enumerate(((1, "one"), (3, "three"))):
            if n == 0:
                shot(screen, "stage-reels-ready-1920x1080-" + suffix, settle=0.5)
            api(server, "/api/draws/%s/start" % code, key)
            screen.wait_js("document.querySelector('[data-stage]').classList.contains('mode-on')")
            if n == 0:
                shot(screen, "stage-reels-strip-1920x1080-" + suffix, settle=0.8)
            api(server, "/api/draws/%s/stop" % code, key)
            for b in (screen, phone):
                b.wait_js("document.querySelectorAll('[data-winner-card] .card-name').length === %d"
                          " && document.querySelector('[data-stage]').classList.contains('has-card')" % count, 20)
            shot(screen, "stage-card-%s-1920x1080-%s" % (name, suffix), settle=0.8)
            shot(phone, "stage-card-%s-390x844-%s" % (name, suffix), settle=0.3)


SECTIONS = {"control": control, "modes": modes, "certificate": certificate, "media": media, "card": card}


def main():
    with contextlib.ExitStack() as cleanup:
        server = ShotServer()
        cleanup.callback(shutil.rmtree, server.data_dir, ignore_errors=True)
        cleanup.callback(server.stop)
        opened = []
        cleanup.callback(lambda: [b.quit() for b in opened])
        for name in sys.argv[1:] or list(SECTIONS):
            SECTIONS[name](server, opened)


if __name__ == "__main__":
    main()
