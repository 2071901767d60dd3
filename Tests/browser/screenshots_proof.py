"""Writes the entry-proof screenshots (issue #27 part 2) into docs/screenshots/, with the harness
of screenshots.py: a checked-in phone (390x844) after round 1, showing "your entry (N tickets) is
in the locked pool ✓", in English and Simplified Chinese.

    TOMBOLA_SHOTS_LOOPBACK=1 TOMBOLA_BIN=.build/debug/tombola python3 Tests/browser/screenshots_proof.py
"""

import sys

from selenium.webdriver.common.by import By

from screenshots import LANGS, Browser, shot, wait_room
from screenshots_stage import SECTIONS, api, main


def proof(server, opened):
    made = api(server, "/api/draws", server.admin_key, {"config": {"pool": {"kind": "checkin"}, "perStop": 1}})
    code, key = made["code"], made["hostKey"]
    api(server, "/api/draws/%s/entries/open" % code, key, {"fields": []})
    phones = []
    for (lang, suffix), name in zip(LANGS, ("Zoë Martin", "王芳")):
        phone = Browser(390, 844, lang); opened.append(phone)
        phone.get(server.url("/watch/" + code)); wait_room(phone)
        phone.wait_js("!document.querySelector('[data-join-form]').hidden")
        phone.find_element(By.CSS_SELECTOR, "[data-join-name]").send_keys(name)
        phone.find_element(By.CSS_SELECTOR, "[data-join-submit]").click()
        phone.wait_js("window.tombola.state.me && window.tombola.state.me.id", 15)
        phones.append((phone, suffix))
    for n in range(6):
        api(server, "/api/draws/%s/join" % code, key, {"name": "Guest %d" % n, "fields": {}})
    api(server, "/api/draws/%s/entries/close" % code, key)
    api(server, "/api/draws/%s/start" % code, key)
    api(server, "/api/draws/%s/stop" % code, key)
    for phone, suffix in phones:
        phone.wait_js("!document.querySelector('[data-entry-proof]').hidden", 20)
        phone.js("document.querySelector('[data-entry-proof]').scrollIntoView({block: 'center'})")
        shot(phone, "entry-proof-phone-390x844-" + suffix, settle=0.5)


if __name__ == "__main__":
    SECTIONS["proof"] = proof
    sys.argv[1:] = sys.argv[1:] or ["proof"]
    main()
