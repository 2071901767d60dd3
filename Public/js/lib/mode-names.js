// The names field (docs/STAGE.md): every entrant's name (a check-in pool's public ids when names
// are not shown; a range's numbers) laid out over the stage, up to FIELD_NAMES of them (a
// window of a larger pool). Each tick lights the tick's value, the slow-down's last tick the
// first winner, and the reveal every winner of the round (one after another). The field is
// painted once per pool and size; a frame only adds the glowing names. Canvas 2D, no WebGL; the
// lit winners are DOM chips over it, kept inside the field (a top or bottom row's is not cut).
// Spots are found by the value itself (a check-in id), never by its shown text, which changes
// when a name becomes known.

import { bookColor, tint } from './books.js';
import { el } from './dom.js';
import { winnerText } from './room.js';
import { maskName } from './mask.js';

export const FIELD_NAMES = 5000;
/** A value's key in the field: the value itself (a check-in id), not the name it shows as. */
const keyOf = (value) => (value !== null && typeof value === 'object' ? winnerText(value) : String(value));
const labelOf = (value) => maskName(winnerText(value));
const GLOW_MS = 700;
const LIGHT_EACH_MS = 250;

export class NamesMode {
  constructor(layer, { reduced }) {
    this.layer = layer;
    this.reduced = reduced;
    // The field is painted once per pool and size (`field`); a frame draws only the lit names
    // (`canvas`, above it) and moves the field with a CSS transform.
    this.field = el('canvas', { class: 'names-canvas names-field' });
    this.canvas = el('canvas', { class: 'names-canvas' });
    this.lit = el('div', { class: 'names-lit' });
    layer.append(this.field, this.canvas, this.lit);
    this.items = [];
    this.range = null;
    this.start = 0;
    this.spots = [];       // [{ x, y, w, label, value }] in CSS pixels
    this.index = new Map(); // value text → spot index
    this.glows = [];       // [{ spot, at }]
    this.winners = [];     // [{ spot, at }]
    this.dirty = true;
    this.size = 0;
    this.lastTickAt = 0;
  }

  setPool(pool, taken) {
    if (pool.kind === 'range') { this.range = pool; this.items = []; }
    else { this.range = null; this.items = pool.items.filter((i) => !taken.has(String(i.value))); }
    this.setWindow(0);
  }

  get count() { return this.range ? this.range.to - this.range.from + 1 : this.items.length; }

  setWindow(center) {
    const n = this.count;
    const size = Math.min(n, FIELD_NAMES);
    this.start = n <= FIELD_NAMES ? 0 : Math.max(0, Math.min(n - size, center - (size >> 1)));
    this.shown = [];
    for (let i = 0; i < size; i++) {
      const index = this.start + i;
      this.shown.push(this.range ? { value: this.range.from + index, label: String(this.range.from + index) } : this.items[index]);
    }
    this.spots = [];
    this.dirty = true;
  }

  /** The spot of `value`, moving the window there when the pool is larger than the field. */
  spotOf(value) {
    const key = keyOf(value);
    if (!this.spots.length && this.shown?.length) this.layout();
    if (this.index.has(key)) return this.index.get(key);
    if (this.range) {
      const n = Number(value) - this.range.from;
      if (n >= 0 && n < this.count) { this.setWindow(n); this.layout(); }
    } else if (this.items.length > FIELD_NAMES) {
      const n = this.items.findIndex((i) => keyOf(i.value) === key);
      if (n >= 0) { this.setWindow(n); this.layout(); }
    }
    return this.index.get(key) ?? -1;
  }

  /** Lays the names out in centred rows at the largest size that fits the box. */
  layout() {
    const box = this.layer.getBoundingClientRect();
    const width = Math.max(10, box.width);
    const height = Math.max(10, box.height);
    const g = this.canvas.getContext('2d');
    const family = getComputedStyle(this.layer).fontFamily;
    g.font = `600 10px ${family}`;
    const widths = this.shown.map((s) => g.measureText(maskName(winnerText(s.value))).width / 10);
    const place = (size, commit) => {
      const gap = size * 0.6;
      const line = size * 1.35;
      let x = 0;
      let y = line / 2;
      let row = [];
      const rows = [];
      let fits = true;
      widths.forEach((w, i) => {
        const wpx = w * size;
        if (wpx > width) fits = false; // a name wider than the field: this size is too large
        if (x > 0 && x + wpx > width) { rows.push({ y, row, used: x - gap }); row = []; x = 0; y += line; }
        row.push({ i, x, w: wpx });
        x += wpx + gap;
      });
      if (row.length) rows.push({ y, row, used: x - gap });
      if (!commit) return fits && y + line / 2 <= height;
      this.spots = [];
      this.index = new Map();
      const top = (height - (y + line / 2)) / 2;
      for (const r of rows) {
        const left = (width - r.used) / 2;
        for (const p of r.row) {
          const s = this.shown[p.i];
          this.index.set(keyOf(s.value), this.spots.length);
          this.spots.push({ x: left + p.x, y: top + r.y, w: p.w, label: maskName(winnerText(s.value)), value: s.value });
        }
      }
      return true;
    };
    let lo = 4;
    let hi = Math.max(5, height / 3);
    for (let k = 0; k < 14; k++) { const mid = (lo + hi) / 2; if (place(mid, false)) lo = mid; else hi = mid; }
    this.size = lo;
    this.family = family;
    place(lo, true);
    this.dirty = true;
  }

  paint(width, height) {
    const ratio = window.devicePixelRatio || 1;
    const image = this.field;
    image.width = Math.round(width * ratio);
    image.height = Math.round(height * ratio);
    const g = image.getContext('2d');
    g.scale(ratio, ratio);
    g.font = `600 ${this.size}px ${this.family}`;
    g.textBaseline = 'middle';
    g.fillStyle = getComputedStyle(this.layer).getPropertyValue('--names-dim') || '#5b6673';
    for (const s of this.spots) g.fillText(s.label, s.x, s.y);
    // Ticket books (issue 45): each ticket underlined in its book's colour.
    const bar = Math.max(2, this.size * 0.14);
    for (const s of this.spots) {
      const color = bookColor(s.value);
      if (!color) continue;
      g.fillStyle = color;
      g.fillRect(s.x, s.y + this.size * 0.55, s.w, bar);
    }
    this.dirty = false;
  }

  tick(tick) {
    const now = performance.now();
    if (this.reduced && !tick.landing && now - this.lastTickAt < 250) return;
    this.lastTickAt = now;
    this.clearLit();
    const spot = this.spotOf(tick.value);
    if (spot >= 0) this.glows.push({ spot, at: now });
    if (this.glows.length > 40) this.glows.splice(0, this.glows.length - 40);
    const landing = tick.landing;
    if (landing && landing.step >= landing.steps && spot >= 0) {
      this.winners = [{ spot, at: now }];
      this.layer.dataset.landed = JSON.stringify([this.spots[spot].label]);
    } else {
      this.layer.dataset.landed = '';
    }
  }

  reveal(winners, { live }) {
    const now = performance.now();
    this.glows = [];
    this.clearLit();
    const each = live && !this.reduced ? LIGHT_EACH_MS : 0;
    winners.forEach((w, i) => {
      const spot = this.spotOf(w);
      if (spot >= 0) this.winners.push({ spot, at: now + i * each });
    });
    this.layer.dataset.landed = JSON.stringify(this.winners.map((w) => this.spots[w.spot].label));
    return winners.length > 1 ? winners.length * each + 1500 : 0;
  }

  idle() {
    this.glows = [];
    this.clearLit();
    this.layer.dataset.landed = '';
  }

  clearLit() {
    this.winners = [];
    this.lit.replaceChildren();
  }

  resize() {
    this.spots = [];
    this.dirty = true;
    this.box = null;
    // Chips are placed again on the new layout.
    this.lit.replaceChildren();
    for (const win of this.winners) win.node = null;
  }

  /** A lit winner: a chip over its spot, grown, kept whole inside the field. */
  chip(win, box) {
    const s = this.spots[win.spot];
    if (!s) return;
    // Grown from the field's size, but never past a third of the field's height: a few names
    // are laid out large, and a chip 1.8 times theirs ran off the stage.
    let size = Math.min(Math.max(this.size * 1.8, Math.min(32, box.height / 10)), box.height / 3);
    const node = tint(el('span', { class: 'names-chip', text: labelOf(s.value) }), s.value);
    node.style.fontSize = `${size.toFixed(1)}px`;
    this.lit.append(node);
    let w = node.offsetWidth;
    if (w > box.width - 4) {
      // Too wide for the field on one line: smaller until it fits (a long name is read whole).
      // (to 97 %: offsetWidth and the font size are rounded, and a pixel over wraps the name)
      size = Math.max(8, size * 0.97 * (box.width - 4) / w);
      node.style.fontSize = `${size.toFixed(1)}px`;
      w = node.offsetWidth;
    }
    const h = node.offsetHeight;
    const x = Math.max(2, Math.min(box.width - w - 2, s.x + s.w / 2 - w / 2));
    const y = Math.max(2, Math.min(box.height - h - 2, s.y - h / 2));
    node.style.left = `${x.toFixed(1)}px`;
    node.style.top = `${y.toFixed(1)}px`;
    if (w > box.width - 4) { node.style.left = '2px'; node.style.right = '2px'; node.style.whiteSpace = 'normal'; }
    win.node = node;
  }

  draw(now) {
    // Layout and colours are read once per size, not every frame.
    if (!this.box) {
      const rect = this.layer.getBoundingClientRect();
      const style = getComputedStyle(this.layer);
      this.box = { width: rect.width, height: rect.height, accent: style.getPropertyValue('--accent').trim() || '#f59e0b',
        accentText: style.getPropertyValue('--accent-text').trim() || '#111' };
    }
    const box = this.box;
    if (!box.width || !this.shown) return false;
    const ratio = window.devicePixelRatio || 1;
    const w = Math.round(box.width * ratio);
    const h = Math.round(box.height * ratio);
    if (this.canvas.width !== w || this.canvas.height !== h || !this.spots.length) {
      this.canvas.width = w;
      this.canvas.height = h;
      this.layout();
    }
    if (this.dirty) this.paint(box.width, box.height);
    const g = this.canvas.getContext('2d');
    g.setTransform(1, 0, 0, 1, 0, 0);
    g.clearRect(0, 0, w, h);
    const revealed = this.winners.length > 0;
    // A slow drift, so the field reads as alive (none with reduced motion).
    const drift = this.reduced ? 0 : Math.sin(now / 1500) * 4 * ratio;
    this.field.style.transform = `translateX(${drift / ratio}px)`;
    this.field.style.opacity = revealed ? '0.35' : '1';
    g.scale(ratio, ratio);
    g.textBaseline = 'middle';
    const accent = box.accent;
    let animating = false;
    if (!revealed) {
      g.font = `800 ${this.size}px ${this.family}`;
      for (const glow of this.glows) {
        const age = now - glow.at;
        const alpha = this.reduced ? (glow === this.glows.at(-1) ? 1 : 0) : Math.max(0, 1 - age / GLOW_MS);
        if (alpha <= 0) continue;
        animating = true;
        const s = this.spots[glow.spot];
        if (!s) continue;
        g.globalAlpha = alpha;
        g.fillStyle = accent;
        g.fillText(s.label, s.x + drift / ratio, s.y);
      }
      g.globalAlpha = 1;
    } else {
      for (const win of this.winners) {
        if (now < win.at) { animating = true; continue; }
        if (!win.node) this.chip(win, box);
      }
    }
    return animating;
  }

  destroy() { this.field.remove(); this.canvas.remove(); this.lit.remove(); }
}
