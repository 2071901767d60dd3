// Owns the projector page's DOM.

import { $, el, isTyping, replaceChildren, setText, show } from '../lib/dom.js';
import { t } from '../lib/i18n.js';
import { Stage, renderHistory, renderWinners } from '../lib/board.js';

const PER_PAGE = 6;
const HISTORY_ROUNDS = 8;

export class ScreenView {
  constructor(root = document) {
    this.root = root;
    this.stage = new Stage({
      stage: $('[data-stage]', root),
      box: $('[data-stage-box]', root),
      value: $('[data-value]', root),
      phase: $('[data-phase]', root),
      round: $('[data-round]', root),
      prize: $('[data-prize]', root),
      viewers: $('[data-viewers]', root),
      commitment: $('[data-commitment]', root),
      verified: $('[data-verified]', root),
    }, { fit: { max: 2000, min: 24, waitingMax: 90 } });
    this.winnersBox = $('[data-round-winners]', root);
    this.winners = $('[data-winners]', root);
    this.pager = $('[data-pager]', root);
    this.history = $('[data-history]', root);
    this.qr = $('[data-qr]', root);
    this.joinUrlNode = $('[data-join-url]', root);
    this.themeButton = $('[data-theme]', root);
    this.soundButton = $('[data-sound]', root);
    this.fullscreenButton = $('[data-fullscreen]', root);
    this.qrFor = null;
    this.pages = 1;
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

  bindFullscreen(handler) { this.fullscreenButton.addEventListener('click', handler); }
  bindTheme(handler) { this.themeButton.addEventListener('click', handler); }
  bindSound(handler) { this.soundButton.addEventListener('click', handler); }

  /** Space, Enter and presenter-clicker keys (PageDown/PageUp, arrows) toggle start/stop. */
  bindStartStop(handler) {
    const keys = new Set([' ', 'Enter', 'PageDown', 'PageUp', 'ArrowRight', 'ArrowLeft']);
    document.addEventListener('keydown', (event) => {
      if (!keys.has(event.key) || event.repeat || event.ctrlKey || event.metaKey || event.altKey) return;
      const target = event.target;
      if (isTyping(target)) return;
      if (target instanceof Element && target.closest('button, a, select') && (event.key === ' ' || event.key === 'Enter')) return;
      event.preventDefault();
      handler();
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
    const many = current && current.winners.length > 1;
    show(this.winnersBox, Boolean(many));
    if (many) {
      this.pages = Math.ceil(current.winners.length / PER_PAGE);
      const page = Math.min(state.page, this.pages - 1);
      renderWinners(this.winners, { winners: current.winners.slice(page * PER_PAGE, (page + 1) * PER_PAGE) });
      setText(this.pager, this.pages > 1 ? t('screen.page', { page: page + 1, pages: this.pages }) : '');
    } else {
      this.pages = 1;
    }
    const older = current ? board.slice(1) : board;
    renderHistory(this.history, older.slice(0, HISTORY_ROUNDS));

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
