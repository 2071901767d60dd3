"""Claims (issue #26, docs/PROTOCOL.md "Claims", docs/FAIRNESS.md §15) in Chromium against the
real server: a check-in draw with claims on, three phones check in (each its own browser and
device cookie), the winner's phone shows "Tap to claim" and claims → the screen, the host and
the phone all show it claimed; in the next round nobody claims → at the server's deadline the
win passes to the round's first alternate on every page, and the record says why. The export
passes `verifyExport` (the page) and the FAIRNESS.md script; a forged pass to a non-next
alternate is refused by both, naming the rule. axe-clean in en and zh; screenshots of the phone's
"Tap to claim" (390x844) and the screen's countdown (1920x1080)."""

import copy
import json
import os

import pytest
from selenium.webdriver.common.by import By

import fairness_ref
from test_axe import audit
from test_draw import create_draw, open_page
from test_stage_modes import api

TIMEOUT = 20
SECONDS = 10
SHOTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "docs", "screenshots")


def join(phone, name):
    phone.wait_js("!document.querySelector('[data-join-form]').hidden", TIMEOUT)
    phone.find_element(By.CSS_SELECTOR, "[data-join-name]").send_keys(name)
    phone.find_element(By.CSS_SELECTOR, "[data-join-submit]").click()
    return phone.wait_js("window.tombola.state.me && window.tombola.state.me.id", TIMEOUT)


def setup(server, browser, lang="en-US", phones=3, seconds=SECONDS):
    config = {"pool": {"kind": "checkin"}, "claim": {"seconds": seconds, "alternates": 2}}
    code, key = create_draw(server, config)
    api(server, "/api/draws/%s/entries/open" % code, key, {"publicNames": True})
    by_id = {}
    for n in range(phones):
        phone = open_page(browser(390, 844, lang), server.url("/watch/%s" % code))
        by_id[join(phone, ["Ann Lee", "Bo Chen", "Cai Wen"][n])] = phone
    api(server, "/api/draws/%s/entries/close" % code, key)
    screen = open_page(browser(1920, 1080, lang), server.url("/screen/%s" % code))
    host = open_page(browser(1280, 800, lang), server.url("/draw/%s#key=%s" % (code, key)))
    host.wait_js("window.tombola.state.role === 'host'", TIMEOUT)
    return code, key, by_id, screen, host


def draw_round(server, code, key, pages):
    api(server, "/api/draws/%s/start" % code, key)
    result = api(server, "/api/draws/%s/stop" % code, key)["result"]
    for page in pages:
        page.wait_js("window.tombola.state.claims && window.tombola.state.claims.round === %d" % result["round"], TIMEOUT)
    return result


def status_everywhere(pages, winner, status):
    for page in pages:
        page.wait_js("(() => { const n = document.querySelector('[data-claim=\"%s\"]');"
                     " return n && n.dataset.status === '%s'; })()" % (winner, status), TIMEOUT + SECONDS)


def claim_from(page):
    """The claim call as the phone's page makes it (its own cookie): [status, error code]."""
    return page.driver.execute_async_script(
        "const done = arguments[0];"
        "fetch('/api/draws/' + window.tombola.state.code + '/claim', {method: 'POST'})"
        ".then(async (r) => done([r.status, (await r.json()).error?.code ?? null]));")


def test_a_claimed_win_stays_and_an_unclaimed_one_passes_to_the_next_alternate(server, browser):
    code, key, phones, screen, host = setup(server, browser)
    pages = [screen, host, *phones.values()]

    first = draw_round(server, code, key, pages)
    winner = first["winners"][0]
    assert len(first["alternates"]) == 2
    phone = phones[winner]
    phone.wait_js("document.querySelector('[data-claim-button]') !== null", TIMEOUT)
    loser = next(p for i, p in phones.items() if i != winner)
    assert claim_from(loser) == [403, "not_winner"]
    phone.find_element(By.CSS_SELECTOR, "[data-claim-button]").click()
    phone.wait_js("document.querySelector('[data-claim-done]') !== null", TIMEOUT)
    status_everywhere([screen, host], winner, "claimed")
    assert claim_from(phone) == [200, None]  # idempotent

    # Next round: nobody claims. At the deadline the win passes to the first alternate.
    second = draw_round(server, code, key, pages)
    absent, alternate = second["winners"][0], second["alternates"][0]
    status_everywhere([screen, host], absent, "passed")
    assert claim_from(phones[absent]) == [409, "claim_closed"]
    phones[absent].wait_js("document.querySelector('[data-claim-missed]') !== null", TIMEOUT)
    for page in pages:
        page.wait_js("window.tombola.state.board()[0].winners.some((w) => !w.voided && w.value === '%s')" % alternate, TIMEOUT)
        page.wait_js("window.tombola.state.board()[0].winners.some((w) => w.voided && w.value === '%s'"
                     " && w.reason === 'not claimed in %d s')" % (absent, SECONDS), TIMEOUT)
    screen.wait_js("window.tombola.state.tick.value === '%s'" % alternate, TIMEOUT)  # the stage shows the alternate
    text = screen.find_element(By.CSS_SELECTOR, "[data-claims]").text
    assert "Not claimed in %d s" % SECONDS in text
    # The alternate gets the same window and claims it.
    phones[alternate].wait_js("document.querySelector('[data-claim-button]') !== null", TIMEOUT)
    phones[alternate].find_element(By.CSS_SELECTOR, "[data-claim-button]").click()
    status_everywhere([screen, host], alternate, "claimed")

    exported = api(server, "/api/draws/%s/export.json" % code, key, method="GET")
    passes = [r for r in exported["records"] if r["kind"] == "pass"]
    assert [(p["winner"], p["alternate"], p["reason"]) for p in passes] == [(absent, alternate, "not claimed in %d s" % SECONDS)]
    assert fairness_ref.verify(exported)
    check = "return import('/js/lib/verify.js').then((m) => m.verifyExport(arguments[0]).filter((o) => !o.ok).map((o) => o.reason));"
    assert screen.driver.execute_script(check, exported) == []

    # A forged pass to the round's second alternate instead of the first, re-chained.
    forged = copy.deepcopy(exported)
    records = forged["records"]
    at = records.index(next(r for r in records if r["kind"] == "pass"))
    round_record = next(r for r in records if r["kind"] == "round" and r["round"] == second["round"])
    if len(round_record["alternates"]) > 1:
        records[at]["alternate"] = round_record["alternates"][1]
    else:
        records[at]["alternate"] = None  # skipping the only alternate is as much a forgery
    prev = records[at - 1]["hash"]
    for r in records[at:]:
        r["prev"] = prev
        body = {k: v for k, v in r.items() if k != "hash"}
        r["hash"] = prev = fairness_ref.sha(fairness_ref.canon(body))
    assert screen.driver.execute_script(check, forged) == ["pass is not to the next alternate (rule C3)"]
    assert not fairness_ref.verify(forged)
    # Only the refusals this test asked for on purpose (not_winner, claim_closed) are in the logs.
    for page in pages:
        assert page.errors(allow=("/claim - Failed to load resource",)) == []


@pytest.mark.parametrize("lang", ["en-US", "zh-CN"])
def test_claim_views_are_axe_clean_with_screenshots(server, browser, lang):
    code, key, phones, screen, host = setup(server, browser, lang, phones=2, seconds=30)
    first = draw_round(server, code, key, [screen, host, *phones.values()])
    phone = phones[first["winners"][0]]
    phone.wait_js("document.querySelector('[data-claim-button]') !== null", TIMEOUT)
    short = lang[:2]
    if os.environ.get("TOMBOLA_SCREENSHOTS"):
        phone.js("window.scrollTo(0, 0)")
        phone.save_screenshot(os.path.join(SHOTS, "claim-phone-390x844-%s.png" % short))
        screen.save_screenshot(os.path.join(SHOTS, "claim-screen-1920x1080-%s.png" % short))
    found = {}
    audit(phone, "phone, tap to claim", found)
    audit(screen, "screen, countdown", found)
    audit(host, "host, claims", found)
    phone.find_element(By.CSS_SELECTOR, "[data-claim-button]").click()
    phone.wait_js("document.querySelector('[data-claim-done]') !== null", TIMEOUT)
    audit(phone, "phone, claimed", found)
    assert not found, "\n".join("%s (%s):\n%s" % (name, lang, text) for name, text in found.items())
