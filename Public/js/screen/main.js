// Wiring for /screen/<code>: the projector. With #key=… (kept in sessionStorage, never sent in
// a URL; the host page's "Screen with controls" link) Space/Enter or a clicker start and stop
// (stage.js has every key).

import { showWaitlist } from '../lib/waitlist-view.js';
import { showReverse } from '../lib/reverse-board.js';
import { markRehearsal } from '../lib/rehearsal-mark.js';
import { StageModes } from '../lib/stage-modes.js';
import { attachConnectionUI } from '../lib/socket.js';
import { showWitness } from '../lib/witness-view.js';
import { showSignoffs } from '../lib/signoff-view.js';
import { errorText, i18nEvents, initLanguageSwitch } from '../lib/i18n.js';
import { codeFromLocation, connectRoom, forgetHostKey, takeHostKey } from '../lib/room-link.js';
import { lanBase } from '../lib/info.js';
import { ScreenState } from './state.js';
import { ScreenView } from './view.js';
import { Sound } from './sound.js';
import { applyBranding, fetchBranding } from '../lib/branding.js';
import { wirePrizePicture } from '../lib/prize-media.js';
import { ClaimPanel } from '../lib/claims.js';

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
import { ShortcutOverlay, bindStageKeys, keepAwake } from './stage.js';
import { wireShow } from './show.js';

initLanguageSwitch();
const code = codeFromLocation();
const hostKey = takeHostKey(code);
const state = new ScreenState(code);
markRehearsal(state); // the rehearsal band and watermark (issue 45)
showWaitlist(state, { perPage: 10, turnMs: 6000 }); // the whole order's waiting list, paged (issue 45)
state.hasKey = hostKey !== null;
const view = new ScreenView();
const stage = new StageModes(state); // reels, wheel or names when the draw or its prize tier asks (issue #26)
wirePrizePicture(state); // the prize tier's picture while rolling and at the reveal
const sound = new Sound();
// Claim countdowns (issue #26) under the winners, inside the stage: as a third item of the page's
// grid they took a row of their own and squeezed the side panel until its lines spilled (issue 39, item 9).
new ClaimPanel(state, { role: 'screen', parent: document.querySelector('[data-stage]') });

const { socket, command, link } = connectRoom(state, {
  hostKey,
  onAuthFailed: () => { forgetHostKey(code); state.hasKey = false; },
});
showReverse(state, link); // the reverse raffle's board of who is still in (issue 45)
attachConnectionUI(socket);
showWitness(state, link); // the record this page witnessed (FAIRNESS §14)
showSignoffs(state); // who witnessed this round's lock and result (issue #41)
const checkin = new ScreenCheckin({ code, key: () => (state.hasKey ? hostKey : null) });

function startStop() {
  if (!state.hasKey || state.role !== 'host') return;
  if (state.phase === 'rolling' || state.awaiting === 'start') {
    state.awaiting = 'stop';
    command('stop');
  } else if (state.phase !== 'stopping' && state.awaiting !== 'stop') {
    state.awaiting = 'start';
    command('start');
  }
}
async function toggleFullscreen() {
  try {
    if (document.fullscreenElement) await document.exitFullscreen();
    else await document.documentElement.requestFullscreen();
  } catch { /* refused: nothing to do */ }
}
function toggleSound() {
  const on = !state.sound && sound.enable();
  state.setSound(on);
}
const shortcuts = new ShortcutOverlay();
bindStageKeys({
  startStop,
  fullscreen: toggleFullscreen,
  sound: toggleSound,
  help: () => shortcuts.toggle(state.hasKey && state.role === 'host'),
  page: (delta) => state.turnPage(delta, view.pages),
});
keepAwake();
view.bindFullscreen(toggleFullscreen);
document.addEventListener('fullscreenchange', () => view.render(state));
view.bindTheme(() => state.setTheme(state.theme === 'light' ? 'dark' : 'light'));
view.bindSound(toggleSound);
state.sound = false; // audio needs a click or key on this page first; the remembered choice stays (show.js)
// Sound on by default after the first gesture, the drumroll, thump and fanfare, confetti (issue #26).
wireShow(state, sound, () => state.setSound(sound.enable()));

state.addEventListener('change', ({ detail }) => {
  if (detail === 'tick') {
    view.renderTick(state);
    return;
  }
  // A refused Start or Stop from this screen's keys (entries still open, all prizes drawn…): the
  // presenter with a clicker reads why on the projector (issue 39, item 10).
  if (detail === 'error' && state.lastError && state.hasKey) view.notice(errorText(state.lastError.code));
  if (detail === 'phase' || detail === 'result') view.notice('');
  view.render(state);
  checkin.render(state);
});

// Many winners: turn the page every few seconds.
// A page turned by hand stays up a while.
setInterval(() => { if (view.pages > 1 && Date.now() - state.pagedAt > 15000) state.nextPage(view.pages); }, 6000);

i18nEvents.addEventListener('change', () => { view.render(state); checkin.render(state); });
view.render(state);
lanBase().then((base) => state.setJoinUrl(`${base}/watch/${encodeURIComponent(code)}`));
socket.addEventListener('message', ({ detail }) => { if (detail?.type === 'branding') applyBranding(detail); });
fetchBranding(code).then((branding) => { if (branding) applyBranding(branding); });
socket.start();

window.tombola = { state, socket, stage };
