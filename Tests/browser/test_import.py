"""The host page's spreadsheet import in Chromium against the real server: a pasted TSV
previewed by POST /api/draws/<code>/import (rows, rejected lines, duplicates), used, saved,
drawn as a weighted, group-limited round that the page's recheck and the FAIRNESS.md
reference both accept."""

import json
import urllib.request

from selenium.webdriver.common.by import By

import fairness_ref as fr
from test_draw import create_draw, open_page, run_round

SHEET = ("Name\tTickets\tDepartment\tEmployee ID\n"
         "Ann\t3\tIT\tE1\n"
         "Bob\t1\tSales\tE2\n"
         "\"Zoë, Jr.\"\t5\tIT\tE3\n"
         "Ann\t2\tIT\tE1\n"  # the same Ann again (two Anns with their own ids would be two people)
         "李雷\tmany\t研发\tE5\n"
         "韩梅梅\t2\t研发\tE6\n")


def click(b, selector):
    """Scrolls the control to the middle (clear of the sticky Start/Stop bar) and clicks it."""
    element = b.find_element(By.CSS_SELECTOR, selector)
    b.js("arguments[0].scrollIntoView({ block: 'center' })", element)
    element.click()


def test_a_pasted_spreadsheet_is_previewed_used_and_drawn_by_its_tickets(server, browser):
    code, key = create_draw(server, {"pool": {"kind": "list", "entrants": ["x", "y"]}})
    host = open_page(browser(1280, 900), server.url("/draw/%s#key=%s" % (code, key)))
    host.wait_js("window.tombola.state.role === 'host'")
    host.js("document.querySelector('[data-settings-panel]').open = true")
    click(host, "[data-pool-kind][value=list]")
    host.js("const t = document.querySelector('[data-entrants]'); t.value = arguments[0];"
            "t.dispatchEvent(new Event('input', { bubbles: true }));", SHEET)
    click(host, "[data-import-paste]")
    host.wait_js("!document.querySelector('[data-import-preview]').hidden")
    summary = host.find_element(By.CSS_SELECTOR, "[data-import-summary]").text
    assert summary.startswith("4 entrants, 11 tickets; 2 rows rejected, 1 names repeated"), summary
    rows = host.js("return Array.from(document.querySelectorAll('[data-import-rows] tr')).map((r) => "
                   "Array.from(r.cells).map((c) => c.textContent))")
    assert rows[0] == ["Name", "Tickets", "Group", "ID"]
    assert rows[1:] == [["Ann", "3", "IT", "E1"], ["Bob", "1", "Sales", "E2"], ["Zoë, Jr.", "5", "IT", "E3"],
                        ["韩梅梅", "2", "研发", "E6"]]
    problems = host.js("return Array.from(document.querySelectorAll('[data-import-problems] li')).map((l) => l.textContent)")
    # A repeated name is listed once (issue 34), with how to keep two people of one name apart.
    assert problems == ["Line 6: tickets must be 1 to 1,000,000", "“Ann” again on line 5",
                        "Two different people with the same name? Give each their staff number in an id column"
                        " (id, 工号): they then enter as “Anna Li (A-001)” and “Anna Li (A-002)”. Or write the names apart."]
    # Before the preview the count left out the sheet's header row.
    assert host.js("return document.querySelector('[data-entrant-count]').textContent") == "6 entrants"

    click(host, "[data-import-use]")
    assert host.js("return document.querySelector('[data-entrants]').value") == "Ann\nBob\nZoë, Jr.\n韩梅梅"
    assert not host.js("return document.querySelector('[data-detailed-note]').hidden")
    # A prize for IT only, typed in the prize row.
    click(host, "[data-add-prize]")
    host.js("const r = document.querySelector('.prize-row');"
            "r.querySelector('[data-prize-name]').value = 'IT prize';"
            "r.querySelector('[data-prize-count]').value = '2';"
            "r.querySelector('[data-prize-only]').value = 'IT';"
            "document.querySelector('[data-perstop]').value = '2';")
    click(host, "[data-save]")
    # The snapshot carries the list's summary; the host page fetches the full settings once.
    host.wait_js("window.tombola.state.config && window.tombola.state.config.prizes.length === 1"
                 " && window.tombola.state.config.pool.detailed === true && window.tombola.state.fullSettings() !== null", 15)
    assert host.js("return window.tombola.state.config.pool.count") == 4
    config = host.js("return window.tombola.state.fullSettings()")
    # Ids are checked for repeats, then dropped: the settings are public.
    assert config["pool"]["entrants"][2] == {"name": "Zoë, Jr.", "tickets": 5, "group": "IT"}
    assert config["prizes"][0]["onlyGroups"] == ["IT"]

    host.js("document.querySelector('[data-settings-panel]').open = false")
    result = run_round(host)
    assert sorted(result["winners"]) == ["Ann", "Zoë, Jr."]
    assert result["algorithm"] == "tombola-hmac-sha256-weighted-v1"
    host.wait_js("window.tombola.state.verification.size > 0 && Array.from(window.tombola.state.verification.values()).every(v => v.state === 'ok')", 15)
    with urllib.request.urlopen(server.url("/api/draws/%s/export.json" % code), timeout=10) as r:
        assert fr.verify(json.load(r))
    assert host.errors() == []
