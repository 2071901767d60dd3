// Wiring for /draw/<code>: with #key=… the host's controls, without it a viewer page.

import { attachConnectionUI } from '../lib/socket.js';
import { errorText, i18nEvents, initLanguageSwitch, t } from '../lib/i18n.js';
import { codeFromLocation, connectRoom, forgetHostKey, takeHostKey, winnerText } from '../lib/room.js';
import { lanBase } from '../lib/info.js';
import { HostState } from './state.js';
import { DrawView } from './view.js';
import { HostCheckin } from './checkin.js';

initLanguageSwitch();
const code = codeFromLocation();
let hostKey = takeHostKey(code);
const state = new HostState(code);
state.hasKey = hostKey !== null;
const view = new DrawView();

const { socket, command } = connectRoom(state, {
  hostKey,
  onAuthFailed: () => {
    forgetHostKey(code);
    hostKey = null;
    state.authFailed = true;
    view.toast(t('host.auth.failed'));
    view.renderLinks(state, null);
  },
});
attachConnectionUI(socket);
const checkin = new HostCheckin({ code, key: () => hostKey, toast: (text) => view.toast(text) });

view.bindStartStop(() => {
  if (!state.isHost) return;
  if (state.phase === 'rolling' || state.awaiting === 'start') {
    state.expect('stop');
    command('stop');
  } else if (state.phase !== 'stopping' && state.awaiting !== 'stop') {
    const audience = view.readAudience();
    state.expect('start');
    command('start', audience ? { audience } : {});
    view.clearAudience();
  }
});
view.bindClear(() => command('clear'));
view.bindVoid(({ round, winner, reason }) => {
  state.voidReasons.set(`${round}|${winnerText(winner)}`, reason);
  command('void', { round, winner, reason });
});
view.bindImport(async (bytes, merge) => {
  // The server's spreadsheet preview (POST /api/draws/<code>/import); nothing is saved.
  try {
    const response = await fetch(`/api/draws/${encodeURIComponent(code)}/import${merge ? '?duplicates=merge' : ''}`, {
      method: 'POST', body: bytes, headers: { Authorization: `Bearer ${hostKey ?? ''}`, 'Content-Type': 'text/csv; charset=utf-8' },
    });
    const json = await response.json().catch(() => null);
    if (response.status === 413) return { error: { code: 'import_too_large' } };
    if (!response.ok) return { error: json?.error ?? { code: 'network' } };
    return { preview: json };
  } catch {
    return { error: { code: 'network' } };
  }
});
let configureSeq = null;
view.bindSettings((config) => { configureSeq = command('configure', { config }); });

state.addEventListener('change', ({ detail }) => {
  if (detail === 'tick') { view.renderTick(state); return; }
  if (detail === 'error' && state.lastError) {
    if (state.lastError.code !== 'bad_key') view.toast(errorText(state.lastError.code));
    configureSeq = null;
  }
  if (detail === 'warning' && state.warning) view.toast(state.warning.message ?? state.warning.code);
  if (detail === 'cleared') view.toast(t('draw.cleared'));
  view.render(state);
  checkin.render(state);
});
socket.addEventListener('message', ({ detail }) => {
  if (detail.type === 'ack' && configureSeq !== null && detail.seq === configureSeq) {
    configureSeq = null;
    const duplicates = Array.isArray(detail.duplicates) ? detail.duplicates : [];
    view.toast(duplicates.length ? t('host.duplicates', { n: duplicates.length, names: duplicates.slice(0, 5).join(', ') }) : t('host.saved'));
  }
});

i18nEvents.addEventListener('change', () => { view.render(state); view.renderLinks(state, hostKey); });
view.render(state);
view.renderLinks(state, hostKey);
lanBase().then((base) => { state.lanBase = base; view.renderLinks(state, hostKey); });
socket.start();

window.tombola = { state, socket };
