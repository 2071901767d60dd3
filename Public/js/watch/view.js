// Owns the viewer page's DOM.

import { $, el, replaceChildren, setText, show } from '../lib/dom.js';
import { t } from '../lib/i18n.js';
import { Stage, boardSignature, renderHistory, renderWinners } from '../lib/board.js';

export class WatchView {
  constructor(root = document) {
    this.root = root;
    this.heading = $('[data-heading]', root);
    this.stage = Stage.within(root, { fit: { max: 220, min: 18, waitingMax: 28 }, showContributing: true });
    this.winners = $('[data-winners]', root);
    this.winnersEmpty = $('[data-winners-empty]', root);
    this.winnersHeading = $('[data-winners-heading]', root);
    this.history = $('[data-history]', root);
    this.historyEmpty = $('[data-history-empty]', root);
    this.title = ''; // the event's title (branding), shown in the header
  }

  /** The event's title from its branding ('' when the host set none). */
  setTitle(title) {
    this.title = typeof title === 'string' ? title.trim() : '';
  }

  /** The header names the event (its title, the code small beside it), else "Draw CODE". */
  renderHeading(state) {
    const key = `${this.title}|${state.code}|${t('draw.heading', { code: state.code })}`;
    if (key === this.headingShown) return;
    this.headingShown = key;
    if (this.title) {
      replaceChildren(this.heading, el('span', { class: 'topbar-event', text: this.title }),
        el('small', { class: 'topbar-code mono', text: state.code }));
    } else {
      setText(this.heading, t('draw.heading', { code: state.code }));
    }
    document.title = t('watch.title', { code: this.title ? `${this.title} · ${state.code}` : state.code });
  }

  renderTick(state) {
    this.stage.renderValue(state);
  }

  render(state) {
    this.renderHeading(state);
    this.stage.render(state);
    const signature = boardSignature(state, '');
    if (signature === this.boardShown) return;
    this.boardShown = signature;
    const board = state.board();
    const current = board[0] ?? null;
    renderWinners(this.winners, current, {
      limit: current ? state.listLimit(current.round) : Infinity,
      onMore: (entry) => state.showMore(entry.round),
    });
    show(this.winnersEmpty, !current);
    // A reverse raffle's rounds draw people out (docs/FAIRNESS.md §21): not winners.
    const heading = state.config?.reverse === true ? 'reverse.outHeading' : 'draw.winners.round';
    setText(this.winnersHeading, current ? t(heading, { n: current.round }) : t('draw.winners'));
    renderHistory(this.history, board.slice(1), { older: state.olderRounds, onOlder: () => state.loadOlderRounds() });
    show(this.historyEmpty, board.length < 2 && !state.olderRounds);
  }
}
