"""Writes docs/screenshots/*.png: keypad (390x844, 1280x800), host and viewer
(390x844) and projector (1920x1080), in English and Chinese, after running a
few rounds. Uses the same harness as the tests:

    python3 Tests/browser/screenshots.py            # the built server

"""

import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from selenium.webdriver.common.by import By  # noqa: E402

from conftest import ROOT, Browser, Server  # noqa: E402

OUT = os.path.join(ROOT, "docs", "screenshots")


def wait_online(b):
    b.wait_js("window.tombola && window.tombola.state.connection === 'online'", 15)


def shot(b, name):
    time.sleep(0.8)
    path = os.path.join(OUT, name + ".png")
    b.save_screenshot(path)
    print("wrote", os.path.relpath(path, ROOT))


def keys(b, sequence):
    for k in sequence:
        b.find_element(By.CSS_SELECTOR, '[data-key="%s"]' % k).click()
    b.wait_js("window.tombola.socket.backlog === 0", 10)


def round_trip(host, stop_after=0.8):
    if host.js("return window.tombola.state.phase") == "rolling":
        host.find_element(By.CSS_SELECTOR, "[data-startstop]").click()
        host.wait_js("window.tombola.state.phase === 'revealed'", 15)
    before = host.js("return window.tombola.state.revealCount")
    host.find_element(By.CSS_SELECTOR, "[data-startstop]").click()
    host.wait_js("window.tombola.state.phase === 'rolling'")
    time.sleep(stop_after)
    host.find_element(By.CSS_SELECTOR, "[data-startstop]").click()
    host.wait_js("window.tombola.state.revealCount > %d" % before, 15)


def main():
    os.makedirs(OUT, exist_ok=True)
    server = Server()
    opened = []
    try:
        for lang, suffix in (("en-US", "en"), ("zh-CN", "zh")):
            b = Browser(390, 844, lang); opened.append(b)
            b.get(server.url("/calc")); wait_online(b)
            keys(b, ["C", "1", "2", "3", "4", "*", "5", "=", "C", "1", "2", "+", "7", "*"])
            if suffix == "zh":
                keys(b, ["C", "5", "/", "0", "="])
            shot(b, "calc-390x844-%s" % suffix)
            b.quit()
        b = Browser(1280, 800); opened.append(b)
        b.get(server.url("/calc")); wait_online(b)
        b.find_element(By.CSS_SELECTOR, '[data-mode="scientific"]').click()
        keys(b, ["C", "2", "^", "1", "0", "=", "C", "9", "9", "9", "9", "9", "9", "9", "9", "*", "9", "9", "9", "9", "9", "9", "9", "9", "="])
        shot(b, "calc-1280x800-en")
        b.find_element(By.CSS_SELECTOR, '[data-mode="basic"]').click()
        b.quit()

        host = Browser(390, 844); opened.append(host)
        host.get(server.host_url("draw")); wait_online(host)
        host.wait_js("window.tombola.state.role === 'host'")
        for _ in range(3):
            round_trip(host)
        for lang, suffix in (("en-US", "en"), ("zh-CN", "zh")):
            h = Browser(390, 844, lang); opened.append(h)
            h.get(server.host_url("draw")); wait_online(h)
            h.wait_js("window.tombola.state.role === 'host' && window.tombola.state.snapshotReceived")
            shot(h, "host-390x844-%s" % suffix)
            v = Browser(390, 844, lang); opened.append(v)
            v.get(server.url("/watch/%s" % server.code)); wait_online(v)
            s = Browser(1920, 1080, lang); opened.append(s)
            s.get(server.url("/screen/%s" % server.code)); wait_online(s)
            round_trip(host)
            v.wait_js("window.tombola.state.phase === 'revealed'")
            v.wait_js("document.querySelector('[data-verified]').dataset.verify === 'ok'")
            shot(v, "watch-390x844-%s" % suffix)
            shot(s, "screen-1920x1080-%s" % suffix)
            host.find_element(By.CSS_SELECTOR, "[data-startstop]").click()
            s.wait_js("window.tombola.state.phase === 'rolling'")
            shot(s, "screen-rolling-1920x1080-%s" % suffix)
            host.find_element(By.CSS_SELECTOR, "[data-startstop]").click()
            s.wait_js("window.tombola.state.phase === 'revealed'", 15)
            for x in (h, v, s):
                x.quit()
        i = Browser(390, 844); opened.append(i)
        i.get(server.url("/")); i.wait_js("document.readyState === 'complete'")
        shot(i, "index-390x844-en")
    finally:
        for b in opened:
            b.quit()
        server.stop()


if __name__ == "__main__":
    main()
