// The reverse raffle (issue 45, docs/FAIRNESS.md §21, docs/STAGE.md "Reverse raffle"): each round
// of a draw set to `reverse` draws entrants *out*; the last one in wins. Who is still in is read
// from the record, not kept by the page: the session's latest reverse round holds its pool (whose
// `removed` are the host's exclusions and everyone drawn out before) and its `winners` (drawn out
// now), so still in = the round's eligible set less its winners (verify.js's eligibleOf). Before
// the first round everyone not excluded is in.
//
// The projector shows a board of everyone still in, with the batch just drawn out struck through
// in place; it shrinks as the raffle goes on, the font growing to fill the stage (up to 10,000).
// Phones show how many are in, and whether the ticket or name the guest types is still in.

import { $, el, replaceChildren, setText, show } from './dom.js';
import { groupInteger } from './format.js';
import { i18nEvents, locale, t } from './i18n.js';
import { valueText } from './board.js';
import { bookTickets, tint } from './books.js';
import { eligibleOf } from './verify.js';

/** The base of the draw's pool, in the record's order: null for a range, else its names. */
async function baseNames(room) {
  const pool = room.config?.pool;
  if (!pool) return null;
  // A range's exclusions come with the full settings (fullSettings() waits for them).
  if (pool.kind === 'range') { if (!room.fullSettings()) await room.loadSettings(); return null; }
  if (pool.kind === 'books') return bookTickets(pool.books);
  if (pool.kind === 'checkin') {
    const response = await fetch(`/api/draws/${encodeURIComponent(room.code)}/entries/pool`, { cache: 'no-store' });
    return response.ok ? (await response.json()).entrants ?? null : null;
  }
  const config = await room.loadSettings();
  const entrants = config?.pool?.entrants;
  return Array.isArray(entrants) ? entrants.map((e) => (typeof e === 'string' ? e : e.name)) : null;
}

/** The session's latest reverse round record (a result this page has), or null. */
function latestRound(room) {
  const rounds = new Set((room.rounds ?? []).map((r) => r.round));
  let latest = null;
  for (const r of room.results ?? []) {
    if (r?.reverse === true && rounds.has(r.round) && (!latest || r.round > latest.round)) latest = r;
  }
  return latest;
}

/** Whether a result is the whole record: a long history's reveal carries `removedCount` for the
 * pool's `removed` (and a snapshot's summary of a long round `more`): then read the stored one. */
const isWhole = (r) => !r.more && !['removed', 'pastWinners'].some((k) => `${k}Count` in (r.pool ?? {}));

/** The stored record of each summarized round, read once from the export (the same download the
 * page's recheck of such a round makes: room-link.js). */
class StoredRounds {
  constructor(room, link, render) {
    this.room = room;
    this.link = link;
    this.render = render;
    this.byHash = new Map();
    this.asked = new Set();
  }

  whole(r) {
    if (!r || isWhole(r)) return r;
    const stored = this.byHash.get(r.hash);
    if (stored) return stored;
    if (!this.asked.has(r.hash)) {
      this.asked.add(r.hash);
      const read = async (fresh) => (this.link ? await this.link.fetchExport(fresh)
        : await (await fetch(`/api/draws/${encodeURIComponent(this.room.code)}/export.json`, { cache: 'no-store' })).json());
      (async () => {
        let found = (await read(false))?.records?.find((x) => x.hash === r.hash);
        if (!found) found = (await read(true))?.records?.find((x) => x.hash === r.hash);
        if (found) { this.byHash.set(r.hash, found); this.render(); }
      })().catch(() => {});
    }
    return null;
  }
}

/**
 * Who is in, from the record: `{ items: [{ value, state: 'in'|'out'|'gone' }], in, total, round,
 * lastIn }` (items in the pool's order, `out` = drawn out by the latest round, `gone` = earlier),
 * or null while the pool loads. `names`: baseNames(room).
 */
export function reverseModel(room, names, stored = null) {
  const pool = room.config?.pool;
  const settings = room.fullSettings();
  if (!pool || !settings || (pool.kind !== 'range' && !Array.isArray(names))) return null;
  const base = pool.kind === 'range' ? null : names;
  const size = base ? base.length : pool.to - pool.from + 1;
  const at = (i) => (base ? base[i] : pool.from + i);
  const excluded = new Set((settings.exclude ?? []).map(String));
  const latest = latestRound(room);
  const r = latest && stored ? stored.whole(latest) : latest;
  if (latest && !r) return null; // its stored record is on its way
  let still = null;
  let out = new Set();
  if (r) {
    try {
      const { n, element } = eligibleOf(r.pool, base);
      out = new Set(r.winners);
      still = new Set();
      for (let p = 0; p < n; p++) { const v = element(p); if (!out.has(v)) still.add(v); }
    } catch { return null; } // the list on hand is not the round's: wait for the settings
  }
  const items = [];
  for (let i = 0; i < size; i++) {
    const value = at(i);
    if (excluded.has(String(value))) continue;
    const state = !still || still.has(value) ? 'in' : out.has(value) ? 'out' : 'gone';
    items.push({ value, state });
  }
  const inCount = still ? still.size : items.length;
  return { items, in: inCount, total: items.length, round: r?.round ?? null, drawnOut: r ? r.winners.length : 0, lastIn: r?.lastIn ?? null };
}

/** Loads the pool's names once per settings hash and calls `render` when they change. */
class PoolNames {
  constructor(room, render) {
    this.room = room;
    this.render = render;
    this.key = null;
    this.names = null;
  }

  get() {
    const c = this.room.config;
    const key = c ? `${c.hash ?? ''}|${c.pool?.kind}|${this.room.rounds?.length ?? 0}` : null;
    // A check-in pool grows while entries are open: read it again for each round too.
    if (c?.reverse === true && key !== this.key) {
      this.key = key;
      baseNames(this.room).then((names) => { if (this.key === key) { this.names = names; this.render(); } }, () => {});
    }
    return this.names;
  }
}

const n = (x) => groupInteger(x, locale());
/** More cells than this and the board takes the whole projector (5,000 tickets at 10 px and more). */
const DENSE = 2500;

/** The largest font (px) at which `count` cells of `width(f)` px fit `box`; with the columns. */
export function fitGrid(count, box, widthAt1px, { gap = 1, min = 6, max = 160 } = {}) {
  for (let f = max; f > min; f -= 0.25) {
    const cw = widthAt1px * f + f * 0.2; // the label and its padding (reverse.css)
    const ch = f * 1.12; // its line
    const cols = Math.max(1, Math.floor((box.width + gap) / (cw + gap)));
    const rows = Math.ceil(count / cols);
    if (rows * (ch + gap) - gap <= box.height) return { font: f, cols };
  }
  return { font: min, cols: Math.max(1, Math.floor(box.width / (widthAt1px * min + min))) };
}

/** The projector's board: everyone still in, the batch just drawn out struck through. */
export class ReverseBoard {
  constructor(room, node, link = null) {
    this.room = room;
    this.node = node;
    this.names = new PoolNames(room, () => this.render());
    this.stored = new StoredRounds(room, link, () => this.render());
    this.count = el('p', { class: 'reverse-count', data: { reverseCount: '' } });
    this.line = el('p', { class: 'reverse-line', data: { reverseLine: '' } });
    this.grid = el('ol', { class: 'reverse-grid', data: { reverseGrid: '' } });
    node.append(el('div', { class: 'reverse-head' }, this.count, this.line), this.grid);
    this.shown = '';
    // Measures labels off screen, in a cell's own style (reverse.css).
    this.probe = el('span', { class: 'reverse-cell reverse-probe', attrs: { 'aria-hidden': 'true' } });
    node.append(this.probe);
    new ResizeObserver(() => this.layout()).observe(this.grid);
  }

  render() {
    const room = this.room;
    const on = room.config?.reverse === true && (room.phase === 'idle' || room.phase === 'revealed' || room.phase === null);
    const model = on ? reverseModel(room, this.names.get(), this.stored) : null;
    show(this.node, Boolean(model));
    document.documentElement.classList.toggle('reverse-on', Boolean(model));
    if (!model) { document.documentElement.classList.remove('reverse-dense'); this.shown = ''; return; }
    setText(this.count, t('reverse.count', { n: n(model.in), total: n(model.total) }));
    setText(this.line, model.lastIn !== null ? t('reverse.last', { value: valueText(model.lastIn) })
      : model.round ? t('reverse.out', { round: model.round, k: n(model.drawnOut) }) : t('reverse.heading'));
    this.node.classList.toggle('reverse-done', model.lastIn !== null);
    const shown = model.items.filter((i) => i.state !== 'gone');
    const key = shown.map((i) => `${i.value}:${i.state}`).join('|');
    if (key !== this.shown) {
      this.shown = key;
      // Tickets as printed (217, not 2,17… grouped): the densest grid reads best without separators.
      replaceChildren(this.grid, shown.map((i) => tint(el('li', {
        class: `reverse-cell${i.state === 'out' ? ' reverse-out' : ''}`, text: typeof i.value === 'number' ? String(i.value) : valueText(i.value),
        data: { value: String(i.value), state: i.state },
      }), i.value)));
      // Thousands at once take the whole screen (the side panel comes back as the board thins out).
      document.documentElement.classList.toggle('reverse-dense', shown.length > DENSE);
    }
    this.layout();
  }

  /** Sizes the grid's font so every cell fits the stage without scrolling. */
  layout() {
    const cells = this.grid.children.length;
    if (!cells || this.node.hidden) return;
    const box = this.grid.getBoundingClientRect();
    // The widest label, measured as a cell draws it (its font, weight and spacing) at 100 px: the
    // ten longest by characters are measured, the rest cannot be wider by much.
    const labels = [...new Set(Array.from(this.grid.children, (c) => c.textContent))].sort((a, b) => b.length - a.length).slice(0, 10);
    this.probe.style.fontSize = '100px';
    let widest = 0;
    for (const label of labels) {
      this.probe.textContent = label;
      widest = Math.max(widest, this.probe.getBoundingClientRect().width / 100);
    }
    // A long name is cut with an ellipsis rather than shrinking everyone to fit it.
    const { font, cols } = fitGrid(cells, box, Math.min(widest, 9) - 0.2);
    this.grid.style.fontSize = `${font}px`;
    this.grid.style.gridTemplateColumns = `repeat(${cols}, minmax(0, 1fr))`;
  }
}

/** A phone's (and the host's) card: how many are in, and whether the guest's own entry is. */
export class ReverseStatus {
  constructor(room, node, link = null) {
    this.room = room;
    this.node = node;
    this.names = new PoolNames(room, () => this.render());
    this.stored = new StoredRounds(room, link, () => this.render());
    this.heading = el('h2', { class: 'reverse-heading' });
    this.count = el('p', { class: 'reverse-count', data: { reverseCount: '' } });
    this.line = el('p', { class: 'reverse-line', data: { reverseLine: '' } });
    this.label = el('span');
    this.input = el('input', { attrs: { type: 'text', autocomplete: 'off', inputmode: 'text' }, data: { reverseMine: '' },
      on: { input: () => { localStorage.setItem(this.storageKey(), this.input.value); this.render(); } } });
    this.mine = el('p', { class: 'reverse-mine', data: { reverseMineLine: '' }, attrs: { 'aria-live': 'polite' } });
    node.append(this.heading, this.count, this.line, el('label', { class: 'field' }, this.label, this.input), this.mine);
    this.input.value = localStorage.getItem(this.storageKey()) ?? '';
  }

  storageKey() { return `tombola.reverse.${this.room.code}`; }

  render() {
    const room = this.room;
    const on = room.config?.reverse === true;
    const model = on ? reverseModel(room, this.names.get(), this.stored) : null;
    show(this.node, Boolean(model));
    if (!model) return;
    // A checked-in phone knows its entry; a typed ticket or name wins over it.
    if (!this.input.value && room.me?.id) this.input.value = room.me.id;
    setText(this.heading, t('reverse.heading'));
    setText(this.label, t('reverse.mine.label'));
    setText(this.count, t('reverse.count', { n: n(model.in), total: n(model.total) }));
    setText(this.line, model.lastIn !== null ? t('reverse.last', { value: valueText(model.lastIn) })
      : model.round ? t('reverse.out', { round: model.round, k: n(model.drawnOut) }) : '');
    const typed = this.input.value.trim();
    if (!typed) { setText(this.mine, ''); return; }
    const fold = (s) => String(s).trim().toLocaleLowerCase();
    const item = model.items.find((i) => String(i.value) === typed || valueText(i.value) === typed)
      ?? model.items.find((i) => fold(valueText(i.value)) === fold(typed));
    this.mine.dataset.state = item ? (model.lastIn !== null && item.value === model.lastIn ? 'last' : item.state) : 'none';
    if (!item) { setText(this.mine, t('reverse.mine.none', { value: typed })); return; }
    const value = valueText(item.value);
    if (this.mine.dataset.state === 'last') setText(this.mine, t('reverse.mine.last', { value }));
    else if (item.state === 'in') setText(this.mine, t('reverse.mine.in', { value }));
    else {
      const round = (room.rounds ?? []).find((r) => r.winners.some((w) => (w.value ?? w) === item.value))?.round;
      setText(this.mine, round ? t('reverse.mine.out', { value, round }) : t('reverse.mine.gone', { value }));
    }
  }
}

/** Fills the page's `[data-reverse-board]` (projector) or `[data-reverse-status]` (phones, host);
 * `link`: the page's connection (room-link.js), whose export download it shares. */
export function showReverse(room, link = null) {
  const board = $('[data-reverse-board]');
  const status = $('[data-reverse-status]');
  const views = [board && new ReverseBoard(room, board, link), status && new ReverseStatus(room, status, link)].filter(Boolean);
  const render = () => views.forEach((v) => v.render());
  room.addEventListener('change', render);
  i18nEvents.addEventListener('change', render);
  render();
  return views;
}
