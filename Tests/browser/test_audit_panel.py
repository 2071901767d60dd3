"""The host page's audit log panel (issue #41): the entries `GET /api/draws/<code>/audit` returns,
newest first, each visible with its time, who and what (translated), following the log as the
host acts; in Chinese with no English word."""
import json
import urllib.request

from selenium.common.exceptions import TimeoutException
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from test_draw import create_draw, open_page
from visible import english_words, seen

EN = {"create": "Draw created", "start": "Start", "stop": "Stop", "clear": "Board cleared"}
ZH = {"create": "创建抽奖", "start": "开始", "stop": "停止", "clear": "清空看板"}
# A host command names who gave it (issue #41): here always the owner's key.
ACTORS = {"en": {"host": "Owner", "admin": "Admin", "system": "System"}, "zh": {"host": "所有者", "admin": "管理员", "system": "系统"}}


def api(server, code, key, method, path):
    request = urllib.request.Request(server.url("/api/draws/%s/%s" % (code, path)), data=b"{}" if method == "POST" else None,
                                     method=method, headers={"Authorization": "Bearer " + key, "Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.load(response)


def expected_lines(entries, actions, actors, round_text):
    """What each entry should read as, newest first: actor and action (with its round)."""
    out = []
    for entry in reversed(entries):
        action = actions[entry["action"]]
        if entry["detail"].get("round"):
            action += " · " + round_text % entry["detail"]["round"]
        out.append((actors[entry["actor"]], action))
    return out


def visible_lines(page):
    """The panel's entries as a person sees them: (actor, action) of each visible line, top down."""
    pieces = seen(page, "[data-audit-list]")
    texts = [p["text"] for p in sorted(pieces, key=lambda p: (p["mid"], p["left"]))]
    return [(texts[i + 1], texts[i + 2]) for i in range(0, len(texts), 3)], texts


def wait_lines(page, want, timeout=10):
    page.js("document.querySelector('[data-audit-list]').scrollIntoView({block: 'center'})")
    try:
        page.wait(lambda: visible_lines(page)[0] == want, timeout)
    except TimeoutException:
        raise AssertionError("panel shows %s, want %s" % (visible_lines(page)[1], want)) from None


def test_the_audit_panel_shows_the_log_newest_first_and_follows_it_in_both_languages(server, browser):
    code, key = create_draw(server, {"pool": {"kind": "range", "from": 1, "to": 50}})
    api(server, code, key, "POST", "start")
    api(server, code, key, "POST", "stop")
    page = open_page(browser(390, 844), server.url("/draw/%s#key=%s" % (code, key)))
    page.wait_js("window.tombola.state.role === 'host'")
    summary = page.find_element(By.CSS_SELECTOR, "[data-audit-panel] summary")
    page.js("arguments[0].scrollIntoView({block: 'center'})", summary)
    summary.click()
    entries = api(server, code, key, "GET", "audit")["entries"]
    assert [e["action"] for e in entries] == ["create", "start", "stop"]
    wait_lines(page, expected_lines(entries, EN, ACTORS["en"], "round %d"))
    # Each line starts with the entry's time, as a clock time.
    times = visible_lines(page)[1][0::3]
    assert len(times) == 3 and all(":" in t for t in times), times

    # The host clears the board (through the API): the open panel follows.
    api(server, code, key, "POST", "clear")
    entries = api(server, code, key, "GET", "audit")["entries"]
    wait_lines(page, expected_lines(entries, EN, ACTORS["en"], "round %d"))

    # In Chinese: the same entries in Chinese words, no English word in the panel or its heading.
    Select(page.find_element(By.CSS_SELECTOR, "[data-lang-switch]")).select_by_value("zh")
    wait_lines(page, expected_lines(entries, ZH, ACTORS["zh"], "第 %d 轮"))
    panel = [p["text"] for p in seen(page, "[data-audit-panel]")]
    assert "审计日志" in panel and "此抽奖的每项操作，最新的在前；每条记录都链接到前一条。" in panel, panel
    assert [w for w in english_words(page) if w[0] in " ".join(panel)] == []
