"""The pages in the room's languages (issue 43 item 2), read from what is visible (visible.py).

One draw (a range pool shown as slot reels, one round revealed) and two windows: a projector-sized
one that opens each page once (home, host, viewer, screen, keypad, certificate) and switches it
through the eight languages beyond English and Simplified Chinese with the page's own switch, and
a phone whose browser speaks Arabic. In every language no English word is visible outside the
language's own table and a few names (Tombola, CSV, the keypad's sin/cos…). In Arabic the page is
right to left where it should be (the screen's side panel on the left, the host page's bar
mirrored) and not where it should not: the reels' digits read the record's winner left to right,
the keypad keeps 7 8 9 from left to right, nothing overflows at 390x844 or 1920x1080.
With TOMBOLA_SHOTS_DIR set, it saves docs/screenshots' languages-*.png."""

import json
import os
import re

from test_draw import create_draw, open_page
from test_i18n_tables import OTHER_LANGUAGES, english_table, language_table
from test_stage_modes import api
from visible import english_words, lines, seen

TIMEOUT = 20
HTML = {"zh-Hant": "zh-Hant", "ja": "ja", "ko": "ko", "es": "es", "fr": "fr", "de": "de", "vi": "vi", "ar": "ar"}
# The keypad's keys read the same in every language, as on a real calculator; the certificate names
# its algorithm (tombola-hmac-sha256-v1).
ALLOW = {"MC", "MR", "MS", "CE", "mod", "sin", "cos", "tan", "ln", "log", "EE", "hmac", "ID"}


# Words a language writes as English does (German "Online", French "Mode"): its table holds them
# with the English text unchanged, which the vocabulary below leaves out on purpose.
SAME_AS_ENGLISH = {"es": {"Factorial", "Pi", "Rad"}, "fr": {"Cube", "Deg", "Exact", "Mode", "Modulo", "Pi", "Rad", "Tickets"},
                   "de": {"Links", "Minus", "Modulo", "Offline", "Online", "Pi", "Plus", "Rad"}, "vi": {"Rad"}}


def vocabulary(code):
    """The Latin-letter words of a language's own table, from its texts that differ from the English
    of the same key (a text left in English is no evidence that its words are the language's)."""
    english = english_table()
    texts = []
    for key, text in language_table(code).items():
        forms = list(text.values()) if isinstance(text, dict) else [text]
        if sorted(forms) != sorted(english[key]):
            texts += forms
    return set(re.findall(r"[A-Za-z]+", re.sub(r"\{\w+\}", " ", " ".join(texts)))) | SAME_AS_ENGLISH.get(code, set())


def switch(page, code):
    """Chooses `code` in the page's language switch, as a guest would, and waits for the page in it."""
    page.js("const s = document.querySelector('[data-lang-switch]'); s.value = arguments[0];"
            " s.dispatchEvent(new Event('change', { bubbles: true }));", code)
    page.wait_js("document.documentElement.lang === %s" % json.dumps(HTML[code]), TIMEOUT)
    # Views that redraw on the next frame have drawn: two frames later.
    page.driver.execute_async_script("const done = arguments[0]; requestAnimationFrame(() => requestAnimationFrame(() => done()));")


def intl_words(page):
    """Month and day names, am/pm… of the page's language as Intl writes them (dates on the page)."""
    return set(page.js("""
      const loc = document.documentElement.lang === 'ar' ? 'ar-u-nu-latn' : document.documentElement.lang;
      const out = [];
      for (let m = 0; m < 12; m++) {
        const d = new Date(2026, m, 3, 15, 4, 5);
        for (const o of [{ dateStyle: 'long', timeStyle: 'medium' }, { dateStyle: 'medium', timeStyle: 'short' }, { weekday: 'long' }])
          out.push(new Intl.DateTimeFormat(loc, o).format(d));
      }
      return out.join(' ').match(/[A-Za-z]+/g) || [];
    """))


OVERFLOW = """
  // Wider than the window (in RTL the overflow goes left, and scrollWidth counts it too), or a
  // title cut short by an ellipsis.
  const wide = document.documentElement.scrollWidth > innerWidth + 1;
  const title = document.querySelector('.topbar-title');
  const cut = title && getComputedStyle(title).display !== 'none'
    && (title.scrollWidth > title.clientWidth + 1 || title.scrollHeight > title.clientHeight + 1);
  return { wide, cut: cut ? title.textContent : null };
"""


READING_ORDER = """
  // Each character's box, in the text's order: left to right on screen, as a URL is read?
  const node = Array.from(document.querySelectorAll(arguments[0])).find((n) => n.textContent.includes('#'));
  node.scrollIntoView({ block: 'center' });
  const text = node.firstChild, range = document.createRange(), lefts = [];
  for (let i = 0; i < text.length; i++) {
    range.setStart(text, i); range.setEnd(text, i + 1);
    const r = range.getClientRects()[0];
    if (r && r.width > 0) lefts.push([r.top, r.left]);
  }
  const inOrder = lefts.every((p, i) => i === 0 || p[0] > lefts[i - 1][0] + 1 || p[1] >= lefts[i - 1][1]);
  return inOrder ? 'ok' : text.data + ' shown out of order';
"""


def reading_order(page, selector):
    return page.js(READING_ORDER, selector)


def box(page, selector):
    return page.js("const r = document.querySelector(arguments[0]).getBoundingClientRect();"
                   " return { left: r.left, right: r.right };", selector)


def test_every_page_speaks_each_language_and_arabic_mirrors_what_it_should(server, browser):
    code, key = create_draw(server, {"pool": {"kind": "range", "from": 1000000, "to": 9999999}, "mode": "reels"})
    api(server, "/api/draws/%s/start" % code, key)
    winner = str(api(server, "/api/draws/%s/stop" % code, key)["result"]["winners"][0])
    shots = os.environ.get("TOMBOLA_SHOTS_DIR")
    pages = {
        "home": "/", "host": "/draw/%s#key=%s" % (code, key), "viewer": "/watch/%s" % code,
        "screen": "/screen/%s" % code, "keypad": "/calc", "certificate": "/draw/%s/round/1" % code,
    }
    wide = browser(1920, 1080, "en-US")
    found = []
    for name, path in pages.items():
        if name in ("home", "keypad", "certificate"):
            wide.get(server.url(path))
            wide.wait_js("document.querySelector('[data-lang-switch] option') !== null", TIMEOUT)
            if name == "certificate":
                wide.wait_js("window.tombolaCertificate && window.tombolaCertificate.status === 'ready'", TIMEOUT)
        else:
            open_page(wide, server.url(path))
        if name == "screen":
            wide.wait_js("document.querySelector('[data-stage]').innerText.replace(/\\s/g, '').includes(%s)" % json.dumps(winner), TIMEOUT)
            ltr = (box(wide, ".side"), box(wide, "[data-stage]"))
        for language in OTHER_LANGUAGES:
            switch(wide, language)
            words = english_words(wide, ALLOW | {code}, vocabulary(language) | intl_words(wide))
            found += [(name, language, word, where) for word, where in words]
            assert wide.js(OVERFLOW) == {"wide": False, "cut": None}, (name, language)
            if name == "screen":
                # The reels show the record's winner, its digits read left to right in every language
            # (grouped as the language groups them: 5,820,502, 5.820.502, 5 820 502).
                assert any(winner in re.sub(r"\D", "", line) for line in lines(seen(wide, "[data-stage]"), 64)), (language, lines(seen(wide, "[data-stage]")))
                if shots:
                    wide.save_screenshot(os.path.join(shots, "languages-screen-1920x1080-%s.png" % language))
        if name == "screen":
            # Arabic (the last one): the side panel and the stage change places, mirrored.
            side, stage = box(wide, ".side"), box(wide, "[data-stage]")
            assert ltr[0]["left"] > ltr[1]["left"] and side["right"] < stage["left"] + 1, (ltr, side, stage)
            # While the next round rolls, the reels (one box per digit, the most significant first)
            # stand from left to right, not mirrored.
            api(server, "/api/draws/%s/start" % code, key)
            wide.wait_js("document.querySelectorAll('.reels .reel').length >= 7"
                         " && document.querySelector('.reels').getBoundingClientRect().width > 0", TIMEOUT)
            reels = wide.js("return Array.from(document.querySelectorAll('.reels .reel'), (r) => r.getBoundingClientRect().left)")
            assert reels == sorted(reels), reels
            if shots:
                wide.save_screenshot(os.path.join(shots, "languages-screen-rolling-1920x1080-ar.png"))
            second = str(api(server, "/api/draws/%s/stop" % code, key)["result"]["winners"][0])
        switch_back = "const s = document.querySelector('[data-lang-switch]'); s.value = 'en'; s.dispatchEvent(new Event('change'));"
        wide.js(switch_back)
    assert found == [], found

    # A phone whose browser speaks Arabic: the pages open in Arabic, right to left.
    phone = browser(390, 844, "ar")
    for name in ("host", "viewer", "keypad", "certificate"):
        url = server.url(pages[name])
        if name in ("keypad", "certificate"):
            phone.get(url)
            phone.wait_js("document.querySelector('[data-lang-switch] option') !== null", TIMEOUT)
        else:
            open_page(phone, url)
        assert phone.js("return [document.documentElement.lang, document.documentElement.dir]") == ["ar", "rtl"], name
        assert phone.js(OVERFLOW) == {"wide": False, "cut": None}, name
        assert english_words(phone, ALLOW | {code}, vocabulary("ar") | intl_words(phone)) == [], name
        if name == "host":
            # The bar's language switch sits at the left end, the brand at the right: mirrored.
            assert box(phone, "[data-lang-switch]")["right"] < box(phone, ".brand")["left"]
            # The host link reads as it is typed: http… first, its #key=•••••• last (not moved to the front).
            assert reading_order(phone, ".link-url") == "ok", reading_order(phone, ".link-url")
            # Beside the host's badge, the draw's title fits a phone in every language (two lines at most).
            for language in OTHER_LANGUAGES:
                switch(phone, language)
                assert phone.js(OVERFLOW) == {"wide": False, "cut": None}, language
        if name == "viewer":
            # The winners list reads from the right, the number too (not pushed left by its digits).
            phone.wait_js("document.querySelector('[data-winners]').innerText.replace(/\\D/g, '').includes(%s)" % json.dumps(second), TIMEOUT)
            value = [p for p in seen(phone, "[data-winners]") if re.sub(r"\D", "", p["text"]) == second]
            assert value and value[0]["left"] > 390 / 2 - 40, seen(phone, "[data-winners]")
        if name == "keypad":
            # The keypad is not mirrored: 7 8 9 from left to right, the display's digits too.
            keys = [box(phone, "[data-key='%s']" % k)["left"] for k in "789"]
            assert keys == sorted(keys), keys
            phone.js("for (const k of ['1', '2', '3']) document.querySelector(`[data-key='${k}']`).click();")
            phone.wait_js("document.querySelector('[data-display]').textContent.includes('123')", TIMEOUT)
            assert "123" in "".join(lines(seen(phone, "[data-display]"))), seen(phone, "[data-display]")
        if shots:
            phone.js("window.scrollTo(0, 0)")
            phone.save_screenshot(os.path.join(shots, "languages-%s-390x844-ar.png" % name))


def test_the_browser_language_picks_the_table_and_counts_take_each_language_plural(browser, static_site):
    """navigator.languages decides (zh-TW, zh-HK and zh-Hant are Traditional Chinese, zh and zh-CN
    Simplified, pt-BR none of ours); a count takes its language's plural form: Arabic has six
    (0, 1, 2, 3–10, 11–99, 100+), and German groups 1.000 with a dot yet still counts it as many."""
    b = browser(800, 600)
    b.get(static_site + "/calc")
    got = b.driver.execute_async_script("""
        const done = arguments[arguments.length - 1];
        import('/js/lib/i18n.js').then((m) => {
        const tags = ['zh-TW', 'zh-HK', 'zh-Hant-CN', 'zh', 'zh-CN', 'zh-Hans-TW', 'ja-JP', 'ko', 'es-419', 'fr-CA', 'de-AT', 'vi', 'ar-EG', 'pt-BR', 'en-GB'];
        const picked = tags.map((tag) => m.matchLanguage(tag));
        return m.setLang('ar').then(() => {
          const ar = [0, 1, 2, 3, 11, 100].map((n) => m.t('host.pool.count', { n }));
          return m.setLang('de').then(() => {
            const de = [1, '1.000'].map((n) => m.t('host.pool.count', { n }));
            m.setLang('en');
            return [picked, ar, de, document.documentElement.dir];
          });
        });
        }).then(done, (e) => done(String(e)));
    """)
    assert got == [
        ["zh-Hant", "zh-Hant", "zh-Hant", "zh", "zh", "zh", "ja", "ko", "es", "fr", "de", "vi", "ar", None, "en"],
        ["لا مشاركين", "مشارك واحد", "مشاركان", "3 مشاركين", "11 مشاركًا", "100 مشارك"],
        ["1 Person", "1.000 Personen"], "ltr"]
