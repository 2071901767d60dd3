"""The viewer page's join sends an `Idempotency-Key` and keeps it until an answer arrives (issue
33 §4): the first answer is lost (the page sees a network error, the cookie is gone), the phone
taps Join again, the page sends the same key and shows the entry it already had."""

import json
import urllib.request

from selenium.webdriver.common.by import By

from test_checkin import click, create_draw, open_room


def host(server, code, key, method, name, body):
    request = urllib.request.Request(server.url("/api/draws/%s/%s" % (code, name)), data=json.dumps(body).encode(),
                                     method=method, headers={"Authorization": "Bearer " + key,
                                                             "Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.load(response)


# The first join's answer is dropped: the real request goes out (and is stored), the page gets a
# network error. Every join's Idempotency-Key is recorded.
LOSE_FIRST_ANSWER = """
window.joinKeys = [];
const realFetch = window.fetch;
let lost = false;
window.fetch = async (url, init) => {
  if (!String(url).endsWith('/join')) return realFetch(url, init);
  window.joinKeys.push(init.headers['Idempotency-Key'] ?? null);
  const response = await realFetch(url, init);
  if (!lost) { lost = true; throw new TypeError('answer lost'); }
  return response;
};
"""


def test_a_lost_join_answer_is_recovered_with_the_same_key(server, browser):
    code, key = create_draw(server)
    host(server, code, key, "PUT", "config", {"pool": {"kind": "checkin"}})
    host(server, code, key, "POST", "entries/open", {"fields": [{"key": "ticket", "label": "Ticket", "unique": True}]})
    phone = open_room(browser(390, 844), server.url("/watch/%s" % code))
    phone.wait_js("!document.querySelector('[data-join-form]').hidden")
    phone.js(LOSE_FIRST_ANSWER)
    phone.find_element(By.CSS_SELECTOR, "[data-join-name]").send_keys("Ada")
    phone.wait_js("document.querySelector('[data-field-key]')")
    phone.find_element(By.CSS_SELECTOR, "[data-field-key]").send_keys("T-1")
    click(phone, "[data-join-submit]")
    phone.wait_js("window.joinKeys.length === 1 && document.querySelector('[data-join-error]').textContent !== ''", 15)
    first = phone.js("return window.joinKeys[0]")
    assert first and len(first) == 32 and phone.js("return sessionStorage.getItem('tombola.joinKey.%s')" % code) == first
    phone.delete_all_cookies()  # the lost answer's cookie never reached the phone
    click(phone, "[data-join-submit]")
    entry_id = phone.wait_js("window.tombola.state.me && window.tombola.state.me.id", 15)
    assert phone.js("return window.joinKeys") == [first, first]
    assert phone.js("return sessionStorage.getItem('tombola.joinKey.%s')" % code) is None
    listing = json.load(urllib.request.urlopen(urllib.request.Request(
        server.url("/api/draws/%s/entrants" % code), headers={"Authorization": "Bearer " + key}), timeout=10))
    assert [e["id"] for e in listing["items"]] == [entry_id], listing
