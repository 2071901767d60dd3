"""A whole event as a host runs it (issue 19): the host on a phone, the projector at
1920x1080, a viewer on a phone, against the real server. Prize tiers that fill, 1, 3, 10
and 50 winners a stop, a no-show void, new tiers, a server restart with every page open,
a Clear and a round of long names. At every step every page must show what the server's
REST state and export say: phase, round, prize, what is left, winners and "verified"."""

import json
import os
import shutil
import time
import urllib.request

import pytest
from selenium.webdriver.common.by import By

from conftest import Browser, Server
from test_axe import audit

TIERS = [{"name": "3rd prize", "count": 10}, {"name": "2nd prize", "count": 3}, {"name": "Grand prize", "count": 1}]
LONG = ["Wolfeschlegelsteinhausenbergerdorff Hubert", "Maximiliana Papadopoulou-Fitzgerald", "Nguyễn Thị Minh Khai Phương",
        "Александра Константиновна Преображенская", "Bartholomew Fitzgerald-O'Connor III", "Jean-Baptiste Emmanuel Zorg",
        "Siobhán Ní Dhuibhir-Ó Súilleabháin", "Krzysztof Brzęczyszczykiewicz"]
NAMES = LONG + ["陈静", "王伟", "李娜", "张伟", "Nguyễn Văn An", "Trần Thị Bình", "Иван Петров", "Ольга Смирнова"] + \
    ["Guest %02d" % i for i in range(1, 45)]
assert len(NAMES) == 60

# Everything a page shows that the check compares, read from the DOM (not the page's store).
PAGE = """
  const q = (s) => document.querySelector(s);
  const text = (s) => (q(s)?.textContent ?? '').trim();
  const visible = (n) => n && !n.closest('[hidden]') && n.getClientRects().length > 0;
  const st = window.tombola.state;
  const grid = Array.from(document.querySelectorAll('[data-winners] .winner-cell')).map((n) => n.dataset.winner);
  const list = Array.from(document.querySelectorAll('[data-winners] .winner:not(.is-voided)')).map((n) => n.dataset.winner);
  const stageList = Array.from(document.querySelectorAll('[data-stage-winners] .stage-winner')).map((n) => n.dataset.winner);
  const verified = q('[data-verified]');
  return {
    connection: st.connection, phase: st.phase, phaseText: text('[data-phase]'), round: text('[data-round]'),
    prize: text('[data-prize]'), remainingText: text('[data-remaining]'), remaining: st.remaining,
    value: visible(q('[data-value]')) ? text('[data-value]') : null, grid, list, stageList,
    many: visible(q('[data-round-winners]')) || visible(q('[data-stage-winners]')),
    verify: verified && !verified.hidden ? verified.dataset.verify : null,
    history: Array.from(document.querySelectorAll('[data-history] .history-round')).map((n) => Number(n.dataset.round)),
    bar: text('[data-bar-status]'), page: st.page ?? 0,
  };
"""

# The stage's notice and how the stage looks, on any page (host, phone, projector, overlay).
NOTICE = """
  const notice = document.querySelector('[data-stage-notice]');
  const stage = document.querySelector('[data-stage]');
  return { notice: notice && !notice.hidden ? notice.textContent : null, pill: document.querySelector('[data-phase]').textContent,
           dimmed: stage.classList.contains('is-paused') && parseFloat(getComputedStyle(stage.querySelector('.stage-box')).opacity) < 0.5 };
"""
RESUMED = "Round %d rolls on after a server restart: the same lock, the same winners"


def shot(b, name):
    """A screenshot into $TOMBOLA_SHOTS_DIR (docs/screenshots when refreshing them), else none."""
    out = os.environ.get("TOMBOLA_SHOTS_DIR")
    if out:
        b.save_screenshot(os.path.join(out, name))


PHASE_TEXT = {"idle": "Ready", "rolling": "Rolling", "stopping": "Stopping", "revealed": "Revealed"}


def get(server, path):
    with urllib.request.urlopen(server.url(path), timeout=10) as r:
        return json.load(r)


def put_config(server, config):
    req = urllib.request.Request(server.url("/api/draws/%s/config" % server.code), data=json.dumps(config).encode(),
                                 method="PUT", headers={"Authorization": "Bearer " + server.host_key,
                                                        "Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=10) as r:
        assert r.status == 200


def text_of(value):
    return str(value)


def round_winners(server, r):
    """A board round's winners: `state` lists a long round's first ones; the rest is paged (issue 18)."""
    if not r.get("more"):
        return r["winners"]
    winners = []
    while True:
        page = get(server, "/api/draws/%s/rounds/%d/winners?offset=%d&limit=7" % (server.code, r["round"], len(winners)))
        if not page["winners"]:
            break
        winners += page["winners"]
    assert len(winners) == r["winnerCount"]
    return winners


def expected_view(server):
    """What every page must show now, from GET /api/draws/<code>, the board's pages and the export."""
    state = get(server, "/api/draws/%s" % server.code)
    export = get(server, "/api/draws/%s/export.json" % server.code)
    records = export["records"]
    rounds = [dict(r, winners=round_winners(server, r)) for r in state["rounds"]]
    # A round a restart cut short, newer than the last reveal: every page shows that round's tier,
    # ready, not the previous round's winners (issue 39, item 11); the server still says `revealed`.
    cut = state.get("interrupted") and state["phase"] == "revealed" and state["interrupted"]["round"] > state["result"]["round"]
    revealed = state["phase"] == "revealed" and not cut
    view = {"phase": "idle" if cut else state["phase"], "remaining": state["remaining"], "rounds": [r["round"] for r in rounds]}
    if revealed:
        result = state["result"]
        # The stored record is the one announced: same hash, winners and prize in the export.
        stored = next(r for r in records if r.get("hash") == result["hash"])
        # (A long result is listed in `state` by its first winners and its count.)
        assert stored["winners"][:len(result["winners"])] == result["winners"] and stored["prize"] == result["prize"]
        assert len(stored["winners"]) == result.get("winnerCount", len(result["winners"]))
        shown = next(r for r in rounds if r["round"] == result["round"])
        view.update(round=result["round"], prize=result["prize"] or "", winners=[text_of(w) for w in shown["winners"]])
    else:
        plan = state["plan"]
        view.update(round=plan["round"], prize=plan["prize"] or "", winners=None)
    # The board is the export's rounds since the last Clear, voids applied.
    cleared = max([r["index"] for r in records if r["kind"] == "clear"], default=-1)
    board = {}
    for r in records:
        if r["index"] <= cleared:
            continue
        if r["kind"] == "round":
            board.setdefault(r["round"], [])
            board[r["round"]] += r["winners"]
        elif r["kind"] == "void":
            board[r["round"]].remove(r["winner"])
    assert {r["round"]: r["winners"] for r in rounds} == board
    # The projector keeps each winner's cell: a void's replacement takes the voided winner's place
    # (issue 39, item 7), where the board lists it after the others.
    placed = {}
    for r in records:
        if r["index"] <= cleared or r["kind"] != "round":
            continue
        spot = placed.setdefault(r["round"], [])
        gone = (r.get("replaces") or {}).get("winner")
        if gone is not None and gone in spot:
            spot[spot.index(gone)] = r["winners"][0]
        else:
            spot += r["winners"]
    if revealed:
        current = view["round"]
        view.update(placed=[text_of(w) for w in placed.get(current, []) if w in board.get(current, [])])
    return state, view


def check_page(b, kind, view, state):
    seen = b.js(PAGE)
    problems = []

    def expect(what, got, want):
        if got != want:
            problems.append("%s: %r, want %r" % (what, got, want))

    expect("phase", seen["phase"], view["phase"])
    expect("phase pill", seen["phaseText"], PHASE_TEXT[view["phase"]])
    expect("round", seen["round"], "Round %d" % view["round"])
    expect("prize", seen["prize"], view["prize"])
    expect("remaining (store)", seen["remaining"], view["remaining"])
    if kind == "host":
        expect("remaining", seen["remainingText"], "%s left in the pool" % format(view["remaining"], ","))
    if view["winners"] is not None:
        winners = view["winners"]
        expect("verified", seen["verify"], "ok")
        if kind == "screen":
            if len(winners) > 1:
                # Up to 12 a page, pages of even size (issue 39, item 7).
                per_page = -(-len(winners) // -(-len(winners) // 12))
                first = seen["page"] * per_page
                expect("grid", seen["grid"], view["placed"][first:first + per_page])
            else:
                expect("value", seen["value"], winners[0])
            # Earlier rounds: the board's other rounds, newest first (up to 8).
            expect("history", seen["history"], sorted(view["rounds"], reverse=True)[1:9])
        else:
            # The lists show a round's first 20 winners, then "Show more".
            expect("winners", seen["list"], winners[:20])
            if len(winners) > 1:
                expect("stage winners", seen["stageList"], winners[:12])
                expect("single value hidden", seen["value"], None)
            else:
                expect("value", seen["value"], winners[0])
            expect("history", seen["history"], sorted(view["rounds"], reverse=True)[1:])
    return problems


def check_all(pages, server, timeout=15):
    """Waits until every page shows what the server says (with a deadline), then returns the state."""
    deadline = time.time() + timeout
    while True:
        state, view = expected_view(server)
        problems = {kind: check_page(b, kind, view, state) for kind, b in pages.items()}
        if not any(problems.values()):
            return state, view
        if time.time() > deadline:
            pytest.fail("pages disagree with the server:\n%s\nserver: %s" % (json.dumps(problems, indent=1, ensure_ascii=False),
                                                                            json.dumps(view, ensure_ascii=False)))
        time.sleep(0.1)


def press(host):
    host.find_element(By.CSS_SELECTOR, "[data-startstop]").click()


def start(host, pages, server):
    """Start, and check every page announces the armed round while rolling."""
    before = get(server, "/api/draws/%s" % server.code)
    plan = before["plan"]
    press(host)
    for b in pages.values():
        b.wait_js("window.tombola.state.phase === 'rolling'", 10)
    state, view = check_all(pages, server)
    assert state["phase"] == "rolling"
    assert (view["round"], view["prize"]) == (plan["round"], plan["prize"] or ""), "Start changed the plan"
    return plan


def stop(host, pages, server, plan):
    before = host.js("return window.tombola.state.revealCount")
    press(host)
    for b in pages.values():
        b.wait_js("window.tombola.state.phase === 'revealed' && window.tombola.state.revealCount > %d" % before
                  if b is host else "window.tombola.state.phase === 'revealed'", 15)
    state, view = check_all(pages, server)
    result = state["result"]
    assert result["round"] == plan["round"] and (result["prize"] or "") == (plan["prize"] or "")
    assert result.get("winnerCount", len(result["winners"])) == plan["count"], "the plan said %d winners" % plan["count"]
    return state


def plan_of(server):
    return get(server, "/api/draws/%s" % server.code)["plan"]


def tap(b, selector):
    """Scrolls a control to the middle of the phone's screen (clear of the Start/Stop bar) and taps it."""
    node = b.find_element(By.CSS_SELECTOR, selector)
    b.js("arguments[0].scrollIntoView({ block: 'center' })", node)
    node.click()
    return node


def bar_text(host):
    return host.find_element(By.CSS_SELECTOR, "[data-bar-status]").text


def font_size(b, selector):
    return b.js("const n = document.querySelector(arguments[0]); return parseFloat(getComputedStyle(n).fontSize);", selector)


@pytest.fixture
def event():
    server = Server()
    made = []

    def open_page(kind, width, height, path):
        b = Browser(width, height)
        made.append(b)
        b.get(server.url(path))
        b.wait_js("window.tombola && window.tombola.state.snapshotReceived && window.tombola.state.connection === 'online'", 15)
        return b

    host = open_page("host", 390, 844, "/draw/%s#key=%s" % (server.code, server.host_key))
    host.wait_js("window.tombola.state.role === 'host'")
    screen = open_page("screen", 1920, 1080, "/screen/%s" % server.code)
    viewer = open_page("viewer", 390, 844, "/watch/%s" % server.code)
    yield server, {"host": host, "screen": screen, "viewer": viewer}
    for b in made:
        b.quit()
    server.stop()
    shutil.rmtree(server.data_dir, ignore_errors=True)


def test_a_whole_event_shows_the_servers_truth_on_every_page_at_every_step(event):
    server, pages = event
    host, screen, viewer = pages["host"], pages["screen"], pages["viewer"]
    check_all(pages, server)

    # Tiers 3rd ×10, 2nd ×3, Grand ×1 on 1–500, set on the host's phone (issue 34: the tier
    # form fits 390 px). Round 1: one winner.
    default = get(server, "/api/draws/%s/config" % server.code)
    assert (default["pool"], default["perStop"], default["prizes"]) == ({"kind": "range", "from": 1, "to": 500}, 1, [])
    host.js("document.querySelector('[data-settings-panel]').open = true")
    for _ in TIERS:
        tap(host, "[data-add-prize]")
    for row, tier in zip(host.find_elements(By.CSS_SELECTOR, ".prize-row"), TIERS):
        row.find_element(By.CSS_SELECTOR, "[data-prize-name]").send_keys(tier["name"])
        counter = row.find_element(By.CSS_SELECTOR, "[data-prize-count]")
        counter.clear()
        counter.send_keys(str(tier["count"]))
    assert prize_form_problems(host, 120)[1] == []
    shot(host, "host-tiers-390x844-en.png")
    host.js("document.querySelector('[data-save]').click()")
    host.wait(lambda: get(server, "/api/draws/%s" % server.code)["config"]["prizes"] == TIERS, 10)
    host.js("document.querySelector('[data-settings-panel]').open = false")
    check_all(pages, server)
    host.wait(lambda: bar_text(host) == "Round 1 · 3rd prize: this stop draws 1 winner", 10)
    plan = start(host, pages, server)
    # The rolling numbers and the revealed one share one size: no jump at the reveal.
    screen.wait_js("window.tombola.state.tick !== null")
    rolling = {(font_size(screen, "[data-value]"), font_size(viewer, "[data-value]")) for _ in range(5)
               if not time.sleep(0.15)}
    stop(host, pages, server, plan)
    revealed = (font_size(screen, "[data-value]"), font_size(viewer, "[data-value]"))
    assert rolling == {revealed}, "the number changes size at the reveal: %s → %s" % (rolling, revealed)

    # Round 2: three winners, all of them large on the host's and viewer's stage.
    put_config(server, {"pool": {"kind": "range", "from": 1, "to": 500}, "perStop": 3, "prizes": TIERS})
    check_all(pages, server)
    stop(host, pages, server, start(host, pages, server))
    for b in (host, viewer):
        sizes = b.js("return Array.from(document.querySelectorAll('[data-stage-winners] .stage-winner'))"
                     ".map((n) => parseFloat(getComputedStyle(n).fontSize))")
        assert len(sizes) == 3 and min(sizes) >= 40, sizes

    # Round 3: ten asked, six left of "3rd prize": the host reads that before Start.
    put_config(server, {"pool": {"kind": "range", "from": 1, "to": 500}, "perStop": 10, "prizes": TIERS})
    _, view = check_all(pages, server)
    assert plan_of(server) == {"round": 3, "prize": "3rd prize", "prizeIndex": 0, "count": 6, "perStop": 10,
                               "cut": "prize", "prizeLeft": 6}
    host.wait(lambda: bar_text(host) == "Round 3 · 3rd prize: this stop draws 6 winners"
              " (you asked for 10; only 6 left of 3rd prize)", 10)
    stop(host, pages, server, start(host, pages, server))

    # Round 4: "3rd prize" is full, so from the moment it is armed every page says "2nd prize".
    state, view = check_all(pages, server)
    assert state["plan"]["prize"] == "2nd prize" and state["plan"]["count"] == 3
    assert state["remaining"] == 490
    host.wait(lambda: bar_text(host).startswith("Round 4 · 2nd prize: this stop draws 3 winners"), 10)
    plan = start(host, pages, server)
    for b in pages.values():
        assert b.find_element(By.CSS_SELECTOR, "[data-prize]").text == "2nd prize"
    state = stop(host, pages, server, plan)
    assert state["remaining"] == 487

    # A no-show in round 4: voided with its reason, a replacement drawn, one fewer left.
    no_show = state["result"]["winners"][1]
    tap(host, '[data-winners] .winner[data-winner="%s"] .winner-void' % no_show)
    host.find_element(By.CSS_SELECTOR, "[data-void-reason]").send_keys("not in the room")
    assert "shown on the projector and on every phone" in host.find_element(By.CSS_SELECTOR, "[data-void-dialog]").text
    shot(host, "host-void-390x844-en.png")
    host.find_element(By.CSS_SELECTOR, "[data-void-confirm]").click()
    host.wait_js("window.tombola.state.lastReveal && window.tombola.state.lastReveal.replaces !== null", 15)
    state, view = check_all(pages, server)
    assert state["remaining"] == 486 and len(view["winners"]) == 3 and str(no_show) not in view["winners"]
    screen.wait_js("document.querySelector('[data-voided-line]').textContent.includes('not in the room')")

    # Round 5, the grand prize: the server goes down while it rolls (issue 34). Offline, every
    # page (the OBS overlay too) dims its stage and says it is paused, and "Rolling" goes out;
    # after the restart the round rolls on, on the lock its Start stored (no re-roll by crash,
    # issue #40): every page and the server log say so, and its Stop draws on that commitment.
    overlay = Browser(1920, 1080)
    try:
        overlay.get(server.url("/screen/%s?overlay" % server.code))
        overlay.wait_js("window.tombola && window.tombola.state.connection === 'online'", 15)
        every = dict(pages, overlay=overlay)
        plan = start(host, pages, server)
        assert (plan["round"], plan["prize"]) == (5, "Grand prize")
        commitment = get(server, "/api/draws/%s" % server.code)["commit"]["commitment"]
        screen.wait_js("window.tombola.state.tick !== null")
        server.stop()
        for kind, b in every.items():
            b.wait_js("window.tombola.state.connection === 'offline'", 15)
            b.wait(lambda: b.js(NOTICE) == {"notice": "Paused – reconnecting", "pill": "Paused", "dimmed": True}, 5,
                   "%s: not paused: %s" % (kind, b.js(NOTICE)))
        shot(screen, "screen-paused-1920x1080-en.png")
        shot(host, "host-paused-390x844-en.png")
        server.start()
        for kind, b in every.items():
            b.wait_js("window.tombola.state.connection === 'online'", 30)
            b.wait(lambda: b.js(NOTICE)["notice"] == RESUMED % 5, 10, "%s: %s" % (kind, b.js(NOTICE)))
            assert not b.js(NOTICE)["dimmed"], kind
        state, _ = check_all(pages, server)
        assert state["resumed"] == {"round": 5} and state["interrupted"] is None and state["phase"] == "rolling"
        assert state["commit"]["commitment"] == commitment
        assert (state["plan"]["round"], state["plan"]["prize"]) == (5, "Grand prize")
        with open(os.path.join(server.data_dir, "server.log"), encoding="utf-8") as log:
            assert "round 5 was rolling when the server stopped; it rolls on" in log.read()
        shot(screen, "screen-resumed-1920x1080-en.png")
        shot(overlay, "screen-overlay-resumed-1920x1080-en.png")
        shot(viewer, "watch-resumed-390x844-en.png")
        # The notice is axe-clean in both languages, on the phones and the projector.
        found = {}
        for lang in ("zh", "en"):
            for kind in ("screen", "viewer"):
                b = pages[kind]
                b.js("const s = document.querySelector('[data-lang-switch]'); s.value = arguments[0];"
                     "s.dispatchEvent(new Event('change', { bubbles: true }));", lang)
                if lang == "zh":
                    b.wait(lambda: b.js(NOTICE)["notice"] == "服务器重启后第 5 轮继续滚动：锁定不变，中奖者不变", 5)
                audit(b, "%s resumed (%s)" % (kind, lang), found)
        assert not found, found
        assert overlay.errors(allow=("WebSocket connection to", "net::ERR_CONNECTION_REFUSED", "Failed to load resource")) == []
    finally:
        overlay.quit()
    # Round 5's Stop draws on the commitment shown before the restart: the notice is gone everywhere.
    state = stop(host, pages, server, plan)
    assert state["result"]["commitment"] == commitment
    for b in pages.values():
        assert b.js(NOTICE)["notice"] is None
    assert get(server, "/api/draws/%s" % server.code)["interrupted"] is None
    state, _ = check_all(pages, server)
    assert state["prizesDone"] and state["plan"]["count"] == 0
    host.wait(lambda: bar_text(host) == "All prizes are drawn. Add prizes to go on.", 10)

    # New names and a new single tier: it starts fresh (it does not inherit "3rd prize"'s 10).
    # Saved from the host's own form; the confirmation sits in the bar and covers nothing.
    host.js("document.querySelector('[data-settings-panel]').open = true")
    tap(host, '[data-pool-kind][value="list"]')
    host.js("const t = document.querySelector('[data-entrants]'); t.value = arguments[0];"
            "t.dispatchEvent(new Event('input', { bubbles: true }));", "\n".join(NAMES))
    host.js("const p = document.querySelector('[data-perstop]'); p.value = '10'; p.dispatchEvent(new Event('input', { bubbles: true }));")
    for row in host.find_elements(By.CSS_SELECTOR, "[data-remove-prize]")[::-1]:
        host.js("arguments[0].click()", row)
    tap(host, "[data-add-prize]")
    host.find_element(By.CSS_SELECTOR, "[data-prize-name]").send_keys("Raffle")
    host.js("const c = document.querySelector('[data-prize-count]'); c.value = '60';")
    host.js("document.querySelector('[data-save]').click()")
    host.wait(lambda: bar_text(host).startswith("Settings saved · Round 6 · Raffle: this stop draws 10 winners"), 10)
    assert not host.find_element(By.CSS_SELECTOR, "[data-toast]").is_displayed()
    state, _ = check_all(pages, server)
    assert state["config"]["prizes"] == [{"name": "Raffle", "count": 60}] and state["remaining"] == 60
    stop(host, pages, server, start(host, pages, server))

    # Round 7: fifty winners (all that is left), paged on the projector.
    # The full settings (the state carries only their summary since issue 18).
    put_config(server, dict(get(server, "/api/draws/%s/config" % server.code), perStop=50))
    assert plan_of(server)["count"] == 50
    state = stop(host, pages, server, start(host, pages, server))
    assert state["remaining"] == 0 and state["exhausted"]
    # 50 names: five pages of ten (up to 12 names a page, pages balanced: issue 39, item 7).
    screen.wait_js("/^Page [1-5] of 5$/.test(document.querySelector('[data-pager]').textContent)")
    # The projector's "Earlier rounds" shows at least five of the six earlier rounds, whole.
    whole = screen.js("""
      const box = document.querySelector('.side-history').getBoundingClientRect();
      const fade = innerHeight * 0.03;
      return Array.from(document.querySelectorAll('.side-history .history-round'))
        .filter((n) => n.getBoundingClientRect().bottom <= box.bottom - fade).length;""")
    assert whole >= 5, "only %d earlier rounds readable on the projector" % whole

    # The server stops and comes back with every page open: offline, the projector's banner
    # covers neither the phase and round nor a winner; then every page shows what it showed.
    shown_before = {kind: b.js(PAGE) for kind, b in pages.items()}
    server.stop()
    screen.wait_js("window.tombola.state.connection === 'offline'", 15)
    covered = screen.js("""
      const banner = document.querySelector('[data-offline-banner]').getBoundingClientRect();
      const overlaps = (n) => { const r = n.getBoundingClientRect();
        return !(r.right <= banner.left || banner.right <= r.left || r.bottom <= banner.top || banner.bottom <= r.top); };
      return Array.from(document.querySelectorAll('.stage-head, .winner-cell, [data-pager]')).filter(overlaps).map((n) => n.className);""")
    assert screen.find_element(By.CSS_SELECTOR, "[data-offline-banner]").is_displayed() and covered == []
    assert screen.js("return document.querySelectorAll('.winner-cell').length") == 10, "offline, the winners stay"
    server.start()
    for b in pages.values():
        b.wait_js("window.tombola.state.connection === 'online'", 30)
    state, view = check_all(pages, server, timeout=20)
    assert state["phase"] == "revealed" and state["result"]["round"] == 7
    for kind, b in pages.items():
        after = b.js(PAGE)
        # (The projector turns its pages of winners by itself; check_all compared its page above.)
        for field in ("phase", "phaseText", "round", "prize", "remaining", "list", "stageList", "verify", "history"):
            assert after[field] == shown_before[kind][field], "%s changed %s over the restart" % (kind, field)

    # Clear: the board empties, everyone can win again, the next round says what it draws.
    tap(host, "[data-clear]")
    host.find_element(By.CSS_SELECTOR, "[data-clear-confirm]").click()
    for b in pages.values():
        b.wait_js("window.tombola.state.rounds.length === 0 && window.tombola.state.phase === 'idle'", 10)
    state, _ = check_all(pages, server)
    assert state["remaining"] == 60 and state["plan"] == {"round": 8, "prize": "Raffle", "prizeIndex": 0, "count": 50,
                                                          "perStop": 50, "cut": None, "prizeLeft": 60}

    # A round of long names: each is wrapped onto two lines rather than shrunk beside the others.
    put_config(server, {"pool": {"kind": "list", "entrants": LONG}, "perStop": 8})
    check_all(pages, server)
    stop(host, pages, server, start(host, pages, server))
    time.sleep(1.0)  # the reveal animation scales the cells
    sizes = screen.js("return Array.from(document.querySelectorAll('[data-winners] .winner-value'))"
                      ".map((n) => [n.textContent, parseFloat(getComputedStyle(n).fontSize)])")
    assert len(sizes) == 8
    largest = max(s for _, s in sizes)
    small = [(name, s) for name, s in sizes if s < largest * 0.5]
    assert small == [], "shrunk instead of wrapped (largest %.0f px): %s" % (largest, small)
    check_all(pages, server)

    for kind, b in pages.items():
        expected_offline = ("WebSocket connection to", "net::ERR_CONNECTION_REFUSED", "Failed to load resource")
        assert b.errors(allow=expected_offline) == [], kind


def test_host_page_tab_order_starts_with_start_and_ends_with_clear(server, browser):
    from selenium.webdriver.common.keys import Keys
    host = browser(390, 844)
    host.get(server.host_url("draw"))
    host.wait_js("window.tombola && window.tombola.state.role === 'host'", 15)
    host.find_element(By.TAG_NAME, "body").send_keys(Keys.TAB)
    order = []
    for _ in range(80):
        hook = host.js("const a = document.activeElement; return a === document.body ? null :"
                       " (a.matches('[data-startstop]') ? 'start' : a.matches('[data-clear]') ? 'clear' : a.tagName);")
        if order and hook == order[0]:
            break
        order.append(hook)
        host.switch_to.active_element.send_keys(Keys.TAB)
    stops = [h for h in order if h]
    assert stops[0] == "start", stops[:5]
    assert stops[-1] == "clear", stops[-5:]


# Each prize row's labels, inputs and remove button, as boxes (issue 34: the tier form on a phone).
PRIZE_FORM = """
  const rows = Array.from(document.querySelectorAll('.prize-row')).map((row) =>
    Array.from(row.querySelectorAll('.field > span, input, [data-remove-prize]')).map((n) => {
      const r = n.getBoundingClientRect();
      const what = n.matches('[data-remove-prize]') ? 'remove' : n.tagName === 'SPAN' ? n.textContent
        : Object.keys(n.dataset)[0];
      return { what, l: r.left, r: r.right, t: r.top, b: r.bottom, w: r.width, cut: n.tagName === 'SPAN' && n.scrollWidth > n.clientWidth + 1 };
    }));
  return { rows, sideways: document.documentElement.scrollWidth > innerWidth };
"""


def prize_form_problems(b, min_text):
    seen = b.js(PRIZE_FORM)
    problems = ["the page scrolls sideways"] if seen["sideways"] else []
    for row in seen["rows"]:
        for i, a in enumerate(row):
            if a["cut"]:
                problems.append("label cut: %s" % a["what"])
            if a["what"] in ("prizeName", "prizeOnly", "prizeExcept") and a["w"] < min_text:
                problems.append("%s is %.0f px wide" % (a["what"], a["w"]))
            if a["what"] == "prizeCount" and a["w"] < 56:
                problems.append("the count is %.0f px wide" % a["w"])
            for c in row[i + 1:]:
                if min(a["r"], c["r"]) - max(a["l"], c["l"]) > 1 and min(a["b"], c["b"]) - max(a["t"], c["t"]) > 1:
                    problems.append("%s overlaps %s" % (a["what"], c["what"]))
    return seen["rows"], problems


@pytest.mark.parametrize("lang", ["en-US", "zh-CN"])
def test_prize_tiers_are_set_on_a_phone_and_on_a_laptop_without_overlaps(server, browser, lang):
    host = browser(390, 844, lang)
    host.get(server.host_url("draw"))
    host.wait_js("window.tombola && window.tombola.state.role === 'host'", 15)
    host.js("document.querySelector('[data-settings-panel]').open = true")
    for _ in range(3):
        tap(host, "[data-add-prize]")
    for row, (name, count, only) in zip(host.find_elements(By.CSS_SELECTOR, ".prize-row"),
                                        (("3rd prize", 10, "guests"), ("2nd prize", 3, ""), ("Grand prize", 1, ""))):
        row.find_element(By.CSS_SELECTOR, "[data-prize-name]").send_keys(name)
        counter = row.find_element(By.CSS_SELECTOR, "[data-prize-count]")
        counter.clear()
        counter.send_keys(str(count))
        row.find_element(By.CSS_SELECTOR, "[data-prize-only]").send_keys(only)
    rows, problems = prize_form_problems(host, 120)
    assert len(rows) == 3 and problems == [], problems
    short = lang[:2]
    host.js("document.querySelector('.prize-rows').scrollIntoView({ block: 'center' })")
    shot(host, "host-prizes-390x844-%s.png" % short)
    host.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": 1280, "height": 800, "deviceScaleFactor": 1, "mobile": False})
    host.wait(lambda: host.js("return innerWidth") == 1280)
    rows, problems = prize_form_problems(host, 160)
    assert problems == [], problems
    host.js("document.querySelector('.prize-rows').scrollIntoView({ block: 'center' })")
    shot(host, "host-prizes-1280x800-%s.png" % short)
    assert host.errors() == []


FIT_NAMES = LONG + ["Hương", "Nguyễn Thị Thu Hương", "O'Connor", "Bartholomew O'Connor", "Joseph Hall", "Jo",
                    "陈静", "欧阳娜娜", "司马相如", "Ngô Bảo Châu", "Quyền Linh"]

# Each name of arguments[0] shown on the stage as a tick (the server's own ticks held back
# meanwhile), measured after layout: its text boxes against the stage box, its lines, the words
# split over two lines, its size. With no names, the name on show now.
MEASURE_NAMES = """
  const [names, done] = [arguments[0], arguments[arguments.length - 1]];
  const st = window.tombola.state;
  const value = document.querySelector('[data-value]');
  const frames = () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => requestAnimationFrame(r))));
  const measure = () => {
    const name = value.textContent;
    const box = document.querySelector('[data-stage-box]').getBoundingClientRect();
    const range = document.createRange();
    range.selectNodeContents(value);
    const rects = Array.from(range.getClientRects());
    const outside = rects.filter((r) => r.left < box.left - 0.5 || r.right > box.right + 0.5 || r.top < box.top - 0.5 || r.bottom > box.bottom + 0.5)
      .map((r) => [r.left, r.top, r.right, r.bottom]);
    const split = [];
    let at = 0;
    for (const word of name.split(' ')) {
      const i = name.indexOf(word, at);
      const r = document.createRange();
      r.setStart(value.firstChild, i);
      r.setEnd(value.firstChild, i + word.length);
      if (new Set(Array.from(r.getClientRects()).map((x) => Math.round(x.top))).size > 1) split.push(word);
      at = i + word.length;
    }
    return { name, size: parseFloat(getComputedStyle(value).fontSize), outside, box: [box.left, box.top, box.right, box.bottom],
             lines: new Set(rects.map((r) => Math.round(r.top))).size, split };
  };
  (async () => {
    if (!names.length) { await frames(); return done([measure()]); }
    st.apply = () => {};
    const out = [];
    for (const name of names) {
      st.tick = { value: name, seq: 0 };
      st.changed('tick');
      await frames();
      out.push(measure());
    }
    delete st.apply;
    done(out);
  })();
"""


def post(server, path):
    req = urllib.request.Request(server.url("/api/draws/%s/%s" % (server.code, path)), data=b"{}", method="POST",
                                 headers={"Authorization": "Bearer " + server.host_key, "Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=10) as r:
        assert r.status == 200


def badly_fitted(seen, names=None):
    bad = [s for s in seen if s["outside"] or s["split"] or s["lines"] > 2]
    if names is not None:
        assert [s["name"] for s in seen] == names
    return bad


def test_names_on_the_projector_fit_whole_at_one_size_through_a_roll(server, browser):
    put_config(server, {"pool": {"kind": "list", "entrants": FIT_NAMES}, "perStop": 1})
    pages = {}
    for kind, path in (("screen", "/screen/%s"), ("overlay", "/screen/%s?overlay=lower-third")):
        b = browser(1920, 1080)
        b.get(server.url(path % server.code))
        # The projector reads the pool's names to size them all alike.
        b.wait_js("window.tombola && window.tombola.state.connection === 'online' && window.tombola.state.fullSettings()"
                  " && window.tombola.state.fullSettings().pool.entrants.length === %d" % len(FIT_NAMES), 15)
        pages[kind] = b
    # The lower-third overlay keeps the stage in the bottom third of the frame, over the video.
    top = pages["overlay"].js("return document.querySelector('[data-stage]').getBoundingClientRect().top / innerHeight")
    assert top > 0.6, "the lower-third stage starts at %.0f%% of the frame" % (top * 100)
    post(server, "start")
    for kind, b in pages.items():
        b.wait_js("window.tombola.state.phase === 'rolling' && window.tombola.state.tick !== null", 10)
        b.set_script_timeout(60)
        seen = b.execute_async_script(MEASURE_NAMES, FIT_NAMES)
        assert badly_fitted(seen, FIT_NAMES) == [], kind
        sizes = {s["size"] for s in seen}
        assert len(sizes) == 1, "%s: the size changes through the roll: %s" % (kind, sorted(sizes))
        assert min(sizes) >= 56, "%s: names shown at %s px" % (kind, sizes)
        # A short name may take one line; the longest take two, never more.
        assert max(s["lines"] for s in seen) == 2 and any(s["lines"] == 1 for s in seen)
    shot(pages["screen"], "screen-rolling-names-1920x1080-en.png")
    post(server, "stop")
    for kind, b in pages.items():
        b.wait_js("window.tombola.state.phase === 'revealed'", 15)
        # The reveal animation scales the stage (0.9 s): measure once it and every other has
        # ended (a fixed sleep measured mid-animation on a loaded machine).
        time.sleep(0.2)
        b.wait_js("document.getAnimations().every((a) => a.playState !== 'running')", 15)
        seen = b.execute_async_script(MEASURE_NAMES, [])
        assert seen[0]["name"] in FIT_NAMES and badly_fitted(seen) == [], (kind, seen)
        assert b.errors() == [], kind
    shot(pages["overlay"], "screen-overlay-lower-third-1920x1080-en.png")


def test_a_new_check_in_draw_before_anyone_entered_and_the_projectors_controls(server, browser):
    """Issue 34: the host reads "Nobody has entered yet" (not "Everyone in the pool has won"), a
    name longer than 60 characters is refused with that limit instead of being cut, and the
    projector's Full screen button is in sight before the mouse moves."""
    from test_checkin import click, create_draw, open_room
    code, key = create_draw(server)
    host = open_room(browser(390, 844), server.url("/draw/%s#key=%s" % (code, key)))
    host.wait_js("window.tombola.state.role === 'host'")
    host.js("document.querySelector('[data-settings-panel]').open = true")
    click(host, "[data-pool-kind][value='checkin']")
    click(host, "[data-save]")
    host.wait(lambda: bar_text(host) == "Nobody has entered yet. Open entries so phones can join.", 10, "bar: %s" % bar_text(host))
    req = urllib.request.Request(server.url("/api/draws/%s/entries/open" % code), data=b"{}", method="POST",
                                 headers={"Authorization": "Bearer " + key, "Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=10) as r:
        assert r.status == 200
    phone = open_room(browser(390, 844), server.url("/watch/%s" % code))
    phone.wait_js("!document.querySelector('[data-join-form]').closest('[hidden]')", 10)
    assert phone.find_element(By.CSS_SELECTOR, "#join-name-limit").text == "Up to 60 characters; a longer name is refused, never cut."
    long_name = "Maximiliana Wolfeschlegelsteinhausenbergerdorff Papadopoulou-Fitz"
    assert len(long_name) > 60
    phone.find_element(By.CSS_SELECTOR, "[data-join-name]").send_keys(long_name)
    click(phone, "[data-join-submit]")
    phone.wait(lambda: phone.find_element(By.CSS_SELECTOR, "[data-join-error]").text == "Enter your name (up to 60 characters)", 10)
    assert phone.js("return document.querySelector('[data-join-name]').value") == long_name
    assert get(server, "/api/draws/%s" % code)["checkin"]["count"] == 0
    screen = open_room(browser(1920, 1080), server.url("/screen/%s" % code))
    time.sleep(0.5)  # past the controls' fade
    assert screen.js("return ['[data-fullscreen]', '[data-theme]'].map((s) => getComputedStyle(document.querySelector(s)).opacity)") == ["1", "0"]
    for b in (host, phone, screen):
        assert b.errors() == []
