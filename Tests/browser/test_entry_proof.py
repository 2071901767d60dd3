"""Issue 27 part 2 in Chromium: a checked-in phone fetches its own entry proof when a round is
revealed, checks the leaf, the audit path, the lock record and the pool in JavaScript and shows
"your entry (N tickets) is in the locked pool ✓" (en + zh, axe-clean); a forged proof fails the
page's check naming what failed."""
import json
import urllib.request

import pytest
from selenium.webdriver.common.by import By

from test_axe import audit
from test_checkin import create_draw, open_room

OTHERS = 4
EXPECTED = {"en-US": "is in the locked pool of round 1 ✓", "zh-CN": "在第 1 轮锁定的奖池中 ✓"}


def api(server, path, key, body=None, method="POST"):
    req = urllib.request.Request(server.url(path), data=json.dumps(body if body is not None else {}).encode(),
                                 method=method, headers={"Authorization": "Bearer " + key, "Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=30) as r:
        return json.load(r)


def phone_with_its_proof(server, browser, lang):
    """A check-in draw: this phone joins from the page, four more over REST, the host closes
    entries and draws one round. → (phone, code, the phone's id)."""
    code, key = create_draw(server)
    api(server, "/api/draws/%s/config" % code, key, {"pool": {"kind": "checkin"}, "perStop": 1}, method="PUT")
    api(server, "/api/draws/%s/entries/open" % code, key, {"fields": []})
    phone = open_room(browser(390, 844, lang), server.url("/watch/%s" % code))
    phone.wait_js("!document.querySelector('[data-join-form]').hidden")
    phone.find_element(By.CSS_SELECTOR, "[data-join-name]").send_keys("Zoë")
    phone.find_element(By.CSS_SELECTOR, "[data-join-submit]").click()
    mine = phone.wait_js("window.tombola.state.me && window.tombola.state.me.id", 15)
    for n in range(OTHERS):
        api(server, "/api/draws/%s/join" % code, key, {"name": "Guest %d" % n, "fields": {}})
    api(server, "/api/draws/%s/entries/close" % code, key)
    api(server, "/api/draws/%s/start" % code, key)
    api(server, "/api/draws/%s/stop" % code, key)
    phone.wait_js("window.tombola.state.phase === 'revealed'", 20)
    return phone, code, mine


@pytest.mark.parametrize("lang", ["en-US", "zh-CN"])
def test_a_checked_in_phone_checks_its_entry_proof(server, browser, lang):
    phone, code, mine = phone_with_its_proof(server, browser, lang)
    phone.wait_js("!document.querySelector('[data-entry-proof]').hidden", 20)
    line = phone.find_element(By.CSS_SELECTOR, "[data-entry-proof]")
    assert EXPECTED[lang] in line.text and "1" in line.text
    assert "proof-bad" not in line.get_attribute("class")
    found = {}
    audit(phone, "phone, entry proof", found)
    assert not found, "\n".join("%s (%s):\n%s" % (name, lang, text) for name, text in found.items())

    # The same check in the page refuses a proof with more tickets, a bent path or a foreign lock.
    outcomes = phone.js("""
        return Promise.all([import('/js/lib/verify.js'), fetch(arguments[0]).then((r) => r.json())]).then(([m, proof]) => {
          const copy = () => JSON.parse(JSON.stringify(proof));
          const more = copy(); more.entry.tickets = 5;
          const moreLeaf = copy(); moreLeaf.entry.tickets = 5;
          moreLeaf.leaf = Array.from(m.leafHash(moreLeaf.entry.position, moreLeaf.entry.name, 5, ''), (b) => b.toString(16).padStart(2, '0')).join('');
          const bent = copy(); if (bent.path.length) bent.path[0] = '00'.repeat(32); else bent.size = 2;
          const foreign = copy(); foreign.lock.poolHash = 'ab'.repeat(32);
          const removed = copy(); removed.inPool = !removed.inPool;
          return [proof, more, moreLeaf, bent, foreign, removed].map((p) => m.verifyEntryProof(p));
        });
    """, "/api/draws/%s/rounds/1/proof?entry=%s" % (code, mine))
    assert outcomes[0] == {"ok": True, "inPool": True, "tickets": 1}
    assert [o.get("reason") for o in outcomes[1:]] == ["leaf", "path", "path", "lock record", "inPool"]
    assert phone.errors(allow=("favicon",)) == []
