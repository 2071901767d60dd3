"""Writes the name-masking screenshots (issue #26) into docs/screenshots/, with the harness of
screenshots.py: a draw set to mask names, revealed on the projector (1920x1080) and a phone
(390x844), in English and Simplified Chinese.

    TOMBOLA_SHOTS_LOOPBACK=1 TOMBOLA_BIN=.build/debug/tombola python3 Tests/browser/screenshots_mask.py
"""

import json
import sys
import urllib.request

from screenshots import LANGS, Browser, shot, wait_room
from screenshots_stage import SECTIONS, api, main

ENTRANTS = ["张三", "欧阳娜娜", "John Doe", "Nguyễn Văn Ánh", "13812345678", "李雷", "Mary Ann Smith", "13987654321"]


def masked(server, opened):
    config = {"pool": {"kind": "list", "entrants": ENTRANTS}, "perStop": 4, "mask": "names",
              "prizes": [{"name": "一等奖 First prize", "count": 4}]}
    made = json.loads(urllib.request.urlopen(urllib.request.Request(
        server.url("/api/draws"), data=json.dumps({"config": config}).encode(), method="POST",
        headers={"Authorization": "Bearer " + server.admin_key, "Content-Type": "application/json"}), timeout=10).read())
    code, key = made["code"], made["hostKey"]
    pages = []
    for lang, suffix in LANGS:
        screen = Browser(1920, 1080, lang); opened.append(screen)
        phone = Browser(390, 844, lang); opened.append(phone)
        for b, path in ((screen, "/screen/"), (phone, "/watch/")):
            b.get(server.url(path + code)); wait_room(b)
        pages.append((screen, phone, suffix))
    api(server, "/api/draws/%s/start" % code, key)
    api(server, "/api/draws/%s/stop" % code, key)
    for screen, phone, suffix in pages:
        for b in (screen, phone):
            b.wait_js("window.tombola.state.phase === 'revealed'", 20)
        shot(screen, "mask-screen-1920x1080-" + suffix, settle=1.5)
        shot(phone, "mask-phone-390x844-" + suffix, settle=0.5)


if __name__ == "__main__":
    # screenshots_stage's runner (server, browsers, clean-up), with this section only.
    SECTIONS["mask"] = masked
    sys.argv[1:] = sys.argv[1:] or ["mask"]
    main()
