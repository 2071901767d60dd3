"""The whole order (issue 45) in Chromium against the real server: a draw set to `waitlist` draws
each round's winners and then everyone else in order, its waiting list. The projector
(1920x1080, English) shows the list a page at a time and turns the pages by itself; a phone
(390x844, Chinese) pages through it by hand. What is read is what a person sees (visible.py:
painted, inside the viewport, on top), compared with the REST result's `alternates`; the winners
CSV lists the waiting list with each place, and `tombola verify` and the FAIRNESS §12 script
pass the export."""

import json
import os
import pathlib
import re
import subprocess
import sys
import urllib.request

from selenium.webdriver.common.by import By

from test_draw import create_draw, open_page
from test_stage_modes import api
from visible import english_words, seen

TIMEOUT = 20
ROOT = pathlib.Path(__file__).resolve().parents[2]
NAMES = ["Guest %02d" % i for i in range(1, 31)] + ["李雷", "韩梅梅", "王芳", "Zoë", "Nguyễn Văn An", "Ana Lima", "陈静"]


def shown(page, scope):
    """The visible pieces under `scope`, top to bottom; a section taller than the window is read
    as a person scrolls through it (a window at a time, each piece once, by its place on the page)."""
    top, height, inner = page.js("const r = document.querySelector(arguments[0]).getBoundingClientRect();"
                                 " return [r.top + scrollY, r.height, innerHeight]", scope)
    pieces = {}
    y = top
    while True:
        page.js("window.scrollTo(0, arguments[0])", y)
        at = page.js("return scrollY")
        for p in seen(page, scope):
            pieces[(round(p["mid"] + at), round(p["left"]), p["text"])] = p
        if y + inner >= top + height or at < y:
            break
        y += inner - 100
    return [key[2] for key in sorted(pieces)]


def wait_page(page, heading, span, entries):
    """Waits until the waiting list shows `heading`, `span` and exactly `entries` in order."""
    def ready():
        texts = shown(page, "[data-waitlist]")
        return texts if texts[:2] == [heading, span] and [t for t in texts[2:] if t in NAMES] == entries else None
    try:
        return page.wait(ready, TIMEOUT)
    except Exception:
        raise AssertionError("the waiting list shows %s, not %s %s %s" % (shown(page, "[data-waitlist]"), heading, span, entries)) from None


def test_a_round_draws_the_whole_order_and_pages_its_waiting_list(server, browser):
    code, key = create_draw(server, {"pool": {"kind": "list", "entrants": NAMES}, "perStop": 2, "waitlist": True})
    screen = open_page(browser(1920, 1080), server.url("/screen/%s" % code))
    phone = open_page(browser(390, 844, "zh-CN"), server.url("/watch/%s" % code))
    api(server, "/api/draws/%s/start" % code, key)
    result = api(server, "/api/draws/%s/stop" % code, key)["result"]
    waiting = result["alternates"]
    assert len(result["winners"]) == 2 and len(waiting) == len(NAMES) - 2
    assert sorted(result["winners"] + waiting) == sorted(NAMES)
    total = len(waiting)

    # The projector: a page of 10, then the next by itself.
    wait_page(screen, "Waiting list · round 1", "1–10 of %d" % total, waiting[:10])
    wait_page(screen, "Waiting list · round 1", "11–20 of %d" % total, waiting[10:20])
    sizes = [p["size"] for p in seen(screen, "[data-waitlist] li")]
    assert sizes and min(sizes) >= 20, sizes

    # The phone, in Chinese: 20 a page, the next page by its button.
    wait_page(phone, "候补名单 · 第 1 轮", "第 1–20 名，共 %d 名" % total, waiting[:20])
    button = phone.find_element(By.CSS_SELECTOR, "[data-waitlist-next]")
    phone.execute_script("arguments[0].scrollIntoView({ block: 'center' })", button)
    assert button.text == "下一页"
    button.click()
    wait_page(phone, "候补名单 · 第 1 轮", "第 21–%d 名，共 %d 名" % (total, total), waiting[20:])
    allowed = set(w for n in NAMES for w in n.split())
    assert not english_words(phone, allow=allowed), english_words(phone, allow=allowed)

    # The record: the CSV lists the waiting list in order with its places; both verifiers pass.
    with urllib.request.urlopen(server.url("/api/draws/%s/export.csv" % code), timeout=30) as r:
        rows = [line.split(",") for line in r.read().decode("utf-8-sig").splitlines()]
    assert rows[0][-1] == "waitlist"
    listed = [(row[3], row[-1]) for row in rows[1:] if row[-1]]
    assert listed == [(name, str(i + 1)) for i, name in enumerate(waiting)], listed[:3]
    with urllib.request.urlopen(server.url("/api/draws/%s/export.json" % code), timeout=30) as r:
        export = json.load(r)
    path = os.path.join(server.data_dir, "waitlist-export.json")
    with open(path, "w", encoding="utf-8") as f:
        json.dump(export, f, ensure_ascii=False)
    verified = subprocess.run([os.environ.get("TOMBOLA_BIN", "tombola"), "verify", path], capture_output=True, text=True, timeout=60)
    assert verified.returncode == 0, verified.stdout
    script = os.path.join(server.data_dir, "verify_tombola.py")
    with open(script, "w", encoding="utf-8") as f:
        f.write(re.findall(r"```python\n(.*?)```", (ROOT / "docs" / "FAIRNESS.md").read_text(encoding="utf-8"), re.S)[0])
    checked = subprocess.run([sys.executable, script, path], capture_output=True, text=True, timeout=60)
    assert checked.returncode == 0, checked.stdout
