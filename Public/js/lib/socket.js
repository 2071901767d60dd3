// One WebSocket per page: reconnect with exponential backoff and full jitter,
// a queue of commands made while offline (flushed in order on reconnect), and
// resend of sequenced commands the server has not answered yet (the server
// dedups by `seq`, so a resent command is never applied twice).

import { i18nEvents, t } from './i18n.js';
import { $$, setText, show } from './dom.js';

const BASE_DELAY_MS = 500;
const MAX_DELAY_MS = 8000;
const MAX_QUEUE = 1000;

/** ws: or wss: URL for a path on this page's own host. */
export function socketURL(path) {
  const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
  return `${scheme}//${location.host}${path}`;
}

/**
 * Events: `status` (detail: 'connecting' | 'online' | 'offline'), `open`
 * (a connection is up, before the queue is flushed), `message` (detail: the
 * parsed object), `queue` (detail: number of unsent or unanswered commands).
 */
export class Socket extends EventTarget {
  /**
   * @param {string} path e.g. '/ws/calc'
   * @param {{greeting?: () => object[]}} options greeting: messages sent first on
   *   every (re)connect, before resent and queued commands (hello, auth, resume).
   */
  constructor(path, { greeting = () => [] } = {}) {
    super();
    this.url = socketURL(path);
    this.greeting = greeting;
    this.ws = null;
    this.status = 'connecting';
    this.attempt = 0;
    this.timer = null;
    this.outbox = [];   // not sent yet (made while offline)
    this.pending = [];  // sent with a seq, no reply yet; resent after a reconnect
    this.everOnline = false;
    this.stopped = false;
    this.hiddenAt = 0;
    document.addEventListener('visibilitychange', () => this.onVisibility());
    window.addEventListener('online', () => { if (this.status !== 'online') this.reconnectNow(); });
    window.addEventListener('pagehide', () => this.stop());
    window.addEventListener('pageshow', (e) => { if (e.persisted) { this.stopped = false; this.reconnectNow(); } });
  }

  start() {
    this.stopped = false;
    this.connect();
    return this;
  }

  stop() {
    this.stopped = true;
    clearTimeout(this.timer);
    if (this.ws) { this.ws.onclose = null; this.ws.close(1001); this.ws = null; }
  }

  /** Number of commands not yet answered (queued offline or in flight). */
  get backlog() {
    return this.outbox.length + this.pending.length;
  }

  /**
   * Sends `message`. Offline, it is queued (if `queue`) and sent in order on
   * reconnect. Messages with a numeric `seq` stay pending until `acknowledge`.
   */
  send(message, { queue = true } = {}) {
    if (this.isOpen()) {
      this.transmit(message);
    } else if (queue) {
      if (this.outbox.length >= MAX_QUEUE) this.outbox.shift();
      this.outbox.push(message);
    }
    this.emitQueue();
  }

  /** Marks every pending command with seq ≤ `seq` as answered. */
  acknowledge(seq) {
    if (typeof seq !== 'number') return;
    const before = this.pending.length;
    this.pending = this.pending.filter((m) => m.seq > seq);
    if (this.pending.length !== before) this.emitQueue();
  }

  /** Drops the oldest pending command (it was answered with an error). */
  rejectOldest() {
    if (this.pending.length) { this.pending.shift(); this.emitQueue(); }
  }

  /** Drops a pending command by seq (an error that names its seq). */
  reject(seq) {
    const before = this.pending.length;
    this.pending = this.pending.filter((m) => m.seq !== seq);
    if (this.pending.length !== before) this.emitQueue();
  }

  isOpen() {
    return this.ws !== null && this.ws.readyState === WebSocket.OPEN;
  }

  /** Closes the current socket (if any) and connects again at once: a full resync. */
  reconnectNow() {
    if (this.stopped) return;
    clearTimeout(this.timer);
    this.attempt = 0;
    if (this.ws) {
      const old = this.ws;
      this.ws = null;
      old.onclose = null; old.onerror = null; old.onmessage = null;
      try { old.close(1000); } catch { /* already closed */ }
    }
    this.connect();
  }

  // --- internals ---

  connect() {
    if (this.stopped) return;
    this.setStatus(this.everOnline || this.attempt > 0 ? 'offline' : 'connecting');
    let ws;
    try {
      ws = new WebSocket(this.url);
    } catch {
      this.scheduleReconnect();
      return;
    }
    this.ws = ws;
    ws.onopen = () => this.onOpen(ws);
    ws.onmessage = (event) => this.onMessage(event);
    ws.onclose = () => {
      if (this.ws !== ws) return;
      this.ws = null;
      this.scheduleReconnect();
    };
    ws.onerror = () => { /* onclose follows */ };
  }

  onOpen(ws) {
    if (this.ws !== ws) return;
    this.attempt = 0;
    this.everOnline = true;
    this.setStatus('online');
    this.dispatchEvent(new Event('open'));
    for (const m of this.greeting()) this.transmit(m);
    const resend = this.pending;
    this.pending = [];
    const queued = this.outbox;
    this.outbox = [];
    for (const m of resend) this.transmit(m);
    for (const m of queued) this.transmit(m);
    this.emitQueue();
  }

  onMessage(event) {
    if (typeof event.data !== 'string') return;
    let message;
    try { message = JSON.parse(event.data); } catch { return; }
    if (!message || typeof message !== 'object' || typeof message.type !== 'string') return;
    this.dispatchEvent(new CustomEvent('message', { detail: message }));
  }

  transmit(message) {
    if (typeof message.seq === 'number' && !this.pending.includes(message)) this.pending.push(message);
    try {
      this.ws.send(JSON.stringify(message));
    } catch {
      if (typeof message.seq !== 'number') this.outbox.push(message);
    }
  }

  scheduleReconnect() {
    if (this.stopped) return;
    clearTimeout(this.timer);
    this.setStatus(this.everOnline || this.attempt > 0 ? 'offline' : 'connecting');
    const ceiling = Math.min(MAX_DELAY_MS, BASE_DELAY_MS * 2 ** this.attempt);
    this.attempt = Math.min(this.attempt + 1, 16);
    // Full jitter keeps a room of phones from reconnecting in lock-step after a Wi-Fi blip.
    const delay = ceiling / 2 + Math.random() * (ceiling / 2);
    this.setStatus('offline');
    this.timer = setTimeout(() => this.connect(), delay);
  }

  onVisibility() {
    if (document.visibilityState === 'hidden') {
      this.hiddenAt = Date.now();
      return;
    }
    // A phone that slept may hold a dead socket that still looks open; reconnect
    // to get a fresh snapshot. Short tab switches keep the socket.
    if (!this.isOpen() || Date.now() - this.hiddenAt > 3000) this.reconnectNow();
  }

  setStatus(status) {
    if (this.status === status) return;
    this.status = status;
    this.dispatchEvent(new CustomEvent('status', { detail: status }));
  }

  emitQueue() {
    this.dispatchEvent(new CustomEvent('queue', { detail: this.backlog }));
  }
}

/**
 * Keeps the page's connection hooks up to date: [data-conn-status] pills and
 * the [data-offline-banner] (with its [data-offline-queue] count).
 */
export function attachConnectionUI(socket, root = document) {
  const render = () => {
    const status = socket.status;
    document.body.classList.toggle('is-offline', status === 'offline');
    for (const pill of $$('[data-conn-status]', root)) {
      pill.dataset.state = status;
      setText(pill, t(`conn.${status}`));
    }
    for (const banner of $$('[data-offline-banner]', root)) {
      show(banner, status === 'offline');
      const text = banner.querySelector('[data-offline-text]');
      if (text) setText(text, t('offline.banner'));
      const queue = banner.querySelector('[data-offline-queue]');
      if (queue) {
        setText(queue, socket.outbox.length ? t('offline.queued', { n: socket.outbox.length }) : '');
      }
    }
  };
  socket.addEventListener('status', render);
  socket.addEventListener('queue', render);
  i18nEvents.addEventListener('change', render);
  render();
  return render;
}
