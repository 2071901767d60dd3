// The certificate as a PNG (issue #26): the page's own texts and its QR code drawn on a canvas
// as wide as an A4 page at 150 dpi and as tall as what it holds (at most one page), no library. What it draws is what the page shows (masked as set).

import { $, $$ } from '../lib/dom.js';

const WIDTH = 1240;
const HEIGHT = 1754;
const MARGIN = 90;
const FONT = 'system-ui, "Noto Sans CJK SC", "PingFang SC", sans-serif';
const MONO = 'ui-monospace, "DejaVu Sans Mono", monospace';

/** Draws `text` from (x, y) wrapped at `width` (by character: hashes and Chinese have no spaces);
 * returns the y below it. */
function wrap(g, text, x, y, width, lineHeight) {
  let line = '';
  for (const ch of Array.from(text)) {
    if (line && g.measureText(line + ch).width > width) {
      g.fillText(line, x, y);
      y += lineHeight;
      line = ch.trimStart();
    } else {
      line += ch;
    }
  }
  if (line) { g.fillText(line, x, y); y += lineHeight; }
  return y;
}

/** The QR image, once loaded (null when the page shows none). */
function loadedQR(img) {
  if (!img || img.hidden || !img.complete || !img.naturalWidth) return null;
  return img;
}

/** The certificate in `root` as a PNG blob. */
export async function certificatePNG(root = document) {
  const canvas = document.createElement('canvas');
  canvas.width = WIDTH;
  canvas.height = HEIGHT;
  const g = canvas.getContext('2d');
  g.fillStyle = '#ffffff';
  g.fillRect(0, 0, WIDTH, HEIGHT);
  g.fillStyle = '#1a1a1a';
  g.textBaseline = 'top';
  const text = (selector) => $(selector, root)?.textContent.trim() ?? '';
  const inner = WIDTH - 2 * MARGIN;
  let y = MARGIN;

  g.font = `600 30px ${FONT}`;
  y = wrap(g, text('.cert-kicker'), MARGIN, y, inner, 40);
  g.font = `700 56px ${FONT}`;
  y = wrap(g, text('[data-title]'), MARGIN, y + 10, inner, 68);
  g.font = `600 40px ${FONT}`;
  y = wrap(g, text('[data-prize]'), MARGIN, y + 10, inner, 52);

  // A reverse raffle's last round: its winner, the last one in, before the list of who was drawn out.
  const lastIn = $('[data-last-in]', root);
  if (lastIn && !lastIn.hidden) {
    g.font = `700 44px ${FONT}`;
    y = wrap(g, lastIn.textContent.trim(), MARGIN, y + 30, inner, 56);
  }
  g.font = `700 34px ${FONT}`;
  y = wrap(g, text('#cert-winners-heading'), MARGIN, y + 30, inner, 46);
  g.font = `400 38px ${FONT}`;
  const winners = $$('[data-winners] li', root).map((li) => li.textContent);
  // Two columns past a dozen winners; past 40 the page's full list is the record.
  const shown = winners.slice(0, 40);
  const columns = shown.length > 12 ? 2 : 1;
  const rows = Math.ceil(shown.length / columns);
  shown.forEach((w, i) => {
    const column = Math.floor(i / rows);
    g.fillText(`${i + 1}. ${w}`, MARGIN + column * (inner / 2), y + (i % rows) * 48, inner / columns - 20);
  });
  y += rows * 48;
  if (winners.length > shown.length) { g.font = `400 28px ${FONT}`; g.fillText(`… +${winners.length - shown.length}`, MARGIN, y); y += 40; }
  const voided = $('[data-voided]', root);
  if (voided && !voided.hidden) {
    g.font = `400 24px ${FONT}`;
    y += 10;
    for (const line of $$('.cert-change', voided)) y = wrap(g, line.textContent.trim(), MARGIN, y, inner, 32);
  }

  y += 40;
  const top = y;
  const qr = loadedQR($('[data-qr]', root));
  const qrSize = 300;
  const factsWidth = qr ? inner - qrSize - 40 : inner;
  if (qr) {
    g.drawImage(qr, WIDTH - MARGIN - qrSize, y, qrSize, qrSize);
    g.font = `400 22px ${FONT}`;
    wrap(g, text('.cert-qr figcaption'), WIDTH - MARGIN - qrSize, y + qrSize + 10, qrSize, 30);
  }
  for (const dt of $$('.cert-facts dt', root)) {
    if (dt.hidden) continue; // a fact this round does not have (no time-stamp, no sign-off…)
    const dd = dt.nextElementSibling;
    g.font = `600 24px ${FONT}`;
    y = wrap(g, dt.textContent.trim(), MARGIN, y, factsWidth, 32);
    g.font = dd?.classList.contains('mono') ? `400 22px ${MONO}` : `400 26px ${FONT}`;
    y = wrap(g, dd?.textContent.trim() ?? '', MARGIN, y + 2, factsWidth, 30) + 18;
  }
  g.font = `600 26px ${FONT}`;
  y = wrap(g, text('[data-verify]'), MARGIN, Math.max(y, qr ? top + qrSize + 80 : 0) + 20, inner, 36);

  // Cut to what was drawn: a short round's certificate is not half a blank A4 page.
  const height = Math.min(HEIGHT, Math.ceil(y + MARGIN));
  const out = document.createElement('canvas');
  out.width = WIDTH;
  out.height = height;
  out.getContext('2d').drawImage(canvas, 0, 0);
  return new Promise((resolve, reject) => {
    out.toBlob((blob) => (blob ? resolve(blob) : reject(new Error('the canvas gave no PNG'))), 'image/png');
  });
}
