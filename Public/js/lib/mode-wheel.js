// The wheel (docs/STAGE.md): a list's entrants as slices sized by their tickets, up to
// WHEEL_SLICES of them (a larger pool shows a window of its wheel around the value on show).
// Each tick turns the wheel forward until the tick's value is under the pointer, easing out
// over the time to the next tick, so the server's slow-down slows the wheel and its last tick
// (the first winner) stops it. Several winners land one after another. Canvas 2D.

import { el } from './dom.js';
import { winnerText } from './room.js';
import { graphemes, maskName } from './mask.js';

export const WHEEL_SLICES = 200;
/** Milliseconds each further winner of a round takes to land after the first. */
export const LAND_EACH_MS = 1100;
const TAU = Math.PI * 2;
/** The pointer sits at the top. */
const POINTER = -Math.PI / 2;

/** Where slice labels run, as fractions of the radius: from OUTER (their end, by the rim) in to INNER. */
const LABEL_OUTER = 0.93;
const LABEL_INNER = 0.4;

/**
 * `text`, cut with an ellipsis to at most `width` pixels in the context's font; the cut falls
 * between graphemes, never inside one (nor inside a surrogate pair).
 */
export function fitted(g, text, width) {
  if (g.measureText(text).width <= width) return text;
  const chars = graphemes(text);
  let lo = 0;
  let hi = chars.length;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (g.measureText(`${chars.slice(0, mid).join('')}…`).width <= width) lo = mid; else hi = mid - 1;
  }
  return `${chars.slice(0, lo).join('')}…`;
}

/** Index of the slice under the pointer for a wheel turned by `rotation` (slice bounds in turns). */
export function sliceAt(bounds, rotation) {
  const at = ((((POINTER - rotation) / TAU) % 1) + 1) % 1;
  let lo = 0;
  let hi = bounds.length - 2;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (bounds[mid] <= at) lo = mid; else hi = mid - 1;
  }
  return lo;
}

export class WheelMode {
  constructor(layer, { reduced }) {
    this.layer = layer;
    this.reduced = reduced;
    // The wheel is painted once per window and size; a frame only turns it (a CSS transform).
    this.canvas = el('canvas', { class: 'wheel-canvas' });
    this.wheel = el('div', { class: 'wheel' }, this.canvas, el('span', { class: 'wheel-pointer' }));
    this.landedList = el('ol', { class: 'wheel-landed' });
    this.caption = el('p', { class: 'wheel-caption' });
    layer.append(this.wheel, this.landedList, this.caption);
    this.items = [];
    this.range = null;
    this.start = 0;          // first pool index of the window
    this.slices = [];        // [{ value, label, weight }]
    this.bounds = [0, 1];    // slice i spans bounds[i]..bounds[i+1] (turns)
    this.rotation = 0;
    this.from = 0;
    this.to = 0;
    this.t0 = 0;
    this.t1 = 0;
    this.dirty = true;
    this.lastTickAt = 0;
    this.generation = 0;
  }

  get count() { return this.range ? this.range.to - this.range.from + 1 : this.items.length; }

  item(index) {
    if (this.range) { const v = this.range.from + index; return { value: v, label: String(v), weight: 1 }; }
    return this.items[index];
  }

  indexOf(value) {
    if (this.range) { const n = Number(value) - this.range.from; return n >= 0 && n < this.count ? n : -1; }
    return this.lookup.get(String(value)) ?? -1;
  }

  setPool(pool, taken) {
    if (pool.kind === 'range') { this.range = pool; this.items = []; }
    else {
      this.range = null;
      this.items = pool.items.filter((i) => !taken.has(String(i.value)));
      this.lookup = new Map(this.items.map((item, i) => [String(item.value), i]));
    }
    this.taken = taken;
    this.setWindow(0);
  }

  /** The window of slices: the whole pool up to WHEEL_SLICES, else WHEEL_SLICES around `center`. */
  setWindow(center) {
    const n = this.count;
    const size = Math.min(n, WHEEL_SLICES);
    this.start = n <= WHEEL_SLICES ? 0 : Math.max(0, Math.min(n - size, center - (size >> 1)));
    this.slices = [];
    for (let i = 0; i < size; i++) this.slices.push(this.item(this.start + i));
    const total = this.slices.reduce((a, s) => a + s.weight, 0) || 1;
    this.bounds = [0];
    let sum = 0;
    for (const s of this.slices) { sum += s.weight; this.bounds.push(sum / total); }
    this.dirty = true;
  }

  /**
   * The rotation (ahead of the current one, plus `turns` whole turns) that puts `value` under the
   * pointer. A value outside the window of a large pool moves the window there when `follow`
   * (landing); while rolling it turns to the slice at the same place of the window instead (a
   * repaint per tick would cost more than a frame), and the caption names the value.
   */
  target(value, turns, follow) {
    let index = this.indexOf(value);
    if (index < 0) {
      // Not in the pool as this page knows it (a late change): add nothing, keep spinning.
      return this.rotation + TAU / 3;
    }
    if (index < this.start || index >= this.start + this.slices.length) {
      if (follow) this.setWindow(index);
      else index = this.start + (index % this.slices.length);
    }
    index -= this.start;
    const middle = ((this.bounds[index] + this.bounds[index + 1]) / 2) * TAU;
    const wanted = POINTER - middle;
    const ahead = (((wanted - this.rotation) % TAU) + TAU) % TAU;
    return this.rotation + ahead + turns * TAU;
  }

  spinTo(value, duration, turns = 0, follow = true) {
    const now = performance.now();
    this.rotation = this.current(now);
    this.from = this.rotation;
    this.to = this.target(value, turns, follow);
    this.caption.textContent = this.count > WHEEL_SLICES ? maskName(winnerText(value)) : '';
    this.t0 = now;
    this.t1 = now + (this.reduced ? 0 : duration);
  }

  current(now) {
    if (now >= this.t1) return this.to;
    const p = (now - this.t0) / (this.t1 - this.t0);
    const eased = 1 - (1 - p) ** 3;
    return this.from + (this.to - this.from) * eased;
  }

  tick(tick) {
    if (!this.slices.length) return;
    this.generation += 1;
    this.landedList.replaceChildren();
    const now = performance.now();
    const landing = tick.landing;
    // Reduced motion: no spinning blur, a calm step a quarter of a second at most.
    if (this.reduced && !landing && now - this.lastTickAt < 250) return;
    const interval = this.lastTickAt ? Math.min(600, Math.max(40, now - this.lastTickAt)) : 50;
    this.lastTickAt = now;
    // The slow-down's ticks come further apart: the wheel eases out over each of them.
    this.spinTo(tick.value, landing ? interval * 1.2 : interval, 0, Boolean(landing));
    if (landing && landing.step >= landing.steps) this.settle(false);
  }

  /** Once the wheel stops: what the pointer shows (read from the wheel's own geometry), as the
   * only landed value or added to them. */
  settle(append) {
    const slice = this.slices[sliceAt(this.bounds, this.to)];
    const shown = slice ? winnerText(slice.value) : '';
    setTimeout(() => {
      const landed = append && this.layer.dataset.landed ? JSON.parse(this.layer.dataset.landed) : [];
      this.layer.dataset.landed = JSON.stringify([...landed, shown]);
    }, Math.max(0, this.t1 - performance.now()));
  }

  reveal(winners, { live }) {
    if (!this.slices.length || !winners.length) return 0;
    this.layer.dataset.landed = '';
    this.landedList.replaceChildren();
    this.lastTickAt = 0;
    const each = this.reduced ? 400 : LAND_EACH_MS;
    if (!live) {
      this.spinTo(winners.at(-1), 0);
      this.layer.dataset.landed = JSON.stringify(winners.map(winnerText));
      this.landedList.replaceChildren(...winners.map((w) => el('li', { text: maskName(winnerText(w)) })));
      return 0;
    }
    // The first winner is under the pointer already (the last tick); the others follow.
    const under = this.slices[sliceAt(this.bounds, this.to)];
    if (!under || winnerText(under.value) !== winnerText(winners[0])) this.spinTo(winners[0], 300);
    this.settle(false);
    this.landedList.append(el('li', { text: maskName(winnerText(winners[0])) }));
    const rest = winners.slice(1);
    const generation = ++this.generation;
    rest.forEach((w, i) => {
      setTimeout(() => {
        if (generation !== this.generation) return;
        this.spinTo(w, each * 0.8, 1);
        this.settle(true);
        setTimeout(() => { if (generation === this.generation) this.landedList.append(el('li', { text: maskName(winnerText(w)) })); }, each * 0.8);
      }, 300 + i * each);
    });
    return 300 + rest.length * each + 400;
  }

  idle() {
    this.generation += 1;
    this.layer.dataset.landed = '';
    this.landedList.replaceChildren();
  }

  resize() { this.dirty = true; this.box = null; }

  /** The wheel without rotation, drawn once per window or size (each frame only turns it). */
  paint(size) {
    const ratio = window.devicePixelRatio || 1;
    const px = Math.round(size * ratio);
    const image = this.canvas;
    image.width = px;
    image.height = px;
    const g = image.getContext('2d');
    const r = px / 2;
    const style = getComputedStyle(this.layer);
    const colors = [style.getPropertyValue('--wheel-a') || '#f59e0b', style.getPropertyValue('--wheel-b') || '#2563eb',
      style.getPropertyValue('--wheel-c') || '#16a34a', style.getPropertyValue('--wheel-d') || '#db2777'];
    const n = this.slices.length;
    // A label runs from near the rim (OUTER) in to INNER: its height fits its slice where the
    // slice is narrowest (at INNER), and its length is cut to the span, so no two labels meet.
    const inner = r * LABEL_INNER;
    const outer = r * LABEL_OUTER;
    // One size for the labels (what an average slice holds); a narrower slice's label is smaller.
    const common = Math.min(r * 0.07, ((TAU * inner) / Math.max(n, 4)) * 0.8);
    g.textBaseline = 'middle';
    g.textAlign = 'right';
    for (let i = 0; i < n; i++) {
      const a0 = this.bounds[i] * TAU;
      const a1 = this.bounds[i + 1] * TAU;
      g.beginPath();
      g.moveTo(r, r);
      g.arc(r, r, r * 0.98, a0, a1);
      g.closePath();
      g.fillStyle = colors[(i + (n % 4 === 1 && i === n - 1 ? 1 : 0)) % 4].trim();
      g.fill();
      const fontPx = Math.min(common, (a1 - a0) * inner * 0.8);
      if (fontPx >= 8 * ratio) {
        g.font = `700 ${fontPx}px ${style.fontFamily}`;
        g.save();
        g.translate(r, r);
        g.rotate((a0 + a1) / 2);
        g.fillStyle = '#ffffff';
        g.fillText(fitted(g, this.slices[i].label, outer - inner), outer, 0);
        g.restore();
      }
    }
    this.dirty = false;
  }

  draw(now) {
    // Layout is read once per size (and per landed list), not every frame.
    const listed = this.landedList.childElementCount;
    if (!this.box || this.box.listed !== listed) {
      const rect = this.layer.getBoundingClientRect();
      const listWidth = listed ? this.landedList.getBoundingClientRect().width : 0;
      const caption = this.caption.textContent ? this.caption.getBoundingClientRect().height : 0;
      this.box = { listed, size: Math.max(10, Math.floor(Math.min(rect.height - caption, rect.width - listWidth) * 0.96)) };
    }
    const size = this.box.size;
    if (this.canvas.width !== Math.round(size * (window.devicePixelRatio || 1))) {
      this.wheel.style.width = `${size}px`;
      this.wheel.style.height = `${size}px`;
      this.dirty = true;
    }
    if (!this.slices.length) return false;
    if (this.dirty) this.paint(size);
    this.rotation = this.current(now);
    this.canvas.style.transform = `rotate(${this.rotation}rad)`;
    return now < this.t1;
  }

  destroy() { this.wheel.remove(); this.landedList.remove(); this.caption.remove(); }
}
