"""Whole events as a host runs them (issue 39, "the whole event as a test"): the host on a phone,
two projectors at 1920x1080 (one opened late, as a projector reloaded mid-event), guests' phones
at 390x844, against the real server. Each event crosses the stage's axes so that every value of
each is met once (not the full product):

| event | language | pool | modes (tier by tier) | winners a stop | claims | mask | also |
|---|---|---|---|---|---|---|---|
| company party | zh | list (names, phone numbers) | names, reels, wheel | 3, 1, 1 | off | names | a restart mid-roll, all tiers done |
| check-in | en | check-in (phones) | names, number | 1 | on: passed, claimed by the alternate; nobody left | phones | |
| ten a stop | zh | list (Chinese, Vietnamese) | number, reels | 10, 1 | off | none | a void and its replacement |
| a range on the wheel | en | range | wheel | 3 | off | none | a projector opened late |

At every landing and at rest afterwards, on every page: the winners' text as the record has it
(`GET …/rounds/<n>/winners`: after claims and voids, who holds the prize; masked as the draw
masks) is visible (painted, opacity 1, inside the viewport, not covered: visible.py), large on
the projector; a passed or voided winner is not shown as a winner; a Chinese page shows no
English word."""

import json
import os
import re
import time
import urllib.request

import pytest
from selenium.webdriver.common.by import By

from conftest import EXPECTED_WHEN_CUT
from test_claim import claim_from, join
from test_draw import create_draw, open_page
from test_stage_modes import api
from visible import english_words, lines, seen

TIMEOUT = 25
REST_S = 2.0  # the subject: the winner stays on show after the landing, until the next Start


def shot(pages, outcome, lang):
    """Screenshots of an outcome, projector and phone, in the event's language and then in the other
    (switched on the page as a guest would), into $TOMBOLA_SHOTS_DIR when it is set
    (docs/screenshots: `outcome-<what>-<screen|phone>-<size>-<lang>.png`)."""
    out = os.environ.get("TOMBOLA_SHOTS_DIR")
    if not out:
        return
    chosen = [pages["screen"], next(p for n, p in pages.items() if n == "phone" or n.startswith("phone "))]
    for language in (lang, "en" if lang == "zh" else "zh"):
        for page, kind in zip(chosen, ("screen", "phone")):
            page.js("const s = document.querySelector('[data-lang-switch]'); if (s.value !== arguments[0]) {"
                    " s.value = arguments[0]; s.dispatchEvent(new Event('change', { bubbles: true })); }", language)
            page.wait_js("document.documentElement.lang.startsWith(%s)" % json.dumps(language), TIMEOUT)
            time.sleep(0.5)  # the subject: the page settled in its new language
            page.save_screenshot(os.path.join(out, "outcome-%s-%s-%dx%d-%s.png" % (outcome, kind, page.width, page.height, language)))
    for page in chosen:
        page.js("const s = document.querySelector('[data-lang-switch]'); s.value = arguments[0];"
                " s.dispatchEvent(new Event('change', { bubbles: true }));", lang)


def mask_name(text, mask):
    """lib/mask.js maskName for the test's own names (no combining marks): phones keep 3 + 4
    digits (2 + 2 under 11), names keep each word's first character."""
    if mask == "none":
        return text
    digits = "".join(c for c in text if c.isdigit())
    if text.strip().lstrip("+").replace(" ", "").replace("-", "").isdigit() and 7 <= len(digits) <= 15:
        head, tail = (3, 4) if len(digits) >= 11 else (2, 2)
        return digits[:head] + "*" * (len(digits) - head - tail) + digits[-tail:]
    if mask == "names" and any(c.isalpha() for c in text):
        return " ".join(w[0] + "*" * max(1, len(w) - 1) for w in text.split(" "))
    return text


def get(server, path, key=None):
    headers = {"Authorization": "Bearer " + key} if key else {}
    with urllib.request.urlopen(urllib.request.Request(server.url(path), headers=headers), timeout=10) as r:
        return json.load(r)


def holders(server, code, key, round_no):
    """The record: who holds the round's prizes now, as the pages name them (check-in ids by name)."""
    body = get(server, "/api/draws/%s/rounds/%d/winners" % (code, round_no), key)
    names = body.get("names") or {}
    return [names.get(str(w), str(w)) for w in body["winners"]], [names.get(str(v["winner"]), str(v["winner"])) for v in body["voided"]]


def wait_round(pages, round_no):
    for page in pages.values():
        page.wait_js("window.tombola.state.lastReveal && window.tombola.state.lastReveal.round === %d" % round_no, TIMEOUT)


def stage_shows(page, texts, at_least):
    """Every text visible on the page's stage at >= `at_least` px (the stage box, else the page)."""
    pieces = seen(page, "[data-stage]") or seen(page)
    read = [p["text"] for p in pieces if p["size"] >= at_least] + lines(pieces, at_least)
    read = [re.sub(r"(?<=\d)[,\u202f\u00a0](?=\d{3})", "", r) for r in read]  # 3,770 is 3770
    # whole: "24" is not shown by "124"
    return all(any(re.search(r"(?<![0-9A-Za-z])%s(?![0-9A-Za-z])" % re.escape(t), r) for r in read) for t in texts)


def assert_winners_visible(pages, shown, gone=(), big=64):
    """`shown` visible on every page's stage (at >= `big` px on the projectors, >= 16 on phones),
    now and after REST_S; `gone` (passed, voided) never shown as a winner on the stage."""
    for when in ("landed", "at rest"):
        for name, page in pages.items():
            at_least = big if name.startswith("screen") else 16
            try:
                page.wait(lambda: stage_shows(page, shown, at_least), TIMEOUT)
            except Exception:
                raise AssertionError("%s (%s): %s not visible at >= %d px; seen %s" % (
                    name, when, shown, at_least, [(p["text"][:40], p["size"]) for p in seen(page, "[data-stage]")][:20]))
            on_stage = [p["text"] for p in seen(page, "[data-stage]") if p["size"] >= at_least]
            for g in gone:
                assert not any(t == g for t in on_stage), "%s (%s) shows %s as a winner: %s" % (name, when, g, on_stage)
        if when == "landed":
            time.sleep(REST_S)


def assert_all_chinese(pages, allow=()):
    for name, page in pages.items():
        words = english_words(page, allow)
        assert words == [], "%s shows English on a Chinese page: %s" % (name, words[:10])


def start_stop(server, code, key, pages):
    api(server, "/api/draws/%s/start" % code, key)
    for page in pages.values():
        page.wait_js("window.tombola.state.phase === 'rolling'", TIMEOUT)
    time.sleep(0.8)  # the subject: a round rolls for a moment before Stop, as a host's would
    result = api(server, "/api/draws/%s/stop" % code, key)["result"]
    wait_round(pages, result["round"])
    return result


PARTY = ["陈静", "王伟", "李娜", "赵敏", "刘洋", "黄丽", "周杰", "吴昊", "徐磊", "孙芳", "马超", "朱琳", "胡军",
         "郭靖", "何欢", "高峰", "林涛", "罗兰", "梁朝", "宋佳", "郑爽", "谢娜", "韩梅", "唐嫣", "冯巩", "于谦",
         "董洁", "萧敬腾", "程潇", "曹操"] + ["13812345678", "13987654321"]


def test_a_company_party_in_chinese_shows_the_record_in_every_mode(server, browser):
    """Event 1: zh, a list pool with phone numbers, masked names; names (3 a stop), reels (1),
    wheel (1); a projector opened late; a restart while the wheel rolls; all tiers done."""
    config = {"pool": {"kind": "list", "entrants": PARTY}, "perStop": 3, "mask": "names",
              "prizes": [{"name": "三等奖", "count": 3, "mode": "names"}, {"name": "二等奖", "count": 1, "mode": "reels"},
                         {"name": "一等奖", "count": 1, "mode": "wheel"}]}
    code, key = create_draw(server, config)
    pages = {"host": open_page(browser(390, 844, "zh-CN"), server.url("/draw/%s#key=%s" % (code, key))),
             "screen": open_page(browser(1920, 1080, "zh-CN"), server.url("/screen/%s" % code)),
             "phone": open_page(browser(390, 844, "zh-CN"), server.url("/watch/%s" % code))}
    pages["host"].wait_js("window.tombola.state.role === 'host'", TIMEOUT)
    assert_all_chinese(pages)
    # The host's settings, every part open (the file inputs' buttons among them), also all Chinese.
    pages["host"].js("document.querySelectorAll('details').forEach((d) => { d.open = true; });")
    for y in range(0, pages["host"].js("return document.body.scrollHeight"), 700):
        pages["host"].js("window.scrollTo(0, arguments[0])", y)
        assert_all_chinese({"host": pages["host"]})
    pages["host"].js("document.querySelectorAll('details').forEach((d) => { d.open = false; }); window.scrollTo(0, 0)")

    first = start_stop(server, code, key, pages)
    shown, _ = holders(server, code, key, first["round"])
    assert len(shown) == 3
    assert_winners_visible(pages, [mask_name(w, "names") for w in shown])
    assert_all_chinese(pages)
    shot(pages, "three-masked", "zh")

    api(server, "/api/draws/%s/config" % code, key, dict(config, perStop=1), method="PUT")
    second = start_stop(server, code, key, pages)
    (winner,), _ = holders(server, code, key, second["round"])
    assert_winners_visible(pages, [mask_name(winner, "names")], big=120)
    # A projector opened (or reloaded) after the reveal shows the same winner.
    pages["screen 2"] = open_page(browser(1920, 1080, "zh-CN"), server.url("/screen/%s" % code))
    assert_winners_visible({"screen 2": pages["screen 2"]}, [mask_name(winner, "names")], big=120)
    assert_all_chinese(pages)

    # The grand prize on the wheel: the server restarts while it rolls. The round rolls on (no
    # re-roll by crash, issue #40): every page says so in Chinese, and never shows the second
    # prize's winner as the grand prize's; Stop draws on the commitment shown before the restart.
    api(server, "/api/draws/%s/start" % code, key)
    for page in pages.values():
        page.wait_js("window.tombola.state.phase === 'rolling'", TIMEOUT)
    commitment = api(server, "/api/draws/%s" % code, key, method="GET")["commit"]["commitment"]
    server.restart()
    for page in pages.values():
        page.wait_js("window.tombola.state.connection === 'online' && window.tombola.state.phase === 'rolling'", TIMEOUT)
    for name, page in pages.items():
        page.wait(lambda: any("服务器重启后第 %d 轮继续滚动" % (second["round"] + 1) in p["text"] for p in seen(page)), TIMEOUT,
                  "%s does not say the round rolls on after the restart" % name)
        assert not any(mask_name(winner, "names") == p["text"] for p in seen(page, "[data-stage]")), name
    assert_all_chinese(pages)
    shot(pages, "resumed", "zh")
    third = api(server, "/api/draws/%s/stop" % code, key)["result"]
    assert third["round"] == second["round"] + 1 and third["commitment"] == commitment
    wait_round(pages, third["round"])
    (grand,), _ = holders(server, code, key, third["round"])
    assert_winners_visible(pages, [mask_name(grand, "names")], big=120)
    assert_all_chinese(pages)

    # Every tier is drawn: Start says so and does nothing.
    host = pages["host"]
    button = host.find_element(By.CSS_SELECTOR, "[data-startstop]")
    host.wait(lambda: not button.is_enabled(), TIMEOUT, "Start stays enabled after every prize is drawn")
    assert_all_chinese(pages)
    shot(pages, "all-done", "zh")

    # Archived by the admin: the host page opened next says so at once (no Start needed to find
    # out), in Chinese, and the last winner stays on every stage.
    req = urllib.request.Request(server.url("/api/draws/%s/archive" % code), data=b"{}", method="POST",
                                 headers={"Authorization": "Bearer " + server.admin_key, "Content-Type": "application/json"})
    urllib.request.urlopen(req, timeout=10).close()
    host.refresh()  # the key is in the tab's sessionStorage: a reload stays the host
    host.wait_js("window.tombola && window.tombola.state.snapshotReceived && window.tombola.state.role === 'host'", TIMEOUT)
    host.wait(lambda: any("已归档" in p["text"] for p in seen(host)), TIMEOUT, "the host page does not say the draw is archived")
    assert_winners_visible({n: p for n, p in pages.items() if n != "host"}, [mask_name(grand, "names")], big=120)
    assert_all_chinese(pages)
    shot(pages, "archived", "zh")
    for name, page in pages.items():
        assert page.errors(allow=EXPECTED_WHEN_CUT) == [], name  # the restart


def test_a_check_in_with_claims_crowns_who_holds_the_prize(server, browser):
    """Event 2: en, a check-in pool, claims with one alternate, phones masked; names mode, then the
    number. Round 1: the winner does not claim, the alternate does: every stage shows the
    alternate, never the no-show. Round 2: nobody claims and no alternate is left: "Nobody claimed" is the crown."""
    seconds = 10
    code, key = create_draw(server, {"pool": {"kind": "checkin"}, "claim": {"seconds": seconds, "alternates": 1},
                                     "mask": "phones", "perStop": 1,
                                     "prizes": [{"name": "Hamper", "count": 1, "mode": "names"}, {"name": "Bike", "count": 1}]})
    api(server, "/api/draws/%s/entries/open" % code, key, {"publicNames": True})
    phones = {}
    for n, name in enumerate(["Ann Lee", "Bo Chen", "Cai Wen", "13812345678"]):
        phone = open_page(browser(390, 844), server.url("/watch/%s" % code))
        phones[join(phone, name)] = (name, phone)
    api(server, "/api/draws/%s/entries/close" % code, key)
    pages = {"host": open_page(browser(390, 844), server.url("/draw/%s#key=%s" % (code, key))),
             "screen": open_page(browser(1920, 1080), server.url("/screen/%s" % code))}
    for pid, (_, phone) in phones.items():
        pages["phone " + pid] = phone

    first = start_stop(server, code, key, pages)
    absent, alternate = first["winners"][0], first["alternates"][0]
    # Nobody taps on the winner's phone; at the deadline the win passes and the alternate claims.
    alt_phone = phones[alternate][1]
    alt_phone.wait_js("document.querySelector('[data-claim-button]') !== null", TIMEOUT + seconds)
    alt_phone.find_element(By.CSS_SELECTOR, "[data-claim-button]").click()
    assert claim_from(alt_phone) == [200, None]
    shown, gone = holders(server, code, key, first["round"])
    assert shown == [phones[alternate][0]] and gone == [phones[absent][0]]
    assert_winners_visible(pages, [mask_name(shown[0], "phones")], gone=[mask_name(gone[0], "phones")])
    shot(pages, "claimed-by-alternate", "en")

    second = start_stop(server, code, key, pages)
    no_show = second["winners"][0]
    # Nobody claims, the alternate neither: the stage says nobody holds the prize.
    pages["screen"].wait(lambda: len(holders(server, code, key, second["round"])[0]) == 0, 3 * seconds + TIMEOUT)
    # "Nobody claimed" is the stage's largest text; the no-show may stand in the claims list beside
    # its reason, smaller, never as the crown.
    masked = mask_name(phones[no_show][0], "phones")

    def crowned(page):
        pieces = seen(page, "[data-stage]")
        nobody = max([p["size"] for p in pieces if p["text"] == "Nobody claimed"] or [0])
        return nobody > 0 and nobody >= max(p["size"] for p in pieces) and \
            all(p["size"] < nobody for p in pieces if p["text"] == masked)
    for name, page in pages.items():
        try:
            page.wait(lambda: crowned(page), TIMEOUT)
        except Exception:
            raise AssertionError("%s does not crown 'Nobody claimed' over the no-show %s: %s" % (
                name, masked, [(p["text"][:40], p["size"]) for p in seen(page, "[data-stage]")]))
    shot(pages, "nobody-claimed", "en")
    for name, page in pages.items():
        assert page.errors(allow=("/claim - Failed to load resource",)) == [], name


GUESTS = ["阮氏明开芳", "陈静怡", "王伟", "李娜", "张伟华", "Nguyễn Thị Minh Khai", "欧阳娜娜", "司马相如", "诸葛亮", "上官婉儿"] + \
    ["嘉宾%02d号" % i for i in range(1, 31)]


def test_ten_a_stop_in_chinese_fit_one_projector_page_and_a_void_is_replaced_in_place(server, browser):
    """Event 3: zh, a list of 40 names, 10 a stop in the number mode, then one on the reels: all
    ten visible at once on the projector (not 8 + 2 on two pages) and the phone; a void's
    replacement shows at once, and the voided name no longer as a winner."""
    code, key = create_draw(server, {"pool": {"kind": "list", "entrants": GUESTS}, "perStop": 10,
                                     "prizes": [{"name": "三等奖", "count": 10}, {"name": "一等奖", "count": 1, "mode": "reels"}]})
    pages = {"host": open_page(browser(390, 844, "zh-CN"), server.url("/draw/%s#key=%s" % (code, key))),
             "screen": open_page(browser(1920, 1080, "zh-CN"), server.url("/screen/%s" % code)),
             "phone": open_page(browser(390, 844, "zh-CN"), server.url("/watch/%s" % code))}
    latin = {"Nguyễn", "Thị", "Minh", "Khai"}
    first = start_stop(server, code, key, pages)
    shown, _ = holders(server, code, key, first["round"])
    assert len(shown) == 10
    assert_winners_visible(pages, shown, big=40)
    assert_all_chinese(pages, latin)

    voided = str(first["winners"][3])
    api(server, "/api/draws/%s/void" % code, key, {"round": first["round"], "winner": voided, "reason": "未到场"})
    shown, gone = holders(server, code, key, first["round"])
    assert len(shown) == 10 and gone == [voided]
    assert_winners_visible(pages, shown, gone=[voided], big=40)
    assert_all_chinese(pages, latin)
    shot(pages, "void-replaced", "zh")

    second = start_stop(server, code, key, pages)
    (grand,), _ = holders(server, code, key, second["round"])
    assert_winners_visible(pages, [grand], big=120)
    assert_all_chinese(pages, latin)
    shot(pages, "grand-prize-reels", "zh")
    for name, page in pages.items():
        assert page.errors() == [], name


def test_a_range_on_the_wheel_three_a_stop(server, browser):
    """Event 4: en, a range of 5,000 on the wheel, 3 a stop, no mask, no claims: each winner is
    turned to and then all three stay visible, the same on the late projector."""
    code, key = create_draw(server, {"pool": {"kind": "range", "from": 1, "to": 5000}, "perStop": 3, "mode": "wheel"})
    pages = {"host": open_page(browser(390, 844), server.url("/draw/%s#key=%s" % (code, key))),
             "screen": open_page(browser(1920, 1080), server.url("/screen/%s" % code)),
             "phone": open_page(browser(390, 844), server.url("/watch/%s" % code))}
    first = start_stop(server, code, key, pages)
    shown, _ = holders(server, code, key, first["round"])
    assert len(shown) == 3
    assert_winners_visible(pages, shown)
    late = {"screen 2": open_page(browser(1920, 1080), server.url("/screen/%s" % code))}
    assert_winners_visible(late, shown)
    for name, page in {**pages, **late}.items():
        assert page.errors() == [], name
