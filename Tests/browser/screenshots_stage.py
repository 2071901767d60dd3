"""Writes the stage's screenshots (issue #26) into docs/screenshots/, with the harness of
screenshots.py: the shortcut overlay on the screen with controls (1920x1080) and the host
page's links with "Screen with controls" (390x844), in English and Simplified Chinese.

    TOMBOLA_SHOTS_LOOPBACK=1 TOMBOLA_BIN=.build/debug/tombola python3 Tests/browser/screenshots_stage.py [control]
"""

import shutil
import sys

from selenium.webdriver.common.action_chains import ActionChains

import screenshots
from screenshots import LANGS, Browser, ShotServer, create_names_draw, round_trip, shot, wait_room


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


SECTIONS = {"control": control}


def main():
    server = ShotServer()
    opened = []
    try:
        for name in sys.argv[1:] or list(SECTIONS):
            SECTIONS[name](server, opened)
    finally:
        for b in opened:
            b.quit()
        server.stop()
        shutil.rmtree(server.data_dir, ignore_errors=True)


if __name__ == "__main__":
    assert screenshots.OUT
    main()
