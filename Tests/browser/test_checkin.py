"""Check-in in Chromium against the real server (#14): the host opens entries, 20 phones
(each its own browser, so its own device cookie) join from the viewer page, the screen shows
the count and the QR code, the host closes entries and draws, and the winner's phone says so."""

import json
import urllib.request

from selenium.webdriver.common.by import By

PHONES = 20


def create_draw(server):
    """A draw of its own (the session's default draw stays as other tests expect it)."""
    request = urllib.request.Request(server.url("/api/draws"), data=b"{}", method="POST",
                                     headers={"Authorization": "Bearer " + server.admin_key})
    with urllib.request.urlopen(request, timeout=10) as response:
        body = json.load(response)
    return body["code"], body["hostKey"]


def open_room(b, url):
    b.get(url)
    b.wait_js("window.tombola && window.tombola.state.snapshotReceived && window.tombola.state.connection === 'online'", 20)
    return b


def draw_one_and_see_the_win(host, phones):
    """The host runs a round (it rolls until the first tick, as a host's would); the winner is one
    of `phones` (entry id → phone page), and that phone shows "You won!". → the winner's id."""
    before = host.js("return window.tombola.state.revealCount")
    click(host, "[data-startstop]")
    host.wait_js("window.tombola.state.phase === 'rolling'", 15)
    host.wait_js("window.tombola.state.tick !== null", 15)
    click(host, "[data-startstop]")
    host.wait_js("window.tombola.state.revealCount > %d" % before, 20)
    winner = host.js("return window.tombola.state.lastReveal.winners[0]")
    assert winner in phones
    phones[winner].wait_js("!document.querySelector('[data-you-won]').hidden", 15)
    assert phones[winner].find_element(By.CSS_SELECTOR, "[data-you-won]").is_displayed()
    return winner


def click(b, selector):
    element = b.find_element(By.CSS_SELECTOR, selector)
    b.js("arguments[0].scrollIntoView({block: 'center'})", element)
    element.click()


def host_opens_entries(host):
    """Checked-in pool, a unique ticket field, names public; Open entries."""
    host.js("document.querySelector('[data-settings-panel]').open = true")
    click(host, "[data-pool-kind][value='checkin']")
    click(host, "[data-save]")
    host.wait_js("window.tombola.state.config && window.tombola.state.config.pool.kind === 'checkin'")
    host.wait_js("!document.querySelector('[data-checkin-host]').hidden")
    host.find_element(By.CSS_SELECTOR, "[data-checkin-field]").send_keys("Ticket")
    click(host, "[data-checkin-required]")
    click(host, "[data-checkin-unique]")
    click(host, "[data-checkin-public]")
    click(host, "[data-checkin-open]")
    host.wait_js("window.tombola.state.checkin && window.tombola.state.checkin.open === true")


def phone_joins(phone, n):
    phone.wait_js("!document.querySelector('[data-join-form]').hidden")
    phone.find_element(By.CSS_SELECTOR, "[data-join-name]").send_keys("Guest %d" % n)
    phone.wait_js("document.querySelector('[data-field-key]')")
    phone.find_element(By.CSS_SELECTOR, "[data-field-key]").send_keys("T-%d" % n)
    click(phone, "[data-join-submit]")
    return phone.wait_js("window.tombola.state.me && window.tombola.state.me.id", 15)


def test_twenty_phones_join_the_host_draws_and_the_winners_phone_shows_the_win(server, browser):
    code, key = create_draw(server)
    host = open_room(browser(390, 844), server.url("/draw/%s#key=%s" % (code, key)))
    host.wait_js("window.tombola.state.role === 'host'")
    host_opens_entries(host)
    screen = open_room(browser(1920, 1080), server.url("/screen/%s#key=%s" % (code, key)))

    phones = {}
    for n in range(1, PHONES + 1):
        phone = open_room(browser(390, 844), server.url("/watch/%s" % code))
        entry_id = phone_joins(phone, n)
        assert entry_id not in phones
        phones[entry_id] = phone
        assert "Guest %d" % n in phone.find_element(By.CSS_SELECTOR, "[data-join-done]").text

    # A second entry from the same phone (same cookie) is refused with the phone's own entry.
    first = next(iter(phones.values()))
    again = first.js("""
        return fetch(location.pathname.replace('/watch/', '/api/draws/') + '/join', {method: 'POST',
          headers: {'Content-Type': 'application/json'}, body: JSON.stringify({name: 'Again', fields: {field1: 'X'}})})
          .then((r) => r.json())""")
    assert again["error"]["code"] == "already_joined"

    # The screen: the count of entrants, the QR code and the join URL.
    screen.wait_js("document.querySelector('[data-entrant-count]').textContent.includes('%d')" % PHONES, 15)
    screen.wait_js("document.querySelector('[data-qr]').complete && !document.querySelector('[data-qr]').hidden")
    assert ("/watch/%s" % code) in screen.find_element(By.CSS_SELECTOR, "[data-join-url]").text
    assert not screen.find_element(By.CSS_SELECTOR, "[data-checkin-line]").get_attribute("hidden")

    # The host's list shows every entrant; close entries, then draw.
    host.wait_js("document.querySelectorAll('[data-checkin-list] li').length === %d" % PHONES, 15)
    click(host, "[data-checkin-close]")
    host.wait_js("window.tombola.state.checkin.open === false && window.tombola.state.remaining === %d" % PHONES, 15)
    for phone in list(phones.values())[:3]:
        phone.wait_js("!document.querySelector('[data-join-closed]').hidden || !document.querySelector('[data-join-done]').hidden")
    winner = draw_one_and_see_the_win(host, phones)
    winning = phones[winner]
    others = [p for i, p in phones.items() if i != winner]
    for other in others[:5]:
        other.wait_js("window.tombola.state.phase === 'revealed'", 15)
        assert other.find_element(By.CSS_SELECTOR, "[data-you-won]").get_attribute("hidden") is not None
    name = winning.js("return window.tombola.state.me.name")
    others[0].wait_js("document.querySelector('[data-winners]').textContent.includes(%s)" % json.dumps(name), 15)
    # The projector shows a single winner on its stage.
    screen.wait_js("document.querySelector('[data-stage]').textContent.includes(%s)" % json.dumps(name), 15)
    # The host sees that the winner's phone is connected.
    host.wait_js("!document.querySelector('[data-winner-presence]').hidden", 15)
    assert name in host.find_element(By.CSS_SELECTOR, "[data-winner-presence]").text
    assert "not connected" not in host.find_element(By.CSS_SELECTOR, "[data-winner-presence]").text

    # The in-page recheck passes for a round drawn from public ids.
    host.wait_js("window.tombola.state.verificationOf(window.tombola.state.lastReveal).state === 'ok'", 20)
    # (The first phone's deliberate second entry above is the one 409 in a console.)
    for b in [host, screen, winning] + others[:3]:
        assert b.errors(allow=("favicon", "/join - Failed to load resource: the server responded with a status of 409")) == []
