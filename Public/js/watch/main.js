// Wiring for /watch/<code>: a phone following the draw, vibrating on a reveal.

import { attachConnectionUI } from '../lib/socket.js';
import { i18nEvents, initLanguageSwitch } from '../lib/i18n.js';
import { codeFromLocation, connectRoom } from '../lib/room.js';
import { WatchState } from './state.js';
import { WatchView } from './view.js';

initLanguageSwitch();
const state = new WatchState(codeFromLocation());
const view = new WatchView();
const { socket } = connectRoom(state);
attachConnectionUI(socket);

state.addEventListener('change', ({ detail }) => {
  if (detail === 'tick') { view.renderTick(state); return; }
  // Browsers only allow vibration after the user has touched the page.
  if (detail === 'result' && navigator.vibrate && navigator.userActivation?.hasBeenActive) {
    navigator.vibrate([120, 60, 200]);
  }
  view.render(state);
});

i18nEvents.addEventListener('change', () => view.render(state));
view.render(state);
socket.start();

window.tombola = { state, socket };
