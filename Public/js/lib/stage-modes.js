// The stage's display modes (issue #26, docs/STAGE.md): slot reels, a wheel and a field of
// names, on the screen, the host page and the phones alike. The server decides everything that
// lands: each mode shows the ticks' values as they come, lands on the slow-down ticks'
// `landing` (the first winner, step i of n) and on the result's winners; the page only animates
// between ticks. The mode is the round's prize tier's `mode`, else the draw's (`number`: the
// rolling number of board.js, nothing here).

import { $, el } from './dom.js';
import { winnerText } from './room.js';
import { maskName } from './mask.js';
import { ReelsMode } from './mode-reels.js';
import { WheelMode } from './mode-wheel.js';
import { NamesMode } from './mode-names.js';

export const MODES = ['number', 'reels', 'wheel', 'names'];
const RENDERERS = { reels: ReelsMode, wheel: WheelMode, names: NamesMode };

/** The mode of the round on show (the revealed one, else the armed one): its tier's, else the draw's. */
export function modeFor(room) {
  const config = room.config;
  if (!config) return 'number';
  const featured = room.phase === 'revealed' ? room.lastReveal : null;
  const index = featured ? featured.prizeIndex : room.plan?.prizeIndex ?? room.currentPrize;
  const tier = Number.isInteger(index) && Array.isArray(config.prizes) ? config.prizes[index] : null;
  const mode = tier?.mode ?? config.mode ?? 'number';
  return MODES.includes(mode) ? mode : 'number';
}

/**
 * The pool as the modes draw it: `{ kind: 'range', from, to }` or `{ kind: 'list', items:
 * [{ value, label, weight }] }` (a list's names and tickets from the full settings, a check-in
 * pool's public ids), or null while it loads.
 */
async function loadPool(room) {
  const pool = room.config?.pool;
  if (!pool) return null;
  if (pool.kind === 'range') return { kind: 'range', from: pool.from, to: pool.to };
  if (pool.kind === 'checkin') {
    const response = await fetch(`/api/draws/${encodeURIComponent(room.code)}/entries/pool`, { cache: 'no-store' });
    if (!response.ok) return null;
    const body = await response.json();
    return { kind: 'list', items: (body.entrants ?? []).map((id) => ({ value: id, label: winnerText(id), weight: 1 })) };
  }
  const config = await room.loadSettings();
  const entrants = config?.pool?.entrants;
  if (!Array.isArray(entrants)) return null;
  const excluded = new Set((config.exclude ?? []).map(String));
  return {
    kind: 'list',
    items: entrants
      .map((e) => (typeof e === 'string' ? { value: e, label: e, weight: 1 } : { value: e.name, label: e.name, weight: e.tickets ?? 1 }))
      .filter((item) => !excluded.has(item.value)),
  };
}

/** Winners of one round that land one after another; past these the winners' list takes over. */
export const LANDED_AT_MOST = 8;

export class StageModes {
  constructor(room, root = document) {
    this.room = room;
    this.stage = $('[data-stage]', root);
    this.box = $('[data-stage-box]', root);
    this.layer = el('div', { class: 'mode-layer', data: { modeLayer: '' }, attrs: { 'aria-hidden': 'true' } });
    this.box.append(this.layer);
    this.mode = 'number';
    this.renderer = null;
    this.poolKey = null;
    this.pool = null;
    this.landingUntil = 0;
    this.shownRound = null;
    this.frame = 0;
    this.motion = window.matchMedia?.('(prefers-reduced-motion: reduce)');
    this.motion?.addEventListener?.('change', () => this.rebuild());
    room.addEventListener('change', ({ detail }) => this.update(detail));
    new ResizeObserver(() => this.renderer?.resize()).observe(this.layer);
    document.addEventListener('visibilitychange', () => this.loop());
  }

  get reduced() { return Boolean(this.motion?.matches); }

  rebuild() {
    this.renderer?.destroy();
    this.renderer = null;
    this.layer.replaceChildren();
    const Renderer = RENDERERS[this.mode];
    if (Renderer) {
      this.renderer = new Renderer(this.layer, { reduced: this.reduced });
      if (this.pool) this.renderer.setPool(this.pool, this.taken());
      this.shownRound = null;
    }
    this.update('mode');
  }

  /** Values won in earlier rounds (out of the pool when repeats are off): not drawn on the wheel or field. */
  taken() {
    if (this.room.config?.repeats) return new Set();
    const current = this.room.phase === 'revealed' ? this.room.lastReveal?.round : this.room.plan?.round;
    const out = new Set();
    for (const r of this.room.rounds) if (r.round !== current) for (const w of r.winners) out.add(String(w));
    return out;
  }

  async ensurePool() {
    const c = this.room.config;
    const key = c ? `${c.hash ?? ''}|${c.pool?.kind}|${c.pool?.count ?? ''}|${this.room.rounds.length}` : null;
    if (key === this.poolKey) return;
    this.poolKey = key;
    const pool = await loadPool(this.room).catch(() => null);
    if (this.poolKey !== key || !pool) return;
    this.pool = pool;
    this.renderer?.setPool(pool, this.taken());
    this.update('pool');
  }

  update(detail) {
    const room = this.room;
    const mode = modeFor(room);
    if (mode !== this.mode) {
      this.mode = mode;
      this.stage.dataset.mode = mode;
      this.rebuild();
      return;
    }
    const r = this.renderer;
    if (!r) { this.stage.classList.remove('mode-on'); return; }
    if (detail === 'theme') r.resize(); // colours are read once per size and theme
    this.ensurePool();
    if (detail === 'tick' && (room.phase === 'rolling' || room.phase === 'stopping') && room.tick) {
      r.tick(room.tick);
      this.shownRound = null;
    } else if (room.phase === 'revealed' && room.lastReveal) {
      const result = room.lastReveal;
      const key = `${result.round}|${(result.winners ?? []).map(winnerText).join('\u0000')}`;
      if (key !== this.shownRound) {
        this.shownRound = key;
        const winners = (result.winners ?? []).slice(0, LANDED_AT_MOST + 1);
        const live = detail === 'result';
        const ms = r.reveal(winners, { live });
        this.landingUntil = live ? performance.now() + ms : 0;
        if (live && ms > 0) setTimeout(() => this.update('landed'), ms + 50);
      }
    } else if (room.phase === 'idle' || room.phase === null) {
      this.shownRound = null;
      r.idle();
    }
    const on = this.showing();
    const was = this.stage.classList.contains('mode-on');
    this.stage.classList.toggle('mode-on', on);
    // The winners' list takes the stage back: let the pages fit it to the room it has now.
    if (was && !on) window.dispatchEvent(new Event('resize'));
    this.loop();
  }

  /**
   * Whether the mode holds the stage now: while rolling and landing, and on a revealed round of
   * one winner; a round of several hands over to the winners' list once they have landed.
   */
  showing() {
    const room = this.room;
    if (!this.renderer) return false;
    if (room.phase !== 'revealed') return true;
    const count = Math.max(room.lastReveal?.winners?.length ?? 0, room.currentRound?.()?.total ?? 0);
    return count <= 1 || performance.now() < this.landingUntil;
  }

  loop() {
    if (this.frame || !this.renderer || document.hidden) return;
    const step = (now) => {
      this.frame = 0;
      if (!this.renderer || document.hidden) return;
      const more = this.renderer.draw(now);
      if (more || this.room.phase === 'rolling' || this.room.phase === 'stopping') this.frame = requestAnimationFrame(step);
    };
    this.frame = requestAnimationFrame(step);
  }
}

/** A label as it is shown: a winner's text (a check-in id as its public name when known). */
export function labelOf(value) {
  return maskName(winnerText(value));
}
