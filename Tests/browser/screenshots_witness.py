"""Writes the witness screenshots (issue #27 §3) into docs/screenshots/, with the harness of
screenshots.py: a phone (390x844) that saw two rounds, after the server's database was
rewritten and the server restarted, showing the warning; and the host page's report. English
and Simplified Chinese.

    TOMBOLA_SHOTS_LOOPBACK=1 TOMBOLA_BIN=.build/debug/tombola python3 Tests/browser/screenshots_witness.py
"""

import sys

from screenshots import LANGS, Browser, shot, wait_room
from screenshots_stage import SECTIONS, api, main
from test_draw import create_draw
from test_witness import ALARM, rewrite_round


def witness(server, opened):
    code, key = create_draw(server, {"pool": {"kind": "range", "from": 1, "to": 50}})
    pages = []
    for lang, suffix in LANGS:
        phone = Browser(390, 844, lang); opened.append(phone)
        host = Browser(390, 844, lang); opened.append(host)
        phone.get(server.url("/watch/" + code)); wait_room(phone)
        host.get(server.url("/draw/%s#key=%s" % (code, key))); wait_room(host)
        pages.append((phone, host, suffix))
    for _ in range(2):
        api(server, "/api/draws/%s/start" % code, key)
        api(server, "/api/draws/%s/stop" % code, key)
    for phone, host, _ in pages:
        for b in (phone, host):
            b.wait_js("window.tombola.state.witness.heads.length === 2 && window.tombola.state.witness.pending.length === 0", 40)
    server.stop()
    rewrite_round(server.data_dir, code, 2)
    server.start()
    for phone, host, suffix in pages:
        phone.wait_js("%s && !%s.hidden" % (ALARM, ALARM), 60)
        phone.js("window.scrollTo(0, 0)")
        shot(phone, "witness-phone-390x844-" + suffix, settle=0.5)
        host.wait_js("window.tombola.state.witnessReport && !document.querySelector('[data-witness-reports]').hidden", 60)
        host.js("window.scrollTo(0, 0)")
        shot(host, "witness-host-390x844-" + suffix, settle=0.5)


if __name__ == "__main__":
    # screenshots_stage's runner (server, browsers, clean-up), with this section only.
    SECTIONS["witness"] = witness
    sys.argv[1:] = sys.argv[1:] or ["witness"]
    main()
