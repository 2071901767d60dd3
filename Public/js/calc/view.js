// Owns the keypad page's DOM: renders the store, reports user intents.

import { $, $$, el, fitText, isTyping, replaceChildren, setText, show } from '../lib/dom.js';
import { errorText, locale, t } from '../lib/i18n.js';
import { groupDisplay } from '../lib/format.js';

const KEYBOARD = new Map([
  ['+', '+'], ['-', '-'], ['*', '*'], ['x', '*'], ['X', '*'], ['/', '/'],
  ['.', '.'], [',', '.'], ['Enter', '='], ['=', '='], ['Backspace', 'back'],
  ['Escape', 'C'], ['Delete', 'CE'], ['%', '%'], ['^', '^'], ['(', '('], [')', ')'],
  ['Add', '+'], ['Subtract', '-'], ['Multiply', '*'], ['Divide', '/'], ['Decimal', '.'],
]);
const OPERATOR_GLYPHS = { '*': '×', '/': '÷', '-': '−' };

/** Makes an expression line readable: ×, ÷, − and grouped numbers. */
export function prettyExpression(expression, loc) {
  if (!expression) return '';
  return expression
    .split(' ')
    .map((token) => OPERATOR_GLYPHS[token] ?? groupDisplay(token, loc))
    .join(' ');
}

export class CalcView {
  constructor(root = document) {
    this.root = root;
    this.screen = $('[data-screen]', root);
    this.displayNode = $('[data-display]', root);
    this.displayBox = $('[data-display-box]', root);
    this.expressionNode = $('[data-expression]', root);
    this.memoryNode = $('[data-memory]', root);
    this.angleFlag = $('[data-angle-flag]', root);
    this.noticeNode = $('[data-notice]', root);
    this.sciKeys = $('[data-keys="scientific"]', root);
    this.angleGroup = $('[data-angle-group]', root);
    this.historyList = $('[data-history]', root);
    this.historyEmpty = $('[data-history-empty]', root);
    this.lastFitText = null;
    this.labelKeys();
    window.addEventListener('resize', () => { this.lastFitText = null; this.fit(); });
  }

  /** Accessible names for keys whose face is a symbol. */
  labelKeys() {
    for (const button of $$('[data-key]', this.root)) {
      const key = button.dataset.key;
      if (!/^\d$/.test(key)) {
        button.setAttribute('aria-label', t(`key.${key}`));
        button.title = t(`key.${key}`);
      }
    }
  }

  bindKey(handler) {
    this.root.addEventListener('click', (event) => {
      const button = event.target.closest('[data-key]');
      if (button && this.root.contains(button)) handler(button.dataset.key);
    });
    document.addEventListener('keydown', (event) => {
      if (event.ctrlKey || event.metaKey || event.altKey) return;
      if (isTyping(event.target)) return;
      let key = null;
      if (/^[0-9]$/.test(event.key)) key = event.key;
      else if (KEYBOARD.has(event.key)) key = KEYBOARD.get(event.key);
      if (!key) return;
      // Enter means "=" on the keypad, but keeps its usual meaning on other controls.
      const target = event.target instanceof Element ? event.target : null;
      if (event.key === 'Enter' && target && target.closest('button, a, select') && !target.closest('[data-key]')) return;
      event.preventDefault();
      this.flash(key);
      handler(key);
    });
  }

  bindMode(handler) {
    for (const b of $$('[data-mode]', this.root)) b.addEventListener('click', () => handler(b.dataset.mode));
  }

  bindAngle(handler) {
    for (const b of $$('[data-angle]', this.root)) b.addEventListener('click', () => handler(b.dataset.angle));
  }

  bindRecall(handler) {
    this.historyList.addEventListener('click', (event) => {
      const item = event.target.closest('[data-recall]');
      if (item) handler(Number(item.dataset.recall));
    });
  }

  /** Briefly marks the on-screen key that a keyboard press maps to. */
  flash(key) {
    const button = this.root.querySelector(`[data-key="${CSS.escape(key)}"]`);
    if (!button) return;
    button.classList.add('is-pressed');
    setTimeout(() => button.classList.remove('is-pressed'), 120);
  }

  render(state) {
    const loc = locale();
    const text = state.error ? errorText(state.error) : groupDisplay(state.display, loc);
    setText(this.displayNode, text);
    this.displayNode.dataset.raw = state.error ? '' : state.display;
    this.displayNode.dataset.error = state.error ?? '';
    this.screen.classList.toggle('has-error', Boolean(state.error));
    this.screen.classList.toggle('is-stale', state.connection !== 'online' && state.backlog > 0);
    setText(this.expressionNode, prettyExpression(state.expression, loc));
    show(this.memoryNode, state.memory);

    const scientific = state.mode === 'scientific';
    document.body.classList.toggle('is-scientific', scientific);
    show(this.sciKeys, scientific);
    show(this.angleGroup, scientific);
    show(this.angleFlag, scientific);
    setText(this.angleFlag, t(`calc.angle.${state.angle}`));
    for (const b of $$('[data-mode]', this.root)) b.setAttribute('aria-pressed', String(b.dataset.mode === state.mode));
    for (const b of $$('[data-angle]', this.root)) b.setAttribute('aria-pressed', String(b.dataset.angle === state.angle));

    let notice = '';
    if (state.notice) notice = errorText(state.notice.code);
    else if (state.backlog > 0 && state.connection !== 'online') notice = t('offline.queued', { n: state.backlog });
    setText(this.noticeNode, notice);

    this.renderHistory(state.history, loc);
    this.fit();
  }

  renderHistory(history, loc) {
    show(this.historyEmpty, history.length === 0);
    const items = history.map((entry, index) => {
      const expression = prettyExpression(entry.expression ?? '', loc);
      const result = groupDisplay(entry.result ?? '', loc);
      return el('li', {},
        el('button', {
          class: 'history-item',
          attrs: { type: 'button', 'aria-label': t('calc.history.recall', { expression, result }) },
          data: { recall: index },
        },
        el('span', { class: 'history-expr', text: expression }),
        el('span', { class: 'history-result', text: result })));
    });
    // Newest first, like a paper tape read from the top.
    replaceChildren(this.historyList, items.reverse());
  }

  fit() {
    const key = `${this.displayNode.textContent}|${this.displayBox.clientWidth}`;
    if (key === this.lastFitText) return;
    this.lastFitText = key;
    const max = window.innerWidth >= 900 ? 64 : 56;
    fitText(this.displayNode, { max, min: 16, box: this.displayBox });
  }
}
