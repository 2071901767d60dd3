// Wiring for the keypad: keys → /ws/calc, display frames → store → view.
// The page computes nothing; offline key presses wait in order in the socket queue.

import { Socket, attachConnectionUI } from '../lib/socket.js';
import { i18nEvents, initLanguageSwitch } from '../lib/i18n.js';
import { CalcState } from './state.js';
import { CalcView } from './view.js';
import { CHUNK, MAX_POSITION, shownDecimals } from './digits.js';

const SESSION_KEY = 'tombola.calc.session';
const SEQ_KEY = 'tombola.calc.seq';
const MODE_KEY = 'tombola.calc.mode';
const ANGLE_KEY = 'tombola.calc.angle';
const RESUME_ERRORS = new Set(['unknown_session', 'session_expired', 'not_found', 'bad_session']);

function read(storage, key) {
  try { return storage.getItem(key); } catch { return null; }
}
function write(storage, key, value) {
  try { storage.setItem(key, value); } catch { /* private mode: keep in memory only */ }
}

initLanguageSwitch();
const state = new CalcState();
const view = new CalcView();

let session = read(sessionStorage, SESSION_KEY);
let seq = Number(read(sessionStorage, SEQ_KEY)) || 0;
const preferredMode = read(localStorage, MODE_KEY);
const preferredAngle = read(localStorage, ANGLE_KEY);
if (preferredMode === 'scientific') state.mode = 'scientific';
if (preferredAngle === 'deg') state.angle = 'deg';

// Resume bookkeeping: on a reconnect the server greets with a fresh session and
// its first display, then answers our `resume` with the old session's display.
let resuming = false;
let freshSession = null;
let freshDisplay = null;
let resumeTimer = null;

const socket = new Socket('/ws/calc', {
  greeting: () => {
    if (session) return [{ type: 'resume', session }];
    const hello = [];
    if (state.mode === 'scientific') hello.push({ type: 'mode', mode: 'scientific' });
    if (state.angle === 'deg') hello.push({ type: 'angle', unit: 'deg' });
    return hello;
  },
});

function nextSeq() {
  seq += 1;
  write(sessionStorage, SEQ_KEY, String(seq));
  return seq;
}

function adoptFreshSession() {
  resuming = false;
  clearTimeout(resumeTimer);
  if (freshSession) {
    session = freshSession;
    write(sessionStorage, SESSION_KEY, session);
  }
  if (freshDisplay) state.applyDisplay(freshDisplay);
  freshDisplay = null;
}

socket.addEventListener('open', () => {
  resuming = Boolean(session);
  freshSession = null;
  freshDisplay = null;
});

socket.addEventListener('message', ({ detail: msg }) => {
  switch (msg.type) {
    case 'hello':
      if (resuming) {
        freshSession = msg.session;
      } else if (typeof msg.session === 'string') {
        session = msg.session;
        write(sessionStorage, SESSION_KEY, session);
      }
      break;
    case 'display':
      if (typeof msg.seq === 'number') socket.acknowledge(msg.seq);
      if (resuming && freshDisplay === null) {
        // The new session's greeting display; the resumed one follows.
        freshDisplay = msg;
        clearTimeout(resumeTimer);
        resumeTimer = setTimeout(() => { if (resuming) adoptFreshSession(); }, 2000);
        break;
      }
      if (resuming) { resuming = false; clearTimeout(resumeTimer); }
      state.applyDisplay(msg);
      break;
    case 'digits':
      state.applyDigits(msg);
      requestDigitsIfNeeded();
      break;
    case 'error':
      if (state.digits && state.digits.loading && !('seq' in msg)) state.digits.loading = false;
      if (resuming && RESUME_ERRORS.has(msg.code)) {
        adoptFreshSession();
        break;
      }
      if (typeof msg.seq === 'number') socket.reject(msg.seq);
      state.update({ notice: { code: msg.code } });
      break;
    default:
      break;
  }
});

socket.addEventListener('status', ({ detail }) => state.update({ connection: detail }));
socket.addEventListener('queue', ({ detail }) => state.update({ backlog: detail }));
attachConnectionUI(socket);

view.bindKey((key) => {
  socket.send({ type: 'key', key, seq: nextSeq() });
});
view.bindRecall((index) => {
  socket.send({ type: 'key', key: `recall:${index}`, seq: nextSeq() });
});
/** Asks the server for the next digits when the display's right edge passed the known ones. */
function requestDigitsIfNeeded() {
  const d = state.digits;
  if (!d || d.loading || d.status === 'undecidable' || !socket.isOpen()) return;
  const known = d.fraction.length;
  if (state.digitsEnd <= known || known >= MAX_POSITION) return;
  const count = Math.min(1000, MAX_POSITION - known, Math.max(CHUNK, state.digitsEnd - known + CHUNK / 2));
  d.loading = true;
  socket.send({ type: 'digits', position: known + 1, count }, { queue: false });
}

/** Moves the display's right edge `step` digits (negative: back toward the display). */
function scrollDigits(step) {
  if (state.error || !state.received) return;
  if (!state.digitsCurrent()) {
    if (step <= 0) return;
    state.digits = {
      seq: state.seq, display: state.display, negative: state.display.startsWith('-'), integer: '', fraction: '',
      exact: false, status: null, terminatesAt: null, repeat: null, loading: false, start: shownDecimals(state.display),
    };
    state.digitsEnd = state.digits.start;
  }
  const end = Math.min(MAX_POSITION, state.digitsEnd + step);
  state.digitsEnd = end <= state.digits.start ? 0 : end;
  if (state.digitsEnd === 0) state.digits = null;
  requestDigitsIfNeeded();
  state.changed();
}

view.bindDigits(scrollDigits);
view.bindMode((mode) => {
  write(localStorage, MODE_KEY, mode);
  state.update({ mode });
  socket.send({ type: 'mode', mode });
});
view.bindAngle((unit) => {
  write(localStorage, ANGLE_KEY, unit);
  state.update({ angle: unit });
  socket.send({ type: 'angle', unit });
});

state.addEventListener('change', () => view.render(state));
i18nEvents.addEventListener('change', () => { view.labelKeys(); view.render(state); });
view.render(state);
socket.start();

// For tests and debugging: the live store, read-only by convention.
window.tombola = { state, socket };
