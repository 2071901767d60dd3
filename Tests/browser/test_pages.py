"""Every page, in both languages and at phone and desktop sizes: no console
errors, no horizontal scroll on phones, and a basic accessibility check
(accessible names, image alternatives, no positive tabindex, a focus order
that follows the page, text contrast)."""

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

A11Y_AUDIT = r"""
const visible = (el) => {
  if (el.closest('[hidden], dialog:not([open])')) return false;
  const r = el.getBoundingClientRect();
  const s = getComputedStyle(el);
  return r.width > 0 && r.height > 0 && s.visibility !== 'hidden' && s.display !== 'none';
};
const nameOf = (el) => {
  const label = el.getAttribute('aria-label');
  if (label && label.trim()) return label.trim();
  const by = el.getAttribute('aria-labelledby');
  if (by) return by.split(/\s+/).map((id) => document.getElementById(id)?.textContent ?? '').join(' ').trim();
  if (el.labels && el.labels.length) return Array.from(el.labels).map((l) => l.textContent).join(' ').trim();
  if (el.tagName === 'IMG') return el.getAttribute('alt') ?? '';
  return (el.textContent || el.getAttribute('title') || el.getAttribute('placeholder') || '').trim();
};
const problems = [];
const controls = Array.from(document.querySelectorAll('button, a[href], input, select, textarea, summary, output')).filter(visible);
for (const el of controls) {
  if (el.type === 'hidden') continue;
  if (!nameOf(el)) problems.push('no accessible name: ' + el.outerHTML.slice(0, 120));
}
for (const img of document.querySelectorAll('img')) {
  if (!img.hasAttribute('alt')) problems.push('img without alt: ' + img.outerHTML.slice(0, 120));
}
for (const el of document.querySelectorAll('[tabindex]')) {
  if (Number(el.getAttribute('tabindex')) > 0) problems.push('positive tabindex: ' + el.outerHTML.slice(0, 120));
}
if (!document.documentElement.lang) problems.push('html has no lang');
if (!document.title.trim()) problems.push('page has no title');

const parse = (c) => { const m = c.match(/rgba?\(([^)]+)\)/); if (!m) return null; const p = m[1].split(/[ ,/]+/).filter(Boolean).map(Number); return { r: p[0], g: p[1], b: p[2], a: p.length > 3 ? p[3] : 1 }; };
const lum = ({ r, g, b }) => { const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; }; return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b); };
const background = (el) => {
  for (let n = el; n; n = n.parentElement) {
    const c = parse(getComputedStyle(n).backgroundColor);
    if (c && c.a >= 0.95) return c;
  }
  return parse(getComputedStyle(document.documentElement).backgroundColor) ?? { r: 255, g: 255, b: 255, a: 1 };
};
const texts = Array.from(document.querySelectorAll('body *')).filter((el) =>
  visible(el) && Array.from(el.childNodes).some((n) => n.nodeType === 3 && n.textContent.trim()));
for (const el of texts) {
  if (el.closest(':disabled, [aria-hidden="true"]')) continue;
  const s = getComputedStyle(el);
  if (Number(s.opacity) < 1 || el.closest('.screen-controls')) continue;
  const fg = parse(s.color), bg = background(el);
  if (!fg) continue;
  const [hi, lo] = [lum(fg), lum(bg)].sort((a, b) => b - a);
  const ratio = (hi + 0.05) / (lo + 0.05);
  const size = parseFloat(s.fontSize), bold = Number(s.fontWeight) >= 700;
  const need = size >= 24 || (bold && size >= 18.66) ? 3 : 4.5;
  if (ratio < need) problems.push(`contrast ${ratio.toFixed(2)} < ${need}: "${el.textContent.trim().slice(0, 40)}" (${s.color} on rgb(${bg.r},${bg.g},${bg.b}))`);
}
return problems;
"""

FOCUSABLE = """
return Array.from(document.querySelectorAll('a[href], button, input, select, textarea, summary, [tabindex]'))
  .filter((el) => !el.disabled && el.tabIndex >= 0 && !el.closest('[hidden], dialog:not([open])')
     && !(el.closest('details:not([open])') && el.tagName !== 'SUMMARY')
     && !(el.type === 'radio' && !el.checked)
     && el.getBoundingClientRect().width > 0 && getComputedStyle(el).visibility !== 'hidden')
  .map((el) => el.outerHTML.slice(0, 80));
"""


def pages(server):
    code = server.code
    return {
        "index": server.url("/"),
        "calc": server.url("/calc"),
        "host": server.host_url("draw"),
        "draw-viewer": server.url("/draw/%s" % code),
        "screen": server.url("/screen/%s" % code),
        "watch": server.url("/watch/%s" % code),
        "certificate": server.url("/draw/%s/round/1" % code),
    }


def load(b, url):
    b.get(url)
    b.wait_js("document.readyState === 'complete'")
    b.wait_js("!window.tombola || window.tombola.state.connection === 'online'", 15)
    b.wait_js("!window.tombola || !('snapshotReceived' in window.tombola.state) || window.tombola.state.snapshotReceived", 15)


@pytest.mark.parametrize("lang", ["en-US", "zh-CN"])
@pytest.mark.parametrize("size", [(360, 740), (1280, 800)])
def test_pages_log_no_console_errors_and_pass_a_basic_accessibility_check(server, browser, size, lang):
    b = browser(size[0], size[1], lang)
    for name, url in pages(server).items():
        load(b, url)
        if name == "host":
            b.js("document.querySelector('[data-settings-panel]').open = true")
        problems = b.js(A11Y_AUDIT)
        assert problems == [], "%s: %s" % (name, problems)
        if size[0] < 600 and name != "screen":
            assert b.js("return document.documentElement.scrollWidth") <= size[0], name
        assert b.errors() == [], name


def test_tab_moves_through_controls_in_page_order(server, browser):
    b = browser(1280, 800)
    for name in ("calc", "host", "index", "watch", "screen"):
        load(b, pages(server)[name])
        expected = b.js(FOCUSABLE)
        b.js("document.activeElement && document.activeElement.blur(); window.scrollTo(0, 0)")
        seen = []
        body = b.find_element(By.TAG_NAME, "body")
        body.send_keys(Keys.TAB)
        for _ in range(min(len(expected), 25)):
            seen.append(b.js("return document.activeElement.outerHTML.slice(0, 80)"))
            b.switch_to.active_element.send_keys(Keys.TAB)
        # Radio groups take one stop; compare the order of what was reached.
        positions = [expected.index(s) for s in seen if s in expected]
        assert len(positions) >= min(len(expected), 25) * 0.8, name
        assert positions == sorted(positions), "%s: focus order jumps: %s" % (name, positions)


def test_screen_fills_a_projector_and_uses_tabular_digits(server, browser):
    b = browser(1920, 1080)
    load(b, pages(server)["screen"])
    assert b.js("return getComputedStyle(document.querySelector('[data-value]')).fontVariantNumeric") == "tabular-nums"
    assert b.js("return document.documentElement.scrollHeight") <= 1080
    assert b.js("return document.documentElement.classList.contains('theme-dark')")
    b.find_element(By.CSS_SELECTOR, "[data-theme]").click()
    assert b.js("return document.documentElement.classList.contains('theme-light')")
    b.find_element(By.CSS_SELECTOR, "[data-theme]").click()


@pytest.mark.parametrize("lang", ["en-US", "zh-CN"])
def test_pages_pass_the_accessibility_check_in_a_dark_phone_theme_and_the_light_projector_theme(server, browser, lang):
    b = browser(390, 844, lang)
    b.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": "dark"}]})
    for name in ("index", "calc", "host", "watch"):
        load(b, pages(server)[name])
        assert b.js("return matchMedia('(prefers-color-scheme: dark)').matches")
        problems = b.js(A11Y_AUDIT)
        assert problems == [], "%s (dark): %s" % (name, problems)
        assert b.js("return document.documentElement.scrollWidth") <= 390, name
    s = browser(1920, 1080, lang)
    load(s, pages(server)["screen"])
    s.find_element(By.CSS_SELECTOR, "[data-theme]").click()
    s.wait_js("document.documentElement.classList.contains('theme-light')")
    problems = s.js(A11Y_AUDIT)
    s.find_element(By.CSS_SELECTOR, "[data-theme]").click()
    assert problems == [], "screen (light): %s" % problems
    assert b.errors() == [] and s.errors() == []


def test_screen_shows_a_scannable_qr_code_of_the_viewer_link(server, browser):
    import re
    import urllib.parse
    import urllib.request
    b = browser(1920, 1080)
    load(b, pages(server)["screen"])
    b.wait_js("document.querySelector('[data-qr]').complete && !document.querySelector('[data-qr]').hidden")
    qr = b.js("""const q = document.querySelector('[data-qr]'); const r = q.getBoundingClientRect();
                 return { src: q.src, alt: q.alt, w: r.width, h: r.height, natural: q.naturalWidth };""")
    assert qr["alt"] and qr["natural"] > 0
    assert qr["w"] >= 0.28 * 1080 and abs(qr["w"] - qr["h"]) < 1, qr
    assert "/watch/%s" % server.code in urllib.parse.unquote(qr["src"])
    with urllib.request.urlopen(qr["src"], timeout=5) as r:
        svg = r.read().decode()
    size = int(re.search(r'viewBox="0 0 (\d+) \1"', svg).group(1))
    xs = [int(x) for x in re.findall(r"M(\d+) ", svg)]
    ys = [int(y) for y in re.findall(r"M\d+ (\d+)h", svg)]
    # A quiet zone of at least four modules on every side (ISO/IEC 18004).
    assert min(xs) >= 4 and min(ys) >= 4 and size - 4 >= max(ys) + 1, (size, min(xs), min(ys), max(ys))
