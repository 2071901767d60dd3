// Owns the projector page's DOM.

import { $, el, fitText, replaceChildren, setText, show } from '../lib/dom.js';
import { locale, t } from '../lib/i18n.js';
import { groupInteger } from '../lib/format.js';
import { Stage, renderHistory, valueText } from '../lib/board.js';
import { winnerText } from '../lib/room.js';
import { reasonText } from '../lib/claims.js';
import { tint } from '../lib/books.js';

const PER_PAGE_NUMBERS = 12;
/** Up to 12 names on one page: at 1920x1080 each stays at 40 px or more (issue 39, item 7). */
const PER_PAGE_NAMES = 12;
const HISTORY_ROUNDS = 8;
/** A round with more winners than this is long: denser pages, read from the server as they come. */
const LONG_ROUND = 60;
const PER_PAGE_NUMBERS_LONG = 48;
const PER_PAGE_NAMES_LONG = 30;

/** Columns for n winners on one page: one per row up to 3, then 2 (up to five rows), then 3. */
function columnsFor(n) {
  return n <= 3 ? 1 : n <= 10 ? 2 : 3;
}

/** Pages of even size: 14 names at 12 a page are 7 + 7, not 12 + 2 (two giant cells on their own). */
function balanced(total, most) {
  return Math.ceil(total / Math.ceil(total / most));
}

/**
 * The round's current winners in the places this screen showed them: a void's replacement (or
 * the replacement's own replacement) takes the cell of the winner it replaces. The board lists a
 * replacement after the others, so the order is the one this page remembers for the round (a
 * page opened after the void shows the board's order). Returns the list and the order to keep.
 */
export function inPlace(winners, remembered) {
  const active = winners.filter((w) => !w.voided);
  const byValue = new Map(active.map((w) => [winnerText(w.value), w]));
  const byReplaced = new Map();
  for (const w of winners) if (w.replaces !== undefined) byReplaced.set(winnerText(w.replaces), w);
  const out = [];
  const placed = new Set();
  for (const value of remembered ?? []) {
    let holder = byValue.get(value);
    let key = value;
    for (let hops = 0; !holder && hops <= winners.length; hops++) {
      const next = byReplaced.get(key);
      if (!next) break;
      key = winnerText(next.value);
      holder = byValue.get(key);
    }
    if (holder && !placed.has(holder)) { placed.add(holder); out.push(holder); }
  }
  for (const w of active) if (!placed.has(w)) out.push(w);
  return { list: out, order: out.map((w) => winnerText(w.value)) };
}

export class ScreenView {
  constructor(root = document) {
    this.root = root;
    this.stage = Stage.within(root, { fit: { max: 2000, min: 24, waitingMax: 90 }, loadNames: true });
    this.winnersBox = $('[data-round-winners]', root);
    this.winners = $('[data-winners]', root);
    this.pager = $('[data-pager]', root);
    this.history = $('[data-history]', root);
    this.qr = $('[data-qr]', root);
    this.joinUrlNode = $('[data-join-url]', root);
    this.themeButton = $('[data-theme]', root);
    this.soundButton = $('[data-sound]', root);
    this.fullscreenButton = $('[data-fullscreen]', root);
    this.historySection = $('.side-history', root);
    this.voidedLine = $('[data-voided-line]', root);
    this.qrFor = null;
    this.pages = 1;
    this.manyShown = '';
    this.fitFrame = 0;
    window.addEventListener('resize', () => { if (this.manyShown) this.fitWinners(); });
    this.qr.addEventListener('error', () => show(this.qr, false));
    this.qr.addEventListener('load', () => show(this.qr, true));
    this.wireControlsVisibility();
    if (!document.fullscreenEnabled) show(this.fullscreenButton, false);
  }

  wireControlsVisibility() {
    let timer = 0;
    document.addEventListener('pointermove', () => {
      document.body.classList.add('show-controls');
      clearTimeout(timer);
      timer = setTimeout(() => document.body.classList.remove('show-controls'), 3000);
    });
  }

  /** A message over the stage for a few seconds ('' hides it). */
  notice(text) {
    const node = $('[data-screen-notice]', this.root);
    clearTimeout(this.noticeTimer);
    setText(node, text);
    show(node, Boolean(text));
    if (text) this.noticeTimer = setTimeout(() => show(node, false), 6000);
  }

  bindFullscreen(handler) { this.fullscreenButton.addEventListener('click', handler); }
  bindTheme(handler) { this.themeButton.addEventListener('click', handler); }
  bindSound(handler) { this.soundButton.addEventListener('click', handler); }

  /**
   * The revealed round's winners, a page at a time (the page turns every few seconds). A long
   * round shows more per page, and the page reads the winners it does not hold yet from the
   * server (the snapshot lists a round's first ones only), a page ahead.
   */
  renderMany(current, requestedPage, state) {
    const numeric = current.winners.every((w) => typeof w.value === 'number');
    const total = Math.max(current.total ?? 0, current.winners.length);
    const long = total > LONG_ROUND;
    const perPage = long ? (numeric ? PER_PAGE_NUMBERS_LONG : PER_PAGE_NAMES_LONG) : balanced(total, numeric ? PER_PAGE_NUMBERS : PER_PAGE_NAMES);
    this.pages = Math.ceil(total / perPage);
    const page = Math.min(requestedPage, this.pages - 1);
    const end = Math.min(total, (page + 1) * perPage);
    if (current.winners.length < Math.min(total, end + perPage)) state.loadWinners(current.round, end + perPage);
    const shown = current.winners.slice(page * perPage, end);
    const signature = `${current.round}|${page}|${total}|${t('draw.replaces')}|${shown.map((w) => `${winnerText(w.value)}:${winnerText(w.replaces)}`).join(',')}`;
    const range = long ? t('screen.range', { from: groupInteger(page * perPage + 1, locale()), to: groupInteger(end, locale()), total: groupInteger(total, locale()) }) : '';
    setText(this.pager, this.pages > 1 ? [range, t('screen.page', { page: page + 1, pages: this.pages })].filter(Boolean).join(' · ') : '');
    if (signature === this.manyShown) return;
    this.manyShown = signature;
    const cols = long ? (numeric ? 4 : 3) : columnsFor(shown.length);
    this.winners.dataset.cols = String(cols);
    this.winners.dataset.rows = String(Math.ceil((long ? perPage : shown.length) / cols));
    this.winners.dataset.long = String(long);
    replaceChildren(this.winners, shown.map((w) => {
      const note = w.replaces !== undefined ? t('draw.replaces', { value: valueText(w.replaces) }) : '';
      return el('li', { class: w.replaces !== undefined ? 'winner-cell is-replacement' : 'winner-cell', data: { winner: winnerText(w.value) } },
        el('div', { class: 'winner-box' }, tint(el('span', { class: 'winner-value', text: valueText(w.value) }), w.value)),
        note ? el('span', { class: 'winner-note', text: note }) : null);
    }));
    this.fitWinners();
  }

  /** Sizes every winner to its cell (after layout, and again when the window changes). */
  fitWinners() {
    cancelAnimationFrame(this.fitFrame);
    this.fitFrame = requestAnimationFrame(() => {
      const values = [];
      for (const cell of this.winners.children) {
        const box = cell.querySelector('.winner-box');
        const value = cell.querySelector('.winner-value');
        fitText(value, { max: Math.max(24, box.clientHeight), min: 14, box, wrap: !/^[\d,.\s\u00a0\u202f-]+$/.test(value.textContent) });
        values.push(value);
      }
      // A dense page of a long round reads as one list: every name at the size the longest fits.
      if (this.winners.dataset.long === 'true' && values.length) {
        const size = Math.min(...values.map((v) => parseFloat(v.style.fontSize) || Infinity));
        if (Number.isFinite(size)) for (const v of values) v.style.fontSize = `${size}px`;
      }
    });
  }

  renderTick(state) {
    this.stage.renderValue(state);
  }

  render(state) {
    document.documentElement.classList.toggle('theme-light', state.theme === 'light');
    document.documentElement.classList.toggle('theme-dark', state.theme !== 'light');
    this.themeButton.setAttribute('aria-pressed', String(state.theme === 'light'));
    this.soundButton.setAttribute('aria-pressed', String(state.sound));
    this.fullscreenButton.setAttribute('aria-pressed', String(Boolean(document.fullscreenElement)));
    document.title = t('screen.title', { code: state.code });
    this.stage.render(state);

    const board = state.board();
    const current = state.phase === 'revealed' || state.phase === 'idle' ? board[0] ?? null : null;
    let active = [];
    if (current) {
      // Only rounds whose winners arrived in full keep their places (a long round pages from the server).
      const kept = this.placed?.round === current.round ? this.placed.order : null;
      const { list, order } = inPlace(current.winners, kept);
      this.placed = { round: current.round, order };
      active = list;
    }
    const voided = current ? current.winners.filter((w) => w.voided) : [];
    const many = active.length > 1 || (current?.total ?? 0) > 1;
    // Several winners at once: they take the whole stage, each as large as its cell allows.
    show(this.winnersBox, many);
    this.stage.nodes.stage.classList.toggle('has-many', many);
    if (many) this.renderMany({ ...current, winners: active }, state.page, state);
    else { this.pages = 1; this.manyShown = ''; }
    // A no-show stays on record, in small print under the winners.
    const voidedText = voided.map((w) => (w.reason ? t('screen.voided.one', { value: valueText(w.value), reason: reasonText(w.reason) }) : valueText(w.value))).join(t('list.sep'));
    setText(this.voidedLine, voided.length ? t('screen.voided', { list: voidedText }) : '');
    show(this.voidedLine, voided.length > 0);
    const older = current ? board.slice(1) : board;
    renderHistory(this.history, older.slice(0, HISTORY_ROUNDS), { older: older.length > HISTORY_ROUNDS ? 0 : state.olderRounds });
    show(this.historySection, older.length > 0);

    if (state.joinUrl) {
      // Host on one line, path on the next: a URL broken mid-word is hard to type from the back row.
      const shown = state.joinUrl.replace(/^https?:\/\//, '');
      const slash = shown.indexOf('/');
      const host = slash < 0 ? shown : shown.slice(0, slash);
      const path = slash < 0 ? '' : shown.slice(slash);
      if (this.joinUrlNode.dataset.url !== shown) {
        this.joinUrlNode.dataset.url = shown;
        replaceChildren(this.joinUrlNode, el('span', { class: 'join-host', text: host }), el('span', { class: 'join-path', text: path }));
      }
      if (this.qrFor !== state.joinUrl) {
        this.qrFor = state.joinUrl;
        this.qr.alt = t('screen.qr');
        this.qr.src = `/api/qr?text=${encodeURIComponent(state.joinUrl)}`;
      }
    }
  }
}
