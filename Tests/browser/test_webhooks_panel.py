"""The host page's Webhooks panel (issue #43, item 4) in Chinese: the panel, its form and its
empty list read in the page's language; a refused address (plain http to loopback, which the
server refuses without --webhook-allow-private) shows the refusal in Chinese and adds nothing
(the list as the API reads it stays empty). Deliveries themselves: Tests/peers/test_webhooks.py."""
import json
import urllib.request

from test_draw import create_draw, open_page
from test_xlsx_downloads import VISIBLE
from visible import english_words

TIMEOUT = 20


def test_the_webhooks_panel_speaks_chinese_and_shows_a_refusal(server, browser):
    code, key = create_draw(server, {"pool": {"kind": "range", "from": 1, "to": 10}})
    host = open_page(browser(390, 844, "zh-CN"), server.url("/draw/%s#key=%s" % (code, key)))
    host.wait_js("window.tombola.state.role === 'host'", TIMEOUT)
    host.js("document.querySelector('[data-webhooks-panel]').setAttribute('open', '')")
    host.wait_js("document.querySelector('[data-webhook-empty]') && !document.querySelector('[data-webhook-empty]').hidden", TIMEOUT)
    shown = host.js(VISIBLE, host.find_element("css selector", "[data-webhooks-panel] summary h2"))
    assert shown == {"text": "消息推送（网络回调）", "inside": True, "opacity": "1", "hit": True}, shown
    assert host.js(VISIBLE, host.find_element("css selector", "[data-webhook-empty]"))["text"] == "还没有消息推送"
    host.find_element("css selector", "[data-webhook-url]").send_keys("http://127.0.0.1:9/hook")
    host.find_element("css selector", "[data-webhook-add]").click()
    host.wait_js("document.querySelector('[data-webhook-error]').innerText.trim() !== ''", TIMEOUT)
    error = host.js(VISIBLE, host.find_element("css selector", "[data-webhook-error]"))
    assert error["text"] == "消息推送必须使用 https（仅当服务器允许内网目标时才可用 http）" and error["inside"] and error["hit"], error
    request = urllib.request.Request(server.url("/api/draws/%s/webhooks" % code), headers={"Authorization": "Bearer " + key})
    with urllib.request.urlopen(request, timeout=10) as r:
        assert json.load(r)["webhooks"] == []
    assert english_words(host, allow=["https", "http"]) == []

    # An accepted address (a public IP literal: nothing to resolve; no round is drawn, so nothing is
    # sent) shows in the list, and its delete button takes it away again (host-api.js's POST and DELETE).
    field = host.find_element("css selector", "[data-webhook-url]")
    field.clear()
    field.send_keys("https://93.184.215.14/hook")
    host.find_element("css selector", "[data-webhook-add]").click()
    host.wait_js("document.querySelector('[data-webhook-list] li') !== null", TIMEOUT)
    row = host.find_element("css selector", "[data-webhook-list] li")
    assert host.js(VISIBLE, row.find_element("css selector", ".webhook-url"))["text"] == "https://93.184.215.14/hook"
    assert host.js(VISIBLE, host.find_element("css selector", "[data-webhook-error]"))["text"] == ""
    row.find_element("css selector", "button").click()
    host.wait_js("document.querySelector('[data-webhook-list] li') === null", TIMEOUT)
    assert host.js(VISIBLE, host.find_element("css selector", "[data-webhook-empty]"))["text"] == "还没有消息推送"
    with urllib.request.urlopen(request, timeout=10) as r:
        assert json.load(r)["webhooks"] == []
    # The refused request itself is the only console line (the browser logs any 400).
    assert [e for e in host.errors() if "/webhooks - Failed to load resource" not in e] == []
