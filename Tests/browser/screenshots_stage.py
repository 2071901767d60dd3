"""Writes the stage's screenshots (issue #26) into docs/screenshots/, with the harness of
screenshots.py: the shortcut overlay on the screen with controls (1920x1080) and the host
page's links with "Screen with controls" (390x844), and each display mode on the projector
(rolling, revealed) and a phone (revealed), and a round's certificate (A4, phone), in English
and Simplified Chinese.

    TOMBOLA_SHOTS_LOOPBACK=1 TOMBOLA_BIN=.build/debug/tombola python3 Tests/browser/screenshots_stage.py [control] [modes] [certificate]
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


SECTIONS = {"control": control, "modes": modes, "certificate": certificate}


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
