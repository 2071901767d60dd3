// The stage's display modes (issue #26, docs/STAGE.md): slot reels, a wheel and a field of
// names, on the screen, the host page and the phones alike. The server decides everything that
// lands: each mode shows the ticks' values as they come, lands on the slow-down ticks'
// `landing` (the first winner, step i of n) and on the result's winners; the page only animates
// between ticks. The mode is the round's prize tier's `mode`, else the draw's (`number`: the
// rolling number of board.js, nothing here).

import { bookTickets } from './books.js';
import { $, el } from './dom.js';
import { entrantNames, winnerText } from './room.js';
import { i18nEvents, t } from './i18n.js';
import { currentPrize, holders } from './board.js';
import { CARD_AT_MOST, WinnerCard } from './winner-card.js';
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
 * pool's public ids; their names when the host shows names and the server lists them), or null
 * while it loads.
 */
async function loadPool(room) {
  const pool = room.config?.pool;
  if (!pool) return null;
  if (pool.kind === 'range') return { kind: 'range', from: pool.from, to: pool.to };
  if (pool.kind === 'books') {
    // The summary carries the books: their tickets, numbered as the server numbers them.
    const config = await room.loadSettings();
    const excluded = new Set((config?.exclude ?? []).map(String));
    return { kind: 'list', items: bookTickets(pool.books).filter((v) => !excluded.has(v)).map((v) => ({ value: v, label: v, weight: 1 })) };
  }
  if (pool.kind === 'checkin') {
    const response = await fetch(`/api/draws/${encodeURIComponent(room.code)}/entries/pool`, { cache: 'no-store' });
    if (!response.ok) return null;
    const body = await response.json();
    // Public names (the host's "show names"): the field and the reels show them, not the ids.
    if (body.names && typeof body.names === 'object') {
      for (const [id, name] of Object.entries(body.names)) if (typeof name === 'string') entrantNames.set(id, name);
    }
    return { kind: 'list', items: (body.entrants ?? []).map((id) => ({ value: id, label: winnerText(id), weight: 1 })) };
  }
  const config = await room.loadSettings();
  const entrants = config?.pool?.entrants;
  if (!Array.isArray(entrants)) return null;
  const excluded = new Set((config.exclude ?? []).map(String));
  return {
    kind: 'list',
    items: entrants
      // winnerText: a private draw's public ids as their short tags (or the host's names).
      .map((e) => (typeof e === 'string' ? { value: e, label: winnerText(e), weight: 1 } : { value: e.name, label: winnerText(e.name), weight: e.tickets ?? 1 }))
      .filter((item) => !excluded.has(item.value)),
  };
}

/** Winners of one round that land one after another; past these the winners' list takes over. */
export const LANDED_AT_MOST = 8;
/** How long the landed mode stays in view before the winner card opens (ms). */
export const CARD_AFTER_MS = 1400;

export class StageModes {
  constructor(room, root = document) {
    this.room = room;
    this.stage = $('[data-stage]', root);
    this.box = $('[data-stage-box]', root);
    this.layer = el('div', { class: 'mode-layer', data: { modeLayer: '' }, attrs: { 'aria-hidden': 'true' } });
    this.box.append(this.layer);
    this.card = new WinnerCard(this.box);
    this.mode = 'number';
    this.renderer = null;
    this.poolKey = null;
    this.pool = null;
    this.takenKey = null;
    this.landingUntil = 0;
    this.cardAt = 0;
    this.shownRound = null;
    this.frame = 0;
    this.motion = window.matchMedia?.('(prefers-reduced-motion: reduce)');
    this.motion?.addEventListener?.('change', () => this.rebuild());
    room.addEventListener('change', ({ detail }) => this.update(detail));
    const resized = new ResizeObserver(() => { this.renderer?.resize(); this.card.fit(); });
    resized.observe(this.layer);
    resized.observe(this.box);
    i18nEvents.addEventListener('change', () => this.update('lang'));
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
      this.takenKey = null; // the new renderer gets the pool below
      this.shownRound = null;
    }
    this.update('mode');
  }

  /** The round the stage is about now: the revealed one, else the armed one. */
  currentRound() {
    return this.room.phase === 'revealed' ? this.room.lastReveal?.round : this.room.plan?.round;
  }

  /** Values won in earlier rounds (out of the pool when repeats are off): not drawn on the wheel or field. */
  taken() {
    if (this.room.config?.repeats) return new Set();
    const current = this.currentRound();
    const out = new Set();
    for (const r of this.room.rounds) if (r.round !== current) for (const w of r.winners) out.add(String(w));
    return out;
  }

  /**
   * Which rounds' winners are off the wheel and the field. It changes when a round is added or
   * changed (a pass, a void), never at the reveal of the round on show: the layout a tick lit
   * and the one the reveal lights are the same (issue 39 item 12).
   */
  takenSignature() {
    if (this.room.config?.repeats) return 'repeats';
    const current = this.currentRound();
    return this.room.rounds.filter((r) => r.round !== current).map((r) => `${r.round}:${r.winners.map(String).join('\u0000')}`).join(';');
  }

  async ensurePool() {
    const c = this.room.config;
    const key = c ? `${c.hash ?? ''}|${c.pool?.kind}|${c.pool?.count ?? ''}|${c.pool?.entrantsHash ?? ''}` : null;
    if (key === this.poolKey) return;
    this.poolKey = key;
    const pool = await loadPool(this.room).catch(() => null);
    if (this.poolKey !== key || !pool) return;
    this.pool = pool;
    this.takenKey = null;
    this.update('pool');
  }

  /** Gives the renderer the pool less the taken values when either changed; the round on show is shown again. */
  syncPool() {
    if (!this.pool || !this.renderer) return;
    const key = this.takenSignature();
    if (key === this.takenKey) return;
    this.takenKey = key;
    this.renderer.setPool(this.pool, this.taken());
    // What the stage showed was laid out on the old pool: land the revealed round again on this one.
    this.shownRound = null;
  }

  /** Who holds the prizes of the revealed round now (claims, passes, voids), or []. */
  held() {
    const round = this.room.lastReveal?.round;
    return Number.isInteger(round) ? holders(this.room, round) : [];
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
    if (!r) {
      this.stage.classList.remove('mode-on', 'has-card');
      this.card.show(null, null);
      return;
    }
    if (detail === 'theme') r.resize(); // colours are read once per size and theme
    this.ensurePool();
    this.syncPool();
    const now = performance.now();
    if (detail === 'tick' && (room.phase === 'rolling' || room.phase === 'stopping') && room.tick) {
      // The draw's slow-down length (display only): the wheel brakes to rest at its last tick.
      if (this.pool) r.tick(room.tick, { slowDown: room.config?.slowDown });
      this.shownRound = null;
    } else if (room.phase === 'revealed' && room.lastReveal) {
      const result = room.lastReveal;
      const key = `${result.round}|${(result.winners ?? []).map(winnerText).join('\u0000')}`;
      const live = detail === 'result';
      if (key !== this.shownRound && this.pool) {
        // Marked shown only once the renderer has its pool: a page that opens after a reveal
        // lands on the winners when the pool arrives (issue 39 item 13).
        this.shownRound = key;
        const winners = (result.winners ?? []).slice(0, LANDED_AT_MOST + 1);
        const ms = r.reveal(winners, { live });
        this.landingUntil = live ? now + ms : 0;
        this.cardAt = live ? now + ms + CARD_AFTER_MS : 0;
        if (live) setTimeout(() => this.update('landed'), ms + CARD_AFTER_MS + 50);
      } else if (live) {
        // Revealed before the pool came: the card after the same pause as a landing.
        this.cardAt = now + CARD_AFTER_MS;
        setTimeout(() => this.update('landed'), CARD_AFTER_MS + 50);
      }
    } else if (room.phase === 'idle' || room.phase === null) {
      this.shownRound = null;
      r.idle({ ready: readyText(room) });
    }
    const on = this.showing();
    const was = this.stage.classList.contains('mode-on');
    this.stage.classList.toggle('mode-on', on);
    this.renderCard(now);
    // The winners' list takes the stage back: let the pages fit it to the room it has now.
    if (was && !on) window.dispatchEvent(new Event('resize'));
    this.loop();
  }

  /** The winner card once the landing is over, while the revealed round has at most CARD_AT_MOST holders. */
  renderCard(now) {
    const room = this.room;
    const held = room.phase === 'revealed' && room.lastReveal ? this.held() : [];
    const on = held.length > 0 && held.length <= CARD_AT_MOST && now >= this.cardAt
      && (room.lastReveal.winners?.length ?? 0) <= CARD_AT_MOST;
    // The class first: the card is measured for its names only once it is laid out.
    this.stage.classList.toggle('has-card', on);
    this.card.show(room.lastReveal, on ? held : null);
  }

  /**
   * Whether the mode holds the stage now: while rolling and landing, and on a revealed round of
   * up to CARD_AT_MOST winners (its card); a larger round hands over to the winners' list once
   * they have landed.
   */
  showing() {
    const room = this.room;
    if (!this.renderer) return false;
    if (room.phase !== 'revealed') return true;
    const count = Math.max(room.lastReveal?.winners?.length ?? 0, this.held().length, room.currentRound?.()?.total ?? 0);
    return count <= CARD_AT_MOST || performance.now() < this.landingUntil;
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

/** "Grand prize · Ready" (the armed round's tier, else its number) for a mode's idle screen. */
function readyText(room) {
  const round = room.plan?.round ?? room.round;
  const title = room.plan?.prize ?? currentPrize(room) ?? (round ? t('draw.round', { n: round }) : '');
  return title ? `${title} · ${t('phase.idle')}` : t('phase.idle');
}

/** A label as it is shown: a winner's text (a check-in id as its public name when known). */
export function labelOf(value) {
  return maskName(winnerText(value));
}
