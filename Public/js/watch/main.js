// Wiring for /watch/<code>: a phone following the draw, vibrating on a reveal.

import { StageModes } from '../lib/stage-modes.js';
import { attachConnectionUI } from '../lib/socket.js';
import { showWitness } from '../lib/witness-view.js';
import { i18nEvents, initLanguageSwitch } from '../lib/i18n.js';
import { codeFromLocation, connectRoom } from '../lib/room-link.js';
import { WatchState } from './state.js';
import { WatchView } from './view.js';
import { JoinPanel, join, myEntry } from './checkin.js';
import { EntryProofLine } from './proof.js';
import { applyBranding, fetchBranding } from '../lib/branding.js';
import { wirePrizePicture } from '../lib/prize-media.js';
import { ClaimPanel } from '../lib/claims.js';

initLanguageSwitch();
const state = new WatchState(codeFromLocation());
const view = new WatchView();
new StageModes(state); // reels, wheel or names when the draw or its prize tier asks (issue #26)
wirePrizePicture(state); // the prize tier's picture while rolling and at the reveal
const { socket, link } = connectRoom(state);
attachConnectionUI(socket);
showWitness(state, link, { withRecord: true }); // the record this page witnessed (FAIRNESS §14)
const panel = new JoinPanel();
const proof = new EntryProofLine();
new ClaimPanel(state, { role: 'phone' }); // the winner's "Tap to claim" (issue #26)

panel.bindJoin(async (body) => {
  panel.setBusy(true);
  const outcome = await join(state.code, body);
  panel.setBusy(false);
  const entry = outcome.entry ?? (outcome.error?.code === 'already_joined' ? outcome.error.entry : null);
  if (entry) {
    state.myEntry = entry;
    panel.showError(null);
    // The socket opened before the device cookie existed: reconnect so its handshake carries it
    // and the room knows this phone (the host sees whether a winner's phone is here).
    socket.reconnectNow();
  } else {
    panel.showError(outcome.error.code, outcome.error.field);
  }
  view.render(state);
  panel.render(state);
});
myEntry(state.code).then((entry) => { if (entry) { state.myEntry = entry; panel.render(state); proof.update(state); } });
let wonShown = null;

state.addEventListener('change', ({ detail }) => {
  if (detail === 'tick') { view.renderTick(state); return; }
  // Browsers only allow vibration after the user has touched the page.
  if (detail === 'result' && navigator.vibrate && navigator.userActivation?.hasBeenActive) {
    navigator.vibrate(state.myWin() ? [300, 100, 300, 100, 600] : [120, 60, 200]);
  }
  view.render(state);
  panel.render(state);
  proof.update(state);
  const win = state.myWin();
  if (win && detail === 'result' && wonShown !== win.round) {
    wonShown = win.round;
    document.querySelector('[data-you-won]')?.scrollIntoView({ block: 'start' });
  }
});

i18nEvents.addEventListener('change', () => { view.render(state); panel.render(state); proof.render(); });
view.render(state);
panel.render(state);
// The event's branding (title, logo, accent) on the phones too, as on the projector.
socket.addEventListener('message', ({ detail }) => { if (detail?.type === 'branding') applyBranding(detail); });
fetchBranding(state.code).then((branding) => { if (branding) applyBranding(branding); });
socket.start();

window.tombola = { state, socket };
