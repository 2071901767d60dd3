"""Writes docs/screenshots/*.png from the real server (the same harness as the
tests): the landing page, the keypad (390x844, 1280x800), the host and viewer
pages (390x844) and the projector (1920x1080, rolling and revealed, plus a
round of several named winners), each in English and Simplified Chinese.

    TOMBOLA_BIN=.build/debug/tombola python3 Tests/browser/screenshots.py [landing keypad digits draw names event branding checkin board]

With section names, only those are written ("event": the states issue 19 changed — the
armed prize while rolling, the plan in the host's bar, several winners on a phone's stage,
earlier rounds and the offline banner on the projector, a round of long names).
TOMBOLA_SHOTS_LOOPBACK=1 keeps the server on 127.0.0.1 and a free port (shared machines).

Look at every image after a change: they are the product as people see it.
"""

import base64
import contextlib
import json
import os
import shutil
import socket
import sys
import tempfile
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from selenium.webdriver.common.by import By  # noqa: E402

import conftest  # noqa: E402
from conftest import ROOT, Browser, Server  # noqa: E402

OUT = os.path.join(ROOT, "docs", "screenshots")
LANGS = (("en-US", "en"), ("zh-CN", "zh"))
NAMES = ["Ana Lima", "Bartholomew Fitzgerald-O'Connor", "陈静", "Dara Okafor", "Émile Dubois",
         "Farah Haddad", "王伟", "Hiroshi Tanaka", "Ingrid Johansson", "José María Fernández",
         "Kofi Mensah", "李娜", "Maximiliana Wolfeschlegelsteinhausen", "Nguyễn Thị Mai"]


def wait_online(b):
    b.wait_js("window.tombola && window.tombola.state.connection === 'online'", 15)


def wait_room(b):
    b.wait_js("window.tombola && window.tombola.state.snapshotReceived"
              " && window.tombola.state.connection === 'online'", 15)


def shot(b, name, settle=0.9):
    time.sleep(settle)  # animations (the reveal takes 0.9 s) and the verified mark
    path = os.path.join(OUT, name + ".png")
    b.save_screenshot(path)
    print("wrote", os.path.relpath(path, ROOT))
    return path


def keys(b, sequence):
    for k in sequence:
        b.find_element(By.CSS_SELECTOR, '[data-key="%s"]' % k).click()
    b.wait_js("window.tombola.socket.backlog === 0", 10)


def press(host):
    host.find_element(By.CSS_SELECTOR, "[data-startstop]").click()


def start(host):
    if host.js("return window.tombola.state.phase") == "rolling":
        stop(host)
    press(host)
    host.wait_js("window.tombola.state.phase === 'rolling'")


def stop(host):
    before = host.js("return window.tombola.state.revealCount")
    press(host)
    host.wait_js("window.tombola.state.revealCount > %d" % before, 15)


def round_trip(host, roll=0.6):
    start(host)
    time.sleep(roll)
    stop(host)


def verified(b):
    b.wait_js("document.querySelector('[data-verified]').dataset.verify === 'ok'", 10)


def create_names_draw(server):
    body = {"config": {"pool": {"kind": "list", "entrants": NAMES}, "perStop": 3,
                       "prizes": [{"name": "Weekend for two", "count": 3}]}}
    req = urllib.request.Request(server.url("/api/draws"), data=json.dumps(body).encode(), method="POST",
                                 headers={"Authorization": "Bearer " + server.admin_key,
                                          "Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=10) as r:
        made = json.load(r)
    return made["code"], made["hostKey"]


def keypad(server, opened):
    for lang, suffix in LANGS:
        b = Browser(390, 844, lang); opened.append(b)
        b.get(server.url("/calc")); wait_online(b)
        if suffix == "en":
            keys(b, ["C", "1", "2", "3", "4", "*", "5", "=", "C", "1", "2", "+", "7", "*"])
        else:
            keys(b, ["C", "5", "/", "0", "="])  # the localized error message
        shot(b, "calc-390x844-%s" % suffix, 0.4)
        b.quit()
        b = Browser(1280, 800, lang); opened.append(b)
        b.get(server.url("/calc")); wait_online(b)
        b.find_element(By.CSS_SELECTOR, '[data-mode="scientific"]').click()
        b.wait_js("window.tombola.state.mode === 'scientific'")
        keys(b, ["C", "0", ".", "1", "+", "0", ".", "2", "=",
                 "C", "2", "^", "1", "0", "=",
                 "C", "9", "9", "9", "9", "9", "9", "9", "9", "*", "9", "9", "9", "9", "9", "9", "9", "9", "="])
        shot(b, "calc-1280x800-%s" % suffix, 0.4)
        b.find_element(By.CSS_SELECTOR, '[data-mode="basic"]').click()
        b.wait_js("window.tombola.state.mode === 'basic'")
        b.quit()


def digits(server, opened):
    """Scientific mode on a phone with a 20-digit whole number, and π scrolled to 55 digits."""
    for lang, suffix in LANGS:
        b = Browser(390, 844, lang); opened.append(b)
        b.get(server.url("/calc")); wait_online(b)
        b.find_element(By.CSS_SELECTOR, '[data-mode="scientific"]').click()
        b.wait_js("window.tombola.state.mode === 'scientific'")
        keys(b, ["C", "2", "^", "6", "4", "="])
        shot(b, "calc-scientific-390x844-%s" % suffix, 0.4)
        keys(b, ["C", "pi"])
        for _ in range(4):
            b.find_element(By.CSS_SELECTOR, "[data-more-digits]").click()
        b.wait_js("window.tombola.state.digits && window.tombola.state.digits.fraction.length > 50")
        shot(b, "calc-digits-390x844-%s" % suffix, 0.4)
        b.find_element(By.CSS_SELECTOR, '[data-mode="basic"]').click()
        b.wait_js("window.tombola.state.mode === 'basic'")
        b.quit()


def landing(server, opened):
    for lang, suffix in LANGS:
        b = Browser(390, 844, lang); opened.append(b)
        b.get(server.url("/"))
        b.wait_js("document.readyState === 'complete'")
        b.wait_js("Array.from(document.images).every((i) => i.complete)")
        shot(b, "index-390x844-%s" % suffix, 0.5)
        b.quit()


def admin(server, opened):
    """The landing page's admin view (#25): three draws, one archived with its delete confirmation."""
    made = []
    for title in ("Summer party", "Quiz night", None):
        code, key = create_names_draw(server)
        if title:
            req = urllib.request.Request(server.url("/api/draws/%s/branding" % code), data=json.dumps({"title": title}).encode(),
                                         method="PUT", headers={"Authorization": "Bearer " + key, "Content-Type": "application/json"})
            urllib.request.urlopen(req, timeout=10).close()
        made.append(code)
    req = urllib.request.Request(server.url("/api/draws/%s/archive" % made[0]), data=b"{}", method="POST",
                                 headers={"Authorization": "Bearer " + server.admin_key})
    urllib.request.urlopen(req, timeout=10).close()
    for (width, height), langs in (((390, 844), LANGS), ((1920, 1080), LANGS[:1])):
        for lang, suffix in langs:
            b = Browser(width, height, lang); opened.append(b)
            b.get(server.url("/#admin=" + server.admin_key))
            b.wait_js("document.querySelectorAll('[data-admin-list] li').length >= 3", 15)
            b.find_element(By.CSS_SELECTOR, '[data-action="delete"][data-code="%s"]' % made[0]).click()
            b.wait_js("!!document.querySelector('[data-action=\"confirm\"]')")
            b.js("document.querySelector('[data-admin]').scrollIntoView()")
            shot(b, "index-admin-%dx%d-%s" % (width, height, suffix), 0.5)
            b.quit()


def draw_pages(server, opened):
    host = Browser(390, 844); opened.append(host)
    host.get(server.host_url("draw")); wait_room(host)
    host.wait_js("window.tombola.state.role === 'host'")
    for _ in range(3):
        round_trip(host)
    for lang, suffix in LANGS:
        h = Browser(390, 844, lang); opened.append(h)
        h.get(server.host_url("draw")); wait_room(h)
        h.wait_js("window.tombola.state.role === 'host'")
        v = Browser(390, 844, lang); opened.append(v)
        v.get(server.url("/watch/%s" % server.code)); wait_room(v)
        s = Browser(1920, 1080, lang); opened.append(s)
        s.get(server.url("/screen/%s" % server.code)); wait_room(s)
        s.wait_js("document.querySelector('[data-qr]').complete && !document.querySelector('[data-qr]').hidden")
        start(host)
        s.wait_js("window.tombola.state.phase === 'rolling' && window.tombola.state.tick")
        time.sleep(1.0)
        shot(s, "screen-rolling-1920x1080-%s" % suffix, 0)
        stop(host)
        for p in (h, v, s):
            p.wait_js("window.tombola.state.phase === 'revealed'", 15)
            verified(p)
        shot(s, "screen-revealed-1920x1080-%s" % suffix)
        shot(v, "watch-390x844-%s" % suffix, 0.2)
        shot(h, "host-390x844-%s" % suffix, 0.2)
        for p in (h, v, s):
            p.quit()


def names_round(server, opened):
    code, key = create_names_draw(server)
    host = Browser(1280, 800); opened.append(host)
    host.get(server.url("/draw/%s#key=%s" % (code, key))); wait_room(host)
    host.wait_js("window.tombola.state.role === 'host'")
    s = Browser(1920, 1080); opened.append(s)
    s.get(server.url("/screen/%s" % code)); wait_room(s)
    round_trip(host, 1.0)
    s.wait_js("window.tombola.state.phase === 'revealed'", 15)
    verified(s)
    shot(s, "screen-names-1920x1080-en")


LOOPBACK = bool(os.environ.get("TOMBOLA_SHOTS_LOOPBACK"))

TIERS = [{"name": "3rd prize", "count": 10}, {"name": "2nd prize", "count": 3}, {"name": "Grand prize", "count": 1}]
LONG = ["Wolfeschlegelsteinhausenbergerdorff Hubert", "Maximiliana Papadopoulou-Fitzgerald", "Nguyễn Thị Minh Khai Phương",
        "Александра Константиновна Преображенская", "Bartholomew Fitzgerald-O'Connor III", "Jean-Baptiste Emmanuel Zorg",
        "Siobhán Ní Dhuibhir-Ó Súilleabháin", "Krzysztof Brzęczyszczykiewicz"]


def put_config(server, config):
    req = urllib.request.Request(server.url("/api/draws/%s/config" % server.code), data=json.dumps(config).encode(),
                                 method="PUT", headers={"Authorization": "Bearer " + server.host_key,
                                                        "Content-Type": "application/json"})
    urllib.request.urlopen(req, timeout=10).close()


def event(server, opened):
    """The states issue 19 changed, on a fresh draw run like the rehearsal."""
    host = Browser(390, 844); opened.append(host)
    host.get(server.host_url("draw")); wait_room(host)
    host.wait_js("window.tombola.state.role === 'host'")
    viewer = Browser(390, 844); opened.append(viewer)
    viewer.get(server.url("/watch/%s" % server.code)); wait_room(viewer)
    s = Browser(1920, 1080); opened.append(s)
    s.get(server.url("/screen/%s" % server.code)); wait_room(s)
    s.wait_js("document.querySelector('[data-qr]').complete && !document.querySelector('[data-qr]').hidden")
    for per_stop in (1, 3, 10):
        put_config(server, {"pool": {"kind": "range", "from": 1, "to": 500}, "perStop": per_stop, "prizes": TIERS})
        host.wait_js("window.tombola.state.config.perStop === %d" % per_stop)
        if per_stop == 3:
            round_trip(host)
            viewer.wait_js("window.tombola.state.phase === 'revealed'", 15)
            verified(viewer)
            shot(viewer, "watch-winners-390x844-en")
            continue
        round_trip(host)
    # Round 4: "3rd prize" is full; the host reads what Start will draw, the screen announces it.
    host.wait_js("window.tombola.state.plan && window.tombola.state.plan.round === 4")
    host.js("window.scrollTo(0, 0)")
    shot(host, "host-plan-390x844-en", 0.3)
    start(host)
    s.wait_js("window.tombola.state.tick")
    time.sleep(0.8)
    shot(s, "screen-rolling-prize-1920x1080-en", 0)
    stop(host)
    round_trip(host)
    names = LONG + ["陈静", "王伟", "Иван Петров", "Nguyễn Văn An"] + ["Guest %02d" % i for i in range(1, 49)]
    put_config(server, {"pool": {"kind": "list", "entrants": names}, "perStop": 50, "prizes": [{"name": "Raffle", "count": 60}]})
    host.wait_js("window.tombola.state.plan && window.tombola.state.plan.count === 50")
    round_trip(host)
    s.wait_js("window.tombola.state.phase === 'revealed'", 15)
    verified(s)
    shot(s, "screen-history-1920x1080-en")
    server.stop()
    s.wait_js("window.tombola.state.connection === 'offline'", 15)
    shot(s, "screen-offline-1920x1080-en", 1.5)  # past a page turn of the winners
    server.start()
    s.wait_js("window.tombola.state.connection === 'online'", 30)
    host.wait_js("window.tombola.state.connection === 'online' && window.tombola.state.role === 'host'", 30)
    req = urllib.request.Request(server.url("/api/draws/%s/clear" % server.code), data=b"{}", method="POST",
                                 headers={"Authorization": "Bearer " + server.host_key, "Content-Type": "application/json"})
    urllib.request.urlopen(req, timeout=10).close()
    put_config(server, {"pool": {"kind": "list", "entrants": LONG}, "perStop": 8})
    host.wait_js("window.tombola.state.plan && window.tombola.state.plan.count === 8")
    round_trip(host)
    s.wait_js("window.tombola.state.phase === 'revealed'", 15)
    verified(s)
    shot(s, "screen-longnames-1920x1080-en", 1.2)


def checkin(server, opened):
    """Check-in (#14): the phone's join form, the host's check-in card, the projector with the
    count, QR code and presence code, and a winner's phone."""
    def api(method, path, key, body=None):
        req = urllib.request.Request(server.url(path), data=None if body is None else json.dumps(body).encode(), method=method,
                                     headers={"Authorization": "Bearer " + key, "Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=10) as r:
            return json.load(r)

    def new_draw(presence):
        made = api("POST", "/api/draws", server.admin_key, {"config": {"pool": {"kind": "checkin"}}})
        code, key = made["code"], made["hostKey"]
        api("POST", "/api/draws/%s/entries/open" % code, key, {
            "fields": [{"key": "ticket", "label": "Ticket number", "required": True, "unique": True, "maxLength": 12}],
            "presence": presence, "publicNames": True})
        return code, key

    def rest_join(code, key, name, ticket):
        presence = api("GET", "/api/draws/%s/entries/presence" % code, key)
        req = urllib.request.Request(server.url("/api/draws/%s/join" % code), method="POST", data=json.dumps(
            {"name": name, "fields": {"ticket": ticket}, "code": presence["code"]}).encode(),
            headers={"Content-Type": "application/json"})
        urllib.request.urlopen(req, timeout=10).close()

    code, key = new_draw(True)
    for n, name in enumerate(NAMES[:12]):
        rest_join(code, key, name, "A-%03d" % (n + 1))
    for lang, suffix in LANGS:
        phone = Browser(390, 844, lang); opened.append(phone)
        phone.get(server.url("/watch/%s" % code))
        wait_room(phone)
        phone.wait_js("!document.querySelector('[data-join-form]').hidden && document.querySelector('[data-field-key]')")
        shot(phone, "checkin-join-390x844-" + suffix, 0.5)
        screen = Browser(1920, 1080, lang); opened.append(screen)
        screen.get(server.url("/screen/%s#key=%s" % (code, key)))
        wait_room(screen)
        screen.wait_js("!document.querySelector('[data-presence]').hidden && document.querySelector('[data-qr]').complete")
        shot(screen, "checkin-screen-1920x1080-" + suffix, 0.8)
        host = Browser(390, 844, lang); opened.append(host)
        host.get(server.url("/draw/%s#key=%s" % (code, key)))
        wait_room(host)
        host.wait_js("window.tombola.state.role === 'host' && document.querySelectorAll('[data-checkin-list] li').length > 0")
        host.js("document.querySelector('[data-checkin-host]').scrollIntoView({block: 'start'})")
        shot(host, "checkin-host-390x844-" + suffix, 0.5)

    # A winner's phone: a draw of two, the phone entered through its form; rounds until it wins.
    for lang, suffix in LANGS:
        code, key = new_draw(False)
        phone = Browser(390, 844, lang); opened.append(phone)
        phone.get(server.url("/watch/%s" % code))
        wait_room(phone)
        phone.wait_js("!document.querySelector('[data-join-form]').hidden && document.querySelector('[data-field-key]')")
        phone.find_element(By.CSS_SELECTOR, "[data-join-name]").send_keys("陈静" if suffix == "zh" else "Dara Okafor")
        phone.find_element(By.CSS_SELECTOR, "[data-field-key]").send_keys("B-017")
        phone.find_element(By.CSS_SELECTOR, "[data-join-submit]").click()
        mine = phone.wait_js("window.tombola.state.me && window.tombola.state.me.id")
        rest_join(code, key, "Kofi Mensah", "B-018")
        api("POST", "/api/draws/%s/entries/close" % code, key, {})
        for _ in range(2):
            api("POST", "/api/draws/%s/start" % code, key, {})
            result = api("POST", "/api/draws/%s/stop" % code, key, {})["result"]
            if mine in result["winners"]:
                break
        phone.wait_js("!document.querySelector('[data-you-won]').hidden", 15)
        phone.js("window.scrollTo(0, 0)")
        shot(phone, "checkin-won-390x844-" + suffix, 1.2)
def brand(server, code, key, title, accent, logo):
    def send(method, path, body, kind):
        req = urllib.request.Request(server.url("/api/draws/%s/%s" % (code, path)), data=body, method=method,
                                     headers={"Authorization": "Bearer " + key, "Content-Type": kind})
        urllib.request.urlopen(req, timeout=10).close()
    send("PUT", "branding", json.dumps({"title": title, "accent": accent}).encode(), "application/json")
    send("PUT", "logo", logo, "image/png")


def branding(server, opened):
    """Issue 15: a branded projector, the host's branding panel, and the stream overlay (a PNG
    with a transparent background, as OBS's browser source composites it)."""
    from test_branding import logo_pixel, png
    code, key = create_names_draw(server)
    brand(server, code, key, "Spring Gala 2026 · 春季年会", "#c8102e", png(120, 120, logo_pixel))
    host = Browser(390, 844); opened.append(host)
    host.get(server.url("/draw/%s#key=%s" % (code, key))); wait_room(host)
    host.wait_js("window.tombola.state.role === 'host'")
    s = Browser(1920, 1080); opened.append(s)
    s.get(server.url("/screen/%s" % code)); wait_room(s)
    s.wait_js("document.querySelector('[data-brand-logo]').complete && !document.querySelector('[data-brand]').hidden")
    round_trip(host, 1.0)
    s.wait_js("window.tombola.state.phase === 'revealed'", 15)
    verified(s)
    shot(s, "screen-branded-1920x1080-en")
    host.js("const p = document.querySelector('[data-branding-panel]'); p.open = true; p.scrollIntoView({ block: 'start' })")
    host.wait_js("!document.querySelector('[data-brand-logo-preview]').hidden && document.querySelector('[data-brand-logo-preview]').complete")
    shot(host, "host-branding-390x844-en", 0.3)
    o = Browser(1920, 1080); opened.append(o)
    o.execute_cdp_cmd("Emulation.setDefaultBackgroundColorOverride", {"color": {"r": 0, "g": 0, "b": 0, "a": 0}})
    o.get(server.url("/screen/%s?overlay" % code)); wait_room(o)
    o.wait_js("document.querySelector('[data-brand-logo]').complete && !document.querySelector('[data-brand]').hidden")
    o.wait_js("window.tombola.state.phase === 'revealed'", 15)  # the round above, from the snapshot
    time.sleep(1.2)
    path = os.path.join(OUT, "screen-overlay-1920x1080-en.png")
    with open(path, "wb") as f:
        f.write(base64.b64decode(o.execute_cdp_cmd("Page.captureScreenshot", {"format": "png"})["data"]))
    print("wrote", os.path.relpath(path, ROOT))


def board(server, opened):
    """A round of 1,000 winners (issue 18): the projector's dense pages, a phone's first winners and "Show more"."""
    first = ["Ana", "Bao", "Chen", "Dara", "Emile", "Farah", "Hiro", "Ingrid", "José", "Kofi", "Li", "Mai"]
    last = ["Lima", "Okafor", "Dubois", "Haddad", "Tanaka", "Johansson", "Mensah", "Nguyen", "Roy", "Wang"]
    entrants = ["%s %s %04d" % (first[i % 12], last[i // 12 % 10], i) for i in range(3000)]
    body = {"config": {"pool": {"kind": "list", "entrants": entrants}, "perStop": 1000,
                       "prizes": [{"name": "Goodie bag", "count": 1000}]}}

    def api(path, key, data):
        req = urllib.request.Request(server.url(path), data=json.dumps(data).encode(), method="POST",
                                     headers={"Authorization": "Bearer " + key, "Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=60) as r:
            return json.load(r)

    made = api("/api/draws", server.admin_key, body)
    code, key = made["code"], made["hostKey"]
    api("/api/draws/%s/start" % code, key, {})
    api("/api/draws/%s/stop" % code, key, {})
    s = Browser(1920, 1080); opened.append(s)
    s.get(server.url("/screen/%s" % code)); wait_room(s)
    s.wait_js("document.querySelectorAll('[data-winners] .winner-cell').length === 30")
    s.js("window.tombola.state.page = 4; window.tombola.state.changed('page')")
    s.wait_js("document.querySelector('[data-pager]').textContent.startsWith('Winners 121–150')", 15)
    verified(s)
    shot(s, "screen-longround-1920x1080-en", 1.2)
    for lang, suffix in LANGS:
        v = Browser(390, 844, lang); opened.append(v)
        v.get(server.url("/watch/%s" % code)); wait_room(v)
        v.wait_js("document.querySelector('[data-show-more]')")
        verified(v)
        if suffix == "en":
            shot(v, "watch-longround-top-390x844-en", 0.3)
        v.js("document.querySelector('[data-show-more]').scrollIntoView({ block: 'end' })")
        shot(v, "watch-longround-390x844-%s" % suffix, 0.3)


class ShotServer(Server):
    """The test server, but listening on every interface and on port 8080 when
    it is free, so the join URL on the screen looks like the one a venue sees."""

    def __init__(self):
        self.port = conftest.free_port() if LOOPBACK or not port_is_free(8080) else 8080
        self.data_dir = tempfile.mkdtemp(prefix="tombola-shots-")
        self.proc = None
        self.code, self.host_key, self.admin_key = conftest.DRAW_CODE, conftest.HOST_KEY, conftest.ADMIN_KEY
        self.start()


def port_is_free(port):
    with contextlib.closing(socket.socket()) as s:
        try:
            s.bind(("0.0.0.0", port))
            return True
        except OSError:
            return False


def all_interfaces(port, data_dir):
    command = original_command(port, data_dir)
    command[command.index("--host") + 1] = "0.0.0.0"
    return command


original_command = conftest.server_command
if not LOOPBACK:
    conftest.server_command = all_interfaces


def main():
    os.makedirs(OUT, exist_ok=True)
    server = ShotServer()
    opened = []
    sections = {"landing": landing, "admin": admin, "keypad": keypad, "digits": digits, "draw": draw_pages, "names": names_round, "event": event,
                "branding": branding, "checkin": checkin, "board": board}
    wanted = sys.argv[1:] or list(sections)
    try:
        for name in wanted:
            sections[name](server, opened)
    finally:
        for b in opened:
            b.quit()
        server.stop()
        shutil.rmtree(server.data_dir, ignore_errors=True)


if __name__ == "__main__":
    main()
