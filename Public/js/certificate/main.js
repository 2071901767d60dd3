// Wiring for /draw/<code>/round/<n>: a round's certificate, printable on one A4 page, which
// rechecks the round in the page (the QR code on it opens this page again).

import { i18nEvents, initLanguageSwitch } from '../lib/i18n.js';
import { CertificateState, certificateAddress } from './state.js';
import { CertificateView } from './view.js';
import { certificatePNG } from './png.js';

initLanguageSwitch();
const state = new CertificateState(certificateAddress());
const view = new CertificateView();
view.bindPrint(() => window.print());
view.bindPng(async () => {
  // Kept on the state (`png`): the page's CSP lets no script fetch the blob: link back.
  state.png = await certificatePNG();
  view.download(state.png, state.round);
});
state.addEventListener('change', () => view.render(state));
i18nEvents.addEventListener('change', () => view.render(state));
view.render(state);
state.load();

// Not `window.tombola`: the draw pages' handle (tests wait on its socket), which this page has none of.
window.tombolaCertificate = state;
