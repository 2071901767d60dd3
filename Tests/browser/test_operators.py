"""Named operators (issue #41): the owner adds a presenter in the Co-hosts panel and gets their
link once; the presenter's page shows Start/Stop and hides the settings, Clear, voids, the
co-hosts, the audit log and the links, and the server refuses what the role may not do
(`role_forbidden`, shown in the page's words); revoking the presenter turns their page into a
viewer at once while another co-host's key and the owner's keep working; the audit log names who
gave each command."""
import json
import urllib.error
import urllib.request

from selenium.common.exceptions import TimeoutException
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from test_draw import create_draw, open_page
from visible import seen, shows


def call(server, code, key, method, path, body=None):
    data = None if body is None and method == "GET" else json.dumps(body or {}).encode()
    request = urllib.request.Request(server.url("/api/draws/%s/%s" % (code, path)), data=data, method=method,
                                     headers={"Authorization": "Bearer " + key, "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.load(response)
    except urllib.error.HTTPError as error:
        return error.code, json.load(error)


def click(page, selector):
    element = page.find_element(By.CSS_SELECTOR, selector)
    page.js("arguments[0].scrollIntoView({block: 'center'})", element)
    element.click()


def wait_for(page, what, predicate, timeout=10):
    try:
        page.wait(predicate, timeout)
    except TimeoutException:
        state = page.js("return [window.tombola.state.lastError, document.querySelector('[data-toast]').textContent]")
        raise AssertionError("timed out waiting for " + what + "; visible: %s %s" % ([p["text"] for p in seen(page)], state)) from None


def visible(page, selector):
    """Whether any element matching `selector` is painted with a box (display, visibility)."""
    return page.js("""return Array.from(document.querySelectorAll(arguments[0])).some((e) => {
        const r = e.getBoundingClientRect(); return r.width > 0 && r.height > 0 && getComputedStyle(e).visibility !== 'hidden'; });""",
                   selector)


def test_a_presenter_starts_and_stops_only_and_revoking_them_leaves_the_other_keys_working(server, browser):
    code, owner_key = create_draw(server, {"pool": {"kind": "range", "from": 1, "to": 50}})
    owner = open_page(browser(1280, 900), server.url("/draw/%s#key=%s" % (code, owner_key)))
    owner.wait_js("window.tombola.state.role === 'host'")

    # The owner adds a presenter in the Co-hosts panel: the link is shown once.
    click(owner, "[data-operators-panel] summary")
    owner.find_element(By.CSS_SELECTOR, "[data-operator-name]").send_keys("Ann")
    Select(owner.find_element(By.CSS_SELECTOR, "[data-operator-role]")).select_by_value("presenter")
    click(owner, "[data-operator-add]")
    wait_for(owner, "the new link", lambda: any("#key=" in p["text"] for p in seen(owner, "[data-operator-created]")))
    link = next(p["text"] for p in seen(owner, "[data-operator-created]") if "#key=" in p["text"])
    presenter_key = link.split("#key=")[1]
    status, listed = call(server, code, owner_key, "GET", "operators")
    ann = listed["operators"][0]
    assert status == 200 and (ann["name"], ann["role"], ann["revoked"]) == ("Ann", "presenter", None)
    wait_for(owner, "Ann in the list", lambda: shows(owner, "Ann", "[data-operators-list]"))
    # A second co-host (check-in), through the API.
    status, bo = call(server, code, owner_key, "POST", "operators", {"name": "Bo", "role": "checkin"})
    assert status == 201, bo

    # The presenter's page: Start and Stop, and none of what the role may not use.
    presenter = open_page(browser(390, 844), link)
    presenter.wait_js("window.tombola.state.role === 'host'")
    wait_for(presenter, "who they are", lambda: shows(presenter, "You are Ann (presenter)"))
    assert visible(presenter, "[data-startstop]")
    for hidden in ("[data-settings-panel]", ".danger-zone", "[data-operators-panel]", "[data-audit-panel]", "[data-links-card]",
                   "[data-branding-panel]"):
        assert not visible(presenter, hidden), hidden
    click(presenter, "[data-startstop]")
    presenter.wait_js("window.tombola.state.phase === 'rolling'")
    click(presenter, "[data-startstop]")
    presenter.wait_js("window.tombola.state.revealCount > 0", 15)
    owner.wait_js("window.tombola.state.revealCount > 0", 15)
    assert visible(owner, ".winner-void") and not visible(presenter, ".winner-void")

    # Asked anyway, the server refuses with its code, and the page says so in its words.
    presenter.js("window.tombola.socket.send({type: 'clear', seq: 900})")
    wait_for(presenter, "the refusal", lambda: shows(presenter, "Your role may not do that"))
    assert call(server, code, presenter_key, "PUT", "config", {"perStop": 2})[1]["error"]["code"] == "role_forbidden"
    winner = owner.js("return window.tombola.state.lastReveal.winners[0]")
    status, body = call(server, code, presenter_key, "POST", "void", {"round": 1, "winner": winner, "reason": "no-show"})
    assert (status, body["error"]["code"]) == (403, "role_forbidden")
    assert call(server, code, presenter_key, "GET", "audit")[1]["error"]["code"] == "role_forbidden"

    # The audit log names who gave each command: the owner's panel shows Ann beside her Start and Stop.
    entries = call(server, code, owner_key, "GET", "audit")[1]["entries"]
    by = {(e["action"], e["detail"].get("operator")) for e in entries}
    assert {("operator_add", "owner"), ("start", "Ann"), ("stop", "Ann")} <= by, by
    click(owner, "[data-audit-panel] summary")
    wait_for(owner, "Ann in the audit panel", lambda: shows(owner, "Ann", "[data-audit-list]"))

    # The owner revokes Ann: her page becomes a viewer at once; Bo's key and the owner's still work.
    assert owner.js("return document.querySelector('[data-operators-panel]').open")
    click(owner, "[data-operator-id='%s'] button" % ann["id"])
    presenter.wait_js("window.tombola.state.role === 'viewer'")
    wait_for(presenter, "the controls to go", lambda: not visible(presenter, "[data-startstop]"))
    assert call(server, code, presenter_key, "POST", "start")[1]["error"]["code"] == "bad_key"
    assert call(server, code, bo["key"], "GET", "rounds")[0] == 200
    assert call(server, code, bo["key"], "POST", "start")[1]["error"]["code"] == "role_forbidden"
    assert call(server, code, owner_key, "POST", "start")[0] == 200
    assert call(server, code, owner_key, "POST", "stop")[0] == 200


def test_an_observer_sees_the_board_and_the_audit_log_and_can_change_nothing(server, browser):
    code, owner_key = create_draw(server, {"pool": {"kind": "range", "from": 1, "to": 50}})
    status, eve = call(server, code, owner_key, "POST", "operators", {"name": "Eve", "role": "observer"})
    assert status == 201, eve
    assert call(server, code, owner_key, "POST", "start")[0] == 200
    assert call(server, code, owner_key, "POST", "stop")[0] == 200
    observer = open_page(browser(390, 844), eve["hostUrl"])
    observer.wait_js("window.tombola.state.role === 'host'")
    wait_for(observer, "who they are", lambda: shows(observer, "You are Eve (observer)"))
    for hidden in ("[data-startstop]", "[data-round-card]", "[data-settings-panel]", ".danger-zone", ".winner-void",
                   "[data-operators-panel]", "[data-links-card]"):
        assert not visible(observer, hidden), hidden
    # The audit log, as the host sees it: the owner's Start and Stop.
    click(observer, "[data-audit-panel] summary")
    wait_for(observer, "the owner's Stop in the audit log", lambda: shows(observer, "Stop · round 1", "[data-audit-list]"))
    assert call(server, code, eve["key"], "GET", "audit")[0] == 200
    # Nothing changes through its key: Space on the page, a command over WebSocket, REST.
    observer.find_element(By.TAG_NAME, "body").send_keys(" ")
    observer.js("window.tombola.socket.send({type: 'clear', seq: 901})")
    wait_for(observer, "the refusal", lambda: shows(observer, "Your role may not do that"))
    for method, path, body in (("POST", "start", {}), ("PUT", "config", {"perStop": 2}), ("POST", "operators", {"name": "X", "role": "host"})):
        assert call(server, code, eve["key"], method, path, body)[1]["error"]["code"] == "role_forbidden", path
    assert [e["action"] for e in call(server, code, owner_key, "GET", "audit")[1]["entries"]][-3:] == ["operator_add", "start", "stop"]
    assert observer.js("return window.tombola.state.phase") == "revealed"
