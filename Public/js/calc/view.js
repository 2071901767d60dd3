// Owns the keypad page's DOM: renders the store, reports user intents.

import { $, $$, el, fitText, isTyping, replaceChildren, setText, show } from '../lib/dom.js';
import { errorText, locale, t } from '../lib/i18n.js';
import { groupDisplay } from '../lib/format.js';
import { digitWindow, repeatingText } from './digits.js';

const DIGITS_FONT = 34; // px: the display's size while it shows a window of digits

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

/** The display's text, or a window of far digits: "digits 15–25:" (small) and the digits. */
function paint(node, value) {
  if (typeof value === 'string') { setText(node, value); return; }
  replaceChildren(node, el('span', { class: 'digits-at', text: value.label }), el('span', { class: 'digits-run', text: value.digits }));
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
    this.moreDigits = $('[data-more-digits]', root);
    this.lessDigits = $('[data-digits-less]', root);
    this.digitsInfo = $('[data-digits-info]', root);
    this.lastFitText = null;
    this.digitsWidth = 24; // characters of a window of digits; narrowed to fit by fitDigits
    this.labelKeys();
    window.addEventListener('resize', () => { this.lastFitText = null; this.digitsWidth = 24; this.fit(); });
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

  /**
   * Reports digit scrolling as a step in digits (positive: further right): the "more" and
   * "fewer" buttons, → and ← on the keyboard, a wheel or a swipe on the display.
   */
  bindDigits(handler) {
    this.moreDigits.addEventListener('click', () => handler(10));
    this.lessDigits.addEventListener('click', () => handler(-10));
    document.addEventListener('keydown', (event) => {
      if (event.ctrlKey || event.metaKey || event.altKey || isTyping(event.target)) return;
      if (event.key !== 'ArrowRight' && event.key !== 'ArrowLeft') return;
      event.preventDefault();
      handler(event.key === 'ArrowRight' ? 5 : -5);
    });
    const charWidth = () => DIGITS_FONT * 0.6;
    let wheel = 0;
    this.displayBox.addEventListener('wheel', (event) => {
      const delta = Math.abs(event.deltaX) >= Math.abs(event.deltaY) ? event.deltaX : event.deltaY;
      if (!delta) return;
      event.preventDefault();
      wheel += delta;
      const step = Math.trunc(wheel / charWidth());
      if (step) { wheel -= step * charWidth(); handler(step); }
    }, { passive: false });
    let drag = null;
    this.displayBox.addEventListener('pointerdown', (event) => {
      drag = { x: event.clientX, id: event.pointerId };
      this.displayBox.setPointerCapture?.(event.pointerId);
    });
    this.displayBox.addEventListener('pointermove', (event) => {
      if (!drag || event.pointerId !== drag.id) return;
      // Dragging the digits to the left reveals the ones on the right, as on a phone.
      const step = Math.trunc((drag.x - event.clientX) / charWidth());
      if (step) { drag.x -= step * charWidth(); handler(step); }
    });
    const end = () => { drag = null; };
    this.displayBox.addEventListener('pointerup', end);
    this.displayBox.addEventListener('pointercancel', end);
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
    const digits = this.digitsText(state);
    const text = state.error ? errorText(state.error) : digits ? digits(this.digitsWidth) : groupDisplay(state.display, loc);
    paint(this.displayNode, text);
    this.screen.classList.toggle('is-digits', Boolean(digits));
    if (digits && !state.error) this.fitDigits(digits);
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

  /**
   * Narrows the window of digits until it fits the box (the characters' width depends on the
   * font), then keeps that width for the next renders, so the text does not jump.
   */
  fitDigits(textFor) {
    this.displayNode.style.fontSize = `${DIGITS_FONT}px`;
    const room = this.displayBox.clientWidth;
    while (this.displayNode.scrollWidth > room && this.digitsWidth > 8) {
      this.digitsWidth -= 1;
      paint(this.displayNode, textFor(this.digitsWidth));
    }
    this.lastFitText = `${this.displayNode.textContent}|${room}`;
  }

  /** The display's text as a function of its width in characters while it is scrolled into the digits (null when it is not), and the line under it. */
  digitsText(state) {
    const d = state.digitsCurrent() ? state.digits : null;
    show(this.moreDigits, !state.error && state.received);
    show(this.lessDigits, Boolean(d) && state.digitsEnd > 0);
    let info = '';
    let text = null;
    if (d && d.status === 'undecidable') {
      info = t('calc.digits.undecidable');
    } else if (d && state.digitsEnd > 0) {
      const end = Math.min(state.digitsEnd, d.fraction.length);
      if (d.status && end > 0) {
        text = (width) => {
          const w = digitWindow(d, end, width);
          return w.from === null ? w.text : { label: t('calc.digits.window', { from: w.from, to: w.to }), digits: w.text };
        };
        const parts = [t('calc.digits.position', { n: end })];
        if (d.status === 'zero') parts.push(t('calc.digits.zero'));
        else parts.push(t(d.exact ? 'calc.digits.exact' : 'calc.digits.proven'));
        const repeating = repeatingText(d);
        if (repeating) parts.push(t('calc.digits.repeat', { text: repeating }));
        if (end >= 20000) parts.push(t('calc.digits.limit', { n: '20,000' }));
        info = parts.join(' · ');
      }
      if (d.loading) info = info ? `${info} · ${t('calc.digits.loading')}` : t('calc.digits.loading');
    }
    setText(this.digitsInfo, info);
    return text;
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
    if (this.screen.classList.contains('is-digits')) {
      // A window of digits is cut to the box's width at one size, so it does not jump while scrolling.
      this.displayNode.style.fontSize = `${DIGITS_FONT}px`;
      return;
    }
    const max = window.innerWidth >= 900 ? 64 : 56;
    fitText(this.displayNode, { max, min: 16, box: this.displayBox });
  }
}
