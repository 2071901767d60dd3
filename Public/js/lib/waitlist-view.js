// The whole order (issue 45, docs/STAGE.md "The whole order"): a round of a draw set to
// `waitlist` drew every eligible entrant after its winners, in order: its waiting list (the round
// record's `alternates`). The host page and phones page through it by hand; the projector shows
// it in its side panel a page at a time, turning the page by itself.

import { el, replaceChildren, setText, show } from './dom.js';
import { groupInteger } from './format.js';
import { i18nEvents, locale, t } from './i18n.js';
import { valueText } from './board.js';
import { tint } from './books.js';

export class WaitlistView {
  /** `node`: the (hidden) section to fill; `perPage` entries a page; `turnMs`: turn pages by itself. */
  constructor(node, { perPage = 20, turnMs = 0 } = {}) {
    this.node = node;
    this.perPage = perPage;
    this.page = 0;
    this.source = null; // the round result whose waiting list is shown
    this.heading = el('h2', { class: 'waitlist-heading' });
    this.range = el('p', { class: 'waitlist-range hint' });
    this.list = el('ol', { class: 'waitlist-list' });
    this.prev = el('button', { class: 'btn btn-small', attrs: { type: 'button' }, data: { waitlistPrev: '' }, on: { click: () => this.turn(-1) } });
    this.next = el('button', { class: 'btn btn-small', attrs: { type: 'button' }, data: { waitlistNext: '' }, on: { click: () => this.turn(1) } });
    const pager = turnMs ? null : el('p', { class: 'waitlist-pager' }, this.prev, this.next);
    node.append(this.heading, this.range, this.list, pager ?? '');
    // Each page stays `turnMs` from when it was first shown (a new round starts on its first page).
    this.shownAt = 0;
    if (turnMs) setInterval(() => { if (performance.now() - this.shownAt >= turnMs) this.turn(1, true); }, 250);
  }

  render(room) {
    const r = room.lastReveal;
    // A void's replacement keeps its round's waiting list on show; a new round or a Clear ends it.
    if (r && !r.replaces && Array.isArray(r.alternates)) {
      if (this.source?.round !== r.round || this.source?.hash !== r.hash) { this.page = 0; this.shownAt = performance.now(); }
      this.source = r;
    } else if (!r || (!r.replaces && r.round !== this.source?.round)) this.source = null;
    const on = room.config?.waitlist === true && room.phase === 'revealed' && Boolean(this.source?.alternates?.length);
    show(this.node, on);
    if (on) this.draw();
  }

  turn(step, wrap = false) {
    const total = this.source?.alternates?.length ?? 0;
    const pages = Math.ceil(total / this.perPage);
    if (!pages || this.node.hidden) return;
    const next = this.page + step;
    this.page = wrap ? (next + pages) % pages : Math.min(pages - 1, Math.max(0, next));
    this.shownAt = performance.now();
    this.draw();
  }

  draw() {
    const all = this.source.alternates;
    const from = this.page * this.perPage;
    const shown = all.slice(from, from + this.perPage);
    const n = (x) => groupInteger(x, locale());
    setText(this.heading, t('waitlist.heading', { round: this.source.round }));
    setText(this.range, t('waitlist.range', { from: n(from + 1), to: n(from + shown.length), total: n(all.length) }));
    this.list.start = from + 1;
    replaceChildren(this.list, shown.map((value) => el('li', {}, tint(el('span', { class: 'waitlist-value', text: valueText(value) }), value))));
    setText(this.prev, t('waitlist.prev'));
    setText(this.next, t('waitlist.next'));
    this.prev.disabled = this.page === 0;
    this.next.disabled = from + shown.length >= all.length;
  }
}

/** Fills the page's `[data-waitlist]` section from `room`, in step with it and the language. */
export function showWaitlist(room, options) {
  const node = document.querySelector('[data-waitlist]');
  if (!node) return null;
  const view = new WaitlistView(node, options);
  const render = () => view.render(room);
  room.addEventListener('change', render);
  i18nEvents.addEventListener('change', render);
  render();
  return view;
}
