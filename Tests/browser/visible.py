"""What a person sees on a page, read from Chromium's layout (issue 39): text that is painted
(display, visibility, the product of every ancestor's opacity at 1), inside the viewport, not
covered by another element, with its font size. Tests compare this with the record, never a
data attribute or a page's state field.

`seen(page, scope)` lists the visible text pieces under `scope` (a CSS selector; the whole body by
default); `english_words(page, allow)` lists ASCII words on a page that should be all Chinese."""

import re

SEEN = r"""
  const scope = document.querySelector(arguments[0] || 'body');
  if (!scope) return [];
  const out = [];
  const walker = document.createTreeWalker(scope, NodeFilter.SHOW_TEXT);
  const painted = (el) => {
    let opacity = 1;
    for (let e = el; e; e = e.parentElement) {
      const cs = getComputedStyle(e);
      if (cs.display === 'none' || cs.visibility === 'hidden' || cs.contentVisibility === 'hidden') return 0;
      opacity *= parseFloat(cs.opacity);
    }
    return opacity;
  };
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const text = n.textContent.replace(/\s+/g, ' ').trim();
    if (!text) continue;
    const el = n.parentElement;
    if (!el || el.closest('script,style,noscript,template,[hidden]')) continue;
    const range = document.createRange();
    range.selectNodeContents(n);
    const rects = Array.from(range.getClientRects()).filter((r) => r.width > 0.5 && r.height > 0.5);
    if (!rects.length) continue;
    const opacity = painted(el);
    if (opacity < 0.99) continue;
    const box = rects.reduce((a, r) => ({ left: Math.min(a.left, r.left), top: Math.min(a.top, r.top),
      right: Math.max(a.right, r.right), bottom: Math.max(a.bottom, r.bottom) }), { left: 1e9, top: 1e9, right: -1e9, bottom: -1e9 });
    const inside = box.left >= -1 && box.top >= -1 && box.right <= innerWidth + 1 && box.bottom <= innerHeight + 1;  // the whole line box
    if (!inside) continue;
    // Covered: the element at the text's centre must be its own element (or inside it, or around it).
    const r0 = rects[0];
    const top = document.elementFromPoint(r0.left + r0.width / 2, r0.top + r0.height / 2);
    if (!top || !(top === el || el.contains(top) || top.contains(el))) continue;
    // Clipped by an ancestor that hides overflow: the text must lie inside it (its line box, less
    // the 20 % above and below that a line box holds beyond the glyphs' ink).
    const slack = 0.2 * (box.bottom - box.top);
    let clipped = false;
    for (let e = el.parentElement; e && e !== document.body; e = e.parentElement) {
      const cs = getComputedStyle(e);
      if (cs.overflow === 'visible' && cs.overflowX === 'visible' && cs.overflowY === 'visible') continue;
      const c = e.getBoundingClientRect();
      if (box.left < c.left - 2 || box.right > c.right + 2 || box.top + slack < c.top - 2 || box.bottom - slack > c.bottom + 2) { clipped = true; break; }
    }
    if (clipped) continue;
    out.push({ text, size: parseFloat(getComputedStyle(el).fontSize), left: box.left, right: box.right, mid: (box.top + box.bottom) / 2 });
  }
  return out;
"""


def seen(page, scope=None):
    """[{text, size}] of every visible piece of text under `scope` (a CSS selector)."""
    return page.js(SEEN, scope)


def lines(pieces, at_least=0):
    """The visible pieces of at least `at_least` px read as a person reads them: those on one
    line (their middles within a quarter of their size) joined left to right, with no space
    (slot reels show a number as one piece per digit)."""
    rows = []
    for p in sorted((p for p in pieces if p["size"] >= at_least), key=lambda p: (p["mid"], p["left"])):
        if rows and abs(rows[-1][0]["mid"] - p["mid"]) <= p["size"] / 4:
            rows[-1].append(p)
        else:
            rows.append([p])
    return ["".join(q["text"] for q in sorted(row, key=lambda q: q["left"])) for row in rows]


def shows(page, text, scope=None, at_least=0):
    """Whether `text` is visible as a whole piece (or inside one) under `scope`, at >= `at_least` px."""
    return any(text in piece["text"] and piece["size"] >= at_least for piece in seen(page, scope))


def largest(page, text, scope=None):
    """The largest font size at which `text` is visible under `scope` (0: not visible)."""
    return max([p["size"] for p in seen(page, scope) if text in p["text"]] or [0])


# ASCII words that may stand on a Chinese page: the product's name, file formats and units the
# tables keep in Latin letters on purpose, and protocol names.
ALLOWED_ON_ZH = {"Tombola", "QR", "CSV", "PNG", "JPEG", "WebP", "SVG", "JSON", "KiB", "MiB", "MP", "Ogg", "drand",
                 "quicknet", "OBS", "URL", "SHA", "Host", "host-link", "admin-link", "tombola", "verify", "Page", "Up",
                 "Down", "Esc", "Space", "Enter", "UTF", "GB", "IT", "https", "http", "px", "Excel", "xlsx", "ZIP",
                 "hmac"}  # hmac: in the algorithm's identifier a certificate prints, tombola-hmac-sha256-v1
WORD = re.compile(r"\w+")


# A file input draws its own button and "No file chosen" in the browser's language, not the
# page's, and in no text node: a visible one counts as a foreign word.
NATIVE_FILE_INPUTS = """
  return Array.from(document.querySelectorAll('input[type=file]')).filter((n) => {
    const r = n.getBoundingClientRect();
    const cs = getComputedStyle(n);
    return r.width > 2 && r.height > 2 && cs.visibility !== 'hidden' && cs.display !== 'none' && !n.closest('[hidden]')
      && cs.clip !== 'rect(0px, 0px, 0px, 0px)' && parseFloat(cs.opacity) > 0;
  }).length;
"""


def english_words(page, allow=(), own=()):
    """ASCII words visible on a page that should be all Chinese (or all another language than
    English), past the allowed ones, the draw's code and anything in `allow` (entrants' own names,
    say); a visible native file input counts. `own`: the words of the page's language's own table,
    which may be ASCII (German "Start", Vietnamese "ban"), compared without case."""
    allowed, own = ALLOWED_ON_ZH | set(allow), {w.lower() for w in own}
    out = [("<input type=file>", "the browser's own button text")] * page.js(NATIVE_FILE_INPUTS)
    for piece in seen(page):
        text = re.sub(r"\S*/\S*|\?\w+", "", piece["text"])  # addresses, paths and ?query words to type
        # A key's fingerprint in groups of four hex digits (the certificate's signing key): a group
        # may happen to be all letters (eddd, cffa), which is no word (one run in three had one).
        text = re.sub(r"\b[0-9a-f]{4}(?: [0-9a-f]{4}){3,}\b", "", text)
        # A prize voucher's code (Crockford base32, XXXX-XXXX): letters that are no word either.
        text = re.sub(r"\b[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}\b", "", text)
        for word in WORD.findall(text):
            # digits in it: a number, a draw's code (358GYW), a hash (c1415cd4); a letter past ASCII: not
            # English (Nguyễn, Thị); one letter: a unit or a mark; six or eight capitals: a draw's
            # code or an entrant's public id that happens to hold no digit (NUVDMMHX)
            # eight or more of a-f only: a hash or an id in hex whose digits happen to be all letters
            # (eaedcbee on the host page failed CI once); no English word is that long in a-f alone
            if word in allowed or word.lower() in own or not (word.isascii() and word.isalpha()) or len(word) < 2 \
                    or word.isupper() and len(word) in (6, 8) or len(word) >= 8 and set(word) <= set("abcdef"):
                continue
            out.append((word, piece["text"][:80]))
    return out
