// Slot reels (docs/STAGE.md): one reel per digit for a range, one name reel for a list. While
// rolling every reel shows the tick's value; during the slow-down the reels land from the left,
// digit d of D at the first slow-down step ≥ ⌈(d+1)·n/D⌉ of the server's `landing`; the last
// tick is the first winner. DOM and CSS only.

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

export class ReelsMode {
  constructor(layer, { reduced }) {
    this.layer = layer;
    this.reduced = reduced;
    this.root = el('div', { class: 'reels' });
    layer.append(this.root);
    this.pool = null;
    this.width = 0;
    this.negative = false;
    this.reels = [];
    this.nameRows = null;
    this.lastText = '';
  }

  setPool(pool) {
    if (this.pool && pool.kind === this.pool.kind && pool.kind === 'range' && pool.from === this.pool.from && pool.to === this.pool.to) return;
    this.pool = pool;
    this.root.replaceChildren();
    this.reels = [];
    this.nameRows = null;
    if (pool.kind === 'range') {
      this.width = Math.max(String(Math.abs(pool.from)).length, String(Math.abs(pool.to)).length);
      this.negative = pool.from < 0;
      this.root.dataset.kind = 'digits';
      if (this.negative) this.sign = this.root.appendChild(el('span', { class: 'reel reel-sign', text: '' }));
      for (let d = 0; d < this.width; d++) {
        const digit = el('span', { class: 'reel-digit', text: '0' });
        this.reels.push(digit);
        this.root.append(el('span', { class: 'reel' }, digit));
      }
    } else {
      this.root.dataset.kind = 'name';
      const longest = pool.items.reduce((a, b) => (b.label.length > a.length ? b.label : a), '');
      const window = el('div', { class: 'reel reel-name' });
      this.nameRows = el('div', { class: 'reel-rows' });
      window.append(this.nameRows);
      this.root.append(window);
      this.longest = longest;
      this.resize();
    }
  }

  /** One size per pool (the longest name fits), never per name: the reel does not jump. */
  resize() {
    if (!this.nameRows) return;
    const box = this.layer.getBoundingClientRect();
    if (!box.width) return;
    const ctx = document.createElement('canvas').getContext('2d');
    ctx.font = `800 100px ${getComputedStyle(this.layer).fontFamily}`;
    const width100 = Math.max(1, ctx.measureText(this.longest || 'M').width);
    const size = Math.max(14, Math.min(box.height * 0.3, (box.width * 0.9 * 100) / width100));
    this.root.style.setProperty('--reel-size', `${Math.floor(size)}px`);
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

  showName(text, slide) {
    if (text === this.lastText) return;
    this.lastText = text;
    const row = el('div', { class: 'reel-row', text });
    this.nameRows.replaceChildren(row);
    if (slide && !this.reduced) row.animate?.([{ transform: 'translateY(60%)', opacity: 0.2 }, { transform: 'none', opacity: 1 }], { duration: 90, easing: 'ease-out' });
  }

  tick(tick) {
    if (!this.pool) return;
    const landing = tick.landing;
    if (this.pool.kind === 'range') {
      const landed = landing ? landedReels(landing.step, landing.steps, this.width) : 0;
      // Landed reels show the winner's digits, the others the tick's.
      const shown = reelDigits(tick.value, this.width);
      if (landing) reelDigits(landing.value, this.width).slice(0, landed).forEach((digit, d) => { shown[d] = digit; });
      this.showDigits(shown.join(''), landed, true);
      this.root.dataset.landed = landed === this.width ? JSON.stringify([this.text()]) : '';
    } else {
      this.showName(maskName(winnerText(tick.value)), true);
      this.root.dataset.landed = landing && landing.step >= landing.steps ? JSON.stringify([this.text()]) : '';
    }
    this.layer.dataset.landed = this.root.dataset.landed;
  }

  /** What the reels show now, as text (the landed value once every reel stopped). */
  text() {
    if (this.pool?.kind === 'range') {
      const digits = this.reels.map((r) => r.textContent).join('').replace(/^0+(?=\d)/, '');
      return (this.sign?.textContent ? '-' : '') + digits;
    }
    return this.nameRows?.textContent ?? '';
  }

  reveal(winners) {
    if (!this.pool || !winners.length) return 0;
    if (this.pool.kind === 'range') this.showDigits(String(winners[0]), this.width, false);
    else this.showName(maskName(winnerText(winners[0])), false);
    this.layer.dataset.landed = JSON.stringify([this.text()]);
    return winners.length > 1 ? 1500 : 0;
  }

  idle() {
    this.layer.dataset.landed = '';
    if (this.pool?.kind === 'range') this.showDigits('0', 0, false);
  }

  draw() { return false; }

  destroy() { this.root.remove(); }
}
