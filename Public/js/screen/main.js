// Wiring for /screen/<code>: the projector. With #key=… (kept in
// sessionStorage, never sent in a URL) Space/Enter or a clicker start and stop.

import { attachConnectionUI } from '../lib/socket.js';
import { i18nEvents, initLanguageSwitch } from '../lib/i18n.js';
import { codeFromLocation, connectRoom, forgetHostKey, takeHostKey } from '../lib/room.js';
import { lanBase } from '../lib/info.js';
import { ScreenState } from './state.js';
import { ScreenView } from './view.js';
import { Sound } from './sound.js';
import { applyBranding, fetchBranding } from '../lib/branding.js';

// `?overlay`: the stream-overlay view for OBS's browser source (README, "Streaming"):
// transparent background, only the stage, no chrome.
// `?overlay=lower-third`: the stage in the bottom third of the frame, over a dark band.
const overlayLayout = new URLSearchParams(location.search).get('overlay');
if (overlayLayout !== null) {
  document.documentElement.classList.add('overlay');
  document.documentElement.classList.toggle('lower-third', overlayLayout === 'lower-third');
  document.querySelector('meta[name="color-scheme"]')?.remove();
}
import { ScreenCheckin } from './checkin.js';

initLanguageSwitch();
const code = codeFromLocation();
const hostKey = takeHostKey(code);
const state = new ScreenState(code);
state.hasKey = hostKey !== null;
const view = new ScreenView();
const sound = new Sound();

const { socket, command } = connectRoom(state, {
  hostKey,
  onAuthFailed: () => { forgetHostKey(code); state.hasKey = false; },
});
attachConnectionUI(socket);
const checkin = new ScreenCheckin({ code, key: () => (state.hasKey ? hostKey : null) });

view.bindStartStop(() => {
  if (!state.hasKey || state.role !== 'host') return;
  if (state.phase === 'rolling' || state.awaiting === 'start') {
    state.awaiting = 'stop';
    command('stop');
  } else if (state.phase !== 'stopping' && state.awaiting !== 'stop') {
    state.awaiting = 'start';
    command('start');
  }
});
view.bindFullscreen(async () => {
  try {
    if (document.fullscreenElement) await document.exitFullscreen();
    else await document.documentElement.requestFullscreen();
  } catch { /* refused: nothing to do */ }
});
document.addEventListener('fullscreenchange', () => view.render(state));
view.bindTheme(() => state.setTheme(state.theme === 'light' ? 'dark' : 'light'));
view.bindSound(() => {
  const on = !state.sound && sound.enable();
  state.setSound(on);
});
if (state.sound) state.setSound(false); // audio needs a click on this page before it may play

state.addEventListener('change', ({ detail }) => {
  if (detail === 'tick') {
    view.renderTick(state);
    if (state.sound) sound.tick();
    return;
  }
  if (detail === 'result' && state.sound) sound.chime();
  view.render(state);
  checkin.render(state);
});

// Many winners: turn the page every few seconds.
setInterval(() => { if (view.pages > 1) state.nextPage(view.pages); }, 6000);

i18nEvents.addEventListener('change', () => view.render(state));
view.render(state);
lanBase().then((base) => state.setJoinUrl(`${base}/watch/${encodeURIComponent(code)}`));
socket.addEventListener('message', ({ detail }) => { if (detail?.type === 'branding') applyBranding(detail); });
fetchBranding(code).then((branding) => { if (branding) applyBranding(branding); });
socket.start();

window.tombola = { state, socket };
