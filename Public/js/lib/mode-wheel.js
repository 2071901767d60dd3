// The wheel (docs/STAGE.md): a list's entrants as slices sized by their tickets, up to
// WHEEL_SLICES of them so every label stays readable (a larger pool shows a window of its wheel
// around the value it lands on). It spins steadily while rolling; the slow-down's first tick
// names the winner and, with the tick's step, when the last one comes: the wheel brakes from its
// speed onto the winner by then (wheel-motion.js: no jump, always forward). Several winners land
// one after another, each turned to from rest. Each slice edge passing the pointer is a peg: the
// layer fires `wheel-peg` (the screen ticks). Canvas 2D, painted once per window and size; a
// frame only turns it (a CSS transform).

import { bookColor, inkOn } from './books.js';
import { el } from './dom.js';
import { winnerText } from './room.js';
import { graphemes, maskName } from './mask.js';
import { MIN_LAND_MS, Path, TAU } from './wheel-motion.js';

/** At most this many slices: labels of 14 px or more on a 1080p projector. */
export const WHEEL_SLICES = 48;
/** How long the wheel rests on a winner before it turns to the next of the round. */
export const PAUSE_MS = 400;
/** The pointer sits at the top. */
const POINTER = -Math.PI / 2;

/** Where slice labels run, as fractions of the radius: from OUTER (their end, by the rim, clear
 * of the pointer, which reaches down to 0.9) in to INNER. */
const LABEL_OUTER = 0.885;
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

/** Index of the slice at `at` (turns from the canvas's 0 angle, clockwise; 0 < at ≤ 1 too). */
function sliceOf(bounds, at) {
  let lo = 0;
  let hi = bounds.length - 2;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (bounds[mid] <= at) lo = mid; else hi = mid - 1;
  }
  return lo;
}

/** Index of the slice under the pointer for a wheel turned by `rotation` (slice bounds in turns). */
export function sliceAt(bounds, rotation) {
  return sliceOf(bounds, ((((POINTER - rotation) / TAU) % 1) + 1) % 1);
}

export class WheelMode {
  constructor(layer, { reduced }) {
    this.layer = layer;
    this.reduced = reduced;
    this.canvas = el('canvas', { class: 'wheel-canvas' });
    this.wheel = el('div', { class: 'wheel' }, this.canvas, el('span', { class: 'wheel-pointer' }));
    this.landedList = el('ol', { class: 'wheel-landed' });
    // The names landed so far sit beside the wheel, or under it in a tall stage (a phone).
    this.root = el('div', { class: 'wheel-mode' }, this.wheel, this.landedList);
    layer.append(this.root);
    this.items = [];
    this.range = null;
    this.lookup = new Map();
    this.view = { start: 0, slices: [], bounds: [0, 1] };
    this.painted = [];       // what paint() drew, slice by slice: { value, text, color, a0, a1, font } (turns, CSS px)
    this.path = new Path(0);
    this.rotation = 0;
    this.drawnAt = 0;
    this.events = [];        // [{ at, run }], due in draw(): a window swapped mid-turn, a winner landed
    this.aim = null;         // the landing planned: { value, end }
    this.rollAt = [];        // the server times (`at`) of the last rolling ticks: its tick interval
    this.lastJump = 0;
    this.pegs = null;        // pegs passed the pointer, at the last frame
    this.dirty = true;
  }

  get slices() { return this.view.slices; }

  get bounds() { return this.view.bounds; }

  get start() { return this.view.start; }

  get count() { return this.range ? this.range.to - this.range.from + 1 : this.items.length; }

  item(index) {
    if (this.range) { const v = this.range.from + index; return { value: v, label: String(v), weight: 1 }; }
    return this.items[index];
  }

  indexOf(value) {
    if (this.range) { const n = Number(value) - this.range.from; return Number.isInteger(n) && n >= 0 && n < this.count ? n : -1; }
    return this.lookup.get(String(value)) ?? -1;
  }

  setPool(pool, taken) {
    const now = performance.now();
    const under = this.slices[sliceAt(this.bounds, this.path.state(now).r)]?.value;
    if (pool.kind === 'range') { this.range = pool; this.items = []; }
    else {
      this.range = null;
      this.items = pool.items.filter((i) => !taken.has(String(i.value)));
      this.lookup = new Map(this.items.map((item, i) => [String(item.value), i]));
    }
    this.taken = taken;
    this.view = this.layout(this.windowAround(Math.max(0, under === undefined ? 0 : this.indexOf(under))));
    this.dirty = true;
    // A landing under way aims again, on this layout.
    if (this.aim && !this.reduced && now < this.aim.end) {
      const wanted = this.wantedFor(this.aim.value);
      if (wanted !== null) this.aim.end = this.path.land(now, wanted, this.aim.end - now);
    }
  }

  /** First pool index of the window of WHEEL_SLICES around `center` (0 when the pool fits). */
  windowAround(center) {
    const n = this.count;
    return n <= WHEEL_SLICES ? 0 : Math.max(0, Math.min(n - WHEEL_SLICES, center - (WHEEL_SLICES >> 1)));
  }

  /** The slices from pool index `start` and their bounds: slice i spans bounds[i]..bounds[i+1] (turns). */
  layout(start) {
    const slices = [];
    for (let i = start; i < Math.min(this.count, start + WHEEL_SLICES); i++) slices.push(this.item(i));
    const total = slices.reduce((a, s) => a + s.weight, 0) || 1;
    const bounds = [0];
    let sum = 0;
    for (const s of slices) { sum += s.weight; bounds.push(sum / total); }
    return { start, slices, bounds };
  }

  /** Shows `view` from now on: painted at the next frame. */
  show(view) {
    this.view = view;
    this.dirty = true;
    this.pegs = null;
  }

  /** The rotation (mod a turn) that puts slice `index` of `view` mid-pointer, or null. */
  static angle(view, index) {
    const i = index - view.start;
    if (i < 0 || i >= view.slices.length) return null;
    return POINTER - ((view.bounds[i] + view.bounds[i + 1]) / 2) * TAU;
  }

  /** The rotation (mod a turn) that shows `value` under the pointer, moving the window to it if it is outside; null if not in the pool. */
  wantedFor(value) {
    const index = this.indexOf(value);
    if (index < 0) return null;
    if (WheelMode.angle(this.view, index) === null) this.show(this.layout(this.windowAround(index)));
    return WheelMode.angle(this.view, index);
  }

  /** The server's tick interval (ms), from the rolling ticks' own times; 50 ms (20 Hz) until known. */
  interval() {
    const gaps = [];
    for (let i = 1; i < this.rollAt.length; i++) gaps.push(this.rollAt[i] - this.rollAt[i - 1]);
    gaps.sort((a, b) => a - b);
    const gap = gaps.length ? gaps[gaps.length >> 1] : 50;
    return Math.min(1000, Math.max(10, gap));
  }

  /**
   * Time from slow-down tick `step` of `steps` to the last, as the server spaces them: the gaps
   * start at one tick interval and grow by a fifth, adding up to the draw's `slowDown` (1.5 s
   * when unset; the last gap is what is left of it, so the steps bound it).
   */
  remaining({ step, steps }, slowDown) {
    if (!(step < steps)) return 0;
    const gap = this.interval();
    const at = (k) => (gap * (1.2 ** k - 1)) / 0.2;
    const total = Math.min(at(steps), Math.max(at(steps - 1), Number.isFinite(slowDown) ? slowDown : 1500));
    return total - at(step);
  }

  /** A tick; `slowDown`: the draw's setting (ms), for when the slow-down's last tick comes. */
  tick(tick, { slowDown } = {}) {
    if (!this.slices.length) return;
    const now = performance.now();
    const landing = tick.landing;
    if (!landing) {
      if (this.aim || this.events.length) this.clear(); // a new round
      if (Number.isFinite(tick.at)) this.rollAt = [...this.rollAt.slice(-8), tick.at];
      if (this.reduced) {
        // No spinning: a calm jump a quarter of a second at most, to the tick's value when it is in view.
        if (now - this.lastJump < 250) return;
        this.lastJump = now;
        const index = this.indexOf(tick.value);
        const wanted = WheelMode.angle(this.view, index) ?? WheelMode.angle(this.view, this.start + (Math.max(0, index) % this.slices.length));
        this.path.jump(now, wanted);
      } else if (this.path.end !== Infinity) this.path.spin(now);
      return;
    }
    const key = String(landing.value);
    if (this.aim?.value !== key) {
      const wanted = this.wantedFor(landing.value);
      this.events = [];
      if (wanted === null) this.aim = { value: key, end: this.path.stop(now) };
      else if (this.reduced) this.aim = { value: key, end: now };
      else this.aim = { value: key, end: this.path.land(now, wanted, this.remaining(landing, slowDown)) };
    }
    if (landing.step >= landing.steps) {
      if (this.reduced) { const wanted = this.wantedFor(landing.value); if (wanted !== null) this.path.jump(now, wanted); }
      this.at(this.aim.end, () => this.landed(null, false));
    }
  }

  /** Runs `run` once the frame at `at` has drawn. */
  at(at, run) {
    this.events.push({ at, run });
    this.events.sort((a, b) => a.at - b.at);
  }

  /**
   * The wheel rests on a winner: `data-landed` gets what the pointer shows, read from the wheel's
   * own drawing (the only value, or added to those before it); the list beside it names `winner`.
   */
  landed(winner, append) {
    const slice = this.slices[sliceAt(this.bounds, this.rotation)];
    const shown = slice ? winnerText(slice.value) : '';
    const before = append && this.layer.dataset.landed ? JSON.parse(this.layer.dataset.landed) : [];
    this.layer.dataset.landed = JSON.stringify([...before, shown]);
    if (winner !== null) this.landedList.append(el('li', { text: maskName(winnerText(winner)) }));
  }

  clear() {
    this.aim = null;
    this.events = [];
    this.layer.dataset.landed = '';
    this.landedList.replaceChildren();
  }

  reveal(winners, { live }) {
    if (!this.slices.length || !winners.length) return 0;
    this.events = [];
    this.layer.dataset.landed = '';
    this.landedList.replaceChildren();
    const now = performance.now();
    if (!live) {
      // A page that opens after the reveal: the wheel rests on the last winner, all of them listed.
      const wanted = this.wantedFor(winners.at(-1));
      if (wanted !== null) this.path.jump(now, wanted);
      this.aim = { value: String(winners.at(-1)), end: now };
      this.layer.dataset.landed = JSON.stringify(winners.map(winnerText));
      this.landedList.replaceChildren(...winners.map((w) => el('li', { text: maskName(winnerText(w)) })));
      return 0;
    }
    // The first winner: the slow-down's landing aimed at it already (else it slows down onto it now).
    const first = String(winners[0]);
    let t = this.aim?.value === first ? this.aim.end : null;
    if (t === null) {
      const wanted = this.wantedFor(winners[0]);
      t = wanted === null ? this.path.stop(now) : this.reduced ? this.path.jump(now, wanted) : this.path.land(now, wanted, MIN_LAND_MS);
      this.aim = { value: first, end: t };
    }
    this.at(t, () => this.landed(winners[0], false));
    // The others, one after another: a rest on each, then a turn to the next. A winner outside
    // the window comes with its own window, swapped in halfway through the turn (at full speed).
    let view = this.view;
    for (const w of winners.slice(1)) {
      const index = this.indexOf(w);
      if (index < 0) continue;
      const t0 = Math.max(t + (this.reduced ? 1000 : PAUSE_MS), now);
      let wanted = WheelMode.angle(view, index);
      if (wanted === null) {
        view = this.layout(this.windowAround(index));
        wanted = WheelMode.angle(view, index);
        const next = view;
        this.at(t0 + (this.reduced ? 0 : 400), () => this.show(next));
      }
      t = this.reduced ? this.path.jump(t0, wanted) : this.path.turn(t0, wanted);
      this.at(t, () => this.landed(w, true));
    }
    return Math.max(0, t - now);
  }

  idle() {
    this.clear();
    const now = performance.now();
    if (this.reduced) this.path.jump(now, this.path.state(now).r);
    else this.path.stop(now);
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
    const { slices, bounds } = this.view;
    const n = slices.length;
    // A label runs from near the rim (OUTER) in to INNER: its height fits its slice where the
    // slice is narrowest (at INNER), and its length is cut to the span, so no two labels meet.
    const inner = r * LABEL_INNER;
    const outer = r * LABEL_OUTER;
    // One size for the labels (what an average slice holds); a narrower slice's label is smaller.
    const common = Math.min(r * 0.07, ((TAU * inner) / Math.max(n, 4)) * 0.8);
    g.textBaseline = 'middle';
    g.textAlign = 'right';
    this.painted = [];
    for (let i = 0; i < n; i++) {
      const a0 = bounds[i] * TAU;
      const a1 = bounds[i + 1] * TAU;
      // A ticket of a book (issue 45) is its book's colour; other slices take the wheel's four.
      const color = bookColor(slices[i].value) ?? colors[(i + (n % 4 === 1 && i === n - 1 ? 1 : 0)) % 4].trim();
      g.beginPath();
      g.moveTo(r, r);
      g.arc(r, r, r * 0.98, a0, a1);
      g.closePath();
      g.fillStyle = color;
      g.fill();
      const fontPx = Math.min(common, (a1 - a0) * inner * 0.8);
      let text = '';
      if (fontPx >= 8 * ratio) {
        g.font = `700 ${fontPx}px ${style.fontFamily}`;
        // Masked as the host set (a phone number, a name): the wheel is a screen like any other.
        text = fitted(g, maskName(slices[i].label), outer - inner);
        g.save();
        g.translate(r, r);
        g.rotate((a0 + a1) / 2);
        g.fillStyle = bookColor(slices[i].value) ? inkOn(color) : '#ffffff';
        g.fillText(text, outer, 0);
        g.restore();
      }
      this.painted.push({ value: slices[i].value, text, color, a0: bounds[i], a1: bounds[i + 1], font: fontPx / ratio });
    }
    this.dirty = false;
  }

  /** Pegs (slice edges) passed the pointer since rotation 0: one more per edge, turning forward. */
  pegCount(rotation) {
    const u = (rotation - POINTER) / TAU;
    const whole = Math.floor(u);
    const n = this.slices.length;
    return whole * n + (n - 1 - sliceOf(this.bounds, 1 - (u - whole)));
  }

  draw(now) {
    // Layout is read once per size (and per landed list), not every frame.
    const listed = this.landedList.childElementCount;
    if (!this.box || this.box.listed !== listed) {
      const rect = this.layer.getBoundingClientRect();
      const tall = rect.height > rect.width * 1.15;
      this.root.classList.toggle('is-tall', tall);
      // The list's own size: its names on one line each (at most 40 % of the stage beside the
      // wheel, where a longer name is cut), measured once per name landed.
      let list = { width: 0, height: 0 };
      if (listed) {
        const s = this.landedList.style;
        s.width = 'max-content';
        s.maxWidth = tall ? '100%' : '40%';
        list = this.landedList.getBoundingClientRect();
        s.width = '';
        s.maxWidth = '';
      }
      const side = tall ? Math.min(rect.width, rect.height - list.height) : Math.min(rect.height, rect.width * 0.98 - list.width);
      this.box = { listed, size: Math.max(10, Math.floor(side * 0.96)) };
    }
    const size = this.box.size;
    if (this.canvas.width !== Math.round(size * (window.devicePixelRatio || 1))) {
      this.wheel.style.width = `${size}px`;
      this.wheel.style.height = `${size}px`;
      this.dirty = true;
    }
    if (!this.slices.length) return false;
    if (this.dirty) this.paint(size);
    this.rotation = this.path.state(now).r;
    this.drawnAt = now;
    this.canvas.style.transform = `rotate(${this.rotation}rad)`;
    const pegs = this.pegCount(this.rotation);
    if (this.pegs !== null && pegs > this.pegs) {
      this.layer.dispatchEvent(new CustomEvent('wheel-peg', { bubbles: true, detail: { pegs: pegs - this.pegs } }));
    }
    this.pegs = pegs;
    while (this.events.length && this.events[0].at <= now) this.events.shift().run();
    return now < this.path.end || this.events.length > 0;
  }

  destroy() { this.root.remove(); }
}
