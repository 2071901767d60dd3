// Wiring for /watch/<code>: a phone following the draw, vibrating on a reveal.

import { showWaitlist } from '../lib/waitlist-view.js';
import { showReverse } from '../lib/reverse-board.js';
import { markRehearsal } from '../lib/rehearsal-mark.js';
import { StageModes } from '../lib/stage-modes.js';
import { attachConnectionUI } from '../lib/socket.js';
import { showWitness } from '../lib/witness-view.js';
import { showSignoffs } from '../lib/signoff-view.js';
import { i18nEvents, initLanguageSwitch } from '../lib/i18n.js';
import { codeFromLocation, connectRoom } from '../lib/room-link.js';
import { WatchState } from './state.js';
import { WatchView } from './view.js';
import { JoinPanel, join, myEntry } from './checkin.js';
import { EntryProofLine } from './proof.js';
import { ReceiptLine } from './receipt.js';
import { applyBranding, fetchBranding } from '../lib/branding.js';
import { wirePrizePicture } from '../lib/prize-media.js';
import { ClaimPanel } from '../lib/claims.js';
import { VoucherCard } from '../lib/voucher-view.js';

initLanguageSwitch();
const state = new WatchState(codeFromLocation());
markRehearsal(state); // the rehearsal band and watermark (issue 45)
showWaitlist(state, { perPage: 20 }); // the whole order's waiting list, paged (issue 45)
const view = new WatchView();
new StageModes(state); // reels, wheel or names when the draw or its prize tier asks (issue #26)
wirePrizePicture(state); // the prize tier's picture while rolling and at the reveal
const { socket, link } = connectRoom(state);
showReverse(state, link); // the reverse raffle: is my entry still in? (issue 45)
attachConnectionUI(socket);
showWitness(state, link, { withRecord: true }); // the record this page witnessed (FAIRNESS §14)
showSignoffs(state); // who witnessed this round's lock and result (issue #41)
const panel = new JoinPanel();
const proof = new EntryProofLine();
const receipt = new ReceiptLine();
// The winner's "Tap to claim" (issue #26), right under "You won!"; a tap on "You won!" claims too.
new ClaimPanel(state, { role: 'phone', parent: document.querySelector('[data-claim-slot]') });
// The prize voucher (issue 45): its QR and code under "You won!", "Handed over" once staff mark it.
new VoucherCard(state, document.querySelector('[data-won-box]'));
document.querySelector('[data-you-won]').addEventListener('click', () => {
  if (document.body.classList.contains('claim-open')) document.querySelector('[data-claim-button]')?.click();
});

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
  receipt.update(state);
  const win = state.myWin();
  const claimOpen = state.myClaim()?.status === 'open';
  document.body.classList.toggle('claim-open', claimOpen);
  // The win (and its claim button) comes into view once per round, whatever message brought it.
  const round = win?.round ?? (claimOpen ? state.claims?.round : null);
  if (round != null && wonShown !== round) {
    wonShown = round;
    document.querySelector('[data-won-box]')?.scrollIntoView({ block: 'start' });
  }
});

i18nEvents.addEventListener('change', () => { view.render(state); panel.render(state); proof.render(); receipt.render(); });
view.render(state);
panel.render(state);
// The event's branding (title, logo, accent) on the phones too, as on the projector; the title
// heads the page (issue 39, item 11: the header showed only the code), the logo stays below it.
const brand = (branding) => {
  applyBranding(branding);
  view.setTitle(branding.title);
  const logo = document.querySelector('[data-brand-logo]');
  document.querySelector('[data-brand]').hidden = !logo || logo.hidden;
  view.render(state);
};
socket.addEventListener('message', ({ detail }) => { if (detail?.type === 'branding') brand(detail); });
fetchBranding(state.code).then((branding) => { if (branding) brand(branding); });
socket.start();

window.tombola = { state, socket };
