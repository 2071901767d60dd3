"""A round of 1,000 winners in Chromium against the real server (issue 18): a page that joins
after the reveal gets the round's first winners in its `state` and pages through the rest from
GET /api/draws/<code>/rounds/<n>/winners — the phone with "Show more", the projector a page of
30 names at a time — and still rechecks the round (from the stored record)."""

import contextlib
import json
import time
import urllib.request

from selenium.common.exceptions import TimeoutException
from selenium.webdriver.common.by import By

from test_draw import create_draw, open_page

FIRST = ["Ana", "Bao", "Chen", "Dara", "Emile", "Farah", "Hiro", "Ingrid", "José", "Kofi", "Li", "Mai"]
LAST = ["Lima", "Okafor", "Dubois", "Haddad", "Tanaka", "Johansson", "Mensah", "Nguyen", "Roy", "Wang"]


def names(count):
    return ["%s %s %04d" % (FIRST[i % len(FIRST)], LAST[i // len(FIRST) % len(LAST)], i) for i in range(count)]


def post(server, path, key):
    req = urllib.request.Request(server.url(path), data=b"{}", method="POST",
                                 headers={"Authorization": "Bearer " + key, "Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=60) as r:
        return json.load(r)


def long_round(server, winners=1000):
    """A new draw with one revealed round of `winners` winners; returns (code, key, winners)."""
    code, key = create_draw(server, {"pool": {"kind": "list", "entrants": names(3000)}, "perStop": winners})
    post(server, "/api/draws/%s/start" % code, key)
    result = post(server, "/api/draws/%s/stop" % code, key)["result"]
    assert len(result["winners"]) == winners
    return code, key, result["winners"]


def list_texts(b):
    return [e.text for e in b.find_elements(By.CSS_SELECTOR, "[data-winners] .winner-value")]


def test_a_phone_shows_the_first_winners_and_pages_through_the_rest(server, browser):
    code, _, winners = long_round(server)
    phone = open_page(browser(390, 844), server.url("/watch/%s" % code))
    state = phone.js("return { rounds: window.tombola.state.rounds.map(r => [r.winners.length, r.total]),"
                     " more: window.tombola.state.lastReveal.more }")
    assert state == {"rounds": [[20, 1000]], "more": True}, "the snapshot lists the first winners only"
    phone.wait_js("document.querySelectorAll('[data-winners] .winner-value').length === 20", 20)
    assert list_texts(phone) == winners[:20]
    assert phone.find_element(By.CSS_SELECTOR, "[data-winners] .winners-count").text == "Showing 20 of 1,000 winners"
    for shown in list(range(120, 1000, 100)) + [1000]:
        button = phone.find_element(By.CSS_SELECTOR, "[data-show-more]")
        phone.js("arguments[0].scrollIntoView({ block: 'center' })", button)
        button.click()
        phone.wait_js("document.querySelectorAll('[data-winners] .winner-value').length === %d" % shown, 15)
    assert list_texts(phone) == winners, "every winner once, in draw order"
    assert phone.find_elements(By.CSS_SELECTOR, "[data-show-more]") == []
    assert phone.js("return document.documentElement.scrollWidth") <= 390
    # The round rechecks from the stored record, though the snapshot held only its summary.
    phone.wait_js("document.querySelector('[data-verified]').dataset.verify === 'ok'", 20)
    assert phone.errors() == []


def test_the_projector_pages_a_long_round_reading_each_page_from_the_server(server, browser):
    code, _, winners = long_round(server)
    screen = open_page(browser(1920, 1080), server.url("/screen/%s" % code))
    grid = lambda: screen.js("return Array.from(document.querySelectorAll('[data-winners] .winner-value')).map(e => e.textContent)")
    pager = lambda: screen.find_element(By.CSS_SELECTOR, "[data-pager]").text

    def shows(page):
        first, last = page * 30, min(1000, page * 30 + 30)
        return (screen.js("return window.tombola.state.page") == page and grid() == winners[first:last]
                and pager() == "Winners %s–%s of 1,000 · Page %d of 34" % (format(first + 1, ","), format(last, ","), page + 1))

    def turn_to(page):
        # The projector turns its pages by itself every 6 s: ask again until the page is on show.
        deadline = time.time() + 60
        while time.time() < deadline:
            screen.js("window.tombola.state.page = %d; window.tombola.state.changed('page')" % page)
            with contextlib.suppress(TimeoutException):
                screen.wait(lambda: shows(page), 5)
                return
        raise AssertionError("page %d never showed winners %d–%d: %r" % (page + 1, page * 30 + 1, page * 30 + 30, pager()))

    screen.wait(lambda: len(grid()) == 30 and grid() == winners[:30], 20, "the first page of 30 names")
    turn_to(0)
    # Page 21 holds winners the snapshot did not carry: the page reads them, then shows them.
    turn_to(20)
    # Every cell fits its box (names are not cut off at 1920x1080).
    clipped = screen.js("return Array.from(document.querySelectorAll('[data-winners] .winner-value'))"
                        ".filter(v => v.scrollWidth > v.parentElement.clientWidth + 1).length")
    assert clipped == 0
    # The last page is partly filled.
    turn_to(33)
    assert screen.errors() == []


def test_a_phone_reads_the_earlier_rounds_the_snapshot_left_out(server, browser):
    code, key = create_draw(server, {"pool": {"kind": "list", "entrants": names(600)}, "perStop": 30})
    for _ in range(12):
        post(server, "/api/draws/%s/start" % code, key)
        post(server, "/api/draws/%s/stop" % code, key)
    phone = open_page(browser(390, 844), server.url("/watch/%s" % code))
    # 20 listed winners a round, 200 in all: the latest 10 rounds, 2 older ones counted.
    assert phone.js("return [window.tombola.state.rounds.length, window.tombola.state.olderRounds]") == [10, 2]
    history = lambda: phone.js("return Array.from(document.querySelectorAll('[data-history] .history-round')).map(n => Number(n.dataset.round))")
    phone.wait(lambda: history() == list(range(11, 2, -1)), 15, "rounds 11…3 in the history")
    assert phone.find_element(By.CSS_SELECTOR, "[data-history-older] span").text == "2 earlier rounds not shown"
    button = phone.find_element(By.CSS_SELECTOR, "[data-show-older]")
    phone.js("arguments[0].scrollIntoView({ block: 'center' })", button)
    button.click()
    phone.wait(lambda: history() == list(range(11, 0, -1)), 15, "rounds 11…1 in the history")
    assert phone.find_elements(By.CSS_SELECTOR, "[data-history-older]") == []
    # Each earlier round shows its first 10 winners and how many more it has.
    assert phone.find_element(By.CSS_SELECTOR, "[data-history] .history-round[data-round='1'] .history-more").text == "+20 more"
    assert phone.errors() == []


def test_the_page_speaks_chinese_too(server, browser):
    code, _, winners = long_round(server, winners=60)
    phone = open_page(browser(390, 844, "zh-CN"), server.url("/watch/%s" % code))
    phone.wait_js("document.querySelector('[data-winners] .winners-count')", 20)
    assert phone.find_element(By.CSS_SELECTOR, "[data-winners] .winners-count").text == "显示 60 名中奖者中的 20 名"
    assert phone.find_element(By.CSS_SELECTOR, "[data-show-more]").text == "再显示 40 名"
    phone.find_element(By.CSS_SELECTOR, "[data-show-more]").click()
    phone.wait_js("document.querySelectorAll('[data-winners] .winner-value').length === 60", 15)
    assert list_texts(phone) == winners
    assert phone.errors() == []


def test_a_checked_in_winner_past_the_listed_ones_knows_it_won(browser, static_site):
    """The phone's "You won!" (`myWin`) after joining late: the snapshot lists the round's first 20
    winners only, and `checkin.me.wins` names the rounds this entry won."""
    from test_page_lib import page, result_of, run_module
    b = page(browser, static_site)
    listed = ["ID%06d" % i for i in range(20)]
    snapshot = {"type": "state", "phase": "revealed", "round": 2, "result": None,
                "rounds": [{"round": 1, "prize": None, "prizeIndex": None, "winners": listed,
                            "winnerCount": 60, "more": True, "voided": []}],
                "checkin": {"open": False, "count": 80, "fields": [], "presence": False,
                            "publicNames": False, "names": {}, "me": None}}
    got = result_of(run_module(b, "/js/lib/room.js", """
        const state = (me) => ({ ...args[0], checkin: { ...args[0].checkin, me } });
        const room = (me) => { const r = new m.DrawRoom('X'); r.apply(state(me)); return r; };
        const won = (me) => room(me).myWin()?.round ?? null;
        return [won({ id: 'LATE0059', name: 'Late', removed: null, wins: [1] }),
                won({ id: 'LOSER001', name: 'Lost', removed: null, wins: [] }),
                won({ id: 'ID000007', name: 'Listed', removed: null }),
                room(null).board()[0].total];
    """, snapshot))
    assert got == [1, None, 1, 60]
    assert b.errors(allow=("WebSocket connection to",)) == []


def test_a_live_reveal_after_a_long_history_rechecks_from_the_stored_record(server, browser):
    """The live `result` counts the pool's earlier winners (`removedCount`) once they pass 256,
    so a reveal costs its own winners; the page rechecks it from the export and says so."""
    code, key = create_draw(server, {"pool": {"kind": "list", "entrants": names(900)}, "perStop": 300})
    post(server, "/api/draws/%s/start" % code, key)
    post(server, "/api/draws/%s/stop" % code, key)
    phone = open_page(browser(390, 844), server.url("/watch/%s" % code))
    post(server, "/api/draws/%s/start" % code, key)
    result = post(server, "/api/draws/%s/stop" % code, key)["result"]
    assert len(result["winners"]) == 300
    assert "removed" not in result["pool"] and result["pool"]["removedCount"] == 300
    phone.wait_js("window.tombola.state.lastReveal && window.tombola.state.lastReveal.round === 2", 20)
    phone.wait_js("document.querySelector('[data-verified]').dataset.verify === 'ok'", 30)
    assert phone.errors() == []
