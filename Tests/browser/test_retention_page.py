"""Retention on the pages (issue #41): the host of a check-in draw sees the setting "Erase personal
data after (days)" with its saved value, a value out of range is refused in words, and the admin
view says on which date the draw's names and fields will be erased (the REST `dueAt`, formatted as
the page formats dates), in English and Chinese."""
import json
import re
import urllib.request

from test_admin_view import call, open_admin
from test_draw import create_draw, open_page
from visible import shows


def api(server, method, path, key, body=None):
    request = urllib.request.Request(server.url(path), data=None if body is None else json.dumps(body).encode(), method=method,
                                     headers={"Authorization": "Bearer " + key, "Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.load(response)


def translated(b, key, **params):
    return b.js("return import('/js/lib/i18n.js').then((m) => m.t(arguments[0], arguments[1]))", key, params)


def test_the_host_sets_retention_and_the_admin_sees_when_names_go(server, browser):
    code, key = create_draw(server, {"pool": {"kind": "checkin"}, "retentionDays": 30})
    api(server, "POST", "/api/draws/%s/entries/open" % code, key, {})
    api(server, "POST", "/api/draws/%s/join" % code, key, {"name": "Zoë Quill"})
    api(server, "POST", "/api/draws/%s/entries/close" % code, key, {})

    host = open_page(browser(390, 844), server.url("/draw/%s#key=%s" % (code, key)))
    host.wait_js("window.tombola.state.role === 'host'")
    host.js("document.querySelector('[data-settings-panel]').open = true")
    host.wait_js("document.querySelector('[data-retention]').value === '30'")
    host.js("document.querySelector('[data-retention]').scrollIntoView({block: 'center'})")
    assert shows(host, translated(host, "host.retention"), "[data-retention-fields]")
    host.js("document.querySelector('[data-retention]').value = '0'; document.querySelector('[data-save]').click()")
    refused = translated(host, "err.bad_retention")
    # The host's status bar says why, in words.
    host.wait(lambda: shows(host, refused), 10, "the refusal is not shown")
    host.js("document.querySelector('[data-retention]').value = '45'; document.querySelector('[data-save]').click()")
    host.wait(lambda: api(server, "GET", "/api/draws/%s/config" % code, key).get("retentionDays") == 45, 10, "not saved")
    listed = {d["code"]: d for d in call(server, "GET", "/api/draws?limit=200")[1]["draws"]}[code]
    assert listed["retention"]["days"] == 45 and listed["retention"]["entrants"] == 1

    for lang in ("en-US", "zh-CN"):
        b = browser(390, 844, lang)
        open_admin(b, server)
        date = b.js("return new Intl.DateTimeFormat(document.documentElement.lang, {dateStyle: 'medium', timeStyle: 'short'})"
                    ".format(new Date(arguments[0]))", listed["retention"]["dueAt"])
        line = translated(b, "home.admin.retention.due", date=date)
        b.js("document.querySelector('[data-draw=\"%s\"] [data-retention]').scrollIntoView({block: 'center'})" % code)
        assert shows(b, line, '[data-draw="%s"]' % code), (lang, line)
        if lang == "zh-CN":
            assert not re.search("[A-Za-z]", line), line
