"""The host's Excel downloads (issue 43, item 3) from the host page in Chinese: the buttons are
visible in the page's language beside the CSV ones, and each press delivers a workbook that
openpyxl opens with the cells of the CSV of the same data (Tests/peers/test_xlsx_export.py
checks every cell of big files; here, the buttons and what they fetch)."""
import base64
import csv
import io
import json
import os
import urllib.request

import openpyxl

from test_draw import create_draw, open_page
from test_record_outcomes import get_bytes
from test_stage_modes import api
from visible import english_words

TIMEOUT = 20
SHOTS = os.environ.get("TOMBOLA_SCREENSHOTS")
NAMES = ["王小明", "=1+1", "Zoë 🎉"]

# Visible: the element's own text, inside the viewport, opaque, and what a tap at its centre hits.
VISIBLE = """
  const e = arguments[0];
  e.scrollIntoView({block: 'center'});
  const r = e.getBoundingClientRect();
  const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
  return { text: e.innerText.trim(), inside: r.top >= 0 && r.left >= 0 && r.bottom <= innerHeight && r.right <= innerWidth,
           opacity: getComputedStyle(e).opacity, hit: hit === e || e.contains(hit) };
"""

# Keeps every blob the page downloads, to read it back (the download itself goes on as before).
HOOK = """
  window.__blobs = [];
  const make = URL.createObjectURL.bind(URL);
  URL.createObjectURL = (blob) => { window.__blobs.push(blob); return make(blob); };
"""

READ = """
  const bytes = new Uint8Array(await window.__blobs[arguments[0]].arrayBuffer());
  let text = '';
  for (const b of bytes) text += String.fromCharCode(b);
  return btoa(text);
"""


def join(server, code, name):
    req = urllib.request.Request(server.url("/api/draws/%s/join" % code), data=json.dumps({"name": name, "fields": {}}).encode(),
                                 method="POST", headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=10) as r:
        return json.load(r)["entry"]["id"]


def sheet_rows(raw):
    sheet = openpyxl.load_workbook(io.BytesIO(raw)).worksheets[0]
    return [[c.value for c in row] for row in sheet.iter_rows()]


def test_the_host_downloads_excel_workbooks_from_buttons_in_the_pages_language(server, browser):
    code, key = create_draw(server, {"pool": {"kind": "checkin"}, "perStop": 2})
    api(server, "/api/draws/%s/entries/open" % code, key, {})
    for name in NAMES:
        join(server, code, name)
    api(server, "/api/draws/%s/entries/close" % code, key)
    api(server, "/api/draws/%s/start" % code, key)
    api(server, "/api/draws/%s/stop" % code, key)

    host = open_page(browser(390, 844, "zh-CN"), server.url("/draw/%s#key=%s" % (code, key)))
    host.wait_js("window.tombola.state.role === 'host' && window.tombola.state.phase === 'revealed'", TIMEOUT)
    host.js("document.querySelectorAll('details').forEach((d) => d.setAttribute('open', ''))")
    host.js(HOOK)
    buttons = [('[data-export="xlsx"]', "下载 Excel（.xlsx）", "export.csv?lang=zh", 2 + 1),
               ('[data-audit-export="xlsx"]', "审计日志（Excel）", "audit.csv", None),
               ("[data-checkin-export-xlsx]", "导出报名名单（Excel）", "entrants.csv", len(NAMES) + 1)]
    for n, (selector, label, csv_path, count) in enumerate(buttons):
        button = host.find_element("css selector", selector)
        shown = host.js(VISIBLE, button)
        assert shown == {"text": label, "inside": True, "opacity": "1", "hit": True}, (selector, shown)
        if SHOTS:
            host.save_screenshot(os.path.join(SHOTS, "xlsx-%d-390x844-zh.png" % n))
        button.click()
        host.wait_js("window.__blobs.length === %d" % (n + 1), TIMEOUT)
        rows = sheet_rows(base64.b64decode(host.js(READ, n)))
        table = list(csv.reader(io.StringIO(get_bytes(server, "/api/draws/%s/%s" % (code, csv_path), key).decode("utf-8-sig"))))
        # The workbook's header and row count are the CSV's (every cell: the peers test).
        assert rows[0] == table[0], (selector, rows[0], table[0])
        assert len(rows) == len(table) and (count is None or len(rows) == count), (selector, len(rows), len(table))
    entrants = sheet_rows(base64.b64decode(host.js(READ, 2)))
    assert sorted(row[2] for row in entrants[1:]) == sorted(NAMES)
    assert english_words(host, allow=["Zoë"]) == []
    assert host.errors() == []
