"""The reverse raffle (issue 45, docs/FAIRNESS.md §21) in Chromium against the real server: each
Stop draws the next batch *out*; the last one in wins. The projector (1920x1080, English) shows a
board of everyone still in, 5,000 tickets legible at once, the batch just drawn out struck through;
a phone (390x844, Chinese) says whether the guest's own ticket is still in. What is read is what a
person sees (visible.py: painted at full opacity, inside the viewport, on top), compared with the
REST results: still in = the round's eligible pool less its winners. Both verifiers pass both
exports (a range and a list), and so does the pages' own recheck."""

import csv
import io
import json
import os
import pathlib
import re
import subprocess
import sys
import urllib.request

from test_draw import create_draw, open_page
from test_stage_modes import api
from visible import english_words, seen

TIMEOUT = 30
ROOT = pathlib.Path(__file__).resolve().parents[2]
NAMES = ["Guest %02d" % i for i in range(1, 31)] + ["李雷", "韩梅梅", "王芳", "Zoë", "Nguyễn Văn An", "Ana Lima", "陈静"]

# The cells drawn out by the latest round: struck through and faded (what makes them read as out).
STRUCK = """
  return Array.from(document.querySelectorAll('[data-reverse-grid] > li')).filter((li) => {
    const cs = getComputedStyle(li);
    return cs.textDecorationLine.includes('line-through') && parseFloat(cs.opacity) < 0.6;
  }).map((li) => li.textContent);
"""


def stored(server, code, result):
    """The round's stored record (a long history's result carries only `removedCount`)."""
    with urllib.request.urlopen(server.url("/api/draws/%s/export.json" % code), timeout=30) as r:
        return next(x for x in json.load(r)["records"] if x["hash"] == result["hash"])


def still_in(result):
    """The record's answer: the round's eligible set (its pool less `removed`) less its winners."""
    pool, out = result["pool"], set(result["winners"])
    if pool["kind"] == "range":
        removed = set(pool["removed"])
        eligible = [v for v in range(pool["from"], pool["to"] + 1) if v not in removed]
    else:
        removed = set(pool["removed"])
        eligible = [name for i, name in enumerate(NAMES) if i not in removed]
    return [v for v in eligible if v not in out]


def board(page):
    """The board as seen: (the count and round lines, the texts of the cells shown at full opacity, their sizes)."""
    head = [p["text"] for p in seen(page, "[data-reverse-board] .reverse-head")]
    cells = seen(page, "[data-reverse-grid]")
    return head, [p["text"] for p in cells], [p["size"] for p in cells]


def wait_board(page, head, cells):
    def ready():
        got = board(page)
        return got if got[0] == head and sorted(got[1]) == sorted(cells) else None
    try:
        return page.wait(ready, TIMEOUT)
    except Exception:
        got = board(page)
        raise AssertionError("the board shows %s and %d cells (%s…), not %s and %d cells"
                             % (got[0], len(got[1]), got[1][:5], head, len(cells))) from None


def draw_round(server, code, key, screen):
    api(server, "/api/draws/%s/start" % code, key)
    result = stored(server, code, api(server, "/api/draws/%s/stop" % code, key)["result"])
    # The next Start waits for the reveal (the slow-down), as a host's would.
    screen.wait(lambda: screen.js("return window.tombola.state.phase === 'revealed' && window.tombola.state.lastReveal?.round === arguments[0]",
                                  result["round"]) or None, TIMEOUT)
    return result


def verify_both(server, code, name, page):
    """tombola verify, the FAIRNESS §12 script and the pages' own recheck (verifyExport) pass the export."""
    with urllib.request.urlopen(server.url("/api/draws/%s/export.json" % code), timeout=30) as r:
        export = json.load(r)
    check = "return import('/js/lib/verify.js').then((m) => m.verifyExport(arguments[0]).filter((o) => !o.ok).map((o) => o.reason));"
    assert page.js(check, export) == []
    path = os.path.join(server.data_dir, name)
    with open(path, "w", encoding="utf-8") as f:
        json.dump(export, f, ensure_ascii=False)
    verified = subprocess.run([os.environ.get("TOMBOLA_BIN", "tombola"), "verify", path], capture_output=True, text=True, timeout=60)
    assert verified.returncode == 0 and "wins" in verified.stdout, verified.stdout
    script = os.path.join(server.data_dir, "verify_tombola.py")
    with open(script, "w", encoding="utf-8") as f:
        f.write(re.findall(r"```python\n(.*?)```", (ROOT / "docs" / "FAIRNESS.md").read_text(encoding="utf-8"), re.S)[0])
    checked = subprocess.run([sys.executable, script, path], capture_output=True, text=True, timeout=60)
    assert checked.returncode == 0, checked.stdout
    notes = lambda out: re.findall(r"note: REVERSE: .*", out)
    assert notes(checked.stdout) == notes(verified.stdout) and notes(verified.stdout)[-1].endswith("wins"), checked.stdout


def mine(phone, typed):
    box = phone.find_element("css selector", "[data-reverse-mine]")
    phone.execute_script("arguments[0].scrollIntoView({ block: 'center' }); arguments[0].value = arguments[1];"
                         " arguments[0].dispatchEvent(new Event('input'))", box, typed)
    return phone.wait(lambda: next((p["text"] for p in seen(phone, "[data-reverse-mine-line]")), None), TIMEOUT)


def test_a_range_of_5000_and_a_list_are_drawn_out_to_the_last_one_in(server, browser):
    code, key = create_draw(server, {"pool": {"kind": "range", "from": 1, "to": 5000}, "exclude": [13], "perStop": 1200, "reverse": True})
    screen = open_page(browser(1920, 1080), server.url("/screen/%s" % code))
    phone = open_page(browser(390, 844, "zh-CN"), server.url("/watch/%s" % code))

    # Before the first Stop: all 4,999 in (13 excluded), every one legible on the projector.
    everyone = [str(v) for v in range(1, 5001) if v != 13]  # tickets as printed, no separators
    _, _, sizes = wait_board(screen, ["4,999 of 4,999 still in", "Reverse raffle"], everyone)
    screen.save_screenshot("/tmp/rev-5000.png")
    assert min(sizes) >= 10, min(sizes)

    first = draw_round(server, code, key, screen)
    assert first["reverse"] is True and len(first["winners"]) == 1200 and "lastIn" not in first
    left = still_in(first)
    _, _, sizes = wait_board(screen, ["3,799 of 4,999 still in", "Round 1: 1,200 drawn out"], [str(v) for v in left])
    assert min(sizes) >= 10, min(sizes)  # the batch drawn out stays, struck, until the next round
    assert sorted(screen.js(STRUCK)) == sorted(str(v) for v in first["winners"])

    # The phone, in Chinese: the count, and the guest's own ticket (one still in, one drawn out).
    phone.wait(lambda: any(p["text"] == "仍在场：3,799／4,999" for p in seen(phone, "[data-reverse-status]")) or None, TIMEOUT)
    assert mine(phone, str(left[0])) == "{:,} 仍在场".format(left[0])
    out = first["winners"][0]
    phone.wait(lambda: mine(phone, str(out)) == "{:,} 已在第 1 轮被淘汰".format(out) or None, TIMEOUT)
    # Its list of the round's values says they were drawn out, not that they won.
    phone.execute_script("document.querySelector('[data-winners-heading]').scrollIntoView({ block: 'center' })")
    assert [p["text"] for p in seen(phone, "[data-winners-heading]")] == ["第 1 轮淘汰"]
    assert not english_words(phone), english_words(phone)

    # On to the last one in: 3,799 → 2,599 → 1,399 → 199 → 1 (the last batch is cut to 198).
    rounds = [first] + [draw_round(server, code, key, screen) for _ in range(4)]
    assert [len(r["winners"]) for r in rounds] == [1200, 1200, 1200, 1200, 198]
    last = rounds[-1]["lastIn"]
    assert still_in(rounds[-1]) == [last]
    shown = "{:,}".format(last)
    _, cells, sizes = wait_board(screen, ["1 of 4,999 still in", "Last one in: %s wins!" % shown], [str(last)])
    assert cells == [str(last)] and min(sizes) >= 40, sizes  # beside the 198 just drawn out, struck
    assert mine(phone, str(last)) == "%s 是最后留下的一位：获胜！" % shown
    # Start again is refused: the raffle is over.
    try:
        api(server, "/api/draws/%s/start" % code, key)
        raise AssertionError("a Start after the last one in was accepted")
    except urllib.error.HTTPError as e:
        assert e.code == 409 and json.load(e)["error"]["code"] == "reverse_done"
    verify_both(server, code, "reverse-range.json", screen)

    # A list of names, twelve out a Stop: 37 → 25 → 13 → 1.
    code, key = create_draw(server, {"pool": {"kind": "list", "entrants": NAMES}, "perStop": 12, "reverse": True})
    screen = open_page(screen, server.url("/screen/%s" % code))
    wait_board(screen, ["37 of 37 still in", "Reverse raffle"], NAMES)
    for n, count in ((1, 25), (2, 13), (3, 1)):
        result = draw_round(server, code, key, screen)
        left = still_in(result)
        line = "Last one in: %s wins!" % result["lastIn"] if count == 1 else "Round %d: 12 drawn out" % n
        assert len(left) == count
        wait_board(screen, ["%d of 37 still in" % count, line], left)
        assert sorted(screen.js(STRUCK)) == sorted(result["winners"])
    verify_both(server, code, "reverse-list.json", screen)

    # The certificates say the same (the stage contradicting the record was this wave's defect: a
    # reverse round's certificate listed who was drawn out under "Winners", and the last round's
    # named one drawn out as its winner). Round 1 on the Chinese phone, the last on the projector.
    with urllib.request.urlopen(server.url("/api/draws/%s/export.json" % code), timeout=30) as r:
        rounds = [x for x in json.load(r)["records"] if x["kind"] == "round"]
    for page, n, heading, last_line in ((phone, 1, "第 1 轮淘汰", None),
                                        (screen, 3, "Drawn out in round 3", "Last one in: %s wins!" % rounds[2]["lastIn"])):
        page.get(server.url("/draw/%s/round/%d" % (code, n)))
        page.wait(lambda: page.js("return window.tombolaCertificate?.status === 'ready'"
                                  " && window.tombolaCertificate.verification.state === 'ok'") or None, TIMEOUT)
        page.execute_script("document.querySelector('.cert-winners-box').scrollIntoView({ block: 'start' })")
        shown = [p["text"] for p in seen(page, ".cert-winners-box")]
        assert heading in shown and "Winners" not in shown and "中奖者" not in shown, shown
        assert sorted(p["text"] for p in seen(page, "[data-winners]")) == sorted(rounds[n - 1]["winners"])
        assert [p["text"] for p in seen(page, "[data-last-in]")] == ([last_line] if last_line else [])
        if n == 1:
            names = {w for name in NAMES for w in name.split()}
            assert not english_words(page, allow=names), english_words(page, allow=names)

    # The winners download says the same: each of a reverse round's rows was drawn out, and the last
    # round's extra row is the one who won.
    req = urllib.request.Request(server.url("/api/draws/%s/export.csv" % code), headers={"Authorization": "Bearer " + key})
    with urllib.request.urlopen(req, timeout=30) as r:
        table = list(csv.DictReader(io.StringIO(r.read().decode("utf-8-sig"))))
    assert [(row["winner"], row["reverse"]) for row in table] == \
        [(w, "drawn out") for r in rounds for w in r["winners"]] + [(rounds[2]["lastIn"], "last one in: wins")]

    # A later draw that excludes this raffle's winners leaves out the last one in, not the 36 drawn
    # out (they had counted as its winners); both verifiers agree with --past.
    later, later_key = create_draw(server, {"pool": {"kind": "list", "entrants": NAMES}, "perStop": 3,
                                            "excludeWinnersOf": [{"code": code, "key": key}]})
    api(server, "/api/draws/%s/start" % later, later_key)
    result = stored(server, later, api(server, "/api/draws/%s/stop" % later, later_key)["result"])
    assert [p["removed"] for p in result["pool"]["pastWinners"]] == [[NAMES.index(rounds[2]["lastIn"])]]
    assert rounds[2]["lastIn"] not in result["winners"] and result["eligible"] == len(NAMES) - 1
    paths = []
    for c in (later, code):
        with urllib.request.urlopen(server.url("/api/draws/%s/export.json" % c), timeout=30) as r:
            paths.append(os.path.join(server.data_dir, "past-%s.json" % c))
            with open(paths[-1], "wb") as f:
                f.write(r.read())
    script = os.path.join(server.data_dir, "verify_tombola.py")  # written by verify_both
    for command in ([os.environ.get("TOMBOLA_BIN", "tombola"), "verify"], [sys.executable, script]):
        checked = subprocess.run(command + [paths[0], "--past", paths[1]], capture_output=True, text=True, timeout=60)
        assert checked.returncode == 0 and re.search(r"past winners of %s: OK" % code, checked.stdout), checked.stdout
