"""The landing page's admin view in Chromium (issue #25): an admin link (`/#admin=…`) lists
the server's draws and leaves the key out of the address bar; archive, un-archive and delete
(with a confirmation) act on the server; a wrong key says it was the admin key (#34); axe-clean
in both languages."""
import json
import urllib.request

import pytest
from selenium.webdriver.common.by import By

from test_axe import audit
from visible import shows


def call(server, method, path, body=None):
    request = urllib.request.Request(server.url(path), data=None if body is None else json.dumps(body).encode(),
                                     method=method, headers={"Authorization": "Bearer " + server.admin_key,
                                                             "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.load(response)
    except urllib.error.HTTPError as error:
        return error.code, json.load(error)


def create(server, title=None):
    status, made = call(server, "POST", "/api/draws", {"config": {"pool": {"kind": "range", "from": 1, "to": 20}}})
    assert status == 201
    if title:
        request = urllib.request.Request(server.url("/api/draws/%s/branding" % made["code"]), method="PUT",
                                         data=json.dumps({"title": title}).encode(),
                                         headers={"Authorization": "Bearer " + made["hostKey"], "Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=10) as response:
            assert response.status == 200
    return made["code"]


def open_admin(b, server):
    b.get(server.url("/#admin=" + server.admin_key))
    b.wait_js("document.readyState === 'complete'")
    b.wait_js("!document.querySelector('[data-admin]').hidden && document.querySelectorAll('[data-admin-list] li').length > 0", 15)


def button(b, action, code):
    return b.find_element(By.CSS_SELECTOR, '[data-admin-list] [data-action="%s"][data-code="%s"]' % (action, code))


def test_the_admin_lists_archives_and_deletes_draws(server, browser):
    party, quiz = create(server, "Summer party"), create(server)
    b = browser(390, 844)
    open_admin(b, server)
    assert server.admin_key not in b.current_url and "#admin" not in b.current_url
    assert b.js("return document.querySelector('[data-admin-key]').value") == server.admin_key
    items = b.js("return Array.from(document.querySelectorAll('[data-admin-list] li')).map((li) => li.dataset.draw)")
    assert items.index(quiz) < items.index(party)  # newest first
    assert "Summer party" in b.find_element(By.CSS_SELECTOR, '[data-draw="%s"]' % party).text

    # Archiving asks first (issue 39, item 11), in words the admin sees; Cancel leaves the draw live.
    button(b, "archive", party).click()
    b.wait_js("!!document.querySelector('[data-action=\"confirm\"][data-code=\"%s\"]')" % party)
    asked = b.js("return import('/js/lib/i18n.js').then((m) => m.t('home.admin.archive.confirm', { code: arguments[0] }))", party)
    assert shows(b, asked, '[data-draw="%s"]' % party)
    button(b, "cancel", party).click()
    assert [d["archived"] for d in call(server, "GET", "/api/draws?limit=200")[1]["draws"] if d["code"] == party] == [False]
    button(b, "archive", party).click()
    button(b, "confirm", party).click()
    b.wait_js("!!document.querySelector('[data-admin-list] [data-action=\"delete\"][data-code=\"%s\"]')" % party)
    assert call(server, "POST", "/api/draws/%s/clear" % party)[1]["error"]["code"] in ("bad_key", "draw_archived")
    assert "Archived" in b.find_element(By.CSS_SELECTOR, '[data-draw="%s"]' % party).text

    button(b, "delete", party).click()
    b.wait_js("!!document.querySelector('[data-action=\"confirm\"][data-code=\"%s\"]')" % party)
    button(b, "cancel", party).click()
    assert call(server, "GET", "/api/draws/" + party)[0] == 200
    button(b, "delete", party).click()
    b.wait_js("!!document.querySelector('[data-action=\"confirm\"][data-code=\"%s\"]')" % party)
    button(b, "confirm", party).click()
    b.wait_js("!document.querySelector('[data-draw=\"%s\"]')" % party)
    assert party in b.find_element(By.CSS_SELECTOR, "[data-admin-notice]").text
    assert call(server, "GET", "/api/draws/" + party)[0] == 404

    button(b, "archive", quiz).click()
    button(b, "confirm", quiz).click()
    b.wait_js("!!document.querySelector('[data-admin-list] [data-action=\"unarchive\"][data-code=\"%s\"]')" % quiz)
    button(b, "unarchive", quiz).click()
    b.wait_js("!!document.querySelector('[data-admin-list] [data-action=\"archive\"][data-code=\"%s\"]')" % quiz)
    listed = call(server, "GET", "/api/draws?limit=200")[1]["draws"]
    assert [d["archived"] for d in listed if d["code"] == quiz] == [False]
    assert not b.errors()


@pytest.mark.parametrize("lang,wrong", [("en-US", "Wrong admin key"), ("zh-CN", "管理员密钥错误")])
def test_a_wrong_admin_key_says_so_and_the_view_is_axe_clean(server, browser, lang, wrong):
    code = create(server, "Quiz night")
    assert call(server, "POST", "/api/draws/%s/archive" % code)[0] == 200
    b = browser(390, 844, lang)
    open_admin(b, server)
    button(b, "delete", code).click()  # the confirmation is audited too
    b.wait_js("!!document.querySelector('[data-action=\"confirm\"][data-code=\"%s\"]')" % code)
    found = {}
    audit(b, "admin view", found)
    assert not found, found
    key = b.find_element(By.CSS_SELECTOR, "[data-admin-key]")
    key.clear()
    key.send_keys("not-the-admin-key-0000")
    b.find_element(By.CSS_SELECTOR, "[data-admin-show]").click()
    b.wait_js("document.querySelector('[data-admin-error]').textContent !== ''", 15)
    assert b.find_element(By.CSS_SELECTOR, "[data-admin-error]").text == wrong
