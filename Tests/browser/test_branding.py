"""Screen branding and the stream overlay in Chromium against the real server: the host's
panel saves a title, an accent colour and a PNG logo; an open projector page takes them live;
`/screen/<code>?overlay` is a transparent page with only the stage (checked on the pixels of a
screenshot taken with a transparent default background, as OBS's browser source renders it)."""

import base64
import os
import struct
import tempfile
import zlib

from selenium.webdriver.common.by import By

from test_draw import create_draw, open_page, run_round


def png(width, height, pixel):
    """A real PNG (RGBA, 8 bits): `pixel(x, y)` → (r, g, b, a)."""
    rows = b"".join(b"\x00" + b"".join(bytes(pixel(x, y)) for x in range(width)) for y in range(height))

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xffffffff)

    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))


def logo_pixel(x, y):
    """A round badge with a stripe: plainly a logo on a projector."""
    inside = (x - 60) ** 2 + (y - 60) ** 2 < 56 ** 2
    if not inside:
        return (0, 0, 0, 0)
    return (255, 255, 255, 255) if 48 <= y <= 72 else (200, 16, 46, 255)


def first_pixel(screenshot):
    """RGBA of pixel (0, 0) of a PNG screenshot (for the first pixel every filter is the identity)."""
    assert screenshot[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, header = 8, b"", None
    while pos < len(screenshot):
        length, kind = struct.unpack(">I4s", screenshot[pos:pos + 8])
        data = screenshot[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", data)
        elif kind == b"IDAT":
            idat += data
        pos += 12 + length
    assert header[2] == 8 and header[3] in (2, 6), "expected an 8-bit RGB or RGBA screenshot"
    raw = zlib.decompress(idat)
    return tuple(raw[1:5]) if header[3] == 6 else tuple(raw[1:4]) + (255,)


def screenshot(b):
    """A PNG of the viewport through DevTools, which keeps the alpha channel."""
    shot = b.execute_cdp_cmd("Page.captureScreenshot", {"format": "png"})
    return base64.b64decode(shot["data"])


def test_the_host_brands_the_screen_and_an_open_screen_follows(server, browser):
    code, key = create_draw(server, {"pool": {"kind": "list", "entrants": ["Ann Lee", "Bob Chen", "Zoë Roy", "李雷"]}})
    screen = open_page(browser(1920, 1080), server.url("/screen/%s" % code))
    assert screen.js("return document.querySelector('[data-brand]').hidden")

    host = open_page(browser(1280, 900), server.url("/draw/%s#key=%s" % (code, key)))
    host.wait_js("window.tombola.state.role === 'host'")
    host.js("document.querySelector('[data-branding-panel]').open = true")
    host.js("document.querySelector('[data-brand-title-input]').value = 'Spring Gala 2026 · 春季年会'")
    host.js("const c = document.querySelector('[data-brand-accent-on]'); c.checked = true; c.dispatchEvent(new Event('change'));"
            "document.querySelector('[data-brand-accent-input]').value = '#c8102e';")
    with tempfile.NamedTemporaryFile(suffix=".png", delete=False) as f:
        f.write(png(120, 120, logo_pixel))
        path = f.name
    try:
        host.find_element(By.CSS_SELECTOR, "[data-brand-logo-input]").send_keys(path)
        host.js("document.querySelector('[data-brand-save]').scrollIntoView({ block: 'center' })")
        host.find_element(By.CSS_SELECTOR, "[data-brand-save]").click()
        host.wait_js("!document.querySelector('[data-brand-logo-preview]').hidden", 15)
    finally:
        os.unlink(path)
    assert host.find_element(By.CSS_SELECTOR, "[data-brand-error]").text == ""

    # The open screen got the `branding` message: title, logo (loaded) and the accent colour.
    screen.wait_js("document.querySelector('[data-brand-title]').textContent === 'Spring Gala 2026 · 春季年会'", 15)
    screen.wait_js("document.querySelector('[data-brand-logo]').complete && document.querySelector('[data-brand-logo]').naturalWidth === 120", 15)
    assert screen.js("return getComputedStyle(document.documentElement).getPropertyValue('--accent').trim()") == "#c8102e"
    assert screen.js("return getComputedStyle(document.querySelector('.brand-title')).color") == "rgb(200, 16, 46)"
    # A phone opened now shows the branding too (issue 34): title, logo and accent.
    phone = open_page(browser(390, 844), server.url("/watch/%s" % code))
    phone.wait_js("document.querySelector('[data-brand-title]').textContent === 'Spring Gala 2026 · 春季年会'", 15)
    phone.wait_js("document.querySelector('[data-brand-logo]').complete && document.querySelector('[data-brand-logo]').naturalWidth === 120", 15)
    assert not phone.js("return document.querySelector('[data-brand]').hidden")
    if os.environ.get("TOMBOLA_SHOTS_DIR"):
        phone.save_screenshot(os.path.join(os.environ["TOMBOLA_SHOTS_DIR"], "watch-branded-390x844-en.png"))
    assert phone.js("return getComputedStyle(document.documentElement).getPropertyValue('--accent').trim()") == "#c8102e"
    assert phone.errors() == []

    # A bad logo is refused with the page's own words, in Chinese too.
    host.js("document.querySelector('[data-lang-switch]').value = 'zh';"
            "document.querySelector('[data-lang-switch]').dispatchEvent(new Event('change'))")
    with tempfile.NamedTemporaryFile(suffix=".svg", delete=False) as f:
        f.write(b'<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>')
        svg = f.name
    try:
        host.js("document.querySelector('[data-brand-logo-input]').removeAttribute('accept')")
        host.find_element(By.CSS_SELECTOR, "[data-brand-logo-input]").send_keys(svg)
        host.find_element(By.CSS_SELECTOR, "[data-brand-save]").click()
        host.wait_js("document.querySelector('[data-brand-error]').textContent !== ''", 15)
    finally:
        os.unlink(svg)
    assert host.find_element(By.CSS_SELECTOR, "[data-brand-error]").text == "标志必须是 PNG、JPEG 或 WebP 图片（不接受 SVG）"
    assert screen.js("return document.querySelector('[data-brand-logo]').naturalWidth") == 120, "the refused logo changed nothing"
    assert host.errors(allow=("Failed to load resource",)) == []
    assert screen.errors() == []


def test_the_overlay_is_transparent_and_shows_only_the_stage(server, browser):
    code, key = create_draw(server, {"pool": {"kind": "list", "entrants": ["Ann Lee", "Bob Chen", "Zoë Roy", "李雷", "韩梅梅"]},
                                     "perStop": 1})
    overlay = browser(1920, 1080)
    overlay.execute_cdp_cmd("Emulation.setDefaultBackgroundColorOverride", {"color": {"r": 0, "g": 0, "b": 0, "a": 0}})
    open_page(overlay, server.url("/screen/%s?overlay" % code))
    assert overlay.js("return document.documentElement.classList.contains('overlay')")
    assert overlay.js("return getComputedStyle(document.body).backgroundColor") == "rgba(0, 0, 0, 0)"
    assert overlay.js("return getComputedStyle(document.documentElement).backgroundColor") == "rgba(0, 0, 0, 0)"
    for selector in (".side", ".screen-controls", "[data-qr]"):
        assert not overlay.js("const e = document.querySelector(arguments[0]); return !!(e && e.getClientRects().length)", selector), selector
    assert overlay.js("return document.querySelector('[data-stage]').getBoundingClientRect().width") > 1800

    host = open_page(browser(1280, 900), server.url("/draw/%s#key=%s" % (code, key)))
    host.wait_js("window.tombola.state.role === 'host'")
    result = run_round(host)
    overlay.wait_js("document.querySelector('[data-value]').textContent === %r" % result["winners"][0], 15)
    assert first_pixel(screenshot(overlay))[3] == 0, "the overlay's background is transparent"
    # The same page without ?overlay paints its own background.
    plain = browser(1920, 1080)
    plain.execute_cdp_cmd("Emulation.setDefaultBackgroundColorOverride", {"color": {"r": 0, "g": 0, "b": 0, "a": 0}})
    open_page(plain, server.url("/screen/%s" % code))
    assert first_pixel(screenshot(plain))[3] == 255
    assert overlay.errors() == [] and plain.errors() == []
