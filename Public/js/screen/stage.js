// Stage control on the projector (issue #26): the keyboard and presenter clicker, the shortcut
// overlay, and the Screen Wake Lock. Start/Stop needs the screen opened with the host key (the
// host page's "Screen with controls" link); the other keys work on any screen.

import { $, isTyping } from '../lib/dom.js';

/** Keys that start and stop: a presenter clicker sends PageDown/PageUp. */
const START_STOP = new Set([' ', 'Enter', 'PageDown', 'PageUp']);
const NEXT_PAGE = new Set(['ArrowRight', 'ArrowDown']);
const PREVIOUS_PAGE = new Set(['ArrowLeft', 'ArrowUp']);

/**
 * Routes a keydown to one of the handlers: `startStop`, `fullscreen`, `sound`, `help`,
 * `page(delta)`. Returns whether the key was the stage's (its default is then prevented).
 */
export function stageKey(event, handlers) {
  if (event.ctrlKey || event.metaKey || event.altKey || isTyping(event.target)) return false;
  const key = event.key;
  if (START_STOP.has(key)) {
    // Space and Enter on a focused button press that button, as they should.
    const onControl = event.target instanceof Element && event.target.closest('button, a, select, dialog');
    if (onControl && (key === ' ' || key === 'Enter')) return false;
    if (!event.repeat) handlers.startStop();
    return true;
  }
  if (NEXT_PAGE.has(key)) { handlers.page(1); return true; }
  if (PREVIOUS_PAGE.has(key)) { handlers.page(-1); return true; }
  if (event.repeat) return false;
  if (key === 'f' || key === 'F') { handlers.fullscreen(); return true; }
  if (key === 'm' || key === 'M') { handlers.sound(); return true; }
  if (key === '?') { handlers.help(); return true; }
  return false;
}

export function bindStageKeys(handlers) {
  document.addEventListener('keydown', (event) => {
    if (stageKey(event, handlers)) event.preventDefault();
  });
}

/** The shortcut overlay: a modal dialog (Escape closes it, as `?` does). */
export class ShortcutOverlay {
  constructor(root = document) {
    this.dialog = $('[data-shortcuts]', root);
    this.noControl = $('[data-shortcuts-nocontrol]', root);
    $('[data-shortcuts-close]', root)?.addEventListener('click', () => this.dialog.close());
    $('[data-shortcuts-open]', root)?.addEventListener('click', () => this.toggle(true));
  }

  get open() { return this.dialog.open; }

  toggle(hasControl) {
    if (this.dialog.open) { this.dialog.close(); return; }
    this.noControl.hidden = hasControl;
    this.dialog.showModal();
  }
}

/**
 * Keeps the screen awake while the page is shown (the lock is released by the browser when the
 * page is hidden, and taken again when it comes back). `document.body.dataset.wakeLock` says
 * `on`, `off` (refused or released) or `unsupported`.
 */
export function keepAwake() {
  const body = document.body;
  if (!('wakeLock' in navigator)) { body.dataset.wakeLock = 'unsupported'; return; }
  let sentinel = null;
  const request = async () => {
    if (document.visibilityState !== 'visible' || (sentinel && !sentinel.released)) return;
    try {
      sentinel = await navigator.wakeLock.request('screen');
      body.dataset.wakeLock = 'on';
      sentinel.addEventListener('release', () => { body.dataset.wakeLock = 'off'; });
    } catch {
      body.dataset.wakeLock = 'off'; // refused (battery saver, no permission): try on the next show or click
    }
  };
  document.addEventListener('visibilitychange', request);
  // Some browsers grant the lock only after a gesture.
  document.addEventListener('pointerdown', request);
  document.addEventListener('keydown', request);
  request();
}
