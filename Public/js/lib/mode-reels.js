// Slot reels (docs/STAGE.md): one reel per digit for a range, one name reel for a list. While
// rolling every reel shows the tick's value; during the slow-down the reels land from the left,
// digit d of D at the first slow-down step ≥ ⌈(d+1)·n/D⌉ of the server's `landing`; the last
// tick is the first winner. The name reel is a strip: each tick's name comes in from above and
// the strip moves one row down over the time to the next tick, so it runs as fast as the ticks
// come and slows with the server's slow-down, however long that is. DOM and CSS only.

import { tint } from './books.js';
import { el } from './dom.js';
import { winnerText } from './room.js';
import { maskName } from './mask.js';

/** The digits of a range's value as its reels show them: padded to the widest bound's length. */
export function reelDigits(value, width) {
  const n = Math.abs(Number(value));
  return String(n).padStart(width, '0').slice(-width).split('');
}

/** How many reels (from the left) have landed at slow-down step `step` of `steps`, of `width`. */
export function landedReels(step, steps, width) {
  if (!steps || step >= steps) return width;
  let landed = 0;
  for (let d = 0; d < width; d++) if (step >= Math.ceil(((d + 1) * steps) / width)) landed = d + 1;
  return landed;
}

/** Milliseconds between the winners of a round of several as the reel rolls on to each. */
const NEXT_WINNER_MS = 900;
/** Rows kept in the strip below the one in view (the rest are dropped). */
const ROWS_KEPT = 3;
/** Names sampled to size the strip (the 90th percentile's width sets the size, not the widest). */
const SAMPLE = 400;

const label = (value) => maskName(winnerText(value));
/** Ease-out with a small overshoot: a reel that stops with a bump. */
const settle = (x) => 1 + 2.2 * (x - 1) ** 3 + 1.2 * (x - 1) ** 2;
const linear = (x) => x;

export class ReelsMode {
  constructor(layer, { reduced }) {
    this.layer = layer;
    this.reduced = reduced;
    this.ready = el('p', { class: 'reels-ready' });
    this.root = el('div', { class: 'reels' });
    this.wrap = el('div', { class: 'reels-wrap' }, this.ready, this.root);
    layer.append(this.wrap);
    this.pool = null;
    this.width = 0;
    this.negative = false;
    this.reels = [];
    this.strip = null;
    this.rows = [];          // the name strip's rows, newest (top) first: [{ text, node }]
    this.pos = 0;            // which row is in view (fractional while moving)
    this.anim = null;        // { from, at, ms, ease }
    this.queue = [];         // a round's further winners: [{ value, at }]
    this.lastAt = 0;         // the previous tick's server time
    this.lastTickAt = 0;     // the previous tick's page time (reduced motion)
    this.measure = null;
    this.widths = new Map();
  }

  setPool(pool, taken = new Set()) {
    // At rest the strip shows names still in the pool, never an earlier winner.
    this.resting = pool.kind === 'range' ? [] : pool.items.filter((item) => !taken.has(String(item.value))).slice(0, 2);
    const same = this.pool && pool.kind === this.pool.kind
      && (pool.kind === 'range' ? pool.from === this.pool.from && pool.to === this.pool.to : true);
    this.pool = pool;
    if (pool.kind !== 'range') { this.items = pool.items; if (!same) this.buildStrip(); this.resize(); return; }
    if (same) return;
    this.root.replaceChildren();
    this.reels = [];
    this.strip = null;
    this.width = Math.max(String(Math.abs(pool.from)).length, String(Math.abs(pool.to)).length);
    this.negative = pool.from < 0;
    this.root.dataset.kind = 'digits';
    this.sign = this.negative ? this.root.appendChild(el('span', { class: 'reel reel-sign', text: '' })) : null;
    for (let d = 0; d < this.width; d++) {
      const digit = el('span', { class: 'reel-digit', text: '0' });
      this.reels.push(digit);
      this.root.append(el('span', { class: 'reel' }, digit));
    }
  }

  buildStrip() {
    this.root.replaceChildren();
    this.reels = [];
    this.sign = null;
    this.root.dataset.kind = 'name';
    this.strip = el('div', { class: 'reel-rows' });
    this.window = el('div', { class: 'reel reel-name' }, this.strip);
    this.root.append(this.window);
    this.rows = [];
    this.pos = 0;
    this.anim = null;
  }

  /** A name's width at 100 px in the reel's font (cached). */
  widthOf(text) {
    let w = this.widths.get(text);
    if (w === undefined) {
      if (!this.measure) {
        this.measure = document.createElement('canvas').getContext('2d');
        this.measure.font = `800 100px ${getComputedStyle(this.layer).fontFamily}`;
      }
      w = Math.max(1, this.measure.measureText(text).width);
      if (this.widths.size > 2000) this.widths.clear();
      this.widths.set(text, w);
    }
    return w;
  }

  /**
   * One size for the strip from the band's height and the width of the pool's usual names (the
   * 90th percentile), not its longest: an outlier is shrunk on its own row only.
   */
  resize() {
    if (!this.strip) return;
    const box = this.layer.getBoundingClientRect();
    if (!box.width) return;
    this.measure = null;
    this.widths.clear();
    const items = this.items ?? [];
    const step = Math.max(1, Math.floor(items.length / SAMPLE));
    const sample = [];
    for (let i = 0; i < items.length; i += step) sample.push(this.widthOf(label(items[i].value)));
    sample.sort((a, b) => a - b);
    const usual = sample.length ? sample[Math.floor((sample.length - 1) * 0.9)] : this.widthOf('MMMMMMMM');
    this.bandWidth = box.width * 0.92;
    this.size = Math.floor(Math.max(14, Math.min(box.height * 0.26, (this.bandWidth * 100) / usual)));
    this.rowHeight = Math.round(this.size * 1.3);
    this.root.style.setProperty('--reel-size', `${this.size}px`);
    this.root.style.setProperty('--reel-row', `${this.rowHeight}px`);
    for (const row of this.rows) this.sizeRow(row);
    this.place();
  }

  sizeRow(row) {
    const size = Math.max(10, Math.min(this.size, Math.floor((this.bandWidth * 100) / this.widthOf(row.text))));
    row.node.style.fontSize = `${size}px`;
  }

  /** Puts `value`'s name on top of the strip; the strip then moves it into view over `ms`. */
  push(value, ms, ease) {
    const text = label(value);
    const row = { text, node: tint(el('div', { class: 'reel-row', text }), value) };
    this.sizeRow(row);
    this.strip.prepend(row.node);
    this.rows.unshift(row);
    this.pos += 1;
    this.mark(false);
    if (this.reduced || ms <= 0) { this.pos = 0; this.anim = null; } else this.anim = { from: this.pos, at: performance.now(), ms, ease };
    while (this.rows.length > ROWS_KEPT + 1 + Math.ceil(this.pos)) this.rows.pop().node.remove();
    this.place();
  }

  /** The strip showing `value` alone, at rest. */
  rest(value) {
    this.strip.replaceChildren();
    this.rows = [];
    this.pos = 0;
    this.anim = null;
    this.push(value, 0);
  }

  place() {
    if (!this.strip || !this.rowHeight) return;
    const y = (this.window.clientHeight || this.rowHeight * 2) / 2 - this.rowHeight * (this.pos + 0.5);
    this.strip.style.transform = `translateY(${y.toFixed(1)}px)`;
  }

  /** The row in view is a winner (lit) or a rolling name. */
  mark(won, idle = false) {
    this.strip?.classList.toggle('is-idle', idle);
    this.rows.forEach((row, i) => row.node.classList.toggle('is-winner', won && i === 0));
  }

  showDigits(value, landed, spinning) {
    const digits = reelDigits(value, this.width);
    this.reels.forEach((node, d) => {
      node.textContent = digits[d];
      const isLanded = d < landed;
      const reel = node.parentElement;
      if (isLanded && !reel.classList.contains('is-landed') && !this.reduced) node.animate?.([{ transform: 'translateY(-30%)' }, { transform: 'none' }], { duration: 260, easing: 'cubic-bezier(.2,1.6,.4,1)' });
      reel.classList.toggle('is-landed', isLanded);
      reel.classList.toggle('is-spinning', spinning && !isLanded && !this.reduced);
    });
    if (this.sign) this.sign.textContent = Number(value) < 0 ? '−' : '';
  }

  tick(tick) {
    if (!this.pool) return;
    this.ready.hidden = true;
    this.queue = [];
    const landing = tick.landing;
    const final = Boolean(landing && landing.step >= landing.steps);
    if (this.pool.kind === 'range') {
      const landed = landing ? landedReels(landing.step, landing.steps, this.width) : 0;
      // Landed reels show the winner's digits, the others the tick's.
      const shown = reelDigits(tick.value, this.width);
      if (landing) reelDigits(landing.value, this.width).slice(0, landed).forEach((digit, d) => { shown[d] = digit; });
      this.showDigits(shown.join(''), landed, true);
      this.root.dataset.landed = landed === this.width ? JSON.stringify([this.text()]) : '';
    } else {
      const now = performance.now();
      if (this.reduced && !landing && now - this.lastTickAt < 250) return;
      this.lastTickAt = now;
      // The strip moves one row in the time to the next tick, which the server's slow-down
      // stretches by a fifth each step: measured from the ticks, whatever the slow-down's length.
      const at = Number.isFinite(tick.at) ? tick.at : Date.now();
      const gap = Math.max(30, Math.min(1500, at - (this.lastAt || at - 50)));
      this.lastAt = at;
      // The last one settles in at most 0.8 s, however long the slow-down's last step was.
      const ms = final ? Math.min(800, Math.max(450, gap * 1.5)) : landing ? gap * 1.2 : gap;
      this.push(tick.value, ms, final ? settle : linear);
      if (final) this.mark(true);
      this.root.dataset.landed = final ? JSON.stringify([this.text()]) : '';
    }
    this.layer.dataset.landed = this.root.dataset.landed;
  }

  /** What the reels show now, as text (the landed value once every reel stopped). */
  text() {
    if (this.pool?.kind === 'range') {
      const digits = this.reels.map((r) => r.textContent).join('').replace(/^0+(?=\d)/, '');
      return (this.sign?.textContent ? '-' : '') + digits;
    }
    return this.rows[0]?.text ?? '';
  }

  /** Lands on the first winner (at once for a page that loads late); further winners roll in one by one. */
  reveal(winners, { live } = {}) {
    if (!this.pool || !winners.length) return 0;
    this.ready.hidden = true;
    this.queue = [];
    if (this.pool.kind === 'range') this.showDigits(String(winners[0]), this.width, false);
    else if (!live) this.rest(winners[0]);
    else if (this.text() !== label(winners[0])) this.push(winners[0], 700, settle); // a void's replacement rolls in
    if (this.strip) this.mark(true);
    const now = performance.now();
    if (live && winners.length > 1) this.queue = winners.slice(1).map((value, i) => ({ value, at: now + (i + 1) * NEXT_WINNER_MS }));
    this.layer.dataset.landed = JSON.stringify([this.text()]);
    return live && winners.length > 1 ? (winners.length - 1) * NEXT_WINNER_MS + 600 : 0;
  }

  /** At rest before a round: the reels at zero or the pool's first names, under the tier and "Ready". */
  idle({ ready } = {}) {
    this.layer.dataset.landed = '';
    this.queue = [];
    this.ready.textContent = ready ?? '';
    this.ready.hidden = !ready;
    if (this.pool?.kind === 'range') this.showDigits('0', 0, false);
    else if (this.strip && this.resting.length) {
      this.rest(this.resting.at(-1).value);
      if (this.resting.length > 1) this.push(this.resting[0].value, 0);
      this.mark(false, true);
    }
  }

  draw(now) {
    let more = false;
    while (this.queue.length && now >= this.queue[0].at) {
      const { value } = this.queue.shift();
      if (this.pool.kind === 'range') this.showDigits(String(value), this.width, false);
      else { this.push(value, 700, settle); this.mark(true); }
      this.layer.dataset.landed = JSON.stringify([this.text()]);
    }
    if (this.queue.length) more = true;
    if (this.anim) {
      const x = Math.min(1, (now - this.anim.at) / this.anim.ms);
      this.pos = this.anim.from * (1 - this.anim.ease(x));
      if (x >= 1) { this.pos = 0; this.anim = null; } else more = true;
      this.place();
    }
    return more;
  }

  destroy() { this.wrap.remove(); }
}
